"""Shared by the ``vta-opt`` tests: an input program, running the tool, and extra passes
registered the way the project's passes are (the ``extra_passes`` fixture of
``conftest.py`` registers :data:`EXTRA_PASSES` for one test)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from vta_mlir.ir.diagnostics import emit_remark, emit_warning, report_error
from vta_mlir.tools import vta_opt

GEMM = """\
func.func @gemm(%a: memref<16x32xi8>, %b: memref<32x8xi8>, %c: memref<16x8xi32>) {
  linalg.matmul ins(%a, %b : memref<16x32xi8>, memref<32x8xi8>) outs(%c : memref<16x8xi32>)
  return
}
"""


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


#: The passes the ``extra_passes`` fixture registers.
EXTRA_PASSES: tuple[type[ModulePass], ...] = (WarnEachFunc, RejectMatmul, Crash, BreakIR)
