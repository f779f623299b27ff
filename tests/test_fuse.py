"""Residual ``Add`` layers fused into the epilogue of the convolution or fully connected layer
writing an operand (``vta_mlir/quant/fuse.py``, ``docs/onnx.md`` §4.5): which Adds fuse, and
programs with fused Adds, through the ONNX route and torch-mlir's, run on every shipped
configuration bit for bit as the integer semantics of ``tests/onnx_semantics.py`` (written
independently of the compiler), the Add's layer gone from the run statistics.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from tests.onnx_semantics import expected_output, integer_model
from tests.test_onnx_import import quantized
from vta_mlir import compile
from vta_mlir.config import VTAConfig
from vta_mlir.frontend.onnx import import_program, import_text
from vta_mlir.quant.fuse import ResidualAdd, emission_units
from vta_mlir.quant.program import AddLayer

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "onnx"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
from models import MODELS, Built, bottleneck, init_tensor  # noqa: E402

TORCH_MLIR = Path(__file__).parent / "data" / "torch_mlir"


def small_bottleneck(rng: np.random.Generator) -> Built:
    """A ResNet-50 bottleneck (1×1, 3×3, 1×1, the Add of the block's input, a ReLU), small."""
    return bottleneck(rng, channels=32, size=4)


def shared_conv_output(rng: np.random.Generator) -> Built:
    """A convolution whose output two Adds read: neither fuses into it."""
    inits = [init_tensor(rng, "w", (16, 16, 3, 3), 0.1), init_tensor(rng, "b", (16,), 0.3)]
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Add", ["c", "x"], ["s"], name="add1"),
        helper.make_node("Add", ["s", "c"], ["y"], name="add2"),
    ]
    return nodes, inits, (1, 16, 4, 4), (1, 16, 4, 4)


def pool_after_conv(rng: np.random.Generator) -> Built:
    """The Add of a convolution and of a max-pool written after it: the pool's output is not
    in DRAM when the convolution runs, so the Add stays a layer."""
    inits = [init_tensor(rng, "w", (16, 16, 3, 3), 0.1), init_tensor(rng, "b", (16,), 0.3)]
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("MaxPool", ["x"], ["m"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         name="pool"),
        helper.make_node("Add", ["c", "m"], ["y"], name="add"),
    ]
    return nodes, inits, (1, 16, 4, 4), (1, 16, 4, 4)


def dense_residual(rng: np.random.Generator) -> Built:
    """A fully connected layer and the Add of its input, then a ReLU."""
    inits = [init_tensor(rng, "w", (24, 24), 0.2), init_tensor(rng, "b", (24,), 0.3)]
    nodes = [
        helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1, name="fc"),
        helper.make_node("Add", ["x", "h"], ["s"], name="add"),
        helper.make_node("Relu", ["s"], ["y"], name="relu"),
    ]
    return nodes, inits, (2, 24), (2, 24)


BUILDERS = {"residual": MODELS["residual"], "residual_asym": MODELS["residual"],
            "downsample": MODELS["downsample"],
            "mobilenet_block": MODELS["mobilenet_block"], "bottleneck": small_bottleneck,
            "shared_conv_output": shared_conv_output, "pool_after_conv": pool_after_conv,
            "dense_residual": dense_residual}

#: Each model: its quantization (symmetric activations, per-channel weights) and the layers
#: that take an Add (layer name -> Add name).
CASES: dict[str, tuple[bool, bool, dict[str, str]]] = {
    # The Add then a ReLU, fused into conv2; conv1's output is also read by conv2: not fused.
    "residual": (True, False, {"conv2": "add"}),
    # Asymmetric: conv2's padding meets a non-zero zero point, so its accumulator starts from a
    # bias per output element (docs/onnx.md §4.1).
    "residual_asym": (False, False, {"conv2": "add"}),
    # Both operands are convolutions: the later one, with asymmetric activations.
    "downsample": (False, False, {"shortcut": "add"}),
    # The other operand is the network's input.
    "mobilenet_block": (True, False, {"b1.project": "b1.add"}),
    "bottleneck": (False, True, {"conv3": "add"}),
    "shared_conv_output": (True, False, {}),
    "pool_after_conv": (True, False, {}),
    "dense_residual": (False, False, {"fc": "add"}),
}


def _model(tmp_path: Path, name: str) -> Path:
    symmetric, per_channel, _ = CASES[name]
    return quantized(tmp_path, BUILDERS[name], symmetric, per_channel=per_channel)


@pytest.mark.parametrize("name", sorted(CASES))
def test_which_adds_fuse(tmp_path: Path, name: str) -> None:
    program = import_program(_model(tmp_path, name))
    units = emission_units(program)
    fused = {u.layer.name: u.add.name for u in units if isinstance(u, ResidualAdd)}
    assert fused == CASES[name][2]
    left = [u.name for u in units if isinstance(u, AddLayer)]
    adds = [layer.name for layer in program.layers if isinstance(layer, AddLayer)]
    assert left == [a for a in adds if a not in fused.values()]
    for unit in units:
        if isinstance(unit, ResidualAdd):  # the layer writes the operand its flag names
            operand = unit.add.b if unit.layer_is_b else unit.add.a
            assert operand == unit.layer.dst and unit.residual != operand


def test_residual_may_be_the_network_input() -> None:
    """The residual of a fused Add may be the layer's own input (the network input here)."""
    program = import_program(TORCH_MLIR / "mobilenet_block.onnx")
    (unit,) = [u for u in emission_units(program) if isinstance(u, ResidualAdd)]
    assert unit.residual == program.input.name


@pytest.mark.parametrize("name", sorted(CASES))
def test_fused_runs_bit_exact(tmp_path: Path, name: str, cfg: VTAConfig) -> None:
    """The ONNX route: bit for bit as the integer semantics; the statistics name the fused
    layer after the convolution and list no fused Add."""
    path = _model(tmp_path, name)
    program = import_program(path)
    si, zi = program.input.scale, program.input.zero_point
    so, zo = program.output.scale, program.output.zero_point
    x = np.random.default_rng(1).standard_normal(program.input.shape).astype(np.float32)
    q = np.clip(np.rint(x / np.float32(si)) + zi, -128, 127).astype(np.int8)
    module = compile(import_text(path), config=cfg)
    (y,) = module(x)
    np.testing.assert_array_equal(y, (integer_model(path, q).astype(np.float32) - zo)
                                  * np.float32(so))
    fused_adds = set(CASES[name][2].values())
    names = [str(entry["name"]) for entry in module.last_run.layers]
    kept = [layer.name for layer in program.layers if layer.name not in fused_adds]
    assert set(names) <= set(kept) and not fused_adds & set(names)
    assert set(CASES[name][2]) <= set(names)


@pytest.mark.parametrize("config", ["block32", "batch2"])
@pytest.mark.parametrize("name", ["residual", "residual_asym", "residual_pc", "mobilenet_block"])
def test_torch_mlir_route(name: str, config: str) -> None:
    """torch-mlir's files of the same models (``vta-integerize`` lifts them into the same
    program): the Add fused, bit for bit as the integer semantics of the ONNX model. (The
    default configuration runs them in ``tests/test_integerize.py`` and
    ``tests/test_integerize_forms.py``.)"""
    onnx_path = TORCH_MLIR / f"{name}.onnx"
    model = onnx.load(str(onnx_path))
    shape = tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    module = compile((TORCH_MLIR / f"{name}.mlir").read_text(), config=config,
                     requant="fixed-point")
    (y,) = module(x)
    np.testing.assert_array_equal(y, expected_output(onnx_path, x))
    names = [str(entry["name"]) for entry in module.last_run.layers]
    assert names and all(n.startswith("conv") for n in names)
