"""Which ``arith`` op each VTA ALU operation is, shared by ``vta-pack`` (recognising
epilogues, writing the normal form) and ``vta-tensorize`` (turning one-op element-wise generics
into ``vta.alu``)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Operation

from vta_mlir.dialects.vta import AluKind

__all__ = ["ALU_KINDS", "ARITH_ALU_OPS", "COMMUTATIVE"]

#: The ``arith`` op that expresses each ALU operation in the normal form.
ALU_KINDS: dict[AluKind, type[Operation]] = {
    AluKind.MIN: arith.MinSIOp,
    AluKind.MAX: arith.MaxSIOp,
    AluKind.ADD: arith.AddiOp,
    AluKind.SHR: arith.ShRSIOp,
    AluKind.MUL: arith.MuliOp,
}
#: The ``arith`` ops of an element-wise body: the ALU operation each becomes, and whether its
#: second operand is negated first (``x - c`` is ``x + (-c)``, ``x << c`` is ``x >> -c``).
ARITH_ALU_OPS: dict[type[Operation], tuple[AluKind, bool]] = {
    arith.AddiOp: (AluKind.ADD, False),
    arith.SubiOp: (AluKind.ADD, True),
    arith.MuliOp: (AluKind.MUL, False),
    arith.ShRSIOp: (AluKind.SHR, False),
    arith.ShLIOp: (AluKind.SHR, True),
    arith.MaxSIOp: (AluKind.MAX, False),
    arith.MinSIOp: (AluKind.MIN, False),
}
COMMUTATIVE = frozenset({AluKind.MIN, AluKind.MAX, AluKind.ADD, AluKind.MUL})
