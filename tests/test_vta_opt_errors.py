"""``vta-opt`` errors: one MLIR-style line, exit status 1, never a traceback."""

from __future__ import annotations

import pytest

from vta_mlir.tools import vta_opt

from .vta_opt_helpers import GEMM, run

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
