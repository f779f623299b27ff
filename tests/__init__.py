"""vta-mlir test suite."""
