"""The layout of the dialect modules and the declarative syntax of ``vta`` ops.

``vta_mlir.dialects.vta`` and ``vta_mlir.dialects.vtaisa`` re-export every name of the modules
they were split into; ``vta.dep_push`` / ``vta.dep_pop``, ``vta.stage`` and ``vta.uop_loop``
use an ``assembly_format`` whose text is the documented one (empty bodies, attributes, zero
factors left out), and bad input to them is one error line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vta_mlir.dialects import vta, vtaisa
from vta_mlir.dialects.vta import DepPopOp, DepPushOp, StageOp, UopLoopOp
from vta_mlir.ir.context import parse_module, print_module
from vta_mlir.ir.diagnostics import verify_op

BIN = Path(sys.executable).parent

#: Names other code imports from the two dialect modules (they stay importable from there).
VTA_NAMES = (
    "CONFIG_ATTR_NAME", "EXTENT_MAX", "IMM_MAX", "IMM_MIN", "MAX_UOP_LOOP_DEPTH", "VTA",
    "WRITE_HAZARD_WINDOW", "AluKernel", "AluKind", "AluKindAttr", "AluOp", "DepPopOp",
    "DepPushOp", "DmaCopyOp", "GemmOp", "LinearPosition", "Module", "ModuleAttr", "Sram",
    "SramAttr", "StageOp", "UopLoopOp", "VTAConfigAttr", "constant_index",
    "enclosing_list_loops", "get_config", "kernel_uops", "linear_position", "list_loop_bounds",
    "list_loop_trip", "module_of", "set_module_config", "sram_element_shape",
    "sram_element_type", "sram_space",
)
VTAISA_NAMES = (
    "ALU_FIELDS", "GEMM_FIELDS", "MEM_FIELDS", "VTAISA", "AluInsnOp", "ArgOp", "FinishInsnOp",
    "GemmInsnOp", "LoadInsnOp", "ProgramOp", "RunOp", "SegmentOp", "StoreInsnOp", "UopsOp",
    "insn_to_op", "module_to_program", "op_to_insn", "program_op", "program_to_module",
)


@pytest.mark.parametrize(("module", "names"), [(vta, VTA_NAMES), (vtaisa, VTAISA_NAMES)])
def test_dialect_modules_re_export(module: object, names: tuple[str, ...]) -> None:
    assert [n for n in names if not hasattr(module, n)] == []
    assert set(names) <= set(module.__all__)  # type: ignore[attr-defined]


@pytest.mark.parametrize("op", [DepPushOp, DepPopOp, StageOp, UopLoopOp])
def test_declarative_syntax(op: type) -> None:
    assert op.assembly_format is not None


TEXT = """\
builtin.module {
  func.func @f(%acc: memref<16x1x16xi32, #vta.sram<acc>>) {
    vta.stage compute attributes {tag = "s"} {
      vta.dep_pop load -> compute {note = 1 : i64}
      vta.uop_loop 2 dst 4 wgt 0 attributes {k} {
        vta.uop_loop 4 dst 1 src 0 {
          vta.alu shr %acc[1], 3 : memref<16x1x16xi32, #vta.sram<acc>>
        }
      }
      vta.dep_push compute -> store
    }
    vta.stage store {}
    vta.stage load {
    }
    func.return
  }
}
"""

PRINTED = """\
builtin.module {
  func.func @f(%acc: memref<16x1x16xi32, #vta.sram<acc>>) {
    vta.stage compute attributes {tag = "s"} {
      vta.dep_pop load -> compute {note = 1 : i64}
      vta.uop_loop 2 dst 4 attributes {k} {
        vta.uop_loop 4 dst 1 {
          vta.alu shr %acc[1], 3 : memref<16x1x16xi32, #vta.sram<acc>>
        }
      }
      vta.dep_push compute -> store
    }
    vta.stage store {
    }
    vta.stage load {
    }
    func.return
  }
}
"""


def test_text_and_empty_bodies() -> None:
    module = parse_module(TEXT)
    verify_op(module)
    stages = [op for op in module.walk() if isinstance(op, StageOp)]
    assert [len(s.body.blocks) for s in stages] == [1, 1, 1]
    loop = next(op for op in module.walk() if isinstance(op, UopLoopOp))
    assert [loop.field(f) for f in ("extent", "dst_factor", "src_factor", "wgt_factor")] == \
        [2, 4, 0, 0]
    assert print_module(module) == PRINTED
    assert print_module(parse_module(PRINTED)) == PRINTED


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("vta.uop_loop 2 src 1 dst 1 {\n}\n", "1:22: error: Expected region!"),
        ("vta.dep_push load compute\n", "1:19: error: Expected '->'"),
        ("vta.stage fetch {\n}\n", "1:11: error: Expected `load`, `compute`, or `store`."),
    ],
)
def test_bad_syntax_is_one_error_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    proc = subprocess.run([str(BIN / "vta-opt"), str(path)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode != 0
    assert proc.stderr.splitlines()[0] == f"{path}:{message}"
    assert "Traceback" not in proc.stderr
