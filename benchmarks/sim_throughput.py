"""Functional simulator throughput on a 1024×1024×1024 int8 GEMM (``data/gemm1024.npz``).

The stream (555 instructions in one run, 4.19 M GEMM micro-op executions) was produced by the
reference runtime; the reference C++ functional simulator built with -O2 executes it
(``VTADeviceRun`` only) in 0.188 s median on a 2-core machine, 5.7 G MAC/s.  This script replays
the same raw words, checks the output buffer and the counters against the reference's, and
prints the time of ``Simulator.run`` alone (decoding included, DRAM setup excluded; median of
several runs) with the cycle model off and on, the simulated MAC rate and the ratio to the C++
figure.

BLAS threads: the GEMM fast path spends most of its time in float32 matrix products, one per
GEMM instruction.  The simulator runs them on one BLAS thread by default, like the
single-threaded reference (see ``vta_mlir.sim.blas`` for why); ``--blas-threads`` changes that
for this measurement (``default`` leaves the BLAS library's own setting).

Usage::

    python benchmarks/sim_throughput.py [--repeat 5] [--blas-threads 1|2|default]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "gemm1024.npz"
REFERENCE_SECONDS = 0.188
REFERENCE_MACS_PER_S = 5.7e9


def _setup(case: dict[str, Any], cfg: Any) -> Any:
    """A fresh simulator with the case's buffers and micro-op segment in DRAM."""
    from vta_mlir.sim import DRAM, Simulator
    from vta_mlir.sim.conformance import reserve_ranges

    names = [str(n) for n in case["buf_names"]]
    phys = [int(p) for p in case["buf_phys"]]
    uop_base, uop_nbytes = int(case["run_uop_base"][0]), int(case["run_uop_nbytes"][0])
    dram = DRAM()
    reserve_ranges(dram, [(p, case[f"dram_in_{n}"].size) for p, n in zip(phys, names, strict=True)]
             + [(uop_base, uop_nbytes)])
    for p, n in zip(phys, names, strict=True):
        dram.write(p, case[f"dram_in_{n}"])
    dram.write(uop_base, case["uops"])
    return Simulator(cfg, dram)


def _check(sim: Any, case: dict[str, Any]) -> None:
    names = [str(n) for n in case["buf_names"]]
    for p, n in zip(case["buf_phys"], names, strict=True):
        want = case[f"expected_{n}"]
        got = sim.dram.read(int(p), want.size)
        if not (got == want).all():
            raise SystemExit(f"output check FAILED: buffer {n} differs from the reference")
    want_counters = json.loads(str(case["counters_json"]))
    if any(sim.counters[k] != want_counters[k] for k in want_counters):
        raise SystemExit(f"output check FAILED: counters {sim.counters} != {want_counters}")


def _measure(case: dict[str, Any], cfg: Any, repeat: int, timing: bool) -> tuple[float, Any]:
    times = []
    result = None
    for _ in range(repeat):
        sim = _setup(case, cfg)
        t0 = time.perf_counter()
        result = sim.run(case["insns"], timing=timing)
        times.append(time.perf_counter() - t0)
        _check(sim, case)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (median)")
    parser.add_argument("--blas-threads", default="1",
                        help="BLAS threads: a number, or 'default' (default: 1)")
    args = parser.parse_args(argv)

    import numpy as np

    from vta_mlir.config import VTAConfig
    from vta_mlir.sim import blas

    blas.set_threads(None if args.blas_threads == "default" else int(args.blas_threads))

    with np.load(DATA) as z:
        case = {k: z[k] for k in z.files}
    cfg = VTAConfig.shipped("default")
    counters = json.loads(str(case["counters_json"]))
    macs = counters["gemm_counter"] * cfg.batch * cfg.block_in * cfg.block_out
    n_insns = int(case["run_insn_count"].sum())

    _measure(case, cfg, 1, False)  # warm-up: imports, BLAS initialisation, page faults
    t_off, r_off = _measure(case, cfg, args.repeat, False)
    t_on, r_on = _measure(case, cfg, args.repeat, True)

    threads = "library default" if args.blas_threads == "default" else args.blas_threads
    print(f"gemm1024: {n_insns} instructions in {len(case['run_insn_count'])} run, "
          f"{counters['gemm_counter']:,} GEMM micro-ops, {macs / 1e9:.2f} G MAC "
          f"({cfg.bitstream})")
    print(f"BLAS threads: {threads}; median of {args.repeat} runs of Simulator.run")
    print("output check: every buffer and all 7 counters equal the reference")
    print()
    print(f"{'':26s}{'run time':>10s}{'MAC/s':>14s}{'vs C++ fsim':>14s}")
    for name, t in (("simulator, timing off", t_off), ("simulator, timing on", t_on)):
        print(f"{name:26s}{t:>9.3f}s{macs / t / 1e9:>10.1f} G/s"
              f"{REFERENCE_SECONDS / t:>12.2f}x")
    print(f"{'C++ reference fsim':26s}{REFERENCE_SECONDS:>9.3f}s"
          f"{REFERENCE_MACS_PER_S / 1e9:>10.1f} G/s{1:>12.2f}x")
    print()
    target = REFERENCE_SECONDS / 2
    verdict = "met" if t_off <= target else "NOT met"
    print(f"target >= 2x the reference (<= {target:.3f} s, timing off): {verdict}")
    if r_on is not None and r_on.cycles is not None:
        print(f"cycle model: {r_on.cycles:,} cycles, busy "
              + ", ".join(f"{m} {b:,}" for m, b in r_on.busy.items()))
    del r_off
    return 0


if __name__ == "__main__":
    sys.exit(main())
