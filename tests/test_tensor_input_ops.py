"""The upstream additions for tensor-level input: ``linalg.conv_2d_nchw_fchw_q`` and
``linalg.map`` compute what MLIR defines (run by the reference evaluator, compared with numpy
written here), ``linalg.map`` prints MLIR's short form exactly when MLIR does, ``dense_resource``
blobs are bytes in a store per context, and every malformed input is one error line."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import BFloat16Type, DenseResourceAttr, ModuleOp
from xdsl.universe import Universe

import vta_mlir
from vta_mlir.ir.context import make_context, parse_module, print_module, resource_blobs
from vta_mlir.ir.dense import dense_resource_array, resource_dtype
from vta_mlir.ir.diagnostics import DiagnosticError, verify_op
from vta_mlir.ir.upstream_fixes.resources import ResourceBlob, module_resources
from vta_mlir.reference import evaluate
from vta_mlir.tools import vta_opt

INVALID = Path(__file__).resolve().parent / "filecheck" / "upstream" / "tensor-input-invalid.mlir"


# --------------------------------------------------------------------------------------------
# linalg.conv_2d_nchw_fchw_q
# --------------------------------------------------------------------------------------------


def conv_q_reference(x: np.ndarray, w: np.ndarray, x_zp: int, w_zp: int, acc: np.ndarray,
                     strides: tuple[int, int], dilations: tuple[int, int]) -> np.ndarray:
    """``acc[n, f, oh, ow] += sum_{c,kh,kw} (x[n, c, ih, iw] - x_zp) * (w[f, c, kh, kw] - w_zp)``
    with ``ih = oh * sh + kh * dh``, ``iw = ow * sw + kw * dw``, in int64, wrapped to int32."""
    out = acc.astype(np.int64)
    _, _, oh_size, ow_size = acc.shape
    _, _, kh_size, kw_size = w.shape
    for oh in range(oh_size):
        for ow in range(ow_size):
            for kh in range(kh_size):
                for kw in range(kw_size):
                    ih = oh * strides[0] + kh * dilations[0]
                    iw = ow * strides[1] + kw * dilations[1]
                    data = x[:, :, ih, iw].astype(np.int64) - x_zp
                    weight = w[:, :, kh, kw].astype(np.int64) - w_zp
                    out[:, :, oh, ow] += data @ weight.T
    return out.astype(np.int32)


@pytest.mark.parametrize(
    ("strides", "dilations", "x_zp", "w_zp"),
    [((1, 1), (1, 1), 0, 0), ((2, 2), (1, 1), 17, 0), ((2, 3), (2, 1), -7, 3),
     ((1, 2), (1, 2), -128, -5)],
)
def test_conv_q_subtracts_both_zero_points(
    strides: tuple[int, int], dilations: tuple[int, int], x_zp: int, w_zp: int
) -> None:
    n, c, f, k, out_h, out_w = 2, 3, 4, 3, 3, 2
    in_h = (out_h - 1) * strides[0] + (k - 1) * dilations[0] + 1
    in_w = (out_w - 1) * strides[1] + (k - 1) * dilations[1] + 1
    x_t, w_t = f"memref<{n}x{c}x{in_h}x{in_w}xi8>", f"memref<{f}x{c}x{k}x{k}xi8>"
    acc_t = f"memref<{n}x{f}x{out_h}x{out_w}xi32>"
    text = f"""
    func.func @conv(%x: {x_t}, %w: {w_t}, %acc: {acc_t}) {{
      %x_zp = arith.constant {x_zp} : i32
      %w_zp = arith.constant {w_zp} : i32
      linalg.conv_2d_nchw_fchw_q {{dilations = dense<[{dilations[0]}, {dilations[1]}]> :
          vector<2xi64>, strides = dense<[{strides[0]}, {strides[1]}]> : vector<2xi64>}}
          ins(%x, %w, %x_zp, %w_zp : {x_t}, {w_t}, i32, i32) outs(%acc : {acc_t})
      return
    }}
    """
    rng = np.random.default_rng(sum(strides) * 1000 + x_zp + 128)
    x = rng.integers(-128, 128, (n, c, in_h, in_w), dtype=np.int8)
    w = rng.integers(-128, 128, (f, c, k, k), dtype=np.int8)
    acc = rng.integers(-5000, 5000, (n, f, out_h, out_w), dtype=np.int32)
    (got,) = evaluate(text, [x, w, acc.copy()])
    assert got.dtype == np.int32
    assert np.array_equal(got, conv_q_reference(x, w, x_zp, w_zp, acc, strides, dilations))


def test_conv_q_on_tensors_has_its_body_and_maps() -> None:
    module = parse_module("""
    func.func @f(%x: tensor<1x2x5x5xi8>, %w: tensor<3x2x2x2xi8>, %acc: tensor<1x3x2x2xi32>,
                 %zp: i32) -> tensor<1x3x2x2xi32> {
      %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>,
          strides = dense<2> : vector<2xi64>} ins(%x, %w, %zp, %zp : tensor<1x2x5x5xi8>,
          tensor<3x2x2x2xi8>, i32, i32) outs(%acc : tensor<1x3x2x2xi32>) -> tensor<1x3x2x2xi32>
      return %0 : tensor<1x3x2x2xi32>
    }
    """)
    verify_op(module)
    conv = next(op for op in module.walk() if op.name == "linalg.conv_2d_nchw_fchw_q")
    body = [op.name for op in conv.regions[0].block.ops]
    assert body == ["arith.extsi", "arith.subi", "arith.extsi", "arith.subi", "arith.muli",
                    "arith.addi", "linalg.yield"]
    maps = [str(m.data) for m in conv.get_indexing_maps()]  # type: ignore[attr-defined]
    assert maps == [
        "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, ((d2 * 2) + d5), ((d3 * 2) + d6))",
        "(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)",
        "(d0, d1, d2, d3, d4, d5, d6) -> ()",
        "(d0, d1, d2, d3, d4, d5, d6) -> ()",
        "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)",
    ]


# --------------------------------------------------------------------------------------------
# linalg.map
# --------------------------------------------------------------------------------------------


def test_map_computes_element_wise() -> None:
    text = """
    func.func @g(%a: memref<3x4xi8>, %b: memref<3x4xi8>, %s: memref<3x4xi8>,
                 %p: memref<3x4xi32>) {
      linalg.map { arith.subi } ins(%a, %b : memref<3x4xi8>, memref<3x4xi8>)
          outs(%s : memref<3x4xi8>)
      linalg.map ins(%s : memref<3x4xi8>) outs(%p : memref<3x4xi32>)
        (%in: i8, %acc: i32) {
          %e = arith.extsi %in : i8 to i32
          %m = arith.muli %e, %acc : i32
          linalg.yield %m : i32
        }
      return
    }
    """
    rng = np.random.default_rng(3)
    a, b = (rng.integers(-128, 128, (3, 4), dtype=np.int8) for _ in range(2))
    p = rng.integers(-1000, 1000, (3, 4), dtype=np.int32)
    # %s is an input too (the second map reads it); %p is read by the body.
    s, got_p = evaluate(text, [a, b, np.zeros((3, 4), np.int8), p.copy()])
    want_s = (a.astype(np.int64) - b).astype(np.int8)  # wraps like i8
    assert np.array_equal(s, want_s)
    assert np.array_equal(got_p, (want_s.astype(np.int64) * p).astype(np.int32))


@pytest.mark.parametrize(
    ("body", "short"),
    [
        ("%r = arith.addi %x, %y : i32", "linalg.map { arith.addi"),
        # Operands out of order, a use of the init, a second op: the region form, as in MLIR.
        ("%r = arith.subi %y, %x : i32", None),
        ("%r = arith.addi %x, %o : i32", None),
        ("%t = arith.addi %x, %y : i32\n      %r = arith.addi %t, %t : i32", None),
    ],
)
def test_map_prints_the_short_form_when_mlir_does(body: str, short: str | None) -> None:
    text = f"""
    func.func @f(%a: tensor<4xi32>, %init: tensor<4xi32>) -> tensor<4xi32> {{
      %0 = linalg.map ins(%a, %a : tensor<4xi32>, tensor<4xi32>) outs(%init : tensor<4xi32>)
        (%x: i32, %y: i32, %o: i32) {{
          {body}
          linalg.yield %r : i32
        }}
      return %0 : tensor<4xi32>
    }}
    """
    module = parse_module(text)
    verify_op(module)
    printed = print_module(module)
    if short is None:
        assert "linalg.map ins(" in printed and "(%x: i32, %y: i32, %o: i32) {" in printed
    else:
        assert short in printed and "linalg.yield" not in printed
    assert print_module(parse_module(printed)) == printed


# --------------------------------------------------------------------------------------------
# dense_resource
# --------------------------------------------------------------------------------------------

RESOURCE_TEXT = """
func.func @f() -> tensor<2x2xTYPE> {
  %0 = arith.constant dense_resource<blob> : tensor<2x2xTYPE>
  return %0 : tensor<2x2xTYPE>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0xHEX"
    }
  }
#-}
"""


def resource_module(element: str, data: bytes) -> ModuleOp:
    """A function returning a 2x2 ``dense_resource`` constant of ``element`` type holding
    ``data`` (alignment 4)."""
    header = (4).to_bytes(4, "little").hex()
    return parse_module(RESOURCE_TEXT.replace("TYPE", element).replace("HEX", header + data.hex()))


def resource_value(module: ModuleOp) -> tuple[arith.ConstantOp, DenseResourceAttr]:
    op = next(op for op in module.walk() if isinstance(op, arith.ConstantOp))
    assert isinstance(op.value, DenseResourceAttr)
    return op, op.value


@pytest.mark.parametrize(
    ("element", "values"),
    [
        ("i8", np.array([[1, -2], [127, -128]], dtype=np.int8)),
        ("ui8", np.array([[1, 2], [255, 0]], dtype=np.uint8)),
        ("i32", np.array([[70000, -1], [0, -2**31]], dtype=np.int32)),
        ("i64", np.array([[2**40, -3], [5, 7]], dtype=np.int64)),
        ("f32", np.array([[1.5, -0.25], [np.inf, 3e-3]], dtype=np.float32)),
        ("f16", np.array([[1.5, -0.25], [2.0, 0.0]], dtype=np.float16)),
        ("i1", np.array([[True, False], [False, True]])),
        ("index", np.array([[4, 5], [-6, 7]], dtype=np.int64)),
    ],
)
def test_resource_array_has_the_type_of_the_attribute(element: str, values: np.ndarray) -> None:
    data = values.astype(values.dtype.newbyteorder("<")).tobytes()
    module = resource_module(element, data)
    op, attr = resource_value(module)
    got = dense_resource_array(attr, module_resources(op))
    assert got.shape == (2, 2) and got.dtype == values.dtype
    assert np.array_equal(got, values)
    # The blob is kept as bytes and the array views it.
    blob = module_resources(op).blob("blob")  # type: ignore[union-attr]
    assert blob == ResourceBlob(4, data)
    assert not got.flags.writeable and got.base is not None


def test_resource_of_an_unsupported_element_type_is_a_diagnostic() -> None:
    assert resource_dtype(BFloat16Type()) is None
    with pytest.raises(DiagnosticError, match="elements of type bf16, which vta-mlir does not"):
        resource_module("bf16", bytes(8))


def test_parsing_twice_keeps_the_keys_and_blobs() -> None:
    data = bytes(range(4))
    first = print_module(resource_module("i8", data))
    second = print_module(resource_module("i8", data))
    assert first == second
    assert "dense_resource<blob>" in first and f'blob: "0x04000000{data.hex().upper()}"' in first


def test_a_key_taken_in_the_context_is_renamed_once_for_all_its_uses() -> None:
    ctx = make_context()
    blobs = resource_blobs(ctx)
    assert blobs.add_blob("w", b"\x01\x02\x03\x04") == "w"
    module = parse_module("""
    func.func @f() -> (tensor<2xi8>, tensor<2xi8>) {
      %0 = arith.constant dense_resource<w> : tensor<2xi8>
      %1 = arith.constant dense_resource<w> : tensor<2xi8>
      return %0, %1 : tensor<2xi8>, tensor<2xi8>
    }
    {-#
      dialect_resources: { builtin: { w: "0x080000000506" } }
    #-}
    """, ctx=ctx)
    keys = {attr.resource_handle.data for op in module.walk()
            for attr in op.properties.values() if isinstance(attr, DenseResourceAttr)}
    assert keys == {"w_0"}
    assert blobs.blob("w_0") == ResourceBlob(8, b"\x05\x06")
    assert blobs.blob("w") == ResourceBlob(8, b"\x01\x02\x03\x04")
    printed = print_module(module, ctx=ctx)
    assert 'w_0: "0x080000000506"' in printed and "w:" not in printed


def test_split_input_file_chunks_keep_their_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chunk = RESOURCE_TEXT.replace("TYPE", "i8").replace("HEX", "0400000001020304")
    path = tmp_path / "two.mlir"
    path.write_text(chunk + "\n// -----\n" + chunk)
    assert vta_opt.main([str(path), "--split-input-file"]) == 0
    out = capsys.readouterr().out
    assert out.count("dense_resource<blob>") == 2 and out.count('blob: "0x04000000') == 2


def test_a_context_with_xdsls_own_store_still_parses_and_prints() -> None:
    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    text = RESOURCE_TEXT.replace("TYPE", "i8").replace("HEX", "0400000001020304")
    module = parse_module(text, ctx=ctx)
    assert 'blob: "0x0400000001020304"' in print_module(module, ctx=ctx)


def test_api_round_trip_keeps_the_blob() -> None:
    text = RESOURCE_TEXT.replace("TYPE", "i8").replace("HEX", "0400000001020304")
    module = vta_mlir.parse(text)
    printed = vta_mlir.print_ir(module)
    assert 'blob: "0x0400000001020304"' in printed


def test_a_large_resource_stays_bytes() -> None:
    # 1 M i32 elements (4 MB): the hex text, the blob's bytes and the printed hex, never an
    # object per element (28+ bytes each).
    values = np.arange(1 << 20, dtype=np.int32) * 7919
    text = (RESOURCE_TEXT.replace("2x2xTYPE", f"{values.size}xi32")
            .replace("HEX", "04000000" + values.astype("<i4").tobytes().hex()))
    tracemalloc.start()
    try:
        module = parse_module(text)
        op, attr = resource_value(module)
        got = dense_resource_array(attr, module_resources(op))
        printed = print_module(module)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(got, values)
    assert f'blob: "0x04000000{values.astype("<i4").tobytes().hex().upper()}"' in printed
    assert peak < 8 * values.nbytes


def test_blob_text_round_trip() -> None:
    blob = ResourceBlob.from_hex("0x10000000abCD")
    assert blob == ResourceBlob(16, b"\xab\xcd")
    assert blob.to_hex() == "0x10000000ABCD"
    for bad in ("10000000", "0x1000000", "0x100000", "0x00000000", "0x0300000001", "0x1000000g"):
        with pytest.raises(ValueError):
            ResourceBlob.from_hex(bad)


# --------------------------------------------------------------------------------------------
# Bad input through vta-opt: one error line, status 1, no traceback
# --------------------------------------------------------------------------------------------

INVALID_CHUNKS = [chunk for chunk in INVALID.read_text().split("// -----") if "func.func" in chunk]


@pytest.mark.parametrize("index", range(len(INVALID_CHUNKS)))
def test_bad_tensor_input_is_one_error(
    index: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chunk = INVALID_CHUNKS[index]
    path = tmp_path / "bad.mlir"
    path.write_text(chunk)
    status = vta_opt.main([str(path)])
    err = capsys.readouterr().err
    assert status == 1
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1, err
    assert errors[0].startswith(f"{path}:") and "Traceback" not in err
    expected = chunk.split("{{", 1)[1].split("}}", 1)[0]
    assert expected in errors[0]
