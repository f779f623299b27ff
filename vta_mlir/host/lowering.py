"""The host-program driver: a ``vta``-level module → its linked ``vtaisa.program``.

:func:`lower_to_isa` is the one place where ``vta`` IR becomes instructions; the
``vta-lower-to-isa`` pass and the driver's lowering of ``vta`` IR (``vta-translate``,
``vta-run``, :func:`vta_mlir.lower`) both call it, so they cannot disagree
(``docs/architecture.md`` §1).  It

1. picks the function to lower and checks the configuration,
2. places every buffer (:mod:`.layout`): SRAM element ranges, and DRAM segments linked from
   ``base`` — the arguments (with their :class:`~vta_mlir.abi.ArgSpec`), temporaries, constants,
3. compiles the body into a Python function (:mod:`.compiler`) and runs it against a
   :class:`~vta_mlir.runtime.command_builder.CommandBuilder`, which applies the runtime's rules
   (micro-op cache, dependency flags and NOPs, automatic synchronisation, FINISH),
4. adds the micro-op staging segment last (the largest staging image of any run) and emits
   the program — segments, argument table, then each run the builder recorded — as ``vtaisa``
   ops (:class:`~vta_mlir.dialects.vtaisa_build.ProgramBuilder`).

:func:`lower_to_binary` is the same followed by verification and serialisation
(:func:`~vta_mlir.dialects.vtaisa_serialize.serialize`).  Every problem is reported
MLIR-style at the op concerned (:class:`~vta_mlir.ir.diagnostics.DiagnosticError`).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from vta_mlir.binary import DEFAULT_BASE, BinaryModule, Linker
from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_config_attr import (
    CONFIG_ATTR_NAME,
    VTAConfigAttr,
    get_config,
    set_module_config,
)
from vta_mlir.dialects.vtaisa_build import ProgramBuilder
from vta_mlir.dialects.vtaisa_program_ops import ProgramOp
from vta_mlir.dialects.vtaisa_serialize import serialize
from vta_mlir.errors import BinaryFormatError, RuntimeBuildError, VTAError
from vta_mlir.host.compiler import compile_host_program
from vta_mlir.host.host_steps import host_step_op
from vta_mlir.host.layout import plan_layout, value_label
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.program import number_layers
from vta_mlir.runtime.command_builder import CommandBuilder

__all__ = ["STAGING_SEGMENT", "lower_to_binary", "lower_to_isa", "select_function"]

#: Name of the micro-op staging segment (suffixed if an argument already has the name).
STAGING_SEGMENT = "uops"


def _functions(module: Operation) -> list[func.FuncOp]:
    block = module.regions[0].block if module.regions else None
    if block is None:
        return []
    return [op for op in block.ops if isinstance(op, func.FuncOp) and op.body.blocks]


def select_function(module: ModuleOp, function: str | None = None) -> func.FuncOp:
    """The function to lower: the one named ``function``, or the module's only one."""
    funcs = _functions(module)
    names = ", ".join(f"@{f.sym_name.data}" for f in funcs) or "none"
    if function is not None:
        funcs = [f for f in funcs if f.sym_name.data == function]
        if not funcs:
            report_error(module, f"has no function @{function} to lower (functions: {names})")
    elif len(funcs) != 1:
        if not funcs:
            report_error(module, "has no func.func to lower")
        report_error(module, f"has {len(funcs)} functions ({names}); name the one to lower "
                             "(function=...)")
    f = funcs[0]
    if len(f.body.blocks) != 1:
        report_error(f, "a host program is one block of straight-line code and loops, not "
                        f"{len(f.body.blocks)} blocks")
    return f


def _check_config(module: ModuleOp, cfg: VTAConfig | None) -> VTAConfig:
    attr = module.attributes.get(CONFIG_ATTR_NAME)
    if cfg is None:
        return get_config(module)
    if isinstance(attr, VTAConfigAttr) and attr.config != cfg:
        report_error(module, f"was built for configuration {attr.config.model} but "
                             f"configuration {cfg.model} was given")
    return cfg


def lower_to_isa(
    module: ModuleOp,
    cfg: VTAConfig | None = None,
    *,
    function: str | None = None,
    base: int | None = None,
) -> tuple[ProgramOp, VTAConfig]:
    """Lower the host program of ``module`` to a linked ``vtaisa.program`` (detached, not
    yet verified) and the configuration it is for.

    ``cfg`` defaults to the module's ``vta.config`` (else the default configuration); a
    ``cfg`` that differs from the module's attribute is an error.  ``function`` names the
    ``func.func`` to lower when the module has several.  ``base`` is the physical address the
    DRAM segments are linked from (default :data:`~vta_mlir.binary.DEFAULT_BASE`): the
    arguments in signature order, then temporaries and constants, then the micro-op staging
    buffer, each on its own 4 KiB pages.

    Raises :class:`~vta_mlir.ir.diagnostics.DiagnosticError` at the offending op, or
    :class:`~vta_mlir.errors.BinaryFormatError` for an invalid ``base``.
    """
    cfg = _check_config(module, cfg)
    f = select_function(module, function)
    linker = Linker(DEFAULT_BASE if base is None else base)
    layout = plan_layout(f, module, cfg, linker)
    program = compile_host_program(f, layout, cfg)
    for index, arg in layout.scalar_args.items():
        report_error(f, f"argument {index} ({value_label(arg, f'arg{index}')}) has type "
                        f"{arg.type}; a host program's arguments are DRAM memrefs")

    staging = linker.next
    try:
        builder = CommandBuilder(cfg, staging)
    except RuntimeBuildError as e:
        report_error(f, str(e))
    program.run(builder)
    try:
        runs = builder.finish()
    except RuntimeBuildError as e:
        report_error(f, str(e))

    staging_bytes = max((run.uop_words.size for run in runs), default=0) * cfg.uop_elem_bytes
    try:
        if staging_bytes:
            segment = linker.segment(layout.unique_name(STAGING_SEGMENT), staging_bytes)
            assert segment.phys == staging, "the staging segment must follow every other one"
    except BinaryFormatError as e:
        report_error(f, str(e))
    layers = number_layers(runs, program.layers)
    emit = ProgramBuilder(linker.base, cfg)
    for seg in linker.segments:
        emit.segment(seg.name, seg.phys, seg.nbytes, seg.data)
    for arg in [*layout.args, *layout.copies]:
        emit.argument(arg)
    # The host steps, each after the runs before it.
    steps = [(after, host_step_op(program.host_ops[k], layout))  # type: ignore[arg-type]
             for after, k in builder.host_steps]
    try:
        for r, run in enumerate([*runs, None]):
            for _, step in (s for s in steps if s[0] == r):
                emit.host_step(step)
            if run is not None:
                emit.run(run, layers)
    except VTAError as e:
        report_error(f, str(e))
    return emit.program, cfg


def lower_to_binary(
    module: ModuleOp,
    cfg: VTAConfig | None = None,
    *,
    function: str | None = None,
    base: int | None = None,
) -> BinaryModule:
    """The image of :func:`lower_to_isa`'s program, verified
    (:func:`~vta_mlir.dialects.vtaisa_serialize.serialize`; a rule the program breaks is a
    :class:`~vta_mlir.ir.diagnostics.DiagnosticError` at its op)."""
    program, cfg = lower_to_isa(module, cfg, function=function, base=base)
    holder = ModuleOp([program])
    set_module_config(holder, cfg)
    return serialize(program)
