"""The hazard checker (:mod:`vta_mlir.sim.hazards`): generated and TVM streams are hazard-free;
dropping one dependency token (and its matching push, so the tokens still balance) makes it
report the race between the two instructions the token ordered; every reported pair agrees
with a brute-force closure of happens-before on small streams; and ``vta-run --check-hazards``."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.errors import DeadlockError, SimulatorError
from vta_mlir.isa import FinishInsn, GemmInsn, Insn, MemInsn, MemType, decode_insns, module_of
from vta_mlir.sim.hazards import AccessChecker, Hazard, UopImage, find_hazards, program_hazards
from vta_mlir.tools import vta_run

from .compiled_programs import lowered
from .conftest import CONFORMANCE

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
VTA_EXAMPLES = sorted((ROOT / "examples" / "vta").glob("*.mlir"))
TVM_CASES = sorted(CONFORMANCE.glob("tvm_*.npz"))

Stream = tuple[list[list[Insn]], list[tuple[np.ndarray, int]], VTAConfig]

#: queue -> (module, flag) of its pusher and (module, flag) of its popper (docs/isa.md §3.2).
QUEUE_FLAGS = {
    "l2g": (("load", "push_next_dep"), ("compute", "pop_prev_dep")),
    "g2l": (("compute", "push_prev_dep"), ("load", "pop_next_dep")),
    "g2s": (("compute", "push_next_dep"), ("store", "pop_prev_dep")),
    "s2g": (("store", "push_prev_dep"), ("compute", "pop_next_dep")),
}


def tvm_stream(path: Path) -> Stream:
    with np.load(path, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    cfg = (
        VTAConfig.from_json(str(data["config_json"]))
        if "config_json" in data
        else VTAConfig.shipped("default")
    )
    insns = decode_insns(data["insns"], cfg)
    runs, at = [], 0
    for count in data["run_insn_count"]:
        runs.append(insns[at : at + int(count)])
        at += int(count)
    words = np.ascontiguousarray(data["uops"]).view("<u4")
    images, at = [], 0
    for base, nbytes in zip(data["run_uop_base"], data["run_uop_nbytes"], strict=True):
        images.append((words[at // 4 : (at + int(nbytes)) // 4], int(base)))
        at += int(nbytes)
    return runs, images, cfg


def compiled_stream(path: Path, config: str | None = "default") -> Stream:
    binary = lowered(path.read_text(), config)
    runs = [list(r.insns) for r in binary.program.runs]
    images = [(np.asarray(r.uop_words, dtype=np.uint32), r.uop_base) for r in binary.program.runs]
    return runs, images, binary.config


def token_pairs(insns: Sequence[Insn], queue: str) -> list[tuple[int, int]]:
    """(pushing, popping) instruction of each token of ``queue`` in one run (FIFO)."""
    (push_module, push_flag), (pop_module, pop_flag) = QUEUE_FLAGS[queue]
    pushes = [
        i for i, x in enumerate(insns) if module_of(x) == push_module and getattr(x, push_flag)
    ]
    pops = [i for i, x in enumerate(insns) if module_of(x) == pop_module and getattr(x, pop_flag)]
    return list(zip(pushes, pops, strict=False))


def happens_before(insns: Sequence[Insn]) -> np.ndarray:
    """``before[i, j]``: instruction ``i`` happens before ``j`` in one run — the transitive
    closure (Floyd–Warshall) of program order within a module and of token edges, written
    independently of the checker (for small runs)."""
    n = len(insns)
    before = np.zeros((n, n), dtype=bool)
    last: dict[str, int] = {}
    for i, x in enumerate(insns):
        m = module_of(x)
        if m in last:
            before[last[m], i] = True
        last[m] = i
    for queue in QUEUE_FLAGS:
        for push, pop in token_pairs(insns, queue):
            before[push, pop] = True
    for k in range(n):
        before |= before[:, k : k + 1] & before[k : k + 1, :]
    return before


def drop_token(insns: Sequence[Insn], queue: str, push: int, pop: int) -> list[Insn]:
    """A copy of ``insns`` without the token ``push`` → ``pop`` (both flags cleared)."""
    (_, push_flag), (_, pop_flag) = QUEUE_FLAGS[queue]
    out = [copy.copy(x) for x in insns]
    setattr(out[push], push_flag, 0)
    setattr(out[pop], pop_flag, 0)
    return out


def names_pair(hazards: Sequence[Hazard], a: int, b: int) -> list[Hazard]:
    return [h for h in hazards if {h.writer, h.other} == {a, b}]


def brute_force(
    insns: Sequence[Insn], image: tuple[np.ndarray, int], cfg: VTAConfig
) -> set[tuple[str, int, int, tuple[tuple[int, int], ...]]]:
    """Racing pairs of one run from the transitive closure of happens-before (small runs)."""
    n = len(insns)
    checker = AccessChecker(cfg)
    accesses = [checker.accesses(x, UopImage(*image)) for x in insns]
    before = happens_before(insns)
    names = ("INP", "WGT", "ACC", "UOP")
    found = set()
    for i, j in itertools.combinations(range(n), 2):
        if module_of(insns[i]) == module_of(insns[j]) or before[i, j] or before[j, i]:
            continue
        for sram, (ri, wi) in accesses[i].items():
            if sram not in accesses[j]:
                continue
            rj, wj = accesses[j][sram]
            touched = np.union1d(np.intersect1d(wi, np.union1d(rj, wj)), np.intersect1d(ri, wj))
            if touched.size:
                breaks = np.flatnonzero(np.diff(touched) != 1) + 1
                ranges = tuple((int(s[0]), int(s[-1]) + 1) for s in np.split(touched, breaks))
                found.add((names[sram], i, j, ranges))
    return found


def reported(hazards: Sequence[Hazard]) -> set[tuple[str, int, int, tuple[tuple[int, int], ...]]]:
    return {(h.sram, min(h.writer, h.other), max(h.writer, h.other), h.ranges) for h in hazards}


# ---- hazard-free streams ---------------------------------------------------------------------


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_compiled_examples_are_hazard_free(path: Path, config: str) -> None:
    runs, images, cfg = compiled_stream(path, config)
    assert find_hazards(runs, images, cfg) == []


@pytest.mark.parametrize("path", VTA_EXAMPLES, ids=lambda p: p.name)
def test_vta_level_examples_are_hazard_free(path: Path) -> None:
    binary = lowered(path)
    assert program_hazards(binary.program, binary.config) == []


@pytest.mark.parametrize("path", TVM_CASES, ids=lambda p: p.name)
def test_tvm_streams_are_hazard_free(path: Path) -> None:
    assert find_hazards(*tvm_stream(path)) == []


def test_separate_runs_never_race() -> None:
    runs, images, cfg = tvm_stream(CONFORMANCE / "tvm_matrix_multiply.npz")
    assert find_hazards(runs * 3, images * 3, cfg) == []


# ---- dropped tokens --------------------------------------------------------------------------


def _mutations(queue: str, streams: Sequence[Stream]) -> list[tuple[Stream, int, int]]:
    out = []
    for runs, images, cfg in streams:
        for push, pop in token_pairs(runs[0], queue):
            out.append(((runs, images, cfg), push, pop))
    return out


STREAMS = [
    ("tvm_matrix_multiply_opt", lambda: tvm_stream(CONFORMANCE / "tvm_matrix_multiply_opt.npz")),
    ("tvm_convolution_opt", lambda: tvm_stream(CONFORMANCE / "tvm_convolution_opt.npz")),
    (
        "matrix_multiply_opt",
        lambda: compiled_stream(ROOT / "examples" / "matrix_multiply_opt.mlir"),
    ),
    ("conv2d_c8", lambda: compiled_stream(ROOT / "examples" / "conv" / "conv2d_c8.mlir")),
]


@pytest.mark.parametrize("make", [m for _, m in STREAMS], ids=[n for n, _ in STREAMS])
def test_gemm_without_its_load_token_races_with_the_load(make: object) -> None:
    runs, images, cfg = make()  # type: ignore[operator]
    pairs = [
        (push, pop)
        for push, pop in token_pairs(runs[0], "l2g")
        if isinstance(runs[0][pop], GemmInsn) and not runs[0][pop].reset_reg
    ]
    assert pairs
    for push, pop in pairs[:: max(1, len(pairs) // 6)]:
        mutated = drop_token(runs[0], "l2g", push, pop)
        hazards = find_hazards([mutated], images[:1], cfg)
        found = names_pair(hazards, push, pop)
        assert found, (push, pop)
        h = found[0]
        assert (h.writer, h.other, h.other_writes) == (push, pop, False)
        assert h.sram in ("INP", "WGT") and h.count > 0
        assert h.writer_name.startswith("load LOAD.") and h.other_name == "compute GEMM"
        text = str(h)
        assert text.startswith(f"hazard: {h.sram} elements [")
        assert f"written by instruction {push} (load LOAD." in text
        assert f"read by instruction {pop} (compute GEMM)" in text
        assert text.endswith("with no dependency token ordering them")


@pytest.mark.parametrize("make", [
    # The largest stream is the long form of the same check as the other three.
    pytest.param(m, id=n, marks=[pytest.mark.slow] if n == "tvm_convolution_opt" else [])
    for n, m in STREAMS])
def test_load_overwriting_inputs_before_the_gemm_read_them(make: object) -> None:
    """WAR: a load that no longer waits for the compute module's token overwrites an input or
    weight buffer a GEMM before that token still reads."""
    runs, images, cfg = make()  # type: ignore[operator]
    insns = runs[0]
    pairs = [
        (push, pop)
        for push, pop in token_pairs(insns, "g2l")
        if isinstance(insns[pop], MemInsn) and insns[pop].x_size
    ]
    races = 0
    for push, pop in pairs:
        hazards = find_hazards([drop_token(insns, "g2l", push, pop)], images[:1], cfg)
        for h in hazards:
            # the load that waited, or a later one it no longer holds back
            assert h.writer >= pop and h.other < pop and not h.other_writes
            assert h.writer_name.startswith("load LOAD.") and h.other_name == "compute GEMM"
            assert h.sram == MemType(insns[h.writer].memory_type).name
        races += any(h.writer == pop for h in hazards)
    assert races


@pytest.mark.parametrize("queue", ["g2s", "s2g"])
def test_store_and_compute_race_on_the_accumulator(queue: str) -> None:
    runs, images, cfg = tvm_stream(CONFORMANCE / "tvm_matrix_multiply_opt.npz")
    insns = runs[0]
    races = 0
    for push, pop in token_pairs(insns, queue):
        # SRAM races only: dropping the last store's token also leaves it unordered against
        # FINISH (test_end_of_run_races.py).
        hazards = find_hazards([drop_token(insns, queue, push, pop)], images[:1], cfg,
                               end_of_run=False)
        for h in hazards:
            assert h.sram == "ACC" and not h.other_writes
            assert h.writer_name.startswith("compute ") and h.other_name == "store STORE.OUT"
            if queue == "g2s":  # RAW: stores read results not yet known to be written
                assert h.other >= pop > h.writer
            else:  # WAR: compute overwrites results stores may not have read yet
                assert h.writer >= pop > h.other
        races += bool(hazards)
    assert races


def test_dropped_token_in_a_later_run_names_the_run() -> None:
    runs, images, cfg = tvm_stream(CONFORMANCE / "tvm_matrix_multiply.npz")
    push, pop = next(
        (a, b)
        for a, b in token_pairs(runs[0], "l2g")
        if isinstance(runs[0][b], GemmInsn) and not runs[0][b].reset_reg
    )
    mutated = [runs[0], drop_token(runs[0], "l2g", push, pop)]
    hazards = find_hazards(mutated, images * 2, cfg)
    assert hazards and {h.run for h in hazards} == {1}
    assert str(hazards[0]).startswith("hazard: run 1: ")


@pytest.mark.parametrize("queue", list(QUEUE_FLAGS))
def test_every_racing_pair_is_reported(queue: str) -> None:
    """Against the brute-force closure, for every single dropped token of small streams."""
    streams = [
        tvm_stream(CONFORMANCE / "tvm_matrix_multiply_opt.npz"),
        compiled_stream(ROOT / "examples" / "dense_bias_relu.mlir"),
        compiled_stream(ROOT / "examples" / "alu_ops.mlir", "batch2"),
    ]
    checked = 0
    for (runs, images, cfg), push, pop in _mutations(queue, streams):
        mutated = drop_token(runs[0], queue, push, pop)
        want = brute_force(mutated, images[0], cfg)
        got = find_hazards([mutated], images[:1], cfg, end_of_run=False)
        assert reported(got) == want
        assert len(got) == len(want)  # each pair once
        checked += bool(want)
    assert checked


def test_all_tokens_dropped_reports_every_pair() -> None:
    runs, images, cfg = compiled_stream(ROOT / "examples" / "dense_kn.mlir", "block32")
    bare = [copy.copy(x) for x in runs[0]]
    for x in bare:
        x.pop_prev_dep = x.pop_next_dep = x.push_prev_dep = x.push_next_dep = 0
    got = find_hazards([bare], images, cfg, end_of_run=False)
    assert got and reported(got) == brute_force(bare, images[0], cfg)


# ---- malformed streams -----------------------------------------------------------------------


def test_deadlock_and_illegal_flags_are_one_line_errors() -> None:
    cfg = VTAConfig.shipped("default")
    waits = MemInsn(memory_type=MemType.INP, x_size=1, y_size=1, x_stride=1, pop_next_dep=1)
    with pytest.raises(DeadlockError, match="deadlocks before FINISH: instruction 0") as e:
        find_hazards([[waits, GemmInsn(pop_prev_dep=1), FinishInsn()]], None, cfg)
    assert "\n" not in str(e.value)
    with pytest.raises(SimulatorError, match="push_prev_dep is not allowed on the load"):
        find_hazards([[MemInsn(memory_type=MemType.WGT, push_prev_dep=1), FinishInsn()]], None, cfg)
    with pytest.raises(SimulatorError, match="exceeds the INP depth"):
        find_hazards(
            [
                [
                    MemInsn(
                        memory_type=MemType.INP, sram_base=cfg.inp_buff_depth, x_size=1, y_size=1
                    ),
                    FinishInsn(),
                ]
            ],
            None,
            cfg,
        )


# ---- vta-run ---------------------------------------------------------------------------------

RACY = """
func.func @add(%A: memref<1x4x1x16xi32>, %C: memref<1x4x1x16xi8>) {
  %a = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  vta.stage compute {
    vta.dma_copy %A[0] -> %a[0] y 1 x 4 stride 4
        : memref<1x4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
    SYNC_PUSH
  }
  vta.stage store {
    SYNC_POP
    vta.dma_copy %a[0] -> %C[0] y 1 x 4 stride 4
        : memref<4x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
  }
  func.return
}
"""


@pytest.mark.parametrize("synced", [True, False])
def test_vta_run_check_hazards(
    tmp_path: Path, synced: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    text = RACY.replace("SYNC_PUSH", "vta.dep_push compute -> store" if synced else "")
    text = text.replace("SYNC_POP", "vta.dep_pop compute -> store" if synced else "")
    path = tmp_path / "add.mlir"
    path.write_text(text)
    status = vta_run.main([str(path), "--random-inputs", "--check-hazards"])
    out, err = capsys.readouterr()
    assert err == ""
    if synced:
        assert status == 0 and out.splitlines()[-1] == "hazards: 0 found"
    else:
        assert status == 1
        assert out.splitlines()[-2:] == [
            "hazard: ACC elements [0, 4) written by instruction 0 (compute LOAD.ACC) and read "
            "by instruction 1 (store STORE.OUT) with no dependency token ordering them",
            "hazards: 1 found",
        ]
