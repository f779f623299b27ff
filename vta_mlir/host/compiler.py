"""The host-program compiler: a ``vta``-level function as a Python function that drives the
command builder.

The ``vta`` level is a program for the CPU (``docs/architecture.md`` §1): host loops iterate, index
values are computed, and every ``vta`` command becomes one call of TVM's runtime API, here of
:class:`~vta_mlir.runtime.command_builder.CommandBuilder`.  Lowering a program means running it.
So that programs with many host-loop iterations lower quickly, the IR is walked once and turned
into the source of one Python function, which CPython then runs at the speed of its own loops:

* a host loop (``affine.for``, ``scf.for``) is a ``for ... in range(...)`` statement; a loop
  with no command inside is dropped;
* an index value (:mod:`vta_mlir.ir.index_arith`: ``arith``, ``affine.apply`` / ``min`` /
  ``max``) is folded to a constant when its operands are constants, else assigned to a local
  (``v<n>``) computing exactly what MLIR defines (wrap-around included, where the values'
  ranges do not rule it out);
* ``vta.dma_copy`` is a ``load_buffer_2d`` / ``store_buffer_2d`` call with the buffer's SRAM
  base and DRAM segment folded in, preceded by range checks of positions that vary;
* a micro-kernel is a ``push_gemm`` / ``push_alu`` of a kernel made once per distinct value of
  the host values it depends on (:mod:`.kernels`); its micro-op list loops (``affine.for``
  inside it, ``docs/isa.md`` §4.4) are enumerated there, not run as host loops;
* ``vta.dep_push`` / ``vta.dep_pop`` are ``dep_push`` / ``dep_pop`` calls (stages load 1,
  compute 2, store 3);
* a command whose location (or an enclosing op's) names a layer (a ``NameLoc``, which
  ``vta-pack`` gives every op of a VTA region: :mod:`vta_mlir.ir.locations`) is preceded by a
  ``layer`` call when the layer changes, so the builder tags its instructions with the layer;
  :attr:`HostProgram.layers` lists the names.

Every generated line remembers the op it came from, so an error the builder raises while the
program runs (a field that does not fit, a division by zero in an index) is reported at that op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from xdsl.dialects import affine, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import (
    AluOp,
    DepPopOp,
    DepPushOp,
    DmaCopyOp,
    GemmOp,
    GemmResetOp,
    HostOp,
    MicroOp,
    Module,
    StageOp,
    UopLoopOp,
)
from vta_mlir.dialects.vta_positions import Sram, sram_space
from vta_mlir.host.kernels import KernelTemplate, Operand, check_kernel, kernel_template
from vta_mlir.host.layout import DramBuffer, Layout, SramBuffer, value_label
from vta_mlir.host.runner import FILENAME, HostProgram
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.index_arith import (
    HELPERS,
    Code,
    HostValue,
    IndexArithError,
    combine,
    is_index_op,
    source,
    source_map,
)
from vta_mlir.ir.locations import clean_layer_name, given_layer_name
from vta_mlir.isa import MemType
from vta_mlir.runtime.uop_kernel import KernelMode

__all__ = ["HostProgram", "compile_host_program"]

#: Deepest host-loop nest: CPython allows 20 statically nested blocks in one function.
MAX_LOOP_DEPTH = 16
#: Queue ids of the runtime's dependency calls (docs/isa.md §4.6).
STAGE_IDS = {Module.LOAD: 1, Module.COMPUTE: 2, Module.STORE: 3}

_SUPPORTED = ("host loops (affine.for, scf.for), index arithmetic (arith, affine.apply, "
              "affine.min, affine.max), buffers (memref.alloc, memref.get_global, "
              "memref.dealloc, memref.collapse_shape, memref.expand_shape), vta.stage and the "
              "vta commands")

_BOUND = "has a loop bound that depends on"
#: The ops that become builder calls (and so instructions).
_COMMANDS = (DmaCopyOp, GemmOp, GemmResetOp, AluOp, UopLoopOp, DepPushOp, DepPopOp)


def offset(value: Operand, constant: int) -> Operand:
    """The position ``value + constant``, folded when possible."""
    if isinstance(value, int):
        return value + constant
    if constant == 0:
        return value
    return f"{value} + {constant}" if constant > 0 else f"{value} - {-constant}"


def _named(value: SSAValue) -> str:
    """`` %name`` of a value for messages, or nothing."""
    return f" %{value.name_hint}" if value.name_hint else ""


class _Compiler:
    def __init__(self, f: func.FuncOp, layout: Layout, cfg: VTAConfig) -> None:
        self.f = f
        self.layout = layout
        self.cfg = cfg
        self.lines: list[str] = []
        self.line_ops: list[Operation] = []
        self.values: dict[SSAValue, HostValue] = {}
        self.faults: list[tuple[Operation, str]] = []
        self.namespace: dict[str, object] = dict(HELPERS)
        self.namespace["_fail"] = self._fail
        self.kernels: list[KernelTemplate] = []
        self.indent = 1
        self.loop_depth = 0
        self.commands = 0
        self.names = 0
        #: Layer names by index, and the layer the generated code is in here (None: unknown,
        #: as at the top of a loop body whose commands belong to several layers).
        self.layers: list[str] = []
        self.layer_ids: dict[str, int] = {}
        self.current_layer: int | None = None
        #: The host steps, in program order.
        self.host_ops: list[HostOp] = []

    # ---- emission ----------------------------------------------------------------------------
    def emit(self, text: str, op: Operation) -> None:
        self.lines.append("    " * self.indent + text)
        self.line_ops.append(op)

    def fresh(self, prefix: str = "v") -> str:
        self.names += 1
        return f"{prefix}{self.names}"

    def bind(self, value: SSAValue, expr: HostValue, op: Operation) -> None:
        """Give ``value`` its host value: a constant, or a local assigned here."""
        if isinstance(expr, int) or expr.text.isidentifier():
            self.values[value] = expr
            return
        name = self.fresh()
        self.emit(f"{name} = {expr}", op)
        self.values[value] = Code(name, expr.lo, expr.hi)

    def _fail(self, index: int, value: int) -> NoReturn:
        op, template = self.faults[index]
        report_error(op, template.format(value))

    def checked(self, op: Operation, value: Operand, hi: int, template: str) -> Operand:
        """``value``, checked to lie in ``[0, hi]`` (now if constant, else when it runs);
        ``template`` formats the message with the value."""
        if isinstance(value, int):
            if not 0 <= value <= hi:
                report_error(op, template.format(value))
            return value
        if not value.isidentifier():
            name = self.fresh("t")
            self.emit(f"{name} = {value}", op)
            value = name
        self.faults.append((op, template))
        self.emit(f"if not 0 <= {value} <= {hi}: _fail({len(self.faults) - 1}, {value})", op)
        return value

    # ---- values ------------------------------------------------------------------------------
    def resolve(self, value: SSAValue, user: Operation, role: str = "uses") -> Operand:
        """The host value of an index or integer operand of ``user``: a constant or the name
        of a local (``role`` words how the op uses it in messages)."""
        found = self.operand(value, user, role)
        return found if isinstance(found, int) else found.text

    def operand(self, value: SSAValue, user: Operation, role: str = "uses") -> HostValue:
        """:meth:`resolve` with the range of the values a local takes."""
        if value in self.values:
            return self.values[value]
        if isinstance(value, BlockArgument) and value.owner is self.f.body.block:
            report_error(user, f"{role} {value_label(value, f'argument {value.index}')}, a "
                               f"function argument of type {value.type} whose value is not known "
                               "when the program is lowered (a host program's arguments are DRAM "
                               "buffers)")
        if not isinstance(value.type, IndexType | IntegerType):
            report_error(user, f"uses a value of type {value.type} as an index")
        owner = value.owner
        what = owner.name if isinstance(owner, Operation) else "a block argument"
        report_error(user, f"{role} a value the host cannot compute (defined by {what})")

    def position(self, value: SSAValue | None, constant: int, user: Operation) -> Operand:
        if value is None:
            return constant
        return offset(self.resolve(value, user), constant)

    def sram_of(self, value: SSAValue, user: Operation, space: Sram | None = None) -> SramBuffer:
        buf = self.layout.sram.get(value)
        if buf is None:
            report_error(user, f"SRAM operand{_named(value)} is not a memref.alloc of the "
                               "lowered function")
        if space is not None and buf.space != space:
            report_error(user, f"operand{_named(value)} is in #vta.sram<{buf.space.value}>, "
                               f"expected #vta.sram<{space.value}>")
        return buf

    def dram_of(self, value: SSAValue, user: Operation) -> DramBuffer:
        buf = self.layout.dram.get(value)
        if buf is None:
            report_error(user, f"DRAM operand{_named(value)} is not an argument, a "
                               "memref.alloc or a memref.get_global of the lowered function")
        return buf

    # ---- layers ------------------------------------------------------------------------------
    def layer_of(self, op: Operation) -> int | None:
        """The index of the layer ``op`` (or the nearest enclosing op) names; None if none."""
        current: Operation | None = op
        while current is not None and current is not self.f:
            name = given_layer_name(current)
            if name is not None:
                name = clean_layer_name(name)
                if name not in self.layer_ids:
                    self.layer_ids[name] = len(self.layers)
                    self.layers.append(name)
                return self.layer_ids[name]
            current = current.parent_op()
        return None

    def enter_layer(self, op: Operation) -> None:
        """Switch the builder to the layer of command ``op`` if it names another one; a command
        naming none stays in the current layer."""
        layer = self.layer_of(op)
        if layer is not None and layer != self.current_layer:
            self.emit(f"_layer({layer})", op)
            self.current_layer = layer

    # ---- structure ---------------------------------------------------------------------------
    def block(self, block: Block, stage: Module | None) -> None:
        for op in block.ops:
            self.op(op, stage)

    def op(self, op: Operation, stage: Module | None) -> None:
        if is_index_op(op):
            operands = [self.operand(v, op) for v in op.operands]
            try:
                result = source(op, operands)
            except IndexArithError as e:
                report_error(op, str(e))
            self.bind(op.results[0], result, op)
        elif isinstance(op, affine.ForOp):
            self.affine_for(op, stage)
        elif isinstance(op, scf.ForOp):
            self.scf_for(op, stage)
        elif isinstance(op, affine.YieldOp | scf.YieldOp | func.ReturnOp):
            if op.operands:
                report_error(op, "a host program returns no values and carries none through "
                                 "loops")
        elif isinstance(op, StageOp):
            if stage is not None:
                report_error(op, f"vta.stage scopes do not nest (inside a {stage} stage)")
            self.block(op.body.block, op.kind)
        elif isinstance(op, DmaCopyOp):
            self.dma(op, stage)
        elif isinstance(op, MicroOp | UopLoopOp):
            self.kernel(op, stage)
        elif isinstance(op, DepPushOp | DepPopOp):
            self.dep(op, stage)
        elif isinstance(op, HostOp):
            self.host_step(op, stage)
        elif isinstance(op, memref.AllocOp | memref.AllocaOp | memref.DeallocOp |
                        memref.GetGlobalOp | memref.CollapseShapeOp | memref.ExpandShapeOp):
            pass  # placed by the layout before the program runs (a reshape: the same bytes)
        else:
            report_error(op, f"is not supported in a host program; vta-lower-to-isa handles "
                             f"{_SUPPORTED}")

    def loop(self, op: Operation, block: Block, lb: HostValue, ub: HostValue, step: HostValue,
             stage: Module | None) -> None:
        if self.loop_depth >= MAX_LOOP_DEPTH:
            report_error(op, f"host loops nest more than {MAX_LOOP_DEPTH} deep")
        if len(block.args) != 1:
            report_error(op, "loop-carried values (iter_args) are not supported on the host")
        var = self.fresh()
        first = lb if isinstance(lb, int) else lb.lo
        last = ub - 1 if isinstance(ub, int) else ub.hi - 1
        self.values[block.args[0]] = Code(var, first, max(first, last))
        start_line, start_commands = len(self.lines), self.commands
        layers = {self.layer_of(c) for c in op.walk() if isinstance(c, _COMMANDS)} - {None}
        if len(layers) == 1:
            # One layer: switch before the loop, not in every iteration.
            (layer,) = layers
            if layer != self.current_layer:
                self.emit(f"_layer({layer})", op)
                self.current_layer = layer
        bounds = f"{lb}, {ub}" if step == 1 else f"{lb}, {ub}, {step}"
        self.emit(f"for {var} in range({bounds}):", op)
        self.indent += 1
        self.loop_depth += 1
        if len(layers) > 1:
            # The next iteration starts in the layer this one ends in.
            self.current_layer = None
        self.block(block, stage)
        if len(layers) > 1:
            self.current_layer = None
        self.indent -= 1
        self.loop_depth -= 1
        if self.commands == start_commands:
            # Nothing reaches the accelerator: the loop only computes dead index values.
            del self.lines[start_line:]
            del self.line_ops[start_line:]

    def bound(self, op: affine.ForOp, amap: AffineMap, values: Sequence[SSAValue],
              kind: str) -> HostValue:
        operands = [self.operand(v, op, _BOUND) for v in values]
        try:
            results = source_map(amap, operands[: amap.num_dims], operands[amap.num_dims :])
        except IndexArithError as e:
            report_error(op, str(e))
        return combine(kind, results)

    def affine_for(self, op: affine.ForOp, stage: Module | None) -> None:
        lb = self.bound(op, op.lowerBoundMap.data, op.lowerBoundOperands, "max")
        ub = self.bound(op, op.upperBoundMap.data, op.upperBoundOperands, "min")
        step = int(op.step.value.data)
        if step <= 0:
            report_error(op, f"loop step {step} is not positive")
        self.loop(op, op.body.block, lb, ub, step, stage)

    def scf_for(self, op: scf.ForOp, stage: Module | None) -> None:
        lb, ub, step = (self.operand(v, op, _BOUND) for v in (op.lb, op.ub, op.step))
        if isinstance(step, int):
            if step <= 0:
                report_error(op, f"loop step {step} is not positive")
        else:
            self.faults.append((op, "loop step {} is not positive"))
            self.emit(f"if {step} <= 0: _fail({len(self.faults) - 1}, {step})", op)
        self.loop(op, op.body.block, lb, ub, step, stage)

    # ---- commands ----------------------------------------------------------------------------
    def check_stage(self, op: Operation, module: Module, stage: Module | None,
                    what: str) -> None:
        if stage is not None and stage != module:
            report_error(op, f"{what} executes on the {module} module, but it is inside a "
                             f"{stage} stage")

    def dma(self, op: DmaCopyOp, stage: Module | None) -> None:
        cfg = self.cfg
        src_space, dst_space = sram_space(op.src.type), sram_space(op.dst.type)
        if (src_space is None) == (dst_space is None):
            report_error(op, "vta.dma_copy moves data between one DRAM and one SRAM buffer")
        store = src_space is not None
        sram = self.sram_of(op.src if store else op.dst, op)
        dram = self.dram_of(op.dst if store else op.src, op)
        width = dram.element_type.width.data
        if store:
            if sram.space != Sram.ACC:
                report_error(op, "a store reads the accumulator (#vta.sram<acc>)")
            if dram.kind == "constant":
                report_error(op, f"stores into {dram.label}, a constant")
            mt, module, want = MemType.OUT, Module.STORE, (cfg.out_width,)
            lanes, what = cfg.batch * cfg.block_out, "a DMA store"
        elif sram.space == Sram.ACC:
            want = (cfg.acc_width, cfg.inp_width)
            mt = MemType.ACC if width == cfg.acc_width else MemType.ACC_8BIT
            module, lanes, what = Module.COMPUTE, cfg.batch * cfg.block_out, "a DMA load into acc"
        elif sram.space in (Sram.INP, Sram.WGT):
            inp = sram.space == Sram.INP
            mt = MemType.INP if inp else MemType.WGT
            want = (cfg.inp_width if inp else cfg.wgt_width,)
            lanes = cfg.batch * cfg.block_in if inp else cfg.block_out * cfg.block_in
            module, what = Module.LOAD, f"a DMA load into {sram.space.value}"
        else:
            report_error(op, "micro-ops are loaded by micro-kernels, not by vta.dma_copy")
        if width not in want:
            report_error(op, f"{what} moves i{' or i'.join(map(str, want))} DRAM data, "
                             f"{dram.label} holds i{width}")
        self.check_stage(op, module, stage, what)
        if dram.scalars % lanes:
            report_error(op, f"{dram.label} holds {dram.scalars} scalars, not a whole number of "
                             f"{lanes}-scalar tensor elements")
        count = dram.scalars // lanes
        self.enter_layer(op)
        y, x, stride = op.field("y_size"), op.field("x_size"), op.field("x_stride")
        y0, y1, x0, x1 = op.pads
        if x < 1 or y < 1:
            report_error(op, f"a copy moves at least one element (y {y}, x {x})")
        if store and any(op.pads):
            report_error(op, "a store (SRAM -> DRAM) has no padding")
        extent = (y - 1) * stride + x
        if extent > count:
            report_error(op, f"the copy spans {extent} DRAM elements but {dram.label} holds "
                             f"{count}")
        footprint = y * x if store else (y0 + y + y1) * (x0 + x + x1)
        if footprint > sram.count:
            report_error(op, f"the copy covers {footprint} SRAM elements but the buffer holds "
                             f"{sram.count}")
        label = value_label(op.sram, "the SRAM buffer")
        d = self.checked(
            op, self.position(*op.dram_position, op), count - extent,
            f"DRAM position {{}} of {dram.label} is out of range: the copy spans {extent} of "
            f"its {count} elements (positions 0..{count - extent})")
        s = self.checked(
            op, self.position(*op.sram_position, op), sram.count - footprint,
            f"SRAM position {{}} of {label} is out of range: the copy covers {footprint} of "
            f"its {sram.count} elements (positions 0..{sram.count - footprint})")
        s = offset(s, sram.base)
        if store:
            self.emit(f"_store({s}, {int(mt)}, {dram.phys}, {d}, {x}, {y}, {stride})", op)
        else:
            self.emit(f"_load({dram.phys}, {d}, {x}, {y}, {stride}, {x0}, {y0}, {x1}, {y1}, "
                      f"{s}, {int(mt)})", op)
        self.commands += 1

    def kernel(self, op: MicroOp | UopLoopOp, stage: Module | None) -> None:
        self.check_stage(op, Module.COMPUTE, stage, "a micro-kernel")
        check_kernel(op, self.cfg.uop_buff_depth)
        if isinstance(op, UopLoopOp):
            # Index arithmetic in the kernel's loop bodies depends on host values only (a
            # micro-kernel loop has no induction variable): compute it before the push.  Inside
            # micro-op list loops it is computed with every list-loop variable 0; the kernel
            # template adds the list-loop part of each position (positions are linear in it).
            for lp in op.list_loops():
                self.values[lp.body.block.args[0]] = 0
            for inner in op.walk():
                if inner is op or isinstance(inner, UopLoopOp | MicroOp | affine.ForOp |
                                             affine.YieldOp):
                    continue
                if isinstance(inner.parent_op(), UopLoopOp | affine.ForOp) \
                        and is_index_op(inner):
                    self.op(inner, stage)
                else:
                    report_error(inner, "a vta.uop_loop body holds micro-ops, micro-op list "
                                        "loops (affine.for), one nested vta.uop_loop and index "
                                        "arithmetic")
        template = kernel_template(op, self.resolve, self.sram_of)
        self.enter_layer(op)
        number = len(self.kernels)
        self.kernels.append(template)
        push = "_gemm" if template.mode == KernelMode.GEMM else "_alu"
        if template.is_static:
            self.namespace[f"K{number}"] = template.make((number,))
            self.emit(f"{push}(K{number}, {number})", op)
        else:
            self.namespace[f"M{number}"] = template.memo
            self.namespace[f"MK{number}"] = template.make
            self.emit(f"_key = ({number}, {', '.join(template.names)})", op)
            self.emit(f"_k = M{number}.get(_key)", op)
            self.emit(f"if _k is None: _k = MK{number}(_key)", op)
            self.emit(f"{push}(_k, _key)", op)
        self.commands += 1

    def dep(self, op: DepPushOp | DepPopOp, stage: Module | None) -> None:
        src, dst = op.src, op.dst
        if src == dst or {src, dst} == {Module.LOAD, Module.STORE}:
            report_error(op, f"no dependency queue goes from {src} to {dst}")
        push = isinstance(op, DepPushOp)
        runs_on = src if push else dst
        self.check_stage(op, runs_on, stage, f"vta.{'dep_push' if push else 'dep_pop'}")
        call = "_push" if push else "_pop"
        self.enter_layer(op)
        self.emit(f"{call}({STAGE_IDS[src]}, {STAGE_IDS[dst]})", op)
        self.commands += 1

    def host_step(self, op: HostOp, stage: Module | None) -> None:
        """A ``B.host_step(k)`` call: the builder ends the run there and records step ``k``
        (:attr:`HostProgram.host_ops`)."""
        if stage is not None or self.loop_depth:
            report_error(op, "a host step runs at the top level of the host program, outside "
                             "vta.stage scopes and loops")
        self.emit(f"B.host_step({len(self.host_ops)})", op)
        self.host_ops.append(op)

    # ---- driver ------------------------------------------------------------------------------
    def compile(self) -> HostProgram:
        f = self.f
        self.lines = ["def _host_program(B):"]
        self.line_ops = [f]
        for local, method in (("_load", "load_buffer_2d"), ("_store", "store_buffer_2d"),
                              ("_gemm", "push_gemm"), ("_alu", "push_alu"),
                              ("_push", "dep_push"), ("_pop", "dep_pop"),
                              ("_layer", "layer")):
            self.emit(f"{local} = B.{method}", f)
        self.block(f.body.block, None)
        source = "\n".join(self.lines) + "\n"
        exec(compile(source, FILENAME, "exec"), self.namespace)
        return HostProgram(self.namespace["_host_program"], self.line_ops,  # type: ignore[arg-type]
                           source, self.layers, list(self.host_ops))


def compile_host_program(f: func.FuncOp, layout: Layout, cfg: VTAConfig) -> HostProgram:
    """Compile the body of ``f`` (buffers placed by ``layout``) into a :class:`HostProgram`;
    unsupported ops and inconsistent commands are reported at the op."""
    return _Compiler(f, layout, cfg).compile()
