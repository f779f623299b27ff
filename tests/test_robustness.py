"""Mutation fuzzing of the command-line tools: no input, however wrong, may produce a traceback,
an internal error or a hang.

Real inputs (the examples, the FileCheck inputs, a ``.vtab``, a conformance case) are mutated
(lines deleted or duplicated, truncation, flipped bytes, huge or negative numbers, swapped element
types, garbage) and fed to each tool in-process.  Each run must end within :data:`TIME_LIMIT`
seconds with an allowed exit status and without "Traceback" or "internal error" in its output.

The test is deterministic (``derandomize=True``).  For a long local run::

    VTA_FUZZ_EXAMPLES=5000 pytest tests/test_robustness.py
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vta_mlir.sim import conformance
from vta_mlir.tools import vta_opt, vta_run, vta_translate

ROOT = Path(__file__).resolve().parent.parent
TIME_LIMIT = 20
MAX_EXAMPLES = int(os.environ.get("VTA_FUZZ_EXAMPLES", "12"))

SETTINGS = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
    database=None,
)


def _mlir_seeds() -> list[Path]:
    paths = sorted(ROOT.glob("examples/*.mlir")) + sorted(ROOT.glob("examples/vta/*.mlir"))
    paths += sorted(ROOT.glob("examples/conv/*.mlir"))
    paths += sorted(
        p for p in (ROOT / "tests" / "filecheck").rglob("*.mlir") if "Output" not in p.parts
    )
    return paths


MLIR_SEEDS = _mlir_seeds()
CASE_SEEDS = sorted((ROOT / "tests" / "data" / "conformance").glob("*.npz"))[:6]


# --------------------------------------------------------------------------------------------
# Running a tool in-process
# --------------------------------------------------------------------------------------------


class _Hang(BaseException):
    """Raised by the alarm; a BaseException so that ordinary handlers in the tools let it by
    (run_guarded would still report it, which the flag below detects)."""


@dataclass
class Outcome:
    status: int
    out: str
    err: str
    timed_out: bool


def _stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="replace", write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    return raw.getvalue().decode("utf-8", errors="replace")


def run_tool(main: Callable[[Sequence[str]], int], argv: Sequence[str]) -> Outcome:
    """Run ``main(argv)`` with stdout/stderr captured and a time limit."""
    timed_out = False

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        nonlocal timed_out
        timed_out = True
        raise _Hang(f"no answer within {TIME_LIMIT} s")

    out, err = _stream(), _stream()
    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TIME_LIMIT)
    status: int
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(argv))
            except SystemExit as exc:  # argparse's own usage errors (vta-conformance)
                status = exc.code if isinstance(exc.code, int) else 1
            except _Hang:
                status = -1
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return Outcome(status, _text(out), _text(err), timed_out)


def check(outcome: Outcome, allowed: set[int], what: str) -> None:
    text = outcome.out + outcome.err
    assert not outcome.timed_out, f"{what}: no answer within {TIME_LIMIT} s"
    # Exact forms, since a diagnostic may quote an input line mentioning either word.
    assert "Traceback (most recent call last)" not in text, f"{what}:\n{text}"
    assert "error: internal error" not in text, f"{what}:\n{text}"
    assert ": internal error " not in text, f"{what}:\n{text}"
    assert outcome.status in allowed, f"{what}: exit status {outcome.status}\n{text}"


# --------------------------------------------------------------------------------------------
# Mutations
# --------------------------------------------------------------------------------------------

_NUMBER = re.compile(rb"-?\b\d+\b")
_TYPES = [b"i8", b"i32", b"f32", b"i1", b"i64", b"index"]
_HUGE = [b"0", b"-1", b"-128", b"65536", b"2147483648", b"99999999999999999999", b"1000000"]
_JUNK = [b"", b"\x00\xff\xfe", b"}", b"{", b"(", b")", b"%", b"@", b"\"", b"<", b">", b"^bb0:",
         b"vta.", b"vtaisa.", b"memref<", b"\xc3\x28", b"// -----\n", b"loc(", b"#map = "]


@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` after one to three random mutations."""
    for _ in range(draw(st.integers(1, 3))):
        lines = data.splitlines(keepends=True) or [b""]
        kind = draw(st.sampled_from(
            ["del_line", "dup_line", "truncate", "flip", "number", "type", "junk", "swap_lines"]
        ))
        if kind == "del_line":
            i = draw(st.integers(0, len(lines) - 1))
            data = b"".join(lines[:i] + lines[i + 1:])
        elif kind == "dup_line":
            i = draw(st.integers(0, len(lines) - 1))
            data = b"".join(lines[:i + 1] + lines[i:])
        elif kind == "swap_lines":
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            data = b"".join(lines)
        elif kind == "truncate":
            data = data[: draw(st.integers(0, len(data)))]
        elif kind == "flip" and data:
            i = draw(st.integers(0, len(data) - 1))
            data = data[:i] + bytes([data[i] ^ (1 << draw(st.integers(0, 7)))]) + data[i + 1:]
        elif kind == "number":
            found = list(_NUMBER.finditer(data))
            if found:
                m = found[draw(st.integers(0, len(found) - 1))]
                data = data[: m.start()] + draw(st.sampled_from(_HUGE)) + data[m.end():]
        elif kind == "type":
            found = [m for t in _TYPES for m in re.finditer(rb"\b" + t + rb"\b", data)]
            if found:
                m = found[draw(st.integers(0, len(found) - 1))]
                data = data[: m.start()] + draw(st.sampled_from(_TYPES)) + data[m.end():]
        elif kind == "junk":
            i = draw(st.integers(0, len(data)))
            junk = draw(st.sampled_from(_JUNK) | st.binary(max_size=16))
            data = data[:i] + junk + data[i:]
    return data


# --------------------------------------------------------------------------------------------
# The properties
# --------------------------------------------------------------------------------------------

MLIR_COMMANDS: list[tuple[Callable[[Sequence[str]], int], list[str]]] = [
    (vta_opt.main, []),
    (vta_opt.main, ["-p", "vta-to-isa"]),
    (vta_opt.main, ["-p", "vta-lower-to-isa"]),
    (vta_opt.main, ["--split-input-file"]),
    (vta_translate.main, ["--emit=asm"]),
    (vta_translate.main, ["--emit=mlir"]),
    (vta_translate.main, ["--emit=bin"]),
    (vta_run.main, ["--random-inputs", "--check"]),
    (vta_run.main, ["--random-inputs"]),
]


@contextlib.contextmanager
def _tmpdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="vta-fuzz-") as d:
        yield Path(d)


def _run_on_bytes(
    main: Callable[[Sequence[str]], int], flags: list[str], data: bytes, suffix: str
) -> None:
    with _tmpdir() as d:
        path = d / f"input{suffix}"
        path.write_bytes(data)
        argv = [str(path), *flags, "-o", str(d / "out")] if main is not vta_run.main else [
            str(path), *flags
        ]
        outcome = run_tool(main, argv)
    check(outcome, {0, 1}, f"{main.__module__} {flags} on mutated input")


@SETTINGS
@given(
    seed=st.sampled_from(MLIR_SEEDS),
    command=st.sampled_from(MLIR_COMMANDS),
    data=st.data(),
)
def test_mutated_mlir(
    seed: Path,
    command: tuple[Callable[[Sequence[str]], int], list[str]],
    data: st.DataObject,
) -> None:
    text = data.draw(mutated(seed.read_bytes()), label="input")
    main, flags = command
    _run_on_bytes(main, flags, text, ".mlir")


@pytest.fixture(scope="module")
def vtab() -> bytes:
    with _tmpdir() as d:
        out = d / "mm.vtab"
        outcome = run_tool(
            vta_translate.main,
            [str(ROOT / "examples" / "matrix_multiply.mlir"), "--emit=bin", "-o", str(out)],
        )
        check(outcome, {0}, "vta-translate --emit=bin")
        return out.read_bytes()


VTAB_COMMANDS: list[tuple[Callable[[Sequence[str]], int], list[str]]] = [
    (vta_translate.main, ["--emit=asm"]),
    (vta_translate.main, ["--emit=mlir"]),
    (vta_run.main, ["--random-inputs"]),
    (vta_run.main, ["--random-inputs", "--check-hazards"]),
]


@SETTINGS
@given(command=st.sampled_from(VTAB_COMMANDS), data=st.data())
def test_mutated_vtab(
    vtab: bytes,
    command: tuple[Callable[[Sequence[str]], int], list[str]],
    data: st.DataObject,
) -> None:
    if data.draw(st.booleans(), label="one flipped byte"):
        i = data.draw(st.integers(0, len(vtab) - 1))
        blob = vtab[:i] + bytes([vtab[i] ^ data.draw(st.integers(1, 255))]) + vtab[i + 1:]
    else:
        blob = data.draw(mutated(vtab), label="input")
    main, flags = command
    _run_on_bytes(main, flags, blob, ".vtab")


@pytest.mark.parametrize(
    "blob",
    [b"", b"\x00" * 64, bytes(range(256)), b"VTAB", b"module {}", b"\xff\xfe\x00garbage"],
)
@pytest.mark.parametrize("command", MLIR_COMMANDS + VTAB_COMMANDS)
def test_junk_inputs(
    blob: bytes, command: tuple[Callable[[Sequence[str]], int], list[str]]
) -> None:
    main, flags = command
    for suffix in (".mlir", ".vtab"):
        _run_on_bytes(main, flags, blob, suffix)


@SETTINGS
@given(seed=st.sampled_from(CASE_SEEDS), data=st.data())
def test_mutated_conformance_case(seed: Path, data: st.DataObject) -> None:
    with np.load(seed, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    keys = sorted(arrays)
    kind = data.draw(st.sampled_from(["drop", "retype", "reshape", "scramble", "bytes"]))
    key = data.draw(st.sampled_from(keys))
    raw: bytes | None = None
    if kind == "drop":
        for k in data.draw(st.lists(st.sampled_from(keys), min_size=1, max_size=3)):
            arrays.pop(k, None)
    elif kind == "retype":
        target = data.draw(st.sampled_from(["f4", "U8", "i8", "bool", "i8x"]))
        a = arrays[key]
        arrays[key] = (np.array(["x"]) if target == "i8x"
                       else np.zeros(a.shape, dtype=target) if a.dtype.kind != "U"
                       else np.array(7))
    elif kind == "reshape":
        arrays[key] = np.asarray(arrays[key]).reshape(-1)[: data.draw(st.integers(0, 3))]
    elif kind == "scramble":
        a = np.asarray(arrays[key])
        if a.dtype.kind in "iu" and a.size:
            i = data.draw(st.integers(0, a.size - 1))
            flat = a.reshape(-1).copy()
            info = np.iinfo(a.dtype)  # -1 for signed fields, the extremes for every dtype
            flat[i] = data.draw(st.sampled_from(sorted({max(-1, info.min), info.min, 0,
                                                        min(2**31 - 1, info.max), info.max})))
            arrays[key] = flat.reshape(a.shape)
        else:
            arrays[key] = np.array(data.draw(st.sampled_from(["{", "[]", "{}", "null", "1"])))
    else:
        raw = data.draw(mutated(seed.read_bytes()), label="npz")
    with _tmpdir() as d:
        path = d / "case.npz"
        if raw is None:
            np.savez(path, **arrays)
        else:
            path.write_bytes(raw)
        outcome = run_tool(conformance.main, [str(path)])
    check(outcome, {0, 1, 2}, f"vta-conformance {kind} {key}")
