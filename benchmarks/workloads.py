"""What the compiled workloads do on the simulator: instructions, micro-op words loaded, the
seven profiling counters and the cycles of the timing model, beside the figures of TVM's own
VTA compiler for the tutorials (``docs/performance.md`` §5.1: TVM v0.18.0, default configuration,
the same timing model).

Each input-level program of ``examples/`` is compiled with ``vta_mlir.compile`` for the
configuration, run once on random inputs (``vta-run --random-inputs``'s, seed 0) and its outputs
compared bit for bit with the numpy reference evaluator (``vta_mlir.reference``).  TVM's figures
are printed under the matching workload on the default configuration only, where they were
measured; ``vs TVM`` is our cycles over TVM's.

Usage::

    python benchmarks/workloads.py [--config default|block32|batch2|FILE] [--json FILE]
                                   [WORKLOAD ...]

The exit status is 1 when a workload does not compile or its outputs differ from the reference.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from vta_mlir.atomic_write import write_text as write_atomically

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

COUNTERS = (
    "inp_load_nbytes",
    "wgt_load_nbytes",
    "acc_load_nbytes",
    "uop_load_nbytes",
    "out_store_nbytes",
    "gemm_counter",
    "alu_counter",
)

#: TVM's figures (docs/performance.md §5.1), by the example that implements each tutorial.
TVM: dict[str, dict[str, Any]] = {
    "vector_add": {
        "tutorial": "vta_get_started",
        "instructions": 8,
        "uop_words_loaded": 1,
        "counters": {"inp_load_nbytes": 0, "wgt_load_nbytes": 0, "acc_load_nbytes": 8192,
                     "uop_load_nbytes": 4, "out_store_nbytes": 1024, "gemm_counter": 0,
                     "alu_counter": 64},
        "cycles": 1_415,
    },
    "matrix_multiply": {
        "tutorial": "matrix_multiply",
        "instructions": 56,
        "uop_words_loaded": 2,
        "counters": {"inp_load_nbytes": 256, "wgt_load_nbytes": 65_536, "acc_load_nbytes": 0,
                     "uop_load_nbytes": 8, "out_store_nbytes": 256, "gemm_counter": 256,
                     "alu_counter": 0},
        "cycles": 9_720,
    },
    "matrix_multiply_opt": {
        "tutorial": "matrix_multiply_opt",
        "instructions": 142,
        "uop_words_loaded": 5,
        "counters": {"inp_load_nbytes": 4_096, "wgt_load_nbytes": 1_048_576,
                     "acc_load_nbytes": 0, "uop_load_nbytes": 20, "out_store_nbytes": 1_024,
                     "gemm_counter": 4_096, "alu_counter": 192},
        "cycles": 139_432,
    },
}
TVM_CONFIG = "1x16_i8w8a32_15_15_18_17"


def workload_names() -> list[str]:
    return sorted(p.stem for p in EXAMPLES.glob("*.mlir"))


def run_workload(name: str, cfg: Any) -> dict[str, Any]:
    """Compile, run on random inputs, check against the reference; the figures of the run."""
    from vta_mlir import compile
    from vta_mlir.reference import evaluate
    from vta_mlir.tools.vta_run import random_inputs

    path = EXAMPLES / f"{name}.mlir"
    module = compile(path, config=cfg)
    inputs = random_inputs(module.inputs, 0)
    outputs = module(*inputs)
    expected = evaluate(path, inputs)
    exact = len(expected) == len(outputs) and all(
        (want.astype("int64") == got.astype("int64")).all()
        for want, got in zip(expected, outputs, strict=True)
    )
    stats = module.last_run
    return {
        "instructions": int(stats.instructions),
        "uop_words_loaded": int(stats.uop_words_loaded),
        "counters": {k: int(stats.counters.get(k, 0)) for k in COUNTERS},
        "cycles": None if stats.cycles is None else int(stats.cycles),
        "check": "PASS" if exact else "FAIL",
    }


HEADS = ("insns", "uops", "inp_load", "wgt_load", "acc_load", "uop_load", "out_store", "gemm",
         "alu", "cycles")


def _cells(row: dict[str, Any]) -> list[str]:
    counters = row["counters"]
    cycles = row["cycles"]
    return [f"{row['instructions']:,}", f"{row['uop_words_loaded']:,}",
            *(f"{counters[k]:,}" for k in COUNTERS),
            "-" if cycles is None else f"{cycles:,}"]


def format_table(results: dict[str, dict[str, Any] | str], with_tvm: bool) -> str:
    labels = {name: name for name in results}
    rows: list[tuple[str, list[str], str]] = []
    for name, row in results.items():
        if isinstance(row, str):
            rows.append((name, [], "failed: " + row))
            continue
        tvm = TVM.get(name) if with_tvm else None
        ratio = ""
        if tvm is not None and row["cycles"] is not None:
            ratio = f"{row['cycles'] / tvm['cycles']:.2f}"
        rows.append((labels[name], _cells(row), f"{ratio:>6s}  {row['check']}"))
        if tvm is not None:
            rows.append((f"  TVM {tvm['tutorial']}", _cells(tvm), ""))
    widths = [max(len(h), *(len(cells[i]) for _, cells, _ in rows if cells)) + 2
              for i, h in enumerate(HEADS)]
    label_width = max(len("workload"), *(len(label) for label, _, _ in rows)) + 1
    lines = ["workload".ljust(label_width)
             + "".join(h.rjust(w) for h, w in zip(HEADS, widths, strict=True))
             + "  vs TVM  check"]
    for label, cells, tail in rows:
        if not cells:
            lines.append(label.ljust(label_width) + "  " + tail)
            continue
        lines.append((label.ljust(label_width)
                      + "".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))
                      + "  " + tail).rstrip())
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workloads", nargs="*", metavar="WORKLOAD",
                        help=f"example names (default: all of {', '.join(workload_names())})")
    parser.add_argument("--config", default="default",
                        help="a shipped configuration or a vta_config.json (default: default)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)

    from vta_mlir.config import VTAConfig
    from vta_mlir.errors import VTAError
    from vta_mlir.ir.diagnostics import one_line

    known = workload_names()
    unknown = [w for w in args.workloads if w not in known]
    if unknown:
        parser.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(known)}")
    try:
        cfg = VTAConfig.load(args.config)
    except VTAError as exc:
        parser.error(str(exc))

    results: dict[str, dict[str, Any] | str] = {}
    for name in args.workloads or known:
        try:
            results[name] = run_workload(name, cfg)
        except VTAError as exc:
            results[name] = one_line(str(exc))

    with_tvm = cfg.bitstream == TVM_CONFIG
    print(f"configuration {cfg.bitstream}; inputs: vta-run --random-inputs, seed 0; "
          "outputs checked against vta_mlir.reference")
    print(format_table(results, with_tvm))
    if args.json:
        payload = {"config": cfg.bitstream, "workloads": results,
                   "tvm": TVM if with_tvm else {}}
        write_atomically(args.json, json.dumps(payload, indent=2) + "\n")
    failed = any(isinstance(r, str) or r["check"] != "PASS" for r in results.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
