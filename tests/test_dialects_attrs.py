"""The ``vta`` dialect's configuration attribute: it round-trips to an equal configuration,
carries the timing and target, rejects bad text, and its helpers find and set it."""

from __future__ import annotations

import re

import pytest
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from vta_mlir.config import SHIPPED_CONFIGS, TimingParams, VTAConfig
from vta_mlir.dialects.vta import (
    CONFIG_ATTR_NAME,
    DepPushOp,
    VTAConfigAttr,
    get_config,
    set_module_config,
)
from vta_mlir.errors import VTAError

from .dialect_helpers import (
    CONFIGS,
    DEFAULT,
    dialect_context,
)


@pytest.fixture(scope="module")
def ctx() -> Context:
    return dialect_context()


# ---------------------------------------------------------------------------------------------
# The configuration attribute and its helpers


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_config_attr_round_trips_to_an_equal_config(ctx: Context, name: str) -> None:
    cfg = CONFIGS[name]
    attr = VTAConfigAttr.from_config(cfg)
    assert attr.config == cfg
    parsed = Parser(ctx, str(attr)).parse_attribute()
    assert parsed == attr and isinstance(parsed, VTAConfigAttr) and parsed.config == cfg
    assert "dma_latency" not in str(attr)  # default timing is not printed


def test_config_attr_carries_timing_and_target(ctx: Context) -> None:
    cfg = VTAConfig(target="pynq", hw_ver="0.0.1",
                    timing=TimingParams(dma_latency=7, dram_bytes_per_cycle=16,
                                        pipeline_depth=2, clock_mhz=333.5))
    attr = VTAConfigAttr.from_config(cfg)
    text = str(attr)
    assert 'target = "pynq"' in text and "clock_mhz = 333.5" in text
    parsed = Parser(ctx, text).parse_attribute()
    assert isinstance(parsed, VTAConfigAttr) and parsed.config == cfg
    # Timing keys left out take their defaults.
    short = Parser(ctx, text.replace(", clock_mhz = 333.5", "")).parse_attribute()
    assert isinstance(short, VTAConfigAttr)
    assert short.config.timing.clock_mhz == TimingParams().clock_mhz


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.replace(", log_block = 4", ""), "missing key(s) log_block"),
    (lambda t: t.replace("log_block = 4", "log_block = 4, log_block = 4"), "given twice"),
    (lambda t: t.replace("log_block = 4", "block = 4"), "unknown #vta.config key 'block'"),
    (lambda t: t.replace("log_block = 4", "log_block = 2"), "LOG_BLOCK = 2 is out of range"),
    (lambda t: t.replace('"sim"', '"fpga"'), "TARGET 'fpga' is not one of"),
    (lambda t: t.replace("log_block = 4", "log_block = 4, dma_latency = -1"),
     "timing.dma_latency = -1 is out of range"),
])
def test_config_attr_rejects_bad_text(ctx: Context, change, message: str) -> None:
    text = change(str(VTAConfigAttr.from_config(DEFAULT)))
    with pytest.raises((ParseError, VerifyException), match=re.escape(message)):
        Parser(ctx, text).parse_attribute()


def test_get_config_finds_the_nearest_ancestor() -> None:
    op = DepPushOp("load", "compute")
    assert get_config(op) == DEFAULT  # detached: the default configuration
    inner = ModuleOp([op])
    outer = ModuleOp([inner])
    set_module_config(outer, CONFIGS["batch2"])
    assert get_config(op) == CONFIGS["batch2"]
    set_module_config(inner, CONFIGS["block32"])
    assert get_config(op) == CONFIGS["block32"]
    assert get_config(inner) == CONFIGS["block32"]


def test_set_module_config() -> None:
    module = ModuleOp([])
    set_module_config(module, CONFIGS["block32"])
    assert module.attributes[CONFIG_ATTR_NAME] == VTAConfigAttr.from_config(CONFIGS["block32"])
    set_module_config(module, VTAConfig.shipped("block32"))  # the same one again: fine
    with pytest.raises(VTAError, match="built for configuration sim_1x32.* but configuration "
                                       "sim_1x16"):
        set_module_config(module, DEFAULT)
    timed = VTAConfig(timing=TimingParams(dma_latency=1))
    other = ModuleOp([])
    set_module_config(other, DEFAULT)
    with pytest.raises(VTAError, match="timing dma_latency=1"):
        set_module_config(other, timed)
    odd = ModuleOp([])
    odd.attributes[CONFIG_ATTR_NAME] = builtin.StringAttr("default")
    with pytest.raises(VTAError, match="is not a #vta.config"):
        set_module_config(odd, DEFAULT)
