"""``vta-coproc-sync``: put every command on its module and order the modules with dependency
tokens (stage 5 → 6 of ``docs/pipeline.md``).

Every command goes into a ``vta.stage`` of the module that executes it (consecutive commands of
one module share a stage), and ``vta.dep_push`` / ``vta.dep_pop`` are inserted so that every
read-after-write, write-after-read and write-after-write between two modules on an SRAM buffer
(and on a DRAM buffer: a store feeding a later load) happens in program order, including from
one iteration of a host loop to a later one.  Ranges are compared per element: host index
arithmetic is evaluated for every iteration of the constant-bound host loops
(:mod:`.deps`), so commands on disjoint parts of a buffer are not ordered
(in a top-level loop nest executing more than 100,000 command instances, a range that depends
on a loop variable counts as the whole buffer; the limit is per nest, so each layer of a
network is analysed on its own).  A micro-kernel touches the hull of all its micro-ops over
its loop levels and its micro-op list loops (``affine.for`` inside the kernel, ``docs/isa.md``
§4.4), computed from the positions' coefficients rather than by enumerating the list.

The protocol is the one of ``docs/pipeline.md`` §6, inserted only where a dependence
needs it.  TVM's ``InjectCoProcSync`` (``docs/isa.md`` §5.4) looks at scopes, not data: it
orders every pair of adjacent scopes of different modules whether or not they share a buffer,
its loop-carried token always goes from the body's last scope to its first (a body that starts
with a load and ends with a store asks for a store → load queue, which does not exist), and it
cannot express a load → store dependence at all.  Here:

* a **forward** token orders two commands of one iteration: pushed after the last source the
  target needs, popped before the target — one token per queue and target, however many
  buffers are involved;
* a **carried** token orders an iteration after an earlier one: pushed at the end of the last
  source in the loop body, popped before the first target, *primed* before the loop (so the
  first iteration finds its token) and *drained* after it (so the last one's token is
  consumed) — tokens balance exactly for every trip count, 1 included;
* load and store have no queue: a load → store (or store → load) dependence is relayed by the
  compute module, which pops and pushes right before the target;
* a token is added only when the others do not already order the two commands (through a
  module's program order, or through another token chain): each candidate protocol is executed
  abstractly with vector clocks, and the whole result is checked once more that way.

**Double buffering.**  ``vta-tile`` marks the outermost tile loop of a double-buffered region
with the unit attribute ``vta.double_buffer`` and gives each input/weight buffer two copies that
alternate with the parity of the loop that loads them: one SRAM buffer of twice the tile, the
copy of iteration ``i`` at element offset ``(i mod 2) * tile`` (an ``affine.apply`` the analysis
evaluates, and ``vta-lower-to-isa`` computes on the host).  Under such a loop (the marked one and
every loop inside it), a carried token whose dependences all occur two iterations apart — the
load of tile k+2 overwrites what the GEMM of tile k read, the load of tile k+1 writes the other
copy — is primed and drained twice, so the load of tile k+1 runs while the GEMM of tile k does.
A body unrolled by two over two buffer copies gets one token per copy instead (two primed, two
drained), and ``arith.select`` of two buffers on the parity is evaluated like the offsets.  The
option ``double-buffer=false`` keeps one token per queue, one deep.

**Input already synchronised.**  A function that already holds ``vta.stage``,
``vta.dep_push`` or ``vta.dep_pop`` is left as it is when every command is inside a stage (so
running the pass twice changes nothing); a command outside any stage in such a function is an
error.  Commands inside ``scf.if`` (or any region other than ``affine.for`` / ``scf.for``) and
host loops around commands whose bounds are not constants are errors at the op.

Input (``matrix_multiply_opt`` at stage 5)::

    affine.for %oc = 0 to 4 {
      vta.uop_loop 16 dst 1 {
        vta.gemm reset %acc[0] : ...
      }
      affine.for %ic = 0 to 4 {
        %xo = affine.apply affine_map<(d0) -> (d0 * 16)> (%ic)
        vta.dma_copy %x[%xo] -> %inp[0] y 1 x 16 stride 64 : ...
        %wo = affine.apply affine_map<(d0, d1) -> (d0 * 1024 + d1 * 16)> (%oc, %ic)
        vta.dma_copy %w[%wo] -> %wgt[0] y 16 x 16 stride 64 : ...
        vta.uop_loop 16 dst 1 wgt 16 {
          vta.uop_loop 16 src 1 wgt 1 {
            vta.gemm %acc[0] += %inp[0] * %wgt[0] : ...
          }
        }
      }
      vta.uop_loop 16 dst 1 src 1 { vta.alu shr %acc[0], 8 : ... }
      vta.uop_loop 16 dst 1 src 1 { vta.alu max %acc[0], 0 : ... }
      vta.uop_loop 16 dst 1 src 1 { vta.alu min %acc[0], 127 : ... }
      %yo = affine.apply affine_map<(d0) -> (d0 * 16)> (%oc)
      vta.dma_copy %acc[0] -> %y[%yo] y 1 x 16 stride 16 : ...
    }

Output::

    vta.dep_push store -> compute
    affine.for %oc = 0 to 4 {
      vta.stage compute {
        vta.dep_pop store -> compute
        vta.uop_loop 16 dst 1 { ... }
        vta.dep_push compute -> load
      }
      affine.for %ic = 0 to 4 {
        vta.stage load {
          vta.dep_pop compute -> load
          %xo = affine.apply ...
          vta.dma_copy %x[%xo] -> %inp[0] ...
          %wo = affine.apply ...
          vta.dma_copy %w[%wo] -> %wgt[0] ...
          vta.dep_push load -> compute
        }
        vta.stage compute {
          vta.dep_pop load -> compute
          vta.uop_loop 16 dst 1 wgt 16 { ... }
          vta.dep_push compute -> load
        }
      }
      vta.dep_pop compute -> load
      vta.stage compute {
        vta.uop_loop 16 dst 1 src 1 { vta.alu shr ... }
        vta.uop_loop 16 dst 1 src 1 { vta.alu max ... }
        vta.uop_loop 16 dst 1 src 1 { vta.alu min ... }
        vta.dep_push compute -> store
      }
      vta.stage store {
        vta.dep_pop compute -> store
        %yo = affine.apply ...
        vta.dma_copy %acc[0] -> %y[%yo] ...
        vta.dep_push store -> compute
      }
    }
    vta.dep_pop store -> compute

A token operation sits in the stage of its module when a command of that module is next to it
(the runtime attaches a push to that module's previous instruction and a pop to its next one,
``docs/isa.md`` §4.6), and stands alone otherwise.  Index arithmetic used only by one stage's
commands moves into that stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from vta_mlir.dialects.vta import DepPopOp, DepPushOp, Module, StageOp
from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.ir.diagnostics import report_error, verify_op
from vta_mlir.ir.index_arith import is_index_op
from vta_mlir.ir.locations import copy_location

from .deps import DependenceAnalysis, HostEval, Node, build_model, is_command
from .protocol import ProtocolError, synthesize, verify_protocol

__all__ = ["CoprocSyncPass"]

@dataclass(frozen=True)
class CoprocSyncPass(ModulePass):
    """Wrap commands in ``vta.stage`` s and insert dependency tokens (module docstring).

    ``double-buffer``: allow two-deep tokens under loops marked ``vta.double_buffer``
    (``false``: every token one deep).
    """

    name = "vta-coproc-sync"

    double_buffer: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if is_command(inner) and _function_of(inner) is None:
                report_error(inner, "vta-coproc-sync: a VTA command outside any func.func")
        for f in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            if f.body.blocks:
                self._function(f)
        verify_op(op)

    def _function(self, f: func.FuncOp) -> None:
        ops = list(f.walk())
        commands = [o for o in ops if is_command(o)]
        if any(isinstance(o, StageOp | DepPushOp | DepPopOp) for o in ops):
            for c in commands:
                if _stage_of(c) is None:
                    report_error(c, "vta-coproc-sync: this command is outside any vta.stage in "
                                    "a function that is already synchronised (it holds "
                                    "vta.stage / vta.dep_push / vta.dep_pop); give the pass "
                                    "either unsynchronised or fully synchronised input")
            return
        if not commands:
            return
        if len(f.body.blocks) > 1:
            report_error(f, "vta-coproc-sync: a function with VTA commands has a single block "
                            "(host control flow is structured: affine.for / scf.for)")
        ev = HostEval()
        root = build_model(f.body.block, ev)
        DependenceAnalysis(root, get_config(f), ev).run()
        try:
            synthesize(root, self.double_buffer)
            missed = verify_protocol(root)
        except ProtocolError as e:
            report_error(f, f"vta-coproc-sync: internal error: {e}")
        if missed is not None:
            report_error(f, f"vta-coproc-sync: internal error: the protocol does not order "
                            f"{missed}")
        for node in root.walk():
            _materialize(node)


def _function_of(op: Operation) -> func.FuncOp | None:
    cur = op.parent_op()
    while cur is not None and not isinstance(cur, func.FuncOp):
        cur = cur.parent_op()
    return cur


def _stage_of(op: Operation) -> StageOp | None:
    cur = op.parent_op()
    while cur is not None and not isinstance(cur, StageOp | func.FuncOp):
        cur = cur.parent_op()
    return cur if isinstance(cur, StageOp) else None


# ---------------------------------------------------------------------------------------------
# Rewriting one block


@dataclass
class _Element:
    """One op of the rebuilt block, in program order: a host op, a command, a token operation
    (``module`` is the module executing it) or a nested loop."""

    kind: str  # "host" | "command" | "token" | "loop"
    op: Operation
    module: Module | None = None


def _elements(node: Node) -> list[_Element]:
    items = {id(item.op): item for item in node.items}
    out: list[_Element] = []

    def tokens(slot: int, anchor: Operation) -> None:
        for kind, q, n in node.events.get(slot, ()):
            for _ in range(n):
                op: Operation = DepPushOp(*q) if kind == "push" else DepPopOp(*q)
                copy_location(anchor, op)
                out.append(_Element("token", op, q[0] if kind == "push" else q[1]))

    for op in node.block.ops:
        item = items.get(id(op))
        if item is None:
            out.append(_Element("host", op))
            continue
        tokens(2 * item.index, op)
        if item.node is None:
            out.append(_Element("command", op, item.module))
        else:
            out.append(_Element("loop", op))
        tokens(2 * item.index + 1, op)
    return out


def _runs(elements: list[_Element]) -> list[list[int]]:
    """Maximal runs of commands and token operations of one module (host ops in between do not
    break a run; a loop or another module does)."""
    runs: list[list[int]] = []
    current: list[int] = []
    module: Module | None = None
    for i, el in enumerate(elements):
        if el.kind == "host":
            continue
        if el.kind == "loop" or el.module != module:
            if current:
                runs.append(current)
            current, module = [], el.module
            if el.kind == "loop":
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
    """Pure index arithmetic (and a selection between buffers), which may move into the stage
    that uses it."""
    return is_index_op(op) or isinstance(op, arith.SelectOp)


def _materialize(node: Node) -> None:
    block = node.block
    elements = _elements(node)
    # stage start index -> (stage op, outside host ops of its span, last index of its span)
    starts: dict[int, tuple[StageOp, list[Operation], int]] = {}
    for run in _runs(elements):
        commands = [i for i in run if elements[i].kind == "command"]
        if not commands:
            continue  # token operations with no command of their module next to them
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
        first_command = commands[0]
        leading = [i for i in run if i < first_command]
        body_order = leading + [i for i in range(lo, hi + 1)
                                if id(elements[i].op) in inside and i not in leading]
        module = elements[first_command].module
        assert module is not None
        stage = StageOp(module)
        copy_location(elements[first_command].op, stage)
        outside = [elements[i].op for i in range(lo, hi + 1)
                   if id(elements[i].op) not in inside]
        for i in body_order:
            el = elements[i]
            if el.op.parent is not None:
                el.op.detach()
            stage.body.block.add_op(el.op)
        starts[lo] = (stage, outside, hi)

    order: list[Operation] = []
    i = 0
    while i < len(elements):
        if i in starts:
            stage, outside, hi = starts[i]
            order += outside
            order.append(stage)
            i = hi + 1
            continue
        order.append(elements[i].op)
        i += 1
    for op in list(block.ops):
        block.detach_op(op)
    for op in order:
        if op.parent is not None:
            op.detach()
        block.add_op(op)
