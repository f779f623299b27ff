"""Residual ``Add``s emitted in the epilogue of the convolution producing an operand
(``vta_mlir.quant.emit_residual``, ``docs/onnx.md`` §4.5): which Adds fuse, the form of the
fused epilogue, and the fused programs run bit-exact with the integer semantics written
independently (``tests/onnx_semantics.py``) on every configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.onnx_qdq_builder import QDQ
from tests.test_onnx_import import MODELS, check, quantized
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.frontend.onnx import import_program, import_text
from vta_mlir.quant.emit_residual import fused_adds


def shared_and_swapped(path: Path) -> Path:
    """``c = conv(x)``; ``add = c + x`` (``c`` is also read by ``d``: no fusion);
    ``d = conv(c)``; ``add2 = add + d`` (``d`` is the Add's second operand: fused, swapped)."""
    qdq = QDQ((1, 16, 6, 6))
    c = qdq.conv("c", 16, pads=[1, 1, 1, 1])
    added = qdq.op("Add", [c, "x_dq"], "add")
    qdq.last = c
    d = qdq.conv("d", 16, pads=[1, 1, 1, 1])
    qdq.op("Add", [added, d], "add2")
    return qdq.save(path / "shared.onnx", (1, 16, 6, 6))


def epilogue_of(text: str, conv: str) -> str:
    body = text[text.index(f"ins(%{conv}_acc"):]
    return body[:body.index("linalg.yield")]


def test_only_an_add_whose_convolution_output_nothing_else_reads_fuses(tmp_path: Path) -> None:
    program = import_program(shared_and_swapped(tmp_path))
    fused = fused_adds(program)
    assert set(fused) == {"d"}
    assert fused["d"].add.name == "add2" and fused["d"].swapped
    text = import_text(shared_and_swapped(tmp_path))
    assert "%res: i8" in epilogue_of(text, "d") and "%res" not in epilogue_of(text, "c")
    # The Add of c and x is a generic of its own, add2 is not.
    assert 'loc("add")' in text and 'loc("add2")' not in text


def test_a_residual_block_fuses_its_add(tmp_path: Path) -> None:
    """The residual block of models.py: conv1, conv2 and ``conv2 + conv1``; the Add is in
    conv2's epilogue, after conv2's clip, reading conv1's codes."""
    path = quantized(tmp_path, MODELS["residual"], True)
    fused = fused_adds(import_program(path))
    assert list(fused) == ["conv2"] and not fused["conv2"].swapped
    body = epilogue_of(import_text(path), "conv2")
    ops = [line.split("= arith.")[1].split()[0] for line in body.splitlines()
           if "= arith." in line and "arith.constant" not in line]
    clip = ops.index("maxsi")
    assert ops[clip - 1] == "minsi" and "extsi" in ops[clip:] and ops[-3:] == [
        "minsi", "maxsi", "trunci"]


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_fused_programs_run_bit_exact(tmp_path: Path, config: str) -> None:
    check(shared_and_swapped(tmp_path), config, worst=None)
    check(quantized(tmp_path, MODELS["residual"], False), config, worst=2.0)
