"""The Python API under ``vta-opt``: locations, diagnostics, the context and its dialects."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import FileLineColLoc, NameLoc, UnknownLoc
from xdsl.utils.exceptions import DiagnosticException

from vta_mlir.errors import VTAError
from vta_mlir.ir import context as ir_context
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import (
    DiagnosticError,
    Severity,
    collect_diagnostics,
    emit_warning,
    report_error,
    verify_op,
)
from vta_mlir.ir.locations import SourceLocation, copy_location, location_of, set_location

from .vta_opt_helpers import GEMM, run

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
