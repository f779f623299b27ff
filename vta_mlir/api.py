"""The Python API of vta-mlir: parse and print IR, run pass pipelines, lower to a binary
module, run it on the simulator with numpy arrays.

::

    from vta_mlir import compile
    mod = compile(open("gemm.mlir").read())     # MLIR at any level, or a .vtab
    y, = mod(x, w)                              # numpy in, numpy out, on the simulator
    print(mod.last_run.counters, mod.last_run.cycles)
    json.dump(trace(mod), open("gemm.trace.json", "w"))  # Perfetto / chrome://tracing

The functions here are re-exported by :mod:`vta_mlir` (loaded on first use).  Errors are
:class:`~vta_mlir.errors.VTAError` s; those about a place in the IR are
:class:`~vta_mlir.ir.diagnostics.DiagnosticError` s whose ``str()`` is MLIR's
``file:line:col: error: message`` and whose ``diagnostic.format(sources=...)`` adds the source
line and the op.  ``docs/python-api.md`` is the guide.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from vta_mlir.binary import BinaryModule, from_bytes
from vta_mlir.config import VTAConfig
from vta_mlir.driver import (
    Level,
    PipelineLike,
    Source,
    attach_config,
    detect_level,
    lower_module,
    parse_source,
    parse_text,
    to_binary,
)
from vta_mlir.errors import BinaryFormatError, VTAError
from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.ir.pipeline import run_pipeline

if TYPE_CHECKING:
    from vta_mlir.runtime.device import Device, LoadedModule

__all__ = ["compile", "lower", "parse", "print_ir", "run_pipeline", "trace"]

#: What :func:`lower` and :func:`compile` accept: MLIR text (``str``), a ``.vtab`` image or
#: UTF-8 MLIR (``bytes``), a file (``os.PathLike``), a parsed module or a binary module.
Compilable = str | bytes | os.PathLike[str] | ModuleOp | BinaryModule

ConfigLike = VTAConfig | str | os.PathLike[str]


def _config(config: ConfigLike | None) -> VTAConfig | None:
    """``config`` as a :class:`VTAConfig`: a shipped name or a ``vta_config.json`` path is
    loaded."""
    if config is None or isinstance(config, VTAConfig):
        return config
    if isinstance(config, str | os.PathLike):
        return VTAConfig.load(os.fspath(config))
    raise TypeError(f"config must be a VTAConfig, a shipped name or a path, not {config!r}")


def parse(
    text: str, *, filename: str = "<string>", config: ConfigLike | None = None
) -> ModuleOp:
    """Parse MLIR text into a verified module whose ops carry ``filename:line:col`` locations.

    Every upstream dialect of xDSL plus ``vta`` and ``vtaisa`` is known.  ``config`` (a
    :class:`VTAConfig`, a shipped name such as ``"block32"`` or a ``vta_config.json`` path) is
    attached to the module as ``vta.config``; a module built for another configuration is an
    error.  Syntax and verifier errors raise :class:`~vta_mlir.ir.diagnostics.DiagnosticError`.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse takes MLIR text (str), not {type(text).__name__}")
    return parse_text(text, filename=filename, cfg=_config(config))


def print_ir(module: Operation, *, generic: bool = False, debuginfo: bool = False) -> str:
    """``module`` (or any op) as MLIR text, in custom syntax unless ``generic``; with
    ``debuginfo`` every op shows its ``loc("file":line:col)``."""
    from vta_mlir.ir.context import print_module

    if not isinstance(module, Operation):
        raise TypeError(f"print_ir takes an operation, not {type(module).__name__}")
    # print_module is typed for modules but prints any op.
    return print_module(module, generic=generic, debuginfo=debuginfo)  # type: ignore[arg-type]


def _check_binary(binary: BinaryModule, cfg: VTAConfig | None) -> BinaryModule:
    if cfg is not None and not binary.config.same_hardware(cfg):
        raise BinaryFormatError(
            f"the module was built for {binary.config.bitstream}, not for {cfg.bitstream}"
        )
    return binary


def lower(
    source: Compilable,
    *,
    config: ConfigLike | None = None,
    function: str | None = None,
    pipeline: PipelineLike | None = None,
    requant: str = "none",
    host_fallback: str = "float",
) -> BinaryModule:
    """Lower a program at any level to a linked :class:`~vta_mlir.binary.BinaryModule`.

    ``source`` is MLIR text, bytes (a ``.vtab`` image or UTF-8 MLIR), a file path
    (``pathlib.Path``), a module from :func:`parse`, or a binary module (returned as it is).
    ``vtaisa`` IR is serialized, ``vta`` IR runs through the command builder, input-level IR
    first through the ``vta-to-isa`` pipeline (on a copy: a module passed in is left as it
    is).  ``pipeline`` — text in MLIR's or xDSL's syntax, or pass instances, as
    :func:`run_pipeline` takes — runs instead of ``vta-to-isa`` (on MLIR at any level, on a
    copy) and must leave ``vta`` or ``vtaisa`` IR.  ``config`` must match the configuration
    the program was built for and applies to a program without one.  ``function`` names the
    function of ``vta`` IR to lower when the module has several.  ``requant="fixed-point"``
    lets ``vta-to-isa`` compute a float requantization in fixed point (``vta-integerize``);
    ``host_fallback="any"`` runs on the host what VTA cannot lower (``vta-to-isa``'s option
    ``host-fallback``; by default only float code).  A ``str`` is always MLIR text: pass a
    ``pathlib.Path`` to read a file.
    """
    cfg = _config(config)
    option = "function="
    pipeline_option = "pipeline="
    if isinstance(source, BinaryModule):
        if function is not None:
            raise VTAError(f"{option} applies to input-level and vta-level IR, not to "
                           f"{Level.BINARY.description}")
        if pipeline is not None:
            raise VTAError(
                f"{pipeline_option} applies to MLIR input, not to {Level.BINARY.description}"
            )
        return _check_binary(source, cfg)
    if isinstance(source, ModuleOp):
        if cfg is not None or pipeline is not None or detect_level(source) == Level.INPUT:
            # Attaching the configuration and the pipelines all change the module.
            source = source.clone()
        if cfg is not None:
            attach_config(source, cfg)
        # Built or changed in Python, it may not have been verified yet.
        verify_op(source)
        return lower_module(
            source,
            function=function,
            function_option=option,
            pipeline=pipeline,
            pipeline_option=pipeline_option,
            requant=requant,
            host_fallback=host_fallback,
        )
    if isinstance(source, str):
        if source.strip().endswith((".mlir", ".vtab")) and not any(c in source for c in "\n{"):
            # A file name can never be MLIR text; say how to read the file.
            raise VTAError(
                f"a str is MLIR text, not a file name: to read '{source.strip()}', pass "
                "pathlib.Path(...)"
            )
        read = Source.from_text(source, "<string>")
    elif isinstance(source, bytes | bytearray | memoryview):
        read = Source.from_bytes(bytes(source), "<bytes>")
    elif isinstance(source, os.PathLike):
        path = Path(source)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise VTAError(f"cannot open input file '{path}': {exc.strerror or exc}") from None
        read = Source.from_bytes(data, str(path))
    else:
        raise TypeError(
            "lower takes MLIR text, bytes, a path, a ModuleOp or a BinaryModule, not "
            f"{type(source).__name__}"
        )
    if read.text is None:
        # A .vtab: its errors stay BinaryFormatErrors, named after the file when there is one.
        try:
            binary = from_bytes(read.data, cfg)
        except BinaryFormatError as exc:
            if isinstance(source, os.PathLike):
                raise BinaryFormatError(f"{read.name}: {exc}") from None
            raise
        return lower(binary, function=function, pipeline=pipeline)
    return to_binary(
        parse_source(read, cfg),
        function=function,
        function_option=option,
        pipeline=pipeline,
        pipeline_option=pipeline_option,
        requant=requant,
        host_fallback=host_fallback,
    )


def compile(
    source: Compilable,
    *,
    config: ConfigLike | None = None,
    function: str | None = None,
    device: Device | None = None,
    pipeline: PipelineLike | None = None,
    requant: str = "none",
    host_fallback: str = "float",
) -> LoadedModule:
    """Lower ``source`` (anything :func:`lower` takes; ``pipeline``, ``requant`` and
    ``host_fallback`` as there)
    and load it on a simulated device.

    The result is called with numpy arrays — the inputs in signature order, or all by name —
    and returns the outputs in signature order; its ``last_run`` then holds the profiling
    counters, the cycles of the timing model and the per-module busy time.  ``device``
    defaults to a new :class:`~vta_mlir.runtime.device.Device` for the program's
    configuration; a given device's configuration applies to a program without one.
    """
    from vta_mlir.runtime.device import Device

    cfg = _config(config)
    if device is not None:
        if not isinstance(device, Device):
            raise TypeError(f"device must be a vta_mlir.Device, not {type(device).__name__}")
        if cfg is None:
            cfg = device.cfg
    binary = lower(source, config=cfg, function=function, pipeline=pipeline, requant=requant,
                   host_fallback=host_fallback)
    if device is None:
        device = Device(cfg if cfg is not None else binary.config)
    return device.load_module(binary)


def trace(
    program: LoadedModule | Compilable, *, config: ConfigLike | None = None
) -> dict[str, Any]:
    """The Chrome / Perfetto trace of ``program`` under the cycle model: the JSON object
    ``vta-run --trace`` writes (``json.dump`` it to open it in Perfetto or chrome://tracing).

    ``program`` is a module :func:`compile` returned — traced on its device's configuration,
    whose timing parameters the cycle model reads — or anything :func:`lower` takes, lowered
    first with ``config``.  The trace depends on the instructions only, not on the data, so it
    is that of every call; the module need not have been called.
    """
    from vta_mlir.runtime.device import LoadedModule
    from vta_mlir.sim.trace import trace_json

    if isinstance(program, LoadedModule):
        cfg = _config(config)
        if cfg is not None and not program.device.cfg.same_hardware(cfg):
            raise VTAError(
                f"the module is loaded on a device for {program.device.cfg.bitstream}, not for "
                f"{cfg.bitstream}"
            )
        return trace_json(program.module, cfg if cfg is not None else program.device.cfg)
    binary = lower(program, config=config)
    cfg = _config(config)
    return trace_json(binary, cfg if cfg is not None else binary.config)
