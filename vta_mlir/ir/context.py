"""The MLIR context of vta-mlir: every dialect xDSL ships plus ``vta`` and ``vtaisa``, with
the upstream fixes applied; parsing with source locations and printing.

Dialects are registered lazily, as ``xdsl-opt`` does: a dialect's module is imported the first
time the parser meets one of its names.  Each context has its own store of ``dense_resource``
blobs (:func:`resource_blobs`); a parsed module remembers it, so that printing the module
writes its ``{-# dialect_resources ... #-}`` section back.
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Callable, Iterator
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DenseResourceAttr, DictionaryAttr, ModuleOp
from xdsl.ir import Attribute, Dialect
from xdsl.printer import Printer
from xdsl.universe import Universe
from xdsl.utils.exceptions import ParseError

from vta_mlir.errors import VTAError
from vta_mlir.ir.dense import resource_problem
from vta_mlir.ir.diagnostics import NESTING_TOO_DEEP, Diagnostic, DiagnosticError, report_error
from vta_mlir.ir.locations import LocatedParser
from vta_mlir.ir.upstream_fixes import apply_upstream_fixes
from vta_mlir.ir.upstream_fixes.resources import (
    ResourceBlobs,
    builtin_dialect,
    module_resources,
    record_module_resources,
)

__all__ = [
    "PROJECT_DIALECTS",
    "check_resources",
    "make_context",
    "parse_module",
    "print_module",
    "resource_blobs",
]

#: The project's dialects: name -> module that defines them.
PROJECT_DIALECTS: dict[str, str] = {
    "vta": "vta_mlir.dialects.vta",
    "vtaisa": "vta_mlir.dialects.vtaisa",
}


def _project_dialect_factory(name: str, module: str) -> Callable[[], Dialect]:
    """A factory importing ``module`` and returning its ``Dialect`` named ``name``."""

    def factory() -> Dialect:
        mod = importlib.import_module(module)
        for value in vars(mod).values():
            if isinstance(value, Dialect) and value.name == name:
                return value
        raise VTAError(f"module {module} defines no dialect named '{name}'")

    return factory


def make_context(*, allow_unregistered: bool = False) -> Context:
    """A context knowing every upstream dialect of xDSL (and of installed xDSL plugins) and
    the project's dialects, each loaded on first use, with :func:`apply_upstream_fixes`
    applied."""
    apply_upstream_fixes()
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in Universe.get_multiverse().all_dialects.items():
        # The builtin dialect of this context, with a resource store of its own.
        ctx.register_dialect(name, builtin_dialect if name == "builtin" else factory)
    registered = set(ctx.registered_dialect_names)
    for name, module in PROJECT_DIALECTS.items():
        # A plugin entry point may already provide it; registering twice is an error.
        if name not in registered:
            ctx.register_dialect(name, _project_dialect_factory(name, module))
    return ctx


def resource_blobs(ctx: Context) -> ResourceBlobs:
    """The ``dense_resource`` blobs of ``ctx`` (the store of its ``builtin`` dialect)."""
    store = ctx.get_dialect("builtin").get_interface(ResourceBlobs)
    if store is None:
        raise VTAError("the context's builtin dialect has no resource store; use make_context")
    return store


def resource_attrs(attr: Attribute) -> Iterator[DenseResourceAttr]:
    """The ``dense_resource`` attributes in ``attr`` (itself, or inside arrays and
    dictionaries)."""
    if isinstance(attr, DenseResourceAttr):
        yield attr
    elif isinstance(attr, ArrayAttr):
        for element in attr.data:
            yield from resource_attrs(element)
    elif isinstance(attr, DictionaryAttr):
        for element in attr.data.values():
            yield from resource_attrs(element)


def check_resources(module: ModuleOp, blobs: ResourceBlobs | None) -> None:
    """Report (:func:`~vta_mlir.ir.diagnostics.report_error`) the first op with a
    ``dense_resource`` that ``blobs`` cannot give elements for: an unknown key, a dynamic
    shape, a blob of another size than its type needs."""
    for op in module.walk():
        for value in (*op.properties.values(), *op.attributes.values()):
            for attr in resource_attrs(value):
                if (problem := resource_problem(attr, blobs)) is not None:
                    report_error(op, problem)


def parse_module(
    text: str,
    *,
    filename: str = "<string>",
    ctx: Context | None = None,
    line_offset: int = 0,
    allow_implicit_module: bool = True,
) -> ModuleOp:
    """Parse MLIR text into a module whose ops carry ``file:line:col`` locations.

    ``line_offset`` is added to every line number (for one chunk of a split file).  The module
    is not verified; see :func:`vta_mlir.ir.diagnostics.verify_op`.  A syntax error raises
    :class:`~vta_mlir.ir.diagnostics.DiagnosticError` with its position; so does a
    ``dense_resource`` without a valid blob (:func:`check_resources`, with a context of
    :func:`make_context`), at its op.
    """
    if ctx is None:
        ctx = make_context()
    parser = LocatedParser(ctx, text, filename, line_offset=line_offset)
    try:
        module = parser.parse_module(allow_implicit_module)
    except ParseError as exc:
        location = parser.location_at(exc.span.start)
        raise DiagnosticError(Diagnostic(" ".join(exc.msg.split()), location=location)) from exc
    except RecursionError:
        # xDSL's parser recurses once per nesting level (parentheses, brackets, regions); the
        # token it stopped at is where the input became too deep.
        location = parser.location_at(parser.pos)
        raise DiagnosticError(Diagnostic(NESTING_TOO_DEEP, location=location)) from None
    builtin = ctx.get_optional_dialect("builtin")
    blobs = None if builtin is None else builtin.get_interface(ResourceBlobs)
    # A context not made by make_context keeps xDSL's own store, which is not checked.
    if blobs is not None:
        record_module_resources(module, blobs)
        check_resources(module, blobs)
    return module


def print_module(
    module: ModuleOp,
    stream: IO[str] | None = None,
    *,
    generic: bool = False,
    debuginfo: bool = False,
    ctx: Context | None = None,
) -> str:
    """Print ``module`` (custom syntax unless ``generic``; ``loc(...)`` with ``debuginfo``),
    followed by a newline, and the blobs its ``dense_resource`` attributes refer to (in a
    ``{-# dialect_resources ... #-}`` section) from the store of ``ctx``, else from the store
    the module was parsed with.  Writes to ``stream`` when given; returns the text either
    way."""
    out = io.StringIO()
    printer = Printer(stream=out, print_generic_format=generic, print_debuginfo=debuginfo)
    printer.print_op(module)
    # Dialect resources, when any printed op refers to one.
    if ctx is None:
        store = module_resources(module)
        if store is not None:
            printer.print_metadata([Dialect("builtin", [], [], [store])])
    else:
        printer.print_metadata(ctx.loaded_dialects)
    out.write("\n")
    text = out.getvalue()
    if stream is not None:
        stream.write(text)
    return text
