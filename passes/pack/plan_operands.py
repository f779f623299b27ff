"""The operands of the regions ``vta-pack`` plans: the packing of every buffer a step uses.

:class:`OperandPlanner` holds what decides the layout of a region's operands — the output the
region writes, the logical shape of its result, its matrix view when it is flattened
(``passes/pack/flatten.py``), its batched layout when it holds a batched product
(``passes/pack/plan_batch.py``) — and gives each buffer a step reads or writes its role and
packing (``passes/pack/normal_form.py``), through the layouts of the function
(``passes/pack/layouts.py``: a buffer used in two layouts gets a copy).  It also refuses a
layer reading a buffer before the op writing it when the layer ends after that op.
:class:`.plan.Planner` plans the steps of the regions on it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import KW_ONLY, dataclass, field

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import BlockArgument, Operation

from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.passes.pack.expr import Load, Output, error_with_note, label
from vta_mlir.passes.pack.flatten import MatrixView
from vta_mlir.passes.pack.layouts import Layouts
from vta_mlir.passes.pack.normal_form import Packing, Role, packing_for
from vta_mlir.passes.pack.plan_batch import BatchPlan, batched_arg
from vta_mlir.passes.pack.plane_range import ConstantValues, no_constant_values
from vta_mlir.passes.pack.steps import AccBuffer

__all__ = ["OperandPlanner"]


@dataclass
class OperandPlanner:
    """The packing of every buffer the steps of a function's regions use, and the state of the
    region being planned it depends on (module docstring)."""

    cfg: VTAConfig
    _: KW_ONLY
    #: The stand-ins of intermediate int8 buffers (``passes/pack/intermediates.py``).
    intermediates: Collection[BlockArgument] = ()
    #: The packing of every buffer the steps use (``passes/pack/layouts.py``).
    layouts: Layouts = field(default_factory=Layouts)
    #: The values of the constants standing in for arguments (``passes/pack/constants.py``),
    #: which bound the range of an i32 result (``passes/pack/plane_range.py``).
    constant_values: ConstantValues = no_constant_values
    #: The output of the region being planned.
    _current: Output | None = None
    #: The logical shape of the current region's result, and its matrix view when the region
    #: is flattened (``passes/pack/flatten.py``).
    _shape: tuple[int, ...] = ()
    _view: MatrixView | None = None
    #: The position of every op of the function body, and the op writing each output.
    _order: dict[Operation, int] = field(default_factory=dict[Operation, int])
    _writers: dict[BlockArgument, Operation] = field(
        default_factory=dict[BlockArgument, Operation])
    #: The layout of the current region when it holds a batched product.
    _batch: BatchPlan | None = None

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

    @property
    def packings(self) -> dict[BlockArgument, tuple[Packing, Role, Operation]]:
        """The packing of every buffer the steps use, copies included."""
        return self.layouts.packings

    def use(self, arg: BlockArgument, role: Role, op: Operation,
            packing: Packing | None = None) -> BlockArgument:
        """``op`` uses ``arg`` in ``role`` (with ``packing``, else the role's packing): the
        block argument its step reads, ``arg`` or a copy of it in that layout
        (``passes/pack/layouts.py``)."""
        assert self._current is not None
        writer = self._writers.get(arg)
        if arg is not self._current.arg and writer is not None \
                and self._order.get(op, -1) < self._order.get(writer, -1) \
                and self._order.get(writer, -1) < self._order.get(self._current.writer, -1):
            # The layers run in the order of the ops writing their results: this one runs
            # after the layer writing `arg`, but reads what `arg` held before.
            error_with_note(op, f"reads {label(arg)} before the op writing it, in a layer "
                                 "that ends after that op: VTA runs the layers one after the "
                                 "other, so a layer reads a buffer before it is written only "
                                 "when the whole layer comes first", writer,
                             f"{label(arg)} is written here")
        t = arg.type
        assert isinstance(t, MemRefType)
        dtype = f"int{t.element_type.width.data}"  # type: ignore[attr-defined]
        if self._batch is not None and batched_arg(arg):
            planes = packing.parts if packing is not None and packing.parts > 1 else 0
            packing = self._batch.packing(arg, role, op, dtype, self.cfg, planes)
        elif packing is None:
            packing = packing_for(role, t.get_shape(), dtype, self.cfg)
        return self.layouts.use(arg, role, op, packing)

    def check_shape(self, load: Load, acc: AccBuffer) -> None:
        shape = tuple(load.arg.type.get_shape())  # type: ignore[attr-defined]
        if self._view is not None and load.broadcast:
            return  # the recognizer matched its axes with the result's
        if load.broadcast and load.kept != ((1,) if self._batch is None else (2,)):
            if len(acc.shape) == 2:
                report_error(load.op, f"broadcasts {label(load.arg)} along the columns (a "
                                      "per-row operand): VTA adds per-column biases only, "
                                      "broadcast over the rows")
            report_error(load.op, f"broadcasts {label(load.arg)} along the result dimensions "
                                  f"{list(load.kept)}: an NCHW region reads broadcast operands "
                                  "per channel, (n, c, h, w) -> (c), or per position, "
                                  "(n, c, h, w) -> (h, w)")
        result = self._shape if self._view is not None or self._batch else acc.shape
        expected = [(acc.cols,), (1, acc.cols)] if load.broadcast else [result]
        if shape not in expected:
            report_error(load.op, f"reads {label(load.arg)} ({load.arg.type}) into a "
                                  f"{'×'.join(map(str, result))} result")
