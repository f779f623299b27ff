"""The dependences between the commands of ``vta-coproc-sync``'s program model.

The program model (:class:`Node`, :class:`Item`, the queues) is :mod:`.model`'s, host values
are :mod:`.host_eval`'s and the ranges each command touches are :mod:`.footprint`'s; this
module finds the requirements between items.

**Dependences** (:class:`DependenceAnalysis`).  Every command reads and writes element ranges of
SRAM buffers and byte ranges of DRAM buffers (a micro-kernel: the hull of its micro-ops over its
loop levels and micro-op list loops, from the positions' coefficients, docs/isa.md §4.4); host
index arithmetic (``affine.apply``, ``arith``, ``arith.select`` of buffers; its semantics are
:mod:`vta_mlir.ir.index_arith`'s) is evaluated for every iteration of the constant-bound host
loops, so a buffer that alternates with the loop parity (double buffering) is seen as such.
Two items of different modules that touch a common range, one of them writing, give a
:class:`Req`: *forward* (``a`` before ``b`` in one iteration) or *carried* from one iteration
of the node's loop to a later one, with the smallest distance at which it occurs (1 up to
:data:`MAX_DISTANCE`, which means "that many or more": a buffer with three or four copies
rotating with the loop is reused that many iterations later).  Programs too large to
enumerate fall back to whole buffers.  The footprints of one iteration are indexed by buffer
and module (:class:`_BufferIndex`), so only items that touch a common buffer from different
modules are compared: a network's body holds hundreds of items, most of which share no
buffer.

The token protocol that orders these dependences is chosen and checked in
:mod:`.protocol`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import Module

from .footprint import Accesses, Footprint
from .host_eval import Env, HostEval
from .model import (
    COMPUTE,
    DOUBLE_BUFFER_ATTR,
    LOAD,
    MAX_DISTANCE,
    MODULES,
    QUEUES,
    STORE,
    Item,
    Node,
    Queue,
    Req,
    Window,
    build_model,
    is_command,
)

__all__ = [
    "COMPUTE",
    "DOUBLE_BUFFER_ATTR",
    "LOAD",
    "MODULES",
    "QUEUES",
    "STORE",
    "DependenceAnalysis",
    "HostEval",
    "Item",
    "Node",
    "Queue",
    "Req",
    "Window",
    "build_model",
    "is_command",
]

_MI = {m: i for i, m in enumerate(MODULES)}

#: Command instances (summed over all loop iterations) up to which ranges are evaluated per
#: iteration; beyond it every range depending on a loop variable is the whole buffer.
PRECISE_LIMIT = 100_000


def trace_size(node: Node) -> int:
    """Command instances executed by the node (all iterations)."""
    total = 0
    for item in node.items:
        total += 1 if item.node is None else trace_size(item.node)
    return node.trip * total


class DependenceAnalysis:
    """Fills ``reqs`` of every node of a tree (see the module docstring)."""

    def __init__(self, root: Node, cfg: VTAConfig, ev: HostEval | None = None) -> None:
        self.root = root
        self.acc = Accesses(ev or HostEval(), cfg)
        # Each top-level loop nest (a layer of a network is a few of them) is analysed
        # precisely when it alone executes at most PRECISE_LIMIT commands.
        self._imprecise: set[int] = set()
        for item in root.items:
            if item.node is not None and trace_size(item.node) > PRECISE_LIMIT:
                self._imprecise.update(id(n) for n in item.node.walk())
        self._memo: dict[tuple[int, tuple[int, ...]], Footprint] = {}
        self._found: dict[int, dict[tuple[int, int, Module, Module, bool], int]] = {}
        #: node → (a, b, x, y) of a forward requirement into a loop → its first iteration.
        self._first: dict[int, dict[tuple[int, int, Module, Module], int]] = {}
        #: node → (a, b, x, y) of a forward requirement out of a loop → how many of its last
        #: iterations touch nothing of the target.
        self._spared: dict[int, dict[tuple[int, int, Module, Module], int]] = {}
        #: (loop node, key) → its per-iteration footprints (:meth:`_per_iteration`).
        self._iteration_memo: dict[tuple[int, tuple[int, ...]], list[Footprint]] = {}

    def run(self) -> None:
        self._analyze(self.root, {}, ())
        for node in self.root.walk():
            found = self._found.get(id(node), {})
            first = self._first.get(id(node), {})
            spared = self._spared.get(id(node), {})
            node.reqs = [Req(a, b, x, y, d, 0 if carried else first.get((a, b, x, y), 0),
                             0 if carried else spared.get((a, b, x, y), 0))
                         for (a, b, x, y, carried), d in sorted(
                found.items(), key=lambda kv: (kv[0][1], kv[0][0], _MI[kv[0][2]],
                                              _MI[kv[0][3]], kv[0][4]))]

    def _footprint(self, item: Item, env: Env, key: tuple[int, ...]) -> Footprint:
        memo_key = (id(item), key)
        fp = self._memo.get(memo_key)
        if fp is not None:
            return fp
        if item.node is None:
            fp = self.acc.command(item.op, env)
        else:
            fp = Footprint()
            for _, env_k, key_k in self._iterations(item.node, env, key):
                for inner in item.node.items:
                    fp.merge(self._footprint(inner, env_k, key_k))
        self._memo[memo_key] = fp
        return fp

    def _iterations(self, node: Node, env: Env,
                    key: tuple[int, ...]) -> Iterator[tuple[int, Env, tuple[int, ...]]]:
        if node.iv is None:
            yield 0, env, key
            return
        if id(node) in self._imprecise:
            # One representative iteration with the loop variable unknown.
            if node.trip:
                yield 0, env, key + (-1,)
            return
        for k, v in enumerate(node.values):
            yield k, {**env, node.iv: v}, key + (k,)

    def _record(self, node: Node, a: int, b: int, x: Module, y: Module, carried: bool,
                dist: int) -> None:
        found = self._found.setdefault(id(node), {})
        k = (a, b, x, y, carried)
        found[k] = min(found.get(k, dist), dist)

    def _analyze(self, node: Node, env: Env, key: tuple[int, ...]) -> None:
        iters = list(self._iterations(node, env, key))
        rows = [_BufferIndex([self._footprint(item, env_k, key_k) for item in node.items])
                for _, env_k, key_k in iters]
        found: set[_Pair] = set()
        for row, (_, env_k, key_k) in zip(rows, iters, strict=True):
            in_row: set[_Pair] = set()
            row.conflicts(row, in_row, forward=True)
            for pair in in_row:
                self._iteration_bounds(node, row, pair, env_k, key_k)
            found |= in_row
        self._iteration_memo.clear()
        for a, b, x, y in found:
            self._record(node, a, b, x, y, False, 0)
        if node.iv is not None and node.trip > 1:
            if id(node) not in self._imprecise:
                self._carried(node, rows)
            else:
                found = set()
                if rows:
                    rows[0].conflicts(rows[0], found)
                for a, b, x, y in found:
                    self._record(node, a, b, x, y, True, 1)
        del rows
        for _, env_k, key_k in iters:
            for item in node.items:
                if item.node is not None:
                    self._analyze(item.node, env_k, key_k)
                # Nothing asks for the footprints of this iteration's items again: the loops
                # around have their rows, and the loops inside were just analysed.
                self._memo.pop((id(item), key_k), None)

    def _iteration_bounds(self, node: Node, row: _BufferIndex, pair: _Pair, env: Env,
                          key: tuple[int, ...]) -> None:
        """For a forward requirement into a loop, keep the first iteration of that loop that
        touches what the source does; out of a loop, how many of its last iterations touch
        nothing of the target (each the least over the iterations of ``node``)."""
        a, b, x, y = pair
        for bounds, loop, other, from_end in ((self._first, b, a, False),
                                              (self._spared, a, b, True)):
            found = bounds.setdefault(id(node), {})
            inner = node.items[loop].node
            if inner is None or inner.iv is None or id(inner) in self._imprecise:
                found[pair] = 0
                continue
            if found.get(pair, 1) == 0:
                continue
            fixed = row.footprints[other]
            iterations = self._per_iteration(inner, env, key)
            count = 0
            # ``Footprint.conflicts`` is symmetric: the loop's side stands where its module is.
            for k, fp in enumerate(reversed(iterations) if from_end else iterations):
                if fp.conflicts(x, fixed, y) if from_end else fixed.conflicts(x, fp, y):
                    count = k
                    break
            found[pair] = min(found.get(pair, count), count)

    def _per_iteration(self, inner: Node, env: Env, key: tuple[int, ...]) -> list[Footprint]:
        """The footprint of each iteration of the loop ``inner`` (in ``env``), kept while the
        node around it is analysed: several requirements into or out of it read them."""
        cache_key = (id(inner), key)
        found = self._iteration_memo.get(cache_key)
        if found is None:
            found = []
            for _, env_k, key_k in self._iterations(inner, env, key):
                fp = Footprint()
                for item in inner.items:
                    fp.merge(self._footprint(item, env_k, key_k))
                found.append(fp)
            self._iteration_memo[cache_key] = found
        return found

    def _carried(self, node: Node, rows: list[_BufferIndex]) -> None:
        """The requirements of items of one iteration on items of a later one, with the least
        distance at which they occur (up to :data:`MAX_DISTANCE`, which stands for that many
        or more)."""
        n, trip = len(node.items), len(rows)
        # suffix[k][b]: item b over iterations k.. (what a later iteration may touch)
        suffix: list[list[Footprint]] = [[Footprint() for _ in range(n)] for _ in range(trip + 1)]
        for k in range(trip - 1, -1, -1):
            for b in range(n):
                suffix[k][b].merge(suffix[k + 1][b])
                suffix[k][b].merge(rows[k].footprints[b])
        # at[d - 1]: the pairs that conflict d iterations apart (d < MAX_DISTANCE).
        at: list[set[_Pair]] = [set() for _ in range(MAX_DISTANCE - 1)]
        later: set[_Pair] = set()
        for k in range(trip - 1):
            for d, found in enumerate(at, 1):
                if k + d < trip:
                    rows[k].conflicts(rows[k + d], found)
            rows[k].conflicts(_BufferIndex(suffix[k + 1]), later)
        seen: set[_Pair] = set()
        for d, found in enumerate([*at, later], 1):
            for a, b, x, y in found - seen:
                self._record(node, a, b, x, y, True, d)
            seen |= found


#: A pair of items that conflict: ``(a, b, x, y)``, module ``x`` of item ``a`` and module
#: ``y`` of item ``b``.
_Pair = tuple[int, int, Module, Module]
#: The ranges one module of one item reads and writes in a buffer: (item, read, write).
_Entry = tuple[int, "tuple[int, int] | None", "tuple[int, int] | None"]


class _BufferIndex:
    """The footprints of a node's items in one iteration, indexed by buffer and module: only
    items that touch a common buffer from different modules are compared (a network's body
    has hundreds of items, most of which share no buffer with each other)."""

    __slots__ = ("by_buffer", "footprints")

    def __init__(self, footprints: list[Footprint]) -> None:
        self.footprints = footprints
        #: buffer → module → the entries of the items that touch it, by item index.
        self.by_buffer: dict[Hashable, dict[Module, list[_Entry]]] = {}
        for index, fp in enumerate(footprints):
            for module, bufs in fp.parts.items():
                for buf, (r, w) in bufs.items():
                    self.by_buffer.setdefault(buf, {}).setdefault(module, []).append(
                        (index, r, w))

    def conflicts(self, later: _BufferIndex, found: set[_Pair], forward: bool = False) -> None:
        """Add to ``found`` every ``(a, b, x, y)``: module ``x`` of item ``a`` here touches a
        range module ``y`` (another) of item ``b`` touches in ``later``, one of them writing
        (``forward``: only ``a < b``)."""
        theirs_by_buffer = later.by_buffer
        for buf, mine in self.by_buffer.items():
            theirs = theirs_by_buffer.get(buf)
            if theirs is None:
                continue
            for x, entries in mine.items():
                for y, others in theirs.items():
                    if x == y:
                        continue
                    for a, r1, w1 in entries:
                        for b, r2, w2 in others:
                            if forward and b <= a:
                                continue
                            if (_overlap(w1, r2) or _overlap(w1, w2) or _overlap(r1, w2)) \
                                    and (a, b, x, y) not in found:
                                found.add((a, b, x, y))


def _overlap(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]
