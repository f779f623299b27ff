"""``vta-to-isa{insert-after=STAGE:PASS}``: a user's registered pass runs after a stage of the
named pipeline, the prepasses kept, from ``vta-opt``, ``vta-run`` and the Python API.

The real rewrite is the example plugin ``examples/plugins/custom_pass.py``
(``vta-drop-noop-alu``): inserted after ``vta-fold-uop-loops`` into the lowering of a program on
*tensors* (so ``vta-bufferize`` must still run first), it drops the epilogue's ``* 1`` — half the
ALU instructions — and ``vta-run --check`` still passes.  A recording pass shows where
insertions run: after a prepass that ran, and after one that had nothing to do."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass

from tests.test_user_pipelines import CUSTOM_PASS, TWO_SHIFTS
from vta_mlir import VTAError, compile, parse, run_pipeline
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.ir.pipeline import (
    available_passes,
    build_pipeline,
    load_pass_plugin,
    mlir_pipeline_to_xdsl,
)
from vta_mlir.ir.stages import observe_stages, quote_insert_after
from vta_mlir.passes import register_pass, scoped_registry
from vta_mlir.passes.pipeline import STAGES, VtaToIsaPass
from vta_mlir.tools import vta_opt, vta_run

#: y = int8((x @ w * 1) >> 5) on tensors: the epilogue keeps a multiplication by one (a scale
#: of one, as generic code writes it) and a shift, two ALU kernels.
SCALE_BY_ONE_TENSORS = """\
func.func @scale_by_one(%x: tensor<4x64xi8>, %w: tensor<64x48xi8>) -> tensor<4x48xi8> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x48xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<4x48xi32>) -> tensor<4x48xi32>
  %acc = linalg.matmul ins(%x, %w : tensor<4x64xi8>, tensor<64x48xi8>)
                       outs(%f : tensor<4x48xi32>) -> tensor<4x48xi32>
  %o = tensor.empty() : tensor<4x48xi8>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%acc : tensor<4x48xi32>) outs(%o : tensor<4x48xi8>) {
  ^bb0(%a: i32, %out: i8):
    %c1 = arith.constant 1 : i32
    %c5 = arith.constant 5 : i32
    %m = arith.muli %a, %c1 : i32
    %s = arith.shrsi %m, %c5 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  } -> tensor<4x48xi8>
  return %y : tensor<4x48xi8>
}
"""
DROP = "vta-to-isa{insert-after=vta-fold-uop-loops:vta-drop-noop-alu}"

#: What the recording pass saw, in order: (its tag, whether the module still had tensors).
SEEN: list[tuple[str, bool]] = []


@dataclass(frozen=True)
class RecordPass(ModulePass):
    """Records that it ran, and whether tensors were left."""

    name = "test-record"
    tag: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        tensors = any(isinstance(r.type, TensorType) for o in op.walk() for r in o.results)
        SEEN.append((self.tag, tensors))


@pytest.fixture(autouse=True)
def isolated() -> Iterator[None]:
    with scoped_registry():
        register_pass(RecordPass)
        SEEN.clear()
        yield


@pytest.fixture
def tensor_program(tmp_path: Path) -> Path:
    path = tmp_path / "scale_by_one.mlir"
    path.write_text(SCALE_BY_ONE_TENSORS)
    return path


def scale_by_one_reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """numpy: the int32 accumulation cannot overflow (64 products of at most 2^14), the
    arithmetic shift floors, the truncation to int8 wraps."""
    shifted = (x.astype(np.int64) @ w.astype(np.int64)) >> 5
    return ((shifted + 128) % 256 - 128).astype(np.int8)


def run(tool: object, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = tool.main(argv)  # type: ignore[attr-defined]
    out, err = capsys.readouterr()
    return status, out, err


# --------------------------------------------------------------------------------------------
# The option's syntax


@pytest.mark.parametrize(
    ("spec", "quoted"),
    [
        ("vta-to-isa{insert-after=vta-pack:a}", 'vta-to-isa{insert-after="vta-pack:a"}'),
        ("cse,vta-to-isa{tile=1,2 insert-after=vta-pack:a{x=1 y=2},vta-tile:b requant=none},cse",
         'cse,vta-to-isa{tile=1,2 insert-after="vta-pack:a{x=1 y=2}","vta-tile:b" requant=none}'
         ",cse"),
        ('vta-to-isa{insert-after="vta-pack:a"}', 'vta-to-isa{insert-after="vta-pack:a"}'),
        ('vta-to-isa{insert-after=vta-pack:a{s="q r"}}',
         'vta-to-isa{insert-after="vta-pack:a{s=\\"q r\\"}"}'),
        ("cse,canonicalize{max-iterations=2}", "cse,canonicalize{max-iterations=2}"),
    ],
)
def test_insert_after_values_are_quoted(spec: str, quoted: str) -> None:
    assert quote_insert_after(spec) == quoted


def test_entries_become_passes_after_their_stage() -> None:
    spelled = [
        "vta-to-isa{insert-after=vta-bufferize:test-record{tag=a},vta-pack:cse,"
        "vta-bufferize:test-record{tag=\"b c\"}}",
        'vta-to-isa{insert-after="vta-bufferize:test-record{tag=a}","vta-pack:cse",'
        '"vta-bufferize:test-record{tag=\\"b c\\"}"}',
        "builtin.module(vta-to-isa{insert-after=vta-bufferize:test-record{tag=a},vta-pack:cse,"
        "vta-bufferize:test-record{tag=\"b c\"}})",
    ]
    for text in spelled:
        (built,) = build_pipeline(mlir_pipeline_to_xdsl(text), available_passes()).passes
        assert isinstance(built, VtaToIsaPass)
        inserted = built.insertions()
        assert sorted(inserted) == ["vta-bufferize", "vta-pack"]
        assert inserted["vta-bufferize"] == [RecordPass("a"), RecordPass("b c")]
        assert [p.name for p in inserted["vta-pack"]] == ["cse"]


@pytest.mark.parametrize(
    ("option", "named"),
    [
        ("vta-fold:cse", "unknown stage 'vta-fold'"),
        ("vta-pack:no-such-pass", "unknown pass 'no-such-pass'"),
        ("cse", "insert-after entry 'cse' is not STAGE:PASS"),
        ("vta-pack:", "insert-after entry 'vta-pack:' is not STAGE:PASS"),
    ],
)
def test_an_unknown_stage_or_pass_is_one_line(
    option: str, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stages = ", ".join(STAGES)
    with pytest.raises(VTAError) as error:
        run_pipeline(parse(SCALE_BY_ONE_TENSORS), f"vta-to-isa{{insert-after={option}}}")
    assert named in str(error.value) and stages in str(error.value)
    path = tmp_path / "in.mlir"
    path.write_text(SCALE_BY_ONE_TENSORS)
    for tool in (vta_opt, vta_run):
        status, _, err = run(tool, [str(path), "-p", f"vta-to-isa{{insert-after={option}}}"],
                             capsys)
        assert status == 1 and len(err.splitlines()) == 1
        assert err.startswith(f"{tool.PROG}: error: vta-to-isa: ") and named in err
        assert err.rstrip().endswith(f"the stages of vta-to-isa are {stages}")


# --------------------------------------------------------------------------------------------
# A real rewrite inside the lowering of a tensor program


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_vta_run_with_an_inserted_plugin_pass(
    config: str, tensor_program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = [str(tensor_program), "--config", config, "--random-inputs", "--seed", "2",
              "--check", "--stats", "-"]
    status, out, err = run(vta_run, common, capsys)
    assert (status, err.splitlines()[-1]) == (0, "check: PASS"), err
    default_alu = json.loads(out)["by_opcode"]["ALU"]
    for flag, pipeline in (("-p", DROP), ("--pass-pipeline", f"builtin.module({DROP})")):
        status, out, err = run(
            vta_run, [*common, "--load-pass-plugin", str(CUSTOM_PASS), flag, pipeline], capsys)
        assert (status, err.splitlines()[-1]) == (0, "check: PASS"), err
        # Half the ALU instructions of the program multiply by one.
        assert default_alu > 0 and json.loads(out)["by_opcode"]["ALU"] * 2 == default_alu


def test_compile_with_an_inserted_plugin_pass() -> None:
    load_pass_plugin(str(CUSTOM_PASS))
    rng = np.random.default_rng(8)
    x = rng.integers(-128, 128, size=(4, 64), dtype=np.int8)
    w = rng.integers(-128, 128, size=(64, 48), dtype=np.int8)
    default = compile(SCALE_BY_ONE_TENSORS, config="block32")
    merged = compile(SCALE_BY_ONE_TENSORS, config="block32", pipeline=DROP)
    by_instance = compile(SCALE_BY_ONE_TENSORS, config="block32", pipeline=VtaToIsaPass(
        insert_after=("vta-fold-uop-loops:vta-drop-noop-alu",)))
    want = scale_by_one_reference(x, w)
    for module in (default, merged, by_instance):
        assert np.array_equal(module(x, w)[0], want)
    alu = [m.last_run.by_opcode["ALU"] for m in (default, merged, by_instance)]  # type: ignore[union-attr]
    assert alu[0] == 2 * alu[1] == 2 * alu[2] > 0


def test_vta_opt_with_an_inserted_plugin_pass(
    tensor_program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(vta_opt, [str(tensor_program), "--load-pass-plugin", str(CUSTOM_PASS),
                                     "-p", "vta-to-isa{insert-after=vta-fold-uop-loops:"
                                     "vta-drop-noop-alu,vta-fold-uop-loops:test-record}"], capsys)
    assert status == 0, err
    assert "vtaisa.program" in out and SEEN == [("", False)]


# --------------------------------------------------------------------------------------------
# After the prepasses


def test_inserted_after_prepasses(
    tensor_program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After vta-bufferize (which runs: the input has tensors) the pass sees memrefs only;
    after vta-raise-loops (which does not: no loops) it runs all the same, at that point."""
    pipeline = ("vta-to-isa{insert-after=vta-raise-loops:test-record{tag=raise},"
                "vta-bufferize:test-record{tag=bufferize},vta-lower-to-isa:test-record{tag=end}}")
    status, out, err = run(vta_run, [str(tensor_program), "--random-inputs", "--check", "-p",
                                     pipeline], capsys)
    assert (status, out.splitlines()[-1]) == (0, "check: PASS"), err
    assert SEEN == [("bufferize", False), ("raise", False), ("end", False)]

    # On memrefs vta-bufferize has nothing to do: a pass inserted after it runs first.
    SEEN.clear()
    run_pipeline(parse(TWO_SHIFTS), "vta-to-isa{insert-after=vta-normalize:test-record{tag=b},"
                                    "vta-bufferize:test-record{tag=a}}")
    assert SEEN == [("a", False), ("b", False)]


def test_observed_stages() -> None:
    """observe_stages sees each stage that runs and each inserted pass, before and after."""
    events: list[str] = []

    def watch(previous: ModulePass | None, _module: ModuleOp, following: ModulePass | None) -> None:
        events.append(f"after {previous.name}" if previous else f"before {following.name}")  # type: ignore[union-attr]

    with observe_stages(watch):
        run_pipeline(parse(SCALE_BY_ONE_TENSORS), "vta-to-isa{insert-after=vta-raise-loops:cse}")
    run_pipeline(parse(SCALE_BY_ONE_TENSORS), "vta-to-isa")  # outside the block: not reported
    ran = ["vta-bufferize", "cse", *STAGES[STAGES.index("vta-normalize"):]]
    assert events == [f"{when} {name}" for name in ran for when in ("before", "after")]
