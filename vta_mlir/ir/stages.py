"""Named pipelines made of stages (``vta-to-isa``): watching their stages, and the syntax of
the ``insert-after`` option that puts a registered pass after one of them.

* :func:`observe_stages` — while its block runs, every stage a named pipeline runs is
  reported to a callback the way a pass of an xDSL ``PassPipeline`` is: ``(None, module,
  stage)`` before it, ``(stage, module, None)`` after it.  ``vta-opt
  --mlir-print-ir-after-all`` / ``--mlir-print-ir-before-all`` print the IR there, so a named
  pipeline shows every stage it ran, not only its end.  :func:`report_stage` is what a named
  pipeline calls.
* :func:`quote_insert_after` — xDSL's pipeline lexer takes an option value only as a number,
  an identifier (``[A-Za-z0-9_-]+``) or a quoted string, so ``insert-after=vta-pack:my-pass``
  (a ``:``) or ``insert-after=vta-pack:my-pass{factor=2}`` (braces, maybe spaces) would be a
  syntax error; this quotes each such value before xDSL reads the pipeline, which leaves the
  quoted spelling working too.
* :func:`parse_insertions` — the ``STAGE:PASS`` entries of the option, as pass instances by
  stage, every name checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from vta_mlir.errors import VTAError

__all__ = [
    "INSERT_AFTER",
    "StageCallback",
    "observe_stages",
    "parse_insertions",
    "quote_insert_after",
    "report_stage",
]

StageCallback = Callable[[ModulePass | None, ModuleOp, ModulePass | None], None]

#: The option of a named pipeline that inserts passes after its stages.
INSERT_AFTER = "insert-after"

_observer: ContextVar[StageCallback | None] = ContextVar("vta_mlir_stage_observer", default=None)


@contextmanager
def observe_stages(callback: StageCallback | None) -> Iterator[None]:
    """Report every stage a named pipeline runs inside the block to ``callback`` (``None``:
    to nobody, as outside any block)."""
    token = _observer.set(callback)
    try:
        yield
    finally:
        _observer.reset(token)


def report_stage(previous: ModulePass | None, module: ModuleOp,
                 following: ModulePass | None) -> None:
    """Tell the callback of the enclosing :func:`observe_stages` block, if any, that the stage
    ``previous`` has run or that ``following`` is about to."""
    callback = _observer.get()
    if callback is not None:
        callback(previous, module, following)


# --------------------------------------------------------------------------------------------
# The option's syntax
# --------------------------------------------------------------------------------------------


def _string_end(text: str, start: int) -> int:
    """The index after the string literal opening at ``start`` (or the end of ``text``)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)


def _value_end(text: str, start: int) -> int:
    """The index after one value of a list starting at ``start``: up to a ``,``, a blank or
    the ``}`` closing the option list, outside the value's own braces and strings."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch == '"':
            i = _string_end(text, i)
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and (ch == "," or ch.isspace()):
            return i
        i += 1
    return i


def _quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def quote_insert_after(spec: str) -> str:
    """``spec`` (xDSL's flat pipeline syntax) with every value of an ``insert-after=`` option
    quoted: ``vta-to-isa{insert-after=vta-pack:a{x=1 y=2},vta-tile:b}`` becomes
    ``vta-to-isa{insert-after="vta-pack:a{x=1 y=2}","vta-tile:b"}``.  Values quoted already
    and the rest of the text are left as they are."""
    key = f"{INSERT_AFTER}="
    out: list[str] = []
    i = 0
    while i < len(spec):
        ch = spec[i]
        if ch == '"':
            end = _string_end(spec, i)
            out.append(spec[i:end])
            i = end
            continue
        # An option name starts an option list (`{`) or follows the blank after another.
        if spec.startswith(key, i) and i > 0 and (spec[i - 1] == "{" or spec[i - 1].isspace()):
            out.append(key)
            i += len(key)
            while True:
                end = _value_end(spec, i)
                value = spec[i:end]
                quoted = value.startswith('"') and _string_end(value, 0) == len(value)
                out.append(value if quoted else _quote(value))
                i = end
                if i < len(spec) and spec[i] == ",":
                    out.append(",")
                    i += 1
                    continue
                break
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_insertions(
    owner: str, entries: Sequence[str], stages: Sequence[str]
) -> dict[str, list[ModulePass]]:
    """The passes of ``entries`` (``STAGE:PASS``, ``PASS`` a registered pass with its options
    in xDSL's syntax, ``my-pass{factor=2}``) by the stage they follow, in the order given.

    An unknown stage or pass, or an entry without both, is a :class:`VTAError` naming it and
    the stages of ``owner`` (the named pipeline, for the message)."""
    from vta_mlir.ir.pipeline import available_passes, build_pipeline

    valid = f"the stages of {owner} are {', '.join(stages)}"
    by_stage: dict[str, list[ModulePass]] = {}
    passes = available_passes() if entries else {}
    for entry in entries:
        stage, sep, text = (part.strip() for part in entry.partition(":"))
        if not sep or not stage or not text:
            raise VTAError(f"{owner}: {INSERT_AFTER} entry '{entry}' is not STAGE:PASS; {valid}")
        if stage not in stages:
            raise VTAError(f"{owner}: unknown stage '{stage}' in {INSERT_AFTER}; {valid}")
        name = text.partition("{")[0].strip()
        if name not in passes:
            raise VTAError(
                f"{owner}: unknown pass '{name}' in {INSERT_AFTER}={stage}:{text} (vta-opt "
                f"--list-passes shows them all); {valid}"
            )
        built = build_pipeline(text, passes).passes
        if len(built) != 1:
            raise VTAError(
                f"{owner}: {INSERT_AFTER} entry '{entry}' names {len(built)} passes, not one "
                "(give one STAGE:PASS entry per pass)"
            )
        by_stage.setdefault(stage, []).append(built[0])
    return by_stage
