"""From any input to a :class:`~vta_mlir.binary.BinaryModule`: level detection, parsing with
the configuration attached, lowering by level.

The level of an input is detected from the input itself, never from a file name:

* ``binary`` — a ``.vtab`` image, recognized by its magic bytes; read and checked as it is;
* ``vtaisa`` — MLIR holding ``vtaisa`` ops (one ``vtaisa.program``): serialized as it is;
* ``vta`` — MLIR holding ``vta`` ops (a host program): lowered through the command builder to
  its ``vtaisa.program`` (:func:`vta_mlir.host.lowering.lower_to_isa`), which is verified and
  serialized;
* ``input`` — any other MLIR (``func``, ``linalg``, ...): run through the default pipeline
  ``vta-to-isa`` of :func:`vta_mlir.passes.get_all_passes`, then treated as above.

A user's pipeline (``vta-run -p``, ``lower(..., pipeline=...)``) runs instead of
``vta-to-isa`` on MLIR at any level; it must leave ``vta`` or ``vtaisa`` IR, which is then
lowered as above.

``vta-translate``, ``vta-run`` and the Python API (:mod:`vta_mlir.api`) all go through here::

    source = Source.from_bytes(data, "gemm.mlir")   # text too unless it is a .vtab
    parsed = parse_source(source, cfg)              # level detected, configuration attached
    binary = to_binary(parsed, function=None)

Errors are :class:`~vta_mlir.errors.VTAError` s; those about a place in the IR are
:class:`~vta_mlir.ir.diagnostics.DiagnosticError` s, whose ``diagnostic.format(sources=...)``
shows them as MLIR does, with the source line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from vta_mlir.binary import MAGIC, BinaryModule, from_bytes
from vta_mlir.config import VTAConfig
from vta_mlir.errors import BinaryFormatError, VTAError
from vta_mlir.ir.diagnostics import (
    NESTING_TOO_DEEP,
    Diagnostic,
    DiagnosticError,
    op_diagnostic,
    verify_op,
)
from vta_mlir.ir.locations import location_of

__all__ = [
    "DEFAULT_PIPELINE",
    "Level",
    "PipelineLike",
    "ParsedInput",
    "Source",
    "attach_config",
    "detect_level",
    "is_vtab",
    "lower_module",
    "lower_module_to_isa",
    "parse_source",
    "parse_text",
    "run_default_pipeline",
    "to_binary",
    "to_isa",
]

#: The named pipeline that lowers input-level IR to ``vtaisa``.
DEFAULT_PIPELINE = "vta-to-isa"

#: A pass pipeline: text in MLIR's or xDSL's syntax, or pass instances.
PipelineLike = str | ModulePass | Sequence[ModulePass]


class Level(StrEnum):
    """What an input holds, from the bottom of the stack up."""

    BINARY = "binary"
    VTAISA = "vtaisa"
    VTA = "vta"
    INPUT = "input"

    @property
    def description(self) -> str:
        return {
            Level.BINARY: "a .vtab binary module",
            Level.VTAISA: "vtaisa-level IR",
            Level.VTA: "vta-level IR",
            Level.INPUT: "input-level IR",
        }[self]


def is_vtab(data: bytes) -> bool:
    """Whether ``data`` is meant as a ``.vtab`` image, so that a damaged one is reported as a
    bad module rather than as text: it starts with 0x89 (the magic's first byte, which can
    start no UTF-8 text) or has ``VTAB`` at offset 1 (the rest of the magic)."""
    return data[:1] == MAGIC[:1] or data[1:5] == MAGIC[1:5]


@dataclass(frozen=True)
class Source:
    """The raw input: its name in messages, its bytes, and its text when it is not binary."""

    name: str
    data: bytes
    text: str | None

    @classmethod
    def from_bytes(cls, data: bytes, name: str) -> Source:
        """``data`` as it was read: a ``.vtab`` image (:func:`is_vtab`) or UTF-8 MLIR text."""
        if is_vtab(data):
            return cls(name, data, None)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise VTAError(
                f"{name}: input is neither MLIR text (not valid UTF-8: {exc.reason}) nor a "
                ".vtab module"
            ) from None
        return cls(name, data, text)

    @classmethod
    def from_text(cls, text: str, name: str) -> Source:
        return cls(name, text.encode("utf-8"), text)

    @property
    def sources(self) -> dict[str, str]:
        """File name to text, for diagnostics that quote the source line."""
        return {self.name: self.text} if self.text is not None else {}


@dataclass
class ParsedInput:
    """An input whose level is known: the module (``binary`` for a ``.vtab``)."""

    source: Source
    level: Level
    module: ModuleOp | None = None
    binary: BinaryModule | None = None
    ctx: Context | None = field(default=None, repr=False)


# --------------------------------------------------------------------------------------------
# Levels and parsing


def detect_level(module: Operation) -> Level:
    """The level of an MLIR module, from the dialects of the ops it holds.

    ``vtaisa`` ops make it ``vtaisa``, ``vta`` ops ``vta`` (a ``#vta.config`` attribute alone
    does not count), anything else is input-level IR.  Mixing ``vta`` and ``vtaisa`` ops is an
    error at the first op of the lower level.
    """
    first_vta: Operation | None = None
    first_isa: Operation | None = None
    for op in module.walk():
        dialect = op.name.split(".", 1)[0]
        if dialect == "vtaisa" and first_isa is None:
            first_isa = op
        elif dialect == "vta" and first_vta is None and op.name != "vta.host":
            # A host step alone is input-level IR (host code the pipeline keeps).
            first_vta = op
    if first_isa is not None and first_vta is not None:
        raise DiagnosticError(
            op_diagnostic(
                first_isa,
                f"vtaisa ops cannot be mixed with vta ops (such as '{first_vta.name}') in one "
                "module",
            )
        )
    if first_isa is not None:
        return Level.VTAISA
    if first_vta is not None:
        return Level.VTA
    return Level.INPUT


def attach_config(module: ModuleOp, cfg: VTAConfig) -> None:
    """Put ``cfg`` on the module; a module built for another configuration is an error at the
    module (verifiers read the configuration from there, so this comes before verifying)."""
    from vta_mlir.dialects.vta_config_attr import set_module_config

    try:
        set_module_config(module, cfg)
    except DiagnosticError:
        raise
    except VTAError as exc:
        raise DiagnosticError(Diagnostic(str(exc), location=location_of(module))) from None


def parse_text(
    text: str,
    *,
    filename: str = "<string>",
    cfg: VTAConfig | None = None,
    ctx: Context | None = None,
) -> ModuleOp:
    """Parse MLIR text with source locations, attach ``cfg`` (checked against the module's own
    configuration, if it has one) and verify the module."""
    from vta_mlir.ir.context import parse_module

    module = parse_module(text, filename=filename, ctx=ctx)
    if cfg is not None:
        attach_config(module, cfg)
    try:
        verify_op(module)
    except RecursionError:
        raise DiagnosticError(Diagnostic(NESTING_TOO_DEEP, location=location_of(module))) from None
    return module


def parse_source(source: Source, cfg: VTAConfig | None = None) -> ParsedInput:
    """Parse and verify the input and detect its level; ``cfg`` (``--config``) must match the
    configuration a ``.vtab`` or module was built for, and is attached to a module without
    one."""
    if source.text is None:
        try:
            binary = from_bytes(source.data, cfg)
        except BinaryFormatError as exc:
            # Reported against the file, as `name: error: ...`.
            raise DiagnosticError(Diagnostic(str(exc))) from None
        return ParsedInput(source, Level.BINARY, binary=binary)

    from vta_mlir.ir.context import make_context

    ctx = make_context()
    module = parse_text(source.text, filename=source.name, cfg=cfg, ctx=ctx)
    return ParsedInput(source, detect_level(module), module=module, ctx=ctx)


# --------------------------------------------------------------------------------------------
# Lowering to a binary module


def run_default_pipeline(module: ModuleOp, ctx: Context | None = None,
                         function: str | None = None, requant: str = "none",
                         host_fallback: str = "float") -> None:
    """Lower input-level IR to ``vtaisa`` in place with the ``vta-to-isa`` pipeline
    (``function``: the function to lower when the module has several; ``requant``: its option
    of that name, ``fixed-point`` for networks that requantize in float; ``host_fallback``: its
    option ``host-fallback``, ``any`` to run on the host what VTA cannot lower)."""
    from vta_mlir.ir.context import make_context
    from vta_mlir.ir.pipeline import apply_pipeline, build_pipeline
    from vta_mlir.passes import get_all_passes

    passes = get_all_passes()
    options = ([f"function={function}"] if function is not None else []) + (
        [f"requant={requant}"] if requant != "none" else []) + (
        [f"host-fallback={host_fallback}"] if host_fallback != "float" else [])
    text = DEFAULT_PIPELINE + (f"{{{' '.join(options)}}}" if options else "")
    # No verification between passes here: the pipeline is the one vta-to-isa pass, which
    # verifies the module after each of its stages (passes/pipeline.py).
    pipeline = build_pipeline(text, passes)
    apply_pipeline(pipeline, module, make_context() if ctx is None else ctx)


def _lower_vta(module: ModuleOp, function: str | None) -> ModuleOp:
    """A module holding the verified ``vtaisa.program`` of ``vta`` IR, with its
    configuration."""
    from vta_mlir.dialects.vta_config_attr import get_config, set_module_config
    from vta_mlir.host.lowering import lower_to_isa

    program, cfg = lower_to_isa(module, get_config(module), function=function)
    holder = ModuleOp([program])
    set_module_config(holder, cfg)
    verify_op(program)
    return holder


def _unsynchronised_command(module: ModuleOp) -> Operation | None:
    """The first ``vta`` command in no ``vta.stage``, if any (``vta-coproc-sync`` puts every
    command in the stage of its module)."""
    from vta_mlir.dialects.vta import DmaCopyOp, MicroOp, StageOp

    for op in module.walk():
        if isinstance(op, DmaCopyOp | MicroOp):
            parent = op.parent_op()
            while parent is not None and not isinstance(parent, StageOp):
                parent = parent.parent_op()
            if parent is None:
                return op
    return None


def _run_user_pipeline(
    module: ModuleOp, pipeline: PipelineLike, ctx: Context | None, option: str
) -> None:
    """Run ``pipeline`` on ``module`` in place, verifying the IR after every pass; it must
    leave ``vta`` or ``vtaisa`` IR, and ``vta`` IR made from input-level IR synchronised."""
    from vta_mlir.ir.pipeline import run_pipeline

    original = detect_level(module)
    run_pipeline(module, pipeline, ctx=ctx)
    level = detect_level(module)
    if level == Level.INPUT:
        raise VTAError(
            f"the pass pipeline of {option} left input-level IR: it must lower the program to "
            f"vta or vtaisa IR (as {DEFAULT_PIPELINE} does, or its stages up to "
            "vta-coproc-sync or vta-lower-to-isa)"
        )
    if original == Level.INPUT and level == Level.VTA:
        # Without tokens the modules would race: the program would compute garbage.
        command = _unsynchronised_command(module)
        if command is not None:
            raise DiagnosticError(
                op_diagnostic(
                    command,
                    f"is in no vta.stage after the pass pipeline of {option}: "
                    "vta-coproc-sync must synchronise the program before it is lowered",
                )
            )


def lower_module_to_isa(
    module: ModuleOp,
    *,
    function: str | None = None,
    ctx: Context | None = None,
    function_option: str = "--function",
    pipeline: PipelineLike | None = None,
    pipeline_option: str = "--pass-pipeline",
    requant: str = "none",
    host_fallback: str = "float",
) -> ModuleOp:
    """The module holding the verified ``vtaisa.program`` of a verified MLIR module at any
    level (see the module docstring): ``module`` itself once it holds ``vtaisa`` IR, else a
    new module holding the program lowered from its ``vta`` IR.

    Input-level IR is lowered in place.  ``function`` picks the function of input-level or
    vta-level IR to lower when the module has several; it is an error for a module holding
    no host program, worded after ``function_option`` (the flag or parameter that gave it).
    ``pipeline`` (named ``pipeline_option`` in messages) runs instead of the default pipeline,
    on a module at any level, and must leave ``vta`` or ``vtaisa`` IR; with it, ``function``
    applies to the host lowering of ``vta`` IR (a pipeline ending in ``vta-lower-to-isa``
    names the function with that pass's own option). ``requant`` and ``host_fallback`` are the
    default pipeline's options ``requant`` (``vta-integerize``) and ``host-fallback``
    (``vta-outline-host-steps``).
    """
    level = original = detect_level(module)
    if pipeline is not None:
        _run_user_pipeline(module, pipeline, ctx, pipeline_option)
        level = detect_level(module)
    elif level == Level.INPUT:
        run_default_pipeline(module, ctx, function, requant, host_fallback)
        level = detect_level(module)
        if level == Level.INPUT:
            raise VTAError(
                f"the {DEFAULT_PIPELINE} pipeline left no vta or vtaisa ops in the module"
            )
    if level == Level.VTA:
        return _lower_vta(module, function)
    if function is not None and original == Level.VTAISA:
        raise VTAError(f"{function_option} applies to input-level and vta-level IR, not to "
                       f"{original.description}")
    # The parser and every pipeline verify the IR they produce (after each pass).
    return module


def lower_module(
    module: ModuleOp,
    *,
    function: str | None = None,
    ctx: Context | None = None,
    function_option: str = "--function",
    pipeline: PipelineLike | None = None,
    pipeline_option: str = "--pass-pipeline",
    requant: str = "none",
    host_fallback: str = "float",
) -> BinaryModule:
    """The binary module of a verified MLIR module at any level: the serialisation of
    :func:`lower_module_to_isa`'s program (same parameters)."""
    from vta_mlir.dialects.vtaisa_serialize import find_program, serialize

    holder = lower_module_to_isa(
        module,
        function=function,
        ctx=ctx,
        function_option=function_option,
        pipeline=pipeline,
        pipeline_option=pipeline_option,
        requant=requant,
        host_fallback=host_fallback,
    )
    try:
        return serialize(find_program(holder), verified=True)
    except DiagnosticError:
        raise
    except VTAError as exc:
        raise DiagnosticError(Diagnostic(str(exc), location=location_of(holder))) from None


def _no_options_for_binary(
    function: str | None, function_option: str, pipeline: object, pipeline_option: str
) -> None:
    if function is not None:
        raise VTAError(
            f"{function_option} applies to input-level and vta-level IR, not to "
            f"{Level.BINARY.description}"
        )
    if pipeline is not None:
        raise VTAError(
            f"{pipeline_option} applies to MLIR input, not to {Level.BINARY.description}"
        )


def to_isa(
    parsed: ParsedInput,
    *,
    function: str | None = None,
    function_option: str = "--function",
    pipeline: PipelineLike | None = None,
    pipeline_option: str = "--pass-pipeline",
    requant: str = "none",
    host_fallback: str = "float",
) -> ModuleOp:
    """The ``vtaisa`` IR of a parsed input, as a module holding one verified
    ``vtaisa.program``: a ``.vtab`` read back into its ops, MLIR by
    :func:`lower_module_to_isa` (no image is made on the way)."""
    if parsed.binary is not None:
        from vta_mlir.dialects.vtaisa_program import program_to_module

        _no_options_for_binary(function, function_option, pipeline, pipeline_option)
        return program_to_module(parsed.binary)
    assert parsed.module is not None
    return lower_module_to_isa(
        parsed.module,
        function=function,
        ctx=parsed.ctx,
        function_option=function_option,
        pipeline=pipeline,
        pipeline_option=pipeline_option,
        requant=requant,
        host_fallback=host_fallback,
    )


def to_binary(
    parsed: ParsedInput,
    *,
    function: str | None = None,
    function_option: str = "--function",
    pipeline: PipelineLike | None = None,
    pipeline_option: str = "--pass-pipeline",
    requant: str = "none",
    host_fallback: str = "float",
) -> BinaryModule:
    """The binary module of a parsed input: a ``.vtab`` as it is, MLIR by
    :func:`lower_module` (``pipeline``, ``requant``: see there; an error for a ``.vtab``)."""
    if parsed.binary is not None:
        _no_options_for_binary(function, function_option, pipeline, pipeline_option)
        return parsed.binary
    assert parsed.module is not None
    return lower_module(
        parsed.module,
        function=function,
        ctx=parsed.ctx,
        function_option=function_option,
        pipeline=pipeline,
        pipeline_option=pipeline_option,
        requant=requant,
        host_fallback=host_fallback,
    )
