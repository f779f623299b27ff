"""``vta-opt``: parse MLIR, run passes, print MLIR — the ``mlir-opt`` of vta-mlir.

Every upstream dialect xDSL ships plus ``vta`` and ``vtaisa`` (with the fixes of
:mod:`vta_mlir.ir.upstream_fixes`), xDSL's passes plus the project's, plus those of the pass
plugins ``--load-pass-plugin FILE.py|module.name`` (repeatable) and ``VTA_MLIR_PASS_PLUGINS``
name (:func:`vta_mlir.ir.pipeline.load_pass_plugin`).  Pipelines are given as MLIR's
``--pass-pipeline='builtin.module(a,b{opt=v})'`` or xDSL's ``-p a,b{opt=v}``
(:mod:`vta_mlir.ir.pipeline`); nested anchors such as ``func.func(...)`` are flattened, since
every pass runs on the whole module.

Errors are printed as MLIR does (``file:line:col: error: message``, the source line, then the
op), with exit status 1 and no traceback; a run that fails writes no ``-o`` file.
``--verify-diagnostics`` instead checks them against ``// expected-error {{...}}`` annotations.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from vta_mlir import __version__
from vta_mlir.ir.diagnostics import (
    Diagnostic,
    DiagnosticError,
    Severity,
    check_expected_diagnostics,
    collect_diagnostics,
    op_diagnostic,
    parse_expected_diagnostics,
    verify_op,
)
from vta_mlir.ir.locations import location_of
from vta_mlir.ir.pipeline import available_passes, build_pipeline, failing_op
from vta_mlir.ir.stages import observe_stages

from ._cli import (
    CLIArgumentParser,
    InputFile,
    add_pipeline_arguments,
    debug_enabled,
    describe_exception,
    load_pass_plugins,
    pipeline_spec,
    read_input,
    run_guarded,
    write_output,
)

__all__ = ["SPLIT_MARKER", "main", "split_input"]

PROG = "vta-opt"

#: The line separating the chunks of ``--split-input-file`` input (and output).
SPLIT_MARKER = "// -----"

# --------------------------------------------------------------------------------------------
# Input chunks
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    """One part of the input, and how many lines of the file precede it."""

    text: str
    line_offset: int


def split_input(text: str, split: bool) -> list[Chunk]:
    """The chunks of ``text``: separated by lines that are exactly ``// -----`` when
    ``split``, else the whole text."""
    if not split:
        return [Chunk(text, 0)]
    chunks: list[Chunk] = []
    current: list[str] = []
    start = 0
    for index, line in enumerate(text.splitlines(keepends=True)):
        if line.strip() == SPLIT_MARKER:
            chunks.append(Chunk("".join(current), start))
            current = []
            start = index + 1
        else:
            current.append(line)
    chunks.append(Chunk("".join(current), start))
    return chunks


# --------------------------------------------------------------------------------------------
# The driver
# --------------------------------------------------------------------------------------------


def _arg_parser() -> argparse.ArgumentParser:
    p = CLIArgumentParser(
        prog=PROG,
        description="Parse MLIR (every upstream dialect of xDSL plus vta and vtaisa), run a "
        "pass pipeline, print the result.",
    )
    p.add_argument("input_file", nargs="?", default="-", help="input .mlir file ('-': stdin)")
    p.add_argument("-o", "--output-file", default="-", help="output file ('-': stdout)")
    add_pipeline_arguments(p)
    p.add_argument(
        "--split-input-file",
        action="store_true",
        help="process each '// -----' separated chunk on its own",
    )
    p.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check diagnostics against '// expected-error {{...}}' annotations",
    )
    p.add_argument(
        "--mlir-print-ir-after-all",
        action="store_true",
        help="print the IR to stderr after every pass (and every stage of vta-to-isa)",
    )
    p.add_argument(
        "--mlir-print-ir-before-all",
        action="store_true",
        help="print the IR to stderr before every pass (and every stage of vta-to-isa)",
    )
    p.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="VTA configuration: a vta_config.json path or default|block32|batch2",
    )
    p.add_argument(
        "--print-op-generic",
        "--mlir-print-op-generic",
        dest="print_op_generic",
        action="store_true",
        help="print ops in generic form",
    )
    p.add_argument(
        "--print-debuginfo",
        "--mlir-print-debuginfo",
        dest="print_debuginfo",
        action="store_true",
        help='print op locations, loc("file":line:col)',
    )
    p.add_argument(
        "--allow-unregistered-dialect",
        action="store_true",
        help="accept ops and attributes of unknown dialects",
    )
    p.add_argument(
        "--no-verify-each",
        dest="verify_each",
        action="store_false",
        help="do not verify the IR after every pass",
    )
    p.add_argument("--list-passes", action="store_true", help="list the passes and exit")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return p



@dataclass
class Options:
    """What ``vta-opt``'s flags ask for, once parsed."""

    args: argparse.Namespace
    pipeline: PassPipeline
    config: object | None = None
    set_config: Callable[[ModuleOp, object], None] | None = None


@dataclass
class ChunkResult:
    """The outcome of one chunk: the printed module (``None`` when it failed), every
    diagnostic produced, and whether an internal error occurred."""

    output: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list[Diagnostic])
    internal: bool = False

    @property
    def failed(self) -> bool:
        return self.output is None or any(d.severity == Severity.ERROR for d in self.diagnostics)


def _load_config(spec: str) -> tuple[object, Callable[[ModuleOp, object], None]]:
    from vta_mlir.config import VTAConfig

    cfg = VTAConfig.load(spec)
    from vta_mlir.dialects.vta import set_module_config

    return cfg, set_module_config


def _print_ir(banner: str, module: ModuleOp, args: argparse.Namespace) -> None:
    from vta_mlir.ir.context import print_module

    sys.stderr.write(f"// -----// {banner} //----- //\n")
    print_module(
        module,
        sys.stderr,
        generic=args.print_op_generic,
        debuginfo=args.print_debuginfo,
    )
    sys.stderr.write("\n")


def _as_diagnostic(
    exc: BaseException, module: ModuleOp | None, *, at_module: bool = False
) -> tuple[Diagnostic, bool]:
    """The diagnostic for an exception raised while processing a chunk, and whether it is an
    internal error.  It is placed at the op the exception concerns when that is known (a
    :class:`DiagnosticError`, or an op an xDSL pattern was rewriting), else at the module
    when ``at_module``, else nowhere."""
    if isinstance(exc, DiagnosticError):
        return exc.diagnostic, False
    report = describe_exception(exc)
    op = failing_op(exc)
    if op is not None:
        return op_diagnostic(op, report.message), report.internal
    location = location_of(module) if at_module and module is not None else None
    return Diagnostic(report.message, location=location), report.internal


def _pass_callback(
    args: argparse.Namespace,
) -> Callable[[ModulePass | None, ModuleOp, ModulePass | None], None]:
    """Between passes: print the IR if asked, verify it (unless --no-verify-each)."""

    def callback(previous: ModulePass | None, mod: ModuleOp, following: ModulePass | None) -> None:
        if previous is not None:
            if args.mlir_print_ir_after_all:
                _print_ir(f"IR Dump After {previous.name}", mod, args)
            if args.verify_each:
                verify_op(mod)
        if following is not None and args.mlir_print_ir_before_all:
            _print_ir(f"IR Dump Before {following.name}", mod, args)

    return callback


def _stage_callback(
    args: argparse.Namespace,
) -> Callable[[ModulePass | None, ModuleOp, ModulePass | None], None]:
    """Between the stages of a named pipeline (``vta-to-isa``): print the IR if asked.  The
    pipeline verifies its stages itself."""

    def callback(previous: ModulePass | None, mod: ModuleOp, following: ModulePass | None) -> None:
        if previous is not None and args.mlir_print_ir_after_all:
            _print_ir(f"IR Dump After {previous.name}", mod, args)
        if following is not None and args.mlir_print_ir_before_all:
            _print_ir(f"IR Dump Before {following.name}", mod, args)

    return callback


def process_chunk(chunk: Chunk, source: InputFile, ctx: Context, opts: Options) -> ChunkResult:
    """Parse, verify, configure, transform and print one chunk, collecting diagnostics."""
    from vta_mlir.ir.context import parse_module, print_module

    args = opts.args
    module: ModuleOp | None = None
    configuring = False
    with collect_diagnostics() as emitted:
        try:
            module = parse_module(
                chunk.text, filename=source.name, ctx=ctx, line_offset=chunk.line_offset
            )
            # Attach (or check) the configuration first: verifiers read it from the module.
            if opts.set_config is not None:
                configuring = True
                opts.set_config(module, opts.config)
                configuring = False
            verify_op(module)
            printing = args.mlir_print_ir_after_all or args.mlir_print_ir_before_all
            # A named pipeline's stages are printed as its passes, as MLIR prints them.
            with observe_stages(_stage_callback(args) if printing else None):
                opts.pipeline.apply(ctx, module)
            output = print_module(
                module,
                generic=args.print_op_generic,
                debuginfo=args.print_debuginfo,
                ctx=ctx,
            )
            return ChunkResult(output, list(emitted))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # ArgSpecParseError derives from BaseException
            diagnostic, internal = _as_diagnostic(exc, module, at_module=configuring)
            if internal and debug_enabled():
                raise
            return ChunkResult(None, [*emitted, diagnostic], internal)


def _run(argv: Sequence[str] | None) -> int:
    args = _arg_parser().parse_args(argv)
    load_pass_plugins(args)
    passes = available_passes()
    if args.list_passes:
        for name in sorted(passes):
            print(name)
        return 0
    spec = pipeline_spec(args)
    # Built before reading any input, so a typo in it is one clear error.
    opts = Options(args, build_pipeline(spec or "", passes, _pass_callback(args)))
    if args.config is not None:
        opts.config, opts.set_config = _load_config(args.config)

    from vta_mlir.ir.context import make_context

    source = read_input(args.input_file)
    sources = {source.name: source.text}

    outputs: list[str] = []
    status = 0
    for chunk in split_input(source.text, args.split_input_file):
        # A context per chunk, as mlir-opt does: chunks share no dense_resource blobs.
        ctx = make_context(allow_unregistered=args.allow_unregistered_dialect)
        result = process_chunk(chunk, source, ctx, opts)
        if result.output is not None:
            outputs.append(result.output)
        elif args.split_input_file:
            outputs.append("")
        if args.verify_diagnostics:
            expected = parse_expected_diagnostics(
                chunk.text, filename=source.name, line_offset=chunk.line_offset
            )
            problems = check_expected_diagnostics(
                expected, result.diagnostics, filename=source.name
            )
            for problem in problems:
                print(problem.format(sources=sources, show_op=False), file=sys.stderr)
            if problems or result.internal:
                status = 1
        else:
            for diagnostic in result.diagnostics:
                print(diagnostic.format(sources=sources, default_file=source.name), file=sys.stderr)
            if result.failed:
                status = 1

    text = f"{SPLIT_MARKER}\n".join(outputs) if args.split_input_file else "".join(outputs)
    if status and args.output_file not in (None, "-"):
        # As mlir-opt's output file: a failed run leaves none behind (nor truncates an old
        # one), so no partial result is mistaken for a compiled module.
        return status
    write_output(args.output_file, text)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``vta-opt`` with ``argv`` (``sys.argv[1:]`` when ``None``); returns the exit
    status."""
    return run_guarded(PROG, _run, argv)


if __name__ == "__main__":
    sys.exit(main())
