"""Simulated paged physical memory (DRAM) of the VTA functional simulator, ``docs/isa.md`` §3.1.

The reference (``tvm-vta: src/vmem/virtual_memory.cc``) hands out whole 4 KiB pages; the page-table
entry *i* has physical address ``(i + 1) << 12``, so physical address 0 is never valid.  A freed
block goes to a free list keyed by its page count and is handed out whole again to a later
allocation of at most that many pages (the smallest block that fits, oldest first).  New blocks
are appended after the highest page in use.

Every allocation is one contiguous ``numpy.uint8`` array, so a DMA of a large contiguous or 2-D
strided range is a single array view.  Any access that is not entirely inside one live
allocation raises :class:`~vta_mlir.errors.SimulatorError` naming the address; the reference would
read or corrupt unrelated host memory instead.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from vta_mlir.config import PAGE_BYTES
from vta_mlir.errors import SimulatorError

PAGE_BITS = PAGE_BYTES.bit_length() - 1


@dataclass(eq=False)  # identity comparison: blocks are removed from lists by identity
class Allocation:
    """One block of whole pages: its physical address, size in bytes and contents."""

    phys: int
    nbytes: int
    data: np.ndarray  # uint8[nbytes]
    live: bool = True

    @property
    def end(self) -> int:
        return self.phys + self.nbytes

    @property
    def num_pages(self) -> int:
        return self.nbytes >> PAGE_BITS


def _pages(nbytes: int) -> int:
    # An empty request still gets a page so that every allocation has a distinct address.
    return max(1, -(-nbytes // PAGE_BYTES))


class DRAM:
    """Paged DRAM with physical addresses; see the module docstring for the allocation policy."""

    def __init__(self) -> None:
        self._blocks: list[Allocation] = []  # live and freed blocks, sorted by phys
        self._starts: list[int] = []  # phys of each entry of _blocks, for bisect
        self._free: list[Allocation] = []  # freed blocks in the order they were freed
        self._top = PAGE_BYTES  # first address above every block ever handed out

    # ---- allocation ---------------------------------------------------------------------------
    def alloc(self, nbytes: int) -> int:
        """Allocate ``nbytes`` (rounded up to whole pages) and return the page-aligned address."""
        if nbytes < 0:
            raise SimulatorError(f"cannot allocate a negative size ({nbytes} bytes)")
        npages = _pages(nbytes)
        best: Allocation | None = None
        for blk in self._free:
            if blk.num_pages >= npages and (best is None or blk.num_pages < best.num_pages):
                best = blk
        if best is not None:
            self._free.remove(best)
            best.live = True
            return best.phys
        phys = self._top
        self._insert(Allocation(phys, npages << PAGE_BITS, np.zeros(npages << PAGE_BITS,
                                                                    dtype=np.uint8)))
        return phys

    def alloc_at(self, phys: int, nbytes: int) -> int:
        """Reserve the pages covering ``[phys, phys + nbytes)`` at that fixed address.

        ``phys`` must be page-aligned and non-zero.  Overlapping a live allocation is an error;
        freed blocks in the way are discarded from the free list.
        """
        if phys <= 0 or phys % PAGE_BYTES:
            raise SimulatorError(
                f"alloc_at: address {phys:#x} is not a non-zero multiple of the page size "
                f"{PAGE_BYTES}")
        if nbytes < 0:
            raise SimulatorError(f"alloc_at: negative size {nbytes}")
        size = _pages(nbytes) << PAGE_BITS
        end = phys + size
        i = bisect.bisect_left(self._starts, end)
        for blk in self._blocks[:i][::-1]:
            if blk.end <= phys:
                break
            if blk.live:
                raise SimulatorError(
                    f"alloc_at: [{phys:#x}, {end:#x}) overlaps the allocation at {blk.phys:#x} "
                    f"({blk.nbytes} bytes)")
            self._free.remove(blk)
            self._remove(blk)
        self._insert(Allocation(phys, size, np.zeros(size, dtype=np.uint8)))
        return phys

    def free(self, phys: int) -> None:
        """Free the allocation that starts at ``phys``; its pages are reused by later allocs."""
        blk = self._block_at(phys)
        if blk is None or blk.phys != phys or not blk.live:
            raise SimulatorError(f"free: {phys:#x} is not the start of a live allocation")
        blk.live = False
        self._free.append(blk)

    def allocations(self) -> list[tuple[int, int]]:
        """``(phys, nbytes)`` of every live allocation, by address."""
        return [(b.phys, b.nbytes) for b in self._blocks if b.live]

    def is_allocated(self, phys: int, nbytes: int = 1) -> bool:
        """True if ``[phys, phys + nbytes)`` lies inside one live allocation."""
        blk = self._block_at(phys)
        return blk is not None and blk.live and phys + max(nbytes, 0) <= blk.end

    # ---- access -------------------------------------------------------------------------------
    def write(self, phys: int, data: bytes | bytearray | memoryview | np.ndarray) -> None:
        """Copy ``data`` (any array, taken as its raw bytes) to ``phys``."""
        if isinstance(data, np.ndarray):
            raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
        else:
            raw = np.frombuffer(bytes(data), dtype=np.uint8)
        self.view(phys, raw.size)[:] = raw

    def read(self, phys: int, nbytes: int) -> np.ndarray:
        """A copy of ``nbytes`` bytes at ``phys`` as ``uint8``."""
        return self.view(phys, nbytes).copy()

    def view(self, phys: int, nbytes: int) -> np.ndarray:
        """A writable ``uint8`` view of ``[phys, phys + nbytes)`` (no copy)."""
        data, off = self._locate(phys, nbytes)
        return data[off:off + nbytes]

    def view2d(self, phys: int, rows: int, row_bytes: int, stride: int) -> np.ndarray:
        """A ``uint8[rows, row_bytes]`` view whose row ``r`` starts at ``phys + r * stride``.

        With ``stride < row_bytes`` the rows overlap; writing through such a view has no defined
        order, so writers must copy row by row in that case.  ``rows == 0`` still checks that
        ``phys`` itself is a valid address, as the reference translates it before the copy loop.
        """
        if rows <= 0 or row_bytes <= 0:
            self._locate(phys, 0)
            return np.zeros((max(rows, 0), max(row_bytes, 0)), dtype=np.uint8)
        span = (rows - 1) * stride + row_bytes
        data, off = self._locate(phys, span)
        if stride == row_bytes:
            return data[off:off + span].reshape(rows, row_bytes)
        if stride > row_bytes and off + rows * stride <= data.size:
            return data[off:off + rows * stride].reshape(rows, stride)[:, :row_bytes]
        return np.lib.stride_tricks.as_strided(data[off:], shape=(rows, row_bytes),
                                               strides=(stride, 1))

    # ---- internals ----------------------------------------------------------------------------
    def _insert(self, blk: Allocation) -> None:
        i = bisect.bisect_left(self._starts, blk.phys)
        self._blocks.insert(i, blk)
        self._starts.insert(i, blk.phys)
        self._top = max(self._top, blk.end)

    def _remove(self, blk: Allocation) -> None:
        i = self._blocks.index(blk)
        del self._blocks[i]
        del self._starts[i]

    def _block_at(self, phys: int) -> Allocation | None:
        i = bisect.bisect_right(self._starts, phys) - 1
        if i < 0:
            return None
        blk = self._blocks[i]
        return blk if phys < blk.end else None

    def _locate(self, phys: int, nbytes: int) -> tuple[np.ndarray, int]:
        if phys == 0:
            raise SimulatorError("DRAM access at physical address 0 (never a valid address)")
        if phys < 0:
            raise SimulatorError(f"DRAM access at negative address {phys}")
        blk = self._block_at(phys)
        if blk is None:
            raise SimulatorError(f"DRAM access at {phys:#x} outside any allocation")
        if not blk.live:
            raise SimulatorError(
                f"DRAM access at {phys:#x} inside the freed block at {blk.phys:#x}")
        end = phys + nbytes
        if end > blk.end:
            nxt = self._block_at(blk.end)
            what = "straddles two allocations" if nxt is not None else "runs past the end of " \
                "its allocation"
            raise SimulatorError(
                f"DRAM access [{phys:#x}, {end:#x}) {what} (allocation {blk.phys:#x}, "
                f"{blk.nbytes} bytes)")
        return blk.data, phys - blk.phys
