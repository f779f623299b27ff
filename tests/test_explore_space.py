"""``vta-explore`` without a cluster: the space file and its errors, configurations the hardware
rules forbid, the true multiply-accumulates, the Pareto front, the columns of
``results.csv``, and the optional dependencies (``import vta_mlir`` never imports Dask).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vta_mlir.config import VTAConfig
from vta_mlir.explore import Point, SpaceError, load_space, parse_space, sweep
from vta_mlir.explore.macs import multiply_accumulates
from vta_mlir.explore.point import sram_bytes
from vta_mlir.explore.report import FIGURE_COLUMNS, Row, csv_text, make_row, pareto_front
from vta_mlir.tools import vta_explore

from .explore_helpers import CONV, SMALL_CNN, SMALL_CNN_MACS

HEADER_AFTER_AXES = [
    "status",
    "reason",
    "cycles",
    "busy_load",
    "busy_compute",
    "busy_store",
    "dram_bytes",
    "sram_bytes",
    "macs_per_cycle",
    "bound_ratio",
    "compile_s",
    "sim_s",
]


# ---------------------------------------------------------------------------------------------
# The space


def test_axes_are_a_product_over_the_default_configuration() -> None:
    space = parse_space({"LOG_BLOCK": [4, 5], "LOG_BATCH": [0, 1], "timing.dma_latency": [16]})
    assert space.axes == ("LOG_BLOCK", "LOG_BATCH", "timing.dma_latency")
    names = [p.name for p in space.points]
    assert names == [
        "LOG_BLOCK=4,LOG_BATCH=0,timing.dma_latency=16",
        "LOG_BLOCK=4,LOG_BATCH=1,timing.dma_latency=16",
        "LOG_BLOCK=5,LOG_BATCH=0,timing.dma_latency=16",
        "LOG_BLOCK=5,LOG_BATCH=1,timing.dma_latency=16",
    ]
    default = VTAConfig.shipped("default")
    last = space.points[-1].config
    assert last is not None and last.block_in == 32 and last.batch == 2
    assert last.timing.dma_latency == 16
    assert last.log_acc_buff_size == default.log_acc_buff_size  # not an axis: the default's
    assert last.timing.dram_bytes_per_cycle == default.timing.dram_bytes_per_cycle


def test_configs_are_shipped_names_or_files_beside_the_space(tmp_path: Path) -> None:
    (tmp_path / "mine.json").write_text(
        json.dumps({**VTAConfig.shipped("default").to_dict(), "LOG_ACC_BUFF_SIZE": 16})
    )
    space_file = tmp_path / "space.json"
    space_file.write_text(json.dumps({"configs": ["default", "block32", "mine.json"]}))
    space = load_space(space_file)
    assert space.axes == ()
    assert [p.name for p in space.points] == ["default", "block32", "mine"]
    assert space.points[1].config == VTAConfig.shipped("block32")
    mine = space.points[2].config
    assert mine is not None and mine.log_acc_buff_size == 16


@pytest.mark.parametrize(
    ("space", "reason"),
    [
        ({"LOG_BLOCK": [7]}, "LOG_BLOCK = 7 is out of range [3, 6]"),
        ({"LOG_BATCH": [3]}, "LOG_BATCH = 3 is out of range [0, 2]"),
        ({"LOG_ACC_BUFF_SIZE": [30]}, "ACC SRAM depth 2^24 exceeds the 16-bit field"),
        ({"LOG_INP_BUFF_SIZE": [3]}, "INP SRAM would hold less than one element"),
        ({"LOG_INP_WIDTH": [4]}, "LOG_INP_WIDTH = 4 is unsupported"),
        ({"timing.dram_bytes_per_cycle": [0]}, "timing.dram_bytes_per_cycle = 0 is out of range"),
        ({"TARGET": ["fpga"]}, "TARGET 'fpga' is not one of"),
    ],
)
def test_a_configuration_the_rules_forbid_is_a_point_with_its_reason(
    space: dict[str, list[object]], reason: str
) -> None:
    (point,) = parse_space(space).points
    assert point.config is None and point.invalid_reason is not None
    assert point.invalid_reason.startswith(reason), point.invalid_reason
    row = make_row("m", point, None)
    assert row.status == "invalid-config" and row.get("reason") == point.invalid_reason
    assert all(row.get(c) is None for c in FIGURE_COLUMNS[2:])


def test_a_sweep_of_forbidden_configurations_writes_their_rows(tmp_path: Path) -> None:
    result = sweep([CONV], {"LOG_BLOCK": [2, 7]}, tmp_path / "out", progress=False)
    assert [r.status for r in result.rows] == ["invalid-config", "invalid-config"]
    assert result.computed == result.reused == result.failed == 0
    lines = (tmp_path / "out" / "results.csv").read_text().splitlines()
    assert lines[0].split(",") == ["model", "config", "LOG_BLOCK", *HEADER_AFTER_AXES]
    assert lines[1].startswith('conv2d_c8,LOG_BLOCK=2,2,invalid-config,"LOG_BLOCK = 2 is out')
    assert "invalid-config" in (tmp_path / "out" / "summary.md").read_text()
    assert (tmp_path / "out" / "pareto.png").read_bytes().startswith(b"\x89PNG")


BAD_SPACES = [
    ("{not json", "not valid JSON"),
    ("[]", "expected a JSON object of axes"),
    ("{}", "expected a JSON object of axes"),
    ('{"LOG_BLOK": [4]}', "unknown axis 'LOG_BLOK'"),
    ('{"timing.latency": [4]}', "unknown axis 'timing.latency'"),
    ('{"LOG_BLOCK": []}', "axis LOG_BLOCK: the list of values is empty"),
    ('{"LOG_BLOCK": 4}', "axis LOG_BLOCK: expected a list of values"),
    ('{"LOG_BLOCK": ["4"]}', "axis LOG_BLOCK: expected numbers, got '4'"),
    ('{"LOG_BLOCK": [4.5]}', "axis LOG_BLOCK: expected integers, got 4.5"),
    ('{"LOG_BLOCK": [true]}', "axis LOG_BLOCK: expected numbers, got True"),
    ('{"TARGET": [1]}', "axis TARGET: expected strings"),
    ('{"LOG_BLOCK": [4, 4]}', "axis LOG_BLOCK: the value 4 is listed twice"),
    ('{"configs": []}', "the list 'configs' is empty"),
    ('{"configs": "default"}', "'configs' must be a list"),
    ('{"configs": [3]}', "'configs' lists configuration names or files, got 3"),
    ('{"configs": ["nowhere.json"]}', "configuration 'nowhere.json' is neither a shipped"),
    ('{"configs": ["default", "default"]}', "two configurations are named 'default'"),
    ('{"configs": ["default"], "LOG_BLOCK": [4]}', "either configurations ('configs') or axes"),
]


@pytest.mark.parametrize(("text", "message"), BAD_SPACES)
def test_a_malformed_space_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    space = tmp_path / "space.json"
    space.write_text(text)
    out = tmp_path / "out"
    status = vta_explore.main([str(CONV), "--space", str(space), "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("vta-explore: error: ") and message in line, line
    assert not out.exists()  # nothing written


def test_a_malformed_space_is_a_space_error_in_python(tmp_path: Path) -> None:
    with pytest.raises(SpaceError, match="unknown axis"):
        sweep([CONV], {"BLOCK": [16]}, tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.mlir"], "cannot open model 'missing.mlir'"),
        ([str(CONV), str(CONV)], "two models are named 'conv2d_c8'"),
        (["model.txt"], "a model is an input-level .mlir file or an .onnx model"),
        ([str(CONV), "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "--workers sizes"),
        ([str(CONV), "--workers", "0"], "--workers must be at least 1"),
        ([str(CONV), "--retries", "-1"], "--retries must be at least 0"),
    ],
)
def test_bad_arguments_are_one_line_and_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    space = tmp_path / "space.json"
    space.write_text('{"LOG_BLOCK": [4]}')
    status = vta_explore.main([*args, "--space", str(space), "--out", str(tmp_path / "out")])
    (line,) = capsys.readouterr().err.splitlines()
    assert status == 1 and line.startswith("vta-explore: error: ") and message in line, line
    assert not (tmp_path / "out").exists()


def test_a_model_that_does_not_import_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "broken.onnx"
    model.write_bytes(b"not a model")
    space = tmp_path / "space.json"
    space.write_text('{"LOG_BLOCK": [4]}')
    status = vta_explore.main([str(model), "--space", str(space), "--out", str(tmp_path / "o")])
    (line,) = capsys.readouterr().err.splitlines()
    assert status == 1 and "is not a valid ONNX model" in line, line
    assert not (tmp_path / "o").exists()


# ---------------------------------------------------------------------------------------------
# Optional dependencies


def test_importing_vta_mlir_does_not_import_dask() -> None:
    code = (
        "import sys, vta_mlir, vta_mlir.explore, vta_mlir.tools.vta_explore\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed',"
        " 'matplotlib')]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])


def test_without_dask_the_error_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    space = tmp_path / "space.json"
    space.write_text('{"LOG_BLOCK": [4]}')
    status = vta_explore.main([str(CONV), "--space", str(space), "--out", str(tmp_path / "o")])
    (line,) = capsys.readouterr().err.splitlines()
    assert status == 1
    assert line == (
        "vta-explore: error: vta-explore needs dask.distributed, which the extra 'explore' "
        "installs: pip install 'vta-mlir[explore]'"
    )


# ---------------------------------------------------------------------------------------------
# Figures of a row


def test_true_macs_of_a_network_and_of_a_convolution() -> None:
    from vta_mlir import parse
    from vta_mlir.explore.macs import counting_macs
    from vta_mlir.ir.pipeline import run_pipeline

    with counting_macs() as counted:
        run_pipeline(parse(SMALL_CNN.read_text()), "vta-to-isa")
    assert counted.macs == SMALL_CNN_MACS
    # conv2d_c8: 256 → 256 channels, 12×12 outputs, 3×3
    assert multiply_accumulates(parse(CONV.read_text())) == 256 * 12 * 12 * 256 * 9


def _row(name: str, cycles: int | None, sram: int, status: str = "ok") -> Row:
    figures = dict.fromkeys(FIGURE_COLUMNS)
    figures.update(status=status, cycles=cycles, sram_bytes=sram)
    return Row("m", Point(name, (), VTAConfig.shipped("default")), figures)


def test_pareto_front_keeps_the_points_nothing_beats() -> None:
    rows = [
        _row("a", 100, 4),
        _row("b", 80, 4),  # beats a
        _row("c", 50, 8),
        _row("d", 50, 16),  # beaten by c
        _row("e", 10, 32),
        _row("f", 5, 64, "mismatch"),  # wrong results: on no front
        _row("g", None, 1, "error"),
        _row("h", 80, 4),  # equal to b: both kept
    ]
    assert [r.point.name for r in pareto_front(rows)] == ["b", "h", "c", "e"]


def test_row_figures_come_from_the_configuration() -> None:
    cfg = VTAConfig.shipped("batch2")
    point = Point("batch2", (), cfg)
    result = dict.fromkeys(("status", "reason", "cycles", "macs", "compile_s", "sim_s"))
    result.update(status="ok", reason="", cycles=3000, macs=2 * 16 * 16 * 1000)
    row = make_row("m", point, result)
    assert row.get("macs_per_cycle") == cfg.batch * cfg.block_in * cfg.block_out == 512
    assert row.get("sram_bytes") == sram_bytes(cfg) == (32 + 256 + 256) * 1024 + 32 * 1024
    assert row.get("bound_ratio") == 3000 / 1000
    text = csv_text([row], ())
    assert text.splitlines()[0].split(",") == ["model", "config", *HEADER_AFTER_AXES]
    assert text.splitlines()[1] == "m,batch2,ok,,3000,,,,,589824,512,3.0000,,"
