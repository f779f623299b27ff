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
of the node's loop to a later one, with the smallest distance at which it occurs (1, or 2
meaning "2 or more").  Programs too large to enumerate fall back to
whole buffers.

The token protocol that orders these dependences is chosen and checked in
:mod:`.protocol`.
"""

from __future__ import annotations

from collections.abc import Iterator

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import Module

from .footprint import Accesses, Footprint
from .host_eval import Env, HostEval
from .model import (
    COMPUTE,
    DOUBLE_BUFFER_ATTR,
    LOAD,
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
        self._pair_lists: dict[int, list[tuple[int, int, Module, Module]]] = {}
        self._found: dict[int, dict[tuple[int, int, Module, Module, bool], int]] = {}

    def run(self) -> None:
        self._analyze(self.root, {}, ())
        for node in self.root.walk():
            found = self._found.get(id(node), {})
            node.reqs = [Req(a, b, x, y, d) for (a, b, x, y, _), d in sorted(
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
        fps = [[self._footprint(item, env_k, key_k) for item in node.items]
               for _, env_k, key_k in iters]
        pairs = self._pairs(node)
        for row in fps:
            for a, b, x, y in pairs:
                if a < b and row[a].conflicts(x, row[b], y):
                    self._record(node, a, b, x, y, False, 0)
        if node.iv is not None and node.trip > 1:
            if id(node) not in self._imprecise:
                self._carried(node, fps, pairs)
            else:
                row = fps[0] if fps else []
                for a, b, x, y in pairs:
                    if row[a].conflicts(x, row[b], y):
                        self._record(node, a, b, x, y, True, 1)
        for _, env_k, key_k in iters:
            for item in node.items:
                if item.node is not None:
                    self._analyze(item.node, env_k, key_k)

    def _pairs(self, node: Node) -> list[tuple[int, int, Module, Module]]:
        """The items of ``node`` two by two, with a module of each that differ: the pairs
        whose footprints may conflict (the same for every iteration of the loops around)."""
        found = self._pair_lists.get(id(node))
        if found is None:
            mods = [item.modules for item in node.items]
            n = len(node.items)
            found = [(a, b, x, y) for a in range(n) for b in range(n) for x in mods[a]
                     for y in mods[b] if x != y]
            self._pair_lists[id(node)] = found
        return found

    def _carried(self, node: Node, fps: list[list[Footprint]],
                 pairs: list[tuple[int, int, Module, Module]]) -> None:
        n, trip = len(node.items), len(fps)
        # suffix[k][b]: item b over iterations k.. (what a later iteration may touch)
        suffix: list[list[Footprint]] = [[Footprint() for _ in range(n)] for _ in range(trip + 1)]
        for k in range(trip - 1, -1, -1):
            for b in range(n):
                suffix[k][b].merge(suffix[k + 1][b])
                suffix[k][b].merge(fps[k][b])
        for a, b, x, y in pairs:
            near = later = False
            for k in range(trip - 1):
                if not near and fps[k][a].conflicts(x, fps[k + 1][b], y):
                    near = True
                    break
                if not later and fps[k][a].conflicts(x, suffix[k + 1][b], y):
                    later = True
            if near:
                self._record(node, a, b, x, y, True, 1)
            elif later:
                self._record(node, a, b, x, y, True, 2)
