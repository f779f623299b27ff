"""``vta-fold-uop-loops`` on hand-written stage-4 programs: which loops fold into which levels
(factors, merging, the write-hazard rule, hardware limits, unrolling, options), and — lowered
and run on the simulator — that folding never changes a result while it cuts the number of
GEMM/ALU instructions, on every shipped configuration (fixed cases and seeded random nests).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.dialects import affine
from xdsl.dialects.builtin import ModuleOp

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import AluOp, GemmOp, UopLoopOp, set_module_config
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError, verify_op
from vta_mlir.isa import AluInsn, GemmInsn
from vta_mlir.passes.fold_uop_loops import FoldUopLoopsPass

from .numerics import random_args

DEFAULT = VTAConfig.shipped("default")


def fold(text: str, cfg: VTAConfig = DEFAULT, **options: int) -> ModuleOp:
    ctx = make_context()
    module = parse_module(text, ctx=ctx, filename="test.mlir")
    set_module_config(module, cfg)
    verify_op(module)
    FoldUopLoopsPass(**options).apply(ctx, module)
    return module


def kernels(module: ModuleOp) -> list[list[tuple[int, int, int, int]]]:
    """Each micro-kernel's levels as (extent, dst, src, wgt), outermost first."""
    out = []
    for op in module.walk():
        if isinstance(op, UopLoopOp) and op.is_kernel:
            out.append([(lp.field("extent"), lp.field("dst_factor"), lp.field("src_factor"),
                         lp.field("wgt_factor")) for lp in op.loops()])
    return out


def host_loops(module: ModuleOp) -> int:
    return sum(isinstance(op, affine.ForOp) for op in module.walk())


def types(text: str, *, acc: int = 16, acc2: int = 16, inp: int = 16, wgt: int = 16,
          cfg: VTAConfig = DEFAULT) -> str:
    b, bl = cfg.batch, cfg.block_in
    return (text.replace("!acc2", f"memref<{acc2}x{b}x{bl}xi32, #vta.sram<acc>>")
                .replace("!acc", f"memref<{acc}x{b}x{bl}xi32, #vta.sram<acc>>")
                .replace("!inp", f"memref<{inp}x{b}x{bl}xi8, #vta.sram<inp>>")
                .replace("!wgt", f"memref<{wgt}x{bl}x{bl}xi8, #vta.sram<wgt>>"))


def func(body: str, **sizes: int) -> str:
    return types(f"""
func.func @f(%acc: !acc, %acc2: !acc2, %inp: !inp, %wgt: !wgt, %n: index) {{
{body}
  return
}}""", **sizes)


GEMM_T = "!acc, !inp, !wgt"

# ---------------------------------------------------------------------------------------------
# Structure


def test_matrix_multiply_two_levels() -> None:
    module = fold(func(f"""
  affine.for %o = 0 to 16 {{
    affine.for %i = 0 to 16 {{
      %w = affine.apply affine_map<(d0, d1) -> (d0 * 16 + d1)>(%o, %i)
      vta.gemm %acc[%o] += %inp[%i] * %wgt[%w] : {GEMM_T}
    }}
  }}""", wgt=256))
    assert kernels(module) == [[(16, 1, 0, 16), (16, 0, 1, 1)]]
    assert host_loops(module) == 0
    (gemm,) = [op for op in module.walk() if isinstance(op, GemmOp)]
    assert all(index is None and offset == 0
               for _, _, index, offset, _ in gemm.operand_positions())


def test_alu_immediate_source_follows_destination() -> None:
    module = fold(func("""
  affine.for %i = 0 to 16 {
    vta.alu max %acc[%i], 0 : !acc
  }"""))
    assert kernels(module) == [[(16, 1, 1, 0)]]


def test_contiguous_loops_merge_into_one_level() -> None:
    module = fold(func("""
  affine.for %a = 0 to 2 {
    affine.for %b = 0 to 4 {
      affine.for %c = 0 to 2 {
        %d = affine.apply affine_map<(d0, d1, d2) -> (d0 * 8 + d1 * 2 + d2)>(%a, %b, %c)
        vta.alu add %acc[%d], %acc2[%d] : !acc, !acc2
      }
    }
  }"""))
    assert kernels(module) == [[(16, 1, 1, 0)]]


def test_third_loop_stays_on_the_host_with_rebuilt_positions() -> None:
    module = fold(func(f"""
  affine.for %oc = 0 to 2 {{
    affine.for %o = 0 to 8 {{
      affine.for %i = 0 to 8 {{
        %d = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1)>(%oc, %o)
        %s = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1 + 1)>(%oc, %i)
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1)>(%o, %i)
        vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : {GEMM_T}
      }}
    }}
  }}""", inp=17, wgt=64))
    assert kernels(module) == [[(8, 1, 0, 8), (8, 0, 1, 1)]]
    assert host_loops(module) == 1
    (gemm,) = [op for op in module.walk() if isinstance(op, GemmOp)]
    (acc_index, acc_off), (inp_index, inp_off) = gemm.position("acc"), gemm.position("inp")
    # One affine.apply of %oc, shared by both positions, computed outside the kernel.
    assert acc_index is inp_index and acc_index is not None
    assert (acc_off, inp_off) == (0, 1)
    assert isinstance(acc_index.owner, affine.ApplyOp)
    assert isinstance(acc_index.owner.parent_op(), affine.ForOp)


def test_folded_positions_do_not_depend_on_folded_loops() -> None:
    module = fold(func("""
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 4 {
      %d = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%i, %j)
      %s = affine.apply affine_map<(d0, d1) -> (d1 * 4 + d0)>(%i, %j)
      vta.alu add %acc[%d], %acc2[%s] : !acc, !acc2
    }
  }"""))
    assert kernels(module) == [[(4, 4, 1, 0), (4, 1, 4, 0)]]
    for op in module.walk():
        if isinstance(op, AluOp):
            assert op.dst_index is None and op.src_index is None


def test_several_micro_ops_fold_together() -> None:
    module = fold(func("""
  affine.for %i = 0 to 8 {
    %j = affine.apply affine_map<(d0) -> (d0 + 8)>(%i)
    vta.alu add %acc[%i], %acc2[%i] : !acc, !acc2
    vta.alu add %acc[%j], %acc2[%j] : !acc, !acc2
  }"""))
    assert kernels(module) == [[(8, 1, 1, 0)]]
    offsets = [op.position("dst")[1] for op in module.walk() if isinstance(op, AluOp)]
    assert offsets == [0, 8]


@pytest.mark.parametrize("second", ["%acc[%i]", "%acc[0]"])
def test_write_hazard_keeps_the_loop(second: str) -> None:
    """A micro-op that may write what one of the two before it writes: no single kernel.
    ``acc[0]`` and ``acc[%i]`` coincide when %i = 0, so they count as a hazard too."""
    text = func(f"""
  affine.for %i = 0 to 16 {{
    vta.alu add %acc[%i], %acc2[%i] : !acc, !acc2
    vta.alu add {second}, %acc2[0] : !acc, !acc2
  }}""")
    module = fold(text)
    assert kernels(module) == [] and host_loops(module) == 1


@pytest.mark.parametrize(
    "loop",
    [
        "affine.for %i = 0 to %n",                 # dynamic bound
        "affine.for %i = 1 to 18",                 # lower bound != 0 (too long to unroll)
        "affine.for %i = 0 to 34 step 2",          # step != 1 (too long to unroll)
    ],
)
def test_loops_that_do_not_fold(loop: str) -> None:
    module = fold(func(f"""
  {loop} {{
    vta.alu max %acc[%i], 0 : !acc
  }}""", acc=34))
    assert kernels(module) == [] and host_loops(module) == 1


def test_non_affine_position_does_not_fold() -> None:
    module = fold(func("""
  affine.for %i = 0 to 16 {
    %d = affine.apply affine_map<(d0) -> (d0 mod 4)>(%i)
    vta.alu max %acc[%d], 0 : !acc
  }"""))
    assert kernels(module) == [] and host_loops(module) == 1


def test_mixed_kernels_do_not_fold() -> None:
    module = fold(func("""
  affine.for %i = 0 to 16 {
    vta.alu shr %acc[%i], 8 : !acc
    vta.alu max %acc[%i], 0 : !acc
  }"""))
    assert kernels(module) == [] and host_loops(module) == 1


def test_extent_limit() -> None:
    """Iteration counts have 14 bits: a longer loop stays on the host."""
    module = fold(func(f"""
  affine.for %i = 0 to 16384 {{
    vta.gemm %acc[0] += %inp[0] * %wgt[0] : {GEMM_T}
  }}
  affine.for %i = 0 to 16383 {{
    vta.gemm %acc[0] += %inp[0] * %wgt[0] : {GEMM_T}
  }}"""))
    assert kernels(module) == [[(16383, 0, 0, 0)]]
    assert host_loops(module) == 1


def test_negative_factor_does_not_fold() -> None:
    module = fold(func("""
  affine.for %i = 0 to 16 {
    %d = affine.apply affine_map<(d0) -> (15 - d0)>(%i)
    vta.alu max %acc[%d], 0 : !acc
  }"""), unroll_limit=0)
    assert kernels(module) == []


def test_loop_with_attributes_is_kept() -> None:
    module = fold(func("""
  affine.for %i = 0 to 16 {
    vta.alu max %acc[%i], 0 : !acc
  } {vta.double_buffer}"""))
    assert kernels(module) == []


def test_extent_one_loop_folds_away() -> None:
    module = fold(func("""
  affine.for %i = 0 to 1 {
    affine.for %j = 0 to 16 {
      %d = affine.apply affine_map<(d0, d1) -> (d0 * 3 + d1)>(%i, %j)
      vta.alu max %acc[%d], 0 : !acc
    }
  }"""))
    assert kernels(module) == [[(16, 1, 1, 0)]]
    assert host_loops(module) == 0


def test_existing_kernel_gets_an_outer_level() -> None:
    module = fold(func(f"""
  affine.for %o = 0 to 2 {{
    %wo = affine.apply affine_map<(d0) -> (d0 * 2)>(%o)
    vta.uop_loop 2 src 1 wgt 1 {{
      vta.gemm %acc[%o] += %inp[0] * %wgt[%wo] : {GEMM_T}
    }}
  }}"""))
    assert kernels(module) == [[(2, 1, 0, 2), (2, 0, 1, 1)]]


def test_idempotent() -> None:
    text = func(f"""
  affine.for %oc = 0 to 2 {{
    affine.for %o = 0 to 8 {{
      affine.for %i = 0 to 8 {{
        %d = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1)>(%oc, %o)
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1)>(%o, %i)
        vta.gemm %acc[%d] += %inp[%i] * %wgt[%w] : {GEMM_T}
      }}
    }}
  }}""", wgt=64)
    once = print_module(fold(text))
    assert print_module(fold(once)) == once


# ---------------------------------------------------------------------------------------------
# Unrolling and options

UNROLL_BODY = f"""
  affine.for %a = 0 to 2 {{
    affine.for %b = 0 to 8 {{
      affine.for %c = 0 to 2 {{
        %d = affine.apply affine_map<(d0, d1, d2) -> (d0 * 16 + d1 * 2 + d2)>(%a, %b, %c)
        %s = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1)>(%a, %b)
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)>(%b, %c)
        vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : {GEMM_T}
      }}
    }}
  }}"""
UNROLL = func(UNROLL_BODY, acc=32)


def test_unroll_saves_instructions() -> None:
    """Unrolling the 2-iteration loop (2 micro-ops writing 2b, 2b + 1) lets both outer loops
    fold: one instruction instead of two."""
    module = fold(UNROLL)
    assert kernels(module) == [[(2, 16, 8, 0), (8, 2, 1, 2)]]
    gemms = [op for op in module.walk() if isinstance(op, GemmOp)]
    assert [(g.position("acc")[1], g.position("wgt")[1]) for g in gemms] == [(0, 0), (1, 1)]
    assert host_loops(module) == 0


def test_unroll_limit_zero_and_too_small() -> None:
    for options in ({"unroll_limit": 0}, {"unroll_limit": 1}):
        module = fold(UNROLL, **options)
        assert kernels(module) == [[(8, 2, 1, 2), (2, 1, 0, 1)]]
        assert host_loops(module) == 1


def test_reduction_loop_is_never_unrolled() -> None:
    """All iterations of a reduction write one element: the unrolled list would break the
    write-hazard rule, so the outer loop stays on the host."""
    module = fold(func(f"""
  affine.for %a = 0 to 2 {{
    affine.for %o = 0 to 4 {{
      affine.for %i = 0 to 2 {{
        %d = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%a, %o)
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)>(%o, %i)
        vta.gemm %acc[%d] += %inp[%i] * %wgt[%w] : {GEMM_T}
      }}
    }}
  }}"""))
    assert kernels(module) == [[(4, 1, 0, 2), (2, 0, 1, 1)]]
    assert host_loops(module) == 1


def test_unroll_of_a_loop_that_cannot_fold() -> None:
    """A short loop with step 2 cannot be a kernel level, but its iterations can be the
    micro-ops of one kernel."""
    module = fold(func("""
  affine.for %i = 2 to 10 step 2 {
    vta.alu max %acc[%i], 0 : !acc
  }"""))
    assert kernels(module) == [[(1, 0, 0, 0)]]
    assert [op.position("dst")[1] for op in module.walk() if isinstance(op, AluOp)] == \
        [2, 4, 6, 8]


def test_max_levels() -> None:
    text = func(f"""
  affine.for %o = 0 to 16 {{
    affine.for %i = 0 to 16 {{
      %w = affine.apply affine_map<(d0, d1) -> (d0 * 16 + d1)>(%o, %i)
      vta.gemm %acc[%o] += %inp[%i] * %wgt[%w] : {GEMM_T}
    }}
  }}""", wgt=256)
    assert kernels(fold(text, max_levels=1)) == [[(16, 0, 1, 1)]]
    unchanged = fold(text, max_levels=0)
    assert kernels(unchanged) == [] and host_loops(unchanged) == 2


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_levels": 3}, "max-levels = 3 is out of range"),
        ({"max_levels": -1}, "max-levels = -1 is out of range"),
        ({"unroll_limit": -2}, "unroll-limit = -2 is negative"),
    ],
)
def test_bad_options(options: dict[str, int], message: str) -> None:
    with pytest.raises(DiagnosticError, match=message):
        fold(func(""), **options)


def test_options_from_the_pipeline_syntax() -> None:
    from xdsl.passes import PassPipeline

    from vta_mlir.passes import get_all_passes

    pipeline = PassPipeline.parse_spec(
        get_all_passes(), "vta-fold-uop-loops{max-levels=1 unroll-limit=4}"
    )
    (p,) = pipeline.passes
    assert isinstance(p, FoldUopLoopsPass) and (p.max_levels, p.unroll_limit) == (1, 4)


# ---------------------------------------------------------------------------------------------
# Folding preserves results (lowered and run on the simulator)


def program(cfg: VTAConfig, body: str, *, acc: int, acc2: int, inp: int, wgt: int) -> str:
    """``body`` between loads of every buffer from DRAM and a store of ``%acc``."""
    b, bl = cfg.batch, cfg.block_in
    a_t, a2_t = f"memref<{acc}x{b}x{bl}xi32>", f"memref<{acc2}x{b}x{bl}xi32>"
    x_t, w_t = f"memref<{inp}x{b}x{bl}xi8>", f"memref<{wgt}x{bl}x{bl}xi8>"
    y_t = f"memref<{acc}x{b}x{bl}xi8>"
    return types(f"""
func.func @f(%dram_a: {a_t}, %dram_a2: {a2_t}, %dram_x: {x_t}, %dram_w: {w_t}, %dram_y: {y_t}) {{
  %acc = memref.alloc() : !acc
  %acc2 = memref.alloc() : !acc2
  %inp = memref.alloc() : !inp
  %wgt = memref.alloc() : !wgt
  vta.stage load {{
    vta.dma_copy %dram_x[0] -> %inp[0] y 1 x {inp} stride {inp} : {x_t} -> !inp
    vta.dma_copy %dram_w[0] -> %wgt[0] y 1 x {wgt} stride {wgt} : {w_t} -> !wgt
    vta.dep_push load -> compute
  }}
  vta.stage compute {{
    vta.dep_pop load -> compute
    vta.dma_copy %dram_a[0] -> %acc[0] y 1 x {acc} stride {acc} : {a_t} -> !acc
    vta.dma_copy %dram_a2[0] -> %acc2[0] y 1 x {acc2} stride {acc2} : {a2_t} -> !acc2
{body}
    vta.dep_push compute -> store
  }}
  vta.stage store {{
    vta.dep_pop compute -> store
    vta.dma_copy %acc[0] -> %dram_y[0] y 1 x {acc} stride {acc} : !acc -> {y_t}
  }}
  return
}}""", acc=acc, acc2=acc2, inp=inp, wgt=wgt, cfg=cfg)


def run(text: str, cfg: VTAConfig, seed: int, **options: int) -> tuple[np.ndarray, int]:
    """The stored result and the number of GEMM + ALU instructions."""
    from vta_mlir.host.lowering import lower_to_binary
    from vta_mlir.runtime import Device

    module = fold(text, cfg, **options)
    binary = lower_to_binary(module, cfg)
    inputs = random_args([spec for spec in binary.args if spec.direction != "out"], seed,
                         lambda spec: (-(1 << 12), (1 << 12) - 1) if spec.dtype == "int32"
                         else (-128, 127))
    (y,) = Device(cfg).load_module(binary)(*inputs.values())
    count = sum(isinstance(i, GemmInsn | AluInsn) for r in binary.program.runs for i in r.insns)
    return y, count


@dataclass(frozen=True)
class Case:
    body: str
    sizes: dict[str, int]
    fewer: bool = True  # does folding cut instructions?


CASES = {
    "matrix_multiply": Case(f"""
    affine.for %o = 0 to 4 {{
      affine.for %i = 0 to 4 {{
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%o, %i)
        vta.gemm %acc[%o] += %inp[%i] * %wgt[%w] : {GEMM_T}
      }}
    }}""", {"acc": 4, "acc2": 1, "inp": 4, "wgt": 16}),
    "reset_then_gemm": Case(f"""
    affine.for %o = 0 to 8 {{
      vta.gemm_reset %acc[%o] : !acc
    }}
    affine.for %o = 0 to 8 {{
      affine.for %i = 0 to 2 {{
        %s = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%o, %i)
        vta.gemm %acc[%o] += %inp[%s] * %wgt[%i] : {GEMM_T}
      }}
    }}""", {"acc": 8, "acc2": 1, "inp": 9, "wgt": 2}),
    "unroll": Case(UNROLL_BODY, {"acc": 32, "acc2": 1, "inp": 16, "wgt": 16}),
    "host_loop_left": Case(f"""
    affine.for %oc = 0 to 2 {{
      affine.for %o = 0 to 4 {{
        affine.for %i = 0 to 4 {{
          %d = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%oc, %o)
          %s = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%oc, %i)
          %w = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%o, %i)
          vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : {GEMM_T}
        }}
      }}
    }}""", {"acc": 8, "acc2": 1, "inp": 8, "wgt": 16}),
    "existing_kernel": Case(f"""
    affine.for %o = 0 to 2 {{
      %wo = affine.apply affine_map<(d0) -> (d0 * 2)>(%o)
      vta.uop_loop 2 src 1 wgt 1 {{
        vta.gemm %acc[%o] += %inp[0] * %wgt[%wo] : {GEMM_T}
      }}
    }}""", {"acc": 2, "acc2": 1, "inp": 2, "wgt": 4}),
    "alu_transposed_tensor": Case("""
    affine.for %p = 0 to 4 {
      affine.for %q = 0 to 4 {
        %d = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%p, %q)
        %s = affine.apply affine_map<(d0, d1) -> (d1 * 4 + d0)>(%p, %q)
        vta.alu add %acc[%d], %acc2[%s] : !acc, !acc2
      }
    }""", {"acc": 16, "acc2": 16, "inp": 1, "wgt": 1}),
    "alu_merged_epilogue": Case("""
    affine.for %a = 0 to 2 {
      affine.for %b = 0 to 8 {
        %d = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1)>(%a, %b)
        vta.alu shr %acc[%d], 3 : !acc
      }
    }
    affine.for %a = 0 to 16 {
      vta.alu max %acc[%a], -100 : !acc
    }
    affine.for %a = 0 to 16 {
      vta.alu mul %acc[%a], -3 : !acc
    }""", {"acc": 16, "acc2": 1, "inp": 1, "wgt": 1}),
    "alu_two_micro_ops": Case("""
    affine.for %i = 0 to 8 {
      %j = affine.apply affine_map<(d0) -> (d0 + 8)>(%i)
      vta.alu add %acc[%i], %acc2[%j] : !acc, !acc2
      vta.alu add %acc[%j], %acc2[%i] : !acc, !acc2
    }""", {"acc": 16, "acc2": 16, "inp": 1, "wgt": 1}),
    "alu_accumulate_chain": Case("""
    affine.for %i = 0 to 15 {
      %j = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)
      vta.alu add %acc[%j], %acc[%i] : !acc, !acc
    }""", {"acc": 16, "acc2": 1, "inp": 1, "wgt": 1}),
    "hazard_not_folded": Case("""
    affine.for %i = 0 to 8 {
      vta.alu add %acc[%i], %acc2[%i] : !acc, !acc2
      vta.alu add %acc[%i], %acc2[0] : !acc, !acc2
    }""", {"acc": 8, "acc2": 8, "inp": 1, "wgt": 1}, fewer=False),
    # Positions vta-tensorize makes for SRAM subviews: a base defined before the loops (the
    # double-buffer copy %ic mod 2) plus the loop variables.
    "subview_parity_base_alu": Case("""
    affine.for %ic = 0 to 4 {
      %b = affine.apply affine_map<(d0) -> ((d0 mod 2) * 8)>(%ic)
      affine.for %o = 0 to 2 {
        affine.for %i = 0 to 4 {
          %d = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%o, %i)
          %s = affine.apply affine_map<(d0, d1, d2) -> (d0 * 4 + d1 + d2)>(%o, %i, %b)
          vta.alu add %acc[%d], %acc2[%s] : !acc, !acc2
        }
      }
    }""", {"acc": 8, "acc2": 16, "inp": 1, "wgt": 1}),
    "subview_parity_base_gemm": Case(f"""
    affine.for %ic = 0 to 3 {{
      %p = affine.apply affine_map<(d0) -> ((d0 mod 2) * 2)>(%ic)
      %q = affine.apply affine_map<(d0) -> ((d0 mod 2) * 4)>(%ic)
      affine.for %o = 0 to 2 {{
        affine.for %i = 0 to 2 {{
          %s = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%i, %p)
          %w = affine.apply affine_map<(d0, d1, d2) -> (d0 * 2 + d1 + d2)>(%o, %i, %q)
          vta.gemm %acc[%o] += %inp[%s] * %wgt[%w] : {GEMM_T}
        }}
      }}
    }}""", {"acc": 2, "acc2": 1, "inp": 4, "wgt": 8}),
    "step_loop_unrolled": Case("""
    affine.for %i = 1 to 16 step 3 {
      vta.alu min %acc[%i], 7 : !acc
    }""", {"acc": 16, "acc2": 1, "inp": 1, "wgt": 1}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_folding_preserves_results(cfg: VTAConfig, case: str) -> None:
    c = CASES[case]
    text = program(cfg, c.body, **c.sizes)
    folded, n_folded = run(text, cfg, 11)
    reference, n_host = run(text, cfg, 11, max_levels=0)
    np.testing.assert_array_equal(folded, reference)
    assert (n_folded < n_host) if c.fewer else (n_folded == n_host)


def random_nest(rnd: random.Random) -> tuple[str, dict[str, int]]:
    """A random loop nest (1–3 loops, possibly with step or lower bound) around one or two
    micro-ops with random affine positions, all inside their buffers."""
    depth = rnd.randint(1, 3)
    loops = []
    for k in range(depth):
        lb, step = (0, 1) if rnd.random() < 0.8 else (rnd.randint(0, 2), rnd.randint(1, 2))
        loops.append((f"%i{k}", lb, lb + step * rnd.randint(1, 4), step))
    gemm = rnd.random() < 0.5
    fields = ["acc", "inp", "wgt"] if gemm else ["acc", "acc2"]
    count = rnd.randint(1, 2)
    uops, sizes = [], {"acc": 1, "acc2": 1, "inp": 1, "wgt": 1}
    lines = []
    for u in range(count):
        pos = {}
        for name in fields:
            coeffs = [rnd.choice([0, 0, 1, 2, 3, 5]) for _ in loops]
            const = rnd.randint(0, 3) + (8 * u if name == "acc" else 0)
            top = const + sum(c * (ub - 1) for c, (_, _, ub, _) in zip(coeffs, loops, strict=True))
            sizes[name] = max(sizes[name], top + 1)
            expr = " + ".join([f"d{k} * {c}" for k, c in enumerate(coeffs) if c] + [str(const)])
            dims = ", ".join(f"d{k}" for k in range(depth))
            ivs = ", ".join(v for v, _, _, _ in loops)
            var = f"%p{u}{name}"
            lines.append(f"{var} = affine.apply affine_map<({dims}) -> ({expr})>({ivs})")
            pos[name] = var
        if gemm:
            uops.append(f"vta.gemm %acc[{pos['acc']}] += %inp[{pos['inp']}] * "
                        f"%wgt[{pos['wgt']}] : {GEMM_T}")
        else:
            uops.append(f"vta.alu max %acc[{pos['acc']}], %acc2[{pos['acc2']}] : !acc, !acc2")
    body = "\n".join(lines + uops)
    for var, lb, ub, step in reversed(loops):
        body = f"affine.for {var} = {lb} to {ub} step {step} {{\n{body}\n}}"
    return body, sizes


@pytest.mark.parametrize("seed", range(12))
def test_random_nests_fold_without_changing_results(cfg: VTAConfig, seed: int) -> None:
    body, sizes = random_nest(random.Random(seed * 7919 + cfg.log_block + 10 * cfg.log_batch))
    text = program(cfg, body, **sizes)
    folded, n_folded = run(text, cfg, seed)
    reference, n_host = run(text, cfg, seed, max_levels=0)
    np.testing.assert_array_equal(folded, reference)
    assert n_folded <= n_host
