"""``vta-opt``: split input (``--split-input-file``) and ``--verify-diagnostics``."""

from __future__ import annotations

from vta_mlir.ir.diagnostics import (
    Diagnostic,
    check_expected_diagnostics,
    parse_expected_diagnostics,
)
from vta_mlir.ir.locations import SourceLocation
from vta_mlir.tools import vta_opt

from .vta_opt_helpers import run

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
