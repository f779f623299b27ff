"""Shared pytest fixtures: the three shipped configurations, an xDSL context with the
project's dialects, and the test-data folders."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.context import Context

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.ir.context import make_context

DATA = Path(__file__).parent / "data"
CONFORMANCE = DATA / "conformance"


@pytest.fixture(params=SHIPPED_CONFIGS)
def cfg(request: pytest.FixtureRequest) -> VTAConfig:
    """Each shipped configuration in turn."""
    return VTAConfig.shipped(request.param)


@pytest.fixture
def default_cfg() -> VTAConfig:
    return VTAConfig.shipped("default")


@pytest.fixture(scope="module")
def ctx() -> Context:
    """An xDSL context with every dialect the project parses (one per test module)."""
    return make_context()
