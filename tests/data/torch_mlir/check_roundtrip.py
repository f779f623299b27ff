"""Check that ``vta-opt`` prints the files of this folder back in a form ``torch-mlir-opt``
parses to the same IR (see ``README.md``).

For each ``FILE.mlir`` (default: every ``*.mlir`` of this folder) it runs ``vta-opt FILE.mlir``,
then ``torch-mlir-opt`` on the original and on vta-opt's output, and compares the two prints of
``torch-mlir-opt`` (which names SSA values itself, so the comparison is modulo SSA names).

    python tests/data/torch_mlir/check_roundtrip.py [--torch-mlir-opt PATH] [FILE.mlir ...]

``vta-opt`` is taken from ``PATH`` (the project's environment); ``torch-mlir-opt`` from
``--torch-mlir-opt`` or ``PATH``.  Exits with status 1 when a file differs or fails.
"""

from __future__ import annotations

import argparse
import difflib
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(argv: list[str], text: str | None = None) -> str:
    """The standard output of ``argv``; exits with its error on failure."""
    done = subprocess.run(argv, input=text, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"error: {' '.join(argv[:2])} failed:\n{done.stderr}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--torch-mlir-opt", default=shutil.which("torch-mlir-opt"))
    parser.add_argument("--vta-opt", default=shutil.which("vta-opt"))
    args = parser.parse_args()
    if args.torch_mlir_opt is None or args.vta_opt is None:
        sys.exit("error: needs vta-opt and torch-mlir-opt (on PATH or as options)")
    failed = 0
    for path in args.files or sorted(HERE.glob("*.mlir")):
        printed = run([args.vta_opt, str(path)])
        original = run([args.torch_mlir_opt, str(path)])
        again = run([args.torch_mlir_opt, "-"], printed)
        if original == again:
            print(f"ok: {path.name}")
            continue
        failed += 1
        print(f"DIFFERS: {path.name}")
        sys.stdout.writelines(difflib.unified_diff(
            original.splitlines(keepends=True), again.splitlines(keepends=True),
            "torch-mlir-opt FILE", "vta-opt FILE | torch-mlir-opt", n=1))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
