"""A user's pass pipeline instead of ``vta-to-isa``: ``vta-run -p`` / ``--pass-pipeline`` with
``--load-pass-plugin``, and ``lower`` / ``compile(..., pipeline=...)``.

The plugin of ``docs/python-api.md`` (``vta-merge-shifts``, taken from the page as it is) runs
between ``vta-fold-uop-loops`` and ``vta-coproc-sync`` of a pipeline that restates the stages
without ``vta-merge-alu-immediates``, on a matmul whose epilogue shifts right twice: it must
merge the two ALU kernels (half the ALU instructions, as many as ``vta-to-isa`` leaves) and keep
the results bit for bit those of numpy, on every shipped configuration."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from vta_mlir import VTAError, compile, lower, parse, print_ir, run_pipeline
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.dialects.vta import AluKernel, AluKind
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.ir.pipeline import load_pass_plugin
from vta_mlir.passes import scoped_registry
from vta_mlir.passes.pipeline import VtaToIsaPass
from vta_mlir.tools import vta_run

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "python-api.md"
VECTOR_ADD = ROOT / "examples" / "vta" / "vector_add.mlir"
CUSTOM_PASS = ROOT / "examples" / "plugins" / "custom_pass.py"

#: y = int8((x @ w >> 3) >> 5): vta-pack keeps the two shifts as two ALU steps.
TWO_SHIFTS = """\
func.func @two_shifts(%x: memref<4x64xi8>, %w: memref<64x48xi8>, %y: memref<4x48xi8>) {
  %acc = memref.alloc() : memref<4x48xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x48xi32>)
  linalg.matmul ins(%x, %w : memref<4x64xi8>, memref<64x48xi8>) outs(%acc : memref<4x48xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x48xi32>) outs(%y : memref<4x48xi8>) {
  ^bb0(%a: i32, %out: i8):
    %c3 = arith.constant 3 : i32
    %c5 = arith.constant 5 : i32
    %s1 = arith.shrsi %a, %c3 : i32
    %s2 = arith.shrsi %s1, %c5 : i32
    %t = arith.trunci %s2 : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<4x48xi32>
  return
}
"""

STAGES = "vta-pack,vta-tile,vta-inject-dma,vta-tensorize,vta-fold-uop-loops"
#: The same stages of vta-to-isa, none left out.
ALL_STAGES = ("vta-pack,vta-merge-alu-immediates,vta-tile,vta-bias-gemm,vta-inject-dma,"
              "vta-tensorize,vta-fold-uop-loops")
#: vta-to-isa's stages with the documented pass between vta-fold-uop-loops and vta-coproc-sync.
MERGING = f"builtin.module({STAGES},vta-merge-shifts,vta-coproc-sync,vta-lower-to-isa)"
#: The same without it.
UNMERGED = f"builtin.module({STAGES},vta-coproc-sync,vta-lower-to-isa)"


def two_shifts_reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """numpy: the int32 accumulation cannot overflow (64 products of at most 2^14), the
    arithmetic shifts floor, the truncation to int8 wraps."""
    acc = x.astype(np.int64) @ w.astype(np.int64)
    shifted = (acc >> 3) >> 5
    return ((shifted + 128) % 256 - 128).astype(np.int8)


def random_operands(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (
        rng.integers(-128, 128, size=(4, 64), dtype=np.int8),
        rng.integers(-128, 128, size=(64, 48), dtype=np.int8),
    )


def doc_plugin_source() -> str:
    """The code block of docs/python-api.md that defines the merge-shifts plugin."""
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(), re.M | re.S)
    found = [b for b in blocks if "class MergeShiftsPass" in b]
    assert len(found) == 1
    return found[0]


@pytest.fixture(autouse=True)
def isolated() -> Iterator[None]:
    with scoped_registry():
        yield


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "two_shifts.mlir"
    path.write_text(TWO_SHIFTS)
    return path


@pytest.fixture
def doc_plugin(tmp_path: Path) -> Path:
    path = tmp_path / "merge_shifts.py"
    path.write_text(doc_plugin_source())
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = vta_run.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def shift_kernels(module_text: str, config: str) -> list[tuple[AluKind, int | None]]:
    module = parse(module_text, config=config)
    kernels = [AluKernel.of(op) for op in module.walk()]
    return [(k.kind, k.imm) for k in kernels if k is not None]


# --------------------------------------------------------------------------------------------
# The documented plugin, inside the lowering


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_the_pipeline_leaves_two_shift_kernels(config: str) -> None:
    """What the documented pass is for: after vta-fold-uop-loops, `>> 3` and `>> 5` are two
    consecutive kernels of one ALU micro-op each."""
    module = run_pipeline(parse(TWO_SHIFTS, config=config), STAGES)
    assert shift_kernels(print_ir(module), config) == [(AluKind.SHR, 3), (AluKind.SHR, 5)]


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_the_doc_plugin_merges_the_shifts(
    config: str, program: Path, doc_plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_pass_plugin(str(doc_plugin))
    merged = run_pipeline(parse(TWO_SHIFTS, config=config), f"{STAGES},vta-merge-shifts")
    assert shift_kernels(print_ir(merged), config) == [(AluKind.SHR, 8)]

    common = [str(program), "--config", config, "--random-inputs", "--seed", "4", "--check"]
    # The stages without any merge, then with the documented pass, then vta-to-isa itself
    # (whose vta-merge-alu-immediates merges the shifts of the normal form).
    status, out, err = run([*common, "--stats", "-", "--pass-pipeline", UNMERGED], capsys)
    assert (status, err.splitlines()[-1]) == (0, "check: PASS")
    unmerged_alu = json.loads(out)["by_opcode"]["ALU"]
    status, out, err = run([*common, "--stats", "-"], capsys)
    assert (status, err.splitlines()[-1]) == (0, "check: PASS")
    default_alu = json.loads(out)["by_opcode"]["ALU"]
    status, out, err = run(
        [
            *common,
            "--stats",
            "-",
            "--load-pass-plugin",
            str(doc_plugin),
            "--pass-pipeline",
            MERGING,
        ],
        capsys,
    )
    assert (status, err.splitlines()[-1]) == (0, "check: PASS"), err
    merged_alu = json.loads(out)["by_opcode"]["ALU"]
    # Every ALU instruction of the program is a shift: the merge halves them.
    assert unmerged_alu > 0 and merged_alu * 2 == unmerged_alu == default_alu * 2

    # From Python, with pass instances, against numpy written here.
    # vta-to-isa's stages with the documented pass in place of the built-in merge of the
    # normal form, after vta-fold-uop-loops.
    stages = [p for p in VtaToIsaPass().passes() if p.name != "vta-merge-alu-immediates"]
    fold = [p.name for p in stages].index("vta-fold-uop-loops") + 1
    pipeline = [*stages[:fold], module.MergeShiftsPass(), *stages[fold:]]
    compiled = compile(program, config=config, pipeline=pipeline)
    x, w = random_operands(7)
    (y,) = compiled(x, w)
    assert np.array_equal(y, two_shifts_reference(x, w))
    assert compiled.last_run.by_opcode["ALU"] == merged_alu  # type: ignore[union-attr]


def test_the_doc_plugin_leaves_other_kernels(doc_plugin: Path) -> None:
    load_pass_plugin(str(doc_plugin))
    for text, kept in (
        (TWO_SHIFTS.replace("%c5 = arith.constant 5", "%c5 = arith.constant 29"), [3, 29]),
        (TWO_SHIFTS.replace("arith.shrsi %s1", "arith.muli %s1"), [3]),
    ):
        module = run_pipeline(parse(text), f"{STAGES},vta-merge-shifts")
        shifts = [
            imm for kind, imm in shift_kernels(print_ir(module), "default") if kind == AluKind.SHR
        ]
        assert shifts == kept  # 3 + 29 > 31; a multiplication in between


# --------------------------------------------------------------------------------------------
# vta-run -p / --pass-pipeline


def test_vta_run_stages_up_to_coproc_sync(program: Path, capsys: pytest.CaptureFixture) -> None:
    """A pipeline leaving vta IR: the host lowering takes it on, as for vta-level input."""
    for flags in (
        ["-p", f"{STAGES},vta-coproc-sync"],
        [f"--pass-pipeline=builtin.module({STAGES}, vta-coproc-sync)"],
    ):
        status, out, err = run([str(program), "--random-inputs", "--check", *flags], capsys)
        assert (status, err) == (0, "") and out.endswith("check: PASS\n")


def test_vta_run_plugin_on_vta_level_input(tmp_path: Path, capsys) -> None:
    """The example plugin on a vta-level program: half its ALU kernels are no-ops."""
    demo = tmp_path / "demo.mlir"
    demo.write_text(load_pass_plugin(str(CUSTOM_PASS)).DEMO)
    rng = np.random.default_rng(2)
    inputs = []
    for name in ("x", "b"):
        path = tmp_path / f"{name}.npy"
        np.save(path, rng.integers(-50_000, 50_000, size=(1, 16, 1, 16), dtype=np.int32))
        inputs += ["--input", str(path)]
    runs = []
    for flags in ([], ["--load-pass-plugin", str(CUSTOM_PASS), "-p", "vta-drop-noop-alu"]):
        out_path = tmp_path / f"y{len(runs)}.npy"
        status, out, err = run(
            [str(demo), *inputs, "--output", str(out_path), "--stats", "-", *flags], capsys
        )
        assert (status, err) == (0, "")
        runs.append((json.loads(out)["by_opcode"]["ALU"], np.load(out_path)))
    (alu_before, y_before), (alu_after, y_after) = runs
    assert (alu_before, alu_after) == (4, 2)
    assert np.array_equal(y_before, y_after)


PIPELINE_ERRORS = [
    (["-p", "vta-pack,no-such-pass"], "unknown pass 'no-such-pass'"),
    (
        ["-p", "vta-to-isa", "--pass-pipeline", "builtin.module(vta-to-isa)"],
        "use either -p/--passes or --pass-pipeline, not both",
    ),
    (
        ["-p", "vta-pack,vta-tile"],
        "the pass pipeline of -p left input-level IR: it must lower the program to vta or vtaisa",
    ),
    (
        ["--pass-pipeline", "builtin.module(vta-pack)"],
        "the pass pipeline of --pass-pipeline left input-level IR",
    ),
    (["-p", "vta-pack{nope=1}"], "invalid options for pass 'vta-pack'"),
    (
        ["--load-pass-plugin", "no_such_plugin_module", "-p", "vta-to-isa"],
        "cannot load pass plugin 'no_such_plugin_module'",
    ),
]


@pytest.mark.parametrize(("flags", "message"), PIPELINE_ERRORS)
def test_vta_run_pipeline_errors_are_one_line(
    flags: list[str], message: str, program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run([str(program), "--random-inputs", "--check", *flags], capsys)
    assert status == 1 and out == ""
    assert err.startswith("vta-run: error: ") and err.count("\n") == 1, err
    assert message in err


def test_vta_run_unsynchronised_pipeline_is_an_error(program: Path, capsys) -> None:
    """Without vta-coproc-sync the modules would race: an error at the first command, not a
    program computing garbage."""
    status, out, err = run([str(program), "--random-inputs", "-p", STAGES], capsys)
    assert status == 1 and out == ""
    first = err.splitlines()[0]
    assert re.match(
        rf"{re.escape(str(program))}:\d+:\d+: error: 'vta.dma_copy' op is in no "
        r"vta.stage after the pass pipeline of -p: vta-coproc-sync must",
        first,
    )
    assert "Traceback" not in err


def test_vta_run_pipeline_on_a_vtab(program: Path, tmp_path: Path, capsys) -> None:
    vtab = tmp_path / "p.vtab"
    vtab.write_bytes(lower(program).to_bytes())
    status, _, err = run([str(vtab), "--random-inputs", "-p", "vta-to-isa"], capsys)
    assert status == 1
    assert err == "vta-run: error: -p applies to MLIR input, not to a .vtab binary module\n"


# --------------------------------------------------------------------------------------------
# lower / compile (pipeline=...)


def test_lower_pipeline_text_and_instances(program: Path) -> None:
    default = lower(program).to_bytes()
    assert lower(program, pipeline="vta-to-isa").to_bytes() == default
    assert (
        lower(program, pipeline=f"builtin.module({ALL_STAGES}, vta-coproc-sync)").to_bytes()
        == default
    )
    assert lower(program, pipeline=VtaToIsaPass().passes()).to_bytes() == default
    assert lower(program, pipeline=VtaToIsaPass()).to_bytes() == default


def test_lower_pipeline_leaves_the_module_alone(program: Path) -> None:
    module = parse(program.read_text())
    before = print_ir(module)
    lower(module, pipeline="vta-to-isa")
    assert print_ir(module) == before
    # A vta-level module too: the pipeline runs on a copy.
    host = parse(VECTOR_ADD.read_text())
    before = print_ir(host)
    assert lower(host, pipeline="canonicalize").to_bytes() == lower(host).to_bytes()
    assert print_ir(host) == before


def test_lower_pipeline_errors(program: Path) -> None:
    with pytest.raises(VTAError, match="the pass pipeline of pipeline= left input-level IR"):
        lower(program, pipeline="vta-pack")
    with pytest.raises(DiagnosticError, match="in no vta.stage after the pass pipeline"):
        compile(program, pipeline=STAGES)
    with pytest.raises(VTAError, match="pipeline= applies to MLIR input, not to a .vtab"):
        lower(lower(program), pipeline="vta-to-isa")
    with pytest.raises(VTAError, match="pipeline= applies to MLIR input"):
        lower(lower(program).to_bytes(), pipeline="vta-to-isa")
    with pytest.raises(VTAError, match="unknown pass 'nope'"):
        lower(program, pipeline="nope")
    with pytest.raises(TypeError, match="holds ModulePass instances, not the class"):
        lower(program, pipeline=[VtaToIsaPass])  # type: ignore[list-item]
