"""Instructions that index past an SRAM or the micro-op table
(:func:`vta_mlir.binary_checks.sram_index_problems`): ``vta-run`` refuses such a ``.vtab`` with
one error line, ``vta-translate --emit=asm`` still prints it with one ``warning:`` line per such
instruction.  Binaries are crafted from a compiled program by pushing one instruction past one
SRAM (INP, WGT, ACC, OUT, UOP), past the micro-op table (``uop_bgn``/``uop_end``), or letting
its micro-op fields plus loop offsets reach past the ACC, INP or WGT SRAM; the simulator, run
without the check, must fail on the same index."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from vta_mlir.binary import BinaryModule
from vta_mlir.binary_checks import sram_index_problems
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.errors import SimulatorError
from vta_mlir.isa import AluInsn, GemmInsn, Insn, MemInsn, MemType, decode_uop_fields
from vta_mlir.program import Program, Run
from vta_mlir.tools import vta_run, vta_translate

from .compiled_programs import lowered

ROOT = Path(__file__).resolve().parent.parent
#: Has a LOAD of every kind, a STORE, a GEMM and ALU instructions, in one run.
EXAMPLE = ROOT / "examples" / "dense_bias_relu.mlir"


@dataclass(frozen=True)
class Mutation:
    """Change one instruction (found by ``pick``) with ``apply``; the problem it must cause
    matches ``expected`` (a regex, ``{depth}`` filled in)."""

    pick: Callable[[Insn], bool]
    apply: Callable[[Insn, VTAConfig, np.ndarray], None]
    expected: str


def _load(kind: MemType) -> Callable[[Insn], bool]:
    return lambda x: (
        isinstance(x, MemInsn) and not x.is_store and x.memory_type == kind and x.x_size > 0
    )


def _store(x: Insn) -> bool:
    return isinstance(x, MemInsn) and x.is_store and x.x_size > 0


def _gemm(x: Insn) -> bool:
    return isinstance(x, GemmInsn) and not x.reset_reg and x.uop_end > x.uop_bgn


def _alu(x: Insn) -> bool:
    return isinstance(x, AluInsn) and x.uop_end > x.uop_bgn


def _past(depth: Callable[[VTAConfig], int]) -> Callable[[Insn, VTAConfig, np.ndarray], None]:
    """Move a LOAD / STORE so that its block ends one element past the SRAM."""

    def apply(x: Insn, cfg: VTAConfig, _: np.ndarray) -> None:
        assert isinstance(x, MemInsn)
        total = (x.x_pad_0 + x.x_size + x.x_pad_1) * (x.y_pad_0 + x.y_size + x.y_pad_1)
        x.sram_base = depth(cfg) - total + 1

    return apply


def _uop_range(x: Insn, cfg: VTAConfig, _: np.ndarray) -> None:
    assert isinstance(x, GemmInsn | AluInsn)
    x.uop_bgn, x.uop_end = cfg.uop_buff_depth - 1, cfg.uop_buff_depth + 1


def _loop(
    kind: str, level: str, depth: Callable[[VTAConfig], int]
) -> Callable[[Insn, VTAConfig, np.ndarray], None]:
    """Give the loop ``level`` of ``kind`` indices a factor of half the SRAM and three
    iterations: the last one reaches past it."""

    def apply(x: Insn, cfg: VTAConfig, _: np.ndarray) -> None:
        setattr(x, f"iter_{level}", 3)
        setattr(x, f"{kind}_factor_{level}", depth(cfg) // 2)

    return apply


MUTATIONS = {
    "inp": Mutation(
        _load(MemType.INP),
        _past(lambda c: c.inp_buff_depth),
        r"SRAM range \[\d+, {end}\) exceeds the INP depth {depth}",
    ),
    "wgt": Mutation(
        _load(MemType.WGT),
        _past(lambda c: c.wgt_buff_depth),
        r"SRAM range \[\d+, {end}\) exceeds the WGT depth {depth}",
    ),
    "acc": Mutation(
        _load(MemType.ACC),
        _past(lambda c: c.acc_buff_depth),
        r"SRAM range \[\d+, {end}\) exceeds the ACC depth {depth}",
    ),
    "out": Mutation(
        _store,
        _past(lambda c: c.out_buff_depth),
        r"SRAM range \[\d+, {end}\) exceeds the OUT depth {depth}",
    ),
    "uop": Mutation(
        _load(MemType.UOP),
        _past(lambda c: c.uop_buff_depth),
        r"SRAM range \[\d+, {end}\) exceeds the UOP depth {depth}",
    ),
    "uop_bgn/uop_end": Mutation(
        _gemm, _uop_range, r"micro-op range \[{bgn}, {end}\) exceeds the UOP depth {depth}"
    ),
    "gemm dst": Mutation(
        _gemm,
        _loop("dst", "out", lambda c: c.acc_buff_depth),
        r"accumulator index {top} out of range \(ACC depth {depth}\)",
    ),
    "gemm src": Mutation(
        _gemm,
        _loop("src", "in", lambda c: c.inp_buff_depth),
        r"input index {top} out of range \(INP depth {depth}\)",
    ),
    "gemm wgt": Mutation(
        _gemm,
        _loop("wgt", "out", lambda c: c.wgt_buff_depth),
        r"weight index {top} out of range \(WGT depth {depth}\)",
    ),
    "alu dst": Mutation(
        _alu,
        _loop("dst", "in", lambda c: c.acc_buff_depth),
        r"destination accumulator index {top} out of range \(ACC depth {depth}\)",
    ),
    "alu src": Mutation(
        _alu,
        _loop("src", "out", lambda c: c.acc_buff_depth),
        r"source accumulator index {top} out of range \(ACC depth {depth}\)",
    ),
}

DEPTHS = {
    "inp": "inp",
    "wgt": "wgt",
    "acc": "acc",
    "out": "out",
    "uop": "uop",
    "uop_bgn/uop_end": "uop",
    "gemm dst": "acc",
    "gemm src": "inp",
    "gemm wgt": "wgt",
    "alu dst": "acc",
    "alu src": "acc",
}


def uop_table(program: Program, run: int, cfg: VTAConfig) -> np.ndarray:
    """The micro-op SRAM when run ``run`` executes its GEMM / ALU instructions: the compiled
    programs load each kernel's words from the staging image to the same place every time."""
    table = np.zeros(cfg.uop_buff_depth, dtype=np.uint32)
    for r in range(run + 1):
        current = program.runs[r]
        for x in current.insns:
            if (
                isinstance(x, MemInsn)
                and not x.is_store
                and x.memory_type == MemType.UOP
                and x.x_size
            ):
                assert x.y_size == 1 and not (x.x_pad_0 or x.x_pad_1 or x.y_pad_0 or x.y_pad_1)
                first = (x.dram_base * cfg.uop_elem_bytes - current.uop_base) // 4
                table[x.sram_base : x.sram_base + x.x_size] = current.uop_words[
                    first : first + x.x_size
                ]
    return table


def crafted(config: str, name: str) -> tuple[BinaryModule, int, str]:
    """The example for ``config`` with mutation ``name`` applied to the first instruction it
    picks: the module, that instruction's index and the expected message pattern."""
    cfg = VTAConfig.shipped(config)
    binary = lowered(EXAMPLE.read_text(), config)
    assert sram_index_problems(binary.program, cfg) == []
    mutation = MUTATIONS[name]
    run = binary.program.runs[0]
    index = next(i for i, x in enumerate(run.insns) if mutation.pick(x))
    insns = [copy.copy(x) for x in run.insns]
    table = uop_table(binary.program, 0, cfg)
    mutation.apply(insns[index], cfg, table)
    x = insns[index]
    depth = cfg.sram_depth(DEPTHS[name])
    fill: dict[str, object] = {"depth": depth}
    if isinstance(x, MemInsn):
        fill["end"] = depth + 1
    elif name == "uop_bgn/uop_end":
        fill.update(bgn=x.uop_bgn, end=x.uop_end)
    else:
        # The furthest index, from the micro-ops' fields and the loops (independently of the
        # checker: the fields decoded here, the loops' last iterations added).
        assert isinstance(x, GemmInsn | AluInsn)
        kind = name.split()[1]
        fields = dict(
            zip(
                ("dst", "src", "wgt"),
                decode_uop_fields(table[x.uop_bgn : x.uop_end], cfg),
                strict=True,
            )
        )
        top = int(fields[kind].max())
        top += (x.iter_out - 1) * getattr(x, f"{kind}_factor_out")
        top += (x.iter_in - 1) * getattr(x, f"{kind}_factor_in")
        assert top >= depth
        fill["top"] = top
    program = Program(
        [Run(insns, run.uop_words, run.uop_base), *binary.program.runs[1:]],
        list(binary.program.segments),
    )
    module = BinaryModule(binary.config, program, binary.args, binary.base)
    return module, index, mutation.expected.format(**fill)


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("name", list(MUTATIONS))
def test_checker_finds_it(config: str, name: str) -> None:
    module, index, expected = crafted(config, name)
    problems = sram_index_problems(module.program, module.config)
    assert [(p.run, p.insn) for p in problems] == [(0, index)]
    assert re.fullmatch(
        rf"run 0 instruction {index} \([A-Z.]+\): {expected}( at .*)?", str(problems[0])
    ), str(problems[0])


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("name", list(MUTATIONS))
def test_simulator_fails_on_the_same_instruction(config: str, name: str) -> None:
    """The check agrees with the simulator, which finds the index when it executes it."""
    module, index, expected = crafted(config, name)
    with pytest.raises(SimulatorError) as caught:
        vta_run.run_program(module, module.config, vta_run.random_inputs(module.inputs, 0))
    message = str(caught.value)
    assert message.startswith(f"instruction {index} ("), message
    if name != "out":  # the simulator names the accumulators a STORE reads ACC
        assert re.search(expected, message), message


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("name", list(MUTATIONS))
def test_vta_run_refuses_and_vta_translate_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, name: str
) -> None:
    module, index, expected = crafted(config, name)
    path = tmp_path / "bad.vtab"
    module.save(path)

    status = vta_run.main([str(path), "--random-inputs"])
    out, err = capsys.readouterr()
    assert status == 1 and out == ""
    assert len(err.splitlines()) == 1, err
    assert re.fullmatch(
        rf"vta-run: error: run 0 instruction {index} \([A-Z.]+\): {expected}"
        r"( at .*)?\n",
        err,
    ), err

    status = vta_translate.main([str(path), "--emit=asm"])
    out, err = capsys.readouterr()
    assert status == 0
    assert len(err.splitlines()) == 1, err
    assert re.fullmatch(
        rf"vta-translate: warning: run 0 instruction {index} \([A-Z.]+\): "
        rf"{expected}( at .*)?\n",
        err,
    ), err
    # The listing is printed all the same, the instruction included.
    listing = [line for line in out.splitlines() if not line.startswith("#")]
    assert len(listing) == len(module.program.runs[0].insns)
    assert listing[index].split()[0] == f"{index}:"


def test_every_problem_is_warned_about(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Several bad instructions: one warning each, and vta-run names the first and counts the
    rest."""
    cfg = VTAConfig.shipped("default")
    binary = lowered(EXAMPLE.read_text(), "default")
    run = binary.program.runs[0]
    insns = [copy.copy(x) for x in run.insns]
    bad = [i for i, x in enumerate(insns) if _load(MemType.INP)(x) or _load(MemType.WGT)(x)]
    assert len(bad) >= 2
    for i in bad:
        insns[i].sram_base = cfg.sram_depth("inp" if insns[i].memory_type == MemType.INP else "wgt")
    program = Program([Run(insns, run.uop_words, run.uop_base)], list(binary.program.segments))
    path = tmp_path / "bad.vtab"
    BinaryModule(cfg, program, binary.args, binary.base).save(path)
    assert vta_translate.main([str(path), "--emit=asm"]) == 0
    _, err = capsys.readouterr()
    warned = [
        int(m) for m in re.findall(r"^vta-translate: warning: run 0 instruction (\d+) ", err, re.M)
    ]
    assert warned == bad and len(err.splitlines()) == len(bad)
    assert vta_run.main([str(path), "--random-inputs"]) == 1
    _, err = capsys.readouterr()
    assert err.startswith(f"vta-run: error: run 0 instruction {bad[0]} ")
    assert err.endswith(f" (and {len(bad) - 1} more such instructions)\n")


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_compiled_programs_have_no_problems(config: str) -> None:
    cfg = VTAConfig.shipped(config)
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        binary = lowered(path.read_text(), config)
        assert sram_index_problems(binary.program, cfg) == [], path
    padded = (ROOT / "examples" / "conv" / "conv2d_padded.mlir").read_text()
    conv = lowered(padded, config, "conv3x3_pad1")
    assert sram_index_problems(conv.program, cfg) == []
