"""``vta-translate``: between the IR and the binary module — the ``mlir-translate`` of vta-mlir.

Usage::

    vta-translate --emit=bin lowered.mlir -o gemm.vtab      # vtaisa / vta / input IR -> .vtab
    vta-translate --emit=asm gemm.vtab                      # disassembly, one line per instruction
    vta-translate --emit=mlir gemm.vtab -o gemm.mlir        # .vtab -> vtaisa IR
    vta-translate --emit=bin --config block32 host.mlir -o host.vtab

The input (a file, or stdin for ``-`` or nothing) may be a ``.vtab`` (recognized by its magic
bytes), ``vtaisa`` IR (serialized as it is), ``vta``-level IR (lowered through the command
builder straight to instruction words) or input-level IR (lowered by the ``vta-to-isa``
pipeline first); :mod:`vta_mlir.driver` detects which from the ops present.

``--emit=bin`` writes the ``.vtab`` (refused on a terminal: give ``-o`` or redirect);
``--emit=asm`` the disassembler's listing, each run after a ``#`` header (a module summary comes
first, as ``#`` comments too, so ``vta_mlir.isa.parse_asm`` reads the listing back);
``--emit=mlir`` the ``vtaisa.program`` of the module, which translates back to the same bytes.
The listing shows a module as it is, but each instruction that indexes past an SRAM or the
micro-op table (which ``vta-run`` refuses to run) also gets a ``warning:`` line on stderr.
``--config`` names the configuration (a ``vta_config.json`` or a shipped name); an input built
for another one is an error.  Errors are MLIR-style lines on stderr with exit status 1.
The pass plugins named by ``VTA_MLIR_PASS_PLUGINS`` (``os.pathsep``-separated ``.py`` files or
module names) are imported first.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp

from vta_mlir import __version__
from vta_mlir.binary import BinaryModule
from vta_mlir.binary_checks import sram_index_problems
from vta_mlir.driver import Source, parse_source, to_binary, to_isa
from vta_mlir.errors import VTAError
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.ir.pipeline import load_pass_plugins_from_env

from ._cli import (
    CLIArgumentParser,
    load_config,
    print_diagnostic,
    read_source,
    run_guarded,
    write_binary_output,
    write_output,
)

__all__ = ["EMIT_KINDS", "emit_asm", "emit_mlir", "main"]

PROG = "vta-translate"

#: What ``--emit`` can produce.
EMIT_KINDS: tuple[str, ...] = ("bin", "asm", "mlir")


def _arg_parser() -> argparse.ArgumentParser:
    p = CLIArgumentParser(
        prog=PROG,
        description="Translate between vta-mlir IR and .vtab binary modules: IR at any level "
        "(or a .vtab) in; a .vtab, its disassembly or its vtaisa IR out.",
    )
    p.add_argument(
        "input_file", nargs="?", default="-", help="input .mlir or .vtab file ('-': stdin)"
    )
    p.add_argument(
        "--emit",
        required=True,
        choices=EMIT_KINDS,
        help="bin: .vtab binary module; asm: disassembly; mlir: vtaisa IR",
    )
    p.add_argument("-o", "--output-file", default="-", help="output file ('-': stdout)")
    p.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="VTA configuration: a vta_config.json path or default|block32|batch2",
    )
    p.add_argument(
        "--function",
        default=None,
        metavar="NAME",
        help="the function of vta-level IR to lower, when the module has several",
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return p



# --------------------------------------------------------------------------------------------
# Output formats


def emit_asm(binary: BinaryModule) -> str:
    """The disassembly of every run: the module summary and each run's header as ``#``
    comments, then one line per instruction (numbered within the run)."""
    from vta_mlir.isa import disassemble

    lines = [f"# {line.strip()}" for line in binary.describe().splitlines()]
    parts = ["\n".join(lines) + "\n"]
    for r, run in enumerate(binary.program.runs):
        uops = len(run.uop_words)
        staged = f", {uops} micro-op word(s) staged at {run.uop_base:#x}" if uops else ""
        parts.append(f"# run {r}: {len(run.insns)} instruction(s){staged}\n")
        parts.append(disassemble(run.insns))
    return "".join(parts)


def emit_mlir(module: ModuleOp) -> str:
    """The ``vtaisa`` IR of a module holding a ``vtaisa.program`` (and its configuration)."""
    from vta_mlir.ir.context import print_module

    return print_module(module)


def _to_stdout(path: str | None) -> bool:
    return path is None or path == "-"


# --------------------------------------------------------------------------------------------
# The driver


def _run(argv: Sequence[str] | None) -> int:
    args = _arg_parser().parse_args(argv)
    # Refused before any work: the bytes would garble the terminal.
    if args.emit == "bin" and _to_stdout(args.output_file) and sys.stdout.isatty():
        raise VTAError(
            "refusing to write a binary module to a terminal; give -o FILE or redirect stdout"
        )
    load_pass_plugins_from_env()
    cfg = load_config(args.config)
    source: Source | None = None
    try:
        source = read_source(args.input_file)
        parsed = parse_source(source, cfg)
        if args.emit == "mlir":
            # The program's ops as lowered (or as read from a .vtab), never via an image.
            text = emit_mlir(to_isa(parsed, function=args.function))
        else:
            binary = to_binary(parsed, function=args.function)
            if args.emit == "bin":
                data = binary.to_bytes()
            else:
                text = emit_asm(binary)
                for problem in sram_index_problems(binary.program, binary.config):
                    print(f"{PROG}: warning: {problem}", file=sys.stderr)
    except DiagnosticError as exc:
        print_diagnostic(exc, source)
        return 1
    if args.emit == "bin":
        write_binary_output(args.output_file, data)
    else:
        write_output(args.output_file, text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``vta-translate`` with ``argv`` (``sys.argv[1:]`` when ``None``); returns the exit
    status."""
    return run_guarded(PROG, _run, argv)


if __name__ == "__main__":
    sys.exit(main())
