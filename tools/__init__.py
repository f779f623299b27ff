"""Command-line tools of vta-mlir (installed as ``vta_mlir.tools``)."""
