"""``vta-run``: run a program on the bit-exact VTA simulator, with numpy arrays in and out.

Usage::

    vta-run gemm.vtab --input x.npy --input w.npy --output y.npy --stats -
    vta-run host.mlir --random-inputs --seed 3 --export-case host.npz --trace host.json
    vta-run gemm.vtab --config block32 --random-inputs          # prints a summary of y
    vta-run gemm.mlir --random-inputs --check                   # compare with numpy

The program is a ``.vtab`` or MLIR at any level, loaded as ``vta-translate`` loads it
(:mod:`vta_mlir.driver`).  Arguments bind in signature order: one ``--input PATH.npy``
per argument the function reads (``in`` and ``inout``) and, optionally, one ``--output
PATH.npy`` per argument it writes (``out`` and ``inout``); an argument both read and written
takes both.  A program on tensors is bufferized first (``vta-bufferize``): its results are
trailing out-parameters, so their ``--output`` files come after those of the arguments it
writes, in the order of the results.  ``--random-inputs`` generates the inputs instead
(numpy's ``default_rng(--seed)``, a non-negative seed, values in [-128, 127] whatever the
integer type, so sums and products stay meaningful after the 8-bit truncation of the
results).  Without
``--output``, a summary of each output (shape, dtype, first values) is printed — on stdout,
or on stderr when stdout carries ``--stats -``.
An argument with ``vta.quant`` (a float edge of the model) takes and returns float32 arrays:
the host quantizes the input and dequantizes the output (:mod:`vta_mlir.abi`); its random
inputs are floats drawn uniformly from the values that quantize into [-128, 127].

``--config`` names the configuration (default: the program's own, else the default one).
``--stats FILE|-`` writes the run's statistics as JSON (:data:`STATS_KEYS`; ``host_steps`` lists
the quantize / dequantize steps the host ran and their seconds; ``requant`` what
``vta-integerize`` did, or null); ``--requant`` (``fixed-point`` by default, or ``none``) is
``vta-to-isa``'s option for networks that requantize in float; ``--trace FILE``
a Chrome/Perfetto trace of the cycle model; ``--export-case FILE.npz`` the run as a conformance
case that ``python -m vta_mlir.sim.conformance`` replays (see :func:`conformance_case`).
``--check`` evaluates an input-level program on the same inputs with the numpy reference
evaluator (:mod:`vta_mlir.reference`) and compares every output bit for bit: it prints
``check: PASS``, or one line naming the first differing element and how many differ and exits
with status 1 (after writing the outputs and statistics).  Lower levels have no reference
semantics to compare with.
``--check-hazards`` analyses the program's instruction stream (:mod:`vta_mlir.sim.hazards`) and
prints one ``hazard:`` line per pair of instructions of different modules that access common
SRAM elements, at least one writing them, with no dependency token ordering them, then
``hazards: N found``; any hazard makes the exit status 1.
``-p PIPELINE`` or ``--pass-pipeline PIPELINE`` (spelled as for ``vta-opt``) runs that pipeline
instead of ``vta-to-isa`` — e.g. its stages with a pass of a plugin among them — and must leave
``vta`` IR (lowered by the host lowering) or ``vtaisa`` IR; ``--check`` still evaluates the
original input program.
Every output file is written to a temporary file in its folder and renamed into place
(:mod:`vta_mlir.atomic_write`): an interrupted or concurrent run leaves the complete new file or
the old one.  Every error is one MLIR-style line on stderr with exit status 1 (an interrupt:
``interrupted``, exit status 130).  The pass plugins named by
``VTA_MLIR_PASS_PLUGINS`` (``os.pathsep``-separated ``.py`` files or module names), then those
of ``--load-pass-plugin FILE.py|MODULE`` (repeatable), are imported first.

Reading the inputs and writing the outputs, statistics and conformance case are
:mod:`.vta_run_io`'s; running and checking are :mod:`vta_mlir.run`'s (``run_program``,
``check_outputs``), the statistics :mod:`vta_mlir.stats`'s; this module parses the command line
and drives them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp

from vta_mlir import __version__
from vta_mlir.driver import Level, Source, parse_source, to_binary
from vta_mlir.errors import VTAError
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.ir.pipeline import available_passes, build_pipeline
from vta_mlir.run import check_outputs, check_sram_indices, run_program
from vta_mlir.sim.trace import trace_json

from ._cli import (
    CLIArgumentParser,
    add_pipeline_arguments,
    check_output_paths,
    check_outputs_spare_inputs,
    load_config,
    load_pass_plugins,
    pipeline_spec,
    print_diagnostic,
    read_source,
    run_guarded,
)
from .vta_run_io import (
    RANDOM_RANGE,
    STATS_KEYS,
    RunRecord,
    bind_inputs,
    check_output_count,
    conformance_case,
    random_inputs,
    requant_json,
    stats_json,
    summary,
    temporaries_bytes,
    write_json,
    write_npy,
    write_npz,
)

__all__ = [
    "RANDOM_RANGE",
    "STATS_KEYS",
    "RunRecord",
    "check_outputs",
    "conformance_case",
    "main",
    "random_inputs",
    "run_program",
    "stats_json",
    "temporaries_bytes",
]

PROG = "vta-run"

def _seed(text: str) -> int:
    """``--seed``: numpy's generators take only non-negative seeds."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, not {value}")
    return value


def _arg_parser() -> argparse.ArgumentParser:
    p = CLIArgumentParser(
        prog=PROG,
        description="Run a .vtab or an .mlir program (any level) on the VTA simulator.",
    )
    p.add_argument("input_file", help="program: .vtab or .mlir file ('-': stdin)")
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
        help="the function to run, when the module has several",
    )
    p.add_argument("--host-fallback", choices=("float", "any"), default="float",
                   help="what runs on the host when VTA cannot compute it: only float code "
                        "(default), or any op vta-pack refuses (vta-to-isa{host-fallback=any})")
    p.add_argument("--requant", choices=("fixed-point", "none"), default="fixed-point",
                   help="a network that requantizes in float (torch-mlir's output for a "
                        "quantized model) computes it in fixed point, within one rounding step "
                        "(the default), or stops with an error (none); vta-integerize")
    # Instead of vta-to-isa: a pipeline that leaves vta or vtaisa IR.
    add_pipeline_arguments(p)
    p.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="PATH.npy",
        help="one per argument the function reads, in signature order",
    )
    p.add_argument(
        "--output",
        action="append",
        default=[],
        metavar="PATH.npy",
        help="one per argument the function writes, in signature order",
    )
    p.add_argument("--random-inputs", action="store_true", help="generate the inputs (see --seed)")
    p.add_argument(
        "--seed", type=_seed, default=None, metavar="N",
        help="seed of --random-inputs, a non-negative integer (default 0)",
    )
    p.add_argument("--stats", default=None, metavar="FILE|-", help="write run statistics as JSON")
    p.add_argument(
        "--trace", default=None, metavar="FILE.json", help="write a Chrome trace of the run"
    )
    p.add_argument(
        "--export-case",
        default=None,
        metavar="FILE.npz",
        help="write the run as a conformance case",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="compare the results with a numpy evaluation of the input program",
    )
    p.add_argument(
        "--check-hazards",
        action="store_true",
        help="report SRAM elements two modules access with no dependency token ordering them",
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return p


# --------------------------------------------------------------------------------------------
# The driver


def _check_request(level: Level) -> None:
    """``--check`` compares with the input program's own semantics, which only input-level IR
    has."""
    if level != Level.INPUT:
        raise VTAError(
            f"--check: nothing to check against: {level.description} has no reference "
            "semantics (--check needs input-level IR)"
        )


def _pipeline_option(args: argparse.Namespace) -> str:
    """The flag that gave the pass pipeline, for messages."""
    return "-p" if args.passes is not None else "--pass-pipeline"


def _run(argv: Sequence[str] | None) -> int:
    args = _arg_parser().parse_args(argv)
    if args.stats == "-" and args.trace == "-":
        raise VTAError("--stats and --trace cannot both write to stdout")
    outputs = [*(args.output or []), args.stats, args.trace, args.export_case]
    check_outputs_spare_inputs([args.input_file, *(args.input or [])], outputs)
    check_output_paths(outputs)
    load_pass_plugins(args)
    spec = pipeline_spec(args)
    # Built before reading the input, so that a typo in it is one clear error.
    pipeline = None if spec is None else build_pipeline(spec, available_passes()).passes
    cfg = load_config(args.config)
    source: Source | None = None
    reference: ModuleOp | None = None
    try:
        source = read_source(args.input_file)
        parsed = parse_source(source, cfg)
        if args.check:
            _check_request(parsed.level)
            # Lowering rewrites the module in place; the reference evaluates the original.
            assert parsed.module is not None
            reference = parsed.module.clone()
        binary = to_binary(
            parsed,
            function=args.function,
            pipeline=pipeline,
            pipeline_option=_pipeline_option(args),
            requant=args.requant,
            host_fallback=args.host_fallback,
        )
    except DiagnosticError as exc:
        print_diagnostic(exc, source)
        return 1

    check_output_count(args, binary)
    inputs = bind_inputs(args, binary)
    run_cfg = cfg if cfg is not None else binary.config
    check_sram_indices(binary, run_cfg)
    record = run_program(binary, run_cfg, inputs)
    for warning in record.stats.warnings:
        print(f"{PROG}: warning: {warning}", file=sys.stderr)
    on_host = [s["operation"] for s in record.stats.host_steps if s["step"] == "compute"]
    if on_host:
        print(f"{PROG}: warning: ran on the host, not on VTA: {', '.join(on_host)}",
              file=sys.stderr)
    problems: list[str] | None = None
    if reference is not None:
        try:
            problems = check_outputs(reference, binary, inputs, record.outputs,
                                     function=args.function)
        except DiagnosticError as exc:
            print_diagnostic(exc, source)
            return 1

    hazards = None
    if args.check_hazards:
        from vta_mlir.sim.hazards import program_hazards

        hazards = program_hazards(binary.program, run_cfg)

    # Everything that can fail is computed before the first file is written.
    trace = trace_json(binary, run_cfg) if args.trace is not None else None
    case = None
    if args.export_case is not None:
        meta = {
            "source": source.name,
            "level": parsed.level.value,
            "seed": (0 if args.seed is None else args.seed) if args.random_inputs else None,
            "checked_against_numpy": problems == [],
        }
        case = conformance_case(record, meta=meta)

    for path, array in zip(args.output, record.outputs, strict=False):
        write_npy(path, array)
    if case is not None:
        write_npz(args.export_case, case)
    if trace is not None:
        write_json(args.trace, trace)
    if args.stats is not None:
        stats = stats_json(record.stats, record.binary)
        stats["requant"] = requant_json(parsed.module)
        write_json(args.stats, stats, indent=2)
    # stdout belongs to the JSON when it carries --stats/--trace.
    stream = sys.stderr if "-" in (args.stats, args.trace) else sys.stdout
    if not args.output:
        for spec, array in zip(binary.outputs, record.outputs, strict=True):
            print(summary(spec, array), file=stream)
    if problems is not None:
        print("check: PASS" if not problems else "check: FAIL: " + "; ".join(problems),
              file=stream)
    if hazards is not None:
        for hazard in hazards:
            print(hazard, file=stream)
        print(f"hazards: {len(hazards)} found", file=stream)
    stream.flush()
    return 1 if problems or hazards else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``vta-run`` with ``argv`` (``sys.argv[1:]`` when ``None``); returns the exit status."""
    return run_guarded(PROG, _run, argv)


if __name__ == "__main__":
    sys.exit(main())
