"""Exactness of raising: dependences between the statements of a nest and inside each.

Raising turns one nest into one structured op per statement, run one after another.  That is
loop distribution, exact when no loop around two statements carries a dependence between them:
for every buffer both touch (one of them writing it) and every loop ``L`` around both, some index
position holds exactly ``L``'s variable in every access to the buffer, so different iterations of
``L`` touch different elements.  Inside one statement, the stored buffer may only be read at the
element being stored (a recurrence such as a prefix sum reads another one), and no other buffer
read may be a view of it.
"""

from __future__ import annotations

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.index_arith import LinearForm

from .nest import Access, Statement, describe, memref_root


def _accesses(statement: Statement) -> list[Access]:
    return [statement.store, *statement.loads]


def _separates(loop_iv: object, accesses: list[Access]) -> bool:
    """Whether one index position is exactly ``loop_iv`` in every access."""
    ranks = {len(a.indices) for a in accesses}
    if len(ranks) != 1:
        return False
    exact = LinearForm.of(loop_iv)  # type: ignore[arg-type]
    return any(all(a.indices[p] == exact for a in accesses) for p in range(ranks.pop()))


def check_statement(statement: Statement) -> None:
    """The stored buffer is read only at the stored element, and not through a view."""
    store = statement.store
    root = memref_root(store.memref)
    for load in statement.loads:
        if load.memref == store.memref and load.indices != store.indices:
            report_error(statement.innermost,
                         "loop-carried dependence: the statement reads the buffer it writes at "
                         "another element (a recurrence such as a prefix sum), which no "
                         "structured op computes",
                         notes=[f"written at {describe(store, statement.loops)}, read at "
                                f"{describe(load, statement.loops)}"])
        if load.memref != store.memref and memref_root(load.memref) == root:
            report_error(statement.innermost,
                         "the statement reads a view of the buffer it writes: the elements it "
                         "reads may be the ones it writes")


def check_distribution(statements: list[Statement]) -> None:
    """Splitting the nest into one computation per statement keeps every dependence (see the
    module docstring); a dependence a shared loop carries is an error at that loop."""
    for i, first in enumerate(statements):
        for second in statements[i + 1:]:
            shared = [a.op for a, b in zip(first.loops, second.loops, strict=False)
                      if a.op is b.op]
            if not shared:
                continue
            written = {memref_root(first.store.memref), memref_root(second.store.memref)}
            for root in written:
                accesses = [a for a in _accesses(first) + _accesses(second)
                            if memref_root(a.memref) == root]
                users = {id(s) for s in (first, second)
                         if any(memref_root(a.memref) == root for a in _accesses(s))}
                if len(users) < 2:
                    continue
                loops = max(first.loops, second.loops, key=len)
                for loop in first.loops[: len(shared)]:
                    if not _separates(loop.iv, accesses):
                        report_error(
                            loop.op,
                            "loop-carried dependence between two nests in this loop: one "
                            "writes a buffer the other accesses at other iterations, so they "
                            "cannot be computed one after the other",
                            notes=["accesses " + ", ".join(describe(a, loops)
                                                           for a in accesses)])

