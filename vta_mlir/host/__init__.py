"""The host-program driver: lowering ``vta``-level IR to a linked binary module.

:func:`lower_to_binary` runs a ``vta`` host program (``docs/architecture.md`` §1) against the
command builder and links the result; the ``vta-lower-to-isa`` pass and ``vta-translate --emit=bin``
both call it.
"""

from vta_mlir.host.layout import ARG_ATTR_NAME, RESULT_ATTR_NAME
from vta_mlir.host.lowering import lower_to_binary, select_function

__all__ = ["ARG_ATTR_NAME", "RESULT_ATTR_NAME", "lower_to_binary", "select_function"]
