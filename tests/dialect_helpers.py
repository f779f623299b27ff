"""Helpers of the dialect tests (``tests/test_dialects_*.py``): the shipped configurations, a
context with the ``vta`` and ``vtaisa`` dialects, round-trip checks, small builders, and the
cases of ``tests/filecheck/dialects/*/invalid.mlir``."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import affine, arith, builtin, func, memref, test
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects import vta, vtaisa
from vta_mlir.dialects.vta import (
    Sram,
    SramAttr,
    set_module_config,
)

CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}
DEFAULT = CONFIGS["default"]
FILECHECK = Path(__file__).parent / "filecheck" / "dialects"


def dialect_context() -> Context:
    c = Context()
    for d in (builtin.Builtin, arith.Arith, affine.Affine, func.Func, memref.MemRef, test.Test,
              vta.VTA, vtaisa.VTAISA):
        c.load_dialect(d)
    return c


def generic(op: Operation) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue()


def assert_round_trips(ctx: Context, module: ModuleOp) -> str:
    """``module`` verifies and prints back unchanged from its custom and its generic form."""
    module.verify()
    text = str(module)
    again = Parser(ctx, text).parse_module()
    again.verify()
    assert str(again) == text
    from_generic = Parser(ctx, generic(module)).parse_module()
    from_generic.verify()
    assert str(from_generic) == text
    return text


def memrefs(*types: Attribute) -> test.TestOp:
    return test.TestOp(result_types=list(types))


def sram(space: str, count: int, cfg: VTAConfig = DEFAULT) -> MemRefType:
    s = Sram(space)
    return MemRefType(vta.sram_element_type(s, cfg), [count, *vta.sram_element_shape(s, cfg)],
                      memory_space=SramAttr(s))


def module_with(ops: list[Operation], cfg: VTAConfig | None = None) -> ModuleOp:
    module = ModuleOp(ops)
    if cfg is not None:
        set_module_config(module, cfg)
    return module



def invalid_cases(dialect: str) -> list[tuple[str, str]]:
    text = (FILECHECK / dialect / "invalid.mlir").read_text()
    cases = []
    for chunk in text.split("// -----"):
        found = re.findall(r"expected-error(?: @[+-]\d+)? \{\{(.*)\}\}", chunk)
        if found:
            assert len(found) == 1, chunk
            cases.append((chunk, found[0]))
    return cases


def check_rejected(ctx: Context, chunk: str, message: str) -> None:
    with pytest.raises((ParseError, VerifyException)) as info:
        Parser(ctx, chunk).parse_module().verify()
    assert message in str(info.value)
