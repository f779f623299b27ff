"""Fix of xDSL's lexer: string literals are matched in linear time."""

from __future__ import annotations

import re

from xdsl.utils.mlir_lexer import MLIRLexer

__all__ = ["fix_string_literal_lexing"]


def fix_string_literal_lexing() -> None:
    # Same language as the stock pattern (one unescaped character or one escape, repeated),
    # without the nested quantifier that makes a failing match exponential in the line length.
    MLIRLexer._unescaped_characters_regex = re.compile(  # pyright: ignore[reportPrivateUsage]
        r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
    )
