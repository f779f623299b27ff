"""Frontends: importers from other model formats into the input IR (``docs/onnx.md``)."""
