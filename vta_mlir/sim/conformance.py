"""Replay golden conformance vectors of the reference functional simulator.

Usage::

    python -m vta_mlir.sim.conformance [--config CONFIG.json] CASE.npz|DIR [...]
    vta-conformance [--config CONFIG.json] CASE.npz|DIR [...]

A case (format in the vectors' ``README.md``) holds raw instruction and micro-op words, the DRAM
buffers before the first run and after the last one, and the reference's summed counters.  The
replay uses nothing but those words: every buffer is placed at its recorded physical address,
each run's micro-op segment at its own address before the run, the runs execute in order on one
fresh simulator, and every buffer and all seven counters must come out equal.  ``meta_json`` is
never read.

Configuration of a case: the case's ``config_json`` key when present, else ``--config``, else a
``config.json`` in the case's folder, else the default configuration.  When ``config_json`` and
an outside configuration are both given they must describe the same hardware.  A directory
argument replays every ``*.npz`` below it, each with its own folder's ``config.json``.

Prints ``PASS <case>`` or ``FAIL <case>: <reason>`` per case, then ``N passed, M failed``.
Exit status 0 only if every case passed, 1 otherwise, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zipfile
import zlib
from pathlib import Path

import numpy as np

from vta_mlir.config import PAGE_BYTES, VTAConfig
from vta_mlir.errors import VTAError
from vta_mlir.program import COUNTER_NAMES
from vta_mlir.sim.dram import DRAM
from vta_mlir.sim.functional import INSN_BYTES
from vta_mlir.sim.simulator import Simulator

REQUIRED_KEYS = ("insns", "run_insn_count", "uops", "run_uop_base", "run_uop_nbytes",
                 "buf_names", "buf_phys", "counters_json")


class CaseError(Exception):
    """A case cannot be replayed or does not match; the message is the FAIL reason."""


def _load(path: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise CaseError("file not found") from None
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as e:
        raise CaseError(f"cannot read the case file: {type(e).__name__}: {e}") from None


def _int_array(data: dict[str, np.ndarray], key: str) -> list[int]:
    a = data[key]
    if a.dtype.kind not in "iu":
        raise CaseError(f"key {key!r} must hold integers, got dtype {a.dtype}")
    return [int(v) for v in a.reshape(-1)]


def _bytes(data: dict[str, np.ndarray], key: str) -> np.ndarray:
    a = data[key]
    if a.dtype.kind not in "iub":
        raise CaseError(f"key {key!r} must hold raw bytes, got dtype {a.dtype}")
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def case_config(data: dict[str, np.ndarray], outside: VTAConfig | None,
                outside_name: str) -> VTAConfig:
    """The configuration a case runs under (module docstring)."""
    if "config_json" not in data:
        return outside if outside is not None else VTAConfig.shipped("default")
    try:
        embedded = VTAConfig.from_json(str(data["config_json"]), source="config_json of the case")
    except VTAError as e:
        raise CaseError(str(e)) from None
    if outside is not None and not embedded.same_hardware(outside):
        raise CaseError(f"config_json of the case ({embedded.bitstream}) differs from "
                        f"{outside_name} ({outside.bitstream})")
    return embedded


def reserve_ranges(dram: DRAM, ranges: list[tuple[int, int]]) -> None:
    """Allocate the pages under every ``(phys, nbytes)`` range, merging overlapping ones."""
    pages = sorted((p // PAGE_BYTES, -(-(p + max(n, 1)) // PAGE_BYTES)) for p, n in ranges)
    merged: list[list[int]] = []
    for lo, hi in pages:
        if merged and lo < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    for lo, hi in merged:
        if lo == 0:
            raise CaseError("a buffer or micro-op segment lies in page 0, which is never valid")
        dram.alloc_at(lo * PAGE_BYTES, (hi - lo) * PAGE_BYTES)


def replay_case(path: Path, cfg: VTAConfig | None = None, cfg_name: str = "--config") -> None:
    """Replay one case; returns normally on success, raises :class:`CaseError` otherwise."""
    data = _load(path)
    missing = [k for k in REQUIRED_KEYS if k not in data]
    names = [str(n) for n in data["buf_names"].reshape(-1)] if "buf_names" in data else []
    for n in names:
        missing += [k for k in (f"dram_in_{n}", f"expected_{n}") if k not in data]
    if missing:
        raise CaseError(f"missing key(s): {', '.join(missing)}")
    cfg = case_config(data, cfg, cfg_name)

    insns = _bytes(data, "insns")
    counts = _int_array(data, "run_insn_count")
    uops = _bytes(data, "uops")
    uop_base = _int_array(data, "run_uop_base")
    uop_nbytes = _int_array(data, "run_uop_nbytes")
    phys = _int_array(data, "buf_phys")
    if len(uop_base) != len(counts) or len(uop_nbytes) != len(counts):
        raise CaseError("run_insn_count, run_uop_base and run_uop_nbytes differ in length")
    if any(c < 0 for c in counts) or sum(counts) * INSN_BYTES != insns.size:
        raise CaseError(f"run_insn_count sums to {sum(counts)} instructions but insns holds "
                        f"{insns.size} bytes")
    if any(n < 0 for n in uop_nbytes) or sum(uop_nbytes) != uops.size:
        raise CaseError(f"run_uop_nbytes sums to {sum(uop_nbytes)} but uops holds {uops.size} "
                        "bytes")
    if len(phys) != len(names):
        raise CaseError("buf_names and buf_phys differ in length")
    inputs = {n: _bytes(data, f"dram_in_{n}") for n in names}
    expected = {n: _bytes(data, f"expected_{n}") for n in names}
    for n in names:
        if inputs[n].size != expected[n].size:
            raise CaseError(f"buffer {n}: dram_in and expected differ in size")
    try:
        want = json.loads(str(data["counters_json"]))
        want = {k: int(want[k]) for k in COUNTER_NAMES}
    except (ValueError, KeyError, TypeError) as e:
        raise CaseError(f"counters_json is not a JSON object with the 7 counters: {e}") from None

    dram = DRAM()
    try:
        reserve_ranges(dram, [(p, inputs[n].size) for p, n in zip(phys, names, strict=True)]
                 + [(b, k) for b, k in zip(uop_base, uop_nbytes, strict=True) if k])
        for p, n in zip(phys, names, strict=True):
            dram.write(p, inputs[n])
    except VTAError as e:
        raise CaseError(f"cannot place the buffers: {e}") from None
    sim = Simulator(cfg, dram)
    pos = upos = 0
    for r, (count, base, nbytes) in enumerate(zip(counts, uop_base, uop_nbytes, strict=True)):
        try:
            if nbytes:
                dram.write(base, uops[upos:upos + nbytes])
            sim.run(insns[pos * INSN_BYTES:(pos + count) * INSN_BYTES], timing=False)
        except VTAError as e:
            raise CaseError(f"run {r}: {e}") from None
        pos += count
        upos += nbytes

    problems = []
    for p, n in zip(phys, names, strict=True):
        got = dram.read(p, expected[n].size)
        bad = np.flatnonzero(got != expected[n])
        if bad.size:
            b = int(bad[0])
            problems.append(f"buffer {n}: {bad.size} of {got.size} bytes differ (first at byte "
                            f"{b}: got {int(got[b]):#04x}, expected {int(expected[n][b]):#04x})")
    diff = [f"{k} {sim.counters[k]} != {want[k]}" for k in COUNTER_NAMES
            if sim.counters[k] != want[k]]
    if diff:
        problems.append("counters differ: " + ", ".join(diff))
    if problems:
        raise CaseError("; ".join(problems))


def _cases(arg: Path) -> list[Path]:
    if arg.is_dir():
        return sorted(arg.rglob("*.npz"))
    return [arg]


def main(argv: list[str] | None = None) -> int:
    """``vta-conformance``: replay cases; an error outside any case is one line, status 2
    (``VTA_MLIR_DEBUG=1`` re-raises it with its traceback)."""
    try:
        return _replay_all(argv)
    except KeyboardInterrupt:
        print("vta-conformance: error: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - the tool never ends in a traceback
        if os.environ.get("VTA_MLIR_DEBUG"):
            raise
        text = " ".join(str(e).split()) or type(e).__name__
        kind = "" if isinstance(e, VTAError) else f"internal error: {type(e).__name__}: "
        print(f"vta-conformance: error: {kind}{text}", file=sys.stderr)
        return 2


def _replay_all(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(
        prog="vta-conformance",
        description="Replay VTA conformance vectors (.npz) on the functional simulator.")
    parser.add_argument("--config", metavar="CONFIG.json",
                        help="hardware configuration (default: config.json next to each case, "
                             "else the default configuration)")
    parser.add_argument("cases", nargs="*", metavar="CASE.npz|DIR")
    args = parser.parse_args(argv)
    if not args.cases:
        parser.print_usage(sys.stderr)
        print("vta-conformance: error: give at least one case file or directory", file=sys.stderr)
        return 2
    explicit: VTAConfig | None = None
    if args.config is not None:
        try:
            explicit = VTAConfig.from_file(args.config)
        except VTAError as e:
            print(f"vta-conformance: error: {e}", file=sys.stderr)
            return 2

    passed = failed = 0
    folder_cfgs: dict[Path, VTAConfig | str | None] = {}
    for arg in args.cases:
        for case in _cases(Path(arg)):
            try:
                if explicit is not None:
                    replay_case(case, explicit, "--config")
                else:
                    folder = case.parent
                    if folder not in folder_cfgs:
                        folder_cfgs[folder] = _folder_config(folder)
                    fc = folder_cfgs[folder]
                    if isinstance(fc, str):
                        raise CaseError(fc)
                    replay_case(case, fc, str(folder / "config.json"))
            except CaseError as e:
                failed += 1
                print(f"FAIL {case}: {e}")
            except Exception as e:  # noqa: BLE001 - one broken case must not stop the others
                failed += 1
                print(f"FAIL {case}: internal error {type(e).__name__}: {e}")
            else:
                passed += 1
                print(f"PASS {case}")
            sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    if passed + failed == 0:
        print("vta-conformance: no .npz case found", file=sys.stderr)
        return 1
    return 0 if failed == 0 else 1


def _folder_config(folder: Path) -> VTAConfig | str | None:
    """The folder's ``config.json`` (``None`` if absent, the error text if invalid)."""
    path = folder / "config.json"
    if not path.is_file():
        return None
    try:
        return VTAConfig.from_file(path)
    except VTAError as e:
        return str(e)


if __name__ == "__main__":
    sys.exit(main())
