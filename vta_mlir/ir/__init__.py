"""IR infrastructure shared by the tools: the MLIR context with every dialect, fixes to
upstream op classes, source locations and diagnostics."""
