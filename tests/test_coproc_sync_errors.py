"""``vta-coproc-sync``: unsupported input is a diagnostic at the op."""

from __future__ import annotations

import pytest

from vta_mlir.ir.diagnostics import DiagnosticError

from .coproc_sync_helpers import sync

# ---------------------------------------------------------------------------------------------
# Errors


def error_of(text: str) -> tuple[str, int]:
    with pytest.raises(DiagnosticError) as info:
        sync(text)
    loc = info.value.location
    assert loc is not None
    return info.value.diagnostic.message, loc.line


ACC = "memref<4x1x16xi32, #vta.sram<acc>>"


def test_errors_are_reported_at_the_op() -> None:
    message, line = error_of(f"""func.func @f(%c: i1) {{
  %acc = memref.alloc() : {ACC}
  scf.if %c {{
    vta.alu add %acc[0], 1 : {ACC}
  }}
  func.return
}}""")
    assert line == 3 and "VTA commands inside 'scf.if' are not supported" in message

    message, line = error_of(f"""func.func @f(%n: index) {{
  %acc = memref.alloc() : {ACC}
  affine.for %i = 0 to %n {{
    vta.alu add %acc[0], 1 : {ACC}
  }}
  func.return
}}""")
    assert line == 3 and "needs constant bounds" in message

    message, line = error_of(f"""func.func @f(%y: memref<4x1x16xi8>) {{
  %acc = memref.alloc() : {ACC}
  vta.stage compute {{
    vta.alu add %acc[0], 1 : {ACC}
  }}
  vta.dma_copy %acc[0] -> %y[0] y 1 x 4 stride 4 : {ACC} -> memref<4x1x16xi8>
  func.return
}}""")
    assert line == 6 and "outside any vta.stage" in message
