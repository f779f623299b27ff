"""The programs whose ``.vtab`` bytes are pinned (``tests/data/vtab_hashes.json``): every
example at the input and ``vta`` levels, the ResNet-18 layers C1–C11 of the benchmarks (with
and without their residual) and whole networks, on the shipped configurations.

A change of the compiler that is meant to leave every schedule as it is (a refactoring of the
passes, of the dialects or of the binary writer) must leave these hashes as they are; a change
that improves a schedule updates them on purpose::

    python tests/binary_baseline.py            # rewrite tests/data/vtab_hashes.json
    python tests/binary_baseline.py --check    # compare, print the programs that differ

Each program is named ``group/name@config``; the hash is the SHA-256 of
``BinaryModule.to_bytes()``.  A program that does not compile on a configuration (a ``vta``
level example written for another one) is left out of the table.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
HASHES = Path(__file__).resolve().parent / "data" / "vtab_hashes.json"
CONFIGS = ("default", "block32", "batch2")

if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))
if str(EXAMPLES / "networks") not in sys.path:  # after benchmarks/: its resnet18 is `resnet18`
    sys.path.append(str(EXAMPLES / "networks"))
if str(ROOT) not in sys.path:  # run as a script: the `tests` package
    sys.path.append(str(ROOT))


@dataclass(frozen=True)
class Pinned:
    """One program: its name, a thunk giving its MLIR text, and whether it is a long compile
    (left to ``pytest -m slow``)."""

    name: str
    text: Callable[[], str]
    slow: bool = False
    function: str | None = None


def _example_files() -> list[Path]:
    folders = (EXAMPLES, EXAMPLES / "vta", EXAMPLES / "affine", EXAMPLES / "conv",
               EXAMPLES / "networks")
    return [p for folder in folders for p in sorted(folder.glob("*.mlir"))]


def programs() -> Iterator[Pinned]:
    """Every pinned program, in a stable order."""
    import resnet18_layers as layers
    import resnet18_network as network

    for path in _example_files():
        name = f"examples/{path.relative_to(EXAMPLES).as_posix()}"
        functions = re.findall(r"^func\.func @([\w.$-]+)", path.read_text(), re.MULTILINE)
        if len(functions) <= 1:
            yield Pinned(name, lambda path=path: path.read_text())
            continue
        for function in functions:
            yield Pinned(f"{name}:{function}", lambda path=path: path.read_text(),
                         function=function)
    for layer in layers.LAYERS:
        for residual in (False, True):
            suffix = "+res" if residual else ""
            yield Pinned(f"resnet18_layers/{layer.name}{suffix}",
                         lambda layer=layer, residual=residual:
                         layers.conv_mlir(layer, residual=residual))
    resnet18 = network.load_generator("resnet18")
    yield Pinned("networks/resnet18@32", lambda: resnet18.generate(32, 0, "globals").text)
    yield Pinned("networks/resnet18@224", lambda: resnet18.generate(224, 0, "globals").text,
                 slow=True)


def vtab_bytes(text: str, config: str, function: str | None = None) -> bytes | None:
    """The binary ``text`` compiles to on ``config``, ``None`` when it does not compile
    there."""
    from tests.compiled_programs import lowered
    from vta_mlir.errors import VTAError
    from vta_mlir.ir.diagnostics import DiagnosticError

    try:
        return lowered(text, config, function).to_bytes()
    except (VTAError, DiagnosticError):
        return None


def vtab_hash(text: str, config: str, function: str | None = None) -> str | None:
    """The SHA-256 of :func:`vtab_bytes`."""
    data = vtab_bytes(text, config, function)
    return None if data is None else hashlib.sha256(data).hexdigest()


@functools.cache
def pinned_programs() -> dict[str, Pinned]:
    return {program.name: program for program in programs()}


@functools.cache
def compiled(name: str, config: str) -> bytes | None:
    """The binary of the pinned program ``name`` on ``config``, compiled once per process
    (the hash test and the round-trip test read the same bytes)."""
    program = pinned_programs()[name]
    return vtab_bytes(program.text(), config, program.function)


def compute(include_slow: bool = True) -> dict[str, str]:
    table: dict[str, str] = {}
    for program in programs():
        if program.slow and not include_slow:
            continue
        text = program.text()
        configs = ("default",) if program.slow else CONFIGS
        for config in configs:
            digest = vtab_hash(text, config, program.function)
            if digest is not None:
                table[f"{program.name}@{config}"] = digest
    return table


def load() -> dict[str, str]:
    return json.loads(HASHES.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    table = compute()
    if args.check:
        pinned = load()
        differ = sorted(k for k in pinned.keys() | table.keys() if pinned.get(k) != table.get(k))
        for key in differ:
            print(f"{key}: pinned {pinned.get(key)}, now {table.get(key)}")
        return 1 if differ else 0
    tmp = HASHES.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    tmp.replace(HASHES)
    print(f"{len(table)} programs written to {HASHES.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
