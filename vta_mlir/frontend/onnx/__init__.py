"""The ONNX frontend: quantized models (``onnxruntime.quantization.quantize_static``: QDQ or
QOperator format, int8 or uint8 activations) to the whole-network input IR, the float edges as
``vta.quant`` host steps (``docs/onnx.md``).

This package needs the ``onnx`` package (``pip install 'vta-mlir[onnx]'``); nothing else in
``vta_mlir`` imports it.
"""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from vta_mlir.quant.emit import emit_program
from vta_mlir.quant.program import Program
from vta_mlir.quant.requant import MODES, Requant, choose_requant, choose_requant_channels

from .dynamic import dynamic_text, is_dynamic
from .load import OnnxImportError, load_model
from .qdq import recognize

__all__ = ["MODES", "OnnxImportError", "Program", "Requant", "choose_requant",
           "choose_requant_channels", "import_model", "import_program", "import_text"]


def import_program(path: str | Path, *, requant: str = "fixed") -> Program:
    """The integer program of the QDQ model at ``path`` (layers with folded constants)."""
    return recognize(load_model(path), requant)


def import_text(path: str | Path, *, requant: str = "fixed") -> str:
    """The MLIR text of the QDQ model at ``path``; ``requant`` is ``fixed`` or ``pow2``.  A
    dynamically quantized model (``quantize_dynamic``) is written as host code around its
    ``MatMulInteger`` s (``dynamic.py``; ``requant`` does not apply)."""
    model = load_model(path)
    if is_dynamic(model.graph):
        return dynamic_text(model)
    return emit_program(recognize(model, requant))


def import_model(path: str | Path, *, requant: str = "fixed") -> ModuleOp:
    """The QDQ model at ``path`` as a parsed module."""
    from vta_mlir.api import parse

    return parse(import_text(path, requant=requant))
