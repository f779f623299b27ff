"""Host steps end to end: float code between VTA layers is outlined into ``vta.host``, lowered
to ``vtaisa.host_step``, stored in the ``.vtab`` and run by the runtime between device runs,
bit for bit as numpy computes it here, on every shipped configuration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vta_mlir import compile, lower, parse, print_ir, run_pipeline
from vta_mlir.binary import from_bytes
from vta_mlir.config import VTAConfig
from vta_mlir.errors import BinaryFormatError
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.tools import vta_run, vta_translate

M, K, N = 4, 32, 48
IDENTITY = "affine_map<(i, j) -> (i, j)>"


def _generic(ins: str, outs: str, body: str, *, in_type: str, out_type: str) -> str:
    return f"""  linalg.generic {{indexing_maps = [{IDENTITY}, {IDENTITY}],
                  iterator_types = ["parallel", "parallel"]}}
      ins({ins} : {in_type}) outs({outs} : {out_type}) {{
{body}
  }}
"""


def _dense(x: str, w: str, out: str, k: int, n: int, shift: int) -> str:
    """``out = int8((x @ w) >> shift)`` on VTA (wrapping)."""
    acc = f"memref<{M}x{n}xi32>"
    return f"""  %acc_{out} = memref.alloc() : {acc}
  %zero_{out} = arith.constant 0 : i32
  linalg.fill ins(%zero_{out} : i32) outs(%acc_{out} : {acc})
  linalg.matmul ins(%{x}, %{w} : memref<{M}x{k}xi8>, memref<{k}x{n}xi8>) outs(%acc_{out} : {acc})
""" + _generic(f"%acc_{out}", f"%{out}", f"""  ^bb0(%a: i32, %o: i8):
    %c = arith.constant {shift} : i32
    %s = arith.shrsi %a, %c : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8""", in_type=acc, out_type=f"memref<{M}x{n}xi8>")


def _sigmoid(src: str, dst: str, n: int) -> str:
    """``dst = int8(clip(roundeven(sigmoid(src / 8) · 256), -128, 127))`` in f32."""
    f32 = f"memref<{M}x{n}xf32>"
    i8 = f"memref<{M}x{n}xi8>"
    dequantize = """  ^bb0(%a: i8, %o: f32):
    %sc = arith.constant 0.125 : f32
    %one = arith.constant 1.0 : f32
    %v = arith.sitofp %a : i8 to f32
    %d = arith.mulf %v, %sc : f32
    %n = arith.negf %d : f32
    %e = math.exp %n : f32
    %p = arith.addf %e, %one : f32
    %r = arith.divf %one, %p : f32
    linalg.yield %r : f32"""
    quantize = """  ^bb0(%a: f32, %o: i8):
    %s = arith.constant 256.0 : f32
    %lo = arith.constant -128.0 : f32
    %hi = arith.constant 127.0 : f32
    %m = arith.mulf %a, %s : f32
    %r = math.roundeven %m : f32
    %c = arith.maximumf %r, %lo : f32
    %k = arith.minimumf %c, %hi : f32
    %q = arith.fptosi %k : f32 to i8
    linalg.yield %q : i8"""
    return (f"  %f = memref.alloc() : {f32}\n"
            + _generic(f"%{src}", "%f", dequantize, in_type=i8, out_type=f32)
            + _generic("%f", f"%{dst}", quantize, in_type=f32, out_type=i8)
            + f"  memref.dealloc %f : {f32}\n")


#: VTA layer, float sigmoid on the host, VTA layer reading the host's result.
PROGRAM = f"""func.func @net(%x: memref<{M}x{K}xi8>, %w1: memref<{K}x{N}xi8>,
               %w2: memref<{N}x16xi8>, %y: memref<{M}x16xi8>) {{
  %h = memref.alloc() : memref<{M}x{N}xi8>
  %g = memref.alloc() : memref<{M}x{N}xi8>
{_dense("x", "w1", "h", K, N, 6)}{_sigmoid("h", "g", N)}{_dense("g", "w2", "y", N, 16, 7)}  return
}}
"""


#: The step is named after the line of its first op (the f32 buffer's allocation).
STEP = f"host@{PROGRAM.splitlines().index(f'  %f = memref.alloc() : memref<{M}x{N}xf32>') + 1}"


def sigmoid_reference(h: np.ndarray) -> np.ndarray:
    """The f32 semantics of the reference evaluator, written independently: each op rounds to
    f32; ``exp`` is evaluated in f64 and rounded once."""
    d = h.astype(np.float32) * np.float32(0.125)
    e = np.exp(-d.astype(np.float64)).astype(np.float32)
    r = np.float32(1.0) / (e + np.float32(1.0))
    q = np.rint(r * np.float32(256.0))
    return np.clip(q, -128, 127).astype(np.int8)


def network_reference(x: np.ndarray, w1: np.ndarray, w2: np.ndarray) -> np.ndarray:
    def dense(a: np.ndarray, w: np.ndarray, shift: int) -> np.ndarray:
        acc = a.astype(np.int64) @ w.astype(np.int64)
        return ((acc >> shift) + 128) % 256 - 128

    h = dense(x, w1, 6).astype(np.int8)
    return dense(sigmoid_reference(h), w2, 7).astype(np.int8)


def operands(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.integers(-128, 128, size=(M, K), dtype=np.int8),
            rng.integers(-128, 128, size=(K, N), dtype=np.int8),
            rng.integers(-128, 128, size=(N, 16), dtype=np.int8))


def test_float_code_between_layers_runs_on_the_host(cfg: VTAConfig) -> None:
    x, w1, w2 = operands(1)
    module = compile(PROGRAM, config=cfg)
    (y,) = module(x, w1, w2)
    assert np.array_equal(y, network_reference(x, w1, w2))
    # The sigmoid saturates somewhere and not everywhere: both ends of the code matter.
    g = sigmoid_reference(((x.astype(np.int64) @ w1 >> 6) + 128) % 256 - 128)
    assert (g == 127).any() and (g < 100).any()
    steps = [s for s in module.last_run.host_steps if s["step"] == "compute"]  # type: ignore[union-attr]
    assert [(s["operation"], s["elements"]) for s in steps] == [(STEP, 2 * M * N)]
    assert steps[0]["location"].endswith(f":{STEP.removeprefix('host@')}:3")
    assert steps[0]["seconds"] >= 0
    # One run before the step and one after it.
    assert module.last_run.runs == 2  # type: ignore[union-attr]


def test_the_step_is_outlined_before_vta_pack() -> None:
    module = run_pipeline(parse(PROGRAM), "vta-outline-host-steps")
    text = print_ir(module)
    assert text.count("vta.host ") == 1 and "math.exp" in text
    assert f'vta.host "{STEP}" ins(%h : memref<4x48xi8>) outs(%g : memref<4x48xi8>)' in text
    # The f32 buffer moved into the step, with its deallocation.
    host = text[text.index("vta.host "):]
    assert "memref.alloc() : memref<4x48xf32>" in host and "memref.dealloc" in host


def test_vtab_round_trips_and_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = lower(PROGRAM)
    data = binary.to_bytes()
    assert from_bytes(data).program.host_steps[0].name == STEP
    vtab = tmp_path / "net.vtab"
    vtab.write_bytes(data)
    text_path = tmp_path / "net.isa.mlir"
    assert vta_translate.main(["--emit=mlir", str(vtab), "-o", str(text_path)]) == 0
    assert f'vtaisa.host_step "{STEP}" at ' in text_path.read_text()
    again = tmp_path / "again.vtab"
    assert vta_translate.main(["--emit=bin", str(text_path), "-o", str(again)]) == 0
    assert again.read_bytes() == data
    capsys.readouterr()
    assert vta_run.main([str(vtab), "--random-inputs", "--seed", "3"]) == 0
    assert "y: 4x16xint8" in capsys.readouterr().out


def test_a_corrupt_step_function_is_one_error() -> None:
    data = bytearray(lower(PROGRAM).to_bytes())
    at = bytes(data).index(b"func.func")
    data[at:at + 9] = b"func.fxnc"
    from vta_mlir.vtab_format import CRC_AT, crc

    data[CRC_AT:CRC_AT + 4] = crc(data).to_bytes(4, "little")
    with pytest.raises(BinaryFormatError, match=f"host step '{STEP}': its function does not "
                                                "parse"):
        from_bytes(bytes(data))


HOST_IN_LOOP = """func.func @f(%x: memref<4x16xi8>, %y: memref<4x16xi8>) {
  affine.for %i = 0 to 2 {
    vta.host "copy" ins(%x : memref<4x16xi8>) outs(%y : memref<4x16xi8>) {
    ^bb0(%a: memref<4x16xi8>, %b: memref<4x16xi8>):
      memref.copy %a, %b : memref<4x16xi8> to memref<4x16xi8>
    }
  }
  return
}
"""

HOST_ON_VIEW = """func.func @f(%x: memref<4x16xi8>, %y: memref<4x16xi8>) {
  %acc = memref.alloc() : memref<4x16xi32>
  %rows = memref.subview %acc[0, 0] [2, 16] [1, 1]
      : memref<4x16xi32> to memref<2x16xi32, strided<[16, 1]>>
  vta.host "fill" outs(%rows : memref<2x16xi32, strided<[16, 1]>>) {
  ^bb0(%a: memref<2x16xi32, strided<[16, 1]>>):
    %c = arith.constant 1 : i32
    linalg.fill ins(%c : i32) outs(%a : memref<2x16xi32, strided<[16, 1]>>)
  }
  return
}
"""


@pytest.mark.parametrize(("text", "message"), [
    (HOST_ON_VIEW, "vta-pack accepts memref.subview only as the interior of a zero-padded"),
])
def test_host_steps_vta_cannot_place_are_diagnosed(text: str, message: str) -> None:
    with pytest.raises(DiagnosticError, match=message):
        lower(text)


def test_a_host_step_in_a_loop_is_diagnosed() -> None:
    with pytest.raises(DiagnosticError, match="'vta.host' inside a loop nest is not raised"):
        lower(HOST_IN_LOOP)


def test_vta_run_reports_the_host_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    import json

    source = tmp_path / "net.mlir"
    source.write_text(PROGRAM)
    stats = tmp_path / "stats.json"
    assert vta_run.main([str(source), "--random-inputs", "--check", "--stats", str(stats)]) == 0
    err = capsys.readouterr().err
    assert err == f"vta-run: warning: ran on the host, not on VTA: {STEP}\n"
    figures = json.loads(stats.read_text())
    (step,) = figures["host_steps"]
    assert (step["step"], step["operation"], step["elements"], step["macs"]) == \
        ("compute", STEP, 2 * M * N, 0)
    # Both matrix products ran on VTA, nothing else multiplies.
    assert figures["vta_mac_fraction"] == 1.0


#: A float result: the host writes an f32 output argument the device never touches.
FLOAT_OUTPUT = f"""func.func @f(%x: memref<{M}x{K}xi8>, %w: memref<{K}x16xi8>,
             %y: memref<{M}x16xf32>) {{
  %h = memref.alloc() : memref<{M}x16xi8>
{_dense("x", "w", "h", K, 16, 6)}""" + _generic("%h", "%y", """  ^bb0(%a: i8, %o: f32):
    %sc = arith.constant 0.125 : f32
    %v = arith.sitofp %a : i8 to f32
    %d = arith.mulf %v, %sc : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32""", in_type=f"memref<{M}x16xi8>",
                                out_type=f"memref<{M}x16xf32>") + """  return
}
"""


def test_a_float_output_is_written_by_the_host(cfg: VTAConfig) -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, size=(M, K), dtype=np.int8)
    w = rng.integers(-128, 128, size=(K, 16), dtype=np.int8)
    (y,) = compile(FLOAT_OUTPUT, config=cfg)(x, w)
    h = (((x.astype(np.int64) @ w.astype(np.int64)) >> 6) + 128) % 256 - 128
    d = h.astype(np.float32) * np.float32(0.125)
    want = np.exp(d.astype(np.float64)).astype(np.float32)
    assert y.dtype == np.float32 and np.array_equal(y, want)


FLOAT_GATHER = """
func.func @gather(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  %c2 = arith.constant 2 : index
  %0 = tensor.empty() : tensor<2x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<2x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.divui %j, %c2 : index
    %e = tensor.extract %x[%i, %k] : tensor<2x4xf32>
    linalg.yield %e : f32
  } -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}
"""


def test_a_float_gather_runs_on_the_host() -> None:
    """A body that loads at computed indices (a nearest upsampling written as a gather) is a
    host step the host computes, element by element as numpy indexes."""
    x = np.random.default_rng(6).standard_normal((2, 4)).astype(np.float32)
    (y,) = compile(FLOAT_GATHER)(x)
    np.testing.assert_array_equal(y, np.repeat(x, 2, axis=1))
