"""Configuration: derived quantities, field layouts against the C structs, and rejection of bad
configurations with one-line messages naming the culprit."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from vta_mlir.config import SHIPPED_CONFIGS, TimingParams, VTAConfig
from vta_mlir.errors import ConfigError

from .conftest import CONFORMANCE

LAYOUT_CSV = {
    "default": CONFORMANCE / "insn_field_layout.csv",
    "block32": CONFORMANCE / "cfg_block32" / "insn_field_layout.csv",
    "batch2": CONFORMANCE / "cfg_batch2" / "insn_field_layout.csv",
}


def _read_layout(path: Path) -> dict[tuple[str, str], tuple[int, int]]:
    rows = {}
    with path.open() as f:
        for row in csv.reader(f):
            if not row or row[0].startswith("#") or row[0] == "struct":
                continue
            struct, name, lsb, width = row
            rows[(struct, name)] = (int(lsb), int(width))
    return rows


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_field_layout_matches_c_structs(name: str) -> None:
    expected = _read_layout(LAYOUT_CSV[name])
    cfg = VTAConfig.shipped(name)
    derived = {
        (struct, f.name): (f.lsb, f.width)
        for struct, layout in cfg.field_layouts().items()
        for f in layout.values()
    }
    assert derived == expected


def test_shipped_folders_agree_with_shipped_configs() -> None:
    for name, folder in (("block32", "cfg_block32"), ("batch2", "cfg_batch2")):
        on_disk = VTAConfig.from_file(CONFORMANCE / folder / "config.json")
        assert on_disk == VTAConfig.shipped(name)


def test_default_derived_quantities() -> None:
    cfg = VTAConfig.shipped("default")
    assert (cfg.batch, cfg.block_in, cfg.block_out) == (1, 16, 16)
    assert (cfg.inp_elem_bytes, cfg.wgt_elem_bytes, cfg.acc_elem_bytes, cfg.out_elem_bytes) == (
        16, 256, 64, 16)
    assert cfg.acc8_elem_bytes == 16
    assert (cfg.uop_buff_depth, cfg.inp_buff_depth, cfg.wgt_buff_depth, cfg.acc_buff_depth) == (
        8192, 2048, 1024, 2048)
    assert cfg.out_buff_depth == cfg.acc_buff_depth
    assert cfg.log_out_buff_size == 15
    assert cfg.bitstream == "1x16_i8w8a32_15_15_18_17"
    assert cfg.model == "sim_1x16_i8w8a32_15_15_18_17"
    assert cfg.gemm_macs_per_cycle == 256
    assert cfg.timing == TimingParams(32, 8, 4, 100.0)


def test_other_shipped_configs() -> None:
    b32 = VTAConfig.shipped("block32")
    assert b32.bitstream == "1x32_i8w8a32_15_16_19_18"
    assert (b32.wgt_elem_bytes, b32.wgt_buff_depth, b32.inp_buff_depth) == (1024, 512, 2048)
    b2 = VTAConfig.shipped("batch2")
    assert b2.bitstream == "2x16_i8w8a32_15_15_18_18"
    assert (b2.inp_elem_bytes, b2.acc_elem_bytes, b2.inp_buff_depth) == (32, 128, 1024)


def _default_dict() -> dict:
    return VTAConfig.shipped("default").to_dict()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"LOG_INP_WIDTH": 4}, "LOG_INP_WIDTH = 4 is unsupported"),
        ({"LOG_ACC_WIDTH": 4}, "LOG_ACC_WIDTH = 4 is unsupported"),
        ({"LOG_BATCH": 3}, "LOG_BATCH = 3 is out of range"),
        ({"LOG_BLOCK": 7}, "LOG_BLOCK = 7 is out of range"),
        ({"LOG_BLOCK": 2}, "LOG_BLOCK = 2 is out of range"),
        ({"LOG_BLOCK": "4"}, "LOG_BLOCK must be an integer"),
        ({"LOG_BATCH": True}, "LOG_BATCH must be an integer"),
        ({"TARGET": "gpu"}, "TARGET 'gpu' is not one of"),
        ({"LOG_INP_BUFF_SIZE": 3}, "INP SRAM would hold less than one element"),
        ({"LOG_UOP_BUFF_SIZE": 1}, "UOP SRAM would hold less than one element"),
        # a larger accumulator widens the dst factors until the GEMM word overflows 128 bits
        ({"LOG_ACC_BUFF_SIZE": 18}, "GEMM instruction field 'wgt_factor_in'"),
        # ... and four accumulator-indexed factors overflow the ALU word
        ({"LOG_ACC_BUFF_SIZE": 18, "LOG_WGT_BUFF_SIZE": 17}, "ALU instruction field 'imm'"),
        # 11 + 11 + 11 index bits do not fit the 32-bit micro-op
        ({"LOG_WGT_BUFF_SIZE": 19, "LOG_INP_BUFF_SIZE": 14}, "micro-op field 'wgt_idx'"),
        ({"LOG_WGT_BUFF_SIZE": 19}, "GEMM instruction field 'wgt_factor_in'"),
        ({"timing": {"dma_latency": -1}}, "timing.dma_latency = -1 is out of range"),
        ({"timing": {"bogus": 1}}, "unknown key(s) in 'timing': bogus"),
        ({"timing": {"clock_mhz": 0}}, "timing.clock_mhz must be a positive number"),
    ],
)
def test_bad_configurations_are_rejected(change: dict, message: str) -> None:
    data = _default_dict() | change
    with pytest.raises(ConfigError) as exc:
        VTAConfig.from_dict(data)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_overflow_names_field_and_keys() -> None:
    with pytest.raises(ConfigError) as exc:
        VTAConfig.from_dict(_default_dict() | {"LOG_ACC_BUFF_SIZE": 18})
    text = str(exc.value)
    assert "does not fit in 128 bits" in text and "LOG_ACC_BUFF_SIZE" in text


def test_a_number_of_too_many_digits_is_not_json() -> None:
    text = '{"LOG_BATCH": ' + "9" * 5000 + "}"
    with pytest.raises(ConfigError, match="not valid JSON: Exceeds the limit") as exc:
        VTAConfig.from_json(text, source="big.json")
    assert "\n" not in str(exc.value)


def test_unknown_and_missing_keys() -> None:
    with pytest.raises(ConfigError, match="unknown key"):
        VTAConfig.from_dict(_default_dict() | {"LOG_BLOCK_IN": 4})
    data = _default_dict()
    del data["HW_VER"]
    with pytest.raises(ConfigError, match="missing key.*HW_VER"):
        VTAConfig.from_dict(data)
    with pytest.raises(ConfigError, match="expected a JSON object"):
        VTAConfig.from_dict([1, 2])


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read configuration"):
        VTAConfig.from_file(tmp_path / "absent.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        VTAConfig.from_file(bad)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError):
        VTAConfig.from_file(binary)
    with pytest.raises(ConfigError, match="no shipped configuration"):
        VTAConfig.shipped("huge")


def test_timing_section_round_trips(tmp_path: Path) -> None:
    data = _default_dict() | {"timing": {"dma_latency": 10, "clock_mhz": 250}}
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(data))
    cfg = VTAConfig.load(path)
    assert cfg.timing.dma_latency == 10 and cfg.timing.clock_mhz == 250.0
    assert cfg.timing.dram_bytes_per_cycle == 8
    assert VTAConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.same_hardware(VTAConfig.shipped("default"))
    assert cfg != VTAConfig.shipped("default")


def test_load_by_name_or_path() -> None:
    assert VTAConfig.load(None) == VTAConfig.shipped("default")
    assert VTAConfig.load("batch2").batch == 2
