"""Weights and biases given as ``memref.global`` constants, packed into the binary.

``vta-pack`` packs a constant read by ``memref.get_global`` the way the host packs the same
tensor passed as an argument, at compile time, into a constant DRAM segment of the binary: the
argument table lists only the real arguments.  Each program is compiled for every shipped
configuration, run on the simulator with random activations and compared bit for bit with a
numpy evaluation written here from the same constant arrays; ``vta-run --random-inputs
--check`` compares it with the reference evaluator.  What cannot be packed is one error line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from vta_mlir import lower, parse, print_ir, run_pipeline
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.runtime.device import Device
from vta_mlir.tools import vta_opt, vta_run

from .mlir_programs import bias_epilogue, clip, generic, matmul_nk, memref, requantize
from .numerics import run_and_compare

CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}
RNG = np.random.default_rng(2024)

# --------------------------------------------------------------------------------------------
# Programs


def dense_literal(values: np.ndarray, form: str) -> str:
    """``values`` as MLIR writes a dense literal: nested lists, or hex of the little-endian
    bytes."""
    if form == "hex":
        little = values.astype(values.dtype.newbyteorder("<"))
        return f'dense<"0x{little.tobytes().hex().upper()}">'
    return f"dense<{np.array2string(values, separator=', ', threshold=values.size + 1)}>".replace(
        "\n", ""
    )


def constant(name: str, values: np.ndarray, form: str, qualifiers: str = "constant ") -> str:
    element = {np.dtype(np.int8): "i8", np.dtype(np.int32): "i32"}[values.dtype]
    return (
        f'memref.global "private" {qualifiers}@{name} : {memref(values.shape, element)} = '
        f"{dense_literal(values, form)}\n"
    )


def get_global(name: str, shape: tuple[int, ...], element: str) -> str:
    return f"\n  %{name} = memref.get_global @{name} : {memref(shape, element)}"


def function(name: str, params: list[tuple[str, tuple[int, ...], str]], ops: str) -> str:
    sig = ", ".join(f"%{n}: {memref(s, e)}" for n, s, e in params)
    return f"func.func @{name}({sig}) {{{ops}\n  return\n}}\n"


def dense_nk(m: int, k: int, n: int, w: np.ndarray, bias: np.ndarray, form: str) -> str:
    """``y = clip((x · wᵀ + bias) >> 4, 0, 127)``, weights N×K, the bias in the epilogue."""
    acc_t = memref((m, n), "i32")
    ops = get_global("w", (n, k), "i8") + get_global("bias", (n,), "i32")
    ops += f"""
  %acc = memref.alloc() : {acc_t}
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t}){matmul_nk(m, k, n)}"""
    ops += bias_epilogue((m, n), [("addi", "%in1"), ("shrsi", 4), *clip(0, 127)])
    return (
        constant("w", w, form)
        + constant("bias", bias, form)
        + function("dense_nk", [("x", (m, k), "i8"), ("y", (m, n), "i8")], ops)
    )


def dense_kn(m: int, k: int, n: int, w: np.ndarray, bias: np.ndarray, form: str) -> str:
    """``y = clip((bias + x @ w) >> 5, -128, 127)``, weights K×N (``linalg.matmul``), the bias
    broadcast into the accumulator before the contraction."""
    acc_t = memref((m, n), "i32")
    ops = get_global("w", (k, n), "i8") + get_global("bias", (n,), "i32")
    ops += f"""
  %acc = memref.alloc() : {acc_t}
  linalg.broadcast ins(%bias : memref<{n}xi32>) outs(%acc : {acc_t}) dimensions = [0]
  linalg.matmul ins(%x, %w : memref<{m}x{k}xi8>, memref<{k}x{n}xi8>) outs(%acc : {acc_t})"""
    ops += generic(
        (m, n), [("acc", (m, n), "i32", (0, 1))], requantize([("shrsi", 5), *clip(-128, 127)])
    )
    return (
        constant("w", w, form)
        + constant("bias", bias, form)
        + function("dense_kn", [("x", (m, k), "i8"), ("y", (m, n), "i8")], ops)
    )


def conv(
    x_shape: tuple[int, ...],
    w: np.ndarray,
    bias: np.ndarray,
    residual: np.ndarray | None,
    form: str,
) -> str:
    """``y = max(min((conv2d(x, w) >> 8) + bias [+ r], 127), 0)``, valid 2-D convolution, the
    kernel, the per-channel bias and the i8 residual ``r`` constants."""
    n, _, h, wd = x_shape
    o, _, kh, kw = w.shape
    out = (n, o, h - kh + 1, wd - kw + 1)
    acc_t = memref(out, "i32")
    ops = get_global("w", w.shape, "i8") + get_global("bias", (o,), "i32")
    inputs = [("acc", out, "i32", (0, 1, 2, 3)), ("bias", (o,), "i32", (1,))]
    steps = [("shrsi", 8), ("addi", "%in1")]
    body = ""
    if residual is not None:
        ops += get_global("res", out, "i8")
        inputs.append(("res", out, "i8", (0, 1, 2, 3)))
        body = "    %re = arith.extsi %in2 : i8 to i32\n"
        steps.append(("addi", "%re"))
    ops += f"""
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : {acc_t}
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
  linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>,
                            strides = dense<1> : tensor<2xi64>}}
      ins(%x, %w : {memref(x_shape, "i8")}, {memref(w.shape, "i8")}) outs(%acc : {acc_t})"""
    ops += generic(out, inputs, body + requantize([*steps, ("minsi", 127), ("maxsi", 0)]))
    text = constant("w", w, form) + constant("bias", bias, form)
    if residual is not None:
        text += constant("res", residual, form)
    return text + function("conv", [("x", x_shape, "i8"), ("y", out, "i8")], ops)


# --------------------------------------------------------------------------------------------
# numpy


def conv_reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The valid 2-D convolution of NCHW ``x`` with OIHW ``w`` (int64)."""
    _, _, kh, kw = w.shape
    oh, ow = x.shape[2] - kh + 1, x.shape[3] - kw + 1
    acc = np.zeros((x.shape[0], w.shape[0], oh, ow), dtype=np.int64)
    for i in range(kh):
        for j in range(kw):
            window = x[:, :, i : i + oh, j : j + ow].astype(np.int64)
            acc += np.einsum("nchw,oc->nohw", window, w[:, :, i, j].astype(np.int64))
    return acc


def small(shape: tuple[int, ...], dtype: type = np.int8, limit: int = 16) -> np.ndarray:
    return RNG.integers(-limit, limit, size=shape, dtype=np.int64).astype(dtype)


Case = tuple[str, Callable[[np.ndarray], np.ndarray], tuple[int, ...]]


def dense_case(orientation: str, form: str, m: int, k: int, n: int) -> Case:
    w = small((n, k) if orientation == "nk" else (k, n))
    bias = small((n,), np.int32, 3000)
    if orientation == "nk":
        return (
            dense_nk(m, k, n, w, bias, form),
            lambda x: np.clip(
                (x.astype(np.int64) @ w.T.astype(np.int64) + bias) >> 4, 0, 127
            ).astype(np.int8),
            (m, k),
        )
    return (
        dense_kn(m, k, n, w, bias, form),
        lambda x: np.clip((bias + x.astype(np.int64) @ w.astype(np.int64)) >> 5, -128, 127).astype(
            np.int8
        ),
        (m, k),
    )


def conv_case(form: str, residual: bool) -> Case:
    x_shape = (1, 20, 6, 7)
    w = small((24, 20, 3, 3))
    bias = small((24,), np.int32, 100)
    r = small((1, 24, 4, 5), limit=40) if residual else None

    def reference(x: np.ndarray) -> np.ndarray:
        v = (conv_reference(x, w) >> 8) + bias[None, :, None, None]
        if r is not None:
            v = v + r
        return np.maximum(np.minimum(v, 127), 0).astype(np.int8)

    return conv(x_shape, w, bias, r, form), reference, x_shape


CASES: dict[str, Callable[[], Case]] = {
    "dense_nk_list": lambda: dense_case("nk", "list", 3, 40, 24),
    "dense_nk_hex": lambda: dense_case("nk", "hex", 5, 64, 48),
    "dense_kn_list": lambda: dense_case("kn", "list", 2, 24, 40),
    "dense_kn_hex": lambda: dense_case("kn", "hex", 4, 48, 70),
    "conv_hex": lambda: conv_case("hex", residual=False),
    "conv_residual_list": lambda: conv_case("list", residual=True),
}

# --------------------------------------------------------------------------------------------
# End to end


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_constant_operands_match_numpy(case: str, name: str) -> None:
    cfg = CONFIGS[name]
    text, reference, x_shape = CASES[case]()
    binary = lower(text, config=cfg)
    # The constants are in the binary: the argument table has the activation and the output.
    assert [(a.name, a.direction) for a in binary.args] == [("x", "in"), ("y", "out")]
    assert any(s.data is not None for s in binary.program.segments)
    mod = Device(cfg).load_module(binary)
    for _ in range(2):
        x = RNG.integers(-128, 128, size=x_shape, dtype=np.int8)
        run_and_compare(mod, {"x": x}, reference(x))


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("case", ["dense_nk_hex", "conv_residual_list"])
def test_vta_run_checks_constant_operands(
    case: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "program.mlir"
    path.write_text(CASES[case]()[0])
    status = vta_run.main([str(path), "--config", name, "--random-inputs", "--check"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "check: PASS" in out + err


def test_a_constant_used_twice_is_packed_once() -> None:
    """Two functions reading one constant as the same operand share its packed global, and the
    logical global, read by nothing any more, is gone."""
    text, _, _ = dense_case("nk", "hex", 2, 32, 16)
    second = text[text.index("func.func") :].replace("@dense_nk", "@dense_nk_2")
    packed = print_ir(run_pipeline(parse(text + second), "vta-pack"))
    assert packed.count("memref.global") == 2
    assert packed.count("memref.get_global @w_packed") == 2
    assert "@w :" not in packed


# --------------------------------------------------------------------------------------------
# Diagnostics

W = small((16, 32))
BIAS = small((16,), np.int32)


def bad(body_globals: str, ops: str) -> str:
    return body_globals + function("bad", [("x", (2, 32), "i8"), ("y", (2, 16), "i8")], ops)


def nk_ops(w_type: str = "memref<16x32xi8>") -> str:
    return f"""
  %w = memref.get_global @w : {w_type}
  %acc = memref.alloc() : memref<2x16xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<2x16xi32>){matmul_nk(2, 32, 16)}
{generic((2, 16), [("acc", (2, 16), "i32", (0, 1))], requantize([("shrsi", 4)]))}"""


BAD_PROGRAMS = {
    "mutable": (
        bad(constant("w", W, "hex", qualifiers=""), nk_ops()),
        "reads @w, which is not constant",
    ),
    "uninitialized": (
        bad('memref.global "private" constant @w : memref<16x32xi8> = uninitialized\n', nk_ops()),
        "reads @w, a constant without a value (uninitialized)",
    ),
    "unknown": (
        bad("", nk_ops()),
        "reads the global @w, which the module does not define",
    ),
    "type": (
        bad(constant("w", small((16, 30)), "hex"), nk_ops("memref<16x32xi8>")),
        "reads @w as memref<16x32xi8>, but the global is memref<16x30xi8>",
    ),
    "shape": (
        bad(
            constant("w", small((16, 30)), "list"),
            nk_ops().replace("memref<16x32xi8>", "memref<16x30xi8>"),
        ),
        "operand #1 has shape's dimension #1 to be 32, but found 30",
    ),
    "element": (
        bad(
            constant("w", W.astype(np.int32), "hex"),
            nk_ops("memref<16x32xi32>")
            .replace("memref<16x32xi8>", "memref<16x32xi32>")
            .replace("%b: i8", "%b: i32")
            .replace("%be = arith.extsi %b : i8 to i32\n", "")
            .replace("%be", "%b"),
        ),
        "is a contraction of i8 × i32 into i32: VTA computes i8 × i8 → i32",
    ),
    "output": (
        bad(
            constant("bias", BIAS, "hex"),
            """
  %bias = memref.get_global @bias : memref<16xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%bias : memref<16xi32>)""",
        ),
        "writes the constant @bias: constants are packed into the binary once and read only",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_PROGRAMS))
def test_what_cannot_be_packed_is_one_error_line(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, message = BAD_PROGRAMS[case]
    path = tmp_path / f"{case}.mlir"
    path.write_text(text)
    status = vta_opt.main([str(path), "-p", "vta-to-isa"])
    out, err = capsys.readouterr()
    errors = [line for line in (out + err).splitlines() if "error:" in line]
    assert status == 1
    assert len(errors) == 1, out + err
    assert "Traceback" not in out + err
    assert errors[0].startswith(f"{path}:")
    assert message in errors[0]
