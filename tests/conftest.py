"""Shared pytest fixtures: the three shipped configurations and the test-data folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig

DATA = Path(__file__).parent / "data"
CONFORMANCE = DATA / "conformance"


@pytest.fixture(params=SHIPPED_CONFIGS)
def cfg(request: pytest.FixtureRequest) -> VTAConfig:
    """Each shipped configuration in turn."""
    return VTAConfig.shipped(request.param)


@pytest.fixture
def default_cfg() -> VTAConfig:
    return VTAConfig.shipped("default")
