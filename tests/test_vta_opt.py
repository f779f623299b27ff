"""``vta-opt`` and the IR infrastructure under it: pipelines, split input, diagnostics and
their verification, locations, the context, errors without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp, NameLoc, UnknownLoc
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from vta_mlir.errors import VTAError
from vta_mlir.ir import context as ir_context
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import (
    Diagnostic,
    DiagnosticError,
    Severity,
    check_expected_diagnostics,
    collect_diagnostics,
    emit_remark,
    emit_warning,
    parse_expected_diagnostics,
    report_error,
    verify_op,
)
from vta_mlir.ir.locations import SourceLocation, copy_location, location_of, set_location
from vta_mlir.ir.pipeline import mlir_pipeline_to_xdsl
from vta_mlir.passes import register_pass, scoped_registry
from vta_mlir.tools import vta_opt

GEMM = """\
func.func @gemm(%a: memref<16x32xi8>, %b: memref<32x8xi8>, %c: memref<16x8xi32>) {
  linalg.matmul ins(%a, %b : memref<16x32xi8>, memref<32x8xi8>) outs(%c : memref<16x8xi32>)
  return
}
"""


@pytest.fixture
def mlir_file(tmp_path: Path):
    def write(text: str, name: str = "input.mlir") -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = vta_opt.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


# --------------------------------------------------------------------------------------------
# Extra passes, registered the way the project's passes are


@dataclass(frozen=True)
class WarnEachFunc(ModulePass):
    """Emits a warning (with a note) at every function and a remark at the module."""

    name = "test-warn-each-func"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.walk():
            if isinstance(f, func.FuncOp):
                emit_warning(f, f"function {f.sym_name.data} looks odd").attach_note(
                    "noted here", op=f
                )
        emit_remark(op, "module visited")


@dataclass(frozen=True)
class RejectMatmul(ModulePass):
    """Fails with a diagnostic at the first linalg.matmul."""

    name = "test-reject-matmul"
    reason: str = "unsupported"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if inner.name == "linalg.matmul":
                report_error(
                    inner, f"cannot handle this matmul: {self.reason}", notes=["try linalg.generic"]
                )


@dataclass(frozen=True)
class Crash(ModulePass):
    """An internal bug."""

    name = "test-crash"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise KeyError("boom")


@dataclass(frozen=True)
class BreakIR(ModulePass):
    """Leaves invalid IR behind (an empty function body block)."""

    name = "test-break-ir"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in list(op.walk()):
            if isinstance(inner, func.ReturnOp):
                inner.detach()
                inner.erase()


@pytest.fixture
def extra_passes() -> Iterator[None]:
    with scoped_registry():
        for p in (WarnEachFunc, RejectMatmul, Crash, BreakIR):
            register_pass(p)
        yield


# --------------------------------------------------------------------------------------------
# Pipeline syntax


@pytest.mark.parametrize(
    ("mlir", "xdsl"),
    [
        ("builtin.module(a,b)", "a,b"),
        ("builtin.module(a, b{x=1 y=2})", "a,b{x=1 y=2}"),
        ("builtin.module(func.func(a, b), c)", "a,b,c"),
        ('builtin.module(any(a), func.func(b{s="x,y)"}))', 'a,b{s="x,y)"}'),
        (r'builtin.module(b{s="q\"),("})', r'b{s="q\"),("}'),
        ("builtin.module()", ""),
        ("a,b{x=1,2}", "a,b{x=1,2}"),
        ("  a ,  b  ", "a,b"),
        ("", ""),
        ("cse,mlir-opt[func.func(cse),canonicalize]", "cse,mlir-opt[func.func(cse),canonicalize]"),
    ],
)
def test_mlir_pipeline_to_xdsl(mlir: str, xdsl: str) -> None:
    assert mlir_pipeline_to_xdsl(mlir) == xdsl


@pytest.mark.parametrize("bad", ["builtin.module(a", "builtin.module(a))", "a,,b", "b{x=1"])
def test_mlir_pipeline_errors(bad: str) -> None:
    with pytest.raises(VTAError, match="invalid pass pipeline"):
        mlir_pipeline_to_xdsl(bad)


def test_p_and_pass_pipeline_agree(mlir_file, capsys) -> None:
    path = mlir_file(GEMM)
    nested = "builtin.module(func.func(convert-linalg-to-loops), canonicalize)"
    results = [
        run([path, "-p", "convert-linalg-to-loops,canonicalize"], capsys),
        run([path, "--pass-pipeline=builtin.module(convert-linalg-to-loops,canonicalize)"], capsys),
        run([path, "--pass-pipeline", nested], capsys),
    ]
    assert {r[0] for r in results} == {0}
    assert len({r[1] for r in results}) == 1
    assert "scf.for" in results[0][1] and "arith.extsi" in results[0][1]


def test_project_passes_are_available(extra_passes, mlir_file, capsys) -> None:
    status, out, _ = run(["--list-passes"], capsys)
    assert status == 0
    names = out.split()
    assert "test-reject-matmul" in names and "convert-linalg-to-loops" in names


# --------------------------------------------------------------------------------------------
# Errors: one MLIR-style line, exit 1, never a traceback


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "func.func @f(%a i32) {\n  return\n}\n",
            "input.mlir:1:17: error: Expected ':' after block argument name",
        ),
        (
            "func.func @f() {\n  %0 = foo.bar : i8\n  return\n}\n",
            "input.mlir:2:16: error: Operation foo.bar is not registered",
        ),
        (
            '%a = "test.op"() : () -> i32\n%b = "test.op"() : () -> i8\n'
            '%0 = "arith.addi"(%a, %b) : (i32, i8) -> i32\n',
            "input.mlir:3:1: error: 'arith.addi' op operand 'rhs' at position 1 does not verify",
        ),
        (
            "%0 = arith.constant 300 : i8\n",
            "input.mlir:1:1: error: Integer value 300 is out of range for type i8",
        ),
        (
            "func.func @f() -> i32 {\n  return %x : i32\n}\n",
            "input.mlir:2:10: error: use of undeclared SSA value name %x",
        ),
        (
            '%0 = "test.op"() : () -> memref<4xi32, #nope.attr>\n',
            "input.mlir:1:50: error: 'nope.attr' is not registered",
        ),
    ],
)
def test_malformed_input(mlir_file, capsys, text: str, expected: str) -> None:
    status, out, err = run([mlir_file(text)], capsys)
    assert status == 1
    assert out == ""
    first = err.splitlines()[0]
    assert expected in first, err
    assert "Traceback" not in err


def test_verifier_error_shows_source_and_op(mlir_file, capsys) -> None:
    text = GEMM.replace("memref<32x8xi8>", "memref<31x8xi8>")
    status, _, err = run([mlir_file(text)], capsys)
    lines = err.splitlines()
    assert status == 1
    assert lines[0].endswith(
        "input.mlir:2:3: error: 'linalg.matmul' op inferred input/output operand #1 has "
        "shape's dimension #0 to be 32, but found 31"
    )
    assert lines[1] == text.splitlines()[1]
    assert lines[2] == "  ^"
    assert 'input.mlir:2:3: note: see current operation: "linalg.matmul"(%a, %b, %c)' in lines[3]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["-p", "nope"], "vta-opt: error: unknown pass 'nope'"),
        (["-p", "canonicalize{x=1}"], "vta-opt: error: invalid options for pass 'canonicalize'"),
        (["-p", "canonicalize{"], "vta-opt: error: invalid pass pipeline"),
        (["-p", "canonicalize{x=}"], "vta-opt: error: invalid pass pipeline"),
        (["-p", "cse", "--pass-pipeline", "builtin.module(cse)"], "vta-opt: error: use either"),
        (["--bogus-flag"], "vta-opt: error: unrecognized arguments: --bogus-flag"),
        (["--config", "nope"], "vta-opt: error: nope: cannot read configuration"),
    ],
)
def test_command_line_errors(mlir_file, capsys, argv: list[str], expected: str) -> None:
    status, out, err = run([mlir_file(GEMM), *argv], capsys)
    assert status == 1
    assert err.splitlines() == [err.splitlines()[0]] and err.startswith(expected), err


def test_missing_input_file(capsys) -> None:
    status, _, err = run(["/nonexistent/x.mlir"], capsys)
    assert status == 1
    assert err == (
        "vta-opt: error: cannot open input file '/nonexistent/x.mlir': No such file or directory\n"
    )


def test_pass_error_at_op(extra_passes, mlir_file, capsys) -> None:
    status, out, err = run([mlir_file(GEMM), "-p", "test-reject-matmul{reason=blocked}"], capsys)
    assert status == 1 and out == ""
    lines = err.splitlines()
    assert lines[0].endswith(
        "input.mlir:2:3: error: 'linalg.matmul' op cannot handle this matmul: blocked"
    )
    assert any(line.endswith("input.mlir:2:3: note: try linalg.generic") for line in lines)


def test_invalid_ir_after_a_pass_is_reported(extra_passes, mlir_file, capsys) -> None:
    status, _, err = run([mlir_file(GEMM), "-p", "test-break-ir"], capsys)
    assert status == 1
    assert (
        "input.mlir:2:3: error: 'linalg.matmul' op Operation linalg.matmul terminates block in "
        "single-block region but is not a terminator" in err.splitlines()[0]
    )
    # --no-verify-each lets the broken module through.
    status, out, _ = run([mlir_file(GEMM), "-p", "test-break-ir", "--no-verify-each"], capsys)
    assert status == 0 and "func.func @gemm" in out


def test_internal_error_no_traceback(extra_passes, mlir_file, capsys, monkeypatch) -> None:
    monkeypatch.delenv("VTA_MLIR_DEBUG", raising=False)
    status, _, err = run([mlir_file(GEMM), "-p", "test-crash"], capsys)
    assert status == 1
    assert err.splitlines()[0].endswith("error: internal error: KeyError: 'boom'")
    assert "Traceback" not in err
    # With VTA_MLIR_DEBUG=1 the exception (and its traceback) gets through.
    monkeypatch.setenv("VTA_MLIR_DEBUG", "1")
    with pytest.raises(KeyError):
        vta_opt.main([mlir_file(GEMM), "-p", "test-crash"])


def test_arg_spec_parse_error_is_caught(capsys) -> None:
    # ArgSpecParseError derives from BaseException; the guard still turns it into one line.
    from xdsl.utils.arg_spec import parse_pipeline

    from vta_mlir.tools._cli import run_guarded

    def body(argv):
        list(parse_pipeline("a{"))
        return 0

    assert run_guarded("vta-opt", body) == 1
    assert capsys.readouterr().err.startswith("vta-opt: error: invalid pass pipeline")


# --------------------------------------------------------------------------------------------
# Split input, verify-diagnostics


SPLIT = """\
func.func @one() {
  return
}

// -----

func.func @two(%a: i32, %b: i8) {
  // expected-error@+1 {{'arith.addi' op operand 'rhs'}}
  %0 = "arith.addi"(%a, %b) : (i32, i8) -> i32
  return
}

// -----

func.func @three() {
  return
}
"""


def test_split_input_offsets() -> None:
    chunks = vta_opt.split_input(SPLIT, True)
    assert [c.line_offset for c in chunks] == [0, 5, 13]
    assert chunks[1].text.splitlines()[3] == '  %0 = "arith.addi"(%a, %b) : (i32, i8) -> i32'
    assert vta_opt.split_input(SPLIT, False)[0].text == SPLIT


def test_split_input_file_errors_use_file_lines(mlir_file, capsys) -> None:
    status, out, err = run([mlir_file(SPLIT), "--split-input-file"], capsys)
    assert status == 1
    assert err.splitlines()[0].endswith(
        "input.mlir:9:3: error: 'arith.addi' op operand 'rhs' "
        "at position 1 does not verify: attribute i32 "
        "expected from variable 'T', but got i8"
    )
    assert out.count("// -----\n") == 2
    assert "@one" in out and "@three" in out and "@two" not in out


def test_verify_diagnostics_success(mlir_file, capsys) -> None:
    status, out, err = run([mlir_file(SPLIT), "--split-input-file", "--verify-diagnostics"], capsys)
    assert (status, err) == (0, "")
    assert "@one" in out and "@three" in out


def test_verify_diagnostics_warnings_and_notes(extra_passes, mlir_file, capsys) -> None:
    # The implicit module is at line 1, where the remark is expected.
    text = """\
// expected-remark {{module visited}}
func.func @f() { // expected-warning {{function f looks odd}}
  // expected-note@-1 {{noted here}}
  return
}
"""
    status, _, err = run(
        [mlir_file(text), "--verify-diagnostics", "-p", "test-warn-each-func"], capsys
    )
    assert (status, err) == (0, "")
    # Without --verify-diagnostics the warnings are printed but do not fail the run.
    status, out, err = run([mlir_file(text), "-p", "test-warn-each-func"], capsys)
    assert status == 0 and "func.func @f" in out
    assert "input.mlir:2:1: warning: 'func.func' op function f looks odd" in err
    assert "input.mlir:2:1: note: noted here" in err
    assert "input.mlir:1:1: remark: 'builtin.module' op module visited" in err


def test_verify_diagnostics_reports_mismatches(extra_passes, mlir_file, capsys) -> None:
    text = """\
func.func @f() {
  // expected-error@+1 {{never produced}}
  return
}
"""
    status, _, err = run(
        [mlir_file(text), "--verify-diagnostics", "-p", "test-warn-each-func"], capsys
    )
    assert status == 1
    assert 'input.mlir:2:6: error: expected error "never produced" was not produced' in err
    assert "input.mlir:1:1: error: unexpected warning: 'func.func' op function f looks odd" in err
    assert "error: unexpected note: noted here" in err
    assert "error: unexpected remark: 'builtin.module' op module visited" in err


def test_expected_designators() -> None:
    text = """\
op_a
// expected-error@below {{b1}}
// expected-error@below {{b2}}
op_b
// expected-warning@above {{above b}}
op_c // expected-note {{same}}
// expected-remark@-1 {{minus}}
// expected-error@+2 {{plus}}
// expected-error@unknown {{nowhere}}
op_d
// expected-error-re {{x {{[0-9]+}} y}}
"""
    found = parse_expected_diagnostics(text, filename="f.mlir", line_offset=10)
    got = [(e.severity.value, e.line, e.text) for e in found]
    assert got == [
        ("error", 14, "b1"),
        ("error", 14, "b2"),
        ("warning", 14, "above b"),
        ("note", 16, "same"),
        ("remark", 16, "minus"),
        ("error", 20, "plus"),
        ("error", None, "nowhere"),
        ("error", 21, "x {{[0-9]+}} y"),
    ]
    assert found[0].location == SourceLocation("f.mlir", 12, 4)
    regex = found[-1]
    at = SourceLocation("f.mlir", 21, 1)
    assert regex.matches(Diagnostic("a x 42 y b", location=at), "f.mlir")
    assert not regex.matches(Diagnostic("x y", location=at), "f.mlir")
    problems = check_expected_diagnostics(
        found,
        [
            Diagnostic("b1 and b2", location=SourceLocation("f.mlir", 14, 1)),
            Diagnostic("somewhere nowhere"),
        ],
        filename="f.mlir",
    )
    # "b1 and b2" satisfies only one annotation; the others are reported as not produced.
    assert [p.message for p in problems][:2] == [
        'expected error "b2" was not produced',
        'expected warning "above b" was not produced',
    ]
    assert len(problems) == 6


# --------------------------------------------------------------------------------------------
# Printing options, I/O, config


def test_print_ir_after_and_before_all(mlir_file, capsys) -> None:
    status, out, err = run(
        [
            mlir_file(GEMM),
            "-p",
            "linalg-generalize-named-ops,canonicalize",
            "--mlir-print-ir-after-all",
            "--mlir-print-ir-before-all",
        ],
        capsys,
    )
    assert status == 0 and "IR Dump" not in out
    banners = [line for line in err.splitlines() if line.startswith("// -----//")]
    assert banners == [
        "// -----// IR Dump Before linalg-generalize-named-ops //----- //",
        "// -----// IR Dump After linalg-generalize-named-ops //----- //",
        "// -----// IR Dump Before canonicalize //----- //",
        "// -----// IR Dump After canonicalize //----- //",
    ]


def test_generic_debuginfo_and_output_file(mlir_file, capsys, tmp_path: Path) -> None:
    target = tmp_path / "out.mlir"
    status, out, _ = run(
        [mlir_file(GEMM), "--print-op-generic", "--print-debuginfo", "-o", str(target)], capsys
    )
    assert status == 0 and out == ""
    text = target.read_text()
    assert '"linalg.matmul"(%a, %b, %c)' in text
    assert 'loc("' in text and 'input.mlir":2:3)' in text


def test_stdin(capsys, monkeypatch) -> None:
    import io

    class FakeStdin:
        buffer = io.BytesIO(GEMM.encode())

    monkeypatch.setattr(sys, "stdin", FakeStdin())
    status, out, _ = run(["-"], capsys)
    assert status == 0 and "linalg.matmul" in out


def test_config_file(mlir_file, capsys, tmp_path: Path) -> None:
    from vta_mlir.config import VTAConfig

    cfg = VTAConfig.shipped("batch2").to_dict()
    path = tmp_path / "vta_config.json"
    path.write_text(json.dumps(cfg))
    status, out, err = run([mlir_file(GEMM), "--config", str(path)], capsys)
    assert status == 0, err
    assert "vta.config = #vta.config<" in out and "log_batch = 1" in out
    # Re-running with a different configuration is an error at the module.
    status, _, err = run([mlir_file(out, "configured.mlir"), "--config", "default"], capsys)
    assert status == 1
    assert "configured.mlir:1:1: error: the module was built for configuration" in err


def test_console_script() -> None:
    exe = Path(sys.executable).parent / "vta-opt"
    if not exe.exists():
        pytest.skip("console script not installed in this environment")
    proc = subprocess.run(
        [str(exe), "-p", "canonicalize"], input=GEMM, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and "linalg.matmul" in proc.stdout
    proc = subprocess.run(
        [str(exe), "-p", "bogus"], input=GEMM, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1
    assert proc.stderr == (
        "vta-opt: error: unknown pass 'bogus' (vta-opt --list-passes shows them all)\n"
    )


# --------------------------------------------------------------------------------------------
# The Python API under the tool


def test_every_parsed_op_has_a_location() -> None:
    module = parse_module(GEMM, filename="g.mlir", line_offset=100)
    locations = {op.name: location_of(op) for op in module.walk()}
    assert locations == {
        "builtin.module": SourceLocation("g.mlir", 101, 1),
        "func.func": SourceLocation("g.mlir", 101, 1),
        "linalg.matmul": SourceLocation("g.mlir", 102, 3),
        "func.return": SourceLocation("g.mlir", 103, 3),
        # The hidden body of the named op is built, not parsed.
        "arith.extsi": None,
        "arith.muli": None,
        "arith.addi": None,
        "linalg.yield": None,
    }
    assert all(
        isinstance(op.location, FileLineColLoc)
        for op in module.walk()
        if op.name in ("func.func", "linalg.matmul")
    )


def test_explicit_locations_are_kept() -> None:
    module = parse_module('"test.op"() : () -> () loc("orig.py":7:9)\n', filename="x.mlir")
    op = module.body.block.first_op
    assert op is not None and location_of(op) == SourceLocation("orig.py", 7, 9)


def test_a_name_location_keeps_the_name_and_gains_the_position() -> None:
    module = parse_module('\n  "test.op"() : () -> () loc("conv1")\n', filename="x.mlir")
    op = module.body.block.first_op
    assert op is not None and isinstance(op.location, NameLoc)
    assert op.location.desc.data == "conv1"
    assert location_of(op) == SourceLocation("x.mlir", 2, 3)
    placed = parse_module('"test.op"() : () -> () loc("conv1"("orig.py":7:9))\n')
    assert location_of(placed.body.block.first_op) == SourceLocation("orig.py", 7, 9)


def test_location_helpers() -> None:
    module = parse_module(GEMM, filename="g.mlir")
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    inner = matmul.body.block.first_op
    assert inner is not None
    assert location_of(inner) is None
    assert location_of(inner, inherit=True) == SourceLocation("g.mlir", 2, 3)
    copy_location(matmul, inner)
    assert location_of(inner) == SourceLocation("g.mlir", 2, 3)
    set_location(inner, None)
    assert isinstance(inner.location, UnknownLoc)
    clone = matmul.clone()
    assert location_of(clone) == location_of(matmul)


def test_parse_error_is_a_diagnostic_error() -> None:
    with pytest.raises(DiagnosticError) as info:
        parse_module("func.func @f() {\n  %0 = = 1\n}\n", filename="p.mlir", line_offset=4)
    error = info.value
    assert isinstance(error, VTAError) and isinstance(error, DiagnosticException)
    assert error.location is not None
    assert (error.location.file, error.location.line) == ("p.mlir", 6)
    assert str(error).startswith("p.mlir:6:")


def test_report_error_and_verify_op() -> None:
    module = parse_module(GEMM, filename="g.mlir")
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    with pytest.raises(DiagnosticError) as info:
        report_error(matmul, "bad", notes=["because"])
    diagnostic = info.value.diagnostic
    assert info.value.op is matmul
    assert diagnostic.header() == "g.mlir:2:3: error: 'linalg.matmul' op bad"
    formatted = diagnostic.format(sources={"g.mlir": GEMM})
    assert formatted.splitlines()[1:3] == [GEMM.splitlines()[1], "  ^"]
    assert "g.mlir:2:3: note: because" in formatted
    verify_op(module)  # valid


def test_emit_without_handler_prints(capsys) -> None:
    module = parse_module(GEMM, filename="g.mlir")
    emit_warning(module, "hello")
    assert capsys.readouterr().err.startswith("g.mlir:1:1: warning: 'builtin.module' op hello")
    with collect_diagnostics() as seen:
        emit_warning(module, "quiet")
    assert [d.severity for d in seen] == [Severity.WARNING]
    assert capsys.readouterr().err == ""


def test_context_registers_the_project_dialects() -> None:
    ctx = make_context()
    names = set(ctx.registered_dialect_names)
    assert {"builtin", "func", "linalg", "memref", "affine", "arith", "scf"} <= names
    assert set(ir_context.PROJECT_DIALECTS) <= names
    assert ctx.get_optional_dialect("vta") is not None
    module = parse_module(GEMM, ctx=ctx)
    assert "linalg.matmul" in print_module(module)


def test_unregistered_dialects(mlir_file, capsys) -> None:
    text = '%0 = "mystery.op"() : () -> i32\n'
    status, _, err = run([mlir_file(text)], capsys)
    assert status == 1 and "mystery.op is not registered" in err
    status, out, _ = run([mlir_file(text), "--allow-unregistered-dialect"], capsys)
    assert status == 0 and '"mystery.op"()' in out


def test_empty_input_and_empty_chunks(mlir_file, capsys) -> None:
    status, out, _ = run([mlir_file("// nothing here\n")], capsys)
    assert status == 0 and out == "builtin.module {\n}\n"
    status, out, _ = run([mlir_file(GEMM + "// -----\n"), "--split-input-file"], capsys)
    assert status == 0
    assert out.endswith("// -----\nbuiltin.module {\n}\n")
