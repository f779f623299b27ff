"""Lowering passes of vta-mlir, one module per pass (installed as ``vta_mlir.passes``)."""
