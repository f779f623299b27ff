"""Every patch of ``vta_mlir.ir.upstream_fixes`` answers a defect that stock xDSL still has.

``tests/xdsl_stock_probes.py`` runs in a fresh interpreter that imports xDSL only; when one of
these tests fails, the pinned xDSL no longer shows the defect and its patch can be removed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from vta_mlir.errors import VTAError
from vta_mlir.ir.upstream_fixes import FIXES, XDSL_VERSION, check_xdsl_version

PROBES = Path(__file__).with_name("xdsl_stock_probes.py")


@pytest.fixture(scope="module")
def stock_defects() -> dict[str, bool]:
    done = subprocess.run(
        [sys.executable, str(PROBES)], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout)


def test_every_patch_has_a_probe(stock_defects: dict[str, bool]) -> None:
    assert set(stock_defects) == set(FIXES)


@pytest.mark.parametrize("fix", sorted(FIXES))
def test_stock_xdsl_still_has_the_defect(stock_defects: dict[str, bool], fix: str) -> None:
    assert stock_defects[fix], f"stock xDSL no longer shows the defect {fix!r} patches"


def test_the_pinned_version_is_installed() -> None:
    assert metadata.version("xdsl") == XDSL_VERSION
    pyproject = Path(__file__).parents[1] / "pyproject.toml"
    assert f'"xdsl=={XDSL_VERSION}"' in pyproject.read_text()
    check_xdsl_version()


def test_another_xdsl_version_is_a_clear_error() -> None:
    with pytest.raises(VTAError, match=r"needs xDSL 0\.74\.0, but xDSL 0\.75\.0 is installed"):
        check_xdsl_version("0.75.0")
