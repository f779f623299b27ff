"""``vta-coproc-sync``: put every command on its module and order the modules with dependency
tokens (stage 5 → 6 of ``docs/pipeline.md``, which specifies the protocol).

Every command goes into a ``vta.stage`` of the module that executes it, and ``vta.dep_push`` /
``vta.dep_pop`` order every cross-module read-after-write, write-after-read and write-after-write
on SRAM and DRAM element ranges, loop-carried ones included, with tokens two deep (or as deep
as a buffer has copies, up to four) under loops ``vta-tile`` marks ``vta.double_buffer``.  The
work is a whole-function analysis, then two local rewrites:

* :mod:`.model` builds the tree of host loops and commands, :mod:`.host_eval` evaluates the
  host index arithmetic of the constant-bound host loops, :mod:`.footprint` gives the ranges
  each command touches and :mod:`.deps` finds the dependences between the commands (per
  element, in nests of up to 100,000 command instances; beyond, a range that depends on a loop
  variable counts as the whole buffer);
* :mod:`.protocol` chooses the tokens (forward, carried, primed and drained, relayed by the
  compute module between load and store) and checks that they order every dependence;
* :mod:`.rewrite` applies the result with two patterns: the tokens around each command or loop,
  then the stages.

Host steps (``vta.host``) split the function into device runs, each synchronised on its own:
the host program ends the run before a step and waits for every module there, so no token
crosses a step (one left over would stand in for the next run's last store at its end), and no
stage spans one.

A function that already holds stages or tokens is left as it is when every command is inside a
stage (running the pass twice changes nothing).

Input (``matrix_multiply_opt`` at stage 5, abridged)::

    affine.for %oc = 0 to 4 {
      vta.uop_loop 16 dst 1 { vta.gemm_reset %acc[0] : ... }
      affine.for %ic = 0 to 4 {
        vta.dma_copy %x[%xo] -> %inp[0] y 1 x 16 stride 64 : ...
        vta.dma_copy %w[%wo] -> %wgt[0] y 16 x 16 stride 64 : ...
        vta.uop_loop 16 dst 1 wgt 16 { ... vta.gemm %acc[0] += %inp[0] * %wgt[0] ... }
      }
      vta.uop_loop 16 dst 1 src 1 { vta.alu shr %acc[0], 8 : ... }
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
          vta.dma_copy ... ; vta.dma_copy ...
          vta.dep_push load -> compute
        }
        vta.stage compute {
          vta.dep_pop load -> compute
          vta.uop_loop 16 dst 1 wgt 16 { ... }
          vta.dep_push compute -> load
        }
      }
      vta.dep_pop compute -> load
      vta.stage compute { vta.uop_loop ... ; vta.dep_push compute -> store }
      vta.stage store {
        vta.dep_pop compute -> store
        vta.dma_copy %acc[0] -> %y[%yo] ...
        vta.dep_push store -> compute
      }
    }
    vta.dep_pop store -> compute
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriteWalker

from vta_mlir.dialects.vta import DepPopOp, DepPushOp, StageOp
from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.ir.diagnostics import report_error, verify_op

from .deps import DependenceAnalysis
from .host_eval import HostEval
from .model import build_segments, is_command
from .protocol import ProtocolError, verify_protocol
from .rewrite import InsertDependencyTokens, SyncPlan, WrapStages
from .synthesis import synthesize

__all__ = ["CoprocSyncPass"]


@dataclass(frozen=True)
class CoprocSyncPass(ModulePass):
    """Wrap commands in ``vta.stage`` s and insert dependency tokens (module docstring).

    ``double-buffer``: allow tokens deeper than one (two, or as many as a buffer rotates
    through) under loops marked ``vta.double_buffer`` (``false``: every token one deep).
    """

    name = "vta-coproc-sync"

    double_buffer: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if is_command(inner) and _function_of(inner) is None:
                report_error(inner, "vta-coproc-sync: a VTA command outside any func.func")
        # Every function is analysed before anything is rewritten.
        plan = SyncPlan()
        for f in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            if f.body.blocks:
                self._analyze(f, plan)
        before = set(op.walk())
        # The tokens first: the stages group commands and tokens of one module together.
        PatternRewriteWalker(InsertDependencyTokens(plan), apply_recursively=False
                             ).rewrite_module(op)
        PatternRewriteWalker(WrapStages(plan), apply_recursively=False).rewrite_module(op)
        # The rewrites only insert tokens and stages and move ops into the stages: the ops
        # the module held before verify as they did (no verifier of a command or of index
        # arithmetic reads its parent; a stage's checks what it holds).  The new ops are
        # verified, and every op's dominance.
        verify_op(op, vouched=before.__contains__)

    def _analyze(self, f: func.FuncOp, plan: SyncPlan) -> None:
        """Add the tokens of ``f``'s protocol to ``plan`` (nothing for a function that is
        already synchronised or has no command)."""
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
        # Each device run between host steps is synchronised on its own.
        cfg = get_config(f)
        for root in build_segments(f.body.block, ev):
            DependenceAnalysis(root, cfg, ev).run()
            try:
                synthesize(root, self.double_buffer, cfg)
                missed = verify_protocol(root)
            except ProtocolError as e:
                report_error(f, f"vta-coproc-sync: internal error: {e}")
            if missed is not None:
                report_error(f, f"vta-coproc-sync: internal error: the protocol does not "
                                f"order {missed}")
            plan.add(root)


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
