"""ONNX ``Softmax`` and ``Sigmoid`` between their DequantizeLinear and QuantizeLinear: layers
the host computes in float32 (``docs/onnx.md`` §4.9), in the same program as the VTA layers.
Each model runs bit for bit as the numpy model of ``tests/onnx_semantics.py`` computes it and
agrees with onnxruntime within one output step, on every shipped configuration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.test_onnx_import import MODELS, check, quantized
from vta_mlir import compile
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.frontend.onnx import import_program, import_text
from vta_mlir.quant.host_layers import HostLayer

dense_softmax, conv_sigmoid = MODELS["dense_softmax"], MODELS["conv_sigmoid"]


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("builder", [dense_softmax, conv_sigmoid],
                         ids=["softmax", "sigmoid"])
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_host_layers_agree(tmp_path: Path, builder: object, symmetric: bool,
                           config: str) -> None:
    check(quantized(tmp_path, builder, symmetric), config, worst=1.0)  # type: ignore[arg-type]


def test_the_host_layer_is_a_host_step(tmp_path: Path) -> None:
    path = quantized(tmp_path, dense_softmax, True)
    program = import_program(path)
    (host,) = [layer for layer in program.layers if isinstance(layer, HostLayer)]
    assert (host.kind, host.axis) == ("softmax", 1)
    module = compile(import_text(path))
    module(np.zeros((2, 40), np.float32))
    steps = [s for s in module.last_run.host_steps if s["step"] == "compute"]  # type: ignore[union-attr]
    assert [s["operation"] for s in steps] == ["softmax"]
    assert module.last_run.vta_mac_fraction == 1.0  # type: ignore[union-attr]
