"""Property: any GEMM with an element-wise epilogue, compiled with double buffering on any
shipped configuration, computes what numpy computes, with a hazard-free instruction stream.

Random M, K, N from 1 to 1,024 (mostly not multiples of the block; most cases small, at most
one dimension large, so that a case compiles and simulates in well under a second), weights
K×N or N×K, an accumulator filled with 0 or with an int32 bias broadcast over the rows, and an
epilogue of up to four of ``shrsi`` by a constant, ``maxsi`` / ``minsi`` clips, ``addi`` and
``muli`` by a constant and ReLU, before the truncation to int8.  The MLIR text and the numpy
reference are written by ``tests/gemm_programs.py``.  The default run draws 50 cases, the slow
run (``python -m pytest -m slow``) 400.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vta_mlir.config import SHIPPED_CONFIGS

from .gemm_programs import EPILOGUE_OPS, Gemm, check_on_simulator

#: The 16-bit ALU immediate.
IMM = st.integers(-(1 << 15), (1 << 15) - 1)

#: The constant of each epilogue op: shift amounts of an int32, clip bounds mostly in the
#: range of int8 results, any immediate for the additions and multiplications.
CONSTANTS = {
    "shrsi": st.integers(0, 31),
    "maxsi": st.one_of(st.integers(-300, 300), IMM),
    "minsi": st.one_of(st.integers(-300, 300), IMM),
    "addi": IMM,
    "muli": st.one_of(st.integers(-8, 8), IMM),
    "relu": st.just(0),
}

#: Up to this many multiply-accumulates a case stays fast enough to simulate (about 0.5 s).
MAX_MACS = 1 << 24


@st.composite
def gemms(draw: st.DrawFn) -> Gemm:
    large = draw(st.sampled_from([None, None, "m", "k", "n"]))
    dims = {
        name: draw(st.integers(1, 1024) if name == large else st.integers(1, 96))
        for name in ("m", "k", "n")
    }
    if large is not None:
        rest = max(1, dims["m"] * dims["k"] * dims["n"] // dims[large])
        dims[large] = min(dims[large], max(1, MAX_MACS // rest))
    steps = draw(st.lists(st.sampled_from(EPILOGUE_OPS), max_size=4))
    epilogue = tuple((op, draw(CONSTANTS[op])) for op in steps)
    return Gemm(
        dims["m"],
        dims["k"],
        dims["n"],
        layout=draw(st.sampled_from(["kn", "nk"])),
        init=draw(st.sampled_from(["zero", "bias"])),
        epilogue=epilogue,
    )


#: Any GEMM on any shipped configuration with any input seed.
CASES = given(gemm=gemms(), config=st.sampled_from(SHIPPED_CONFIGS), seed=st.integers(0, 1 << 16))


@settings(max_examples=50, deadline=None)
@CASES
def test_gemm_matches_numpy(gemm: Gemm, config: str, seed: int) -> None:
    check_on_simulator(gemm, config, seed)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@CASES
def test_gemm_matches_numpy_long_run(gemm: Gemm, config: str, seed: int) -> None:
    """The property on eight times as many cases (``python -m pytest -m slow``)."""
    check_on_simulator(gemm, config, seed)
