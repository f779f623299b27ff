"""``vta-pack``: rewrite what VTA can run onto its packed layouts (stage 0 → stage 1 of
``docs/pipeline.md``).

Recognized (``passes/pack/match.py`` and the ``match_*.py`` modules): int8 contractions into
int32 (``linalg.matmul`` with K×N weights, ``linalg.generic`` ``acc + extsi(a) · extsi(b)`` in
any operand orientation, including VTA's native N×K weights), ``linalg.fill`` of the
accumulator, copies, element-wise ``linalg.generic`` chains on i32 (``addi``, ``subi`` of a
constant, ``muli``, ``shrsi``, ``shli``, ``maxsi``, ``minsi``, ``extsi`` of i8 operands, a final
``trunci``) and per-column bias broadcasts (an indexing map ``(d0, d1) -> (d1)`` or
``linalg.broadcast``), on any shape: dimensions that are not whole blocks are zero-padded by the
host and cropped on the way out.

Every ``i8`` output becomes one *VTA region* in the normal form: a packed ``i32`` accumulator,
its initialisation (fill 0, a copy of an i32 argument, an ``extsi`` copy of an i8 one, or a
broadcast bias), at most one packed contraction, one ``linalg.generic`` per ALU operation in
place on the accumulator (a tensor operand is first loaded into a second accumulator buffer),
and a ``trunci`` into the packed output.  Each argument's host-side packing is recorded in its
``vta.arg`` attribute (the fields of ``vta_mlir.abi.ArgSpec``), so callers keep passing and
receiving logical arrays; a per-column bias is replicated over the BATCH lanes by the host
(``repeat``), one whole accumulator element per column block, since a DMA repeats whole
elements over the row blocks but not a row within an element.  On the default configuration
(BATCH 1, BLOCK 16)::

    func.func @dense(%x: memref<1x1024xi8>, %w: memref<1024x1024xi8>, %y: memref<1x1024xi8>) {
      %acc = memref.alloc() : memref<1x1024xi32>
      linalg.fill ins(%c0 : i32) outs(%acc : memref<1x1024xi32>)
      linalg.matmul ins(%x, %w : ...) outs(%acc : memref<1x1024xi32>)
      linalg.generic {...} ins(%acc : memref<1x1024xi32>) outs(%y : memref<1x1024xi8>) {
        ... trunci(minsi(maxsi(shrsi(%a, 8), 0), 127)) ...
      }
      func.return
    }

becomes::

    func.func @dense(%x: memref<1x64x1x16xi8> {vta.arg = {shape = array<i64: 1, 1024>,
                         dtype = "int8", padded_shape = array<i64: 1, 1024>,
                         split_shape = array<i64: 1, 1, 64, 16>, perm = array<i64: 0, 2, 1, 3>}},
                     %w: memref<64x64x16x16xi8> {vta.arg = {... perm = array<i64: 2, 0, 3, 1>}},
                     %y: memref<1x64x1x16xi8> {vta.arg = {...}}) {
      %c0 = arith.constant 0 : i32
      %acc = memref.alloc() : memref<1x64x1x16xi32>
      linalg.fill ins(%c0 : i32) outs(%acc : memref<1x64x1x16xi32>)
      linalg.generic {(b, o, i, bb, oo, ii): X(b, i, bb, ii), W(o, i, oo, ii), Acc(b, o, bb, oo)}
          ins(%x, %w) outs(%acc) { extsi, extsi, muli, addi }
      linalg.generic ins(%acc) outs(%acc) { shrsi 8 }
      linalg.generic ins(%acc) outs(%acc) { maxsi 0 }
      linalg.generic ins(%acc) outs(%acc) { minsi 127 }
      linalg.generic ins(%acc) outs(%y) { trunci }
      func.return
    }

A 2-D convolution (``linalg.conv_2d_nchw_fchw``, or the equivalent ``linalg.generic``) on
NCHW tensors gives the same region in the ``tensor`` layout (``passes/pack/normal_form.py``): data
``(N/BATCH, C/BLOCK_IN, H, W, BATCH, BLOCK_IN)``, kernel ``(O/BLOCK_OUT, I/BLOCK_IN, KH, KW,
BLOCK_OUT, BLOCK_IN)``, accumulator and output ``(N/BATCH, O/BLOCK_OUT, OH, OW, BATCH,
BLOCK_OUT)``, a per-channel bias one element row of that layout, and one packed convolution::

    linalg.generic {(b, o, oh, ow, i, kh, kw, bb, oo, ii):
                    X(b, i, oh*sh + kh, ow*sw + kw, bb, ii), W(o, i, kh, kw, oo, ii),
                    Acc(b, o, oh, ow, bb, oo)}
        ins(%x, %w) outs(%acc) { extsi, extsi, muli, addi }

A convolution reading a zero-padded copy of its data (``linalg.fill`` 0 of a buffer, the
argument copied into its interior ``memref.subview``, ``passes/pack/match_conv.py``) keeps the
idiom in the packed layout, right before the convolution; only H and W are padded, so the
interior is the whole packed argument (``tensor`` layout: N/B, C/BI, H + top + bottom,
W + left + right, B, BI).  For a 1×64×56×56 argument padded by 1 on each side::

    %c0_i8 = arith.constant 0 : i8
    ...
    %xp = memref.alloc() : memref<1x4x58x58x1x16xi8>
    linalg.fill ins(%c0_i8 : i8) outs(%xp : memref<1x4x58x58x1x16xi8>)
    %xi = memref.subview %xp[0, 0, 1, 1, 0, 0] [1, 4, 56, 56, 1, 16] [1, 1, 1, 1, 1, 1]
        : memref<1x4x58x58x1x16xi8> to memref<1x4x56x56x1x16xi8, strided<[215296, 53824,
          928, 16, 16, 1], offset: 944>>
    memref.copy %x, %xi : memref<1x4x56x56x1x16xi8> to memref<1x4x56x56x1x16xi8, strided<...>>
    linalg.generic {conv maps} ins(%xp, %w) outs(%acc) { extsi, extsi, muli, addi }
    ...
    memref.dealloc %xp : memref<1x4x58x58x1x16xi8>

The ``memref.dealloc`` of the padded buffer, when the function has one, keeps its place among
the region's ops.  A depthwise convolution (``passes/pack/match_depthwise.py``) gives the same
region with its constant kernel packed block-diagonal at compile time, ``(C/BO, 1, KH, KW, BO,
BI)`` (``passes/pack/depthwise.py``), read with the input channel block ``o + i``; a function of
NHWC depthwise convolutions is first read in NCHW (``passes/pack/nhwc.py``).
A residual (an i8 tensor shaped like the output, ``addi(v, extsi(r))`` in
the epilogue) is loaded into a second accumulator by an ``extsi`` copy and added in place, as
any tensor operand of the ALU.

An element-wise region without a contraction, of any rank (``passes/pack/flatten.py``), is
flattened into the matrix layout by the host transform of its arguments; its packed memrefs
are rank-4 matrices.  An ALU op of two computed operands, each a chain of immediate ops on one
common value (a leaky ReLU ``max(x, x >> k)``), computes that value, copies it into a second
accumulator (``linalg.fill`` 0, then ``addi`` of the first: VTA has no copy between
accumulators), applies each chain in place and combines the two buffers.

Weights, biases and residuals may be ``memref.global`` constants read by ``memref.get_global``
instead of arguments (``passes/pack/constants.py``): planned as arguments, packed at compile
time the same way into new constant globals (``@w_packed``), so the signature keeps only the
real arguments.

An argument read in two packed layouts (``passes/pack/layouts.py``) is one buffer when one
layout is the other's bytes with fewer axes (read through a ``memref.collapse_shape``), else
packed twice by the host: a further argument at the end of the signature, whose ``vta.arg``
names the argument it copies (``copy_of``).

A matrix product may read an int8 buffer an earlier layer computes as its right operand
(attention's ``Q · Kᵀ`` and ``P · V``): that layer stores it straight into weight tiles
(``passes/pack/match_matmul_operands.py``), a product reading it as K×N reads its transpose,
computed by a product with the identity (``passes/pack/transpose_operand.py``), and a head's
columns of a matrix are read and written in place.  A batched product (``linalg.batch_matmul``)
is one 2-D product on its collapsed rows when its weight is one matrix for every batch, else a
host loop over the batches around one 2-D region (``passes/pack/match_batch.py``,
``passes/pack/plan_batch.py``).

Other argument attributes stay where they were, beside ``vta.arg``: an int8 argument at a float
edge keeps its ``vta.quant`` (checked here, ``vta_mlir/ir/quant.py``), which the host layout
reads.

The block sizes come from the module's configuration (``vta.config``).  A function whose
arguments already carry ``vta.arg`` is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    i32,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.dialects.vta_host import HostOp
from vta_mlir.ir.diagnostics import DiagnosticError, report_error, verify_op
from vta_mlir.ir.locations import RegionLayers, copy_location
from vta_mlir.ir.quant import argument_quantization
from vta_mlir.passes.pack.concat import rewrite_channel_slices
from vta_mlir.passes.pack.constants import ConstantPool, stand_in_constants, stand_in_values
from vta_mlir.passes.pack.intermediates import (
    collapse_reassociation,
    intermediate_buffers,
    stand_in_intermediates,
)
from vta_mlir.passes.pack.match import FunctionRecognizer
from vta_mlir.passes.pack.match_batch import (
    batch_loop,
    batch_slice,
    collapsed_batches,
    fold_weight_broadcasts,
    is_batched_type,
)
from vta_mlir.passes.pack.match_matmul_operands import weight_store_map
from vta_mlir.passes.pack.match_resize import resize_op
from vta_mlir.passes.pack.nhwc import is_nhwc, nchw_view, nhwc_packing
from vta_mlir.passes.pack.normal_form import (
    ARG_ATTR_NAME,
    Packing,
    Role,
    alu_op,
    contraction_op,
    conv_op,
    fill_op,
    init_op,
    packed_acc_shape,
    padded_copy_ops,
    pool_ops,
    store_op,
)
from vta_mlir.passes.pack.transpose_operand import rewrite_transposed_operands

__all__ = ["PackPass", "pack_function"]


from vta_mlir.passes.pack.plan import (
    AccBuffer,
    AluStep,
    BatchLoop,
    Contract,
    EndBatchLoop,
    Fill,
    FreePadded,
    Init,
    NewAcc,
    PadData,
    PaddedData,
    Planner,
    PoolStep,
    ResizeStep,
    RunHost,
    Step,
    Store,
)
from vta_mlir.passes.pack.wide_outputs import plane_store_ops

# --------------------------------------------------------------------------------------------
# Rewriting
# --------------------------------------------------------------------------------------------


def _already_packed(f: func.FuncOp) -> bool:
    attrs = f.arg_attrs.data if f.arg_attrs is not None else ()
    return any(ARG_ATTR_NAME in a.data for a in attrs)


def pack_function(f: func.FuncOp, cfg: VTAConfig, constants: ConstantPool | None = None) -> None:
    """Rewrite ``f`` into the normal form (module doc); errors are reported at their op, and
    leave ``f`` as it was.  ``constants`` holds the module's packed constants
    (``passes/pack/constants.py``); by default those of the module around ``f``."""
    if f.is_declaration or _already_packed(f):
        return
    # A float edge (vta.quant) is checked on the original program, where its argument's
    # element type is still the logical one; packing keeps the attribute beside vta.arg.
    for index in range(len(f.body.block.args)):
        argument_quantization(f, index)
    # Stand-ins replace buffers before anything is recognized: keep the original to put back.
    original = f.clone()
    try:
        _pack_function(f, cfg, constants)
    except DiagnosticError:
        for block in list(f.body.blocks):
            f.body.detach_block(block).erase(safe_erase=False)
        original.body.move_blocks(f.body)
        f.attributes = dict(original.attributes)
        f.properties = dict(original.properties)
        raise


def _pack_function(f: func.FuncOp, cfg: VTAConfig, constants: ConstantPool | None) -> None:
    block = f.body.block
    real_args = len(block.args)
    # An NHWC function is read in NCHW; its transposed arguments keep their NHWC arrays.
    transposed = nchw_view(f) if is_nhwc(f) else set()
    selections = rewrite_channel_slices(f, cfg)  # concatenations (passes/pack/concat.py)
    fold_weight_broadcasts(f)  # one matrix for every batch (passes/pack/match_batch.py)
    # Computed right operands of products read as N × K (passes/pack/transpose_operand.py).
    selections += rewrite_transposed_operands(f)
    if constants is not None:
        constants.symbols.update({glob.sym_name.data: glob for glob in selections})
    if constants is None and any(isinstance(op, memref.GetGlobalOp) for op in block.ops):
        module = f.get_toplevel_object()
        if not isinstance(module, ModuleOp):
            report_error(f, "reads globals but is not inside a module")
        constants = ConstantPool(module)
    stand_ins = {} if constants is None else stand_in_constants(f, constants.symbols)
    intermediates = stand_in_intermediates(f)
    recognizer = FunctionRecognizer(f)
    recognizer.intermediates = {arg: i.buffer for arg, i in intermediates.items()}
    recognizer.slices = {arg for arg, i in intermediates.items() if i.channels is not None}
    planner = Planner(cfg, recognizer.run(), intermediates=intermediates,
                      constant_values=stand_in_values(stand_ins))
    planner.plan()
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    for op in reversed(list(block.ops)):
        if op is not ret:
            op.detach()
            op.erase()

    args: dict[BlockArgument, SSAValue] = {}
    arg_attrs: list[Attribute] = list(f.arg_attrs.data) if f.arg_attrs is not None else [
        DictionaryAttr({}) for _ in range(real_args)]
    buffers = intermediate_buffers(intermediates, planner.packings, ret, cfg)
    copies = planner.layouts.copies
    #: The arguments packed once more for a second layout, after the real ones, with their
    #: attributes (passes/pack/layouts.py).
    copy_args: dict[SSAValue, Attribute] = {}
    for old, (packing, _, _) in planner.packings.items():
        if old in buffers:
            args[old] = buffers[old]
            continue
        source = copies.get(old, old)
        if source in stand_ins:
            # A constant: its packed image is a global of the module, read at the start.
            assert constants is not None
            args[old] = constants.read_packed(stand_ins[source], packing, ret)
            continue
        args[old] = Rewriter.replace_value_with_new_type(old, packing.memref_type())
        attrs = dict(arg_attrs[source.index].data)  # type: ignore[attr-defined]
        if source.index in transposed:  # type: ignore[attr-defined]
            packing = nhwc_packing(packing)
        if old is source:
            attrs[ARG_ATTR_NAME] = packing.attr()
            arg_attrs[old.index] = DictionaryAttr(attrs)
        else:
            # The host packs the caller's array for `source` into this argument too.
            attrs[ARG_ATTR_NAME] = DictionaryAttr(
                {"copy_of": IntegerAttr(source.index, i64), **packing.attr().data})
            copy_args[args[old]] = DictionaryAttr(attrs)
    for stand_in in reversed(block.args[real_args:]):
        if stand_in in copy_args:
            continue
        if stand_in.uses and stand_in in buffers:
            stand_in.replace_all_uses_with(buffers[stand_in])
        block.erase_arg(stand_in)
    arg_attrs += [copy_args[a] for a in block.args[real_args:]]
    f.arg_attrs = ArrayAttr(arg_attrs)  # type: ignore[arg-type]
    f.update_function_type()

    _Emitter(cfg, args, ret, planner.packings).emit(planner.steps)
    verify_op(f)


@dataclass
class _Emitter:
    """Materializes the planned steps before ``before`` (the function's return)."""

    cfg: VTAConfig
    args: dict[BlockArgument, SSAValue]
    before: Operation
    packings: dict[BlockArgument, tuple[Packing, Role, Operation]]
    buffers: dict[AccBuffer, SSAValue] = field(default_factory=dict[AccBuffer, SSAValue])
    padded: dict[PaddedData, SSAValue] = field(default_factory=dict[PaddedData, SSAValue])
    zeros: dict[tuple[int, int], SSAValue] = field(
        default_factory=dict[tuple[int, int], SSAValue])
    reshaped: dict[tuple[SSAValue, tuple[int, ...]], SSAValue] = field(
        default_factory=dict[tuple[SSAValue, tuple[int, ...]], SSAValue])
    #: Locates every op of a region as its layer (``NameLoc``, vta_mlir/ir/locations.py).
    layers: RegionLayers = field(default_factory=RegionLayers)
    #: Inside the host loop over the batches of a region (``BatchLoop``): its variable, the
    #: op the region's ops go before outside it, and each batched buffer's slice.
    batch: tuple[SSAValue, Operation, dict[SSAValue, SSAValue]] | None = None

    def arg(self, arg: BlockArgument) -> SSAValue:
        """The packed buffer of ``arg``; in a loop over batches, a batched buffer's slice."""
        value = self.args[arg]
        if self.batch is None or not is_batched_type(value.type):
            return value
        iv, _, views = self.batch
        if value not in views:
            views[value] = batch_slice(value, iv, self.before)
        return views[value]

    def insert(self, source: Operation, *ops: Operation) -> None:
        copy_location(source, ops)
        self.layers.add(source, ops)
        Rewriter.insert_op(list(ops), InsertPoint.before(self.before))

    def zero_constant(self, width: int = 32, value: int = 0) -> SSAValue:
        """The function's ``arith.constant 0`` (or ``value``) of ``i<width>`` (``%c0``,
        ``%c0_i8``, ``%cm128_i8``)."""
        if (width, value) not in self.zeros:
            const = arith.ConstantOp.from_int_and_width(value, width)
            name = f"c{value}" if value >= 0 else f"cm{-value}"
            const.result.name_hint = name if width == 32 else f"{name}_i{width}"
            # At the start of the function, outside any loop over batches.
            top = self.before if self.batch is None else self.batch[1]
            block = top.parent_block()
            assert block is not None
            Rewriter.insert_op(const, InsertPoint.at_start(block))
            self.zeros[width, value] = const.result
        return self.zeros[width, value]

    def pad(self, data: PaddedData) -> None:
        """The padded buffer of ``data``: alloc, fill 0, subview, copy (module doc)."""
        src = data.source
        ops = padded_copy_ops(self.args[data.arg], data.pads,
                              self.zero_constant(8, data.source.value))
        ops[0].results[0].name_hint = src.buffer.name_hint
        assert src.view is not None and src.fill is not None and src.copy is not None
        ops[2].results[0].name_hint = src.view.result.name_hint
        for op, origin in zip(ops, (src.alloc, src.fill, src.view, src.copy), strict=True):
            self.insert(origin, op)
        self.padded[data] = ops[0].results[0]

    def shaped(self, step: Step, arg: BlockArgument, acc: AccBuffer) -> SSAValue:
        """``arg`` with the packed shape of ``acc``: a ``memref.collapse_shape`` of an
        intermediate buffer allocated with more axes (``Planner.use``)."""
        value = self.arg(arg)
        t = value.type
        assert isinstance(t, MemRefType)
        target = packed_acc_shape(acc.shape, self.cfg)
        if tuple(t.get_shape()) == target:
            return value
        key = (value, target)
        if key not in self.reshaped:
            # Fewer axes than the buffer: a collapsed view; more (an N×C output of an
            # N×C×1×1 pooling): an expanded one.
            expand = len(target) > t.get_num_dims()
            groups = collapse_reassociation(*((target, t.get_shape()) if expand else
                                              (t.get_shape(), target)))
            assert groups is not None, "the planner accepts only collapsible views"
            view_class = memref.ExpandShapeOp if expand else memref.CollapseShapeOp
            properties: dict[str, Attribute] = {"reassociation": ArrayAttr(
                [ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])}
            if expand:
                properties["static_output_shape"] = DenseArrayBase.from_list(i64, target)
            view = view_class(operands=[value, []] if expand else [value],
                              result_types=[MemRefType(t.element_type, target)],
                              properties=properties)
            view.result.name_hint = value.name_hint
            copy_location(step.source, [view])
            # Next to the buffer's allocation, at the start of the function, with the views
            # of the collapsed aliases: the regions themselves hold only their own ops.
            owner = value.owner
            at = InsertPoint.after(owner) if isinstance(owner, Operation) else \
                InsertPoint.at_start(value.block)  # type: ignore[attr-defined]
            Rewriter.insert_op(view, at)
            self.reshaped[key] = view.result
        return self.reshaped[key]

    def weight_tiles(self, step: Step, arg: BlockArgument) -> SSAValue:
        """The weight tiles ``arg`` a layer stores its output into: a batched buffer written
        by a collapsed region through a ``memref.collapse_shape`` of its batches."""
        return collapsed_batches(self.arg(arg), step.source, self.reshaped)

    def emit(self, steps: list[Step]) -> None:
        for step in steps:
            match step:
                case NewAcc(acc=acc):
                    alloc = memref.AllocOp.get(i32, shape=packed_acc_shape(acc.shape, self.cfg))
                    alloc.memref.name_hint = acc.name
                    self.buffers[acc] = alloc.memref
                    self.insert(step.source, alloc)
                case Fill(acc=acc):
                    self.insert(step.source, fill_op(self.zero_constant(), self.buffers[acc]))
                case Init(acc=acc, arg=arg, broadcast=broadcast):
                    source = self.arg(arg) if broadcast else self.shaped(step, arg, acc)
                    self.insert(step.source, init_op(source, self.buffers[acc],
                                                     broadcast=broadcast))
                case Contract(acc=acc, act=act, wgt=wgt, strides=None):
                    self.insert(step.source, contraction_op(self.arg(act), self.arg(wgt),
                                                            self.buffers[acc]))
                case PadData(data=data):
                    self.pad(data)
                case FreePadded(data=data):
                    self.insert(step.source, memref.DeallocOp.get(self.padded[data]))
                case Contract(acc=acc, act=act, wgt=wgt, strides=(sh, sw), padded=padded):
                    x = self.args[act] if padded is None else self.padded[padded]
                    self.insert(step.source, conv_op(x, self.args[wgt], self.buffers[acc],
                                                     (sh, sw), step.depthwise))
                case PoolStep(acc=acc, pool=pool, act=act, padded=padded):
                    x = self.args[act] if padded is None else self.padded[padded]
                    self.insert(step.source, *pool_ops(x, self.buffers[acc], pool.kind,
                                                       pool.window, pool.strides))
                case ResizeStep(acc=acc, resize=resize, act=act):
                    self.insert(step.source, resize_op(self.args[act], self.buffers[acc],
                                                       resize.factors))
                case AluStep(acc=acc, kind=kind, imm=imm, other=other):
                    second = None if other is None else self.buffers[other]
                    self.insert(step.source, alu_op(kind, self.buffers[acc], imm=imm,
                                                    other=second))
                case RunHost(step=host, body=body):
                    operands = (*host.inputs, *host.outputs)
                    name = host.op.step_name.data  # type: ignore[attr-defined]
                    op = HostOp(name, [self.args[a] for a in host.inputs],
                                [self.args[a] for a in host.outputs], body,
                                packings=[self.packings[a][0].attr() for a in operands])
                    copy_location(step.source, [op])
                    Rewriter.insert_op(op, InsertPoint.before(self.before))
                case Store(acc=acc, out=out, planes=planes) if planes > 1:
                    self.insert(step.source, *plane_store_ops(
                        self.buffers[acc], self.arg(out), planes, self.cfg, step.source))
                    self.layers.close(step.source)
                case Store(acc=acc, out=out, weight_layout=weight_layout):
                    if weight_layout:
                        op = store_op(self.buffers[acc], self.weight_tiles(step, out),
                                      weight_store_map(self.cfg))
                    else:
                        op = store_op(self.buffers[acc], self.shaped(step, out, acc))
                    self.insert(step.source, op)
                    self.layers.close(step.source)
                case BatchLoop(count=count):
                    loop, iv = batch_loop(count)
                    self.insert(step.source, loop)
                    self.batch = (iv, self.before, {})
                    self.before = loop.body.block.last_op  # type: ignore[assignment]
                case EndBatchLoop():
                    assert self.batch is not None
                    self.before = self.batch[1]
                    self.batch = None
                case _:
                    raise AssertionError(f"unknown step {step}")


@dataclass(frozen=True)
class PackPass(ModulePass):
    """Pack every function of the module for the module's VTA configuration."""

    name = "vta-pack"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cfg = get_config(op)
        constants = ConstantPool(op)
        for f in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            pack_function(f, cfg, constants)
        constants.erase_unused()
