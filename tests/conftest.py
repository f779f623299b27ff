"""Shared pytest fixtures: the three shipped configurations, an xDSL context with the
project's dialects, the test-data folders, for the ``vta-opt`` tests an input-file writer
and extra passes registered for one test, and for the ``vta-explore`` tests a local Dask
cluster."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from xdsl.context import Context

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.ir.context import make_context

DATA = Path(__file__).parent / "data"
CONFORMANCE = DATA / "conformance"

#: Test modules of frontend forms and layer kinds (``module``), and tests of other modules
#: (``module::test``), whose runs on the other shipped configurations are long forms
#: (``-m slow``): what differs between configurations is the lowering from ``vta-pack`` on,
#: which the core tests (``tests/test_workloads.py::test_vta_run``, convolutions, pools,
#: networks, the pinned binaries) run on every configuration; the default run checks each form
#: and each further way of running a program on the default configuration.
OTHER_CONFIGS_ARE_LONG_FORMS = frozenset({
    "test_bufferize::test_conv_with_pad_bias_and_requant",
    "test_networks::test_small_cnn_layer_on_vta",
    "test_networks::test_small_cnn_pool_into_nc_on_vta",
    "test_onnx_import::test_models",
    "test_sram_index_checks::test_simulator_fails_on_the_same_instruction",
    "test_sram_index_checks::test_vta_run_refuses_and_vta_translate_warns",
    "test_workloads::test_python_api",
    "test_workloads::test_vta_translate_then_vta_run",
    "test_concat",
    "test_depthwise",
    "test_integerize",
    "test_integerize_forms",
    "test_integerize_networks",
    "test_leaky_relu",
    "test_onnx_activations",
    "test_onnx_avgpool",
    "test_onnx_depthwise",
    "test_onnx_host_layers",
    "test_onnx_neck",
    "test_onnx_per_channel",
    "test_onnx_qoperator",
    "test_onnx_torch_exported",
    "test_onnx_unsigned",
    "test_onnx_vgg_head",
    "test_resize",
    "test_split_loops",
})
_OTHER_CONFIGS = tuple(name for name in SHIPPED_CONFIGS if name != "default")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks the other-configuration cases of :data:`OTHER_CONFIGS_ARE_LONG_FORMS` slow."""
    for item in items:
        module = item.nodeid.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")
        function = item.nodeid.split("::", 1)[-1].partition("[")[0]
        params = item.nodeid.partition("[")[2]
        listed = module in OTHER_CONFIGS_ARE_LONG_FORMS or \
            f"{module}::{function}" in OTHER_CONFIGS_ARE_LONG_FORMS
        if listed and any(
                name in params.replace("]", "-").split("-") for name in _OTHER_CONFIGS):
            item.add_marker(pytest.mark.slow)


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


@pytest.fixture
def mlir_file(tmp_path: Path) -> Callable[..., str]:
    """Writes a text into a file of ``tmp_path``; returns its path."""

    def write(text: str, name: str = "input.mlir") -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


@pytest.fixture
def extra_passes() -> Iterator[None]:
    """The extra passes of ``vta_opt_helpers.py``, registered for one test."""
    from vta_mlir.passes import register_pass, scoped_registry

    from .vta_opt_helpers import EXTRA_PASSES

    with scoped_registry():
        for p in EXTRA_PASSES:
            register_pass(p)
        yield


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[str]:
    """A local Dask cluster of two single-threaded worker processes, shared by the
    ``vta-explore`` tests of one module (and stopped after them); its scheduler's address.
    Dask is imported only when a test asks for it."""
    import logging

    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        # The scheduler's HTTP routes (health, metrics) on a free port, not on 8787.
        scheduler_kwargs={"dashboard_address": ":0"},
        silence_logs=logging.ERROR,
    ) as cluster:
        yield cluster.scheduler_address
