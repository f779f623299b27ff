"""Pass pipelines: the pass registry, both pipeline syntaxes, running a pipeline, pass plugins.

* :func:`available_passes` — every pass by flag name: xDSL's (and those of installed xDSL
  plugins), then vta-mlir's built-in and registered ones (:func:`vta_mlir.passes.get_all_passes`).
* :func:`mlir_pipeline_to_xdsl` — MLIR's ``builtin.module(a, func.func(b{x=1}))`` to xDSL's flat
  ``a,b{x=1}`` (a flat list comes back normalized), :func:`build_pipeline` — that list to an
  xDSL ``PassPipeline``.
* :func:`run_pipeline` — run a pipeline (text in either syntax, or pass instances) on a module,
  verifying the IR between passes; failures are :class:`~vta_mlir.errors.VTAError` s, those
  about an op :class:`~vta_mlir.ir.diagnostics.DiagnosticError` s placed at it.
* :func:`load_pass_plugin` — import a user module (a ``.py`` file or a module name) whose passes
  call :func:`vta_mlir.passes.register_pass`: ``vta-opt --load-pass-plugin``, and the
  :data:`PASS_PLUGINS_ENV` variable every tool honours.
* :func:`describe_exception` — the one-line report of any exception, and whether it is an
  internal error (a bug) rather than a problem with the input; :func:`failing_op` — the op
  an xDSL pattern was rewriting (or verifying) when it raised.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError

import vta_mlir.passes as vta_passes
from vta_mlir.errors import VTAError
from vta_mlir.ir.collection import fewer_collections
from vta_mlir.ir.diagnostics import (
    NESTING_TOO_DEEP,
    DiagnosticError,
    one_line,
    op_diagnostic,
    verify_op,
)

__all__ = [
    "PASS_PLUGINS_ENV",
    "ErrorReport",
    "PassFactory",
    "PipelineCallback",
    "apply_pipeline",
    "available_passes",
    "build_pipeline",
    "describe_exception",
    "failing_op",
    "load_pass_plugin",
    "load_pass_plugins_from_env",
    "mlir_pipeline_to_xdsl",
    "run_pipeline",
]

PassFactory = Callable[[], type[ModulePass]]
PipelineCallback = Callable[[ModulePass | None, ModuleOp, ModulePass | None], None]

#: Pass plugins to import before anything else, separated by ``os.pathsep``.
PASS_PLUGINS_ENV = "VTA_MLIR_PASS_PLUGINS"


# --------------------------------------------------------------------------------------------
# Describing failures
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ErrorReport:
    """What to print for an exception: the message, its source position if known, and
    whether it is an internal error (a bug) rather than a problem with the input."""

    message: str
    location: str | None = None
    internal: bool = False

    def line(self, prog: str) -> str:
        return f"{self.location or prog}: error: {self.message}"


def describe_exception(exc: BaseException) -> ErrorReport:
    """The one-line report of ``exc``."""
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    if isinstance(exc, DiagnosticError):
        location = exc.diagnostic.location
        return ErrorReport(exc.diagnostic.message, str(location) if location else None)
    if isinstance(exc, ParseError):
        return ErrorReport(one_line(exc.msg), str(exc.span.get_location()))
    if isinstance(exc, ArgSpecParseError):
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        return ErrorReport(f"invalid pass pipeline: {lines[-1] if lines else exc}")
    if isinstance(exc, VTAError | DiagnosticException):
        return ErrorReport(one_line(str(exc)) or type(exc).__name__)
    if isinstance(exc, NotImplementedError):
        return ErrorReport(f"not supported: {one_line(str(exc)) or 'not implemented'}")
    if isinstance(exc, RecursionError):
        # The parser reports deep nesting at its position; this covers the recursive walks
        # after it (verifier, printer, passes) on IR built or nested by other means.
        return ErrorReport(NESTING_TOO_DEEP)
    message = one_line(str(exc))
    detail = f": {message}" if message else ""
    return ErrorReport(f"internal error: {type(exc).__name__}{detail}", internal=True)


# --------------------------------------------------------------------------------------------
# The registry and the pipeline syntaxes
# --------------------------------------------------------------------------------------------


def available_passes() -> dict[str, PassFactory]:
    """xDSL's passes (and those of installed xDSL plugins), then the project's, by name."""
    from xdsl.universe import Universe

    passes = dict(Universe.get_multiverse().all_passes)
    # Looked up on the module at each call, so a replaced registry function is honoured.
    passes.update(vta_passes.get_all_passes())
    return passes


def _split_top_level(text: str, what: str) -> list[str]:
    """Split ``text`` on commas outside ``()``, ``{}``, ``[]`` and quotes."""
    items: list[str] = []
    depth: list[str] = []
    closing = {"(": ")", "{": "}", "[": "]"}
    quote = escaped = False
    start = 0
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quote = False
        elif ch == '"':
            quote = True
        elif ch in closing:
            depth.append(closing[ch])
        elif ch in ")}]":
            if not depth or depth.pop() != ch:
                raise VTAError(f"invalid {what} '{text}': unbalanced '{ch}'")
        elif ch == "," and not depth:
            items.append(text[start:i])
            start = i + 1
    if depth or quote:
        missing = '"' if quote else depth[-1]
        raise VTAError(f"invalid {what} '{text}': missing '{missing}'")
    items.append(text[start:])
    return items


def mlir_pipeline_to_xdsl(pipeline: str) -> str:
    """Turn an MLIR pipeline (``builtin.module(a, func.func(b{x=1 y=2}))``) into xDSL's flat
    list (``a,b{x=1 y=2}``): anchors are dropped, nested lists flattened and blanks around
    the separators removed.  A flat list (xDSL's ``-p`` syntax) comes back normalized."""
    passes: list[str] = []

    def walk(text: str) -> None:
        if not text.strip():
            return
        for item in _split_top_level(text, "pass pipeline"):
            item = item.strip()
            if not item:
                raise VTAError(f"invalid pass pipeline '{pipeline}': empty pass name")
            brace = item.find("{")
            paren = item.find("(")
            bracket = item.find("[")
            # `anchor(...)`: an op name followed by a nested pipeline.
            first = min(i for i in (brace, paren, bracket, len(item)) if i != -1)
            if paren != -1 and paren == first:
                if not item.endswith(")"):
                    raise VTAError(
                        f"invalid pass pipeline '{pipeline}': unexpected text after '{item}'"
                    )
                walk(item[paren + 1 : -1])
            else:
                name, sep, rest = item.partition("{")
                passes.append(name.strip() + sep + rest)

    walk(pipeline)
    return ",".join(passes)


def build_pipeline(
    spec: str,
    passes: Mapping[str, PassFactory],
    callback: PipelineCallback | None = None,
) -> PassPipeline:
    """A pipeline from an xDSL-syntax ``spec``; unknown passes and bad options raise
    :class:`VTAError` naming them.  The values of a named pipeline's ``insert-after`` option
    need no quotes (:func:`vta_mlir.ir.stages.quote_insert_after`)."""
    from xdsl.utils.arg_spec import parse_pipeline

    from vta_mlir.ir.stages import quote_insert_after

    try:
        # `insert-after=STAGE:PASS` values are not tokens of xDSL's syntax unless quoted.
        specs = list(parse_pipeline(quote_insert_after(spec)))
    except ArgSpecParseError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        raise VTAError(f"invalid pass pipeline '{spec}': {lines[-1] if lines else exc}") from None
    unknown = [s.name for s in specs if s.name not in passes]
    if unknown:
        names = ", ".join(f"'{n}'" for n in unknown)
        raise VTAError(f"unknown pass {names} (vta-opt --list-passes shows them all)")
    instances: list[ModulePass] = []
    for s in specs:
        try:
            instances.append(passes[s.name]().from_pass_spec(s))
        except (ValueError, TypeError) as exc:
            raise VTAError(f"invalid options for pass '{s.name}': {exc}") from exc
    return PassPipeline(tuple(instances), callback)


# --------------------------------------------------------------------------------------------
# Running a pipeline
# --------------------------------------------------------------------------------------------


def _verifier(verify_each: bool) -> PipelineCallback | None:
    """Verifies the input before the first pass and the IR after every pass."""
    if not verify_each:
        return None

    def verify(_previous: ModulePass | None, module: ModuleOp, _next: ModulePass | None) -> None:
        verify_op(module)

    return verify


def failing_op(exc: BaseException) -> Operation | None:
    """The op xDSL was rewriting or verifying when ``exc`` was raised, if any.

    xDSL's pattern driver and verifier report an exception through the op's ``emit_error``,
    which re-raises it; the traceback then holds that call's frame, whose ``self`` is the op.
    The last such frame is the innermost (a walker run inside a pattern re-raises through the
    outer op's ``emit_error`` too).
    """
    emit_error = Operation.emit_error.__code__
    op: Operation | None = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is emit_error:
            candidate = tb.tb_frame.f_locals.get("self")
            if isinstance(candidate, Operation):
                op = candidate
        tb = tb.tb_next
    return op


def apply_pipeline(pipeline: PassPipeline, module: ModuleOp, ctx: Context) -> None:
    """Apply ``pipeline`` to ``module`` in place.

    An exception a rewrite pattern raised for a known op becomes a
    :class:`~vta_mlir.ir.diagnostics.DiagnosticError` at that op; any other problem with the
    input (an xDSL diagnostic, an unsupported construct) a :class:`VTAError`.  Internal errors
    (bugs in a pass) propagate unchanged, with their traceback.
    """
    try:
        with fewer_collections():
            pipeline.apply(ctx, module)
    except (DiagnosticError, KeyboardInterrupt):
        raise
    except Exception as exc:
        report = describe_exception(exc)
        if report.internal:
            raise
        op = failing_op(exc)
        if op is not None:
            raise DiagnosticError(op_diagnostic(op, report.message)) from None
        if isinstance(exc, VTAError):
            raise
        raise VTAError(report.message) from None


def _as_passes(pipeline: ModulePass | Sequence[ModulePass]) -> tuple[ModulePass, ...]:
    items = (pipeline,) if isinstance(pipeline, ModulePass) else tuple(pipeline)
    for item in items:
        if not isinstance(item, ModulePass):
            what = f"the class {item.__name__}" if isinstance(item, type) else repr(item)
            raise TypeError(f"a pass pipeline holds ModulePass instances, not {what}")
    return items


def run_pipeline(
    module: ModuleOp,
    pipeline: str | ModulePass | Sequence[ModulePass],
    *,
    ctx: Context | None = None,
    verify_each: bool = True,
) -> ModuleOp:
    """Run ``pipeline`` on ``module`` in place and return the module.

    ``pipeline`` is text in MLIR's syntax (``"builtin.module(cse, vta-lower-to-isa{base=4096})"``)
    or xDSL's (``"cse,vta-lower-to-isa{base=4096}"``), naming any pass of
    :func:`available_passes`, or pass instances (``[MyPass(), CSEPass()]``).  With
    ``verify_each`` the input is verified first and the IR again after every pass.  ``ctx``
    is the context passes may consult (default: :func:`~vta_mlir.ir.context.make_context`).
    """
    from vta_mlir.ir.context import make_context

    if not isinstance(module, ModuleOp):
        raise TypeError(f"run_pipeline needs a builtin.module, not {type(module).__name__}")
    callback = _verifier(verify_each)
    if isinstance(pipeline, str):
        built = build_pipeline(mlir_pipeline_to_xdsl(pipeline), available_passes(), callback)
    else:
        built = PassPipeline(_as_passes(pipeline), callback)
    apply_pipeline(built, module, make_context() if ctx is None else ctx)
    return module


# --------------------------------------------------------------------------------------------
# Pass plugins
# --------------------------------------------------------------------------------------------

#: Plugins imported from a file, by resolved path: a file is executed once per process.
_file_plugins: dict[Path, ModuleType] = {}
#: The passes each plugin registered when it was imported, by module name.
_plugin_passes: dict[str, dict[str, type[ModulePass]]] = {}


def _is_path(spec: str) -> bool:
    return spec.endswith(".py") or os.sep in spec or (os.altsep is not None and os.altsep in spec)


def _import_file(path: Path) -> ModuleType:
    resolved = path.resolve()
    if resolved in _file_plugins:
        return _file_plugins[resolved]
    if not resolved.is_file():
        raise FileNotFoundError("No such file or directory")
    # A name of its own per file, so that two plugins called `passes.py` do not collide.
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:8]
    stem = re.sub(r"\W", "_", resolved.stem)
    name = f"vta_mlir_plugin_{stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ImportError(f"'{path}' cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    # Registered before running it: dataclasses look their module up in sys.modules.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    _file_plugins[resolved] = module
    return module


def load_pass_plugin(spec: str, *, origin: str | None = None) -> ModuleType:
    """Import the pass plugin ``spec`` — a Python file (a path ending in ``.py``) or an
    importable module name — and return the module.

    A plugin registers its passes with :func:`vta_mlir.passes.register_pass` when imported;
    they are then listed and usable next to the built-in ones.  A plugin is imported once per
    process; loading it again registers its passes again if they were dropped since (by the
    end of a :func:`vta_mlir.passes.scoped_registry` block).  Any failure (missing file,
    exception while importing, a plugin registering no pass) raises :class:`VTAError` with a
    one-line message and leaves the registry as it was; ``origin`` says where the name came
    from.
    """
    spec = spec.strip()
    where = f" (from {origin})" if origin else ""
    if not spec:
        raise VTAError(f"empty pass plugin name{where}")
    as_file = _is_path(spec)
    # Only a first import can be expected to register something.
    fresh = Path(spec).resolve() not in _file_plugins if as_file else spec not in sys.modules
    with vta_passes.scoped_registry() as scope:
        try:
            module = _import_file(Path(spec)) if as_file else importlib.import_module(spec)
        except KeyboardInterrupt:
            raise
        except (Exception, SystemExit) as exc:
            if isinstance(exc, FileNotFoundError | ModuleNotFoundError | VTAError):
                reason = one_line(str(exc))
            elif isinstance(exc, SystemExit):
                reason = f"it exited while being imported (status {exc.code})"
            else:
                reason = f"{type(exc).__name__}: {one_line(str(exc))}"
            # Chained: from Python, the plugin's own traceback stays available as the cause.
            raise VTAError(f"cannot load pass plugin '{spec}'{where}: {reason}") from exc
        if fresh:
            added = scope.added()
            if not added:
                if as_file:
                    # Forgotten, so that a corrected file is executed on the next attempt.
                    _file_plugins.pop(Path(spec).resolve(), None)
                    sys.modules.pop(module.__name__, None)
                raise VTAError(
                    f"pass plugin '{spec}'{where} registers no pass (decorate its ModulePass "
                    "with vta_mlir.passes.register_pass)"
                )
            _plugin_passes[module.__name__] = added
        scope.keep()
    known = vta_passes.get_all_passes()
    for name, pass_class in _plugin_passes.get(module.__name__, {}).items():
        if name not in known:
            vta_passes.register_pass(pass_class)
    return module


def load_pass_plugins_from_env(environ: Mapping[str, str] | None = None) -> list[ModuleType]:
    """Load the plugins :data:`PASS_PLUGINS_ENV` names (separated by ``os.pathsep``)."""
    value = (os.environ if environ is None else environ).get(PASS_PLUGINS_ENV, "")
    return [
        load_pass_plugin(item, origin=PASS_PLUGINS_ENV)
        for item in value.split(os.pathsep)
        if item.strip()
    ]
