"""The ``.vtab`` bytes of the pinned programs (``tests/binary_baseline.py``) are those of
``tests/data/vtab_hashes.json``: a change meant to keep every schedule keeps every byte.

Every example and ResNet-18 layer on the default configuration (three of the layers' residual
forms), and one program of each kind on the other two (``OTHER_CONFIGS_BY_DEFAULT``), run by
default; the rest on the other configurations, the other residual forms and the whole networks
with ``-m slow``.
"""

from __future__ import annotations

import hashlib

import pytest

from tests import binary_baseline as baseline

PINNED = baseline.load()
PROGRAMS = baseline.pinned_programs()
#: The programs whose block32 and batch2 binaries are checked in the default run too: one of
#: each kind (matrix, element-wise, loop nest, strided padded convolution, network); every
#: other one on those configurations with ``-m slow``.
OTHER_CONFIGS_BY_DEFAULT = frozenset({
    "examples/matrix_multiply_opt.mlir",
    "examples/odd_shapes.mlir",
    "examples/affine/fused_epilogue.mlir",
    "examples/conv/conv2d_padded.mlir:conv3x3_pad1_s2",
    "examples/networks/small_cnn.mlir",
})


#: The ResNet-18 layers whose residual form (``+res``) the default run checks: the first, a
#: strided 1×1 one and the deepest; the others' residual forms are the long form.
RESIDUAL_FORMS_BY_DEFAULT = frozenset({"C1", "C7", "C11"})


def _residual_form_is_long(name: str) -> bool:
    layer, plus, form = name.removeprefix("resnet18_layers/").partition("+")
    return name.startswith("resnet18_layers/") and plus == "+" and form == "res" \
        and layer not in RESIDUAL_FORMS_BY_DEFAULT


def _cases() -> list[object]:
    cases: list[object] = []
    for key in sorted(PINNED):
        name, config = key.rsplit("@", 1)
        program = PROGRAMS[name]
        slow = program.slow or name.startswith("networks/") or _residual_form_is_long(name) or (
            config != "default" and name not in OTHER_CONFIGS_BY_DEFAULT)
        marks = [pytest.mark.slow] if slow else []
        cases.append(pytest.param(name, config, id=key, marks=marks))
    return cases


def test_every_program_is_pinned() -> None:
    names = {key.rsplit("@", 1)[0] for key in PINNED}
    assert names == set(PROGRAMS), "update tests/data/vtab_hashes.json (tests/binary_baseline.py)"
    assert OTHER_CONFIGS_BY_DEFAULT <= names


@pytest.mark.parametrize(("name", "config"), _cases())
def test_vtab_bytes_unchanged(name: str, config: str) -> None:
    data = baseline.compiled(name, config)
    digest = None if data is None else hashlib.sha256(data).hexdigest()
    assert digest == PINNED[f"{name}@{config}"], (
        f"{name} on {config} compiles to other bytes; if the schedule changed on purpose, "
        "run python tests/binary_baseline.py")
