"""Arguments read in two packed layouts (``passes/pack/layouts.py``), end to end on every
shipped configuration: the host packs such an argument once per layout (``ArgSpec.copy_of``),
or one buffer serves both when one layout is the other's bytes viewed with fewer axes.  Each
program is compared bit for bit with numpy; the ONNX model ``y = Add(x, Conv(x))`` with
onnxruntime."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from onnx import helper

import vta_mlir
from tests.layer_programs import Network, conv_layer
from tests.mlir_programs import generic, memref
from tests.test_onnx_import import EXAMPLES, check
from vta_mlir.abi import Quantization
from vta_mlir.binary import from_bytes
from vta_mlir.config import VTAConfig
from vta_mlir.errors import BinaryFormatError

# The model builders of examples/onnx/models.py (not a package: imported from its folder).
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
from models import Built, float_model, init_tensor, quantize  # noqa: E402

SHAPE = (1, 16, 8, 8)
IDENT4 = "affine_map<(n, c, h, w) -> (n, c, h, w)>"


def _params(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = rng.integers(-128, 128, SHAPE, dtype=np.int8)
    w = rng.integers(-128, 128, (16, 16, 3, 3), dtype=np.int8)
    return x, w, rng.integers(-3000, 3000, 16).astype(np.int32)


def x_plus_conv_x() -> str:
    """``y = min(x + conv(x), 127)``: a padded 3×3 convolution layer into ``%h``, then an
    element-wise layer adding ``%x`` and ``%h``."""
    t = memref(SHAPE, "i8")
    net = Network()
    net.buffer("h", SHAPE)
    net.conv("a", "x", SHAPE, 16, 3, 1, 1, 6, "h")
    net.body += [
        f"  linalg.generic {{indexing_maps = [{IDENT4}, {IDENT4}, {IDENT4}], iterator_types = "
        f"[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}} ins(%x, %h : {t}, {t}) "
        f"outs(%y : {t}) {{",
        "  ^bb0(%p: i8, %q: i8, %o: i8):",
        "    %pe = arith.extsi %p : i8 to i32",
        "    %qe = arith.extsi %q : i8 to i32",
        "    %s = arith.addi %pe, %qe : i32",
        "    %m = arith.constant 127 : i32",
        "    %r = arith.minsi %s, %m : i32",
        "    %tr = arith.trunci %r : i32 to i8",
        "    linalg.yield %tr : i8",
        "  }"]
    return net.function("x_plus_conv_x", [f"%x: {t}"], [f"%y: {t}"])


def test_x_plus_conv_x(cfg: VTAConfig) -> None:
    """The add reads ``%x`` as the matrix view of the convolution's data layout: one buffer."""
    binary = vta_mlir.lower(x_plus_conv_x(), config=cfg)
    assert binary.copies == []
    x, w, b = _params(np.random.default_rng(1))
    (y,) = vta_mlir.Device(cfg).load_module(binary)(x, w, b)
    h = conv_layer(x, w, b, 1, 1, 6)
    expected = np.minimum(x.astype(np.int64) + h, 127).astype(np.int8)
    assert 0.2 < (h > 0).mean() < 0.9  # the convolution's output is not all clipped
    np.testing.assert_array_equal(y, expected)


def conv_and_elementwise() -> str:
    """``y1 = conv(x)`` and ``y2 = x + 3``, each a layer writing an output."""
    t = memref(SHAPE, "i8")
    net = Network()
    net.conv("a", "x", SHAPE, 16, 3, 1, 1, 6, "y1")
    net.body.append(generic(SHAPE, [("x", SHAPE, "i8", [0, 1, 2, 3])],
                            "%e = arith.extsi %in0 : i8 to i32\n    %c = arith.constant 3 : i32"
                            "\n    %r = arith.addi %e, %c : i32", out="y2"))
    return net.function("two_outputs", [f"%x: {t}"], [f"%y1: {t}", f"%y2: {t}"])


def test_conv_and_elementwise_layer(cfg: VTAConfig) -> None:
    """``%x`` read by a convolution and by an element-wise layer of its own (flattened in C
    order): packed twice, and the copy survives a round trip through the ``.vtab`` format."""
    binary = from_bytes(vta_mlir.lower(conv_and_elementwise(), config=cfg).to_bytes(), cfg)
    assert [(c.name, c.copy_of) for c in binary.copies] == [("x_1", "x")]
    assert [a.name for a in binary.inputs] == ["x", "a_w", "a_b"]
    x, w, b = _params(np.random.default_rng(2))
    y1, y2 = vta_mlir.Device(cfg).load_module(binary)(x, w, b)
    np.testing.assert_array_equal(y1, conv_layer(x, w, b, 1, 1, 6))
    np.testing.assert_array_equal(y2, (x.astype(np.int64) + 3).astype(np.int8))


@pytest.mark.parametrize("change, message", [
    ({"copy_of": "y1"}, "copies 'y1', an 'out' argument the caller does not pass"),
    ({"copy_of": "w"}, "copies 'w', which is not an argument"),
    ({"quant": Quantization(0.5, 0)}, "copies 'x' but differs from it"),
    ({"copy_of": ""}, "is listed among the copies but copies no argument"),
])
def test_copies_are_checked(default_cfg: VTAConfig, change: dict[str, object],
                            message: str) -> None:
    """A copy packs an input argument of the same values: the writer (and the loader, which
    runs the same checks) refuses any other."""
    binary = vta_mlir.lower(conv_and_elementwise(), config=default_cfg)
    binary.copies = [dataclasses.replace(binary.copies[0], **change)]  # type: ignore[arg-type]
    with pytest.raises(BinaryFormatError, match=re.escape(message)):
        binary.to_bytes()


def test_dense_and_elementwise_layer(cfg: VTAConfig) -> None:
    """``%x`` the activations of a dense layer and the operand of an element-wise layer that
    adds a per-row value (flattened with the rows as columns): packed twice."""
    m, k, n = 3, 40, 24
    shift = generic((m, n), [("acc", (m, n), "i32", [0, 1])],
                    "%c6 = arith.constant 6 : i32\n    %r = arith.shrsi %in0, %c6 : i32", out="y1")
    per_row = generic((m, k), [("x", (m, k), "i8", [0, 1]), ("rows", (m,), "i32", [0])],
                      "%e = arith.extsi %in0 : i8 to i32\n    %r = arith.addi %e, %in1 : i32",
                      out="y2")
    t_x, t_w, t_acc = memref((m, k), "i8"), memref((k, n), "i8"), memref((m, n), "i32")
    text = f"""
func.func @dense_and_rows(%x: {t_x}, %w: {t_w}, %rows: {memref((m,), "i32")},
                          %y1: {memref((m, n), "i8")}, %y2: {t_x}) {{
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : {t_acc}
  linalg.fill ins(%c0 : i32) outs(%acc : {t_acc})
  linalg.matmul ins(%x, %w : {t_x}, {t_w}) outs(%acc : {t_acc})
{shift}
{per_row}
  return
}}
"""
    binary = vta_mlir.lower(text, config=cfg)
    assert [c.copy_of for c in binary.copies] == ["x"]
    rng = np.random.default_rng(3)
    x = rng.integers(-128, 128, (m, k), dtype=np.int8)
    w = rng.integers(-128, 128, (k, n), dtype=np.int8)
    r = rng.integers(-60, 60, m).astype(np.int32)
    y1, y2 = vta_mlir.Device(cfg).load_module(binary)(x, w, r)
    np.testing.assert_array_equal(
        y1, ((x.astype(np.int64) @ w.astype(np.int64)) >> 6).astype(np.int8))
    np.testing.assert_array_equal(y2, (x.astype(np.int64) + r[:, None]).astype(np.int8))


def add_conv(rng: np.random.Generator) -> Built:
    """``y = Add(x, Conv(x))``: a padded 3×3 convolution of 16 channels into 16, added to its
    own input."""
    inits = [init_tensor(rng, "w", (16, 16, 3, 3), 0.1), init_tensor(rng, "b", (16,), 0.3)]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Add", ["x", "c"], ["y"], name="add")]
    return nodes, inits, SHAPE, SHAPE


def test_onnx_add_of_conv_input(tmp_path: Path, cfg: VTAConfig) -> None:
    """The imported model reads its input as the convolution's data and as the Add's operand;
    it runs bit-exact with the integer model, ≥ 99 % of the outputs within one output step of
    onnxruntime and none beyond two (the two roundings of the QDQ graph, as a residual)."""
    rng = np.random.default_rng(0)
    path = quantize(float_model(add_conv, rng), tmp_path / "add_conv.onnx", False, rng)
    check(path, cfg, worst=2.0)
