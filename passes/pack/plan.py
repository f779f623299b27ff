"""Planning for ``vta-pack``: the steps of each VTA region, before anything is rewritten.

:class:`Planner` turns the outputs the recognizer found (``passes/pack/match.py``) into the ops
of the stage-1 normal form (``docs/pipeline.md``), as a list of :class:`Step` s — a new
accumulator, its initialisation, the contraction, convolution or pooling, one ALU operation per
step, the store — and the packing of every argument (and intermediate buffer) they use
(``passes/pack/plan_operands.py``).  ``passes/pack/__init__.py`` then rewrites the function's
signature and emits the steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import BlockArgument, Operation

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.isa import AluKind
from vta_mlir.passes.pack.concat import slice_source
from vta_mlir.passes.pack.depthwise import depthwise_kernel_packing
from vta_mlir.passes.pack.expr import (
    Alu,
    Const,
    Expr,
    Gemm,
    HostStepBuffers,
    Load,
    Narrow,
    Output,
    error_with_note,
    label,
)
from vta_mlir.passes.pack.flatten import MatrixView
from vta_mlir.passes.pack.flattened_act import flattened_packings
from vta_mlir.passes.pack.fold_window import folded_packings
from vta_mlir.passes.pack.host_steps import logical_packing
from vta_mlir.passes.pack.match import COMMUTATIVE, IMM_MAX, IMM_MIN
from vta_mlir.passes.pack.match_conv import Conv
from vta_mlir.passes.pack.match_depthwise import DepthwiseConv
from vta_mlir.passes.pack.match_matmul_operands import check_weight_store, weight_layout_buffers
from vta_mlir.passes.pack.match_pool import Pool
from vta_mlir.passes.pack.match_resize import Resize
from vta_mlir.passes.pack.normal_form import Role
from vta_mlir.passes.pack.plan_batch import batch_plan
from vta_mlir.passes.pack.plan_operands import OperandPlanner
from vta_mlir.passes.pack.plane_range import result_planes
from vta_mlir.passes.pack.spatial import spatial_packing
from vta_mlir.passes.pack.steps import (
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
    PoolStep,
    ResizeStep,
    RunHost,
    Step,
    Store,
)
from vta_mlir.passes.pack.wide_outputs import result_packing

__all__ = [
    "AccBuffer",
    "AluStep",
    "BatchLoop",
    "EndBatchLoop",
    "Contract",
    "Fill",
    "FreePadded",
    "Init",
    "NewAcc",
    "PadData",
    "PaddedData",
    "Planner",
    "PoolStep",
    "RunHost",
    "ResizeStep",
    "Step",
    "Store",
]


# --------------------------------------------------------------------------------------------
# Region plans: the ops of the normal form, before the signature changes
# --------------------------------------------------------------------------------------------


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
class Planner(OperandPlanner):
    """Turns the outputs of a function into the steps of its VTA regions and the packing of
    every argument they use (:class:`.plan_operands.OperandPlanner`)."""

    outputs: list[Output | HostStepBuffers]
    steps: list[Step] = field(default_factory=list[Step])
    _loaded: dict[tuple[BlockArgument, bool], AccBuffer] = field(
        default_factory=dict[tuple[BlockArgument, bool], AccBuffer])
    #: The computed buffers products read as their right operand, stored by their layers in
    #: the weight layout (``passes/pack/match_matmul_operands.py``).
    _weight_stores: dict[BlockArgument, Gemm] = field(
        default_factory=dict[BlockArgument, Gemm])

    def plan(self) -> None:
        regions = [out for out in self.outputs if isinstance(out, Output)]
        hosts = [out for out in self.outputs if isinstance(out, HostStepBuffers)]
        first = regions[0].writer if regions else hosts[0].op if hosts else None
        block = first.parent_block() if first is not None else None
        self._order = {op: k for k, op in enumerate(block.ops)} if block is not None else {}
        self._writers = {out.arg: out.writer for out in regions}
        for host in hosts:
            self._writers.update((arg, host.op) for arg in host.outputs)
        self.layouts.intermediates = self.intermediates
        self.layouts.written = self._writers.keys()
        self._weight_stores = weight_layout_buffers(
            self.outputs, {out.arg for out in regions}, self.cfg,
            {a: w for a in self.intermediates
             if (w := slice_source(a, self.intermediates)) is not None})
        for out in self.outputs:
            if isinstance(out, HostStepBuffers):
                self.steps.append(RunHost(out.op, out, out.op.regions[0].clone()))
                continue
            self._current = out
            self._loaded = {}
            shape = tuple(out.arg.type.get_shape())  # type: ignore[attr-defined]
            self._shape = shape
            self._view = self.choose_view(out, shape)
            self._batch = batch_plan(out.value, self.cfg)
            acc = AccBuffer(shape if self._view is None else self._view.matrix, "acc")
            looped = self._batch is not None and not self._batch.collapsed
            if self._batch is not None:
                acc = AccBuffer(self._batch.acc_shape(shape), "acc")
            # A global pooling into N×C computes N×C×1×1, stored through an expanded view.
            out_role = self.whole_role(acc)
            if any(isinstance(e, Pool) and e.squeezed for e in _subexpressions(out.value)):
                acc, out_role = AccBuffer((*shape, 1, 1), "acc"), Role.MATRIX
            start = len(self.steps)
            if looped:
                self.steps.append(BatchLoop(out.writer, shape[0]))
            self.steps.append(NewAcc(out.writer, acc))
            self.plan_into(acc, out.value.value)
            weight_layout = out.arg in self._weight_stores
            packing = None
            if weight_layout:
                check_weight_store(out, acc, self._view, self._weight_stores[out.arg])
                out_arg = self.use(out.arg, Role.WEIGHT, out.writer)
            else:
                packing = self.view_packing(out.arg)
                if out.wide and self._batch is not None:
                    planes = result_planes(out.value.value, self.cfg, self.constant_values)
                    packing = self._batch.packing(out.arg, out_role, out.writer, "int32",
                                                  self.cfg, planes=planes)
                elif out.wide:
                    packing = result_packing(out, out_role, packing, self.cfg,
                                             self.constant_values)
                out_arg = self.use(out.arg, out_role, out.writer, packing)
            if (whole := slice_source(out.arg, self.intermediates)) is not None:
                # A concatenation's own layout, or the matrix of a head's columns.
                rank = whole.type.get_num_dims()  # type: ignore[attr-defined]
                self.use(whole, Role.TENSOR if rank == 4 else Role.MATRIX, out.writer)
            self.steps.append(Store(out.writer, acc, out_arg, weight_layout,
                                    packing.parts if packing is not None else 1))
            if looped:
                self.steps.append(EndBatchLoop(out.writer))
            self.place_deallocs(start)
        # The host reads and writes any layout: a buffer keeps the regions' packing, and one
        # that only host steps use its logical layout.
        for host in hosts:
            for arg in (*host.inputs, *host.outputs):
                if arg not in self.packings:
                    self.packings[arg] = (logical_packing(arg), Role.HOST, host.op)

    def place_deallocs(self, start: int) -> None:
        """Free the padded buffers of the region starting at step ``start`` where the function
        freed them: after the last step whose op comes before the ``memref.dealloc``."""
        region = self.steps[start:]
        for step in region:
            if not isinstance(step, Contract | PoolStep) or step.padded is None:
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
        if any(isinstance(e, Gemm | Pool | Resize) for e in parts):
            return None
        biases = [e for e in parts if isinstance(e, Load) and e.broadcast]
        if len(shape) == 2 and all(b.kept == (1,) for b in biases):
            return None
        touched = [out.arg, *(e.arg for e in parts if isinstance(e, Load))]
        if len(shape) == 4 and not biases and any(a in self.intermediates for a in touched):
            # Layers before and after read and write these buffers as NCHW tensors.
            return MatrixView.tensor_layout(shape, self.cfg)
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
        elif isinstance(e, Pool):
            self.pool(acc, e)
        elif isinstance(e, Resize):  # read in the accumulator's layout, like a pooling's data
            act = self.use(e.act, Role.TENSOR, e.op)
            self.steps.append(ResizeStep(e.op, acc, e, act))
        else:
            assert isinstance(e, Alu)
            self.alu(acc, e)

    def init(self, acc: AccBuffer, load: Load) -> None:
        # A value per position, (n, c, h, w) -> (h, w): a whole tensor (passes/pack/spatial.py).
        if self._view is None and (spatial := spatial_packing(load, acc.shape, self.cfg)):
            arg = self.use(load.arg, Role.TENSOR, load.op, spatial)
            return self.steps.append(Init(load.op, acc, arg, False))
        self.check_shape(load, acc)
        role = self.bias_role(acc) if load.broadcast else self.whole_role(acc)
        arg = self.use(load.arg, role, load.op, self.view_packing(load.arg, load))
        self.steps.append(Init(load.op, acc, arg, load.broadcast))

    def gemm(self, acc: AccBuffer, g: Gemm, init: Expr) -> None:
        """``acc = init + act · wgt``: VTA's accumulator starts from 0 or from a load."""
        bias_after: Load | None = None
        if isinstance(init, Const):
            self.steps.append(Fill(init.op, acc))
        elif isinstance(init, Load) and init.broadcast and isinstance(g, Conv):
            # A convolution's per-channel bias is added after the convolution (the same sum:
            # i32 addition wraps, in any order): one bias element row in SRAM and an ALU add,
            # where starting the accumulator from the bias would load it into every
            # accumulator element of every tile.
            self.steps.append(Fill(init.op, acc))
            bias_after = init
        elif isinstance(init, Load):
            self.init(acc, init)
        else:
            error_with_note(g.op, "accumulates onto a computed value: a VTA contraction "
                                   "starts from 0, a copy of a function argument or a "
                                   "broadcast bias", init.op, "the value is computed here")
        # Folding the window makes the host lay out the data as patches, which an
        # intermediate buffer, written by an earlier layer on the device, cannot be.
        folded = folded_packings(g, self.cfg) if isinstance(g, Conv) \
            and not isinstance(g, DepthwiseConv) and g.act not in self.intermediates else None
        if isinstance(g, Conv) and folded is not None:
            # A 1×1 convolution of the data's patches (passes/pack/fold_window.py): the host
            # applies the window, so the zero-padded buffer is not needed.
            act = self.use(g.act, Role.DATA, g.op, folded[0])
            wgt = self.use(g.wgt, Role.KERNEL, g.op, folded[1])
            self.steps.append(Contract(g.op, acc, act, wgt, (1, 1)))
        elif isinstance(g, Conv):
            depthwise = isinstance(g, DepthwiseConv)
            act = self.use(g.act, Role.DATA, g.op)
            wgt = self.use(g.wgt, Role.KERNEL, g.op,
                           depthwise_kernel_packing(g.wgt, g.kernel_axes, self.cfg)
                           if isinstance(g, DepthwiseConv) else None)
            padded = None
            if g.padding is not None:
                padded = PaddedData(act, g.padding)
                self.steps.append(PadData(g.padding.alloc, padded))
            self.steps.append(Contract(g.op, acc, act, wgt, g.strides, padded, depthwise))
        else:
            # A flattened N×C×H×W intermediate (passes/pack/flattened_act.py): read in its
            # tensor layout, the weights permuted to match.
            flat = flattened_packings(g, self.intermediates, self.cfg)
            act = self.use(g.act, Role.ACT_T if g.act_transposed else Role.ACT, g.op,
                           flat[0] if flat else None)
            wgt = self.use(g.wgt, Role.WEIGHT_T if g.wgt_transposed else Role.WEIGHT, g.op,
                           flat[1] if flat else None)
            # A head's columns of a matrix: the whole matrix in the same layout.
            for part, role in ((g.act, Role.ACT), (g.wgt, Role.WEIGHT)):
                if (whole := slice_source(part, self.intermediates)) is not None:
                    self.use(whole, role, g.op)
            self.steps.append(Contract(g.op, acc, act, wgt))
        if isinstance(init, Const) and init.value:
            self.imm(acc, AluKind.ADD, init.value, init.op)
        if bias_after is not None:
            self.steps.append(AluStep(bias_after.op, acc, AluKind.ADD,
                                      other=self.loaded(bias_after, acc)))

    def pool(self, acc: AccBuffer, p: Pool) -> None:
        """``acc = init``, then the pooling: its data is loaded into the accumulator SRAM, in
        the accumulator's (tensor) layout."""
        self.plan_into(acc, p.init)
        act = self.use(p.act, Role.TENSOR, p.op)
        padded = None
        if p.padding is not None:
            padded = PaddedData(act, p.padding)
            self.steps.append(PadData(p.padding.alloc, padded))
        self.steps.append(PoolStep(p.op, acc, p, act, padded))

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
