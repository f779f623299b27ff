"""The layout of the source tree: ``passes/`` shows the pipeline (one module or package per
pass, shared analyses apart), and no module imports another module's private names."""

from __future__ import annotations

import ast
from pathlib import Path

from vta_mlir.passes import BUILTIN_PASSES

ROOT = Path(__file__).resolve().parents[1]
PASSES = ROOT / "passes"
#: Folders of project code (sources, tests, benchmarks, examples).
CODE_DIRS = ("vta_mlir", "dialects", "passes", "tools", "tests", "benchmarks", "examples")
#: Packages inside ``passes/`` that hold no pass of their own.
SHARED_PACKAGES = {"analysis"}


def python_files() -> list[Path]:
    return sorted(
        path
        for folder in CODE_DIRS
        for path in (ROOT / folder).rglob("*.py")
        if "Output" not in path.parts and "__pycache__" not in path.parts
    )


def private_imports(path: Path) -> list[str]:
    """``from <project module> import _name`` statements of ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.ImportFrom) or node.module == "__future__":
            continue
        project = node.level > 0 or (node.module or "").split(".")[0] in {"vta_mlir", "tests"}
        for alias in node.names if project else ():
            if alias.name.startswith("_") and not alias.name.startswith("__"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {alias.name}")
    return found


def test_no_module_imports_private_names() -> None:
    assert [hit for path in python_files() for hit in private_imports(path)] == []


def test_passes_shows_the_pipeline() -> None:
    pass_modules = {module.split(".")[0] for module, _ in BUILTIN_PASSES.values()}
    modules = {p.stem for p in PASSES.glob("*.py") if p.name != "__init__.py"}
    packages = {p.name for p in PASSES.iterdir() if (p / "__init__.py").is_file()}
    # Every module and package directly in passes/ is a pass, but the shared analyses.
    assert modules | packages == pass_modules | SHARED_PACKAGES
    assert not modules & packages


#: A module longer than this is split by concern (most stay under 500 lines).
MAX_MODULE_LINES = 600


def test_modules_stay_small() -> None:
    """Large modules are split by concern (the dialects into ops of DMA, compute, kernels and
    synchronisation; the reference evaluator into arithmetic, maps, interpreter and entry
    points; passes with companions into packages; tests by topic, sharing helper modules):
    none, sources, tests, benchmarks or examples, grows past 600 lines."""
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in python_files()
    }
    assert {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES} == {}
