"""Input and output of ``vta-run``: the arrays a run reads (``--input`` ``.npy`` files or
``--random-inputs``) and everything it writes (``--output`` arrays, the ``--stats`` JSON, the
``--export-case`` conformance case, the summary line of each output).  The random inputs, the
run record and the statistics object are :mod:`vta_mlir.run`'s and :mod:`vta_mlir.stats`'s,
re-exported here.

Every file is written through :func:`~vta_mlir.tools._cli.open_output`: to a temporary file in
its folder, renamed into place when complete.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from vta_mlir.abi import ArgSpec
from vta_mlir.binary import BinaryModule
from vta_mlir.errors import VTAError
from vta_mlir.ir.diagnostics import one_line
from vta_mlir.program import COUNTER_NAMES, Segment
from vta_mlir.run import RANDOM_RANGE, RunRecord, random_inputs, signature
from vta_mlir.stats import MODULES, stats_json, temporaries_bytes

from ._cli import open_output, write_output

__all__ = [
    "MODULES",
    "RANDOM_RANGE",
    "STATS_KEYS",
    "SUMMARY_VALUES",
    "RunRecord",
    "bind_inputs",
    "check_output_count",
    "conformance_case",
    "random_inputs",
    "requant_json",
    "signature",
    "stats_json",
    "summary",
    "temporaries_bytes",
    "write_json",
    "write_npy",
    "write_npz",
]

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
    "vta_mac_fraction",
    "requant",
)
#: How many leading values the output summary shows.
SUMMARY_VALUES = 8
#: Buffer names usable as they are in the keys of a case file.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.$-]+")


# --------------------------------------------------------------------------------------------
# Arguments


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


def bind_inputs(args: argparse.Namespace, binary: BinaryModule) -> list[np.ndarray]:
    """The inputs of the run: ``--random-inputs``, or one ``--input`` file per argument read."""
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
            f"file(s) were given; it takes {signature(binary)} (or use --random-inputs)"
        )
    return [_load_npy(path, spec) for path, spec in zip(args.input, specs, strict=True)]


def check_output_count(args: argparse.Namespace, binary: BinaryModule) -> None:
    """``--output``, when given, names one file per argument the program writes."""
    count = len(binary.outputs)
    if args.output and len(args.output) != count:
        raise VTAError(
            f"the program writes {count} argument(s) but {len(args.output)} --output "
            f"file(s) were given; it takes {signature(binary)}"
        )


# --------------------------------------------------------------------------------------------
# Runs and their statistics


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


def write_json(path: str, data: dict[str, Any], *, indent: int | None = None) -> None:
    text = json.dumps(data, indent=indent) + "\n"
    write_output(path, text)


def write_npy(path: str, array: np.ndarray) -> None:
    # Through a file object: given a name, numpy would append ".npy" to it.
    with open_output(path) as f:
        np.save(f, array, allow_pickle=False)


def write_npz(path: str, arrays: dict[str, Any]) -> None:
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

