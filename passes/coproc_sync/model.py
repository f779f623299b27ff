"""The program model of ``vta-coproc-sync``: a function body as a tree of loops and commands.

A function body is modelled as a tree of :class:`Node` s (the body, and every host loop that
holds commands) whose :class:`Item` s are commands (one module each) and nested loops.  Between
items, tokens are placed in *slots*: ``pre(i) = 2·i`` (just before item ``i``) and
``post(i) = 2·i + 1`` (just after it).  The dependences between items are found in
:mod:`.deps`; the token protocol that orders them is chosen and checked in :mod:`.protocol`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from xdsl.dialects import affine, scf
from xdsl.ir import Block, Operation, SSAValue

from vta_mlir.dialects.vta import DmaCopyOp, MicroOp, Module, UopLoopOp, module_of
from vta_mlir.dialects.vta_host import HostOp
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.index_arith import IndexArithError, evaluate_map

from .host_eval import HostEval

__all__ = [
    "COMPUTE",
    "DOUBLE_BUFFER_ATTR",
    "LOAD",
    "MAX_DISTANCE",
    "MODULES",
    "QUEUES",
    "STORE",
    "Item",
    "Node",
    "Queue",
    "Req",
    "Window",
    "build_model",
    "build_segments",
    "is_command",
]

LOAD, COMPUTE, STORE = Module.LOAD, Module.COMPUTE, Module.STORE
MODULES: tuple[Module, ...] = (LOAD, COMPUTE, STORE)

#: A dependency queue ``(from, to)``.
Queue = tuple[Module, Module]
#: The queues the hardware has, in a fixed order (also the order of tokens within a slot).
QUEUES: tuple[Queue, ...] = ((LOAD, COMPUTE), (COMPUTE, LOAD), (COMPUTE, STORE), (STORE, COMPUTE))

#: Unit attribute of ``vta-tile`` on the outermost tile loop of a double-buffered region.
DOUBLE_BUFFER_ATTR = "vta.double_buffer"


def is_command(op: Operation) -> bool:
    """True for an op one module executes: a DMA copy, or a micro-kernel (an outermost
    ``vta.uop_loop``, or a ``vta.gemm`` / ``vta.alu`` outside any ``vta.uop_loop``)."""
    if isinstance(op, DmaCopyOp):
        return True
    if isinstance(op, UopLoopOp):
        return op.is_kernel
    if isinstance(op, MicroOp):
        cur = op.parent_op()
        while cur is not None:
            if isinstance(cur, UopLoopOp):
                return False  # a micro-op of a kernel (maybe inside its list loops)
            cur = cur.parent_op()
        return True
    return False


def _has_commands(op: Operation) -> bool:
    return any(is_command(inner) for inner in op.walk())


#: The largest distance a carried requirement records (:class:`Req`): an input buffer has at
#: most four copies rotating with the loop (``vta-tile``), so its tokens are at most four deep.
MAX_DISTANCE = 4


@dataclass(frozen=True)
class Req:
    """Module ``y``'s part of item ``dst`` must wait for module ``x``'s part of item ``src``:
    in the same iteration (``dist == 0``, ``src < dst``) or ``dist`` iterations later (1 up
    to :data:`MAX_DISTANCE`, which stands for that many or more).  When ``dst`` is a loop
    whose first iterations touch nothing ``src`` does, ``first`` is the first iteration that
    does: only its commands and later ones wait.  When ``src`` is a loop whose last
    iterations touch nothing ``dst`` does, ``spared`` is how many: ``dst`` waits only for the
    iterations before them."""

    src: int
    dst: int
    x: Module
    y: Module
    dist: int
    first: int = 0
    spared: int = 0


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
    #: Per item, the cycles each module's commands take in it (the cycle model; a nested
    #: loop's all iterations), where :mod:`.synthesis` weighs a protocol's waits.
    item_cycles: list[dict[Module, int]] = field(default_factory=list)
    windows: dict[Queue, tuple[Window, ...]] = field(default_factory=dict)
    events: dict[int, list[tuple[str, Queue, int]]] = field(default_factory=dict)
    #: (item index, queue) → the slot the primes of that nested loop moved up to.
    prime_at: dict[tuple[int, Queue], int] = field(default_factory=dict)
    #: (item index, queue) → the slot the first of several primes of that nested loop moved
    #: up to on its own (it serves the loop's first iteration only).
    first_prime_at: dict[tuple[int, Queue], int] = field(default_factory=dict)
    #: (item index, queue) → the later slot where the last of several drains of that nested
    #: loop is popped (its token, pushed by the loop's last iteration, is needed no sooner).
    drain_at: dict[tuple[int, Queue], int] = field(default_factory=dict)
    #: (item index, queue) → the slot after that nested loop where the primes of its next
    #: iteration's instance are pushed, one iteration of this loop ahead (this loop then
    #: primes the first instance's tokens itself, and drains the last iteration's).
    prime_ahead: dict[tuple[int, Queue], int] = field(default_factory=dict)

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


def build_segments(body: Block, ev: HostEval) -> list[Node]:
    """The node trees of a function body's device runs: its top-level items split at each host
    step (``vta.host``).  The host program ends the device run before a host step and waits for
    every module there, so commands on either side of one need no token between them, and no
    token may cross it (one left over would stand in for the run's last store at its end)."""
    whole = build_model(body, ev)
    segments: list[Node] = []
    current: list[Item] = []
    steps = {op for op in body.ops if isinstance(op, HostOp)}

    def close() -> None:
        if current:
            node = Node(whole.op, whole.block, whole.iv, whole.values, whole.double_buffer)
            node.items = [replace(item, index=k) for k, item in enumerate(current)]
            segments.append(node)
        current.clear()

    if not steps:
        return [whole]
    items = iter(whole.items)
    item = next(items, None)
    for op in body.ops:
        if op in steps:
            close()
        elif item is not None and item.op is op:
            current.append(item)
            item = next(items, None)
    close()
    return segments
