"""``vta_mlir.ir.collection``: pass pipelines run with rare generation-0 collections, and the
caller's collector thresholds come back afterwards, also when a pass fails; what was alive
before is frozen inside, unless the caller froze objects itself."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from vta_mlir import VTAError
from vta_mlir.ir.collection import PIPELINE_GEN0_THRESHOLD, fewer_collections
from vta_mlir.ir.pipeline import run_pipeline


@pytest.fixture
def caller_thresholds() -> Iterator[tuple[int, int, int]]:
    saved = gc.get_threshold()
    gc.set_threshold(500, 7, 9)
    yield gc.get_threshold()
    gc.set_threshold(*saved)


@dataclass(frozen=True)
class RecordThresholds(ModulePass):
    """Records the collector's thresholds while it runs; fails when ``fail`` is set."""

    name = "test-record-gc-thresholds"
    seen: ClassVar[list[tuple[int, int, int]]] = []
    fail: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        RecordThresholds.seen.append(gc.get_threshold())
        if self.fail:
            raise VTAError("the pass refuses this module")


def test_thresholds_are_raised_inside_and_restored_after(
    caller_thresholds: tuple[int, int, int],
) -> None:
    with fewer_collections():
        assert gc.get_threshold() == (PIPELINE_GEN0_THRESHOLD, 7, 9)
    assert gc.get_threshold() == caller_thresholds


def test_a_higher_threshold_of_the_caller_is_kept(caller_thresholds: tuple[int, int, int]) -> None:
    gc.set_threshold(10 * PIPELINE_GEN0_THRESHOLD, 7, 9)
    with fewer_collections():
        assert gc.get_threshold()[0] == 10 * PIPELINE_GEN0_THRESHOLD
    assert gc.get_threshold() == (10 * PIPELINE_GEN0_THRESHOLD, 7, 9)


def test_a_pipeline_runs_with_rare_collections_and_restores_them(
    caller_thresholds: tuple[int, int, int],
) -> None:
    RecordThresholds.seen.clear()
    run_pipeline(ModuleOp([]), [RecordThresholds()])
    assert RecordThresholds.seen == [(PIPELINE_GEN0_THRESHOLD, 7, 9)]
    assert gc.get_threshold() == caller_thresholds


def test_a_failing_pass_restores_the_thresholds(caller_thresholds: tuple[int, int, int]) -> None:
    with pytest.raises(VTAError, match="refuses this module"):
        run_pipeline(ModuleOp([]), [RecordThresholds(fail=True)])
    assert gc.get_threshold() == caller_thresholds


def test_objects_alive_before_are_frozen_inside_and_thawed_after() -> None:
    if gc.get_freeze_count():
        pytest.skip("the interpreter already holds frozen objects")
    with fewer_collections():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_objects_the_caller_froze_stay_frozen() -> None:
    if gc.get_freeze_count():
        pytest.skip("the interpreter already holds frozen objects")
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with fewer_collections():
            assert gc.get_freeze_count() == frozen
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
