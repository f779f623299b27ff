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
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from vta_mlir import __version__
from vta_mlir.abi import ArgSpec, dequantize, quantize
from vta_mlir.binary import BinaryModule
from vta_mlir.binary_checks import sram_index_problems
from vta_mlir.config import VTAConfig
from vta_mlir.driver import Level, Source, parse_source, to_binary
from vta_mlir.errors import VTAError
from vta_mlir.ir.diagnostics import DiagnosticError, one_line
from vta_mlir.ir.pipeline import available_passes, build_pipeline
from vta_mlir.program import COUNTER_NAMES, Segment
from vta_mlir.sim.trace import trace_json

from ._cli import (
    CLIArgumentParser,
    add_pipeline_arguments,
    load_config,
    load_pass_plugins,
    open_output,
    pipeline_spec,
    print_diagnostic,
    read_source,
    run_guarded,
    write_output,
)

__all__ = [
    "RANDOM_RANGE",
    "STATS_KEYS",
    "check_outputs",
    "conformance_case",
    "main",
    "random_inputs",
    "stats_json",
    "temporaries_bytes",
]

PROG = "vta-run"

#: The keys of the ``--stats`` JSON object.
STATS_KEYS: tuple[str, ...] = (
    "counters",
    "instructions",
    "by_opcode",
    "uop_words_loaded",
    "runs",
    "cycles",
    "busy",
    "layers",
    "temporaries_bytes",
    "host_steps",
    "requant",
)
#: Module names of the ``busy`` object.
MODULES: tuple[str, ...] = ("load", "compute", "store")
#: Range of ``--random-inputs`` values (clipped to the type's range).
RANDOM_RANGE: tuple[int, int] = (-128, 127)
#: How many leading values the output summary shows.
SUMMARY_VALUES = 8
#: Buffer names usable as they are in the keys of a case file.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.$-]+")


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
# Arguments


def _signature(binary: BinaryModule) -> str:
    def one(a: ArgSpec) -> str:
        return f"{a.name}: {'x'.join(map(str, a.shape))}x{a.host_dtype}"

    ins = ", ".join(one(a) for a in binary.inputs)
    outs = ", ".join(one(a) for a in binary.outputs)
    return f"({ins}) -> ({outs})"


def random_inputs(specs: Sequence[ArgSpec], seed: int) -> list[np.ndarray]:
    """Deterministic random arrays for ``specs``: integers in :data:`RANDOM_RANGE` (clipped to
    each dtype's range), drawn in signature order from ``numpy.random.default_rng(seed)``;
    for a quantized argument, float32 values uniform over those that quantize into
    :data:`RANDOM_RANGE`, ``[(-128 - zero_point) * scale, (127 - zero_point) * scale]``."""
    if seed < 0:
        raise VTAError(f"the seed of random inputs must be a non-negative integer, not {seed}")
    rng = np.random.default_rng(seed)
    arrays = []
    for spec in specs:
        if spec.quant is not None:
            scale, zero_point = spec.quant.scale, spec.quant.zero_point
            lo, hi = (RANDOM_RANGE[0] - zero_point) * scale, (RANDOM_RANGE[1] - zero_point) * scale
            arrays.append(rng.uniform(lo, hi, size=spec.shape).astype(np.float32))
            continue
        info = np.iinfo(np.dtype(spec.dtype))
        lo, hi = max(RANDOM_RANGE[0], info.min), min(RANDOM_RANGE[1], info.max)
        arrays.append(rng.integers(lo, hi, size=spec.shape, dtype=spec.dtype, endpoint=True))
    return arrays


def _load_npy(path: str, spec: ArgSpec) -> np.ndarray:
    try:
        array = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise VTAError(f"cannot open input file '{path}': No such file or directory") from None
    except (OSError, ValueError, EOFError) as exc:
        # numpy takes any file that is not a .npy for a pickle, which allow_pickle refuses.
        reason = "not a .npy file" if "pickle" in str(exc) else one_line(str(exc))
        raise VTAError(f"cannot read '{path}' as a .npy array: {reason}") from None
    if not isinstance(array, np.ndarray):
        raise VTAError(f"'{path}' holds several arrays (.npz); give one .npy per argument")
    try:
        return spec.check_array(array)
    except VTAError as exc:
        raise VTAError(f"{path}: {exc}") from None


def _bind_inputs(args: argparse.Namespace, binary: BinaryModule) -> list[np.ndarray]:
    specs = binary.inputs
    if args.random_inputs:
        if args.input:
            raise VTAError("give either --input files or --random-inputs, not both")
        return random_inputs(specs, 0 if args.seed is None else args.seed)
    if args.seed is not None:
        raise VTAError("--seed applies only with --random-inputs")
    if len(args.input) != len(specs):
        raise VTAError(
            f"the program reads {len(specs)} argument(s) but {len(args.input)} --input "
            f"file(s) were given; it takes {_signature(binary)} (or use --random-inputs)"
        )
    return [_load_npy(path, spec) for path, spec in zip(args.input, specs, strict=True)]


def _check_outputs(args: argparse.Namespace, binary: BinaryModule) -> None:
    count = len(binary.outputs)
    if args.output and len(args.output) != count:
        raise VTAError(
            f"the program writes {count} argument(s) but {len(args.output)} --output "
            f"file(s) were given; it takes {_signature(binary)}"
        )


# --------------------------------------------------------------------------------------------
# Running


@dataclass
class RunRecord:
    """One call of the program: its inputs, outputs and statistics, and the DRAM contents of
    every segment just before the first run and just after the last."""

    binary: BinaryModule
    config: VTAConfig
    inputs: list[np.ndarray]
    outputs: tuple[np.ndarray, ...]
    stats: Any
    before: dict[str, np.ndarray]
    after: dict[str, np.ndarray]


def run_program(binary: BinaryModule, cfg: VTAConfig, inputs: Sequence[np.ndarray]) -> RunRecord:
    """Load ``binary`` on a fresh simulated device for ``cfg`` and call it once."""
    from vta_mlir.runtime.device import Device

    device = Device(cfg)
    loaded = device.load_module(binary)
    segments = binary.program.segments
    # After loading, DRAM holds the constants and staging images; the call then writes the
    # packed inputs, so this plus the packed images is the state the first run starts from.
    before = {s.name: device.read(s.phys, s.nbytes).copy() for s in segments}
    for spec, array in zip(binary.inputs, inputs, strict=True):
        before[spec.segment] = np.frombuffer(spec.pack(array), dtype=np.uint8).copy()
    given = {spec.name: array for spec, array in zip(binary.inputs, inputs, strict=True)}
    for copy in binary.copies:  # an argument read in a second layout: packed into both
        before[copy.segment] = np.frombuffer(copy.pack(given[copy.copy_of]), np.uint8).copy()
    outputs = loaded.run(list(inputs))
    after = {s.name: device.read(s.phys, s.nbytes).copy() for s in segments}
    return RunRecord(binary, cfg, list(inputs), outputs, loaded.last_run, before, after)


def temporaries_bytes(binary: BinaryModule) -> int:
    """The device DRAM of the program's temporaries — the intermediate activations of a
    network, placed by lifetime in one scratch segment (``vta_mlir/host/dram_reuse.py``): the
    peak of what is live at once, 0 without any."""
    from vta_mlir.host.layout import TEMPORARIES_SEGMENT

    args = {a.name for a in binary.args}
    return sum(s.nbytes for s in binary.program.segments
               if s.name == TEMPORARIES_SEGMENT and s.data is None and s.name not in args)


def stats_json(stats: Any, binary: BinaryModule | None = None) -> dict[str, Any]:
    """The ``--stats`` object of a :class:`~vta_mlir.runtime.device.RunStats`; with the
    ``binary`` that ran, also its ``temporaries_bytes`` and the call's ``host_steps``."""
    busy = {m: int(stats.busy.get(m, 0)) for m in MODULES}
    extra: dict[str, Any] = {}
    if binary is not None:
        extra["temporaries_bytes"] = temporaries_bytes(binary)
        extra["host_steps"] = [dict(step) for step in getattr(stats, "host_steps", [])]
    return {
        "counters": {k: int(stats.counters.get(k, 0)) for k in COUNTER_NAMES},
        "instructions": int(stats.instructions),
        "by_opcode": {str(k): int(v) for k, v in sorted(stats.by_opcode.items())},
        "uop_words_loaded": int(stats.uop_words_loaded),
        "runs": int(stats.runs),
        "cycles": None if stats.cycles is None else int(stats.cycles),
        "busy": busy,
        "layers": [dict(layer) for layer in getattr(stats, "layers", [])],
        **extra,
    }


def requant_json(module: ModuleOp | None) -> dict[str, Any] | None:
    """What ``vta-integerize`` did to the module (its ``vta.requant`` attribute): the mode, the
    layers it wrote and the largest error of their fixed-point requantization against the
    float one, in output steps; None when it did not run."""
    from xdsl.dialects.builtin import DictionaryAttr, FloatAttr, IntegerAttr, StringAttr

    from vta_mlir.passes.integerize import REQUANT_ATTR_NAME

    attr = None if module is None else module.attributes.get(REQUANT_ATTR_NAME)
    if not isinstance(attr, DictionaryAttr):
        return None
    mode, error, layers = (attr.data.get(k) for k in ("mode", "max_error_steps", "layers"))
    if not (isinstance(mode, StringAttr) and isinstance(error, FloatAttr)
            and isinstance(layers, IntegerAttr)):
        return None
    return {"mode": mode.data, "layers": layers.value.data,
            "max_error_steps": error.value.data}


# --------------------------------------------------------------------------------------------
# Conformance case


def _staging_segments(binary: BinaryModule) -> set[str]:
    """Segments holding a run's micro-op staging image: the case carries those as ``uops``."""
    names = set()
    for run in binary.program.runs:
        if len(run.uop_words):
            for seg in binary.program.segments:
                if seg.phys <= run.uop_base < seg.phys + seg.nbytes:
                    names.add(seg.name)
    return names


def _buffers(binary: BinaryModule) -> list[tuple[str, Segment, dict[str, Any]]]:
    """The data buffers of a case, in address order: ``(case name, segment, description)``.

    Arguments are named after the function's arguments (``arg<i>`` when a name cannot be a
    key of the case file), constant segments ``const<i>``, other DRAM buffers ``tmp<i>``.
    """
    by_segment = {a.segment: (i, a) for i, a in enumerate(binary.args)}
    staging = _staging_segments(binary)
    taken: set[str] = set()
    consts = tmps = 0
    found = []
    for seg in sorted(binary.program.segments, key=lambda s: s.phys):
        info: dict[str, Any] = {"segment": seg.name, "phys": seg.phys, "nbytes": seg.nbytes}
        if seg.name in by_segment:
            index, spec = by_segment[seg.name]
            name = spec.name if _PLAIN_NAME.fullmatch(spec.name) else f"arg{index}"
            info.update(
                kind="argument",
                argument=spec.name,
                index=index,
                direction=spec.direction,
                dtype=spec.dtype,
                shape=list(spec.shape),
                packed_dtype=spec.packed_dtype,
                packed_shape=list(spec.packed_shape),
            )
        elif seg.data is not None:
            name, consts = f"const{consts}", consts + 1
            info["kind"] = "constant"
        elif seg.name in staging:
            continue
        else:
            name, tmps = f"tmp{tmps}", tmps + 1
            info["kind"] = "scratch"
        unique, n = name, 1
        while unique in taken:
            unique, n = f"{name}_{n}", n + 1
        taken.add(unique)
        found.append((unique, seg, info))
    return found


def conformance_case(record: RunRecord, *, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The arrays of a conformance case (the shared ``.npz`` format) of one call.

    Every run's instruction words and micro-op staging image, every data buffer (see
    :func:`_buffers`) before and after the call, the seven counters the call produced, the
    configuration (``config_json``) and a description with the decoded program (``meta_json``).
    """
    binary = record.binary
    runs = binary.program.runs
    streams = binary.run_streams()
    uop_images = [np.asarray(run.uop_words, dtype="<u4").tobytes() for run in runs]
    buffers = _buffers(binary)
    counters = {k: int(record.stats.counters.get(k, 0)) for k in COUNTER_NAMES}

    case: dict[str, Any] = {
        "insns": np.frombuffer(b"".join(streams), dtype=np.uint8),
        "run_insn_count": np.array([len(run.insns) for run in runs], dtype=np.int64),
        # Instructions never reference their own address; the device has none to report.
        "run_insn_phys": np.zeros(len(runs), dtype=np.uint64),
        "uops": np.frombuffer(b"".join(uop_images), dtype=np.uint8),
        "run_uop_base": np.array(
            [run.uop_base if len(run.uop_words) else 0 for run in runs], dtype=np.uint64
        ),
        "run_uop_nbytes": np.array([len(image) for image in uop_images], dtype=np.int64),
        "buf_names": np.array([name for name, _, _ in buffers], dtype=np.str_),
        "buf_phys": np.array([seg.phys for _, seg, _ in buffers], dtype=np.uint64),
        "counters_json": np.array(json.dumps(counters)),
        "config_json": np.array(record.config.to_json()),
    }
    if not buffers:
        case["buf_names"] = np.zeros(0, dtype="<U1")
    for name, seg, _ in buffers:
        case[f"dram_in_{name}"] = record.before[seg.name]
        case[f"expected_{name}"] = record.after[seg.name]

    from vta_mlir.isa import decode_uops
    from vta_mlir.sim.timing import insn_name

    decoded_runs = []
    for run, stream in zip(runs, streams, strict=True):
        uops = decode_uops(np.asarray(run.uop_words, dtype=np.uint32), binary.config)
        decoded_runs.append(
            {
                "insn_count": len(run.insns),
                "insn_bytes": len(stream),
                "uop_base": run.uop_base,
                "uop_words": len(run.uop_words),
                "insns_decoded": [
                    {"name": insn_name(insn), **insn.field_values()} for insn in run.insns
                ],
                "uops_decoded": [[u.dst_idx, u.src_idx, u.wgt_idx] for u in uops],
            }
        )
    description = {
        "description": "a run of vta-run on the vta-mlir simulator",
        "config": record.config.bitstream,
        "base": binary.base,
        "buffers": [{"name": name, **info} for name, _, info in buffers],
        "runs": decoded_runs,
        "histogram": stats_json(record.stats)["by_opcode"],
        "stats": stats_json(record.stats),
        "checked_against_numpy": False,
    }
    description.update(meta or {})
    case["meta_json"] = np.array(json.dumps(description))
    return case


# --------------------------------------------------------------------------------------------
# Writing results


def _write_json(path: str, data: dict[str, Any], *, indent: int | None = None) -> None:
    text = json.dumps(data, indent=indent) + "\n"
    write_output(path, text)


def _write_npy(path: str, array: np.ndarray) -> None:
    # Through a file object: given a name, numpy would append ".npy" to it.
    with open_output(path) as f:
        np.save(f, array, allow_pickle=False)


def _write_npz(path: str, arrays: dict[str, Any]) -> None:
    with open_output(path) as f:
        np.savez(f, **arrays)


def summary(spec: ArgSpec, array: np.ndarray) -> str:
    """One line about an output: name, dtype, shape, the first values, the range."""
    flat = array.reshape(-1)
    # Floats (a dequantized output) print as numpy's shortest repr of the float32, integers
    # as ints.
    value: Any = str if np.issubdtype(array.dtype, np.floating) else int
    shown = ", ".join(str(value(v)) for v in flat[:SUMMARY_VALUES])
    more = ", ..." if flat.size > SUMMARY_VALUES else ""
    span = f" min {value(flat.min())} max {value(flat.max())}" if flat.size else ""
    shape = "x".join(map(str, array.shape))
    return f"{spec.name}: {shape}x{array.dtype} [{shown}{more}]{span}"


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


def _index(flat: int, shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def check_outputs(
    module: ModuleOp,
    binary: BinaryModule,
    inputs: Sequence[np.ndarray],
    outputs: Sequence[np.ndarray],
    *,
    function: str | None = None,
) -> list[str]:
    """Compare a run's ``outputs`` with the numpy reference evaluation of the input-level
    ``module`` on the same ``inputs``; returns one description per output that differs.

    The binary module's arguments are the function's memref arguments in signature order; an
    argument the program does not read starts as zeros, as it does on the device.  The host
    steps of a ``vta.quant`` argument, read from the input program, apply around the
    evaluation as around the run: float inputs are quantized, outputs dequantized, and float
    outputs compared bit for bit.  A program on tensors is evaluated in its bufferized form
    (``vta-bufferize``).
    """
    from vta_mlir.passes.bufferize import BufferizePass, has_tensors
    from vta_mlir.reference import arguments, find_function, run_function

    if has_tensors(module):
        # The reference evaluates memrefs: a tensor program runs in the memref form the
        # compiler lowered, its results the trailing out-parameters (vta.result).
        from vta_mlir.ir.context import make_context

        module = module.clone()
        BufferizePass().apply(make_context(), module)
    f = find_function(module, function)
    args = arguments(f)
    if [a.shape for a in args] != [tuple(spec.shape) for spec in binary.args]:
        raise VTAError(
            f"--check: the arguments of @{f.sym_name.data} do not match the compiled module's "
            f"{_signature(binary)}"
        )
    for arg, spec in zip(args, binary.args, strict=True):
        if arg.quant != spec.quant:
            raise VTAError(
                f"--check: argument '{spec.name}' has quantization {arg.quant} in the input "
                f"program and {spec.quant} in the compiled module"
            )
    given = iter(inputs)
    arrays = []
    for arg, spec in zip(args, binary.args, strict=True):
        if spec.is_input:
            value = np.asarray(next(given))
            arrays.append(value.astype(arg.dtype) if arg.quant is None
                          else quantize(value, arg.quant))
        else:
            arrays.append(np.zeros(arg.shape, dtype=arg.dtype))
    run_function(f, arrays)
    expected = [array if arg.quant is None else dequantize(array, arg.quant)
                for array, arg, spec in zip(arrays, args, binary.args, strict=True)
                if spec.is_output]
    return [problem for spec, want, got in zip(binary.outputs, expected, outputs, strict=True)
            if (problem := _difference(spec.name, want, np.asarray(got))) is not None]


def _difference(name: str, want: np.ndarray, got: np.ndarray) -> str | None:
    """How ``got`` differs from ``want`` (integers by value, floats bit for bit), None if it
    does not."""
    if np.issubdtype(want.dtype, np.floating):
        if got.dtype != want.dtype:
            return f"'{name}' is {got.dtype}, expected {want.dtype}"
        differ = np.flatnonzero(want.reshape(-1).view(np.uint32) != got.reshape(-1).view(np.uint32))
        values: tuple[np.ndarray, np.ndarray] = (want.reshape(-1), got.reshape(-1))
    else:
        values = (want.astype(np.int64).reshape(-1), got.astype(np.int64).reshape(-1))
        differ = np.flatnonzero(values[0] != values[1])
    if not differ.size:
        return None
    first = int(differ[0])
    return (f"{differ.size} of {want.size} elements of '{name}' differ, first at "
            f"{_index(first, want.shape)}: expected {values[0][first]}, got {values[1][first]}")


def _pipeline_option(args: argparse.Namespace) -> str:
    """The flag that gave the pass pipeline, for messages."""
    return "-p" if args.passes is not None else "--pass-pipeline"


def _run(argv: Sequence[str] | None) -> int:
    args = _arg_parser().parse_args(argv)
    if args.stats == "-" and args.trace == "-":
        raise VTAError("--stats and --trace cannot both write to stdout")
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
        )
    except DiagnosticError as exc:
        print_diagnostic(exc, source)
        return 1

    _check_outputs(args, binary)
    inputs = _bind_inputs(args, binary)
    run_cfg = cfg if cfg is not None else binary.config
    _check_indices(binary, run_cfg)
    record = run_program(binary, run_cfg, inputs)
    for warning in record.stats.warnings:
        print(f"{PROG}: warning: {warning}", file=sys.stderr)
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
        _write_npy(path, array)
    if case is not None:
        _write_npz(args.export_case, case)
    if trace is not None:
        _write_json(args.trace, trace)
    if args.stats is not None:
        stats = stats_json(record.stats, record.binary)
        stats["requant"] = requant_json(parsed.module)
        _write_json(args.stats, stats, indent=2)
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


def _check_indices(binary: BinaryModule, cfg: VTAConfig) -> None:
    """Refuse a module with an instruction that indexes past an SRAM or the micro-op table
    (the device would address memory it does not have), naming the first one."""
    problems = sram_index_problems(binary.program, cfg)
    if problems:
        more = f" (and {len(problems) - 1} more such instructions)" if len(problems) > 1 else ""
        raise VTAError(f"{problems[0]}{more}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``vta-run`` with ``argv`` (``sys.argv[1:]`` when ``None``); returns the exit status."""
    return run_guarded(PROG, _run, argv)


if __name__ == "__main__":
    sys.exit(main())
