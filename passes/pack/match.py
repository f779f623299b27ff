"""Recognition for ``vta-pack``: what a function computes, as expressions over its arguments.

:class:`FunctionRecognizer` walks the body of a stage-0 function (``docs/pipeline.md``) once, in
program order, and keeps for every buffer the value it holds as a small expression tree
(``passes/pack/expr.py``):

* :class:`Const` — a splat of an integer (``linalg.fill``, folded ``arith`` constants);
* :class:`Load` — the contents of a function argument, sign-extended when it is ``i8``,
  optionally broadcast over the rows (a per-column bias);
* :class:`Gemm` — ``init + act · wgt`` of two ``i8`` arguments, whatever their orientation;
* :class:`~.match_conv.Conv` — ``init + conv2d(act, wgt)`` of NCHW ``i8``
  data and an FCHW ``i8`` kernel, the data an argument or a zero-padded copy of one
  (recognized by ``passes/pack/match_conv.py``);
* :class:`Alu` — one VTA ALU operation (``add``, ``mul``, ``shr``, ``max``, ``min``); ``subi`` by
  a constant is already an ``add`` of its negation and ``shli`` a ``shr`` by a negative amount;
* :class:`Narrow` — an ``i8`` value: an ``i8`` argument before its ``arith.extsi``, or the
  ``arith.trunci`` of an ``i32`` expression.

This module recognizes buffers, fills, copies and bias broadcasts; matrix contractions are
:class:`~.match_matmul.MatmulMatcher`'s, element-wise ``linalg.generic`` ops
:class:`~.match_elementwise.ElementwiseMatcher`'s, convolutions and their zero-padded data
:class:`~.match_conv.ConvMatcher`'s.  Everything VTA cannot run is reported at the op
responsible (``report_error``).  The result is the list of :class:`Output` s, one per ``i8``
function argument the function writes, in the order of their writers; ``passes/pack/`` turns
each into one VTA region.

Contractions work on matrices (rank-2 buffers, per-column bias vectors) and convolutions, in a
function where one of the arguments or buffers has rank 4, on NCHW tensors (rank-4 buffers,
per-output-channel bias vectors ``(n, c, h, w) -> (c)``).  Element-wise ops take buffers of any
rank from 1 to :data:`ELEMENTWISE_RANK_MAX`, their output through the identity map and each
input through the identity or a *projection* (a broadcast operand: results the output's
dimensions in increasing order, or ``0`` for a unit dimension of the operand, e.g.
``(d0, d1, d2) -> (d2)`` or ``(d0, d1, d2) -> (0, d1, d2)``); ``passes/pack/`` decides which
projections a region can express.

Example: ``linalg.fill 0 → %acc; linalg.matmul (%x, %w) → %acc;
linalg.generic {trunci(minsi(maxsi(shrsi(%a, 8), 0), 127))} (%acc) → %y`` gives the output
``%y = Narrow(Alu(min, Alu(max, Alu(shr, Gemm(Const 0, %x, %w), 8), 0), 127), truncated)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    NoneAttr,
    TensorType,
)
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from vta_mlir.dialects.vta_host import HostOp
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.upstream_fixes.linalg_depthwise_conv import DepthwiseConv2DNchwChwOp
from vta_mlir.passes.analysis.alu_ops import ALU_KINDS, ARITH_ALU_OPS, COMMUTATIVE
from vta_mlir.passes.pack.expr import (
    HostStepBuffers,
    Load,
    Narrow,
    Output,
    Value,
    error_with_note,
    int_width,
    label,
    type_problem,
)
from vta_mlir.passes.pack.host_steps import check_host_operands
from vta_mlir.passes.pack.match_batch import BatchMatcher, is_batch_product
from vta_mlir.passes.pack.match_conv import ConvMatcher
from vta_mlir.passes.pack.match_depthwise import DepthwiseMatcher, is_depthwise
from vta_mlir.passes.pack.match_elementwise import IMM_MAX, IMM_MIN, ElementwiseMatcher
from vta_mlir.passes.pack.match_matmul import MatmulMatcher
from vta_mlir.passes.pack.match_pool import PoolMatcher
from vta_mlir.passes.pack.match_resize import ResizeMatcher
from vta_mlir.passes.pack.wide_outputs import record_wide_write, wide_value

__all__ = [
    "ALU_KINDS",
    "ARITH_ALU_OPS",
    "COMMUTATIVE",
    "ELEMENTWISE_RANK_MAX",
    "IMM_MAX",
    "IMM_MIN",
    "FunctionRecognizer",
]

#: The largest rank of an element-wise buffer: the host transform of an argument
#: (``vta_mlir.abi.ArgSpec``) has at most 8 axes, one of them the lanes a bias is repeated over.
ELEMENTWISE_RANK_MAX = 7


# --------------------------------------------------------------------------------------------
# The recognizer
# --------------------------------------------------------------------------------------------


@dataclass
class FunctionRecognizer:
    """Evaluates a function's body symbolically (module doc).  :meth:`run` returns the
    outputs; any unsupported construct stops it with a diagnostic at its op."""

    func: func.FuncOp
    #: Value of every allocated buffer; None while nothing has been written to it.
    state: dict[SSAValue, Value | None] = field(default_factory=dict)
    #: The op that stored into each i8 buffer (VTA stores every result once).
    stored_by: dict[SSAValue, Operation] = field(default_factory=dict)
    outputs: dict[BlockArgument, Output] = field(default_factory=dict)
    #: Rank of the function's buffers: 2 (matrices) or 4 (NCHW tensors, module doc).
    rank: int = 2
    #: The convolutions and zero-padded buffers of the function.
    conv: ConvMatcher = field(init=False)
    #: The pooling ops of the function (``passes/pack/match_pool.py``).
    pool: PoolMatcher = field(init=False)
    #: The element-wise ops of the function (``passes/pack/match_elementwise.py``).
    elementwise: ElementwiseMatcher = field(init=False)
    #: The depthwise convolutions of the function (``passes/pack/match_depthwise.py``).
    depthwise: DepthwiseMatcher = field(init=False)
    #: The nearest upsamplings of the function (``passes/pack/match_resize.py``).
    resize: ResizeMatcher = field(init=False)
    #: The batched products of the function (``passes/pack/match_batch.py``).
    batch: BatchMatcher = field(init=False)
    #: The matrix contractions of the function (``passes/pack/match_matmul.py``).
    matmul: MatmulMatcher = field(init=False)
    #: The stand-ins of the function's intermediate int8 buffers
    #: (``passes/pack/intermediates.py``), each to the stand-in of the buffer it views (itself,
    #: or the buffer a collapsed alias views).
    intermediates: dict[BlockArgument, BlockArgument] = field(default_factory=dict)
    #: The host steps (``vta.host``), each with the number of outputs found before it.
    host_steps: list[tuple[int, HostStepBuffers]] = field(default_factory=list)
    #: The buffers host steps write.
    host_written: set[BlockArgument] = field(default_factory=set)
    #: The stand-ins of channel slices of intermediates, which layers write.
    slices: set[BlockArgument] = field(default_factory=set[BlockArgument])
    #: The first op reading each i32 argument's initial contents.
    initial_reads: dict[BlockArgument, Operation] = field(
        default_factory=dict[BlockArgument, Operation])

    def __post_init__(self) -> None:
        self.conv = ConvMatcher(self)
        self.pool = PoolMatcher(self)
        self.elementwise = ElementwiseMatcher(self)
        self.depthwise = DepthwiseMatcher(self)
        self.resize = ResizeMatcher(self)
        self.batch = BatchMatcher(self)
        self.matmul = MatmulMatcher(self)

    @property
    def block(self) -> Block:
        return self.func.body.block

    def run(self) -> list[Output | HostStepBuffers]:
        values = [*self.block.args,
                  *(op.memref for op in self.block.ops
                    if isinstance(op, memref.AllocOp | memref.AllocaOp))]
        if any(isinstance(v.type, MemRefType) and v.type.get_num_dims() == 4 for v in values):
            self.rank = 4
        self.conv.find_padding(self.block)
        self.pool.find_pools(self.block)
        for op in list(self.block.ops):
            self.visit(op)
        found: list[Output | HostStepBuffers] = list(self.outputs.values())
        for position, step in reversed(self.host_steps):
            found.insert(position, step)
        return found

    # ---- ops of the function body ---------------------------------------------------------
    def visit(self, op: Operation) -> None:
        if self.conv.visit(op) or self.pool.visit(op) or self.resize.visit(op):
            return
        match op:
            case func.ReturnOp():
                if op.operands:
                    report_error(op, "returns values: VTA functions write their results into "
                                     "memref arguments")
            case memref.AllocOp() | memref.AllocaOp():
                if op.dynamic_sizes:
                    report_error(op, f"allocates {op.memref.type}, which has a dynamic shape: "
                                     "VTA buffers have static shapes")
                self.check_buffer(op, op.memref, any_rank=True)
                self.state[op.memref] = None
            case arith.ConstantOp():
                self.constant(op)
            case memref.CopyOp():
                self.copy(op, op.source, op.destination)
            case linalg.BroadcastOp():
                self.broadcast_op(op)
            case HostOp():
                self.host_step(op)
            case linalg_abstract.LinalgStructuredOperation():
                self.structured(op)
            case _:
                self.unsupported(op)

    def host_step(self, op: HostOp) -> None:
        """A step the host computes (``passes/pack/host_steps.py``): it reads buffers written
        before it and writes each of its outputs once."""
        step = check_host_operands(op, set(self.block.args))
        for arg in step.inputs:
            self.read(op, arg)
        for arg in step.outputs:
            self.check_single_writer(op, arg)
            self.stored_by[arg] = op
            self.host_written.add(self.intermediates.get(arg, arg))
        self.host_steps.append((len(self.outputs), step))

    def unsupported(self, op: Operation) -> NoReturn:
        if op.regions:
            report_error(op, "is not supported by vta-pack: loops and other region ops cannot "
                             "be packed; express the computation with linalg ops on memrefs")
        report_error(op, "is not supported by vta-pack: VTA runs int8 matrix contractions, "
                         "fills, copies and element-wise linalg.generic ops on memrefs")

    def constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        if isinstance(value, IntegerAttr):
            return
        what = getattr(value, "type", value)
        if isinstance(what, TensorType):
            report_error(op, "is a tensor constant: vta-pack works on memrefs; pass constant "
                             "tensors (a bias, weights) as function arguments")
        report_error(op, f"defines a constant of type {what}: VTA computes on integers "
                         "(i8 operands, i32 accumulators)")

    # ---- buffers --------------------------------------------------------------------------
    def check_buffer(self, op: Operation, value: SSAValue, *, vector: bool = False,
                     any_rank: bool = False) -> MemRefType:
        """``value`` is a static memref of i8 or i32 of the function's rank (2, or 4 for NCHW
        tensors; rank 1 too when ``vector``), or of any rank from 1 to
        :data:`ELEMENTWISE_RANK_MAX` when ``any_rank`` (the operands of element-wise ops and
        copies)."""
        t = value.type
        if value in self.conv.views:
            self.conv.padded_view_error(op, value)
        if isinstance(t, TensorType):
            report_error(op, f"operates on tensors ({t}): vta-pack works on memrefs; "
                             "bufferize the program first")
        if not isinstance(t, MemRefType):
            report_error(op, f"operand {label(value)} of type {t} is not a memref")
        if any(d < 0 for d in t.get_shape()):
            report_error(op, f"{label(value)} ({t}) has a dynamic shape: VTA buffers have "
                             "static shapes")
        if 0 in t.get_shape():
            report_error(op, f"{label(value)} ({t}) has no elements: VTA computes on buffers "
                             "of at least one element")
        if not isinstance(t.layout, NoneAttr):
            report_error(op, f"{label(value)} ({t}) has a non-contiguous layout: vta-pack "
                             "packs contiguous buffers")
        if not isinstance(t.memory_space, NoneAttr):
            report_error(op, f"{label(value)} ({t}) is already in memory space "
                             f"{t.memory_space}: vta-pack expects unpacked DRAM buffers")
        problem = type_problem(t.element_type)
        if problem is not None:
            report_error(op, f"{label(value)}: {problem}")
        rank = t.get_num_dims()
        if any_rank and not 1 <= rank <= ELEMENTWISE_RANK_MAX:
            report_error(op, f"{label(value)} ({t}) has rank {rank}: VTA's element-wise ops take "
                             f"buffers of rank 1 to {ELEMENTWISE_RANK_MAX}")
        if not (any_rank or rank == self.rank or (vector and rank == 1)):
            if self.rank == 4:
                report_error(op, f"{label(value)} ({t}) has rank {rank}: a convolution works on "
                                 "rank-4 NCHW tensors")
            report_error(op, f"{label(value)} ({t}) has rank {rank}: VTA's contractions "
                             "operate on 2-D matrices (rows × columns); only element-wise ops "
                             "take other ranks")
        return t

    def is_argument(self, value: SSAValue) -> bool:
        return isinstance(value, BlockArgument) and value.block is self.block

    def read(self, op: Operation, value: SSAValue) -> Value:
        """What ``value`` holds when ``op`` reads it."""
        if isinstance(value, BlockArgument) and self.is_argument(value):
            buffer = self.intermediates.get(value)
            # A concatenation is written through its channel slices (passes/pack/concat.py).
            if buffer is not None and buffer not in self.outputs \
                    and buffer not in self.host_written and not any(
                        self.intermediates.get(out) is buffer for out in self.outputs):
                report_error(op, f"reads {label(value)} before anything was written to it: "
                                 "an intermediate buffer is read by the layers after the one "
                                 "writing it")
            if int_width(value.type.element_type) == 8:  # type: ignore[attr-defined]
                # An int8 result written earlier is read back from device DRAM, in the
                # packed layout its layer stored it in.
                return Narrow(Load(op, value), False, op)
            written = wide_value(self, value)
            if written is not None:
                return written
            self.initial_reads.setdefault(value, op)
            return Load(op, value)
        if value in self.conv.padding:
            self.conv.padded_read_error(op, value)
        held = self.state.get(value)
        if held is None:
            report_error(op, f"reads {label(value)} before anything was written to it")
        return held

    def write(self, op: Operation, dst: SSAValue, value: Value) -> None:
        width = int_width(dst.type.element_type)  # type: ignore[attr-defined]
        if dst in self.conv.padding:
            self.conv.pad_fill(op, self.conv.padding[dst], value)
        if self.is_argument(dst):
            assert isinstance(dst, BlockArgument)
            if width != 8:
                return record_wide_write(self, op, dst, value)
            buffer = self.intermediates.get(dst)
            if buffer is not None and buffer is not dst and dst not in self.slices:
                report_error(op, f"writes {label(dst)}, a collapsed view of an intermediate "
                                 "buffer: a layer writes the buffer itself")
            self.check_single_writer(op, dst)
            assert isinstance(value, Narrow)
            self.outputs[dst] = Output(dst, value, op)
        else:
            if width == 8:
                self.check_single_writer(op, dst)
            self.state[dst] = value
        if width == 8:
            self.stored_by[dst] = op

    def check_single_writer(self, op: Operation, dst: SSAValue) -> None:
        first = self.stored_by.get(dst)
        if first is not None:
            error_with_note(
                op, f"writes {label(dst)} a second time: VTA stores every int8 result "
                    "once, so an output has a single writer", first, "first written here")

    def argument_of(self, op: Operation, value: SSAValue, what: str) -> BlockArgument:
        """The i8 function argument a contraction operand holds."""
        held = self.read(op, value)
        if isinstance(held, Narrow) and held.truncated:
            error_with_note(
                op, f"reads {label(value)} back as the {what} of a contraction: VTA does not "
                    "load its int8 results again", self.stored_by[value], "written here")
        if (isinstance(held, Narrow) and isinstance(held.value, Load)
                and not held.value.broadcast):
            return held.value.arg
        report_error(op, f"the {what} {label(value)} is not a function argument: VTA reads "
                         "contraction operands from int8 arguments")

    # ---- copies ---------------------------------------------------------------------------
    def copy(self, op: Operation, src: SSAValue, dst: SSAValue) -> None:
        ts = self.check_buffer(op, src, any_rank=True)
        td = self.check_buffer(op, dst, any_rank=True)
        if ts != td:
            report_error(op, f"copies {ts} into {td}: vta-pack copies whole buffers of one type")
        self.write(op, dst, self.read(op, src))

    def broadcast_op(self, op: linalg.BroadcastOp) -> None:
        if op.result:
            report_error(op, "operates on tensors: vta-pack works on memrefs; bufferize the "
                             "program first")
        src, dst = op.input, op.init
        ts = self.check_buffer(op, src, any_rank=True)
        td = self.check_buffer(op, dst, any_rank=True)
        # The added dimensions (the rows of a matrix; N, H and W of an NCHW tensor) are
        # repeated; the source varies along the others.
        added = set(op.dimensions.get_values())
        kept = tuple(d for d in range(td.get_num_dims()) if d not in added)
        if tuple(ts.get_shape()) != tuple(td.get_shape()[d] for d in kept):
            report_error(op, f"broadcasts {ts} into {td}: the shapes do not match along the "
                             "dimensions it keeps")
        self.write(op, dst, self.broadcast_of(op, src, kept))

    def broadcast_of(self, op: Operation, value: SSAValue,
                     axes: tuple[int | None, ...]) -> Value:
        """A function argument read as a bias whose axes are the result dimensions ``axes``
        (``None``: a unit axis; a per-column bias: ``(1,)``), repeated over the others."""
        if not self.is_argument(value):
            report_error(op, f"broadcasts {label(value)}, a computed buffer: VTA loads a "
                             "broadcast bias only from a function argument")
        held = self.read(op, value)
        if isinstance(held, Narrow):
            assert isinstance(held.value, Load)
            return Narrow(Load(op, held.value.arg, True, axes), False, op)
        assert isinstance(held, Load)
        return Load(op, held.arg, True, axes)

    # ---- linalg ---------------------------------------------------------------------------
    def structured(self, op: linalg_abstract.LinalgStructuredOperation) -> None:
        if op.res or any(isinstance(v.type, TensorType) for v in op.operands):
            report_error(op, "operates on tensors: vta-pack works on memrefs; bufferize the "
                             "program first")
        if op.name.startswith("linalg.conv_2d_ng"):
            report_error(op, "is a grouped convolution: VTA runs dense convolutions (one "
                             "group) and depthwise ones (one group per channel, "
                             "linalg.depthwise_conv_2d_nchw_chw); split it into one "
                             "linalg.conv_2d_nchw_fchw per group")
        if op.name.startswith(("linalg.conv", "linalg.depthwise", "linalg.pooling")) \
                and not isinstance(op, linalg.Conv2DNchwFchwOp | DepthwiseConv2DNchwChwOp):
            report_error(op, "is not supported by vta-pack: convolutions are packed in the "
                             "NCHW × FCHW form (linalg.conv_2d_nchw_fchw or the equivalent "
                             "linalg.generic), depthwise ones in the NCHW × CHW form "
                             "(linalg.depthwise_conv_2d_nchw_chw or the equivalent "
                             "linalg.generic)")
        if len(op.outputs) != 1:
            report_error(op, f"has {len(op.outputs)} outputs: a VTA op writes one buffer")
        iterators = [it.data for it in op.get_iterator_types()]
        # Reductions (contractions, convolutions) take buffers of the function's rank.
        reduces = IteratorType.REDUCTION in iterators
        function_rank = self.rank
        out_type = op.outputs[0].type
        if reduces and isinstance(out_type, MemRefType) and out_type.get_num_dims() in (2, 4):
            # A network mixes convolutions (NCHW tensors) and fully connected layers
            # (matrices): the output of each reduction says which one it is.
            self.rank = out_type.get_num_dims()
        try:
            self.reduction_or_elementwise(op, iterators, reduces)
        finally:
            self.rank = function_rank

    def reduction_or_elementwise(self, op: linalg_abstract.LinalgStructuredOperation,
                                 iterators: Sequence[IteratorType], reduces: bool) -> None:
        out_type = op.outputs[0].type
        if reduces and isinstance(out_type, MemRefType) \
                and is_batch_product(iterators, out_type.get_num_dims()):
            return self.batch.contraction(op, [m.data for m in op.get_indexing_maps()], iterators)
        # A depthwise convolution's kernel has rank 3 (C × KH × KW): its matcher checks ranks.
        any_rank = not reduces or (self.rank == 4 and is_depthwise(iterators))
        for value in op.operands:
            if isinstance(value.type, MemRefType):
                self.check_buffer(op, value, vector=True, any_rank=any_rank)
        maps = [m.data for m in op.get_indexing_maps()]
        if any(m.num_symbols for m in maps):
            report_error(op, "has indexing maps with symbols: vta-pack needs static maps")
        if IteratorType.REDUCTION in iterators and self.rank == 4 and is_depthwise(iterators):
            self.depthwise.convolution(op, maps, iterators)
        elif IteratorType.REDUCTION in iterators and self.rank == 4:
            self.conv.convolution(op, maps, iterators)
        elif IteratorType.REDUCTION in iterators:
            self.matmul.contraction(op, maps, iterators)
        elif all(it == IteratorType.PARALLEL for it in iterators):
            self.elementwise.recognize(op, maps)
        else:
            report_error(op, "has window iterators: only contractions and element-wise ops "
                             "are packed")
