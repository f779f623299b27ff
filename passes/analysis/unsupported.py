"""The one error of the passes' analyses: an op that cannot be lowered to VTA, and why.

An analysis raises :class:`Unsupported` with the reason; the pass reports it at the op as one
error line (:func:`report_unsupported`) before anything is rewritten, so a module is either
fully rewritten or reported untouched.
"""

from __future__ import annotations

from typing import NoReturn

from xdsl.ir import Operation

from vta_mlir.ir.diagnostics import report_error

__all__ = ["Unsupported", "report_unsupported"]


class Unsupported(Exception):
    """Why an op cannot be lowered to VTA (the message completes the pass's sentence)."""


def report_unsupported(op: Operation, what: str, reason: Unsupported) -> NoReturn:
    """Stop with ``'<op>' op <what>: <reason>`` at ``op``."""
    report_error(op, f"{what}: {reason}")
