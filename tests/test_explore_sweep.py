"""``vta-explore`` on a local Dask cluster of two worker processes (the ``dask_cluster``
fixture): every point's figures are those of a plain ``vta-run --stats``; a rerun computes
nothing, and a rerun after an interruption only what is missing; a worker that dies in the
middle of a point loses nothing; a separate ``dask scheduler`` with its ``dask worker`` gives
the same rows through ``--scheduler``; ``function`` chooses the function of a model with
several.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

import pytest

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.errors import VTAError
from vta_mlir.explore import SweepResult, sweep
from vta_mlir.explore.cache import POINTS_FOLDER
from vta_mlir.tools import vta_explore

from .explore_helpers import (
    CONV,
    CONV_EXAMPLES,
    SMALL_CNN,
    SMALL_CNN_MACS,
    data_bytes,
    dying_point,
    external_cluster,
    refused_point,
    rows_without_timings,
    tiny_onnx,
    vta_run_stats,
)


class ShippedSweep(NamedTuple):
    """A sweep of the models on the three shipped configurations, and its output folder."""

    models: list[Path]
    out: Path
    result: SweepResult


@pytest.fixture(scope="module")
def shipped_sweep(dask_cluster: str, tmp_path_factory: pytest.TempPathFactory) -> ShippedSweep:
    """The small CNN and a one-convolution ONNX model on the three shipped configurations."""
    folder = tmp_path_factory.mktemp("shipped")
    models = [SMALL_CNN, tiny_onnx(folder / "tiny_conv.onnx")]
    out = folder / "out"
    result = sweep(
        models, {"configs": list(SHIPPED_CONFIGS)}, out, scheduler=dask_cluster, progress=False
    )
    return ShippedSweep(models, out, result)


def test_every_point_equals_a_plain_vta_run(shipped_sweep: ShippedSweep, tmp_path: Path) -> None:
    models, _, result = shipped_sweep
    assert result.computed == len(models) * len(SHIPPED_CONFIGS) and result.failed == 0
    assert [(r.model, r.point.name) for r in result.rows] == [
        (m.stem, c) for m in models for c in SHIPPED_CONFIGS
    ]
    for row in result.rows:
        model = next(m for m in models if m.stem == row.model)
        stats = vta_run_stats(model, row.point.name, tmp_path)
        cfg = VTAConfig.shipped(row.point.name)
        assert row.status == "ok" and row.get("reason") == "", row.figures
        assert row.get("cycles") == stats["cycles"]
        assert row.get("busy_load") == stats["busy"]["load"]
        assert row.get("busy_compute") == stats["busy"]["compute"]
        assert row.get("busy_store") == stats["busy"]["store"]
        assert row.get("dram_bytes") == data_bytes(stats)
        assert row.get("macs_per_cycle") == cfg.batch * cfg.block_in * cfg.block_out
        assert row.get("sram_bytes") == sum(
            2**k
            for k in (
                cfg.log_inp_buff_size,
                cfg.log_wgt_buff_size,
                cfg.log_acc_buff_size,
                cfg.log_uop_buff_size,
            )
        )
        assert row.get("compile_s") > 0 and row.get("sim_s") > 0
    small = [r for r in result.rows if r.model == SMALL_CNN.stem]
    for row in small:
        bound = SMALL_CNN_MACS / row.get("macs_per_cycle")
        assert row.get("bound_ratio") == pytest.approx(row.get("cycles") / bound)


def test_results_files(shipped_sweep: ShippedSweep) -> None:
    models, out, result = shipped_sweep
    lines = (out / "results.csv").read_text().splitlines()
    assert lines[0] == (
        "model,config,status,reason,cycles,busy_load,busy_compute,busy_store,dram_bytes,"
        "sram_bytes,macs_per_cycle,bound_ratio,compile_s,sim_s"
    )
    assert len(lines) == 1 + len(result.rows)
    assert lines[1].startswith(f"small_cnn,default,ok,,{result.rows[0].get('cycles')},")
    summary = (out / "summary.md").read_text()
    assert "## small_cnn" in summary and "## tiny_conv" in summary
    assert "Pareto front" in summary
    assert (out / "pareto.png").read_bytes().startswith(b"\x89PNG")
    assert len(list((out / POINTS_FOLDER).glob("*.json"))) == len(result.rows)


def test_a_rerun_computes_nothing(shipped_sweep: ShippedSweep) -> None:
    models, out, first = shipped_sweep
    csv = (out / "results.csv").read_text()
    # An unreachable scheduler and a point function that fails: nothing may be submitted.
    again = sweep(
        models,
        {"configs": list(SHIPPED_CONFIGS)},
        out,
        scheduler="tcp://127.0.0.1:1",
        point_function=refused_point,
        progress=False,
    )
    assert again.computed == 0 and again.reused == len(first.rows)
    assert [r.figures for r in again.rows] == [r.figures for r in first.rows]
    assert (out / "results.csv").read_text() == csv  # compile_s and sim_s included


def test_an_interrupted_sweep_computes_only_what_is_missing(
    shipped_sweep: ShippedSweep, dask_cluster: str, tmp_path: Path
) -> None:
    models, out, first = shipped_sweep
    partial = tmp_path / "out"
    (partial / POINTS_FOLDER).mkdir(parents=True)
    kept = sorted((out / POINTS_FOLDER).glob("*.json"))
    for path in kept[1:]:  # as if the sweep had stopped before its first point was kept
        (partial / POINTS_FOLDER / path.name).write_bytes(path.read_bytes())
    again = sweep(
        models,
        {"configs": list(SHIPPED_CONFIGS)},
        partial,
        scheduler=dask_cluster,
        progress=False,
    )
    assert again.computed == 1 and again.reused == len(first.rows) - 1
    assert rows_without_timings(again) == rows_without_timings(first)
    recomputed = [
        i
        for i, (a, b) in enumerate(zip(first.rows, again.rows, strict=True))
        if a.figures != b.figures
    ]
    assert len(recomputed) <= 1  # only the missing point may have new wall times


def test_a_worker_that_dies_mid_point_loses_nothing(dask_cluster: str, tmp_path: Path) -> None:
    marker = tmp_path / "a worker died"
    result = sweep(
        [CONV],
        {"configs": ["default", "block32"]},
        tmp_path / "out",
        scheduler=dask_cluster,
        retries=2,
        point_function=functools.partial(dying_point, str(marker)),
        progress=False,
    )
    assert marker.exists()  # the first point ended its worker
    assert [r.status for r in result.rows] == ["ok", "ok"]
    assert result.computed == 2 and result.failed == 0
    assert all(r.get("cycles") for r in result.rows)


def test_the_function_of_a_model_with_several(dask_cluster: str, tmp_path: Path) -> None:
    """``function`` compiles and checks that function of each model, as ``vta-run
    --function``; it is part of the point's key, and a model with several functions needs
    it."""
    model = CONV_EXAMPLES / "conv2d_padded.mlir"
    chosen = sweep([model], {"configs": ["default"]}, tmp_path / "out", scheduler=dask_cluster,
                   function="conv3x3_pad1_s2", progress=False)
    (row,) = chosen.rows
    assert row.status == "ok", row.figures
    stats = vta_run_stats(model, "default", tmp_path, function="conv3x3_pad1_s2")
    assert row.get("cycles") == stats["cycles"] and row.get("dram_bytes") == data_bytes(stats)
    # The same folder: the other function's point is computed, not taken from the first.
    other = sweep([model], {"configs": ["default"]}, tmp_path / "out", scheduler=dask_cluster,
                  function="conv3x3_pad1", progress=False)
    assert other.computed == 1 and other.reused == 0
    assert other.rows[0].status == "ok" and other.rows[0].get("cycles") != row.get("cycles")
    # Without one, the point is an error row saying what to give.
    (missing,) = sweep([model], {"configs": ["default"]}, tmp_path / "out2",
                       scheduler=dask_cluster, progress=False).rows
    assert missing.status == "error" and "name the one to lower" in missing.get("reason")
    with pytest.raises(VTAError, match="function's name"):
        sweep([model], {"configs": ["default"]}, tmp_path / "out3", scheduler=dask_cluster,
              function="", progress=False)


def test_an_external_scheduler_gives_the_same_rows(
    shipped_sweep: ShippedSweep, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = shipped_sweep.models[1]  # the ONNX model travels to the workers as its MLIR
    space = tmp_path / "space.json"
    space.write_text('{"configs": ["default", "block32", "batch2"]}')
    out = tmp_path / "out"
    with external_cluster(tmp_path) as address:
        status = vta_explore.main(
            [
                str(model),
                "--space",
                str(space),
                "--out",
                str(out),
                "--scheduler",
                address,
                "--no-progress",
            ]
        )
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "3 points computed, 0 from" in captured.out
    again = sweep([model], space, out, scheduler="tcp://127.0.0.1:1", progress=False)
    local = [row for row in rows_without_timings(shipped_sweep.result) if row[0] == model.stem]
    assert again.computed == 0 and rows_without_timings(again) == local


def test_a_point_whose_retries_fail_is_an_error_row_computed_again_later(
    dask_cluster: str, tmp_path: Path
) -> None:
    marker = tmp_path / "a worker died"
    out = tmp_path / "out"
    # A local cluster of its own (the default), where no retry is allowed.
    result = sweep(
        [CONV],
        {"configs": ["default"]},
        out,
        workers=1,
        retries=0,
        point_function=functools.partial(dying_point, str(marker)),
        progress=False,
    )
    (row,) = result.rows
    assert row.status == "error" and result.failed == 1 and result.computed == 0
    assert row.get("reason") == (
        "the point failed on every attempt: the workers running it died on every attempt "
        "(a crash, or out of memory)"
    )
    assert "tcp://" not in (out / "results.csv").read_text()
    assert not list((out / POINTS_FOLDER).glob("*.json"))  # not kept: the next run retries it
    again = sweep([CONV], {"configs": ["default"]}, out, scheduler=dask_cluster, progress=False)
    assert again.computed == 1 and [r.status for r in again.rows] == ["ok"]
