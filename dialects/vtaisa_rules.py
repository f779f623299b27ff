"""The rules of a linked program that span several of its ops, and the checked walk over a
whole program.

:func:`check_program` is the part of the ``vtaisa.program`` verifier that needs the program
as a whole (the rules of each op are its own verifier's): a valid base address; segments with
unique names, at or above the base, on pages of their own, together at most
:data:`~vta_mlir.binary_checks.MAX_FOOTPRINT_BYTES`; every argument owning one segment
outright (its start, its exact size, no constant contents); every run's micro-op staging
image inside one scratch segment that holds no argument; every LOAD / STORE that moves data
touching DRAM inside one segment (a LOAD UOP: inside its run's staging image).

:func:`verify_program` applies every verifier of a program built from records (the ``.vtab``
loader's check), reporting the first problem as one-line
:class:`~vta_mlir.errors.BinaryFormatError` naming the run and instruction.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from xdsl.utils.exceptions import VerifyException

from vta_mlir.abi import ArgSpec
from vta_mlir.binary_checks import ADDRESS_LIMIT, MAX_FOOTPRINT_BYTES, page_end
from vta_mlir.config import PAGE_BYTES, VTAConfig
from vta_mlir.errors import BinaryFormatError
from vta_mlir.isa import MemType, dram_elem_bytes

from .vtaisa_arg import ArgOp
from .vtaisa_host import HostStepOp
from .vtaisa_insns import InsnOp, LoadInsnOp, StoreInsnOp
from .vtaisa_program_ops import LayerOp, ProgramOp, RunOp, SegmentOp, UopsOp
from .vtaisa_syntax import int_field

__all__ = ["check_program", "verify_program"]

_UOP_BYTES = 4


@dataclass(frozen=True)
class _Seg:
    name: str
    phys: int
    size: int
    constant: bool


def _segments(program: ProgramOp, base: int) -> list[_Seg]:
    """The segments by address, checked against each other and the base."""
    segs = sorted(
        (_Seg(op.segment_name, int_field(op, "phys"), int_field(op, "size"), op.data is not None)
         for op in program.body.block.ops if isinstance(op, SegmentOp)),
        key=lambda s: s.phys,
    )
    names: set[str] = set()
    prev: _Seg | None = None
    for seg in segs:
        if seg.name in names:
            raise VerifyException(f"segment '{seg.name}' is defined twice")
        names.add(seg.name)
        if seg.phys < base:
            raise VerifyException(
                f"segment '{seg.name}': address {seg.phys:#x} is below the module base {base:#x}"
            )
        if prev is not None and seg.phys < page_end(prev.phys, prev.size):
            raise VerifyException(
                f"segments '{prev.name}' and '{seg.name}' overlap (pages of "
                f"[{prev.phys:#x}, +{prev.size}) and [{seg.phys:#x}, +{seg.size}))"
            )
        prev = seg
    footprint = sum(page_end(s.phys, s.size) - s.phys for s in segs)
    if footprint > MAX_FOOTPRINT_BYTES:
        raise VerifyException(
            f"segments occupy {footprint} bytes of DRAM, more than the "
            f"{MAX_FOOTPRINT_BYTES >> 20} MiB limit"
        )
    return segs


def _arguments(program: ProgramOp, by_name: dict[str, _Seg]) -> set[str]:
    """Check that every argument owns its segment; the names of those segments."""
    arg_names: set[str] = set()
    owners: dict[str, str] = {}
    args: dict[str, ArgSpec] = {}
    for op in program.body.block.ops:
        if not isinstance(op, ArgOp):
            continue
        try:
            arg = op.to_spec()
        except (BinaryFormatError, TypeError, ValueError) as e:
            raise VerifyException(str(e)) from None
        what = f"argument '{arg.name}'"
        if arg.name in arg_names:
            raise VerifyException(f"{what} is declared twice")
        arg_names.add(arg.name)
        seg = by_name.get(arg.segment)
        if seg is None:
            raise VerifyException(f"{what}: segment {arg.segment!r} does not exist")
        if arg.segment in owners:
            raise VerifyException(
                f"{what}: segment '{arg.segment}' already holds argument '{owners[arg.segment]}'"
            )
        owners[arg.segment] = arg.name
        if arg.phys != seg.phys:
            raise VerifyException(
                f"{what}: address {arg.phys:#x} points outside the start of its segment "
                f"'{seg.name}' at {seg.phys:#x}"
            )
        if arg.packed_nbytes != seg.size:
            raise VerifyException(
                f"{what}: packed size {arg.packed_nbytes} differs from the size {seg.size} "
                f"of its segment '{seg.name}'"
            )
        if seg.constant:
            raise VerifyException(f"{what}: its segment '{seg.name}' has constant contents")
        _check_copy(arg, args)
        args[arg.name] = arg
    return set(owners)


def _check_copy(arg: ArgSpec, earlier: dict[str, ArgSpec]) -> None:
    """A copy (``copy_of``) comes after the arguments and packs an earlier input argument of the
    same logical values: dtype, shape and quantization."""
    what = f"argument '{arg.name}'"
    if not arg.copy_of:
        if any(a.copy_of for a in earlier.values()):
            raise VerifyException(f"{what}: an argument after a copy (the copies come last)")
        return
    source = earlier.get(arg.copy_of)
    if source is None or source.copy_of:
        raise VerifyException(f"{what} copies '{arg.copy_of}', which is not an argument "
                              "before it")
    if not source.is_input:
        raise VerifyException(f"{what} copies '{source.name}', an '{source.direction}' "
                              "argument the caller does not pass")
    if (arg.dtype, arg.shape, arg.quant) != (source.dtype, source.shape, source.quant):
        raise VerifyException(
            f"{what} copies '{source.name}' but differs from it in dtype, shape or quantization "
            f"({arg.dtype} {arg.shape} {arg.quant} against {source.dtype} {source.shape} "
            f"{source.quant})")


def check_program(program: ProgramOp, cfg: VTAConfig) -> None:
    """Raise :class:`VerifyException` unless the ops of ``program`` are consistent with each
    other (module docstring)."""
    base = program.base_address
    if base % PAGE_BYTES or not PAGE_BYTES <= base < ADDRESS_LIMIT:
        raise VerifyException(
            f"base address {base!r} is not a non-zero, 4 KiB-aligned 32-bit address"
        )
    segs = _segments(program, base)
    owned = _arguments(program, {s.name: s for s in segs})
    starts = [s.phys for s in segs]

    def find(lo: int, hi: int) -> _Seg | None:
        i = bisect.bisect_right(starts, lo) - 1
        if i >= 0 and hi <= segs[i].phys + segs[i].size:
            return segs[i]
        return None

    elem_bytes = dram_elem_bytes(cfg)
    runs = [op for op in program.body.block.ops if isinstance(op, RunOp)]
    for r, run in enumerate(runs):
        staging: tuple[int, int] | None = None
        count = run.uop_count
        if count:
            ubase = int_field(run, "uop_base")
            end = ubase + count * _UOP_BYTES
            seg = find(ubase, end)
            if seg is None:
                raise VerifyException(
                    f"run {r}: micro-op staging region [{ubase:#x}, {end:#x}) is not inside a "
                    "segment"
                )
            if seg.constant or seg.name in owned:
                raise VerifyException(
                    f"run {r}: micro-op staging region lies in segment '{seg.name}', which "
                    "holds constants or an argument"
                )
            staging = (ubase, end)
        i = 0
        for op in run.body.block.ops:
            if isinstance(op, LoadInsnOp | StoreInsnOp):
                _check_dram(op, f"run {r} instruction {i}", elem_bytes, cfg, find, staging)
            if isinstance(op, InsnOp):
                i += 1
    for op in program.body.block.ops:
        if isinstance(op, HostStepOp):
            _check_host_step(op, find)


def _check_host_step(op: HostStepOp, find: object) -> None:
    """Each buffer of a host step lies inside one segment, a written one in no constant
    segment."""
    assert callable(find)
    for spec in op.specs():
        what = f"host step '{op.step_name.data}': buffer '{spec.name}'"
        seg = find(spec.phys, spec.phys + spec.packed_nbytes)
        if seg is None:
            raise VerifyException(
                f"{what} [{spec.phys:#x}, +{spec.packed_nbytes}) is not inside a segment"
            )
        if spec.direction != "in" and seg.constant:
            raise VerifyException(f"{what} is written, but its segment '{seg.name}' holds "
                                  "constants")


def _check_dram(op: LoadInsnOp | StoreInsnOp, where: str, elem_bytes: dict[int, int],
                cfg: VTAConfig, find: object, staging: tuple[int, int] | None) -> None:
    """A LOAD / STORE's DRAM rows lie inside one segment (a LOAD UOP: the run's staging)."""
    x_size, y_size = op.field("x_size"), op.field("y_size")
    if x_size == 0 or y_size == 0:
        return  # a NOP, or a load that writes only padding rows: no DRAM access
    mt = op.field("memory_type")
    store = isinstance(op, StoreInsnOp)
    if mt not in elem_bytes or (store and mt != MemType.OUT) or (not store and mt == MemType.OUT):
        return  # the instruction's own verifier reports it
    size = cfg.out_elem_bytes if store else elem_bytes[mt]
    dram = op.field("dram_base")
    lo = dram * size
    hi = (dram + (y_size - 1) * op.field("x_stride") + x_size) * size
    kind = "STORE" if store else f"LOAD {MemType(mt).name}"
    if mt == MemType.UOP and not store:
        if staging is None or lo < staging[0] or hi > staging[1]:
            raise VerifyException(
                f"{where}: {kind} reads [{lo:#x}, {hi:#x}) outside the run's micro-op staging "
                "region"
            )
        return
    assert callable(find)
    if find(lo, hi) is None:
        raise VerifyException(
            f"{where}: {kind} touches DRAM [{lo:#x}, {hi:#x}) outside every segment"
        )


def verify_program(program: ProgramOp, cfg: VTAConfig, *, sram_bounds: bool = True) -> None:
    """Apply the verifier of every op of ``program`` (built from records, so of the right
    kinds and property types: xDSL's generic checks are left out), then
    :func:`check_program`; raise a one-line :class:`BinaryFormatError` naming the run and
    instruction of the first problem.  ``sram_bounds``: see
    :meth:`~vta_mlir.dialects.vtaisa_insns.InsnOp.check`."""
    r = 0
    for op in program.body.block.ops:
        try:
            if isinstance(op, SegmentOp):
                op.check()
            elif isinstance(op, ArgOp):
                op.to_spec()
            elif isinstance(op, RunOp):
                _verify_run(op, r, cfg, sram_bounds)
                r += 1
            elif isinstance(op, HostStepOp):
                # Read from a file: the step's function is verified as any parsed IR.
                op.verify()
        except VerifyException as e:
            raise BinaryFormatError(str(e)) from None
    try:
        check_program(program, cfg)
    except VerifyException as e:
        raise BinaryFormatError(str(e)) from None


def _verify_run(run: RunOp, r: int, cfg: VTAConfig, sram_bounds: bool) -> None:
    i = 0
    for op in run.body.block.ops:
        try:
            if isinstance(op, InsnOp):
                op.check(cfg, sram_bounds=sram_bounds)
                i += 1
            elif isinstance(op, UopsOp):
                op.check(cfg)
            elif isinstance(op, LayerOp):
                op.check()
        except VerifyException as e:
            where = f"run {r} instruction {i}" if isinstance(op, InsnOp) else f"run {r}"
            raise VerifyException(f"{where}: {e}") from None
    try:
        run.check()
    except VerifyException as e:
        raise VerifyException(f"run {r}: {e}") from None
