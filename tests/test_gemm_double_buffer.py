"""Double-buffered GEMMs whose output channels are not a multiple of the tile, end to end.

``vta-tile`` tiles them into a double-buffered loop over whole tiles around a loop over the
batch rows with a single accumulator tile, then a loop for the remainder tile.  The reset of a
row has to wait for the store of the row before (store -> compute, carried), in the nest and in
the remainder loop alike; ``vta-coproc-sync`` once moved the remainder loop's primes above the
nest, whose inner loop uses the same queue, and its protocol check rejected the result.  Each
shape here is compiled with double buffering on its configuration, its instruction stream is
checked for hazards and its output compared bit for bit with numpy (``tests/gemm_programs.py``).
"""

from __future__ import annotations

import pytest

from vta_mlir.config import SHIPPED_CONFIGS

from .gemm_programs import Gemm, check_on_simulator, double_buffered

#: The small shapes, on every shipped configuration.
SMALL = [
    pytest.param(Gemm(2, 64, 208), id="2x64x208-kn-zero"),
    pytest.param(Gemm(2, 60, 176, layout="nk", init="bias"), id="2x60x176-nk-bias"),
    pytest.param(Gemm(163, 211, 64), id="163x211x64-kn-zero"),
    pytest.param(Gemm(173, 17, 17), id="173x17x17-kn-zero"),
]

#: The large shapes, on the configuration they were found on (each a few seconds; the two
#: largest are the long form of the first).
LARGE = [
    pytest.param(Gemm(300, 1024, 726), "default", id="300x1024x726-default"),
    pytest.param(Gemm(512, 1024, 1000), "default", id="512x1024x1000-default",
                 marks=pytest.mark.slow),
    pytest.param(Gemm(1000, 1000, 1000), "default", id="1000x1000x1000-default",
                 marks=pytest.mark.slow),
    pytest.param(
        Gemm(163, 211, 64, layout="nk", init="bias"), "block32", id="163x211x64-nk-bias-block32"
    ),
]


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("gemm", SMALL)
def test_small_shapes(gemm: Gemm, config: str) -> None:
    check_on_simulator(gemm, config, seed=1)


@pytest.mark.parametrize(("gemm", "config"), LARGE)
def test_large_shapes(gemm: Gemm, config: str) -> None:
    check_on_simulator(gemm, config, seed=2)


@pytest.mark.parametrize(
    ("gemm", "config"),
    [
        (Gemm(2, 64, 208), "default"),
        (Gemm(2, 60, 176, layout="nk", init="bias"), "default"),
        (Gemm(163, 211, 64), "block32"),
        (Gemm(173, 17, 17), "default"),
    ],
)
def test_the_shapes_are_double_buffered(gemm: Gemm, config: str) -> None:
    """The failing shapes do go through a double-buffered loop (else the tests above would not
    test what they are meant to)."""
    assert double_buffered(gemm, config)
