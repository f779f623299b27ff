"""``vta-raise-loops`` end to end: the loop forms of every input-level workload and of the
convolution examples — xDSL's ``convert-linalg-to-loops`` (scf) and upstream MLIR's
``convert-linalg-to-affine-loops`` (affine, ``tests/loop_forms.py``) — compile to the same
binary as the linalg original on every shipped configuration and run bit-exact against the
workloads' numpy results; the hand-written nests of ``examples/affine/`` run bit-exact against
numpy written here; refused nests are one diagnostic at the loop."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import vta_mlir
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.tools import vta_run

from .compiled_programs import lowered
from .loop_forms import affine_form, scf_form
from .numerics import trunc8, wrap
from .workloads import CONFIGS, EXAMPLES, WORKLOADS, Workload

FORMS: dict[str, Callable[[str], ModuleOp]] = {"scf": scf_form, "affine": affine_form}
CONV_EXAMPLES = sorted((EXAMPLES / "conv").glob("*.mlir"))
T = TypeVar("T")


def _binary(source: str | ModuleOp, config: str, function: str | None = None) -> object:
    """The instruction stream, micro-op words, DRAM segments and arguments of the binary (its
    layer names, which hold source lines, aside)."""
    module = (lowered(source, config, function) if isinstance(source, str)
              else vta_mlir.lower(source, config=config, function=function))
    runs = [(run.insns, run.uop_words.tolist(), run.uop_base, run.layers.tolist())
            for run in module.program.runs]
    return runs, repr(module.program.segments), module.args


def _form_cases(programs: Sequence[T], name: Callable[[T], str]) -> list[object]:
    """(program, form, config): each program in one loop form on the default configuration,
    the forms taking turns; its other form and the other configurations are the long form (the
    raising does not depend on the configuration, the scf form is raised through the affine
    one, and the memref forms' tests compile for every configuration)."""
    forms = list(FORMS)
    return [pytest.param(program, form, config, id=f"{name(program)}-{form}-{config}",
                         marks=[] if config == "default" and form == forms[i % len(forms)]
                         else [pytest.mark.slow])
            for i, program in enumerate(programs) for form in forms for config in CONFIGS]


def _functions(path: Path) -> list[str]:
    return [line.split("@", 1)[1].split("(", 1)[0] for line in path.read_text().splitlines()
            if line.lstrip().startswith("func.func @")]


@pytest.mark.parametrize(("workload", "form", "config"),
                         _form_cases(WORKLOADS, lambda w: w.name))
def test_workload_loop_form_same_binary_and_bit_exact(workload: Workload, form: str,
                                                      config: str) -> None:
    text = workload.path.read_text()
    loops = FORMS[form](text)
    # Only linalg.broadcast, which xDSL does not lower to loops, may stay.
    assert not [op for op in loops.walk() if op.name.startswith("linalg.")
                and op.name not in ("linalg.broadcast", "linalg.yield")]
    assert _binary(loops, config) == _binary(text, config)
    inputs = workload.draw(seed=14)
    outputs = vta_mlir.compile(FORMS[form](text), config=config)(**inputs)
    expected = workload.expected(inputs)
    for got, want in zip(outputs if isinstance(outputs, tuple) else (outputs,),
                         expected.values(), strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("path", "form", "config"),
                         _form_cases(CONV_EXAMPLES, lambda p: p.stem))
def test_conv_example_loop_form_same_binary(path: Path, form: str, config: str) -> None:
    text = path.read_text()
    for function in _functions(path):
        assert _binary(FORMS[form](text), config, function) == _binary(text, config, function)


# ---- ResNet-18's layers (benchmarks/resnet18_layers.py) as loops -----------------------------

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from resnet18_layers import LAYERS, conv_mlir, random_inputs, reference  # noqa: E402

RESNET = [layer for layer in LAYERS if layer.name != "C1"]
#: Layers whose loop forms the default run compiles, one form each in turn (a 3×3 layer, a
#: strided one, a strided 1×1 one); the others are the long form.
RESNET_SHORT = ("C2", "C6", "C10")


@pytest.mark.parametrize(("layer", "form"), [
    pytest.param(layer, form, id=f"{layer.name}-{form}",
                 marks=[] if layer.name in RESNET_SHORT
                 and form == list(FORMS)[RESNET_SHORT.index(layer.name) % len(FORMS)]
                 else [pytest.mark.slow])
    for layer in RESNET for form in FORMS])
def test_resnet18_layer_loop_form_same_binary(layer: object, form: str) -> None:
    text = conv_mlir(layer)
    assert _binary(FORMS[form](text), "default") == _binary(text, "default")


@pytest.mark.parametrize("config", [
    pytest.param(config, marks=[] if config == "default" else [pytest.mark.slow])
    for config in CONFIGS])
def test_resnet18_residual_loop_form_same_binary_and_bit_exact(config: str) -> None:
    layer = next(layer for layer in RESNET if layer.name == "C11")
    text = conv_mlir(layer, residual=True)
    loops = affine_form(text)
    assert _binary(loops, config) == _binary(text, config)
    x, w, bias, res = random_inputs(layer, np.random.default_rng(11), residual=True)
    (y,) = _outputs(vta_mlir.compile(affine_form(text), config=config)(x, w, bias, res))
    np.testing.assert_array_equal(y, reference(layer, x, w, bias, res))


def _outputs(result: object) -> tuple[np.ndarray, ...]:
    return result if isinstance(result, tuple) else (result,)  # type: ignore[return-value]


# ---- hand-written nests (examples/affine/) ----------------------------------------------------


def _clip8(v: np.ndarray) -> np.ndarray:
    return trunc8(np.clip(v, 0, 127))


def _matmul_init_inside(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    acc = wrap(x.astype(np.int64) @ w.astype(np.int64).T, 32)
    return _clip8(acc >> 6)


def _conv_loop_order(x: np.ndarray, w: np.ndarray, bias: np.ndarray) -> np.ndarray:
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((1, 16, 8, 8), dtype=np.int64)
    for kh in range(3):
        for kw in range(3):
            window = xp[:, :, kh:kh + 8, kw:kw + 8]            # (n, c, oh, ow)
            out += np.einsum("nchw,fc->nfhw", window, w[:, :, kh, kw].astype(np.int64))
    acc = wrap(wrap(out, 32) + bias.astype(np.int64)[None, :, None, None], 32)
    return _clip8(acc >> 5)


def _fused_epilogue(x: np.ndarray, w: np.ndarray, bias: np.ndarray) -> np.ndarray:
    acc = wrap(wrap(x.astype(np.int64) @ w.astype(np.int64), 32) + bias, 32)
    return _clip8(acc >> 7)


def _int8(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.integers(-128, 128, size=shape, dtype=np.int8)


def _bias(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(-(1 << 14), 1 << 14, size=n, dtype=np.int32)


HAND_WRITTEN: dict[str, Callable[[np.random.Generator], tuple[list[np.ndarray], np.ndarray]]] = {
    "matmul_init_inside": lambda r: (a := [_int8(r, 4, 64), _int8(r, 32, 64)],
                                     _matmul_init_inside(*a)),
    "conv_loop_order": lambda r: (a := [_int8(r, 1, 16, 8, 8), _int8(r, 16, 16, 3, 3),
                                        _bias(r, 16)], _conv_loop_order(*a)),
    "fused_epilogue": lambda r: (a := [_int8(r, 8, 64), _int8(r, 64, 48), _bias(r, 48)],
                                 _fused_epilogue(*a)),
}


def test_every_affine_example_is_tested() -> None:
    assert sorted(p.stem for p in (EXAMPLES / "affine").glob("*.mlir")) == sorted(HAND_WRITTEN)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("name", HAND_WRITTEN)
def test_hand_written_nest_bit_exact(name: str, config: str) -> None:
    inputs, expected = HAND_WRITTEN[name](np.random.default_rng(14))
    (y,) = _outputs(vta_mlir.compile(EXAMPLES / "affine" / f"{name}.mlir", config=config)(*inputs))
    np.testing.assert_array_equal(y, expected)


# The reference evaluator runs a loop nest element by element: the convolution's check is the
# long form (the nest is checked against numpy above, and --check on loops by the other two).
@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow)
                                  if name == "conv_loop_order" else name
                                  for name in HAND_WRITTEN])
def test_hand_written_nest_vta_run_check(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = vta_run.main([str(EXAMPLES / "affine" / f"{name}.mlir"), "--random-inputs",
                           "--check"])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert "check: PASS" in out.out


# ---- refusals through the tools: one diagnostic, non-zero exit, no traceback -----------------

PREFIX_SUM = """
func.func @prefix_sum(%x: memref<16xi32>, %s: memref<17xi32>) {
  affine.for %i = 0 to 16 {
    %p = affine.load %s[%i] : memref<17xi32>
    %v = affine.load %x[%i] : memref<16xi32>
    %n = arith.addi %p, %v : i32
    affine.store %n, %s[%i + 1] : memref<17xi32>
  }
  return
}
"""


def test_refused_nest_is_one_diagnostic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "prefix_sum.mlir"
    path.write_text(PREFIX_SUM)
    assert vta_run.main([str(path), "--random-inputs"]) != 0
    err = capsys.readouterr().err
    assert "prefix_sum.mlir:3:3: error: 'affine.for' op loop-carried dependence" in err
    assert "Traceback" not in err
    with pytest.raises(DiagnosticError, match="loop-carried dependence"):
        vta_mlir.lower(PREFIX_SUM)
