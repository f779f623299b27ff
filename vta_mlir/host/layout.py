"""Where the buffers of a host program live: SRAM element ranges and DRAM segments.

:func:`plan_layout` gives every buffer of a host function its place before the program runs:

* each ``memref.alloc`` in a ``#vta.sram<inp|wgt|acc>`` space gets a range of elements of its
  SRAM: from its ``vta.sram_offset`` when it has one (``vta-tile`` gives the buffers of each
  region of a function the same start: the regions use the SRAMs one after the other), else by
  bump allocation in program order (elements = product of the leading dimensions, the
  trailing ones being one tensor element, ``docs/isa.md`` §1.6); overflowing the SRAM's depth is
  an error at the allocation;
* DRAM buffers get page-aligned segments from a :class:`~vta_mlir.binary.Linker`: one per
  function argument first (in signature order, each with its :class:`~vta_mlir.abi.ArgSpec`),
  then one scratch segment ``temporaries`` for the DRAM temporaries (a ``memref.alloc``
  without a memory space: the intermediate activations of a network), where buffers whose
  lifetimes do not overlap share bytes (:mod:`.dram_reuse`), and one per referenced
  ``memref.global`` (``const<i>`` with its dense integer data, or ``tmp<i>`` when
  uninitialised).  The micro-op staging segment goes last; its size is only known after the
  program has run, so the lowering driver adds it.

An argument's direction is read off its uses: read by a load DMA → ``in``, written by a store
DMA → ``out``, both → ``inout``; a function's result (an argument with ``vta.result``) is
``out``.  Its host-side packing is the identity unless it carries a
``vta.arg`` dictionary (``docs/dialects.md``, "Argument packing") with its logical ``shape``,
``dtype``, ``repeat``, ``window``, ``padded_shape``, ``split_shape`` and ``perm``, the fields of
``ArgSpec``.  A ``vta.quant`` attribute (``vta_mlir/ir/quant.py``) on an int8 argument gives
its ``ArgSpec`` the quantization of a float edge.  A ``copy_of`` index in ``vta.arg`` makes the
argument a *copy* of an earlier one (``vta-pack`` adds such arguments for an argument the
program reads in two packed layouts): its ``ArgSpec`` goes to :attr:`Layout.copies`, and the
host packs the earlier argument's array into it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float32Type,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    Signedness,
    StringAttr,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from vta_mlir.abi import WINDOW_FIELDS, ArgSpec, windowed_shape
from vta_mlir.binary import Linker
from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import DmaCopyOp, HostOp, device_walk
from vta_mlir.dialects.vta_positions import Sram, SramAttr, sram_element_shape, sram_offset
from vta_mlir.errors import BinaryFormatError
from vta_mlir.host.dram_reuse import place_temporaries
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.quant import argument_quantization

__all__ = ["ARG_ATTR_NAME", "RESULT_ATTR_NAME", "TEMPORARIES_SEGMENT", "DramBuffer", "Layout",
           "SramBuffer", "is_result_argument", "plan_layout"]

#: Name of the optional argument attribute describing an argument's logical shape and packing.
ARG_ATTR_NAME = "vta.arg"
#: Name of the argument attribute marking an out-parameter as the function's result ``i``
#: (``vta-bufferize`` turns the results of a function on tensors into such arguments).
RESULT_ATTR_NAME = "vta.result"
#: The scratch segment holding the DRAM temporaries (``vta_mlir/host/dram_reuse.py``).
TEMPORARIES_SEGMENT = "temporaries"
_ARG_KEYS = ("shape", "dtype", "repeat", "window", "padded_shape", "split_shape", "perm",
             "copy_of")
_WIDTHS = (8, 16, 32, 64)


@dataclass(frozen=True)
class SramBuffer:
    """An SRAM buffer: elements ``[base, base + count)`` of ``space``."""

    space: Sram
    base: int
    count: int


@dataclass(frozen=True)
class DramBuffer:
    """A DRAM buffer: the segment ``segment`` at ``phys`` holding ``scalars`` values of
    ``element_type``; ``kind`` is ``argument``, ``temporary`` or ``constant``; ``label`` names
    it in messages (``%x``, ``@w``)."""

    segment: str
    phys: int
    element_type: IntegerType
    scalars: int
    kind: str
    label: str


@dataclass
class Layout:
    """The buffers of one host function and the linker that placed its DRAM segments."""

    linker: Linker
    sram: dict[SSAValue, SramBuffer] = field(default_factory=dict)
    dram: dict[SSAValue, DramBuffer] = field(default_factory=dict)
    args: list[ArgSpec] = field(default_factory=list)
    #: The further packed images of arguments read in two layouts (``ArgSpec.copy_of``).
    copies: list[ArgSpec] = field(default_factory=list)
    #: Arguments that are not memrefs (no DRAM buffer can hold them): index -> value.
    scalar_args: dict[int, BlockArgument] = field(default_factory=dict)
    sram_used: dict[Sram, int] = field(default_factory=dict)

    def unique_name(self, stem: str) -> str:
        """A segment name not used yet: ``stem``, else ``stem_1``, ``stem_2``, ..."""
        taken = {s.name for s in self.linker.segments}
        if stem not in taken:
            return stem
        n = 1
        while f"{stem}_{n}" in taken:
            n += 1
        return f"{stem}_{n}"


def value_label(value: SSAValue, fallback: str) -> str:
    """``%name`` of an SSA value for messages, else ``fallback``."""
    return f"%{value.name_hint}" if value.name_hint else fallback


def _dtype_name(t: Attribute) -> str | None:
    if isinstance(t, Float32Type):
        return "float32"  # a buffer only host steps read and write
    if not isinstance(t, IntegerType) or t.width.data not in _WIDTHS:
        return None
    prefix = "uint" if t.signedness.data == Signedness.UNSIGNED else "int"
    return f"{prefix}{t.width.data}"


def _dram_type(op: Operation, t: Attribute, what: str) -> tuple[MemRefType, str]:
    """Check that ``t`` is a static, contiguous DRAM memref of 8..64-bit integers."""
    if not isinstance(t, MemRefType):
        report_error(op, f"{what} has type {t}; DRAM buffers are memrefs")
    if not isinstance(t.memory_space, NoneAttr):
        report_error(op, f"{what} is in memory space {t.memory_space}; DRAM buffers have none "
                         "and SRAM buffers are in #vta.sram<inp|wgt|acc>")
    if not isinstance(t.layout, NoneAttr):
        report_error(op, f"{what} has layout {t.layout}; DRAM buffers are contiguous")
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        report_error(op, f"{what} has a dynamic shape ({t}); buffer sizes must be static")
    dtype = _dtype_name(t.element_type)
    if dtype is None:
        report_error(op, f"{what} has element type {t.element_type}; DRAM buffers hold "
                         "8-, 16-, 32- or 64-bit integers (or f32, for host steps)")
    if math.prod(shape) == 0:
        report_error(op, f"{what} ({t}) is empty")
    return t, dtype


def _int_list(op: Operation, attr: Attribute, what: str) -> tuple[int, ...]:
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    if isinstance(attr, ArrayAttr) and all(isinstance(a, IntegerAttr) for a in attr.data):
        return tuple(int(a.value.data) for a in attr.data)  # type: ignore[union-attr]
    report_error(op, f"{what} must be a list of integers, got {attr}")


def _arg_spec(f: func.FuncOp, index: int, name: str, t: MemRefType, dtype: str,
              direction: str, names: dict[int, str]) -> ArgSpec:
    """The argument's ABI entry: identity packing, or the one its ``vta.arg`` describes;
    ``names`` are those of the arguments before it, which a copy may name."""
    shape = tuple(t.get_shape())
    what = f"argument {index} ({value_label(f.body.block.args[index], name)})"
    attrs = f.arg_attrs.data[index] if f.arg_attrs is not None else None
    desc = attrs.data.get(ARG_ATTR_NAME) if isinstance(attrs, DictionaryAttr) else None
    packed = dtype
    quant = argument_quantization(f, index)
    try:
        if desc is None:
            return ArgSpec(name, direction, dtype, shape, shape, shape, tuple(range(len(shape))),
                           quant=quant)
        if not isinstance(desc, DictionaryAttr):
            report_error(f, f"{what}: {ARG_ATTR_NAME} must be a dictionary, got {desc}")
        unknown = sorted(set(desc.data) - set(_ARG_KEYS))
        if unknown:
            report_error(f, f"{what}: unknown {ARG_ATTR_NAME} key(s) {', '.join(unknown)} "
                            f"(expected {', '.join(_ARG_KEYS)})")
        if "shape" not in desc.data:
            report_error(f, f"{what}: {ARG_ATTR_NAME} needs the logical 'shape'")
        logical = _int_list(f, desc.data["shape"], f"{what}: {ARG_ATTR_NAME} shape")
        if "dtype" in desc.data:
            dt = desc.data["dtype"]
            if not isinstance(dt, StringAttr):
                report_error(f, f"{what}: {ARG_ATTR_NAME} dtype must be a string, got {dt}")
            dtype = dt.data
        repeat: tuple[int, ...] = ()
        if "repeat" in desc.data:
            repeat = _int_list(f, desc.data["repeat"], f"{what}: repeat")
        window: tuple[int, ...] = ()
        if "window" in desc.data:
            window = _int_list(f, desc.data["window"], f"{what}: window")
        # A malformed window keeps the logical shape here and is diagnosed by ArgSpec.
        padded = windowed_shape(logical, window) if len(window) == len(WINDOW_FIELDS) \
            else logical
        if "padded_shape" in desc.data:
            padded = _int_list(f, desc.data["padded_shape"], f"{what}: padded_shape")
        split = repeat + padded
        if "split_shape" in desc.data:
            split = _int_list(f, desc.data["split_shape"], f"{what}: split_shape")
        perm = tuple(range(len(split)))
        if "perm" in desc.data:
            perm = _int_list(f, desc.data["perm"], f"{what}: perm")
        copy_of = ""
        if "copy_of" in desc.data:
            source = desc.data["copy_of"]
            if not isinstance(source, IntegerAttr) or source.value.data not in names:
                report_error(f, f"{what}: {ARG_ATTR_NAME} copy_of must be the index of an "
                                f"earlier memref argument that is no copy, got {source}")
            copy_of = names[source.value.data]
        spec = ArgSpec(name, direction, dtype, logical, padded, split, perm, packed,
                       repeat=repeat, window=window, quant=quant, copy_of=copy_of)
    except BinaryFormatError as e:
        report_error(f, f"{what}: {e}")
    nbytes = math.prod(shape) * np.dtype(packed).itemsize
    if spec.packed_nbytes != nbytes:
        report_error(f, f"{what}: {ARG_ATTR_NAME} packs {spec.packed_nbytes} bytes but the "
                        f"argument ({t}) holds {nbytes}")
    return spec


def is_result_argument(f: func.FuncOp, index: int) -> bool:
    """Whether argument ``index`` of ``f`` carries ``vta.result``: an out-parameter the
    function writes before any read, so its direction is ``out`` even when later layers read
    it back (the caller never passes it)."""
    attrs = f.arg_attrs.data[index] if f.arg_attrs is not None else None
    return isinstance(attrs, DictionaryAttr) and RESULT_ATTR_NAME in attrs.data


def _direction(value: SSAValue) -> str:
    reads = writes = False
    # The argument and its reshaped views (an N×C output stored as N×C×1×1).
    views = [value]
    while views:
        view = views.pop()
        for use in view.uses:
            user = use.operation
            if isinstance(user, memref.CollapseShapeOp | memref.ExpandShapeOp):
                views.extend(user.results)
            if isinstance(user, DmaCopyOp):
                if user.src is view:
                    reads = True
                if user.dst is view:
                    writes = True
            elif isinstance(user, HostOp):
                # A host step reads its inputs; it may read an output before writing it.
                if view in user.inputs:
                    reads = True
                if view in user.outputs:
                    writes = True
    if reads and writes:
        return "inout"
    return "out" if writes else "in"


def _sram_count(op: Operation, t: MemRefType, space: Sram, cfg: VTAConfig) -> int:
    if space == Sram.UOP:
        report_error(op, "micro-op SRAM is managed by the command builder's micro-op cache; "
                         "micro-ops come from vta.gemm / vta.alu kernels, not from buffers")
    shape = tuple(t.get_shape())
    tile = sram_element_shape(space, cfg)
    lead = len(shape) - len(tile)
    if any(d < 0 for d in shape) or lead < 1 or shape[lead:] != tile:
        dims = "x".join(map(str, tile))
        report_error(op, f"an SRAM buffer in #vta.sram<{space.value}> is shaped "
                         f"[elements...]x{dims} with static sizes, got {t}")
    return math.prod(shape[:lead])


def _globals(module: ModuleOp | None) -> dict[str, memref.GlobalOp]:
    if module is None:
        return {}
    return {g.sym_name.data: g for g in module.walk() if isinstance(g, memref.GlobalOp)}


def _global_data(op: Operation, g: memref.GlobalOp, t: MemRefType) -> np.ndarray | None:
    init = g.initial_value
    if not isinstance(init, DenseIntOrFPElementsAttr):
        return None
    width = t.element_type.width.data  # type: ignore[attr-defined]
    data = np.frombuffer(init.data.data, dtype=f"<i{width // 8}")
    count = math.prod(t.get_shape())
    if data.size == 1 and count > 1:
        data = np.full(count, data[0], dtype=data.dtype)
    if data.size != count:
        report_error(op, f"global @{g.sym_name.data} holds {data.size} values for {t}")
    return np.frombuffer(data.tobytes(), dtype=np.uint8)


def plan_layout(
    f: func.FuncOp, module: ModuleOp | None, cfg: VTAConfig, linker: Linker
) -> Layout:
    """Assign SRAM ranges and DRAM segments to every buffer of ``f`` (module doc)."""
    layout = Layout(linker)
    used_names: set[str] = set()
    #: The ABI names of the arguments that are not copies, by index.
    names: dict[int, str] = {}
    try:
        for i, arg in enumerate(f.body.block.args):
            if not isinstance(arg.type, MemRefType):
                layout.scalar_args[i] = arg
                continue
            name = arg.name_hint or f"arg{i}"
            n = 1
            while name in used_names:
                name, n = f"{arg.name_hint or f'arg{i}'}_{n}", n + 1
            used_names.add(name)
            what = f"argument {i} ({value_label(arg, name)})"
            if isinstance(arg.type.memory_space, SramAttr):
                report_error(f, f"{what} is an SRAM buffer; a host program's arguments are "
                                "DRAM buffers")
            t, dtype = _dram_type(f, arg.type, what)
            direction = "out" if is_result_argument(f, i) else _direction(arg)
            spec = linker.argument(_arg_spec(f, i, name, t, dtype, direction, names))
            if spec.copy_of:
                layout.copies.append(spec)
            else:
                layout.args.append(spec)
                names[i] = name
            layout.dram[arg] = DramBuffer(spec.segment, spec.phys, t.element_type,  # type: ignore[arg-type]
                                          math.prod(t.get_shape()), "argument",
                                          value_label(arg, name))

        temporaries: list[tuple[SSAValue, MemRefType, str, np.ndarray | None]] = []
        constants: list[tuple[SSAValue, MemRefType, str, np.ndarray | None]] = []
        by_global: dict[str, SSAValue] = {}
        aliases: list[tuple[SSAValue, SSAValue]] = []
        globals_ = _globals(module)
        for op in device_walk(f):
            if isinstance(op, memref.AllocOp | memref.AllocaOp):
                t = op.memref.type
                if isinstance(t, MemRefType) and isinstance(t.memory_space, SramAttr):
                    space = t.memory_space.data
                    count = _sram_count(op, t, space, cfg)
                    fixed = sram_offset(op)
                    base = layout.sram_used.get(space, 0) if fixed is None else fixed
                    depth = cfg.sram_depth(space.value)
                    if base < 0 or base + count > depth:
                        report_error(op, f"{space.value} buffer of {count} elements at element "
                                         f"{base} overflows the {space.value.upper()} SRAM: "
                                         f"{base + count} elements requested, depth {depth}")
                    if fixed is None:
                        layout.sram_used[space] = base + count
                    layout.sram[op.memref] = SramBuffer(space, base, count)
                else:
                    t, _ = _dram_type(op, t, "a DRAM temporary")
                    temporaries.append((op.memref, t, value_label(op.memref, "a temporary"),
                                        None))
            elif isinstance(op, memref.GetGlobalOp):
                sym = op.name_.root_reference.data
                if sym in by_global:
                    aliases.append((op.memref, by_global[sym]))
                    continue
                g = globals_.get(sym)
                if g is None:
                    report_error(op, f"global @{sym} is not defined in the module")
                t, _ = _dram_type(op, g.type, f"global @{sym}")
                by_global[sym] = op.memref
                data = _global_data(op, g, t)
                entry = (op.memref, t, f"@{sym}", data)
                (constants if data is not None else temporaries).append(entry)

        allocated = [(value, math.prod(t.get_shape())
                      * t.element_type.bitwidth // 8)  # type: ignore[attr-defined]
                     for value, t, _, _ in temporaries
                     if isinstance(value.owner, memref.AllocOp)]
        if allocated:
            placement = place_temporaries(f, allocated)
            seg = linker.segment(layout.unique_name(TEMPORARIES_SEGMENT), placement.nbytes)
            for value, t, label, _ in temporaries:
                if value in placement.offsets:
                    layout.dram[value] = DramBuffer(
                        seg.name, seg.phys + placement.offsets[value], t.element_type,  # type: ignore[arg-type]
                        math.prod(t.get_shape()), "temporary", label)
            temporaries = [e for e in temporaries if e[0] not in placement.offsets]
        for kind, stem, entries in (("temporary", "tmp", temporaries),
                                    ("constant", "const", constants)):
            for k, (value, t, label, data) in enumerate(entries):
                width = t.element_type.bitwidth  # type: ignore[attr-defined]
                scalars = math.prod(t.get_shape())
                seg = linker.segment(layout.unique_name(f"{stem}{k}"), scalars * width // 8, data)
                layout.dram[value] = DramBuffer(seg.name, seg.phys, t.element_type,  # type: ignore[arg-type]
                                                scalars, kind, label)
        for value, first in aliases:
            layout.dram[value] = layout.dram[first]
        for op in device_walk(f):
            # A reshaped view of a DRAM buffer (the pooled features a fully connected layer
            # reads as a matrix) is the same bytes.
            if isinstance(op, memref.CollapseShapeOp | memref.ExpandShapeOp) \
                    and op.src in layout.dram:
                layout.dram[op.result] = layout.dram[op.src]
    except BinaryFormatError as e:
        report_error(f, str(e))
    return layout
