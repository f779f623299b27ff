"""Host steps at a model's float edges (``vta.quant``): the quantize / dequantize formulas
(ties to even, saturation), int8 programs whose input and output are float edges run through
``vta-run`` with float ``.npy`` files and through the Python API on every shipped
configuration, compared bit for bit with numpy written here, the ``.vtab`` argument table
version 4 (round trip, corrupt fields, older tables), ``vtaisa.arg``, ``--stats`` host steps,
``--check``, and the errors for bad attributes and wrong input dtypes."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import vta_mlir
from vta_mlir.abi import ArgSpec, ArgumentError, Quantization, dequantize, quantize
from vta_mlir.binary import from_bytes, to_bytes
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.errors import BinaryFormatError
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.reference import evaluate
from vta_mlir.tools import vta_run
from vta_mlir.vtab_format import QUANTIZED_TABLE_VERSION

from .binary_helpers import patch, rejects, section

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[1]

X_SCALE, X_ZP = 0.0173, -3
Y_SCALE, Y_ZP = 0.05, 12
SHIFT = 9

X_QUANT = f" {{vta.quant = {{scale = {X_SCALE} : f64, zero_point = {X_ZP} : i64}}}}"
Y_QUANT = f" {{vta.quant = {{scale = {Y_SCALE} : f64, zero_point = {Y_ZP} : i64}}}}"

DENSE = f"""
func.func @dense(%x: memref<3x40xi8>{X_QUANT},
                 %w: memref<40x24xi8>,
                 %y: memref<3x24xi8>{Y_QUANT}) {{
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<3x24xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<3x24xi32>)
  linalg.matmul ins(%x, %w : memref<3x40xi8>, memref<40x24xi8>) outs(%acc : memref<3x24xi32>)
  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                    affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%acc : memref<3x24xi32>) outs(%y : memref<3x24xi8>) {{
  ^bb0(%a: i32, %o: i8):
    %sh = arith.constant {SHIFT} : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %s = arith.shrsi %a, %sh : i32
    %m = arith.maxsi %s, %lo : i32
    %n = arith.minsi %m, %hi : i32
    %t = arith.trunci %n : i32 to i8
    linalg.yield %t : i8
  }}
  memref.dealloc %acc : memref<3x24xi32>
  return
}}
"""

# An element-wise op of rank 3 (flattened into the matrix layout): y = clip((3 a) >> 1).
ELEMENTWISE = """
func.func @scale3(%a: memref<3x5x7xi8> {vta.quant = {scale = 0.25 : f64, zero_point = 5 : i64}},
                  %y: memref<3x5x7xi8> {vta.quant = {scale = 0.125 : f64, zero_point = -7 : i64}}) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<3x5x7xi8>) outs(%y : memref<3x5x7xi8>) {
  ^bb0(%v: i8, %o: i8):
    %c3 = arith.constant 3 : i32
    %c1 = arith.constant 1 : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %e = arith.extsi %v : i8 to i32
    %p = arith.muli %e, %c3 : i32
    %s = arith.shrsi %p, %c1 : i32
    %m = arith.maxsi %s, %lo : i32
    %n = arith.minsi %m, %hi : i32
    %t = arith.trunci %n : i32 to i8
    linalg.yield %t : i8
  }
  return
}
"""


# --------------------------------------------------------------------------------------------
# The numpy model, written from the ONNX definitions


def np_quantize(x: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    q = np.rint(x.astype(np.float32) / np.float32(scale)) + zero_point
    return np.clip(q, -128, 127).astype(np.int8)


def np_dequantize(q: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    return (q.astype(np.float32) - zero_point) * np.float32(scale)


def dense_model(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    q = np_quantize(x, X_SCALE, X_ZP).astype(np.int64)
    acc = q @ w.astype(np.int64)
    y = np.clip(acc >> SHIFT, -128, 127).astype(np.int8)
    return np_dequantize(y, Y_SCALE, Y_ZP)


def elementwise_model(a: np.ndarray) -> np.ndarray:
    q = np_quantize(a, 0.25, 5).astype(np.int64)
    y = np.clip((3 * q) >> 1, -128, 127).astype(np.int8)
    return np_dequantize(y, 0.125, -7)


def dense_inputs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    # Beyond the representable range on both sides, so that the quantization saturates too.
    x = rng.uniform(-2.6, 2.6, size=(3, 40)).astype(np.float32)
    w = rng.integers(-128, 128, size=(40, 24), dtype=np.int8)
    return x, w


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


# --------------------------------------------------------------------------------------------
# The formulas


def test_quantize_rounds_ties_to_even_and_saturates() -> None:
    # scale 0.5 makes every x / scale exact: the ties are true ties.
    x = np.array([0.25, 0.75, -0.25, -0.75, 1.25, 63.75, 64.25, -64.25, 1000.0, -1000.0,
                  np.inf, -np.inf], dtype=np.float32)
    np.testing.assert_array_equal(
        quantize(x, Quantization(0.5, 0)),
        np.array([0, 2, 0, -2, 2, 127, 127, -128, 127, -128, 127, -128], dtype=np.int8))
    np.testing.assert_array_equal(
        quantize(x, Quantization(0.5, -3)),
        np.array([-3, -1, -3, -5, -1, 125, 125, -128, 127, -128, 127, -128], dtype=np.int8))
    assert quantize(x, Quantization(0.5, 0)).dtype == np.int8


def test_quantize_and_dequantize_match_the_numpy_formulas() -> None:
    rng = np.random.default_rng(7)
    for scale, zp in ((0.0173, -3), (0.05, 12), (1 / 3, 127), (2.5e-4, -128), (7.0, 0)):
        x = (rng.uniform(-300, 300, size=4000) * scale).astype(np.float32)
        # Exact ties of the float32 quotient as well.
        ties = (np.arange(-140, 140) + np.float32(0.5)) * np.float32(scale)
        x = np.concatenate([x, ties.astype(np.float32)])
        q = quantize(x, Quantization(scale, zp))
        np.testing.assert_array_equal(q, np_quantize(x, scale, zp))
        same_bits(dequantize(q, Quantization(scale, zp)), np_dequantize(q, scale, zp))
    # Float64 input is rounded to float32 first, as onnxruntime takes float32.
    x64 = np.array([0.1 + 1e-12, 0.3], dtype=np.float64)
    np.testing.assert_array_equal(quantize(x64, Quantization(0.1, 0)),
                                  np_quantize(x64.astype(np.float32), 0.1, 0))


def test_quantization_is_validated() -> None:
    for scale in (0.0, -1.0, float("nan"), float("inf"), True):
        with pytest.raises(BinaryFormatError, match="scale"):
            Quantization(scale, 0)  # type: ignore[arg-type]
    for zp in (128, -129, 1.5, True):
        with pytest.raises(BinaryFormatError, match="zero point"):
            Quantization(0.5, zp)  # type: ignore[arg-type]
    with pytest.raises(BinaryFormatError, match="only an int8 argument can be quantized"):
        ArgSpec("b", "in", "int32", (4,), (4,), (4,), (0,), quant=Quantization(0.5, 0))


def test_argspec_takes_floats_only_for_a_quantized_argument() -> None:
    spec = ArgSpec("x", "inout", "int8", (2, 3), (2, 3), (2, 3), (0, 1),
                   quant=Quantization(0.5, 1))
    x = np.array([[0.25, -0.25, 100.0], [0.0, 1.0, -1.0]], dtype=np.float32)
    image = spec.pack(x)
    assert np.frombuffer(image, np.int8).tolist() == [1, 1, 127, 1, 3, -1]
    same_bits(spec.unpack(image), np_dequantize(np_quantize(x, 0.5, 1), 0.5, 1))
    assert spec.host_dtype == "float32"
    spec.pack(x.astype(np.float16))  # any float dtype is accepted
    with pytest.raises(ArgumentError, match=r"expects a float array \(float32\).*got int8"):
        spec.pack(np.zeros((2, 3), np.int8))
    with pytest.raises(ArgumentError, match="expected shape"):
        spec.pack(np.zeros((3, 2), np.float32))
    with pytest.raises(ArgumentError, match="NaN cannot be quantized"):
        spec.pack(np.full((2, 3), np.nan, np.float32))


# --------------------------------------------------------------------------------------------
# End to end


def test_dense_through_the_api(cfg: VTAConfig) -> None:
    mod = vta_mlir.compile(DENSE, config=cfg)
    assert mod.signature() == "(x: 3x40xfloat32, w: 40x24xint8) -> (y: 3x24xfloat32)"
    for seed in (0, 1):
        x, w = dense_inputs(seed)
        (y,) = mod(x, w)
        same_bits(y, dense_model(x, w))
    steps = mod.last_run.host_steps
    assert [(s["argument"], s["step"]) for s in steps] == [("x", "quantize"),
                                                           ("y", "dequantize")]
    assert all(s["seconds"] >= 0 for s in steps)


def test_elementwise_through_the_api(cfg: VTAConfig) -> None:
    a = np.random.default_rng(3).uniform(-40, 40, size=(3, 5, 7)).astype(np.float32)
    (y,) = vta_mlir.compile(ELEMENTWISE, config=cfg)(a)
    same_bits(y, elementwise_model(a))


def test_the_reference_evaluator_runs_the_host_steps() -> None:
    x, w = dense_inputs(4)
    (y,) = evaluate(DENSE, [x, w])
    same_bits(y, dense_model(x, w))


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = vta_run.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_dense_through_vta_run(config: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "dense.mlir"
    src.write_text(DENSE)
    x, w = dense_inputs(5)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", w)
    out = tmp_path / "y.npy"
    status, stats, err = run_cli(
        [str(src), "--config", config, "--input", str(tmp_path / "x.npy"),
         "--input", str(tmp_path / "w.npy"), "--output", str(out), "--check", "--stats", "-"],
        capsys)
    assert status == 0, err
    assert "check: PASS" in err
    same_bits(np.load(out), dense_model(x, w))
    steps = json.loads(stats)["host_steps"]
    assert [(s["argument"], s["step"]) for s in steps] == [("x", "quantize"),
                                                           ("y", "dequantize")]
    assert all(isinstance(s["seconds"], float) for s in steps)


def test_random_inputs_are_floats_and_check_passes(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "scale3.mlir"
    src.write_text(ELEMENTWISE)
    status, out, err = run_cli([str(src), "--random-inputs", "--seed", "2", "--check"], capsys)
    assert status == 0, err
    assert "y: 3x5x7xfloat32 [" in out and "check: PASS" in out
    (spec,) = [a for a in vta_mlir.lower(ELEMENTWISE).inputs]
    (a,) = vta_run.random_inputs([spec], 2)
    assert a.dtype == np.float32
    # Uniform over the values that quantize into [-128, 127]: (-128 - 5) * 0.25 up to
    # (127 - 5) * 0.25.
    assert -33.25 <= a.min() and a.max() <= 30.5
    q = np_quantize(a, 0.25, 5)
    assert q.min() < -100 and q.max() > 100


def test_check_fails_when_the_outputs_differ(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    x, w = dense_inputs(6)
    module = vta_mlir.lower(DENSE)
    (y_spec,) = module.outputs
    got = dense_model(x, w)
    got[1, 2] = np.nextafter(got[1, 2], np.float32(np.inf))
    problems = vta_run.check_outputs(vta_mlir.parse(DENSE), module, [x, w], [got])
    assert len(problems) == 1 and "1 of 72 elements of 'y' differ, first at [1, 2]" \
        in problems[0]
    assert y_spec.quant == Quantization(Y_SCALE, Y_ZP)


def test_wrong_input_dtype_is_one_clear_error(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "dense.mlir"
    src.write_text(DENSE)
    x, w = dense_inputs(0)
    np.save(tmp_path / "x.npy", np_quantize(x, X_SCALE, X_ZP))
    np.save(tmp_path / "w.npy", w)
    status, _, err = run_cli([str(src), "--input", str(tmp_path / "x.npy"),
                              "--input", str(tmp_path / "w.npy")], capsys)
    assert status == 1
    assert err.strip().splitlines() == [
        f"vta-run: error: {tmp_path / 'x.npy'}: argument 'x': quantized (vta.quant), expects a "
        "float array (float32) of the model's values, got int8 (convert with "
        ".astype(np.float32))"]
    mod = vta_mlir.compile(DENSE)
    with pytest.raises(ArgumentError, match="expects a float array"):
        mod(np_quantize(x, X_SCALE, X_ZP), w)


# --------------------------------------------------------------------------------------------
# The .vtab argument table and vtaisa.arg


def _flag_offset(data: bytes) -> int:
    """Offset of the quantization flag of the first argument (``x``: rank 2, split rank 4)."""
    _, off, _, _ = section(data, b"ARGS")
    name_len = struct.unpack_from("<H", data, off + 4)[0]
    return off + 4 + 2 + name_len + 16 + 2 * 4 * 2 + 4 * 4 + 4 + 1 + 1


def test_vtab_round_trip_is_version_4(cfg: VTAConfig, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    module = vta_mlir.lower(DENSE, config=cfg)
    data = to_bytes(module)
    _, off, _, _ = section(data, b"ARGS")
    # Quantized arguments and no copies: version 4, the oldest table that holds them.
    assert struct.unpack_from("<HH", data, off) == (4, 0) == (QUANTIZED_TABLE_VERSION, 0)
    at = _flag_offset(data)
    assert struct.unpack_from("<Bdi", data, at) == (1, X_SCALE, X_ZP)
    back = from_bytes(data)
    assert [a.quant for a in back.args] == [Quantization(X_SCALE, X_ZP), None,
                                            Quantization(Y_SCALE, Y_ZP)]
    assert back.args == module.args and to_bytes(back) == data
    vtab = tmp_path / "dense.vtab"
    vtab.write_bytes(data)
    x, w = dense_inputs(8)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", w)
    status, _, err = run_cli([str(vtab), "--input", str(tmp_path / "x.npy"), "--input",
                              str(tmp_path / "w.npy"), "--output", str(tmp_path / "y.npy")],
                             capsys)
    assert status == 0, err
    same_bits(np.load(tmp_path / "y.npy"), dense_model(x, w))


def test_unquantized_modules_keep_table_version_3() -> None:
    plain = DENSE.replace(X_QUANT, "").replace(Y_QUANT, "")
    assert "vta.quant" not in plain
    data = to_bytes(vta_mlir.lower(plain))
    _, off, _, _ = section(data, b"ARGS")
    assert struct.unpack_from("<HH", data, off) == (3, 0)
    assert all(a.quant is None for a in from_bytes(data).args)


def test_corrupt_quantization_fields_are_rejected() -> None:
    data = to_bytes(vta_mlir.lower(DENSE))
    at = _flag_offset(data)
    rejects(patch(data, at, "<B", 2), "argument 'x': quantization flag 2 is not 0 or 1")
    rejects(patch(data, at + 1, "<d", 0.0), "argument 'x': quantization scale 0.0 is not a "
                                            "positive finite number")
    rejects(patch(data, at + 1, "<d", float("nan")), "scale nan is not a positive finite")
    rejects(patch(data, at + 1, "<d", -0.5), "scale -0.5 is not a positive finite")
    rejects(patch(data, at + 9, "<i", 128), r"zero point 128 is not an integer in \[-128, 127\]")
    # A flag 0 where there is a quantization leaves 12 bytes no record reads.
    rejects(patch(data, at, "<B", 0), "section ARGS")
    # A table of version 3 does not have the field: the same bytes are not a version-3 table.
    _, off, _, _ = section(data, b"ARGS")
    rejects(patch(data, off, "<H", 3), "section ARGS")
    for n in range(at, at + 13):
        with pytest.raises(BinaryFormatError):
            from_bytes(data[:n])


def test_vtaisa_arg_prints_and_parses_the_quantization(cfg: VTAConfig) -> None:
    module = vta_mlir.lower(DENSE, config=cfg)
    isa = vta_mlir.print_ir(vta_mlir.run_pipeline(vta_mlir.parse(DENSE, config=cfg),
                                                  "vta-to-isa"))
    assert 'vtaisa.arg "x" in int8 [3, 40] quant scale 0.0173 zero_point -3 padded' in isa
    assert 'vtaisa.arg "y" out int8 [3, 24] quant scale 0.05 zero_point 12 padded' in isa
    again = vta_mlir.lower(isa, config=cfg)
    assert again.args == module.args


# --------------------------------------------------------------------------------------------
# Bad attributes


def test_bad_attribute_is_one_error_at_the_function(tmp_path: Path) -> None:
    bad = DENSE.replace(f"zero_point = {Y_ZP} : i64", "zero_point = 200 : i64")
    with pytest.raises(DiagnosticError, match=r"argument 2 \(%y\): vta.quant: zero_point must "
                                              r"be an integer in \[-128, 127\]"):
        vta_mlir.compile(bad)
    src = tmp_path / "bad.mlir"
    src.write_text(bad)
    proc = subprocess.run([str(BIN / "vta-run"), str(src), "--random-inputs"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "error: 'func.func' op argument 2 (%y): vta.quant: zero_point must be an integer" \
        in proc.stderr
    assert proc.stdout == ""


VTA_LEVEL = (ROOT / "examples" / "vta" / "vector_add.mlir").read_text()


def test_the_host_layout_reads_and_checks_the_attribute() -> None:
    # A vta-level program (no vta-pack): the host layout is where the attribute is read.
    quant = "{vta.quant = {scale = 0.5 : f64, zero_point = 1 : i64}}"
    good = VTA_LEVEL.replace("%C: memref<1x64x1x16xi8>", f"%C: memref<1x64x1x16xi8> {quant}")
    assert good != VTA_LEVEL
    module = vta_mlir.lower(good)
    assert [a.quant for a in module.args] == [None, None, Quantization(0.5, 1)]
    a = np.arange(1024, dtype=np.int32).reshape(1, 64, 1, 16) % 50
    (c,) = vta_mlir.compile(good)(a, a)
    same_bits(c, np_dequantize((a + a).astype(np.int8), 0.5, 1))
    bad = VTA_LEVEL.replace("%A: memref<1x64x1x16xi32>", f"%A: memref<1x64x1x16xi32> {quant}")
    with pytest.raises(DiagnosticError, match=r"argument 0 \(%A\): vta.quant is on an argument "
                                              r"of type memref<1x64x1x16xi32>; only int8"):
        vta_mlir.lower(bad)


def test_documented_quantized_example_matches_the_writer() -> None:
    """docs/binary-format.md §5, "The same module with a quantized argument"."""
    import dataclasses

    from .binary_helpers import doc_example_module

    module = doc_example_module()
    module.args = [dataclasses.replace(module.args[0], quant=Quantization(0.5, 1))]
    data = to_bytes(module)
    assert len(data) == 615 and struct.unpack_from("<HHIIII", data, 8)[4:] == (615, 0xAE4675EF)
    assert section(data, b"ARGS")[1:3] == (0x21D, 74)
    assert data[0x21D:0x221] == bytes.fromhex("04000000")
    assert data[0x25A:] == bytes.fromhex("01" "000000000000e03f" "01000000")
    x = np.linspace(-3, 3, 20, dtype=np.float32).reshape(1, 20)
    (y,) = vta_mlir.compile(module)(x)
    same_bits(y, np_dequantize((np_quantize(x, 0.5, 1).astype(np.int16) + 1).astype(np.int8),
                               0.5, 1))
