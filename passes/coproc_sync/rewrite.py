"""The rewriting half of ``vta-coproc-sync``: two patterns applying a :class:`SyncPlan`.

The dependence analysis and the token protocol (:mod:`.deps`, :mod:`.protocol`) decide, for
the whole function, which tokens go before and after each command and host loop.  What is left
is local to one op or one block:

* :class:`InsertDependencyTokens` puts the planned ``vta.dep_push`` / ``vta.dep_pop`` ops right
  before and after the command or loop they belong to;
* :class:`WrapStages` groups each block's maximal runs of one module's commands and tokens into
  a ``vta.stage`` of that module, moving in the index arithmetic only that stage uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, func, scf
from xdsl.ir import Block, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from vta_mlir.dialects.vta import DepPopOp, DepPushOp, Module, StageOp, module_of
from vta_mlir.dialects.vta_host import HostOp
from vta_mlir.ir.index_arith import is_index_op
from vta_mlir.ir.locations import copy_location

from .model import Node, Queue

__all__ = ["InsertDependencyTokens", "SyncPlan", "WrapStages"]

#: A token operation of a slot: ``("push" | "pop", queue, count)``.
TokenEvent = tuple[str, Queue, int]


@dataclass
class SyncPlan:
    """What the analysis decided for one function: the tokens around each item (by op), the
    module of each command, and the blocks holding commands (the analysis' nodes)."""

    #: id(op) → (the op, tokens before it, tokens after it).
    tokens: dict[int, tuple[Operation, list[TokenEvent], list[TokenEvent]]] = field(
        default_factory=dict)
    #: id(command) → its module.
    modules: dict[int, Module] = field(default_factory=dict)
    #: id(loop op) of the host loops holding commands.
    loops: set[int] = field(default_factory=set)
    #: id(block) → the block, for the blocks holding commands.
    blocks: dict[int, Block] = field(default_factory=dict)

    def add(self, root: Node) -> None:
        """Add the protocol of a function (its node tree, events synthesized)."""
        for node in root.walk():
            self.blocks[id(node.block)] = node.block
            for item in node.items:
                before = node.events.get(2 * item.index, [])
                after = node.events.get(2 * item.index + 1, [])
                if before or after:
                    self.tokens[id(item.op)] = (item.op, list(before), list(after))
                if item.node is None:
                    assert item.module is not None
                    self.modules[id(item.op)] = item.module
                else:
                    self.loops.add(id(item.op))


def _token_ops(events: list[TokenEvent], anchor: Operation) -> list[Operation]:
    ops: list[Operation] = []
    for kind, queue, count in events:
        for _ in range(count):
            op: Operation = DepPushOp(*queue) if kind == "push" else DepPopOp(*queue)
            copy_location(anchor, op)
            ops.append(op)
    return ops


@dataclass
class InsertDependencyTokens(RewritePattern):
    """Insert the tokens the plan gives a command or a host loop, once."""

    plan: SyncPlan

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        entry = self.plan.tokens.pop(id(op), None)
        if entry is None or entry[0] is not op:
            return
        _, before, after = entry
        if before:
            rewriter.insert(_token_ops(before, op), InsertPoint.before(op))
        if after:
            rewriter.insert(_token_ops(after, op), InsertPoint.after(op))


@dataclass
class _Element:
    """One op of a block in program order: ``kind`` is ``host``, ``command``, ``token``,
    ``loop`` or ``step`` (a host step); ``module`` the module executing a command or token."""

    kind: str
    op: Operation
    module: Module | None = None


@dataclass
class WrapStages(RewritePattern):
    """Wrap each run of one module's commands and tokens of a planned block in a
    ``vta.stage``.  A run ends at a host loop holding commands or at another module's command;
    host ops in between do not break it.  Pure index arithmetic (and selections between
    buffers) whose every use is in the run moves into the stage; the other host ops of the span
    stay before it, in their order."""

    plan: SyncPlan

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, func.FuncOp | affine.ForOp | scf.ForOp) or not op.regions:
            return
        block = op.regions[0].blocks.first
        if block is None or self.plan.blocks.pop(id(block), None) is not block:
            return
        elements = [self._element(inner) for inner in block.ops]
        for run in _runs(elements):
            self._wrap(run, elements, block, rewriter)

    def _element(self, op: Operation) -> _Element:
        if isinstance(op, DepPushOp | DepPopOp):
            return _Element("token", op, module_of(op))
        if isinstance(op, HostOp):
            # The device run ends before a host step: nothing of a stage crosses it.
            return _Element("step", op)
        module = self.plan.modules.get(id(op))
        if module is not None:
            return _Element("command", op, module)
        return _Element("loop" if id(op) in self.plan.loops else "host", op)

    @staticmethod
    def _wrap(run: list[int], elements: list[_Element], block: Block,
              rewriter: PatternRewriter) -> None:
        commands = [i for i in run if elements[i].kind == "command"]
        if not commands:
            return  # token operations with no command of their module next to them
        lo = run[0]
        while lo > 0 and elements[lo - 1].kind == "host":
            lo -= 1
        hi = run[-1]
        inside = {id(elements[i].op) for i in run}
        for i in range(hi, lo - 1, -1):
            el = elements[i]
            if el.kind == "host" and _movable(el.op) and all(
                id(_top_ancestor(use.operation, block)) in inside
                for result in el.op.results for use in result.uses
            ):
                inside.add(id(el.op))
        leading = [i for i in run if i < commands[0]]
        body = leading + [i for i in range(lo, hi + 1)
                          if id(elements[i].op) in inside and i not in leading]
        module = elements[commands[0]].module
        assert module is not None
        stage = StageOp(module)
        copy_location(elements[commands[0]].op, stage)
        # The span's host ops that stay outside precede the stage: it goes where the span ends.
        rewriter.insert(stage, InsertPoint.after(elements[hi].op))
        for i in body:
            moved = elements[i].op
            moved.detach()
            rewriter.insert(moved, InsertPoint.at_end(stage.body.block))


def _runs(elements: list[_Element]) -> list[list[int]]:
    """Maximal runs of commands and tokens of one module (host ops in between do not break a
    run; a loop, a host step or another module does)."""
    runs: list[list[int]] = []
    current: list[int] = []
    module: Module | None = None
    for i, el in enumerate(elements):
        if el.kind == "host":
            continue
        if el.kind in ("loop", "step") or el.module != module:
            if current:
                runs.append(current)
            current, module = [], el.module
            if el.kind in ("loop", "step"):
                continue
        current.append(i)
    if current:
        runs.append(current)
    return runs


def _top_ancestor(op: Operation, block: Block) -> Operation | None:
    cur: Operation | None = op
    while cur is not None and cur.parent_block() is not block:
        cur = cur.parent_op()
    return cur


def _movable(op: Operation) -> bool:
    """Pure index arithmetic (and a selection between buffers) may move into the stage that
    uses it."""
    return is_index_op(op) or isinstance(op, arith.SelectOp)
