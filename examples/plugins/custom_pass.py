"""A user-written pass on ``vta`` IR, registered next to the built-in passes: ``vta-drop-noop-alu``.

It removes the ``vta.alu`` micro-ops that cannot change the accumulator — ``add`` 0, ``shr`` 0
and ``mul`` 1 with an immediate — and the ``vta.uop_loop`` s they leave empty, so that the
program runs fewer ALU instructions for the same result.  Such micro-ops come from generic
code (a bias of zero, a requantization shift of zero, a scale of one) and from TVM's unit
tests, which insert ``>> 0`` before every store.

That ``>> 0`` is there for a reason on real hardware: the HLS and Chisel designs store from an
OUT buffer that only GEMM and ALU instructions write (``docs/isa.md`` §3.10), so there an ALU
no-op is what hands loaded accumulator values to the store module.  Only the functional
simulator (target ``sim``) stores straight from the accumulator; on any other target the pass
keeps every micro-op and says so with a remark.

Four ways to use it::

    python examples/plugins/custom_pass.py            # a demo program, checked against numpy
    python examples/plugins/custom_pass.py FILE.mlir  # a vta-level program: run it before and
                                                      # after the pass on the same random inputs
    vta-opt --load-pass-plugin examples/plugins/custom_pass.py -p vta-drop-noop-alu FILE.mlir
    vta-run --load-pass-plugin examples/plugins/custom_pass.py -p vta-drop-noop-alu \
        --random-inputs FILE.mlir                     # a vta-level program, on the simulator

The first two use the Python API (``docs/python-api.md``); the others load this file as a pass
plugin: importing it registers the pass (``@register_pass``), after which ``vta-opt`` and
``vta-run`` accept it in ``-p`` and ``--pass-pipeline`` like a built-in one.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.dead_code_elimination import is_trivially_dead

import vta_mlir
from vta_mlir.dialects.vta import AluKind, AluOp, UopLoopOp, get_config
from vta_mlir.errors import VTAError
from vta_mlir.ir.diagnostics import DiagnosticError, emit_remark
from vta_mlir.passes import register_pass

if TYPE_CHECKING:
    from vta_mlir.abi import ArgSpec
    from vta_mlir.runtime.device import LoadedModule

#: Targets whose STORE reads the accumulator itself (the functional simulator).  Everywhere
#: else a STORE copies the OUT buffer, which ALU instructions write: nothing may be dropped.
STORE_READS_ACC = frozenset({"sim"})

#: (operation, immediate) pairs that leave every accumulator lane as it is: x + 0, x >> 0,
#: x * 1 (low 32 bits).
NOOPS = frozenset({(AluKind.ADD, 0), (AluKind.SHR, 0), (AluKind.MUL, 1)})


def is_noop(op: AluOp) -> bool:
    """Whether ``op`` cannot change the accumulator (whatever the target)."""
    return op.use_imm and (op.kind, op.imm_value) in NOOPS


def _droppable(op: AluOp) -> bool:
    return is_noop(op) and get_config(op).target in STORE_READS_ACC


def _erase_if_dead(value: SSAValue, rewriter: PatternRewriter) -> None:
    """Erase the op computing ``value`` (an index) once nothing uses it, then its own
    operands' ops in turn: the ``affine.apply`` that positioned a dropped micro-op."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.parent is None or not is_trivially_dead(owner):
        return
    operands = list(owner.operands)
    rewriter.erase(owner)
    for operand in operands:
        _erase_if_dead(operand, rewriter)


class DropNoopAlu(RewritePattern):
    """``vta.alu add %acc[...], 0`` (and ``shr`` 0, ``mul`` 1) → nothing."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AluOp, rewriter: PatternRewriter) -> None:
        if not _droppable(op):
            return
        indices = [v for v in (op.dst_index, op.src_index) if v is not None]
        rewriter.erase(op)
        for index in indices:
            _erase_if_dead(index, rewriter)


class EraseEmptyUopLoop(RewritePattern):
    """A ``vta.uop_loop`` left without micro-ops (at any depth) → nothing: it would issue an
    instruction that does no work, and the verifier rejects it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: UopLoopOp, rewriter: PatternRewriter) -> None:
        if op.micro_ops():
            return
        # Values from outside the loop that only its index arithmetic used die with it.
        inner = set(op.walk())
        outside = [v for o in inner for v in o.operands if v.owner not in inner]
        rewriter.erase(op)
        for value in outside:
            _erase_if_dead(value, rewriter)


@register_pass
@dataclass(frozen=True)
class DropNoopAluPass(ModulePass):
    """Remove ALU micro-ops that cannot change the accumulator, and the micro-op loops they
    leave empty (on the ``sim`` target; elsewhere a remark says why nothing is dropped)."""

    name = "vta-drop-noop-alu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kept = [a for a in op.walk() if isinstance(a, AluOp) and is_noop(a) and not _droppable(a)]
        walker = PatternRewriteWalker(
            # No general dead-code elimination: only what the dropped micro-ops used goes.
            GreedyRewritePatternApplier([DropNoopAlu(), EraseEmptyUopLoop()], dce_enabled=False)
        )
        walker.rewrite_module(op)
        if kept:
            target = get_config(kept[0]).target
            emit_remark(
                kept[0],
                f"{len(kept)} no-op ALU micro-op(s) kept: on target '{target}' a store reads "
                "the OUT buffer, which only GEMM and ALU instructions write",
            )


# --------------------------------------------------------------------------------------------
# The script: the pass through the Python API, checked on the simulator
# --------------------------------------------------------------------------------------------

#: ``y = int8((x + b) >> 3)`` on 256 int32 lanes, with three no-op ALU kernels in between.
DEMO = """\
func.func @demo(%X: memref<1x16x1x16xi32>, %B: memref<1x16x1x16xi32>,
                %Y: memref<1x16x1x16xi8>) {
  %x = memref.alloc() : memref<16x1x16xi32, #vta.sram<acc>>
  %b = memref.alloc() : memref<16x1x16xi32, #vta.sram<acc>>
  vta.stage compute {
    vta.dma_copy %X[0] -> %x[0] y 1 x 16 stride 16
        : memref<1x16x1x16xi32> -> memref<16x1x16xi32, #vta.sram<acc>>
    vta.dma_copy %B[0] -> %b[0] y 1 x 16 stride 16
        : memref<1x16x1x16xi32> -> memref<16x1x16xi32, #vta.sram<acc>>
    vta.uop_loop 16 dst 1 src 1 {
      vta.alu add %x[0], %b[0]
          : memref<16x1x16xi32, #vta.sram<acc>>, memref<16x1x16xi32, #vta.sram<acc>>
    }
    vta.uop_loop 16 dst 1 {
      vta.alu mul %x[0], 1 : memref<16x1x16xi32, #vta.sram<acc>>
    }
    vta.uop_loop 16 dst 1 {
      vta.alu shr %x[0], 3 : memref<16x1x16xi32, #vta.sram<acc>>
    }
    vta.uop_loop 4 dst 4 {
      vta.uop_loop 4 dst 1 {
        vta.alu shr %x[0], 0 : memref<16x1x16xi32, #vta.sram<acc>>
      }
    }
    vta.dep_push compute -> store
  }
  vta.stage store {
    vta.dep_pop compute -> store
    vta.dma_copy %x[0] -> %Y[0] y 1 x 16 stride 16
        : memref<16x1x16xi32, #vta.sram<acc>> -> memref<1x16x1x16xi8>
  }
  func.return
}
"""


def _random_inputs(specs: Sequence[ArgSpec], rng: np.random.Generator) -> list[np.ndarray]:
    """Integers in [-128, 127] (clipped to each type), of each input's logical shape."""
    arrays = []
    for spec in specs:
        info = np.iinfo(np.dtype(spec.dtype))
        lo, hi = max(-128, info.min), min(127, info.max)
        arrays.append(rng.integers(lo, hi, size=spec.shape, dtype=spec.dtype, endpoint=True))
    return arrays


def demo() -> int:
    """The pass on :data:`DEMO`, the result checked against numpy."""
    module = vta_mlir.parse(DEMO, filename="demo.mlir")
    vta_mlir.run_pipeline(module, "vta-drop-noop-alu")
    print(vta_mlir.print_ir(module), end="")

    rng = np.random.default_rng(0)
    x = rng.integers(-50_000, 50_000, size=(1, 16, 1, 16), dtype=np.int32)
    b = rng.integers(-50_000, 50_000, size=(1, 16, 1, 16), dtype=np.int32)
    before = vta_mlir.compile(DEMO)
    after = vta_mlir.compile(module)
    (y_before,) = before(x, b)
    (y_after,) = after(x, b)
    expected = ((x + b) >> 3).astype(np.int8)
    ok = np.array_equal(y_before, expected) and np.array_equal(y_after, expected)
    _report(before, after)
    print(f"matches numpy: {ok}")
    return 0 if ok else 1


def check_file(path: Path) -> int:
    """The pass on a ``vta``-level program: both versions run on the same random inputs."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise VTAError(f"cannot open input file '{path}': {exc.strerror or exc}") from None
    original = vta_mlir.parse(text, filename=str(path))
    rewritten = vta_mlir.run_pipeline(original.clone(), [DropNoopAluPass()])
    before = vta_mlir.compile(original)
    after = vta_mlir.compile(rewritten)
    inputs = _random_inputs(before.inputs, np.random.default_rng(0))
    outputs_before = before(*inputs)
    outputs_after = after(*inputs)
    same = all(np.array_equal(p, q) for p, q in zip(outputs_before, outputs_after, strict=True))
    _report(before, after)
    print(f"same outputs before and after: {same}")
    return 0 if same else 1


def _report(before: LoadedModule, after: LoadedModule) -> None:
    for label, mod in (("before", before), ("after", after)):
        stats = mod.last_run
        assert stats is not None, "called before being run"
        alu = stats.by_opcode.get("ALU", 0)
        print(
            f"{label:>6}: {stats.instructions} instructions ({alu} ALU), "
            f"alu_counter {stats.counters['alu_counter']}, {stats.cycles} cycles"
        )


def main(argv: list[str]) -> int:
    prog = Path(__file__).name
    if len(argv) > 1 or (argv and argv[0] in ("-h", "--help")):
        print(f"usage: {prog} [FILE.mlir]", file=sys.stderr)
        return 0 if argv and argv[0] in ("-h", "--help") else 1
    path = Path(argv[0]) if argv else None
    try:
        return check_file(path) if path is not None else demo()
    except DiagnosticError as exc:
        sources = {str(path): path.read_text(encoding="utf-8")} if path is not None else None
        print(exc.diagnostic.format(sources=sources), file=sys.stderr)
    except VTAError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
