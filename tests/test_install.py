"""Packaging: an editable and a regular install both import every package (including the
top-level ``dialects/``, ``passes/`` and ``tools/`` mapped into ``vta_mlir``) and run the
conformance replay from a directory outside the checkout.

Each case builds a fresh virtual environment, so both run with ``-m slow``; the default run
checks that every package folder is listed in ``pyproject.toml``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "tests" / "data" / "conformance" / "12_gemm_basic.npz"
EXAMPLE = ROOT / "examples" / "vta" / "vector_add.mlir"

IMPORTS = (
    "import vta_mlir, vta_mlir.config, vta_mlir.isa, vta_mlir.sim.conformance, "
    "vta_mlir.runtime, vta_mlir.dialects, vta_mlir.passes, vta_mlir.tools\n"
    "from vta_mlir.config import VTAConfig\n"
    "assert VTAConfig.shipped('batch2').batch == 2\n"
    "print(vta_mlir.__file__)\n"
)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PYTHONNOUSERSITE"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(args: list[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=_env(), capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, f"{args} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout, so that installing leaves no build files in the real one."""
    dest = tmp_path_factory.mktemp("src") / "vta-mlir"
    ignore = shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__", ".venv",
                                    ".hypothesis", ".pytest_cache", "benchmarks")
    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def test_every_package_is_installed() -> None:
    """The short form of the installs below: every folder of Python modules that the install
    maps into ``vta_mlir`` is a listed package (a missing one imports from a checkout, not from
    an install)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = {"vta_mlir": ROOT / "vta_mlir"} | {
        name: ROOT / folder for name, folder in project["package-dir"].items()}
    found = set()
    for package, folder in mapped.items():
        for init in folder.rglob("__init__.py"):
            parts = init.parent.relative_to(folder).parts
            if "Output" not in parts and "__pycache__" not in parts:
                found.add(".".join((package, *parts)))
    assert found == set(project["packages"])


# Building a virtual environment takes a while: both installs are the long form.
@pytest.mark.slow
@pytest.mark.parametrize("editable", [True, False], ids=["editable", "regular"])
def test_install_and_run_outside_checkout(tmp_path: Path, source_copy: Path,
                                          editable: bool) -> None:
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], tmp_path)
    py = venv / "bin" / "python"
    _run([py, "-m", "pip", "install", "-q", *(["-e"] if editable else []), source_copy], tmp_path)

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(CASE, outside / CASE.name)
    shutil.copy(EXAMPLE, outside / EXAMPLE.name)
    where = Path(_run([py, "-c", IMPORTS], outside).stdout.strip())
    if editable:
        assert where.is_relative_to(source_copy)
    else:
        assert where.is_relative_to(venv)

    replay = _run([py, "-m", "vta_mlir.sim.conformance", CASE.name], outside)
    assert replay.stdout.splitlines()[-1] == "1 passed, 0 failed"
    script = _run([venv / "bin" / "vta-conformance", CASE.name], outside)
    assert script.stdout.splitlines()[-1] == "1 passed, 0 failed"

    # The three compiler tools, as console scripts: parse and print, lower to a binary, run it.
    bin_dir = venv / "bin"
    assert "vta.dma_copy" in _run([bin_dir / "vta-opt", EXAMPLE.name], outside).stdout
    _run([bin_dir / "vta-translate", "--emit=bin", EXAMPLE.name, "-o", "add.vtab"], outside)
    stats = _run([bin_dir / "vta-run", "add.vtab", "--random-inputs", "--stats", "-"], outside)
    assert '"alu_counter": 64' in stats.stdout
    # The core install has no onnx: the importer says which extra to install.
    onnx_cli = subprocess.run([str(bin_dir / "vta-import-onnx"), "model.onnx"], cwd=outside,
                              env=_env(), capture_output=True, text=True, timeout=300)
    assert onnx_cli.returncode == 1 and "vta-mlir[onnx]" in onnx_cli.stderr, onnx_cli.stderr
    assert "Traceback" not in onnx_cli.stderr

    # Run from the checkout root, the source ``vta_mlir/`` comes first on sys.path; the mapped
    # packages must still resolve.
    _run([py, "-c", IMPORTS], source_copy)
