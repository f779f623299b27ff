"""``vta-pack``: rewrite what VTA can run onto its packed layouts (stage 0 → stage 1 of
``docs/pipeline.md``).

Recognized (``passes/pack/match.py``): int8 contractions into int32 (``linalg.matmul`` with
K×N weights, ``linalg.generic`` ``acc + extsi(a) · extsi(b)`` in any operand orientation,
including VTA's native N×K weights), ``linalg.fill`` of the accumulator, copies, element-wise
``linalg.generic`` chains on i32 (``addi``, ``subi`` of a constant, ``muli``, ``shrsi``, ``shli``,
``maxsi``, ``minsi``, ``extsi`` of i8 operands, a final ``trunci``) and per-column bias broadcasts
(an indexing map ``(d0, d1) -> (d1)`` or ``linalg.broadcast``), on any shape: dimensions that are
not whole blocks are zero-padded by the host and cropped on the way out.

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
NCHW tensors gives the same region in the ``tensor`` layout (``passes/pack/patterns.py``): data
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
the region's ops.  A residual (an i8 tensor shaped like the output, ``addi(v, extsi(r))`` in
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

The block sizes come from the module's configuration (``vta.config``).  A function whose
arguments already carry ``vta.arg`` is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, MemRefType, ModuleOp, i32
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.ir.diagnostics import report_error, verify_op
from vta_mlir.ir.locations import RegionLayers, copy_location
from vta_mlir.isa import AluKind
from vta_mlir.passes.pack.constants import ConstantPool, stand_in_constants
from vta_mlir.passes.pack.expr import (
    Alu,
    Const,
    Expr,
    Gemm,
    Load,
    Narrow,
    Output,
    error_with_note,
    label,
)
from vta_mlir.passes.pack.flatten import MatrixView
from vta_mlir.passes.pack.fold_window import folded_packings
from vta_mlir.passes.pack.match import COMMUTATIVE, IMM_MAX, IMM_MIN, FunctionRecognizer
from vta_mlir.passes.pack.match_conv import Conv, Padding
from vta_mlir.passes.pack.patterns import (
    ARG_ATTR_NAME,
    ROLE_NAMES,
    Packing,
    Role,
    alu_op,
    contraction_op,
    conv_op,
    fill_op,
    init_op,
    packed_acc_shape,
    packing_for,
    padded_copy_ops,
    store_op,
)

__all__ = ["PackPass", "pack_function"]


# --------------------------------------------------------------------------------------------
# Region plans: the ops of the normal form, before the signature changes
# --------------------------------------------------------------------------------------------


@dataclass(eq=False)
class AccBuffer:
    """A packed i32 accumulator of a ``rows × cols`` or ``N × O × H × W`` result."""

    shape: tuple[int, ...]
    name: str

    @property
    def cols(self) -> int:
        """The columns of a matrix, the channels of a tensor: what a bias runs along."""
        return self.shape[1]


@dataclass
class Step:
    """One op of a region; ``source`` gives it its location."""

    source: Operation


@dataclass
class NewAcc(Step):
    acc: AccBuffer


@dataclass
class Fill(Step):
    acc: AccBuffer


@dataclass
class Init(Step):
    acc: AccBuffer
    arg: BlockArgument
    broadcast: bool


@dataclass(eq=False)
class PaddedData:
    """A zero-padded copy of the packed convolution data ``arg``: ``pads`` rows and columns
    (top, bottom, left, right) around it; ``source`` the stage-0 idiom it comes from."""

    arg: BlockArgument
    source: Padding

    @property
    def pads(self) -> tuple[int, int, int, int]:
        return self.source.pads


@dataclass
class PadData(Step):
    """Allocate the padded buffer, fill it with 0, copy the argument into its interior."""

    data: PaddedData


@dataclass
class FreePadded(Step):
    data: PaddedData


@dataclass
class Contract(Step):
    acc: AccBuffer
    act: BlockArgument
    wgt: BlockArgument
    #: The strides of a convolution; None for a matrix contraction.
    strides: tuple[int, int] | None = None
    #: The zero-padded copy of ``act`` a convolution reads instead of ``act``.
    padded: PaddedData | None = None


@dataclass
class AluStep(Step):
    acc: AccBuffer
    kind: AluKind
    imm: int | None = None
    other: AccBuffer | None = None


@dataclass
class Store(Step):
    acc: AccBuffer
    out: BlockArgument


def _subexpressions(e: Expr | Narrow) -> list[Expr]:
    """``e`` and every expression under it."""
    if isinstance(e, Narrow):
        return _subexpressions(e.value)
    found: list[Expr] = [e]
    if isinstance(e, Alu):
        found += _subexpressions(e.lhs) + _subexpressions(e.rhs)
    elif isinstance(e, Gemm):
        found += _subexpressions(e.init)
    return found


def _imm_chain(e: Expr) -> list[Expr]:
    """``e``, the tensor operand of ``e`` when ``e`` is an ALU op with an immediate, and so on:
    the last one is the value the chain of immediate ops starts from."""
    chain = [e]
    while isinstance(e, Alu) and (isinstance(e.lhs, Const) or isinstance(e.rhs, Const)):
        e = e.lhs if isinstance(e.rhs, Const) else e.rhs
        chain.append(e)
    return chain


def _immediate(a: Expr) -> int:
    assert isinstance(a, Alu)
    imm = a.rhs if isinstance(a.rhs, Const) else a.lhs
    assert isinstance(imm, Const)
    return imm.value


@dataclass
class Planner:
    """Turns the outputs of a function into the steps of its VTA regions and the packing of
    every argument they use."""

    cfg: VTAConfig
    outputs: list[Output]
    steps: list[Step] = field(default_factory=list[Step])
    packings: dict[BlockArgument, tuple[Packing, Role, Operation]] = field(
        default_factory=dict[BlockArgument, tuple[Packing, Role, Operation]])
    _current: Output | None = None
    _loaded: dict[tuple[BlockArgument, bool], AccBuffer] = field(
        default_factory=dict[tuple[BlockArgument, bool], AccBuffer])
    #: The logical shape of the current region's result, and its matrix view when the region
    #: is flattened (``passes/pack/flatten.py``).
    _shape: tuple[int, ...] = ()
    _view: MatrixView | None = None

    def plan(self) -> None:
        for out in self.outputs:
            self._current = out
            self._loaded = {}
            shape = tuple(out.arg.type.get_shape())  # type: ignore[attr-defined]
            self._shape = shape
            self._view = self.choose_view(out, shape)
            acc = AccBuffer(shape if self._view is None else self._view.matrix, "acc")
            start = len(self.steps)
            self.steps.append(NewAcc(out.writer, acc))
            self.plan_into(acc, out.value.value)
            self.use(out.arg, self.whole_role(acc), out.writer, self.view_packing(out.arg))
            self.steps.append(Store(out.writer, acc, out.arg))
            self.place_deallocs(start)

    def place_deallocs(self, start: int) -> None:
        """Free the padded buffers of the region starting at step ``start`` where the function
        freed them: after the last step whose op comes before the ``memref.dealloc``."""
        region = self.steps[start:]
        for step in region:
            if not isinstance(step, Contract) or step.padded is None:
                continue
            dealloc = step.padded.source.dealloc
            if dealloc is None:
                continue
            block = dealloc.parent_block()
            assert block is not None
            at = 0
            for i, other in enumerate(region):
                ancestor = block.find_ancestor_op_in_block(other.source)
                if ancestor is not None and ancestor.is_before_in_block(dealloc):
                    at = i + 1
            region.insert(at, FreePadded(dealloc, step.padded))
        self.steps[start:] = region

    def choose_view(self, out: Output, shape: tuple[int, ...]) -> MatrixView | None:
        """The matrix view of an element-wise region that is not a 2-D program with per-column
        biases at most; None for a region with a contraction (and for those 2-D programs),
        which keeps the layouts of its contraction."""
        parts = _subexpressions(out.value)
        if any(isinstance(e, Gemm) for e in parts):
            return None
        biases = [e for e in parts if isinstance(e, Load) and e.broadcast]
        if len(shape) == 2 and all(b.kept == (1,) for b in biases):
            return None
        for b in biases:
            if not b.kept:
                report_error(b.op, f"broadcasts {label(b.arg)} as a single value: VTA's ALU "
                                   "takes a scalar as an immediate, an arith.constant")
            if b.kept != biases[0].kept:
                error_with_note(b.op, f"broadcasts {label(b.arg)} along the dimensions "
                                      f"{list(b.kept)} of the result and {label(biases[0].arg)} "
                                      f"along {list(biases[0].kept)}: the broadcast operands "
                                      "of a VTA region vary along the same dimensions",
                                biases[0].op, "the other broadcast")
        return MatrixView.choose(shape, biases[0].kept if biases else (), self.cfg)

    # ---- arguments ------------------------------------------------------------------------
    @staticmethod
    def whole_role(acc: AccBuffer) -> Role:
        """The role of an argument read or written element for element with ``acc``."""
        return Role.MATRIX if len(acc.shape) == 2 else Role.TENSOR

    @staticmethod
    def bias_role(acc: AccBuffer) -> Role:
        return Role.BIAS if len(acc.shape) == 2 else Role.CHANNEL_BIAS

    def view_packing(self, arg: BlockArgument, load: Load | None = None) -> Packing | None:
        """The packing of ``arg`` (read by ``load``) in the flattened region being planned;
        None outside one."""
        if self._view is None:
            return None
        t = arg.type
        assert isinstance(t, MemRefType)
        dtype = f"int{t.element_type.width.data}"  # type: ignore[attr-defined]
        if load is not None and load.broadcast:
            return self._view.bias_packing(t.get_shape(), load.axes, dtype)
        return self._view.packing(dtype)

    def use(self, arg: BlockArgument, role: Role, op: Operation,
            packing: Packing | None = None) -> None:
        """``op`` uses ``arg`` in ``role`` (with ``packing``, else the role's packing); an
        argument has a single packed layout."""
        assert self._current is not None
        if arg is not self._current.arg and any(o.arg is arg for o in self.outputs):
            writer = next(o.writer for o in self.outputs if o.arg is arg)
            error_with_note(op, f"reads {label(arg)}, which another op of the function "
                                 "writes: VTA regions run one after the other, so an output "
                                 "may be read only by the op computing it", writer,
                             f"{label(arg)} is written here")
        t = arg.type
        assert isinstance(t, MemRefType)
        dtype = f"int{t.element_type.width.data}"  # type: ignore[attr-defined]
        if packing is None:
            packing = packing_for(role, t.get_shape(), dtype, self.cfg)
        known = self.packings.get(arg)
        if known is None:
            self.packings[arg] = (packing, role, op)
        elif not known[0].same_layout(packing):
            error_with_note(op, f"uses {label(arg)} as {ROLE_NAMES[role]}, which is packed "
                                 f"differently from {ROLE_NAMES[known[1]]}: an argument has "
                                 "one packed layout", known[2], "first used here")

    def check_shape(self, load: Load, acc: AccBuffer) -> None:
        shape = tuple(load.arg.type.get_shape())  # type: ignore[attr-defined]
        if self._view is not None and load.broadcast:
            return  # the recognizer matched its axes with the result's
        if load.broadcast and load.kept != (1,):
            if len(acc.shape) == 2:
                report_error(load.op, f"broadcasts {label(load.arg)} along the columns (a "
                                      "per-row operand): VTA adds per-column biases only, "
                                      "broadcast over the rows")
            report_error(load.op, f"broadcasts {label(load.arg)} along the result dimensions "
                                  f"{list(load.kept)}: a convolution's epilogue adds "
                                  "per-channel biases only (n, c, h, w) -> (c)")
        result = self._shape if self._view is not None else acc.shape
        expected = [(acc.cols,), (1, acc.cols)] if load.broadcast else [result]
        if shape not in expected:
            report_error(load.op, f"reads {label(load.arg)} ({load.arg.type}) into a "
                                  f"{'×'.join(map(str, result))} result")

    # ---- expressions ----------------------------------------------------------------------
    def plan_into(self, acc: AccBuffer, e: Expr) -> None:
        """Steps leaving the value of ``e`` in ``acc``."""
        if isinstance(e, Const):
            self.steps.append(Fill(e.op, acc))
            if e.value:
                self.imm(acc, AluKind.ADD, e.value, e.op)
        elif isinstance(e, Load):
            self.init(acc, e)
        elif isinstance(e, Gemm):
            self.gemm(acc, e, e.init)
        else:
            assert isinstance(e, Alu)
            self.alu(acc, e)

    def init(self, acc: AccBuffer, load: Load) -> None:
        self.check_shape(load, acc)
        role = self.bias_role(acc) if load.broadcast else self.whole_role(acc)
        self.use(load.arg, role, load.op, self.view_packing(load.arg, load))
        self.steps.append(Init(load.op, acc, load.arg, load.broadcast))

    def gemm(self, acc: AccBuffer, g: Gemm, init: Expr) -> None:
        """``acc = init + act · wgt``: VTA's accumulator starts from 0 or from a load."""
        if isinstance(init, Const):
            self.steps.append(Fill(init.op, acc))
        elif isinstance(init, Load):
            self.init(acc, init)
        else:
            error_with_note(g.op, "accumulates onto a computed value: a VTA contraction "
                                   "starts from 0, a copy of a function argument or a "
                                   "broadcast bias", init.op, "the value is computed here")
        folded = folded_packings(g, self.cfg) if isinstance(g, Conv) else None
        if isinstance(g, Conv) and folded is not None:
            # A 1×1 convolution of the data's patches (passes/pack/fold_window.py): the host
            # applies the window, so the zero-padded buffer is not needed.
            self.use(g.act, Role.DATA, g.op, folded[0])
            self.use(g.wgt, Role.KERNEL, g.op, folded[1])
            self.steps.append(Contract(g.op, acc, g.act, g.wgt, (1, 1)))
        elif isinstance(g, Conv):
            self.use(g.act, Role.DATA, g.op)
            self.use(g.wgt, Role.KERNEL, g.op)
            padded = None
            if g.padding is not None:
                padded = PaddedData(g.act, g.padding)
                self.steps.append(PadData(g.padding.alloc, padded))
            self.steps.append(Contract(g.op, acc, g.act, g.wgt, g.strides, padded))
        else:
            self.use(g.act, Role.ACT_T if g.act_transposed else Role.ACT, g.op)
            self.use(g.wgt, Role.WEIGHT_T if g.wgt_transposed else Role.WEIGHT, g.op)
            self.steps.append(Contract(g.op, acc, g.act, g.wgt))
        if isinstance(init, Const) and init.value:
            self.imm(acc, AluKind.ADD, init.value, init.op)

    def alu(self, acc: AccBuffer, a: Alu) -> None:
        lhs, rhs = a.lhs, a.rhs
        if a.kind == AluKind.ADD:
            # `gemm + bias`: the bias becomes the accumulator's initial value.
            for g, other in ((lhs, rhs), (rhs, lhs)):
                if isinstance(g, Gemm) and isinstance(g.init, Const) \
                        and isinstance(other, Load):
                    self.gemm(acc, g, other)
                    if g.init.value:
                        self.imm(acc, AluKind.ADD, g.init.value, g.init.op)
                    return
        if isinstance(rhs, Const) or isinstance(lhs, Const):
            # Only commutative ops can have the constant first (shifts and subtractions
            # were checked when they were recognized).
            tensor, imm = (lhs, rhs) if isinstance(rhs, Const) else (rhs, lhs)
            assert isinstance(imm, Const)
            self.plan_into(acc, tensor)
            self.imm(acc, a.kind, imm.value, a.op)
            return
        if rhs is lhs:
            self.plan_into(acc, lhs)
            self.steps.append(AluStep(a.op, acc, a.kind, other=acc))
            return
        if isinstance(rhs, Load):
            first, second = lhs, rhs
        elif isinstance(lhs, Load) and a.kind in COMMUTATIVE:
            first, second = rhs, lhs
        else:
            self.combine(acc, a)
            return
        self.plan_into(acc, first)
        self.steps.append(AluStep(a.op, acc, a.kind, other=self.loaded(second, acc)))

    def combine(self, acc: AccBuffer, a: Alu) -> None:
        """``a`` of two computed tensors, each a chain of immediate ALU ops: on one value both
        start from (``max(x, x >> k)``: a leaky ReLU), or the second on a function argument.
        The second is computed in its own accumulator buffer: a copy of the first's starting
        value (VTA has no copy between accumulators: a reset to 0 and an add), or a fresh load
        of the argument."""
        # Every tensor-tensor ALU op is commutative (shifts and subtractions take immediates).
        assert a.kind in COMMUTATIVE
        lchain, rchain = _imm_chain(a.lhs), _imm_chain(a.rhs)
        shared = next((e for e in lchain if any(e is r for r in rchain)), None)
        if shared is None and not isinstance(rchain[-1], Load):
            lchain, rchain = rchain, lchain
        if shared is None and not isinstance(rchain[-1], Load):
            report_error(a.op, "combines two computed tensors: VTA's ALU takes its second "
                               "tensor operand from an accumulator buffer, loaded from a "
                               "function argument or copied from the value both operands are "
                               "computed from by immediate ALU ops")
        other = AccBuffer(acc.shape, "acc_copy" if shared is not None else
                          f"{rchain[-1].arg.name_hint or 'arg'}_acc")  # type: ignore[attr-defined]
        if shared is not None:
            lchain = lchain[:next(k for k, e in enumerate(lchain) if e is shared)]
            rchain = rchain[:next(k for k, e in enumerate(rchain) if e is shared)]
            self.plan_into(acc, shared)
            self.steps += [NewAcc(a.op, other), Fill(a.op, other),
                           AluStep(a.op, other, AluKind.ADD, other=acc)]
        else:
            load = rchain.pop()
            assert isinstance(load, Load)
            self.plan_into(acc, lchain.pop())
            self.steps.append(NewAcc(load.op, other))
            self.init(other, load)
        for e in reversed(rchain):
            assert isinstance(e, Alu)
            self.imm(other, e.kind, _immediate(e), e.op)
        for e in reversed(lchain):
            assert isinstance(e, Alu)
            self.imm(acc, e.kind, _immediate(e), e.op)
        self.steps.append(AluStep(a.op, acc, a.kind, other=other))

    def loaded(self, load: Load, like: AccBuffer) -> AccBuffer:
        """A second accumulator holding ``load`` (one per argument and region)."""
        key = (load.arg, load.broadcast)
        if key not in self._loaded:
            buf = AccBuffer(like.shape, f"{load.arg.name_hint or 'arg'}_acc")
            self.steps.append(NewAcc(load.op, buf))
            self.init(buf, load)
            self._loaded[key] = buf
        return self._loaded[key]

    def imm(self, acc: AccBuffer, kind: AluKind, value: int, op: Operation) -> None:
        if not IMM_MIN <= value <= IMM_MAX:
            report_error(op, f"needs the immediate {value}, which does not fit VTA's signed "
                             f"16-bit ALU immediate ({IMM_MIN}…{IMM_MAX})")
        self.steps.append(AluStep(op, acc, kind, imm=value))


# --------------------------------------------------------------------------------------------
# Rewriting
# --------------------------------------------------------------------------------------------


def _already_packed(f: func.FuncOp) -> bool:
    attrs = f.arg_attrs.data if f.arg_attrs is not None else ()
    return any(ARG_ATTR_NAME in a.data for a in attrs)


def pack_function(f: func.FuncOp, cfg: VTAConfig, constants: ConstantPool | None = None) -> None:
    """Rewrite ``f`` into the normal form (module doc); errors are reported at their op.
    ``constants`` holds the module's packed constants (``passes/pack/constants.py``); by
    default those of the module around ``f``."""
    if f.is_declaration or _already_packed(f):
        return
    block = f.body.block
    real_args = len(block.args)
    if constants is None and any(isinstance(op, memref.GetGlobalOp) for op in block.ops):
        module = f.get_toplevel_object()
        if not isinstance(module, ModuleOp):
            report_error(f, "reads globals but is not inside a module")
        constants = ConstantPool(module)
    stand_ins = {} if constants is None else stand_in_constants(f, constants.symbols)
    planner = Planner(cfg, FunctionRecognizer(f).run())
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
    for old, (packing, _, _) in planner.packings.items():
        if old in stand_ins:
            # A constant: its packed image is a global of the module, read at the start.
            assert constants is not None
            args[old] = constants.read_packed(stand_ins[old], packing, ret)
            continue
        args[old] = Rewriter.replace_value_with_new_type(old, packing.memref_type())
        attrs = dict(arg_attrs[old.index].data)  # type: ignore[attr-defined]
        attrs[ARG_ATTR_NAME] = packing.attr()
        arg_attrs[old.index] = DictionaryAttr(attrs)
    for stand_in in reversed(block.args[real_args:]):
        block.erase_arg(stand_in)
    f.arg_attrs = ArrayAttr(arg_attrs)  # type: ignore[arg-type]
    f.update_function_type()

    _Emitter(cfg, args, ret).emit(planner.steps)
    verify_op(f)


@dataclass
class _Emitter:
    """Materializes the planned steps before ``before`` (the function's return)."""

    cfg: VTAConfig
    args: dict[BlockArgument, SSAValue]
    before: Operation
    buffers: dict[AccBuffer, SSAValue] = field(default_factory=dict[AccBuffer, SSAValue])
    padded: dict[PaddedData, SSAValue] = field(default_factory=dict[PaddedData, SSAValue])
    zeros: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])
    #: Locates every op of a region as its layer (``NameLoc``, vta_mlir/ir/locations.py).
    layers: RegionLayers = field(default_factory=RegionLayers)

    def insert(self, source: Operation, *ops: Operation) -> None:
        copy_location(source, ops)
        self.layers.add(source, ops)
        Rewriter.insert_op(list(ops), InsertPoint.before(self.before))

    def zero_constant(self, width: int = 32) -> SSAValue:
        """The function's ``arith.constant 0`` of ``i<width>`` (``%c0``, ``%c0_i8``)."""
        if width not in self.zeros:
            const = arith.ConstantOp.from_int_and_width(0, width)
            const.result.name_hint = "c0" if width == 32 else f"c0_i{width}"
            block = self.before.parent_block()
            assert block is not None
            Rewriter.insert_op(const, InsertPoint.at_start(block))
            self.zeros[width] = const.result
        return self.zeros[width]

    def pad(self, data: PaddedData) -> None:
        """The padded buffer of ``data``: alloc, fill 0, subview, copy (module doc)."""
        src = data.source
        ops = padded_copy_ops(self.args[data.arg], data.pads, self.zero_constant(8))
        ops[0].results[0].name_hint = src.buffer.name_hint
        assert src.view is not None and src.fill is not None and src.copy is not None
        ops[2].results[0].name_hint = src.view.result.name_hint
        for op, origin in zip(ops, (src.alloc, src.fill, src.view, src.copy), strict=True):
            self.insert(origin, op)
        self.padded[data] = ops[0].results[0]

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
                    self.insert(step.source, init_op(self.args[arg], self.buffers[acc],
                                                     broadcast=broadcast))
                case Contract(acc=acc, act=act, wgt=wgt, strides=None):
                    self.insert(step.source, contraction_op(self.args[act], self.args[wgt],
                                                            self.buffers[acc]))
                case PadData(data=data):
                    self.pad(data)
                case FreePadded(data=data):
                    self.insert(step.source, memref.DeallocOp.get(self.padded[data]))
                case Contract(acc=acc, act=act, wgt=wgt, strides=(sh, sw), padded=padded):
                    x = self.args[act] if padded is None else self.padded[padded]
                    self.insert(step.source, conv_op(x, self.args[wgt], self.buffers[acc],
                                                     (sh, sw)))
                case AluStep(acc=acc, kind=kind, imm=imm, other=other):
                    second = None if other is None else self.buffers[other]
                    self.insert(step.source, alu_op(kind, self.buffers[acc], imm=imm,
                                                    other=second))
                case Store(acc=acc, out=out):
                    self.insert(step.source, store_op(self.buffers[acc], self.args[out]))
                    self.layers.close(step.source)
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
