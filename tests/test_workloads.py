"""End to end: every workload of ``tests/workloads.py`` on every shipped configuration, through
the three ways a user runs an input-level program, each compared bit for bit with the numpy
results written in ``tests/workloads.py``:

* ``vta-run FILE.mlir --input ... --output ... --check`` (a few as real subprocesses of the
  installed console script, the rest in process through ``vta_mlir.tools.vta_run.main``); the
  ``--check`` verdict of the reference evaluator must be ``PASS`` as well;
* ``vta-translate --emit=bin FILE.mlir -o X.vtab`` then ``vta-run X.vtab``;
* ``vta_mlir.compile(path, config=...)`` called with the arrays.

Cases known to fail are marked ``xfail(strict=True)`` with the reason, so they turn into
failures once fixed.  The running example ``matrix_multiply_opt`` also has to meet its DRAM
traffic, GEMM and cycle targets on the default configuration.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import vta_mlir
from vta_mlir.tools import vta_run, vta_translate

from .workloads import BY_NAME, CONFIGS, WORKLOADS, Workload

#: (workload, configuration) pairs run through a real ``vta-run`` process.
SUBPROCESS = {
    ("matrix_multiply_opt", "default"),
    ("vector_add", "block32"),
    ("dense_kn", "batch2"),
}

ROOT = Path(__file__).resolve().parent.parent

#: TVM's cycles for matrix_multiply_opt under the same timing model (docs/performance.md §5.1).
TVM_MATRIX_MULTIPLY_OPT_CYCLES = 139_432


def _cases() -> list[pytest.param]:
    cases = []
    for w in WORKLOADS:
        for config in CONFIGS:
            marks = []
            if config in w.xfail:
                marks.append(pytest.mark.xfail(reason=w.xfail[config], strict=True))
            cases.append(pytest.param(w.name, config, marks=marks, id=f"{w.name}-{config}"))
    return cases


CASES = _cases()


def _seed(name: str, config: str) -> int:
    return sum(map(ord, name)) * 7 + CONFIGS.index(config)


def _save_inputs(w: Workload, arrays: dict[str, np.ndarray], folder: Path) -> list[str]:
    argv = []
    for name, array in arrays.items():
        path = folder / f"{name}.npy"
        np.save(path, array)
        argv += ["--input", str(path)]
    return argv


def _output_paths(expected: dict[str, np.ndarray], folder: Path) -> list[Path]:
    return [folder / f"out_{name}.npy" for name in expected]


def _assert_outputs(expected: dict[str, np.ndarray], got: list[np.ndarray]) -> None:
    assert len(got) == len(expected)
    for (name, want), have in zip(expected.items(), got, strict=True):
        assert have.dtype == want.dtype, name
        np.testing.assert_array_equal(have, want, err_msg=name)


def _vta_run_command() -> list[str]:
    script = Path(sys.executable).with_name("vta-run")
    if script.exists():
        return [str(script)]
    found = shutil.which("vta-run")
    return [found] if found else [sys.executable, "-m", "vta_mlir.tools.vta_run"]


@pytest.mark.parametrize(("name", "config"), CASES)
def test_vta_run(
    name: str, config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = BY_NAME[name]
    arrays = w.draw(_seed(name, config))
    expected = w.expected(arrays)
    outputs = _output_paths(expected, tmp_path)
    argv = [str(w.path), "--config", config, *_save_inputs(w, arrays, tmp_path), "--check"]
    for path in outputs:
        argv += ["--output", str(path)]
    if (name, config) in SUBPROCESS:
        done = subprocess.run(_vta_run_command() + argv, capture_output=True, text=True,
                              check=False)
        status, stdout, stderr = done.returncode, done.stdout, done.stderr
    else:
        status = vta_run.main(argv)
        captured = capsys.readouterr()
        stdout, stderr = captured.out, captured.err
    assert status == 0, stderr
    assert "Traceback" not in stderr
    assert stdout.splitlines() == ["check: PASS"]
    _assert_outputs(expected, [np.load(path) for path in outputs])


@pytest.mark.parametrize(("name", "config"), CASES)
def test_vta_translate_then_vta_run(
    name: str, config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = BY_NAME[name]
    vtab = tmp_path / f"{name}.vtab"
    status = vta_translate.main([str(w.path), "--emit=bin", "--config", config, "-o", str(vtab)])
    assert status == 0, capsys.readouterr().err
    arrays = w.draw(_seed(name, config) + 1)
    expected = w.expected(arrays)
    outputs = _output_paths(expected, tmp_path)
    argv = [str(vtab), *_save_inputs(w, arrays, tmp_path)]
    for path in outputs:
        argv += ["--output", str(path)]
    assert vta_run.main(argv) == 0, capsys.readouterr().err
    _assert_outputs(expected, [np.load(path) for path in outputs])


@pytest.mark.parametrize(("name", "config"), CASES)
def test_python_api(name: str, config: str) -> None:
    w = BY_NAME[name]
    module = vta_mlir.compile(w.path, config=config)
    assert [a.name for a in module.inputs] == list(w.inputs)
    arrays = w.draw(_seed(name, config) + 2)
    expected = w.expected(arrays)
    got = module(*arrays.values())
    _assert_outputs(expected, list(got))
    # By name as well, with fresh values.
    again = w.draw(_seed(name, config) + 3)
    _assert_outputs(w.expected(again), list(module(**again)))


def test_matrix_multiply_opt_targets() -> None:
    """Every weight byte loaded once, one GEMM micro-op per 16×16 block, the output stored
    once, the input loaded at most 16 times, and no more cycles than TVM's schedule takes."""
    w = BY_NAME["matrix_multiply_opt"]
    module = vta_mlir.compile(w.path, config="default")
    arrays = w.draw(11)
    _assert_outputs(w.expected(arrays), list(module(*arrays.values())))
    stats = module.last_run
    counters = stats.counters
    assert counters["wgt_load_nbytes"] == 1024 * 1024
    assert counters["gemm_counter"] == 4096
    assert counters["out_store_nbytes"] == 1024
    assert counters["inp_load_nbytes"] <= 16 * 1024
    assert stats.cycles is not None and stats.cycles <= TVM_MATRIX_MULTIPLY_OPT_CYCLES


def test_every_input_example_is_a_workload() -> None:
    """Each input-level program of examples/ is covered here."""
    names = {p.stem for p in BY_NAME["vector_add"].path.parent.glob("*.mlir")}
    assert names == set(BY_NAME)


def test_readme_first_command() -> None:
    """The Quick start's first command, after its ``pip install .`` (tests/test_install.py
    covers installing): compiles, runs and checks an example, statistics on stdout."""
    readme = (ROOT / "README.md").read_text()
    first = re.search(r"```sh\n(.*?)\n```", readme, re.S)
    assert first is not None
    install, _, command = first.group(1).partition(" && ")
    assert install == "pip install ."
    args = shlex.split(command)
    assert args[0] == "vta-run" and "--check" in args
    done = subprocess.run(_vta_run_command() + args[1:], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "check: PASS"
    stats = json.loads(done.stdout)
    assert stats["counters"]["gemm_counter"] > 0 and stats["cycles"] > 0
