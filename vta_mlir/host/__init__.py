"""The host-program driver: lowering ``vta``-level IR to a linked ``vtaisa.program``.

:func:`lower_to_isa` runs a ``vta`` host program (``docs/architecture.md`` §1) against the
command builder and emits the linked program as ``vtaisa`` ops; the ``vta-lower-to-isa`` pass
and the driver's lowering of ``vta`` IR both call it.  :func:`lower_to_binary` adds the
verification and serialisation of that program.
"""

from vta_mlir.host.layout import ARG_ATTR_NAME, RESULT_ATTR_NAME
from vta_mlir.host.lowering import lower_to_binary, lower_to_isa, select_function

__all__ = ["ARG_ATTR_NAME", "RESULT_ATTR_NAME", "lower_to_binary", "lower_to_isa",
           "select_function"]
