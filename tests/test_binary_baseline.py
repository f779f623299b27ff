"""The ``.vtab`` bytes of the pinned programs (``tests/binary_baseline.py``) are those of
``tests/data/vtab_hashes.json``: a change meant to keep every schedule keeps every byte.

The examples on the three configurations and the ResNet-18 layers on the default one run by
default; the layers on the other configurations and the whole networks with ``-m slow``.
"""

from __future__ import annotations

import hashlib

import pytest

from tests import binary_baseline as baseline

PINNED = baseline.load()
PROGRAMS = baseline.pinned_programs()


def _cases() -> list[object]:
    cases: list[object] = []
    for key in sorted(PINNED):
        name, config = key.rsplit("@", 1)
        program = PROGRAMS[name]
        slow = program.slow or name.startswith("networks/") or (
            name.startswith("resnet18_layers/") and config != "default")
        marks = [pytest.mark.slow] if slow else []
        cases.append(pytest.param(name, config, id=key, marks=marks))
    return cases


def test_every_program_is_pinned() -> None:
    names = {key.rsplit("@", 1)[0] for key in PINNED}
    assert names == set(PROGRAMS), "update tests/data/vtab_hashes.json (tests/binary_baseline.py)"


@pytest.mark.parametrize(("name", "config"), _cases())
def test_vtab_bytes_unchanged(name: str, config: str) -> None:
    data = baseline.compiled(name, config)
    digest = None if data is None else hashlib.sha256(data).hexdigest()
    assert digest == PINNED[f"{name}@{config}"], (
        f"{name} on {config} compiles to other bytes; if the schedule changed on purpose, "
        "run python tests/binary_baseline.py")
