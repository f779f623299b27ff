"""Output files are written all at once (``vta_mlir.atomic_write``): an error, an interrupt or a
concurrent writer leaves either the old file or the complete new one, never a torn one, and no
temporary file behind."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from vta_mlir.api import lower
from vta_mlir.atomic_write import atomic_open, write_bytes, write_text
from vta_mlir.errors import VTAError
from vta_mlir.tools.vta_run import random_inputs

ROWS, COLS = 16, 16384  # a 256 KiB int8 output
BIN = Path(sys.executable).parent


class Boom(Exception):
    pass


def test_an_error_while_writing_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"old contents")
    with pytest.raises(Boom), atomic_open(target) as f:
        f.write(b"new, but only half")
        raise Boom
    assert target.read_bytes() == b"old contents"
    assert os.listdir(tmp_path) == ["out.bin"]


def test_an_interrupt_while_writing_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    write_text(target, "old\n")
    with pytest.raises(KeyboardInterrupt), atomic_open(target, "w") as f:
        f.write("new")
        raise KeyboardInterrupt
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_an_error_leaves_no_file_where_there_was_none(tmp_path: Path) -> None:
    with pytest.raises(Boom), atomic_open(tmp_path / "new.bin") as f:
        f.write(b"x")
        raise Boom
    assert os.listdir(tmp_path) == []


def test_a_finished_write_replaces_the_file_with_open_s_permissions(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    assert os.listdir(tmp_path) == ["out.bin"]
    plain = tmp_path / "plain.bin"
    plain.write_bytes(b"")
    assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


def test_unwritable_targets_raise_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_bytes(tmp_path / "no" / "dir.bin", b"x")
    with pytest.raises(IsADirectoryError):
        write_bytes(tmp_path, b"x")
    assert os.listdir(tmp_path) == []


def test_a_device_is_written_in_place() -> None:
    write_bytes(os.devnull, b"discarded")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


# --------------------------------------------------------------------------------------------
# vta-run interrupted while it writes its output

def _add_program(rows: int, cols: int) -> str:
    """``c = int8(a + b)`` on ``rows`` x ``cols`` elements."""
    return f"""
func.func @add(%a: memref<{rows}x{cols}xi32>, %b: memref<{rows}x{cols}xi32>,
               %c: memref<{rows}x{cols}xi8>) {{
  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%a, %b : memref<{rows}x{cols}xi32>, memref<{rows}x{cols}xi32>)
      outs(%c : memref<{rows}x{cols}xi8>) {{
  ^bb0(%x: i32, %y: i32, %out: i8):
    %s = arith.addi %x, %y : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }}
  return
}}
"""


PROGRAM = _add_program(ROWS, COLS)
SMALL_PROGRAM = _add_program(1, 64)

# vta-run, with numpy's writing of an array slowed down (the same bytes, in pieces with pauses)
# so that an interrupt lands while the output file is being written, however loaded the machine
# (writing takes seconds).
DRIVER = """
import io, signal, sys, time
import numpy as np
# As started from a terminal: a process started in the background by a shell without job
# control inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler.
signal.signal(signal.SIGINT, signal.default_int_handler)
real_save = np.save
def slow_save(file, array, allow_pickle=True):
    buffer = io.BytesIO()
    real_save(buffer, array, allow_pickle=allow_pickle)
    data = buffer.getvalue()
    for start in range(0, len(data), 1 << 14):
        file.write(data[start:start + (1 << 14)])
        time.sleep(0.5)
np.save = slow_save
from vta_mlir.tools.vta_run import main
sys.exit(main(sys.argv[1:]))
"""


def _output_started(folder: Path, name: str, before: int | None) -> bool:
    """Whether the run began writing ``name``: a temporary file of it exists, or the file itself
    changed (as it would when written in place)."""
    entries = os.listdir(folder)
    if any(entry != name and entry.startswith(f".{name}.") for entry in entries):
        return True
    try:
        return os.stat(folder / name).st_mtime_ns != before
    except FileNotFoundError:
        return before is not None


def test_interrupted_vta_run_leaves_the_old_or_the_complete_output(tmp_path: Path) -> None:
    binary = lower(PROGRAM)
    vtab = tmp_path / "add.vtab"
    binary.save(vtab)
    a, b = random_inputs(binary.inputs, 0)
    expected = (a + b).astype(np.int8)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "y.npy"
    old = np.arange(10, dtype=np.int16)
    np.save(target, old)
    env = dict(os.environ, VTA_MLIR_DEBUG="1")
    argv = [sys.executable, "-c", DRIVER, str(vtab), "--random-inputs", "--output", str(target)]
    interrupted = 0
    # Seconds after the output starts to appear (writing it takes seconds).
    for delay in (0.0, 0.005, 0.02):
        before = os.stat(target).st_mtime_ns
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while proc.poll() is None and not _output_started(out_dir, "y.npy", before):
            assert time.monotonic() < deadline
            time.sleep(0.001)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        if proc.returncode == 130:
            interrupted += 1
            assert err == "vta-run: error: interrupted\n"
        else:
            assert (proc.returncode, err) == (0, "")
        assert os.listdir(out_dir) == ["y.npy"]
        got = np.load(target)
        assert (got.dtype == old.dtype and np.array_equal(got, old)) or (
            got.dtype == expected.dtype and np.array_equal(got, expected))
        old = got
    assert interrupted >= 2


# --------------------------------------------------------------------------------------------
# Concurrent writers

WRITER = """
import sys
import numpy as np
from vta_mlir.atomic_write import atomic_open
value, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
array = np.full(1 << 20, value, dtype=np.int8)
for _ in range(count):
    with atomic_open(path) as f:
        np.save(f, array, allow_pickle=False)
"""


def test_a_reader_never_sees_a_torn_file_of_two_writers(tmp_path: Path) -> None:
    target = tmp_path / "y.npy"
    np.save(target, np.full(1 << 20, 1, dtype=np.int8))
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(value), str(target), "80"])
               for value in (1, 2)]
    loads = 0
    while any(w.poll() is None for w in writers) or loads == 0:
        array = np.load(target)
        assert array.shape == (1 << 20,)
        assert array[0] in (1, 2) and np.all(array == array[0])
        loads += 1
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    assert os.listdir(tmp_path) == ["y.npy"]


# --------------------------------------------------------------------------------------------
# The other writers use it


def test_binary_module_save_replaces_the_file_at_once(tmp_path: Path) -> None:
    binary = lower(SMALL_PROGRAM)
    target = tmp_path / "m.vtab"
    target.write_bytes(b"old")
    binary.save(target)
    assert target.read_bytes() == binary.to_bytes()
    assert os.listdir(tmp_path) == ["m.vtab"]
    with pytest.raises(VTAError, match="cannot write module"):
        binary.save(tmp_path / "no" / "m.vtab")


@pytest.mark.parametrize("tool", ["vta-opt", "vta-translate"])
def test_tools_replace_their_output_and_leave_no_temporary(tool: str, tmp_path: Path) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(SMALL_PROGRAM)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "result"
    target.write_text("old")
    extra = ["-p", "vta-raise-loops"] if tool == "vta-opt" else ["--emit=asm"]
    done = subprocess.run([str(BIN / tool), str(source), *extra, "-o", str(target)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert target.read_text() != "old" and target.read_text().strip()
    assert os.listdir(out_dir) == ["result"]
