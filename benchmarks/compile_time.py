"""Compile time of the input-level workloads of ``examples/``, pass by pass.

For each workload: parsing (with the configuration attached and the module verified), each pass
of ``vta-to-isa`` run on its own in pipeline order (``VtaToIsaPass().passes()``), the
verification of the module after every pass (as the pipeline does it), and writing the binary
module (the verified ``vtaisa`` program serialised to its image and ``.vtab`` bytes).  Each
figure is the median over ``--repeat`` compilations; the total is the sum of the medians.

Usage::

    python benchmarks/compile_time.py [--config default|block32|batch2|FILE] [--repeat 3]
                                      [--json FILE] [WORKLOAD ...]

The exit status is 1 when a workload does not compile (its row says why).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from vta_mlir.atomic_write import write_text as write_atomically

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def workload_names() -> list[str]:
    """The input-level example programs (``examples/*.mlir``; ``examples/vta/`` holds
    vta-level ones)."""
    return sorted(p.stem for p in EXAMPLES.glob("*.mlir"))


def compile_once(text: str, name: str, cfg: Any) -> dict[str, float]:
    """Seconds spent in each step of one compilation of ``text``."""
    from vta_mlir.dialects.vtaisa_serialize import find_program, serialize
    from vta_mlir.driver import parse_text
    from vta_mlir.ir.context import make_context
    from vta_mlir.ir.diagnostics import verify_op
    from vta_mlir.passes.pipeline import VtaToIsaPass

    times: dict[str, float] = {}
    ctx = make_context()
    start = time.perf_counter()
    module = parse_text(text, filename=name, cfg=cfg, ctx=ctx)
    times["parse"] = time.perf_counter() - start
    verify = 0.0
    for p in VtaToIsaPass().passes():
        start = time.perf_counter()
        p.apply(ctx, module)
        middle = time.perf_counter()
        verify_op(module)
        times[p.name] = middle - start
        verify += time.perf_counter() - middle
    times["verify"] = verify
    start = time.perf_counter()
    # Verified after every pass above, as the driver's pipeline does.
    data = serialize(find_program(module), verified=True).to_bytes()
    times["binary"] = time.perf_counter() - start
    assert data
    return times


def measure(name: str, cfg: Any, repeat: int) -> dict[str, float]:
    """Median seconds of each step over ``repeat`` compilations, plus their total."""
    text = (EXAMPLES / f"{name}.mlir").read_text()
    runs = [compile_once(text, f"{name}.mlir", cfg) for _ in range(repeat)]
    medians = {step: statistics.median(run[step] for run in runs) for step in runs[0]}
    medians["total"] = sum(medians.values())
    return medians


def _columns() -> list[str]:
    from vta_mlir.passes.pipeline import VtaToIsaPass

    return ["parse", *(p.name for p in VtaToIsaPass().passes()), "verify", "binary", "total"]


def format_table(results: dict[str, dict[str, float] | str], columns: list[str]) -> str:
    """One row per workload, seconds per step (the ``vta-`` of pass names left out)."""
    heads = [c.removeprefix("vta-") for c in columns]
    widths = [max(8, len(h) + 2) for h in heads]
    name_width = max(len("workload"), *(len(n) for n in results)) + 1
    lines = ["workload".ljust(name_width)
             + "".join(h.rjust(w) for h, w in zip(heads, widths, strict=True))]
    for name, row in results.items():
        if isinstance(row, str):
            lines.append(name.ljust(name_width) + "  failed: " + row)
            continue
        lines.append(name.ljust(name_width) + "".join(
            f"{row[c]:.3f}".rjust(w) for c, w in zip(columns, widths, strict=True)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workloads", nargs="*", metavar="WORKLOAD",
                        help=f"example names (default: all of {', '.join(workload_names())})")
    parser.add_argument("--config", default="default",
                        help="a shipped configuration or a vta_config.json (default: default)")
    parser.add_argument("--repeat", type=int, default=3, help="compilations per workload (median)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)

    from vta_mlir.config import VTAConfig
    from vta_mlir.errors import VTAError
    from vta_mlir.ir.diagnostics import one_line

    known = workload_names()
    unknown = [w for w in args.workloads if w not in known]
    if unknown:
        parser.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(known)}")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    try:
        cfg = VTAConfig.load(args.config)
    except VTAError as exc:
        parser.error(str(exc))

    # Imports and first-use set-up (xDSL's dialect registry, patterns) would otherwise be
    # charged to the first workload.
    compile_once((EXAMPLES / "vector_add.mlir").read_text(), "warm-up.mlir", cfg)

    results: dict[str, dict[str, float] | str] = {}
    for name in args.workloads or known:
        try:
            results[name] = measure(name, cfg, args.repeat)
        except VTAError as exc:
            results[name] = one_line(str(exc))

    columns = _columns()
    print(f"compile time in seconds, median of {args.repeat}, configuration {cfg.bitstream}")
    print(format_table(results, columns))
    if args.json:
        payload = {"config": cfg.bitstream, "repeat": args.repeat, "seconds": results}
        write_atomically(args.json, json.dumps(payload, indent=2) + "\n")
    return 1 if any(isinstance(row, str) for row in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
