"""The ResNet-18 convolution layers C1–C11 (``docs/performance.md`` §4.2) on the simulator: cycles
of the timing model against the GEMM and compute bounds, DRAM traffic against the compulsory bytes,
compile time, and a bit-exact check against numpy.

Each layer is generated as upstream MLIR by ``resnet18_layers.conv_mlir`` (zero padding in the
memref idiom, ``linalg.conv_2d_nchw_fchw``, the epilogue ``>> 8``, ``+ bias``, clip to
[0, 127] as one ``linalg.generic``), compiled with the ``vta-to-isa`` pipeline (parse, passes
and binary module timed together), run once on a simulated ``Device`` with TVM's benchmark
inputs (activations and weights uniform in [−128, 128), bias in [−16384, 16384), drawn from
``numpy.random.default_rng(SEED)`` for every layer) and its output compared bit for bit with
``resnet18_layers.reference``.

The bounds come from the layer's shape and the configuration only (``resnet18_layers``): the
GEMM bound is the GEMM micro-ops of the convolution (MACs / (BATCH · BLOCK_IN · BLOCK_OUT),
batch and channels rounded up to whole blocks), the compute bound adds the ALU cycles of the
epilogue, the compulsory bytes are what each buffer must move once.  ``x GEMM`` and
``x compute`` are cycles over those bounds; ``x`` after a DRAM figure is its counter over the
compulsory bytes.  The summary compares layers C2–C11 (TVM's benchmark; C1 is commented out
there) with the GEMM bound, and C8 with the cycles of TVM's schedule for it
(``docs/performance.md`` §5.1: convolution_opt, 567,724).

A layer that does not compile, fails on the simulator or differs from the reference gets one
line saying why (the first line of the diagnostic); the others still run.

Usage::

    python benchmarks/resnet18.py [--layers C2,C8] [--config default|block32|batch2|FILE]
                                  [--seed 0] [--residual] [--double-buffer-compare]
                                  [--json FILE] [--no-progress]

The exit status is 1 when any layer failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import resnet18_layers as rl  # noqa: E402

from vta_mlir.atomic_write import write_text as write_atomically  # noqa: E402

if TYPE_CHECKING:
    import numpy as np

    from vta_mlir.binary import BinaryModule
    from vta_mlir.config import VTAConfig

#: Cycles of TVM's schedule for C8 (``docs/performance.md`` §5.1, convolution_opt, timing model v1).
TVM_C8_CYCLES = 567_724
#: The layers of TVM's benchmark (C1 is commented out there).
SUMMARY_LAYERS = tuple(f"C{i}" for i in range(2, 12))
MODULES = ("load", "compute", "store")
BUFFERS = {"inp": "inp_load_nbytes", "wgt": "wgt_load_nbytes", "acc": "acc_load_nbytes",
           "out": "out_store_nbytes"}


def first_line(exc: BaseException) -> str:
    """The first non-empty line of an error (a diagnostic's ``file:line:col: error: ...``)."""
    from vta_mlir.errors import VTAError

    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else ""
    if isinstance(exc, VTAError):
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def compile_layer(text: str, filename: str, cfg: VTAConfig,
                  double_buffer: bool | None = None) -> tuple[BinaryModule, float]:
    """The binary module of ``text`` and the seconds it took (parsing, the ``vta-to-isa``
    pipeline — with ``double-buffer=`` passed to ``vta-tile`` when given — and linking)."""
    from vta_mlir import lower, parse, run_pipeline

    pipeline = "vta-to-isa"
    if double_buffer is not None:
        pipeline += "{double-buffer=" + ("true" if double_buffer else "false") + "}"
    start = time.perf_counter()
    module = parse(text, filename=filename, config=cfg)
    run_pipeline(module, pipeline)
    binary = lower(module)
    return binary, time.perf_counter() - start


def run_binary(binary: BinaryModule, cfg: VTAConfig, inputs: list[np.ndarray],
               expected: np.ndarray) -> dict[str, Any]:
    """Run ``binary`` once on a new simulated device; the figures of the run and the check."""
    import numpy as np

    from vta_mlir import Device

    device = Device(cfg)
    start = time.perf_counter()
    with device.load_module(binary) as mod:
        outputs = mod(*inputs)
        stats = mod.last_run
    seconds = time.perf_counter() - start
    exact = (len(outputs) == 1 and outputs[0].shape == expected.shape
             and bool(np.array_equal(outputs[0].astype(np.int64), expected.astype(np.int64))))
    return {
        "cycles": None if stats.cycles is None else int(stats.cycles),
        "busy": {m: int(stats.busy.get(m, 0)) for m in MODULES},
        "utilisation": {m: float(stats.utilisation.get(m, 0.0)) for m in MODULES},
        "dram": {b: int(stats.counters.get(c, 0)) for b, c in BUFFERS.items()},
        "counters": {k: int(v) for k, v in stats.counters.items()},
        "instructions": int(stats.instructions),
        "uop_words_loaded": int(stats.uop_words_loaded),
        "warnings": list(stats.warnings),
        "sim_seconds": seconds,
        "check": "PASS" if exact else "FAIL",
    }


def bounds(layer: rl.Layer, cfg: VTAConfig, residual: bool) -> dict[str, Any]:
    """The figures of ``layer`` that do not depend on a run."""
    return {
        "shape": {"batch": layer.batch, "height": layer.height, "width": layer.width,
                  "in": layer.in_filter, "out": layer.out_filter, "kernel": [layer.hkernel,
                  layer.wkernel], "pad": [layer.hpad, layer.wpad],
                  "stride": [layer.hstride, layer.wstride]},
        "macs": rl.macs(layer),
        "gemm_bound": rl.gemm_bound(layer, cfg),
        "compute_bound": rl.compute_bound(layer, cfg, residual=residual),
        "compulsory": rl.compulsory(layer, cfg, residual=residual),
    }


def measure_layer(layer: rl.Layer, cfg: VTAConfig, *, seed: int, residual: bool = False,
                  double_buffer_compare: bool = False) -> dict[str, Any]:
    """Compile, run and check one layer (and, when asked, its ``double-buffer=false``
    variant).  Raises what compiling or running raises."""
    import numpy as np

    text = rl.conv_mlir(layer, residual=residual)
    inputs = rl.random_inputs(layer, np.random.default_rng(seed), residual=residual)
    expected = rl.reference(layer, *inputs)
    row = bounds(layer, cfg, residual)
    binary, seconds = compile_layer(text, f"{layer.name}.mlir", cfg)
    row["compile_seconds"] = seconds
    row.update(run_binary(binary, cfg, inputs, expected))
    if double_buffer_compare:
        try:
            single, seconds = compile_layer(text, f"{layer.name}.mlir", cfg, double_buffer=False)
            other = run_binary(single, cfg, inputs, expected)
            other["compile_seconds"] = seconds
        except Exception as exc:  # reported on the layer's row; the default figures stand
            other = {"error": first_line(exc)}
        row["double_buffer_false"] = other
    return row


# ---------------------------------------------------------------------------------------------
# Output


def failed(row: dict[str, Any]) -> bool:
    if "error" in row or row.get("check") != "PASS":
        return True
    other = row.get("double_buffer_false")
    return other is not None and ("error" in other or other.get("check") != "PASS")


def _ratio(a: float | None, b: float | None, digits: int = 2) -> str:
    if a is None or not b:
        return "-"
    return f"{a / b:.{digits}f}"


def _int(v: int | None) -> str:
    return "-" if v is None else f"{v:,}"


def _pct(busy: int, cycles: int | None) -> str:
    return "-" if not cycles else f"{100 * busy / cycles:.0f}%"


def totals(rows: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """Sums over the layers that ran (``None`` when none did)."""
    ok = [r for r in rows.values() if "error" not in r]
    if not ok:
        return None
    cycles = None if any(r["cycles"] is None for r in ok) else sum(r["cycles"] for r in ok)
    return {
        "layers": len(ok),
        "macs": sum(r["macs"] for r in ok),
        "cycles": cycles,
        "gemm_bound": sum(r["gemm_bound"] for r in ok),
        "compute_bound": sum(r["compute_bound"] for r in ok),
        "busy": {m: sum(r["busy"][m] for r in ok) for m in MODULES},
        "dram": {b: sum(r["dram"][b] for r in ok) for b in BUFFERS},
        "compulsory": {b: sum(r["compulsory"][b] for r in ok) for b in BUFFERS},
        "instructions": sum(r["instructions"] for r in ok),
        "uop_words_loaded": sum(r["uop_words_loaded"] for r in ok),
        "compile_seconds": sum(r["compile_seconds"] for r in ok),
        "check": "PASS" if all(r["check"] == "PASS" for r in ok) else "FAIL",
    }


def _table(heads: list[str], rows: list[tuple[str, list[str] | str]]) -> list[str]:
    """Right-aligned columns after a left-aligned label; a row given as a string is printed
    after its label as it is (a failure)."""
    label_width = max([len("layer"), *(len(label) for label, _ in rows)]) + 1
    widths = [max([len(h), *(len(c[i]) for _, c in rows if isinstance(c, list))]) + 2
              for i, h in enumerate(heads)]
    lines = ["layer".ljust(label_width)
             + "".join(h.rjust(w) for h, w in zip(heads, widths, strict=True))]
    for label, cells in rows:
        if isinstance(cells, str):
            lines.append(label.ljust(label_width) + "  " + cells)
        else:
            lines.append(label.ljust(label_width)
                         + "".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)))
    return lines


PERF_HEADS = ["MACs", "cycles", "GEMM bound", "compute bound", "x GEMM", "x compute", "load",
              "compute", "store", "insns", "uops", "compile s", "check"]


def _perf_cells(r: dict[str, Any]) -> list[str]:
    return [
        _int(r["macs"]), _int(r["cycles"]), _int(r["gemm_bound"]), _int(r["compute_bound"]),
        _ratio(r["cycles"], r["gemm_bound"]), _ratio(r["cycles"], r["compute_bound"]),
        *(_pct(r["busy"][m], r["cycles"]) for m in MODULES),
        _int(r["instructions"]), _int(r["uop_words_loaded"]), f"{r['compile_seconds']:.2f}",
        r["check"],
    ]


def _dram_cells(r: dict[str, Any]) -> list[str]:
    cells: list[str] = []
    for b in BUFFERS:
        cells += [_int(r["dram"][b]), _int(r["compulsory"][b]),
                  _ratio(r["dram"][b], r["compulsory"][b])]
    moved, needed = sum(r["dram"].values()), sum(r["compulsory"].values())
    return [*cells, _int(moved), _int(needed), _ratio(moved, needed)]


def format_report(rows: dict[str, dict[str, Any]], compare: bool) -> str:
    """The tables: performance (a failed layer is one line there, and left out of the
    others), DRAM traffic, and double buffering when compared."""
    total = totals(rows)
    ran = {name: r for name, r in rows.items() if "error" not in r}

    def with_total(body: list[tuple[str, list[str] | str]],
                   cells: Any) -> list[tuple[str, list[str] | str]]:
        if total is not None and len(rows) > 1:
            body.append((f"total ({total['layers']})", cells(total)))
        return body

    perf: list[tuple[str, list[str] | str]] = [
        (name, "failed: " + r["error"] if "error" in r else _perf_cells(r))
        for name, r in rows.items()]
    out = ["cycles against the bounds; load, compute, store: busy / cycles of each module",
           *_table(PERF_HEADS, with_total(perf, _perf_cells))]
    for name, r in ran.items():
        out += [f"{name}: warning: {w}" for w in r.get("warnings", ())]
    if not ran:
        return "\n".join(out)

    out += ["", "DRAM bytes moved (the counters) and compulsory (min), per buffer"]
    dram_heads: list[str] = []
    for b in BUFFERS:
        dram_heads += [b, f"{b} min", "x"]
    dram: list[tuple[str, list[str] | str]] = [(n, _dram_cells(r)) for n, r in ran.items()]
    out += _table([*dram_heads, "total", "min", "x"], with_total(dram, _dram_cells))
    if compare:
        out += ["", "double buffering: the default pipeline vs vta-tile{double-buffer=false}"]
        body: list[tuple[str, list[str] | str]] = []
        for name, r in ran.items():
            other = r.get("double_buffer_false")
            if other is None:
                continue
            if "error" in other:
                body.append((name, "double-buffer=false failed: " + other["error"]))
            else:
                body.append((name, [_int(r["cycles"]), _int(other["cycles"]),
                                    _ratio(other["cycles"], r["cycles"], 3),
                                    f"{other['compile_seconds']:.2f}", other["check"]]))
        out += _table(["cycles", "cycles single", "gain", "compile s", "check"], body)
    return "\n".join(out)


def summary(rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """C2–C11 against the GEMM bound, C8 against TVM, and the compile seconds."""
    chosen = {n: r for n, r in rows.items() if n in SUMMARY_LAYERS}
    ran = {n: r for n, r in chosen.items() if "error" not in r and r["cycles"] is not None}
    cycles = sum(r["cycles"] for r in ran.values())
    gemm = sum(r["gemm_bound"] for r in ran.values())
    c8 = rows.get("C8")
    c8_cycles = c8["cycles"] if c8 is not None and "error" not in c8 else None
    return {
        "layers": sorted(ran, key=lambda n: int(n[1:])),
        "selected": len(chosen),
        "cycles": cycles,
        "gemm_bound": gemm,
        "cycles_over_gemm_bound": cycles / gemm if gemm else None,
        "c8_cycles": c8_cycles,
        "tvm_c8_cycles": TVM_C8_CYCLES,
        "c8_over_tvm": c8_cycles / TVM_C8_CYCLES if c8_cycles is not None else None,
        "compile_seconds": sum(r.get("compile_seconds", 0.0) for r in rows.values()),
        "compiled": sum(1 for r in rows.values() if "compile_seconds" in r),
    }


def format_summary(s: dict[str, Any], with_tvm: bool) -> str:
    parts = []
    if s["selected"]:
        parts.append(f"C2-C11: {len(s['layers'])} of {s['selected']} selected layers ran, "
                     f"{s['cycles']:,} cycles / {s['gemm_bound']:,} GEMM bound = "
                     f"{_ratio(s['cycles'], s['gemm_bound'])}")
    if with_tvm and s["c8_cycles"] is not None:
        parts.append(f"C8 {s['c8_cycles']:,} cycles vs TVM {TVM_C8_CYCLES:,} = "
                     f"{s['c8_over_tvm']:.2f}x")
    parts.append(f"compile {s['compile_seconds']:.2f} s ({s['compiled']} layers)")
    return "summary: " + "; ".join(parts)


# ---------------------------------------------------------------------------------------------


def _progress(items: list[rl.Layer], disable: bool) -> Any:
    from tqdm import tqdm

    return tqdm(items, file=sys.stderr, disable=disable, unit="layer", desc="resnet18",
                leave=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    names = [layer.name for layer in rl.LAYERS]
    parser.add_argument("--layers", default=",".join(names),
                        help=f"comma-separated layers (default: all of {', '.join(names)})")
    parser.add_argument("--config", default="default",
                        help="a shipped configuration or a vta_config.json (default: default)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--residual", action="store_true",
                        help="add an int8 residual input to the epilogue of every layer")
    parser.add_argument("--double-buffer-compare", action="store_true",
                        help="also compile with vta-tile{double-buffer=false} and report the "
                             "gain of the default")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (there is none either when stderr is no terminal)")
    args = parser.parse_args(argv)

    from vta_mlir.config import VTAConfig
    from vta_mlir.errors import VTAError

    wanted = [n.strip() for n in args.layers.split(",") if n.strip()]
    unknown = [n for n in wanted if n.upper() not in names]
    if unknown or not wanted:
        parser.error(f"unknown layer(s) {', '.join(unknown) or '(none)'}; known: "
                     f"{', '.join(names)}")
    try:
        cfg = VTAConfig.load(args.config)
    except VTAError as exc:
        parser.error(str(exc))
    selected = [rl.by_name(n, cfg) for n in dict.fromkeys(n.upper() for n in wanted)]

    rows: dict[str, dict[str, Any]] = {}
    bar = _progress(selected, args.no_progress or not sys.stderr.isatty())
    for layer in bar:
        bar.set_postfix_str(layer.name)
        try:
            rows[layer.name] = measure_layer(layer, cfg, seed=args.seed, residual=args.residual,
                                             double_buffer_compare=args.double_buffer_compare)
        except Exception as exc:  # one line per failed layer; the others still run
            rows[layer.name] = {**bounds(layer, cfg, args.residual), "error": first_line(exc)}
    bar.close()

    with_tvm = cfg.bitstream == "1x16_i8w8a32_15_15_18_17" and not args.residual
    print(f"ResNet-18 conv2d layers (docs/performance.md §4.2), configuration {cfg.bitstream}; "
          f"inputs seed {args.seed}{', with a residual input' if args.residual else ''}; "
          "outputs checked against resnet18_layers.reference")
    print(format_report(rows, args.double_buffer_compare))
    s = summary(rows)
    print(format_summary(s, with_tvm))
    if args.json:
        payload = {"config": cfg.bitstream, "seed": args.seed, "residual": args.residual,
                   "layers": rows, "summary": s}
        write_atomically(args.json, json.dumps(payload, indent=2) + "\n")
    return 1 if any(failed(r) for r in rows.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
