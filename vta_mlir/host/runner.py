"""Running a compiled host program (:mod:`.compiler`) and reporting its errors at their ops.

The generated function is compiled under the file name :data:`FILENAME`; each of its lines
belongs to one op.  When the command builder (or index arithmetic) fails while the program
runs, the traceback's innermost generated frame names the line, hence the op, where the
error is reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType

from xdsl.ir import Operation

from vta_mlir.errors import RuntimeBuildError
from vta_mlir.ir.diagnostics import DiagnosticError, report_error

__all__ = ["FILENAME", "HostProgram"]

#: The file name of the generated code (how its frames are found in a traceback).
FILENAME = "<vta host program>"


@dataclass
class HostProgram:
    """A compiled host program: call :meth:`run` with a command builder."""

    function: Callable[..., None]
    line_ops: list[Operation]
    source: str
    #: The names of the layers its ``layer`` calls select, by index.
    layers: list[str] = field(default_factory=list)
    #: The ``vta.host`` ops its ``host_step`` calls name, by index.
    host_ops: list[Operation] = field(default_factory=list)

    def op_at(self, tb: TracebackType | None) -> Operation:
        """The op whose generated line was executing in traceback ``tb``."""
        found = self.line_ops[0]
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == FILENAME:
                found = self.line_ops[tb.tb_lineno - 1]
            tb = tb.tb_next
        return found

    def run(self, builder: object) -> None:
        """Run the program against ``builder``; errors are reported at the op that caused
        them (raises :class:`~vta_mlir.ir.diagnostics.DiagnosticError`)."""
        try:
            self.function(builder)
        except DiagnosticError:
            raise
        except ZeroDivisionError as e:
            report_error(self.op_at(e.__traceback__), "division by zero")
        except (RuntimeBuildError, ArithmeticError, ValueError) as e:
            report_error(self.op_at(e.__traceback__), str(e))
