"""``vta-translate`` reads every ``.vtab`` back into ``vtaisa`` text and writes that text back
to the same bytes: the pinned programs of ``tests/binary_baseline.py`` (the examples and four of
the ResNet-18 layers on the default configuration by default, the rest with ``-m slow``) and the
``.vtab`` files committed under ``tests/data``.

The binary is a serialisation of the ``vtaisa`` program, so the program read from it must hold
everything the binary does: segments and their contents, the argument table, every
instruction field, the micro-op tables and the layers.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests import binary_baseline as baseline
from vta_mlir.tools import vta_translate

DATA = Path(__file__).resolve().parent / "data"
COMMITTED = sorted(DATA.rglob("*.vtab"))
PINNED = baseline.load()
PROGRAMS = baseline.pinned_programs()


def round_trip(data: bytes, tmp_path: Path) -> tuple[str, bytes]:
    """``data`` through ``vta-translate --emit=mlir`` and back through ``--emit=bin``: the
    text and the bytes."""
    source, text, back = tmp_path / "in.vtab", tmp_path / "in.mlir", tmp_path / "out.vtab"
    source.write_bytes(data)
    assert vta_translate.main([str(source), "--emit=mlir", "-o", str(text)]) == 0
    assert vta_translate.main([str(text), "--emit=bin", "-o", str(back)]) == 0
    return text.read_text(), back.read_bytes()


#: The ResNet-18 layers whose round trip the default run makes (3×3 stride 1 and 2, a 1×1
#: strided one with its residual, the deepest); the others are the long form.
RESNET18_SHORT = frozenset({"C2", "C6", "C7+res", "C11"})


def _cases() -> list[object]:
    cases: list[object] = []
    for key in sorted(PINNED):
        name, config = key.rsplit("@", 1)
        layer = name.removeprefix("resnet18_layers/") if name.startswith("resnet18_layers/") \
            else None
        slow = PROGRAMS[name].slow or name.startswith("networks/") or config != "default" or (
            layer is not None and layer not in RESNET18_SHORT)
        cases.append(pytest.param(name, config, id=key,
                                  marks=[pytest.mark.slow] if slow else []))
    return cases


def test_there_are_committed_binaries() -> None:
    assert COMMITTED, "tests/data holds no .vtab file"


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_committed_binary_round_trips(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    text, back = round_trip(data, tmp_path)
    assert "vtaisa.program" in text
    assert back == data


@pytest.mark.parametrize(("name", "config"), _cases())
def test_pinned_program_round_trips(name: str, config: str, tmp_path: Path) -> None:
    data = baseline.compiled(name, config)
    assert data is not None
    # The program compiled is the pinned one, so the round trip covers exactly those bytes.
    assert hashlib.sha256(data).hexdigest() == PINNED[f"{name}@{config}"]
    text, back = round_trip(data, tmp_path)
    assert text.count("vtaisa.finish") >= 1
    assert back == data
