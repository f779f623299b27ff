"""MLIR dialects of vta-mlir (installed as ``vta_mlir.dialects``)."""
