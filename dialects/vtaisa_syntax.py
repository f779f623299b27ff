"""Helpers shared by the ``vtaisa`` ops (:mod:`vta_mlir.dialects.vtaisa`) and their custom
directives (:mod:`vta_mlir.dialects.vtaisa_directives`).

* Integer properties: one shared attribute per value (:func:`int_attr`) and the value of a
  property (:func:`int_field`).
* One integer field parsed (:func:`parse_int`): a parse error names the field.
* The single-block body of ``vtaisa.program`` and ``vtaisa.run`` built from a list of ops
  (:func:`as_region`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Block, Operation, Region
from xdsl.parser import Parser

__all__ = [
    "as_region",
    "int_attr",
    "int_field",
    "parse_int",
]


@lru_cache(maxsize=8192)
def int_attr(value: int) -> IntegerAttr:
    """The ``i64`` attribute of ``value``.

    Attributes are immutable values: one instance per value serves every field of every
    instruction (a program has tens of thousands of fields, mostly small repeated values).
    """
    return IntegerAttr(int(value), i64)


def int_field(op: Operation, name: str) -> int:
    """The value of the integer property ``name`` of ``op``."""
    attr = op.properties[name]
    assert isinstance(attr, IntegerAttr)
    return int(attr.value.data)


def parse_int(parser: Parser, what: str) -> int:
    return parser.parse_integer(allow_boolean=False, context_msg=f" for {what}")


def as_region(body: Region | Sequence[Operation] | None) -> Region:
    if body is None:
        return Region(Block())
    if isinstance(body, Region):
        return body
    return Region(Block(body))
