"""End-of-run races (:class:`vta_mlir.sim.hazards.EndOfRunRace`): the host reads the outputs
from DRAM once FINISH has executed, so every STORE (and every other instruction with a data
effect) must happen before FINISH.  Dropping the token that orders the last STORE before FINISH
in a compiled program must be reported, by :func:`find_hazards` and by ``vta-run
--check-hazards``; every reported instruction agrees with a brute-force closure of
happens-before."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path

import pytest

from vta_mlir.binary import BinaryModule
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.isa import AluInsn, FinishInsn, GemmInsn, Insn, MemInsn, module_of
from vta_mlir.program import Program, Run
from vta_mlir.sim.hazards import EndOfRunRace, Hazard, find_hazards, program_hazards
from vta_mlir.tools import vta_run

from .compiled_programs import lowered
from .conftest import CONFORMANCE
from .test_hazards import (
    QUEUE_FLAGS,
    compiled_stream,
    drop_token,
    happens_before,
    token_pairs,
    tvm_stream,
)

ROOT = Path(__file__).resolve().parent.parent
VECTOR_ADD = ROOT / "examples" / "vector_add.mlir"


def last_store_token(insns: Sequence[Insn]) -> tuple[int, int]:
    """The ``s2g`` token pushed by the last STORE that writes DRAM (push, pop)."""
    last = max(i for i, x in enumerate(insns) if isinstance(x, MemInsn) and x.is_store and x.x_size)
    return next((push, pop) for push, pop in token_pairs(insns, "s2g") if push == last)


def end_races(hazards: Sequence[Hazard | EndOfRunRace]) -> list[EndOfRunRace]:
    return [h for h in hazards if isinstance(h, EndOfRunRace)]


def unordered_before_finish(insns: Sequence[Insn]) -> set[int]:
    """Instructions with a data effect that do not happen before FINISH, from the transitive
    closure of program order and token edges (written independently of the checker)."""
    before = happens_before(insns)
    finish = next(i for i, x in enumerate(insns) if isinstance(x, FinishInsn))

    def effect(x: Insn) -> bool:
        return (isinstance(x, MemInsn) and x.x_size > 0) or isinstance(x, GemmInsn | AluInsn)

    return {i for i, x in enumerate(insns) if i != finish and effect(x) and not before[i, finish]}


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_dropping_the_last_store_token_is_reported(config: str) -> None:
    runs, images, cfg = compiled_stream(VECTOR_ADD, config)
    insns = runs[0]
    assert find_hazards(runs, images, cfg) == []
    push, pop = last_store_token(insns)
    hazards = find_hazards([drop_token(insns, "s2g", push, pop)], images[:1], cfg)
    finish = len(insns) - 1
    assert isinstance(insns[finish], FinishInsn)
    assert [str(h) for h in hazards] == [
        f"hazard: end of run: instruction {push} (store STORE.OUT) is not ordered before "
        f"FINISH (instruction {finish}): the host may read the DRAM it stores to before it is "
        "written"
    ]
    # Only the end of the run is affected: the SRAM races stay as they were.
    assert (
        find_hazards([drop_token(insns, "s2g", push, pop)], images[:1], cfg, end_of_run=False) == []
    )


def test_a_later_run_is_named() -> None:
    runs, images, cfg = compiled_stream(VECTOR_ADD)
    push, pop = last_store_token(runs[0])
    hazards = find_hazards([runs[0], drop_token(runs[0], "s2g", push, pop)], images * 2, cfg)
    assert len(hazards) == 1 and hazards[0].run == 1
    assert str(hazards[0]).startswith(f"hazard: run 1: end of run: instruction {push} ")


@pytest.mark.parametrize("queue", list(QUEUE_FLAGS))
def test_every_unordered_instruction_is_reported(queue: str) -> None:
    """Against the brute-force closure, for every single dropped token of small streams."""
    streams = [
        tvm_stream(CONFORMANCE / "tvm_matrix_multiply_opt.npz"),
        compiled_stream(VECTOR_ADD, "batch2"),
        compiled_stream(ROOT / "examples" / "dense_bias_relu.mlir"),
        compiled_stream(ROOT / "examples" / "alu_ops.mlir", "block32"),
    ]
    reported = 0
    for runs, images, cfg in streams:
        for push, pop in token_pairs(runs[0], queue):
            mutated = drop_token(runs[0], queue, push, pop)
            got = end_races(find_hazards([mutated], images[:1], cfg))
            assert {h.insn for h in got} == unordered_before_finish(mutated), (push, pop)
            assert all(h.finish == len(mutated) - 1 for h in got)
            reported += bool(got)
    if queue == "s2g":  # vector_add's only store is ordered before FINISH by one token
        assert reported


def test_no_tokens_at_all() -> None:
    """Without tokens only the compute module's own instructions precede FINISH."""
    runs, images, cfg = compiled_stream(ROOT / "examples" / "dense_kn.mlir", "block32")
    bare = [copy.copy(x) for x in runs[0]]
    for x in bare:
        x.pop_prev_dep = x.pop_next_dep = x.push_prev_dep = x.push_next_dep = 0
    got = end_races(find_hazards([bare], images, cfg))
    want = {
        i
        for i, x in enumerate(bare)
        if module_of(x) != "compute" and isinstance(x, MemInsn) and x.x_size
    }
    assert {h.insn for h in got} == want == unordered_before_finish(bare)
    assert {h.consequence.startswith("the host may read") for h in got} == {True, False}


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_vta_run_check_hazards_reports_it(
    tmp_path: Path, config: str, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = lowered(VECTOR_ADD.read_text(), config)
    run = binary.program.runs[0]
    push, pop = last_store_token(run.insns)
    mutated = drop_token(run.insns, "s2g", push, pop)
    program = Program([Run(mutated, run.uop_words, run.uop_base)], list(binary.program.segments))
    assert [h.insn for h in end_races(program_hazards(program, binary.config))] == [push]
    path = tmp_path / "racy.vtab"
    BinaryModule(binary.config, program, binary.args, binary.base).save(path)
    status = vta_run.main([str(path), "--random-inputs", "--check-hazards"])
    out, err = capsys.readouterr()
    assert status == 1
    assert out.splitlines()[-2:] == [
        f"hazard: end of run: instruction {push} (store STORE.OUT) is not ordered before "
        f"FINISH (instruction {len(mutated) - 1}): the host may read the DRAM it stores to "
        "before it is written",
        "hazards: 1 found",
    ]
    assert "Traceback" not in err
