"""The program model of ``vta-coproc-sync`` and the dependences between its commands.

A function body is modelled as a tree of :class:`Node` s (the body, and every host loop that
holds commands) whose :class:`Item` s are commands (one module each) and nested loops.  Between
items, tokens are placed in *slots*: ``pre(i) = 2·i`` (just before item ``i``) and
``post(i) = 2·i + 1`` (just after it).

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

import math
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import IntegerType, MemRefType
from xdsl.ir import Block, Operation, SSAValue

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import (
    AluOp,
    DmaCopyOp,
    GemmOp,
    Module,
    UopLoopOp,
    enclosing_list_loops,
    kernel_uops,
    linear_position,
    module_of,
)
from vta_mlir.dialects.vta_positions import (
    Sram,
    list_loop_bounds,
    sram_element_shape,
    sram_offset,
    sram_space,
)
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.index_arith import IndexArithError, evaluate, evaluate_map, is_index_op

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

LOAD, COMPUTE, STORE = Module.LOAD, Module.COMPUTE, Module.STORE
MODULES: tuple[Module, ...] = (LOAD, COMPUTE, STORE)
_MI = {m: i for i, m in enumerate(MODULES)}

#: A dependency queue ``(from, to)``.
Queue = tuple[Module, Module]
#: The queues the hardware has, in a fixed order (also the order of tokens within a slot).
QUEUES: tuple[Queue, ...] = ((LOAD, COMPUTE), (COMPUTE, LOAD), (COMPUTE, STORE), (STORE, COMPUTE))

#: Unit attribute of ``vta-tile`` on the outermost tile loop of a double-buffered region.
DOUBLE_BUFFER_ATTR = "vta.double_buffer"
#: Command instances (summed over all loop iterations) up to which ranges are evaluated per
#: iteration; beyond it every range depending on a loop variable is the whole buffer.
PRECISE_LIMIT = 100_000
#: A range that covers a whole buffer.
_ALL = (0, 1 << 62)


def is_command(op: Operation) -> bool:
    """True for an op one module executes: a DMA copy, or a micro-kernel (an outermost
    ``vta.uop_loop``, or a ``vta.gemm`` / ``vta.alu`` outside any ``vta.uop_loop``)."""
    if isinstance(op, DmaCopyOp):
        return True
    if isinstance(op, UopLoopOp):
        return op.is_kernel
    if isinstance(op, GemmOp | AluOp):
        cur = op.parent_op()
        while cur is not None:
            if isinstance(cur, UopLoopOp):
                return False  # a micro-op of a kernel (maybe inside its list loops)
            cur = cur.parent_op()
        return True
    return False


def _has_commands(op: Operation) -> bool:
    return any(is_command(inner) for inner in op.walk())


# ---------------------------------------------------------------------------------------------
# The program model


@dataclass(frozen=True)
class Req:
    """Module ``y``'s part of item ``dst`` must wait for module ``x``'s part of item ``src``:
    in the same iteration (``dist == 0``, ``src < dst``) or ``dist`` iterations later (1, or 2
    for "2 or more")."""

    src: int
    dst: int
    x: Module
    y: Module
    dist: int


@dataclass(frozen=True)
class Window:
    """A node's carried token on one queue: popped at slot ``pop``, pushed at slot ``push``,
    primed and drained ``depth`` times."""

    pop: int
    push: int
    depth: int


@dataclass(eq=False)
class Item:
    """A command (``module`` set) or a nested loop (``node`` set) of a node, at ``index``."""

    index: int
    op: Operation
    module: Module | None = None
    node: Node | None = None

    @property
    def modules(self) -> frozenset[Module]:
        if self.node is not None:
            return self.node.modules
        assert self.module is not None
        return frozenset({self.module})


@dataclass(eq=False)
class Node:
    """The function body (``op`` is ``None``) or a host loop holding commands."""

    op: Operation | None
    block: Block
    iv: SSAValue | None
    values: tuple[int, ...]
    double_buffer: bool
    items: list[Item] = field(default_factory=list["Item"])
    reqs: list[Req] = field(default_factory=list[Req])
    #: (queue, target slot) → source slot of a forward token.
    forward: dict[tuple[Queue, int], int] = field(default_factory=dict)
    #: queue → {(source slot, target slot): distance} of the carried requirements it serves.
    carried: dict[Queue, dict[tuple[int, int], int]] = field(default_factory=dict)
    #: queues whose carried requirements share one one-deep token whatever the loop is.
    shallow: set[Queue] = field(default_factory=set)
    windows: dict[Queue, tuple[Window, ...]] = field(default_factory=dict)
    events: dict[int, list[tuple[str, Queue, int]]] = field(default_factory=dict)
    #: (item index, queue) → the slot the primes of that nested loop moved up to.
    prime_at: dict[tuple[int, Queue], int] = field(default_factory=dict)

    @property
    def trip(self) -> int:
        return len(self.values)

    @property
    def modules(self) -> frozenset[Module]:
        out: set[Module] = set()
        for item in self.items:
            out |= item.modules
        return frozenset(out)

    def queues_used(self) -> set[Queue]:
        """Queues with a token anywhere in this loop, its primes and drains included."""
        used = {q for q, _ in self.forward} | set(self.windows)
        for item in self.items:
            if item.node is not None:
                used |= item.node.queues_used()
        return used

    def walk(self) -> Iterator[Node]:
        yield self
        for item in self.items:
            if item.node is not None:
                yield from item.node.walk()


def _const_values(values: Sequence[SSAValue], ev: HostEval) -> list[int] | None:
    out = []
    for v in values:
        c = ev.index(v, {})
        if c is None:
            return None
        out.append(c)
    return out


def _loop_values(op: Operation, ev: HostEval) -> tuple[SSAValue, tuple[int, ...]]:
    """The induction variable and the values it takes, for a loop with constant bounds."""
    what = "vta-coproc-sync: a host loop around VTA commands needs constant bounds"
    if isinstance(op, affine.ForOp):
        lb_ops = _const_values(op.lowerBoundOperands, ev)
        ub_ops = _const_values(op.upperBoundOperands, ev)
        if lb_ops is None or ub_ops is None:
            report_error(op, f"{what}; this one depends on values known only at run time")
        try:
            lb = max(evaluate_map(op.lowerBoundMap.data, lb_ops))
            ub = min(evaluate_map(op.upperBoundMap.data, ub_ops))
        except IndexArithError as e:
            report_error(op, f"vta-coproc-sync: {e}")
        step = int(op.step.value.data)
    else:
        assert isinstance(op, scf.ForOp)
        bounds = _const_values((op.lb, op.ub, op.step), ev)
        if bounds is None:
            report_error(op, f"{what}; this one depends on values known only at run time")
        lb, ub, step = bounds
    if step <= 0:
        report_error(op, f"vta-coproc-sync: loop step {step} is not positive")
    block = op.regions[0].block
    if not block.args:
        report_error(op, "vta-coproc-sync: the loop has no induction variable")
    return block.args[0], tuple(range(lb, ub, step))


def build_model(body: Block, ev: HostEval) -> Node:
    """The node tree of a function body; unsupported control flow around commands is an error
    at the op."""

    def build(block: Block, op: Operation | None, iv: SSAValue | None,
              values: tuple[int, ...], db: bool) -> Node:
        node = Node(op, block, iv, values, db)
        for inner in block.ops:
            if is_command(inner):
                node.items.append(Item(len(node.items), inner, module=module_of(inner)))
            elif isinstance(inner, affine.ForOp | scf.ForOp):
                if not _has_commands(inner):
                    continue
                if inner.results:
                    report_error(inner, "vta-coproc-sync: a host loop around VTA commands "
                                        "carries no values (iter_args)")
                child_iv, child_values = _loop_values(inner, ev)
                child_db = db or DOUBLE_BUFFER_ATTR in inner.attributes
                child = build(inner.regions[0].block, inner, child_iv, child_values, child_db)
                node.items.append(Item(len(node.items), inner, node=child))
            elif inner.regions and _has_commands(inner):
                report_error(inner, f"vta-coproc-sync: VTA commands inside '{inner.name}' are not "
                                    "supported (host control flow around commands is affine.for "
                                    "or scf.for with constant bounds)")
        return node

    return build(body, None, None, (0,), False)


# ---------------------------------------------------------------------------------------------
# Host values


_BUFFER_ROOTS = (memref.AllocOp, memref.AllocaOp)

Env = dict[SSAValue, int]


class HostEval:
    """Values of host index computations for given loop-variable values (``None`` when not
    computable), and the buffers a memref operand can be."""

    def __init__(self) -> None:
        self._inputs: dict[SSAValue, tuple[SSAValue, ...]] = {}
        self._values: dict[tuple[SSAValue, tuple[int | None, ...]], int | None] = {}

    def _leaves(self, value: SSAValue) -> tuple[SSAValue, ...]:
        """The block arguments (loop variables, function arguments) ``value`` is computed
        from."""
        found = self._inputs.get(value)
        if found is None:
            op = value.owner
            if isinstance(op, Operation):
                leaves: dict[SSAValue, None] = {}
                for operand in op.operands:
                    leaves.update(dict.fromkeys(self._leaves(operand)))
                found = tuple(leaves)
            else:
                found = (value,)
            self._inputs[value] = found
        return found

    def index(self, value: SSAValue | None, env: Env) -> int | None:
        if value is None:
            return 0
        if value in env:
            return env[value]
        op = value.owner
        if not isinstance(op, Operation):
            return None  # a loop variable outside env, or a function argument
        key = (value, tuple(env.get(leaf) for leaf in self._leaves(value)))
        if key in self._values:
            return self._values[key]
        try:
            result = self._op(op, env)
        except IndexArithError:
            result = None
        self._values[key] = result
        return result

    def _op(self, op: Operation, env: Env) -> int | None:
        if not is_index_op(op):
            return None
        if isinstance(op, arith.SelectOp):
            # Only the operand selected is computed (the other may be undefined here).
            c = self.index(op.cond, env)
            if c is None:
                return None
            return self.index(op.lhs if c else op.rhs, env)
        values = [self.index(v, env) for v in op.operands]
        if any(v is None for v in values):
            return None
        return evaluate(op, values)  # type: ignore[arg-type]

    def roots(self, value: SSAValue, env: Env) -> list[tuple[Hashable, bool]]:
        """The buffers ``value`` may be, each with whether positions in ``value`` are positions
        in it (False for a view of unknown layout: the whole buffer counts).  A buffer is its
        allocation or argument, or the symbol of a ``memref.get_global`` (every use of the
        global is the same buffer)."""
        op = value.owner
        if isinstance(op, memref.GetGlobalOp):
            return [(("global", op.name_.root_reference.data), True)]
        if not isinstance(op, Operation) or isinstance(op, _BUFFER_ROOTS):
            return [(value, True)]
        if isinstance(op, arith.SelectOp):
            c = self.index(op.cond, env)
            if c is not None:
                return self.roots(op.lhs if c else op.rhs, env)
            return self.roots(op.lhs, env) + self.roots(op.rhs, env)
        # A view (cast, subview, ...): it aliases every memref it is made from.
        sources = [v for v in op.operands if isinstance(v.type, MemRefType)]
        if not sources:
            return [(value, True)]
        return [(root, False) for v in sources for root, _ in self.roots(v, env)]


# ---------------------------------------------------------------------------------------------
# Footprints


class Footprint:
    """Per module and buffer, the hull of the ranges read and of those written."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        #: module → buffer → [read hull or None, write hull or None]
        self.parts: dict[Module, dict[Hashable, list[tuple[int, int] | None]]] = {}

    def add(self, module: Module, buf: Hashable, lo: int, hi: int, write: bool) -> None:
        slot = self.parts.setdefault(module, {}).setdefault(buf, [None, None])
        k = 1 if write else 0
        old = slot[k]
        slot[k] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))

    def merge(self, other: Footprint) -> None:
        for module, bufs in other.parts.items():
            for buf, (r, w) in bufs.items():
                if r is not None:
                    self.add(module, buf, r[0], r[1], False)
                if w is not None:
                    self.add(module, buf, w[0], w[1], True)

    def conflicts(self, x: Module, other: Footprint, y: Module) -> bool:
        """Does module ``x`` here touch a range module ``y`` touches in ``other``, one of the
        two writing?"""
        mine, theirs = self.parts.get(x), other.parts.get(y)
        if not mine or not theirs:
            return False
        for buf, (r1, w1) in mine.items():
            rw2 = theirs.get(buf)
            if rw2 is None:
                continue
            r2, w2 = rw2
            if _overlap(w1, r2) or _overlap(w1, w2) or _overlap(r1, w2):
                return True
        return False


def _overlap(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]


def placed_sram(root: Hashable) -> tuple[Hashable, int]:
    """Where ``root`` lives for the dependence test: an SRAM buffer with a fixed element
    offset (``vta.sram_offset``: the regions of a function reuse the same SRAM elements) is its
    SRAM from that offset, so buffers of consecutive regions that overlap are ordered; any
    other buffer is itself from 0."""
    if isinstance(root, SSAValue) and isinstance(root.owner, memref.AllocOp):
        base = sram_offset(root.owner)
        space = sram_space(root.type)
        if base is not None and space is not None:
            return ("sram", space.value), base
    return root, 0


def dram_root(value: SSAValue) -> SSAValue:
    """The DRAM buffer a reshaped view (``memref.collapse_shape`` / ``expand_shape``: the same
    bytes) is of; positions in a view are positions in the buffer."""
    owner = value.owner
    while isinstance(owner, memref.CollapseShapeOp | memref.ExpandShapeOp):
        value = owner.src
        owner = value.owner
    return value


def _dram_element_bytes(op: DmaCopyOp, cfg: VTAConfig) -> int:
    """Bytes of one DRAM element of the copy (its lanes times the DRAM scalar width)."""
    space = sram_space(op.sram.type)
    assert space is not None
    lanes = 1 if space == Sram.UOP else math.prod(sram_element_shape(space, cfg))
    t = op.dram.type
    width = t.element_type.width.data if isinstance(t, MemRefType) and isinstance(
        t.element_type, IntegerType) else 8
    return max(1, lanes * width // 8)


@dataclass(frozen=True)
class _Touch:
    """One range a command touches: ``size`` elements from ``index + offset`` of ``buf``, in
    units of ``scale`` (bytes per element for DRAM); ``whole``: all of ``buf``."""

    buf: SSAValue
    index: SSAValue | None
    offset: int
    size: int
    write: bool
    scale: int = 1
    whole: bool = False


def _list_range(uop: GemmOp | AluOp, value: SSAValue | None, offset: int,
                kernel: UopLoopOp) -> tuple[int, int] | None:
    """The lowest and highest position an operand of ``uop`` takes over its micro-op list loops
    (docs/isa.md §4.4), relative to ``value`` evaluated with every list-loop variable 0: from the
    coefficients of its linear form, without enumerating; ``None`` when it is not linear."""
    lin = linear_position(uop, value, offset, kernel)
    if lin is None:
        return None
    lo = hi = offset
    for c, loop in zip(lin.inner, enclosing_list_loops(uop), strict=True):
        bounds = list_loop_bounds(loop)
        if bounds is None or bounds[1] <= bounds[0]:
            return None
        first, last = c * bounds[0], c * (bounds[1] - 1)
        lo += min(first, last)
        hi += max(first, last)
    return lo, hi


class _Accesses:
    """Footprints of commands for given loop-variable values."""

    def __init__(self, ev: HostEval, cfg: VTAConfig) -> None:
        self.ev = ev
        self.cfg = cfg
        self._touches: dict[int, tuple[Module, list[_Touch], Env]] = {}

    def _template(self, op: Operation) -> tuple[Module, list[_Touch], Env]:
        """What ``op`` touches, independent of loop-variable values (computed once), and the
        values of its micro-op list loops' variables (0) to evaluate its positions with."""
        found = self._touches.get(id(op))
        if found is not None:
            return found
        module = module_of(op)
        assert module is not None
        touches: list[_Touch] = []
        zeros: Env = {}
        if isinstance(op, DmaCopyOp):
            y, x, stride = op.field("y_size"), op.field("x_size"), op.field("x_stride")
            y0, y1, x0, x1 = op.pads
            store = op.is_store
            sram_size = y * x if store else (y0 + y + y1) * (x0 + x + x1)
            touches.append(_Touch(op.sram, *op.sram_position, sram_size, not store))
            touches.append(_Touch(dram_root(op.dram), *op.dram_position,
                                  (y - 1) * stride + x, store, _dram_element_bytes(op, self.cfg)))
        else:
            assert isinstance(op, GemmOp | AluOp | UopLoopOp)
            loops = op.loops() if isinstance(op, UopLoopOp) else []
            if isinstance(op, UopLoopOp):
                zeros = {lp.body.block.args[0]: 0 for lp in op.list_loops()}
            # (buffer, index value, write) -> hull of (first, last + 1) offsets; one range per
            # index value however many micro-ops use it (the footprint keeps hulls anyway).
            hulls: dict[tuple[SSAValue, SSAValue | None, bool], tuple[int, int]] = {}
            whole: set[tuple[SSAValue, bool]] = set()
            for uop in kernel_uops(op):
                reset = isinstance(uop, GemmOp) and uop.is_reset
                in_list = isinstance(op, UopLoopOp) and bool(enclosing_list_loops(uop))
                for kind, buf, value, offset, _space in uop.operand_positions():
                    span = sum((lp.field("extent") - 1) * lp.field(f"{kind}_factor")
                               for lp in loops)
                    if in_list:
                        assert isinstance(op, UopLoopOp)
                        rng = _list_range(uop, value, offset, op)
                    else:
                        rng = (offset, offset)
                    # accumulate / ALU: the destination is read too
                    writes = (True, False) if kind == "dst" and not reset else (kind == "dst",)
                    for write in writes:
                        if rng is None:
                            whole.add((buf, write))
                            continue
                        key = (buf, value, write)
                        lo, hi = rng[0], rng[1] + span + 1
                        old = hulls.get(key)
                        hulls[key] = (lo, hi) if old is None else (min(old[0], lo),
                                                                   max(old[1], hi))
            for (buf, value, write), (lo, hi) in hulls.items():
                touches.append(_Touch(buf, value, lo, hi - lo, write))
            for buf, write in whole:
                touches.append(_Touch(buf, None, 0, 0, write, whole=True))
        self._touches[id(op)] = found = (module, touches, zeros)
        return found

    def command(self, op: Operation, env: Env) -> Footprint:
        module, touches, zeros = self._template(op)
        if zeros:
            env = {**env, **zeros}
        fp = Footprint()
        ev = self.ev
        for t in touches:
            pos = None if t.whole else ev.index(t.index, env)
            for root, exact in ev.roots(t.buf, env):
                key, base = placed_sram(root)
                if pos is None or not exact:
                    lo, hi = _ALL
                else:
                    lo = (base + pos + t.offset) * t.scale
                    hi = (base + pos + t.offset + t.size) * t.scale
                fp.add(module, key, lo, hi, t.write)
        return fp


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
        self.acc = _Accesses(ev or HostEval(), cfg)
        # Each top-level loop nest (a layer of a network is a few of them) is analysed
        # precisely when it alone executes at most PRECISE_LIMIT commands.
        self._imprecise: set[int] = set()
        for item in root.items:
            if item.node is not None and trace_size(item.node) > PRECISE_LIMIT:
                self._imprecise.update(id(n) for n in item.node.walk())
        self._memo: dict[tuple[int, tuple[int, ...]], Footprint] = {}
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
        mods = [item.modules for item in node.items]
        n = len(node.items)
        pairs = [(a, b, x, y) for a in range(n) for b in range(n) for x in mods[a]
                 for y in mods[b] if x != y]
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
