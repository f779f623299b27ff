"""Pass plugins: ``vta-opt --load-pass-plugin FILE.py|module``, ``VTA_MLIR_PASS_PLUGINS``,
:func:`vta_mlir.ir.pipeline.load_pass_plugin`, the example plugin
``examples/plugins/custom_pass.py`` (``vta-drop-noop-alu``) checked on the simulator against
numpy, the plugin API of ``docs/python-api.md`` and ``vta_mlir.passes.scoped_registry``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

import vta_mlir.passes
from vta_mlir import VTAError, compile, lower, parse, print_ir, run_pipeline
from vta_mlir.ir import pipeline
from vta_mlir.ir.diagnostics import Severity, collect_diagnostics
from vta_mlir.ir.pipeline import PASS_PLUGINS_ENV, available_passes, load_pass_plugin
from vta_mlir.passes import scoped_registry
from vta_mlir.tools import vta_opt, vta_run, vta_translate

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "plugins" / "custom_pass.py"
PLUGIN_TEST = ROOT / "tests" / "filecheck" / "tools" / "vta-opt" / "pass-plugin.mlir"
VECTOR_ADD = ROOT / "examples" / "vta" / "vector_add.mlir"
BIN = Path(sys.executable).parent

#: A plugin registering one pass, which tags every function with a unit attribute.
TAGGER = """\
from dataclasses import dataclass

from xdsl.dialects.builtin import UnitAttr
from xdsl.passes import ModulePass

from vta_mlir.passes import register_pass

LOADS = globals().get("LOADS", 0) + 1


@register_pass
@dataclass(frozen=True)
class Tag(ModulePass):
    name = "test-tag-funcs"
    attr: str = "tagged"

    def apply(self, ctx, op):
        for inner in op.walk():
            if inner.name == "func.func":
                inner.attributes[self.attr] = UnitAttr()
"""

FUNC = "func.func @f() {\n  func.return\n}\n"


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The passes a test registers (its plugins') are forgotten after it."""
    monkeypatch.delenv(PASS_PLUGINS_ENV, raising=False)
    before = set(sys.modules)
    with scoped_registry():
        yield
    for name in set(sys.modules) - before:
        if name.startswith("plugin_pkg"):
            del sys.modules[name]


@pytest.fixture
def tagger(tmp_path: Path) -> Path:
    path = tmp_path / "tagger.py"
    path.write_text(TAGGER)
    return path


@pytest.fixture
def example() -> ModuleType:
    return load_pass_plugin(str(EXAMPLE))


def run_opt(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = vta_opt.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


# --------------------------------------------------------------------------------------------
# load_pass_plugin


def test_a_file_plugin_registers_its_pass(tagger: Path) -> None:
    assert "test-tag-funcs" not in available_passes()
    module = load_pass_plugin(str(tagger))
    assert "test-tag-funcs" in available_passes()
    assert "test-tag-funcs" in vta_mlir.passes.get_all_passes()
    # Loaded once per process: a second load returns the same module without running it again.
    assert load_pass_plugin(str(tagger)) is module and module.LOADS == 1
    tagged = run_pipeline(parse(FUNC), "builtin.module(test-tag-funcs{attr=seen})")
    assert "attributes {seen}" in print_ir(tagged)


def test_a_module_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "plugin_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "passes.py").write_text(TAGGER)
    monkeypatch.syspath_prepend(str(tmp_path))
    load_pass_plugin("plugin_pkg.passes")
    assert "test-tag-funcs" in available_passes()


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (None, "No such file or directory"),
        ("x = 1 / 0\n", "ZeroDivisionError: division by zero"),
        ("def f(:\n", "SyntaxError: invalid syntax"),
        ("import sys\nsys.exit(3)\n", "it exited while being imported (status 3)"),
        ("import no_such_module_for_a_plugin\n", "No module named 'no_such_module_for_a_plugin'"),
        ("x = 1\n", "registers no pass"),
        (
            TAGGER.replace('"test-tag-funcs"', '"vta-lower-to-isa"'),
            "ValueError: pass name 'vta-lower-to-isa' is taken by a built-in pass",
        ),
    ],
)
def test_plugin_errors_are_one_line(tmp_path: Path, source: str | None, message: str) -> None:
    path = tmp_path / "plugin.py"
    if source is not None:
        path.write_text(source)
    with pytest.raises(VTAError) as info:
        load_pass_plugin(str(path))
    text = str(info.value)
    assert message in text and "\n" not in text
    assert text.startswith(("cannot load pass plugin", "pass plugin"))
    # A failed plugin leaves no half-imported module behind.
    assert not [m for m in sys.modules if m.startswith("vta_mlir_plugin_plugin_")]


def test_a_failing_plugin_keeps_its_cause(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("raise RuntimeError('broken on purpose')\n")
    with pytest.raises(VTAError) as info:
        load_pass_plugin(str(path))
    assert isinstance(info.value.__cause__, RuntimeError)


def test_missing_module_and_empty_name() -> None:
    with pytest.raises(VTAError, match="cannot load pass plugin 'no_such_plugin_module'"):
        load_pass_plugin("no_such_plugin_module")
    with pytest.raises(VTAError, match="empty pass plugin name"):
        load_pass_plugin("  ")


def test_environment_variable(tagger: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.py"
    other.write_text(TAGGER.replace("test-tag-funcs", "test-other"))
    env = {PASS_PLUGINS_ENV: f"{tagger}{os.pathsep}{other}"}
    assert len(pipeline.load_pass_plugins_from_env(env)) == 2
    assert {"test-tag-funcs", "test-other"} <= set(available_passes())
    assert pipeline.load_pass_plugins_from_env({}) == []
    with pytest.raises(VTAError, match=f"from {PASS_PLUGINS_ENV}"):
        pipeline.load_pass_plugins_from_env({PASS_PLUGINS_ENV: str(tmp_path / "none.py")})


# --------------------------------------------------------------------------------------------
# vta-opt and the other tools


def test_vta_opt_load_pass_plugin(
    tagger: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(FUNC)
    status, out, _ = run_opt([str(source), "-p", "test-tag-funcs"], capsys)
    assert status == 1  # unknown before the plugin is loaded
    for flags in (["-p", "test-tag-funcs"], ["--pass-pipeline=builtin.module(test-tag-funcs)"]):
        status, out, err = run_opt(["--load-pass-plugin", str(tagger), str(source), *flags], capsys)
        assert (status, err) == (0, "")
        assert "attributes {tagged}" in out
    status, out, _ = run_opt(["--load-pass-plugin", str(tagger), "--list-passes"], capsys)
    assert status == 0
    names = out.split()
    assert "test-tag-funcs" in names and "vta-lower-to-isa" in names and "canonicalize" in names


def test_vta_opt_plugin_from_the_environment(
    tagger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(FUNC)
    monkeypatch.setenv(PASS_PLUGINS_ENV, str(tagger))
    status, out, _ = run_opt([str(source), "-p", "test-tag-funcs"], capsys)
    assert status == 0 and "attributes {tagged}" in out


@pytest.mark.parametrize("tool", [vta_opt, vta_translate, vta_run])
def test_plugin_errors_in_the_tools(
    tool: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1 / 0\n")
    monkeypatch.setenv(PASS_PLUGINS_ENV, str(bad))
    argv = {"vta_opt": [], "vta_translate": ["--emit=asm"], "vta_run": ["--random-inputs"]}
    status = tool.main([*argv[tool.__name__.rsplit(".", 1)[1]], str(VECTOR_ADD)])
    err = capsys.readouterr().err
    prog = tool.PROG
    assert status == 1
    assert err == (
        f"{prog}: error: cannot load pass plugin '{bad}' (from {PASS_PLUGINS_ENV}): "
        "ZeroDivisionError: division by zero\n"
    )


def test_vta_opt_bad_plugin_flag(tmp_path: Path, capsys) -> None:
    status, _, err = run_opt(["--load-pass-plugin", str(tmp_path / "gone.py"), "-"], capsys)
    assert status == 1
    assert err == (
        f"vta-opt: error: cannot load pass plugin '{tmp_path / 'gone.py'}': "
        "No such file or directory\n"
    )


def test_installed_vta_opt_with_the_example_plugin() -> None:
    proc = subprocess.run(
        [
            str(BIN / "vta-opt"),
            "--load-pass-plugin",
            str(EXAMPLE),
            "-p",
            "vta-drop-noop-alu,vta-lower-to-isa",
            str(PLUGIN_TEST),
            "--split-input-file",
        ],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.split("// -----")[0]
    assert first.count("vtaisa.alu") == 5


# --------------------------------------------------------------------------------------------
# The example plugin: vta-drop-noop-alu


def _alu_count(module_text: str) -> int:
    return module_text.count("vta.alu ")


def test_example_drops_noops_and_keeps_results(example: ModuleType) -> None:
    original = parse(example.DEMO)
    rewritten = run_pipeline(parse(example.DEMO), "vta-drop-noop-alu")
    assert _alu_count(print_ir(original)) == 4 and _alu_count(print_ir(rewritten)) == 2
    before, after = compile(original), compile(rewritten)
    rng = np.random.default_rng(5)
    x = rng.integers(-(2**31), 2**31 - 1, size=(1, 16, 1, 16), dtype=np.int32)
    b = rng.integers(-(2**31), 2**31 - 1, size=(1, 16, 1, 16), dtype=np.int32)
    # The sum wraps in int32 before the arithmetic shift, as on the accumulator.
    expected = ((x.astype(np.int64) + b).astype(np.int32) >> 3).astype(np.int8)
    assert np.array_equal(before(x, b)[0], expected)
    assert np.array_equal(after(x, b)[0], expected)
    assert before.last_run.counters["alu_counter"] == 64  # type: ignore[union-attr]
    assert after.last_run.counters["alu_counter"] == 32  # type: ignore[union-attr]
    assert after.last_run.cycles < before.last_run.cycles  # type: ignore[operator,union-attr]


def test_example_on_the_lit_input_matches_numpy(example: ModuleType) -> None:
    text = PLUGIN_TEST.read_text().split("// -----")[0]
    module = run_pipeline(parse(text), [example.DropNoopAluPass()])
    mod = compile(module)
    rng = np.random.default_rng(11)
    x = rng.integers(-100_000, 100_000, size=(1, 16, 1, 16), dtype=np.int32)
    b = rng.integers(-100_000, 100_000, size=(1, 16, 1, 16), dtype=np.int32)
    (y,) = mod(x, b)
    acc = ((x + b) * 2) >> 3
    acc[0, [0, 8]] = np.maximum(acc[0, [0, 8]], 0)  # the host loop's `max` at elements 0 and 8
    assert np.array_equal(y, acc.astype(np.int8))
    assert mod.last_run.by_opcode.get("ALU") == 5  # type: ignore[union-attr]
    (y_original,) = compile(text)(x, b)
    assert np.array_equal(y, y_original)


def test_example_keeps_noops_on_hardware_targets(example: ModuleType) -> None:
    text = PLUGIN_TEST.read_text().split("// -----")[1]
    module = parse(text)
    before = print_ir(module)
    with collect_diagnostics() as diagnostics:
        run_pipeline(module, "vta-drop-noop-alu")
    assert print_ir(module) == before
    assert [d.severity for d in diagnostics] == [Severity.REMARK]
    assert "kept: on target 'pynq'" in diagnostics[0].message
    # The same program on the simulator target loses its `shr 0`.
    sim = parse(text.replace('target = "pynq"', 'target = "sim"'))
    run_pipeline(sim, "vta-drop-noop-alu")
    assert _alu_count(print_ir(sim)) == 0
    assert lower(sim).program.runs[0].insns  # still a valid program: load, store, finish


def test_example_leaves_other_alu_ops(example: ModuleType) -> None:
    module = parse(VECTOR_ADD.read_text())
    before = print_ir(module)
    run_pipeline(module, "vta-drop-noop-alu")
    assert print_ir(module) == before


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], "matches numpy: True"),
        ([str(ROOT / "examples" / "vta" / "matrix_multiply.mlir")], "same outputs"),
    ],
)
def test_example_script(args: list[str], expected: str) -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, cwd="/"
    )
    assert proc.returncode == 0, proc.stderr
    assert expected in proc.stdout and "True" in proc.stdout.splitlines()[-1]


def test_example_script_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    for args, message in (
        ([str(tmp_path / "none.mlir")], "custom_pass.py: error: cannot open input file"),
        ([str(bad)], f"{bad}:1:15: error:"),
    ):
        proc = subprocess.run(
            [sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, cwd="/"
        )
        assert proc.returncode == 1
        assert proc.stderr.startswith(message) and "Traceback" not in proc.stderr


# --------------------------------------------------------------------------------------------
# The plugin API (docs/python-api.md): these names stay where they are


def test_the_plugin_api_stays_put() -> None:
    from vta_mlir.dialects.vta import (
        IMM_MAX,
        IMM_MIN,
        AluKernel,
        AluKind,
        AluOp,
        UopLoopOp,
    )
    from vta_mlir.ir.locations import copy_location, location_of
    from vta_mlir.passes import register_pass, scoped_registry

    assert (IMM_MIN, IMM_MAX) == (-(1 << 15), (1 << 15) - 1)
    assert {k.name for k in AluKind} == {"MIN", "MAX", "ADD", "SHR", "MUL"}
    module = parse(
        "func.func @f(%acc: memref<8x1x16xi32, #vta.sram<acc>>, %i: index) {\n"
        "  vta.stage compute {\n"
        "    vta.uop_loop 2 dst 4 {\n"
        "      vta.uop_loop 4 dst 1 src 1 {\n"
        "        vta.alu shr %acc[%i + 1], 3 : memref<8x1x16xi32, #vta.sram<acc>>\n"
        "      }\n"
        "    }\n"
        "    vta.uop_loop 4 dst 1 src 1 {\n"
        "      vta.alu add %acc[0], %acc[4] : memref<8x1x16xi32, #vta.sram<acc>>,"
        " memref<8x1x16xi32, #vta.sram<acc>>\n"
        "    }\n"
        "  }\n"
        "  func.return\n"
        "}\n",
        filename="api.mlir",
    )
    kernels = [op for op in module.walk() if isinstance(op, UopLoopOp) and op.is_kernel]
    assert len(kernels) == 2
    outer = kernels[0]
    assert [lp.field("extent") for lp in outer.loops()] == [2, 4]
    assert [
        (lp.field("dst_factor"), lp.field("src_factor"), lp.field("wgt_factor"))
        for lp in outer.loops()
    ] == [(4, 0, 0), (1, 1, 0)]
    assert isinstance(outer.body.block.first_op, UopLoopOp)
    (shr,) = outer.micro_ops()
    assert isinstance(shr, AluOp) and shr.kind == AluKind.SHR and shr.use_imm
    assert shr.imm_value == 3 and shr.dst is shr.operands[0]
    dst_index, dst_offset = shr.position("dst")
    assert dst_offset == 1 and dst_index is not None

    (add,) = kernels[1].micro_ops()
    assert isinstance(add, AluOp) and add.kind == AluKind.ADD and not add.use_imm
    assert add.imm_value == 0 and add.position("src") == (None, 4)

    kernel = AluKernel.of(outer)
    assert kernel is not None and kernel.loop is outer and kernel.alu is shr
    assert (kernel.kind, kernel.imm, kernel.dst) == (AluKind.SHR, 3, shr.dst)
    assert kernel.position() == shr.position("dst")
    assert kernel.loop_nest() == ((2, 4, 0, 0), (4, 1, 1, 0))
    tensor = AluKernel.of(kernels[1])
    assert tensor is not None and tensor.imm is None and tensor.position("src") == (None, 4)
    assert AluKernel.of(shr) is None  # a micro-op inside a kernel is not a kernel
    assert AluKernel.of(None) is None and AluKernel.of(module) is None

    rebuilt = AluOp(AluKind.SHR, shr.dst, (dst_index, dst_offset), imm=IMM_MAX)
    copy_location(shr, rebuilt)
    assert location_of(rebuilt) == location_of(shr) and "api.mlir" in str(location_of(shr))

    @dataclass(frozen=True)
    class Nothing(ModulePass):
        name = "test-nothing"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            pass

    with scoped_registry():
        assert register_pass(Nothing) is Nothing
        assert "test-nothing" in available_passes()
    assert "test-nothing" not in available_passes()


# --------------------------------------------------------------------------------------------
# scoped_registry


@dataclass(frozen=True)
class _Registered(ModulePass):
    name = "test-registered"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pass


def test_scoped_registry_restores_and_keeps() -> None:
    with scoped_registry() as scope:
        vta_mlir.passes.register_pass(_Registered)
        assert scope.added() == {"test-registered": _Registered}
    assert "test-registered" not in vta_mlir.passes.get_all_passes()
    with scoped_registry():
        with scoped_registry() as inner:
            vta_mlir.passes.register_pass(_Registered)
            inner.keep()
        assert "test-registered" in vta_mlir.passes.get_all_passes()
    assert "test-registered" not in vta_mlir.passes.get_all_passes()


def test_a_plugin_failing_halfway_registers_nothing(tmp_path: Path) -> None:
    path = tmp_path / "halfway.py"
    path.write_text(TAGGER + "\nraise RuntimeError('after registering')\n")
    with pytest.raises(VTAError, match="RuntimeError: after registering"):
        load_pass_plugin(str(path))
    assert "test-tag-funcs" not in available_passes()


def test_a_plugin_loaded_again_registers_its_passes_again(tagger: Path) -> None:
    with scoped_registry():
        module = load_pass_plugin(str(tagger))
        assert "test-tag-funcs" in available_passes()
    assert "test-tag-funcs" not in available_passes()
    # Imported once per process: the second load only makes its passes known again.
    assert load_pass_plugin(str(tagger)) is module and module.LOADS == 1
    assert "test-tag-funcs" in available_passes()
