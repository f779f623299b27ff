"""Paged simulator DRAM (docs/isa.md §3.1): allocation policy, fixed placement, bounds."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir.errors import SimulatorError
from vta_mlir.sim.dram import DRAM


def test_alloc_is_page_aligned_and_never_zero() -> None:
    d = DRAM()
    a = d.alloc(10)
    b = d.alloc(4096)
    c = d.alloc(4097)
    assert a == 4096  # page-table entry 0 has physical address 1 << 12
    assert b == a + 4096
    assert c == b + 4096
    assert d.allocations() == [(a, 4096), (b, 4096), (c, 8192)]
    assert all(p % 4096 == 0 for p, _ in d.allocations())


def test_freed_block_reused_by_smaller_or_equal_allocation() -> None:
    d = DRAM()
    a = d.alloc(3 * 4096)
    b = d.alloc(4096)
    d.free(a)
    assert d.alloc(4 * 4096) > b  # too big for the freed block: appended
    assert d.alloc(2 * 4096) == a  # fits: the whole 3-page block is handed out again
    d.free(b)
    with pytest.raises(SimulatorError, match="not the start of a live allocation"):
        d.free(b)


def test_smallest_fitting_free_block_is_chosen() -> None:
    d = DRAM()
    big = d.alloc(4 * 4096)
    small = d.alloc(2 * 4096)
    d.alloc(4096)
    d.free(big)
    d.free(small)
    assert d.alloc(4096) == small


def test_read_write_and_views() -> None:
    d = DRAM()
    p = d.alloc(3 * 4096)
    data = np.arange(5000, dtype=np.uint16)
    d.write(p + 100, data)
    assert np.array_equal(d.read(p + 100, 10000).view(np.uint16), data)
    d.write(p, b"\x01\x02")
    assert d.read(p, 2).tolist() == [1, 2]
    v = d.view(p, 4)
    v[:] = 7
    assert d.read(p, 4).tolist() == [7] * 4
    rows = d.view2d(p, 3, 4, 10)
    assert rows.shape == (3, 4)
    rows[...] = 9
    got = d.read(p, 24)
    assert got[:4].tolist() == [9] * 4 and got[10:14].tolist() == [9] * 4
    assert got[4:10].tolist() == [0] * 6  # bytes between the rows are untouched
    overlapping = d.view2d(p, 3, 8, 2)
    assert overlapping.shape == (3, 8)


def test_alloc_at_fixed_address_and_overlap() -> None:
    d = DRAM()
    p = d.alloc_at(0x4000000, 5000)
    assert p == 0x4000000
    d.write(p + 4999, b"\xff")
    assert d.is_allocated(p, 8192) and not d.is_allocated(p, 8193)
    with pytest.raises(SimulatorError, match="overlaps"):
        d.alloc_at(0x4001000, 10)
    with pytest.raises(SimulatorError, match="multiple of the page size"):
        d.alloc_at(0x4000010, 10)
    # a later ordinary allocation goes above the highest page in use
    assert d.alloc(1) == 0x4000000 + 8192


@pytest.mark.parametrize(
    ("phys", "nbytes", "message"),
    [
        (0, 1, "physical address 0"),
        (4096 * 50, 1, "outside any allocation"),
        (4096 + 4000, 200, "runs past the end"),
    ],
)
def test_out_of_bounds_access(phys: int, nbytes: int, message: str) -> None:
    d = DRAM()
    d.alloc(4096)
    with pytest.raises(SimulatorError, match=message):
        d.read(phys, nbytes)
    with pytest.raises(SimulatorError, match=message):
        d.write(phys, b"\x00" * nbytes)


def test_straddling_two_allocations_is_an_error() -> None:
    d = DRAM()
    a = d.alloc(4096)
    d.alloc(4096)
    with pytest.raises(SimulatorError, match="straddles two allocations") as info:
        d.read(a + 4000, 200)
    assert hex(a + 4000) in str(info.value)


def test_freed_memory_is_not_accessible() -> None:
    d = DRAM()
    a = d.alloc(4096)
    d.free(a)
    with pytest.raises(SimulatorError, match="freed"):
        d.read(a, 1)


def test_view2d_zero_rows_still_checks_the_address() -> None:
    d = DRAM()
    p = d.alloc(4096)
    assert d.view2d(p, 0, 16, 16).shape == (0, 16)
    with pytest.raises(SimulatorError):
        d.view2d(0, 0, 16, 16)
