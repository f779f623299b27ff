"""2-D convolutions end to end: ``.mlir`` (NCHW / OIHW, the padding written with the memref
idiom) → ``vta_mlir.compile`` → the simulator, compared bit for bit with numpy
(``benchmarks/resnet18_layers.reference``, itself checked against a direct loop in
``tests/test_resnet18_layers.py``), on every shipped configuration: odd channel counts,
strides 1 and 2, 1×1 / 3×3 / 7×7 kernels, the named op and the generic form, a residual add,
and every ResNet-18 layer (docs/performance.md §4.2) with the simulator's checks of tokens silent.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from vta_mlir import compile as vta_compile
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.runtime.device import LoadedModule
from vta_mlir.sim.hazards import program_hazards
from vta_mlir.tools import vta_run

from .compiled_programs import lowered

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from resnet18_layers import LAYERS, Layer, conv_mlir, random_inputs, reference  # noqa: E402

CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}

#: Small convolutions covering the forms (batch filled in per configuration).
SMALL = (
    Layer("3x3_pad1", 0, 8, 8, 32, 48, 3, 3, 1, 1, 1, 1),
    Layer("3x3_pad1_stride2", 0, 9, 9, 16, 32, 3, 3, 1, 1, 2, 2),
    Layer("1x1_stride2", 0, 8, 8, 32, 32, 1, 1, 0, 0, 2, 2),
    Layer("7x7_pad3_stride2_rgb", 0, 16, 16, 3, 16, 7, 7, 3, 3, 2, 2),
    Layer("odd_channels", 0, 6, 6, 20, 24, 3, 3, 1, 1, 1, 1),
    Layer("3x3_valid", 0, 7, 7, 16, 16, 3, 3, 0, 0, 1, 1),
    Layer("row_tiles", 0, 48, 48, 16, 32, 3, 3, 1, 1, 1, 1),
    # Three window rows of 1,002 columns overflow the input SRAM: column tiles, with the
    # left and right halos as padding at the image's edges only.
    Layer("column_tiles", 0, 4, 1000, 16, 16, 3, 3, 1, 1, 1, 1),
    # A single output position: the kernel has no loop level, only its micro-op list.
    Layer("single_output", 0, 7, 7, 16, 64, 7, 7, 0, 0, 1, 1),
)


def run_layer(layer: Layer, cfg: VTAConfig, seed: int, **kwargs: bool) -> LoadedModule:
    module = vta_compile(lowered(conv_mlir(layer, **kwargs), cfg), config=cfg)
    rng = np.random.default_rng(seed)
    arrays = random_inputs(layer, rng, residual=kwargs.get("residual", False))
    # Biases small enough that the outputs spread over [0, 127] instead of saturating.
    arrays[2] = rng.integers(-64, 64, size=arrays[2].shape, dtype=np.int32)
    (y,) = module(*arrays)
    expected = reference(layer, *arrays)
    np.testing.assert_array_equal(y, expected)
    # Tokens balance: no deadlock (an error) and no token left over (a warning).
    assert module.last_run.warnings == []
    assert len(np.unique(expected)) > 4  # the inputs keep results off the clip bounds
    return module


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("layer", SMALL, ids=lambda lay: lay.name)
def test_small_convolutions_match_numpy(layer: Layer, name: str) -> None:
    cfg = CONFIGS[name]
    run_layer(dataclasses.replace(layer, batch=cfg.batch), cfg, seed=len(layer.name))


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_generic_form_and_residual_add(name: str) -> None:
    cfg = CONFIGS[name]
    layer = Layer("res", cfg.batch, 8, 8, 32, 32, 3, 3, 1, 1, 1, 1)
    run_layer(layer, cfg, seed=3, generic=True)
    run_layer(layer, cfg, seed=4, residual=True)
    run_layer(dataclasses.replace(layer, hkernel=1, wkernel=1, hpad=0, wpad=0, hstride=2,
                                  wstride=2), cfg, seed=5, residual=True)


#: ResNet-18 layers whose bit-exact run is the long form: each repeats the shape kind of a
#: layer of the default run (3×3 stride 1, 3×3 stride 2, 1×1 stride 2 at another size).
LONG_FORM_LAYERS = frozenset({"C3", "C4", "C8", "C9"})


@pytest.mark.parametrize("layer", [
    pytest.param(layer, id=layer.name,
                 marks=[pytest.mark.slow] if layer.name in LONG_FORM_LAYERS else [])
    for layer in LAYERS])
def test_resnet18_layers_match_numpy(layer: Layer) -> None:
    """Each layer bit-exact, and its stream free of SRAM races (vta-run --check-hazards)."""
    cfg = CONFIGS["default"]
    module = run_layer(layer, cfg, seed=int(layer.name[1:]))
    assert program_hazards(module.module.program, cfg) == []


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_bias_before_the_shift_initialises_the_accumulator(name: str) -> None:
    """``(conv + bias) >> 8``: the bias is the accumulators' starting value (a broadcast load
    per output tile), not an ALU add."""
    cfg = CONFIGS[name]
    layer = Layer("bias_first", cfg.batch, 8, 8, 16, 32, 3, 3, 1, 1, 1, 1)
    text = conv_mlir(layer)
    old = ("    %sh = arith.shrsi %v, %c8 : i32\n"
           "    %biased = arith.addi %sh, %bv : i32\n")
    new = ("    %first = arith.addi %v, %bv : i32\n"
           "    %biased = arith.shrsi %first, %c8 : i32\n")
    assert old in text
    module = vta_compile(text.replace(old, new), config=cfg)
    rng = np.random.default_rng(9)
    x, w, bias = random_inputs(layer, rng)
    (y,) = module(x, w, bias)
    acc = _conv_i64(layer, x, w) + bias.astype(np.int64)[None, :, None, None]
    expected = np.clip(acc >> 8, 0, 127).astype(np.int8)
    np.testing.assert_array_equal(y, expected)


def _conv_i64(layer: Layer, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The convolution of ``layer`` in int64 (no epilogue)."""
    p, s = layer.hpad, layer.hstride
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (p, p), (layer.wpad, layer.wpad)))
    oh, ow = layer.out_height, layer.out_width
    out = np.zeros(layer.y_shape, dtype=np.int64)
    for dy in range(layer.hkernel):
        for dx in range(layer.wkernel):
            patch = xp[:, :, dy:dy + (oh - 1) * s + 1:s, dx:dx + (ow - 1) * layer.wstride + 1:
                       layer.wstride]
            out += np.einsum("nchw,fc->nfhw", patch, w[:, :, dy, dx].astype(np.int64))
    return out


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "conv"
_EXAMPLE_FUNCTIONS = [(path.name, name) for path in sorted(EXAMPLES.glob("*.mlir"))
                      for name in re.findall(r"func\.func @(\w+)", path.read_text())]


@pytest.mark.parametrize(("example", "function"), _EXAMPLE_FUNCTIONS)
def test_vta_run_checks_the_examples(example: str, function: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """``vta-run FILE.mlir --function F --random-inputs --check``: NCHW / OIHW arguments, the
    result compared with the numpy evaluation of the input program."""
    argv = [str(EXAMPLES / example), "--function", function, "--random-inputs", "--check",
            "--check-hazards"]
    assert vta_run.main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "check: PASS" in out and "hazards: 0 found" in out


@pytest.mark.parametrize(("layer", "residual"), [
    (LAYERS[0], False),                                               # C1: 3 channels, 7x7 s2
    (LAYERS[3], False),                                               # C4: 1x1 s2
    (Layer("odd_residual", 1, 10, 10, 20, 24, 3, 3, 1, 1, 2, 2), True),
], ids=["C1", "C4", "odd_residual"])
def test_vta_run_checks_layers(layer: Layer, residual: bool, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    """``vta-run layer.mlir --random-inputs --check`` on generated layers: NCHW / OIHW
    arguments, odd channel counts, a residual add."""
    path = tmp_path / f"{layer.name}.mlir"
    path.write_text(conv_mlir(layer, residual=residual))
    assert vta_run.main([str(path), "--random-inputs", "--check"]) == 0, \
        capsys.readouterr().err
    assert "check: PASS" in capsys.readouterr().out
