"""Fix of xDSL's lexer: string literals are matched in linear time and constant memory."""

from __future__ import annotations

import re

from xdsl.utils.mlir_lexer import MLIRLexer

__all__ = ["fix_string_literal_lexing"]


def fix_string_literal_lexing() -> None:
    # Same language as the stock pattern (runs of unescaped characters or one escape,
    # repeated), with possessive quantifiers: the stock pattern nests `+` in `*` and backtracks
    # exponentially on a failing match, and a plain `(?:one character|escape)*` keeps a
    # backtracking entry per character (hundreds of MB for a multi-megabyte
    # `dense<"0x...">` literal).  A string literal never needs to give characters back: a run
    # stops only at `"`, `\` or a line break, which neither alternative can start with again.
    MLIRLexer._unescaped_characters_regex = re.compile(  # pyright: ignore[reportPrivateUsage]
        r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
    )
