"""``vta-inject-dma`` on hand-written stage-2 programs (``docs/pipeline.md``).

* the 2-D pattern of single copies (rows, pitch, repeated rows) and of copies that need several
  DMAs, unit-tested on :func:`dma_pattern` and checked on the IR the pass makes;
* end to end: stage-2 IR through ``vta-inject-dma, vta-tensorize, vta-fold-uop-loops,
  vta-coproc-sync, vta-lower-to-isa`` and run on the simulated device against numpy, on every
  shipped configuration (given as the module's ``vta.config`` or as ``vta-opt --config``): a
  tiled dense layer with every accumulator initialisation (zero, a broadcast bias, an ``i32``
  copy, a sign-extending ``i8`` copy), with and without double-buffered input and weight tiles
  (SRAM subviews at the loop parity), and a tiled element-wise program on a 6-D layout whose
  loads and stores each need several DMAs (written out, or as a host loop);
* errors are diagnostics at the copy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import ModuleOp

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects.vta import AluOp, DmaCopyOp, GemmOp, UopLoopOp, set_module_config
from vta_mlir.dialects.vtaisa_program import module_to_program
from vta_mlir.ir.context import make_context, parse_module
from vta_mlir.ir.diagnostics import DiagnosticError, verify_op
from vta_mlir.ir.pipeline import run_pipeline
from vta_mlir.isa import MemInsn
from vta_mlir.passes.inject_dma import DmaDim, InjectDmaPass, dma_pattern
from vta_mlir.tools import vta_opt

from .numerics import random_args, run_binary, within

PIPELINE = "vta-inject-dma,vta-tensorize,vta-fold-uop-loops,vta-coproc-sync,vta-lower-to-isa"


# ---------------------------------------------------------------------------------------------
# Helpers


def strided(shape: tuple[int, ...], source: tuple[int, ...], space: str = "",
            elem: str = "i8") -> str:
    """The type of a subview of shape ``shape`` of a row-major ``source`` whose trailing
    dimensions it keeps (rank-reducing when it has fewer dimensions)."""
    strides = [int(np.prod(source[i + 1:])) for i in range(len(source))]
    kept = strides[len(source) - len(shape):]
    dims = "x".join(map(str, shape))
    sp = f", #vta.sram<{space}>" if space else ""
    return f"memref<{dims}x{elem}, strided<[{', '.join(map(str, kept))}], offset: ?>{sp}>"


def mtype(shape: tuple[int, ...], elem: str, space: str = "") -> str:
    sp = f", #vta.sram<{space}>" if space else ""
    return f"memref<{'x'.join(map(str, shape))}x{elem}{sp}>"


def inject(text: str, cfg: VTAConfig | None = None, **options: int) -> ModuleOp:
    module = parse_module(text, filename="test.mlir")
    if cfg is not None:
        set_module_config(module, cfg)
    verify_op(module)
    InjectDmaPass(**options).apply(make_context(), module)
    verify_op(module)
    return module


def dmas(module: ModuleOp) -> list[DmaCopyOp]:
    return [op for op in module.walk() if isinstance(op, DmaCopyOp)]


def pattern(op: DmaCopyOp) -> tuple[int, int, int]:
    return op.field("y_size"), op.field("x_size"), op.field("x_stride")


def compile_to_binary(text: str, cfg: VTAConfig, passes: str = PIPELINE):
    module = parse_module(text, filename="test.mlir")
    set_module_config(module, cfg)
    run_pipeline(module, passes)
    return module_to_program(module)


def run(binary, cfg: VTAConfig, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    outs, stats = run_binary(binary, cfg, inputs)
    assert not stats.warnings
    return outs


def load_insns(binary) -> list[MemInsn]:
    return [i for run in binary.program.runs for i in run.insns
            if isinstance(i, MemInsn) and i.x_size]


# ---------------------------------------------------------------------------------------------
# Programs


CONTRACTION = """linalg.generic {{indexing_maps = [
          affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>,
          affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>,
          affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>],
          iterator_types = ["parallel", "parallel", "reduction",
                            "parallel", "parallel", "reduction"]}}
          ins({x}, {w} : {xt}, {wt}) outs({a} : {at}) {{
      ^bb0(%xv: i8, %wv: i8, %av: i32):
        %e0 = arith.extsi %xv : i8 to i32
        %e1 = arith.extsi %wv : i8 to i32
        %m = arith.muli %e0, %e1 : i32
        %s = arith.addi %av, %m : i32
        linalg.yield %s : i32
      }}"""

ID4 = "affine_map<(b, o, bb, oo) -> (b, o, bb, oo)>"
PAR4 = '["parallel", "parallel", "parallel", "parallel"]'


def alu(op: str, const: str, acc: str, acc_t: str) -> str:
    return (f"linalg.generic {{indexing_maps = [{ID4}, {ID4}], iterator_types = {PAR4}}}\n"
            f"        ins({acc} : {acc_t}) outs({acc} : {acc_t}) {{\n"
            f"    ^bb0(%in: i32, %out: i32):\n"
            f"      %r = arith.{op} %in, {const} : i32\n"
            f"      linalg.yield %r : i32\n"
            f"    }}")


def dense_stage2(cfg: VTAConfig, *, rows: int = 2, kb: int = 4, nb: int = 4, ti: int = 2,
                 to: int = 2, init: str = "fill", double_buffer: bool = False,
                 shift: int = 6) -> str:
    """Stage-2 IR of ``y = clip((x·wᵀ + init) >> shift, 0, 127)`` on packed layouts: ``rows``
    row blocks, ``kb`` input and ``nb`` output blocks, tiles of ``to`` × ``ti`` blocks.

    ``init``: ``fill`` (0), ``bias`` (a per-channel i32 bias broadcast over the rows),
    ``acc32`` (an i32 matrix), ``acc8`` (an i8 matrix, sign-extended)."""
    b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    n_oc, n_ic = nb // to, kb // ti
    x_shape, w_shape, y_shape = (rows, kb, b, bi), (nb, kb, bo, bi), (rows, nb, b, bo)
    x_t, w_t, y_t = mtype(x_shape, "i8"), mtype(w_shape, "i8"), mtype(y_shape, "i8")
    inp_tile, wgt_tile, acc_tile = (rows, ti, b, bi), (to, ti, bo, bi), (rows, to, b, bo)
    copies = (2,) if double_buffer else ()
    inp_t = mtype(copies + inp_tile, "i8", "inp")
    wgt_t = mtype(copies + wgt_tile, "i8", "wgt")
    acc_t = mtype(acc_tile, "i32", "acc")
    xs_t = strided(inp_tile, x_shape)
    ws_t = strided(wgt_tile, w_shape)
    ys_t = strided(acc_tile, y_shape)
    args = [f"%x: {x_t}", f"%w: {w_t}"]
    if init == "bias":
        b_shape = (1, nb, 1, bo)
        args.append(f"%bias: {mtype(b_shape, 'i32')}")
        bs_t = strided((1, to, 1, bo), b_shape, elem="i32")
        bcast = "affine_map<(b, o, bb, oo) -> (0, o, 0, oo)>"
        init_ir = f"""%bs = memref.subview %bias[0, %o, 0, 0] [1, {to}, 1, {bo}] [1, 1, 1, 1]
        : {mtype(b_shape, 'i32')} to {bs_t}
    linalg.generic {{indexing_maps = [{bcast}, {ID4}], iterator_types = {PAR4}}}
        ins(%bs : {bs_t}) outs(%acc : {acc_t}) {{
    ^bb0(%in: i32, %out: i32):
      linalg.yield %in : i32
    }}"""
    elif init in ("acc32", "acc8"):
        elem = "i32" if init == "acc32" else "i8"
        args.append(f"%a: {mtype(y_shape, elem)}")
        as_t = strided(acc_tile, y_shape, elem=elem)
        sub = (f"%as = memref.subview %a[0, %o, 0, 0] [{rows}, {to}, {b}, {bo}] [1, 1, 1, 1]\n"
               f"        : {mtype(y_shape, elem)} to {as_t}")
        if init == "acc32":
            init_ir = f"{sub}\n    memref.copy %as, %acc : {as_t} to {acc_t}"
        else:
            init_ir = f"""{sub}
    linalg.generic {{indexing_maps = [{ID4}, {ID4}], iterator_types = {PAR4}}}
        ins(%as : {as_t}) outs(%acc : {acc_t}) {{
    ^bb0(%in: i8, %out: i32):
      %e = arith.extsi %in : i8 to i32
      linalg.yield %e : i32
    }}"""
    else:
        init_ir = f"linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})"
    args.append(f"%y: {y_t}")
    if double_buffer:
        ib_t = strided(inp_tile, copies + inp_tile, "inp")
        wb_t = strided(wgt_tile, copies + wgt_tile, "wgt")
        bufs = f"""%p = affine.apply affine_map<(d0) -> (d0 mod 2)>(%ic)
      %ib = memref.subview %inp[%p, 0, 0, 0, 0] [1, {rows}, {ti}, {b}, {bi}] [1, 1, 1, 1, 1]
          : {inp_t} to {ib_t}
      %wb = memref.subview %wgt[%p, 0, 0, 0, 0] [1, {to}, {ti}, {bo}, {bi}] [1, 1, 1, 1, 1]
          : {wgt_t} to {wb_t}"""
        ib, wb, attr = "%ib", "%wb", " {vta.double_buffer}"
    else:
        ib_t, wb_t, bufs, ib, wb, attr = inp_t, wgt_t, "", "%inp", "%wgt", ""
    contraction = CONTRACTION.format(x=ib, w=wb, a="%acc", xt=ib_t, wt=wb_t, at=acc_t)
    return f"""
func.func @dense({", ".join(args)}) {{
  %c0 = arith.constant 0 : i32
  %cs = arith.constant {shift} : i32
  %chi = arith.constant 127 : i32
  %inp = memref.alloc() : {inp_t}
  %wgt = memref.alloc() : {wgt_t}
  %acc = memref.alloc() : {acc_t}
  affine.for %oc = 0 to {n_oc} {{
    %o = affine.apply affine_map<(d0) -> (d0 * {to})>(%oc)
    {init_ir}
    affine.for %ic = 0 to {n_ic} {{
      %i = affine.apply affine_map<(d0) -> (d0 * {ti})>(%ic)
      {bufs}
      %xs = memref.subview %x[0, %i, 0, 0] [{rows}, {ti}, {b}, {bi}] [1, 1, 1, 1]
          : {x_t} to {xs_t}
      memref.copy %xs, {ib} : {xs_t} to {ib_t}
      %ws = memref.subview %w[%o, %i, 0, 0] [{to}, {ti}, {bo}, {bi}] [1, 1, 1, 1]
          : {w_t} to {ws_t}
      memref.copy %ws, {wb} : {ws_t} to {wb_t}
      {contraction}
    }}
    {alu("shrsi", "%cs", "%acc", acc_t)}
    {alu("maxsi", "%c0", "%acc", acc_t)}
    {alu("minsi", "%chi", "%acc", acc_t)}
    %ys = memref.subview %y[0, %o, 0, 0] [{rows}, {to}, {b}, {bo}] [1, 1, 1, 1]
        : {y_t} to {ys_t}
    linalg.generic {{indexing_maps = [{ID4}, {ID4}], iterator_types = {PAR4}}}
        ins(%acc : {acc_t}) outs(%ys : {ys_t}) {{
    ^bb0(%in: i32, %out: i8):
      %t = arith.trunci %in : i32 to i8
      linalg.yield %t : i8
    }}
  }}{attr}
  func.return
}}
"""


def unpack2(a: np.ndarray) -> np.ndarray:
    """A packed matrix ``(rows/B, cols/BC, B, BC)`` as its logical ``rows x cols``."""
    r, c, b, bc = a.shape
    return a.transpose(0, 2, 1, 3).reshape(r * b, c * bc)


def dense_reference(inputs: dict[str, np.ndarray], init: str, shift: int = 6) -> np.ndarray:
    x, w = inputs["x"], inputs["w"]
    acc = unpack2(x).astype(np.int64) @ unpack2(w).astype(np.int64).T
    if init == "bias":
        acc = acc + inputs["bias"].reshape(-1)[None, :]
    elif init in ("acc32", "acc8"):
        acc = acc + unpack2(inputs["a"]).astype(np.int64)
    acc = acc.astype(np.int32)
    out = np.clip(acc >> shift, 0, 127).astype(np.int8)
    rows, _, b, _ = x.shape
    nb, _, bo, _ = w.shape
    return out.reshape(rows, b, nb, bo).transpose(0, 2, 1, 3)


def grid_stage2(cfg: VTAConfig, *, c: int = 4, h: int = 4, w: int = 6, tc: int = 2,
                th: int = 2, tw: int = 3, add: int = 3) -> str:
    """Stage-2 IR of ``y = int8(x + add)`` on a ``(1, C, H, W, BATCH, BLOCK)`` layout, tiled
    ``tc × th × tw``: every tile spans three non-contiguous levels (channel blocks, rows,
    columns), so each load (ACC_8BIT) and store needs several DMAs."""
    b, bo = cfg.batch, cfg.block_out
    shape = (1, c, h, w, b, bo)
    tile = (1, tc, th, tw, b, bo)
    x_t, y_t = mtype(shape, "i8"), mtype(shape, "i8")
    acc_t = mtype(tile, "i32", "acc")
    sub_t = strided(tile, shape)
    id6 = "affine_map<(n, c, h, w, bb, oo) -> (n, c, h, w, bb, oo)>"
    par6 = '["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]'
    return f"""
func.func @grid(%x: {x_t}, %y: {y_t}) {{
  %cadd = arith.constant {add} : i32
  %acc = memref.alloc() : {acc_t}
  affine.for %ci = 0 to {c // tc} {{
    affine.for %hi = 0 to {h // th} {{
      affine.for %wi = 0 to {w // tw} {{
        %c = affine.apply affine_map<(d0) -> (d0 * {tc})>(%ci)
        %h = affine.apply affine_map<(d0) -> (d0 * {th})>(%hi)
        %w = affine.apply affine_map<(d0) -> (d0 * {tw})>(%wi)
        %xs = memref.subview %x[0, %c, %h, %w, 0, 0] [1, {tc}, {th}, {tw}, {b}, {bo}]
            [1, 1, 1, 1, 1, 1] : {x_t} to {sub_t}
        linalg.generic {{indexing_maps = [{id6}, {id6}], iterator_types = {par6}}}
            ins(%xs : {sub_t}) outs(%acc : {acc_t}) {{
        ^bb0(%in: i8, %out: i32):
          %e = arith.extsi %in : i8 to i32
          linalg.yield %e : i32
        }}
        linalg.generic {{indexing_maps = [{id6}, {id6}], iterator_types = {par6}}}
            ins(%acc : {acc_t}) outs(%acc : {acc_t}) {{
        ^bb0(%in: i32, %out: i32):
          %r = arith.addi %in, %cadd : i32
          linalg.yield %r : i32
        }}
        %ys = memref.subview %y[0, %c, %h, %w, 0, 0] [1, {tc}, {th}, {tw}, {b}, {bo}]
            [1, 1, 1, 1, 1, 1] : {y_t} to {sub_t}
        linalg.generic {{indexing_maps = [{id6}, {id6}], iterator_types = {par6}}}
            ins(%acc : {acc_t}) outs(%ys : {sub_t}) {{
        ^bb0(%in: i32, %out: i8):
          %t = arith.trunci %in : i32 to i8
          linalg.yield %t : i8
        }}
      }}
    }}
  }}
  func.return
}}
"""


# ---------------------------------------------------------------------------------------------
# The 2-D pattern


@pytest.mark.parametrize(
    ("dims", "expected"),
    [
        # One contiguous run: a single row.
        ([DmaDim(16, 1, 1)], (16, 1, 16, ())),
        # Rows of 16 elements, 64 apart (a weight tile).
        ([DmaDim(16, 64, 16), DmaDim(16, 1, 1)], (16, 16, 64, ())),
        # Contiguous rows merge into the row.
        ([DmaDim(4, 16, 16), DmaDim(16, 1, 1)], (64, 1, 64, ())),
        # A repeated row (broadcast): stride 0.
        ([DmaDim(3, 0, 16), DmaDim(16, 1, 1)], (16, 3, 0, ())),
        # Two evenly spaced levels merge into the rows.
        ([DmaDim(2, 128, 8), DmaDim(4, 32, 2), DmaDim(2, 1, 1)], (2, 8, 32, ())),
        # A third level that is not evenly spaced: one DMA per index.
        ([DmaDim(2, 24, 6), DmaDim(2, 6, 3), DmaDim(3, 1, 1)], (3, 2, 6, (DmaDim(2, 24, 6),))),
        # SRAM not dense after the row (a window of a wider buffer): one DMA per row.
        ([DmaDim(4, 8, 8), DmaDim(4, 1, 1)], (4, 1, 4, (DmaDim(4, 8, 8),))),
        # DRAM not contiguous: rows of one element.
        ([DmaDim(4, 2, 1)], (1, 4, 2, ())),
        # A pitch wider than the field: one DMA per row.
        ([DmaDim(2, 70000, 4), DmaDim(4, 1, 1)], (4, 1, 4, (DmaDim(2, 70000, 4),))),
        # Nothing to iterate: one element.
        ([], (1, 1, 1, ())),
    ],
)
def test_dma_pattern(dims: list[DmaDim], expected: tuple) -> None:
    assert dma_pattern(dims, 0xFFFF, 0xFFFF, 0xFFFF) == expected


def test_dma_pattern_respects_field_limits() -> None:
    # A run longer than the x field becomes rows of one element.
    assert dma_pattern([DmaDim(8, 1, 1)], 4, 0xFFFF, 0xFFFF) == (1, 8, 1, ())
    # Rows beyond the y field: one DMA per row.
    x, y, stride, outer = dma_pattern([DmaDim(2, 16, 8), DmaDim(8, 1, 1)], 8, 1, 0xFFFF)
    assert (x, y, outer) == (8, 1, (DmaDim(2, 16, 8),))


# ---------------------------------------------------------------------------------------------
# Single copies


def test_running_example_copies(default_cfg: VTAConfig) -> None:
    """The tile of docs/pipeline.md: the walkthrough's three DMAs."""
    text = dense_stage2(default_cfg, rows=1, kb=64, nb=64, ti=16, to=16)
    module = inject(text, default_cfg)
    x_load, w_load, store = dmas(module)
    assert pattern(x_load) == (1, 16, 16)
    assert pattern(w_load) == (16, 16, 64)
    assert pattern(store) == (1, 16, 16) and store.is_store
    w_apply = w_load.dram_position[0].owner
    assert isinstance(w_apply, affine.ApplyOp)
    assert str(w_apply.map.data) == "(d0, d1) -> (((d0 * 1024) + (d1 * 16)))"
    # The DRAM subviews went with the copies.
    assert not [op for op in module.walk() if isinstance(op, memref.SubviewOp)]
    assert not [op for op in module.walk() if isinstance(op, memref.CopyOp)]


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_double_buffered_copies_land_in_the_parity_copy(name: str) -> None:
    cfg = VTAConfig.shipped(name)
    module = inject(dense_stage2(cfg, double_buffer=True), cfg)
    x_load, w_load = [d for d in dmas(module) if not d.is_store and d.memory_type.name
                      in ("INP", "WGT")]
    for load, tile in ((x_load, 2 * 2), (w_load, 2 * 2)):
        value, const = load.sram_position
        assert const == 0 and isinstance(value.owner, affine.ApplyOp)
        assert str(value.owner.map.data) == f"(d0) -> (((d0 mod 2) * {tile}))"
    # The SRAM subviews stay for vta-tensorize (the contraction reads them).
    assert len([op for op in module.walk() if isinstance(op, memref.SubviewOp)]) == 2


def test_memory_types(default_cfg: VTAConfig) -> None:
    for init, kind in (("acc32", "ACC"), ("acc8", "ACC_8BIT"), ("bias", "ACC")):
        module = inject(dense_stage2(default_cfg, init=init), default_cfg)
        first = dmas(module)[0]
        assert first.memory_type.name == kind
    bias = dmas(inject(dense_stage2(default_cfg, init="bias"), default_cfg))[0]
    # The bias row repeated over the 2 row blocks: stride 0.
    assert pattern(bias) == (2, 2, 0)


def test_split_copies_are_written_out_or_looped(default_cfg: VTAConfig) -> None:
    text = grid_stage2(default_cfg)
    module = inject(text, default_cfg)
    loads = [d for d in dmas(module) if not d.is_store]
    stores = [d for d in dmas(module) if d.is_store]
    # 2 channel blocks x (2 rows of 3 columns, pitch 6): two DMAs each way.
    assert [pattern(d) for d in loads] == [(2, 3, 6)] * 2
    assert [pattern(d) for d in stores] == [(2, 3, 6)] * 2
    assert [d.dram_position[1] for d in loads] == [0, 24]
    assert [d.sram_position[1] for d in loads] == [0, 6]
    looped = inject(text, default_cfg, unroll_limit=1)
    assert len(dmas(looped)) == 2
    for d in dmas(looped):
        loop = d.parent_op()
        while not isinstance(loop, affine.ForOp):
            loop = loop.parent_op()
        assert loop.upperBoundMap.data.results[0].value == 2


# ---------------------------------------------------------------------------------------------
# End to end


@pytest.mark.parametrize("init", ["fill", "bias", "acc32", "acc8"])
@pytest.mark.parametrize("double_buffer", [False, True])
def test_dense_end_to_end(cfg: VTAConfig, init: str, double_buffer: bool) -> None:
    text = dense_stage2(cfg, init=init, double_buffer=double_buffer)
    if init == "bias" and cfg.batch > 1:
        # The bias row would have to repeat over the batch lanes of one element.
        with pytest.raises(DiagnosticError, match="broadcast within an element"):
            compile_to_binary(text, cfg)
        return
    binary = compile_to_binary(text, cfg)
    inputs = random_args(binary.args, 5, within(100))
    got = run(binary, cfg, inputs)
    np.testing.assert_array_equal(got["y"], dense_reference(inputs, init))


@pytest.mark.parametrize("unroll_limit", [4, 1])
def test_split_copies_end_to_end(cfg: VTAConfig, unroll_limit: int) -> None:
    text = grid_stage2(cfg)
    passes = PIPELINE.replace("vta-inject-dma", f"vta-inject-dma{{unroll-limit={unroll_limit}}}")
    binary = compile_to_binary(text, cfg, passes)
    inputs = random_args(binary.args, 5, within(100))
    got = run(binary, cfg, inputs)
    want = (inputs["x"].astype(np.int32) + 3).astype(np.int8)
    np.testing.assert_array_equal(got["y"], want)
    loads = [i for i in load_insns(binary) if i.opcode == 0 and i.y_size == 2]
    assert len(loads) == 2 * 2 * 2 * 2  # 8 tiles, two DMAs each


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_through_vta_opt_config(name: str, tmp_path: Path) -> None:
    """The configuration comes from `vta-opt --config`."""
    cfg = VTAConfig.shipped(name)
    src = tmp_path / "in.mlir"
    src.write_text(dense_stage2(cfg, init="acc8", double_buffer=True))
    out = tmp_path / "out.mlir"
    assert vta_opt.main([str(src), "--config", name, "-p", PIPELINE, "-o", str(out)]) == 0
    binary = module_to_program(parse_module(out.read_text(), filename="out.mlir"))
    assert binary.config == cfg
    inputs = random_args(binary.args, 5, within(100))
    np.testing.assert_array_equal(run(binary, cfg, inputs)["y"],
                                  dense_reference(inputs, "acc8"))


def test_stage3_output_tensorizes_and_folds(default_cfg: VTAConfig) -> None:
    """After vta-inject-dma, vta-tensorize and vta-fold-uop-loops the double-buffered GEMM is
    one two-level kernel at the parity's base position."""
    module = parse_module(dense_stage2(default_cfg, rows=1, double_buffer=True),
                          filename="t.mlir")
    set_module_config(module, default_cfg)
    run_pipeline(module, "vta-inject-dma,vta-tensorize,vta-fold-uop-loops")
    gemms = [op for op in module.walk() if isinstance(op, GemmOp)]
    assert len(gemms) == 1
    kernel = gemms[0].parent_op()
    assert isinstance(kernel, UopLoopOp) and isinstance(kernel.parent_op(), UopLoopOp)
    inp_value, _ = gemms[0].position("inp")
    assert str(inp_value.owner.map.data) == "(d0) -> (((d0 mod 2) * 2))"
    wgt_value, _ = gemms[0].position("wgt")
    assert str(wgt_value.owner.map.data) == "(d0) -> (((d0 mod 2) * 4))"
    assert all(isinstance(op.parent_op(), UopLoopOp) for op in module.walk()
               if isinstance(op, AluOp))
    assert not [op for op in module.walk() if isinstance(op, memref.SubviewOp)]


# ---------------------------------------------------------------------------------------------
# Errors


def test_errors_are_diagnostics_at_the_copy(default_cfg: VTAConfig) -> None:
    text = """
func.func @f(%x: memref<4x1x16xi32>, %a: memref<4x1x16xi32, #vta.sram<acc>>) {
  memref.copy %a, %x : memref<4x1x16xi32, #vta.sram<acc>> to memref<4x1x16xi32>
  func.return
}
"""
    with pytest.raises(DiagnosticError) as info:
        inject(text, default_cfg)
    assert "test.mlir:3:3" in str(info.value)
    assert "a store truncates the accumulator to i8 DRAM" in str(info.value)
