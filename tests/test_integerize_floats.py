"""``vta-integerize`` on float code (``passes/integerize/floats.py``, ``float_body.py``): the
float computations of a network written in linalg that no integer form reads run on the host
as float layers holding the network's own ops, so the compiled program computes bit for bit
what the reference evaluator computes on the input; the products whose codes only float code
reads are requantized by the host (``docs/onnx.md`` §4.19), exactly as the program scales and
quantizes them.

The program is the first function of ``tests/filecheck/passes/vta-integerize-floats.mlir``,
which reads all the ways in: a chain on reals that ``hard.py`` starts (a product by a
constant) and float code reads (a row maximum and an exponential); codes a float layer writes
and reads again before an integer layer reads them; a float value of a closed float layer that
a later one reads (computed again there).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vta_mlir import compile
from vta_mlir.api import parse, run_pipeline
from vta_mlir.config import VTAConfig
from vta_mlir.errors import VTAError
from vta_mlir.reference import evaluate

FILE = Path(__file__).parent / "filecheck" / "passes" / "vta-integerize-floats.mlir"


def _functions() -> list[str]:
    """The functions of the FileCheck file (its ``// -----`` parts)."""
    return FILE.read_text().split("// -----")


def test_float_code_on_the_host(cfg: VTAConfig) -> None:
    """Bit for bit the reference evaluator on the input program; both products on VTA, their
    requantization and every float op on the host."""
    text = _functions()[0]
    module = compile(text, config=cfg, requant="fixed-point")
    for seed in range(2):
        x = np.random.default_rng(seed).standard_normal((2, 8)).astype(np.float32) * 2
        (y,) = module(x)
        (want,) = evaluate(text, [x])
        np.testing.assert_array_equal(y, want)
    stats = module.last_run
    assert stats.vta_mac_fraction == 1.0
    assert [step["operation"] for step in stats.host_steps
            if step["step"] == "compute"] == ["float0", "float1"]


def test_float_layers() -> None:
    """Two float layers around the second product: the first closes when that product reads
    the codes it writes; the second computes ``u`` again (a host step hands over int8
    buffers); both products' results leave VTA as int32 for the host to requantize."""
    module = parse(_functions()[0])
    run_pipeline(module, "vta-integerize{requant=fixed-point}")
    printed = str(module)
    assert printed.count("linalg.matmul") == 2 and "arith.shrsi" not in printed
    assert "max_error_steps = 0.0" in printed
    # The chain's product by 0.5, the row maximum from −∞, the exponential: in each layer.
    assert printed.count("arith.constant 0xff800000 : f32") == 2
    assert printed.count("math.exp") == 2
    # The first product's int32 result, requantized by each layer reading it.
    assert printed.count("arith.constant 5.000000e-04 : f32") == 2


def test_unsupported_float_code() -> None:
    """An op in float code the host does not compute (the loop's position) is one error at
    its generic."""
    with pytest.raises(VTAError, match=r":\d+:3: error: 'linalg.generic' op vta-integerize: a "
                                       "float generic computes 'linalg.index'"):
        compile(_functions()[1], requant="fixed-point")
