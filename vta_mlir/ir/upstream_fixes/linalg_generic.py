"""Fix of xDSL's ``linalg.generic`` syntax: the result types of a generic with several results.

MLIR writes them in parentheses, ``} -> (tensor<1xf32>, tensor<1xi64>)`` (torch-mlir's
``Softmax``: a max-reduction that also computes the argmax), and the stock printer prints them
so; the stock parser reads them as one attribute, which takes ``(...)`` for a function type
and stops with "Expected '->'" on the next line.  The patched parser is the stock one with the
result types read as MLIR writes them: one type, or a parenthesised list.
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, StringAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser

__all__ = ["fix_generic_results"]


def _operands(parser: Parser, keyword: str) -> list[SSAValue]:
    """``keyword(%a, %b : T, U)``, or nothing when the keyword is absent."""
    pos = parser.pos
    if not parser.parse_optional_characters(keyword):
        return []
    parser.parse_punctuation("(")
    names = parser.parse_comma_separated_list(Parser.Delimiter.NONE,
                                              parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return list(parser.resolve_operands(names, types, pos))


def _iterator_types(parser: Parser, value: Attribute, start: int,
                    end: int) -> list[linalg.IteratorTypeAttr]:
    found: list[linalg.IteratorTypeAttr] = []
    for item in cast(ArrayAttr[Attribute], value).data:
        if isinstance(item, linalg.IteratorTypeAttr):
            found.append(item)
        elif isinstance(item, StringAttr):
            found.append(linalg.IteratorTypeAttr(linalg.IteratorType(item.data)))
        else:
            parser.raise_error(f"Unknown iterator type {item}", start, end)
    return found


def _parse_generic(cls: type[linalg.GenericOp], parser: Parser) -> linalg.GenericOp:
    start = parser.pos
    attrs = parser.parse_optional_attr_dict()
    end = parser.pos
    for required in ("indexing_maps", "iterator_types"):
        if required not in attrs:
            parser.raise_error(f"Expected {required} for linalg.generic", start, end)
    maps = cast(ArrayAttr[AffineMapAttr], attrs.pop("indexing_maps"))
    iterators = _iterator_types(parser, attrs.pop("iterator_types"), start, end)
    doc = cast(StringAttr | None, attrs.pop("doc", None))
    library_call = cast(StringAttr | None, attrs.pop("library_call", None))
    ins = _operands(parser, "ins")
    outs = _operands(parser, "outs")
    extra: dict[str, Attribute] = {}
    if parser.parse_optional_keyword("attrs"):
        parser.parse_punctuation("=")
        extra = parser.expect(parser.parse_optional_attr_dict, "expect extra attributes")
    body = parser.parse_region()
    results: list[Attribute] = []
    if parser.parse_optional_punctuation("->"):
        if parser.parse_optional_punctuation("(") is not None:
            results = parser.parse_comma_separated_list(Parser.Delimiter.NONE,
                                                        parser.parse_type)
            parser.parse_punctuation(")", " to close the result types of linalg.generic")
        else:
            results = [parser.parse_type()]
    generic = cls(ins, outs, body, maps, ArrayAttr(iterators), results, doc, library_call)
    generic.attributes |= extra
    return generic


def fix_generic_results() -> None:
    linalg.GenericOp.parse = classmethod(_parse_generic)  # type: ignore[method-assign, assignment]
