"""Recognising the computation of a statement: a fill, an element-wise or a contraction /
convolution ``linalg.generic``, or a copy into the interior of a padded buffer.

Every recognised computation is the statement's exact equivalent: the loops run from 0 with
step 1 over whole dimensions of the buffers they index (so a structured op, whose domain comes
from the shapes, has the same iterations), the stored buffer is written once per element of it
(its indices are distinct loop variables), and a loop that does not index the stored buffer is a
reduction by ``arith.addi`` of the stored element (integer addition wraps, so any order of the
reduction gives the same sum).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.index_arith import LinearForm

from .nest import Access, Loop, Statement, describe, shape_of


@dataclass(frozen=True)
class Fill:
    """``linalg.fill ins(value) outs(buffer)``."""

    statement: Statement
    value: SSAValue


@dataclass(frozen=True)
class Generic:
    """A ``linalg.generic`` over ``dims`` (parallel first, in the output's order, then the
    reductions in loop order); ``inputs`` are the distinct loads other than the output's."""

    statement: Statement
    dims: tuple[Loop, ...]
    reductions: frozenset[SSAValue]
    inputs: tuple[Access, ...]


@dataclass(frozen=True)
class PaddedCopy:
    """The interior of ``target`` at ``offsets``, of ``source``'s shape, copied from it (all of
    ``target`` when the offsets are 0 and the shapes equal: a plain ``memref.copy``)."""

    statement: Statement
    source: SSAValue
    offsets: tuple[int, ...]


Computation = Fill | Generic | PaddedCopy


def _bare(form: LinearForm) -> SSAValue | None:
    """The loop variable ``form`` is exactly, if it is one."""
    if form.const == 0 and len(form.terms) == 1:
        ((key, coeff),) = form.terms.items()
        if coeff == 1:
            return key  # type: ignore[return-value]
    return None


def _check_loops(statement: Statement) -> None:
    for loop in statement.loops:
        if loop.lower != 0 or loop.step != 1:
            report_error(loop.op, f"loop from {loop.lower} with step {loop.step}: only loops "
                                  "from 0 with step 1 over whole dimensions are raised")


def _check_domain(statement: Statement, accesses: list[Access]) -> None:
    """Every loop indexes some buffer dimension of its trip count, every dimension a loop
    indexes has its trip count, every other index stays in its dimension."""
    trips = {loop.iv: loop.trip_count for loop in statement.loops}
    used: set[SSAValue] = set()
    for access in accesses:
        shape = shape_of(access.memref)
        for p, form in enumerate(access.indices):
            iv = _bare(form)
            if iv is not None:
                used.add(iv)
                if trips[iv] != shape[p]:
                    report_error(statement.innermost,
                                 f"a loop of {trips[iv]} iterations indexes dimension {p} of "
                                 f"size {shape[p]}: only loops over whole dimensions are raised",
                                 notes=[f"access {describe(access, statement.loops)}"])
                continue
            low = form.const + sum(min(0, c * (trips[k] - 1)) for k, c in form.terms.items())
            high = form.const + sum(max(0, c * (trips[k] - 1)) for k, c in form.terms.items())
            if low < 0 or high >= shape[p]:
                report_error(statement.innermost,
                             f"index {p} ranges over [{low}, {high}], outside the dimension "
                             f"of size {shape[p]}",
                             notes=[f"access {describe(access, statement.loops)}"])
    for loop in statement.loops:
        if loop.iv not in used:
            report_error(loop.op, "this loop is no dimension of any buffer the statement "
                                  "accesses: only loops over buffer dimensions are raised")


def recognize(statement: Statement) -> Computation:
    """The computation of ``statement``; anything else is an error at its loop."""
    _check_loops(statement)
    store = statement.store
    ivs = [loop.iv for loop in statement.loops]
    stored = [_bare(form) for form in store.indices]
    value_op = statement.value.owner
    if not statement.loads and not statement.compute or isinstance(value_op, arith.ConstantOp):
        return _fill(statement, stored, ivs)
    if any(iv is None for iv in stored) or len(set(stored)) != len(stored):
        return _padded_copy(statement)
    reductions = frozenset(iv for iv in ivs if iv not in stored)
    outputs = [a for a in statement.loads if a.same_element(store)]
    if reductions:
        _check_reduction(statement, outputs)
    elif not statement.compute and len(statement.loads) == 1 \
            and statement.value == statement.loads[0].op.results[0]:
        return _padded_copy(statement)  # a plain copy
    _check_domain(statement, [store, *statement.loads])
    inputs: list[Access] = []
    for load in statement.loads:
        if not load.same_element(store) and not any(load.same_element(i) for i in inputs):
            inputs.append(load)
    by_iv = {loop.iv: loop for loop in statement.loops}
    dims = tuple(by_iv[iv] for iv in stored if iv is not None) + tuple(
        loop for loop in statement.loops if loop.iv in reductions)
    return Generic(statement, dims, reductions, tuple(inputs))


def _fill(statement: Statement, stored: list[SSAValue | None], ivs: list[SSAValue]) -> Fill:
    if statement.loads:
        report_error(statement.innermost, "the stored value does not depend on the loads")
    value = statement.value
    if isinstance(value.owner, Operation) and statement.compute \
            and not isinstance(value.owner, arith.ConstantOp):
        report_error(statement.innermost, "the stored value is computed from no load: only "
                                          "constants are raised to a fill")
    if sorted(map(id, stored)) != sorted(map(id, ivs)) or None in stored:
        report_error(statement.innermost,
                     "a store of a constant is raised to a fill of the whole buffer: its indices "
                     "must be the loop variables, each once",
                     notes=[f"store {describe(statement.store, statement.loops)}"])
    _check_domain(statement, [statement.store])
    return Fill(statement, value)


def _check_reduction(statement: Statement, outputs: list[Access]) -> None:
    """A reduction loop must accumulate with ``arith.addi`` into the stored element."""
    value_op = statement.value.owner
    if not outputs:
        report_error(statement.innermost,
                     "the stored element does not depend on the loops around the store that "
                     "do not index it: it is overwritten at each of their iterations")
    out = outputs[0].op.results[0]
    if not isinstance(value_op, arith.AddiOp) or out not in value_op.operands:
        found = value_op.name if isinstance(value_op, Operation) else "a block argument"
        report_error(statement.innermost,
                     f"a reduction by '{found}': only sums (arith.addi of the stored element, "
                     "the contractions and convolutions VTA computes) are raised")
    uses = sum(1 for op in statement.compute for operand in op.operands
               if any(operand == o.op.results[0] for o in outputs))
    if uses != 1 or value_op.operands[0] == value_op.operands[1]:
        report_error(statement.innermost,
                     "the accumulated element is used other than once, by the sum: not a "
                     "contraction")


def _padded_copy(statement: Statement) -> PaddedCopy:
    """A copy whose store indices are the load's loop variables plus constants."""
    store = statement.store
    refusal = ("the store's indices are not distinct loop variables: only copies into the "
               "interior of a buffer (indices = loop variables + constants) are raised")
    if statement.compute or len(statement.loads) != 1:
        report_error(statement.innermost, refusal,
                     notes=[f"store {describe(store, statement.loops)}"])
    (load,) = statement.loads
    offsets: list[int] = []
    if len({_bare(i) for i in load.indices}) != len(load.indices):
        report_error(statement.innermost, refusal)
    for stored, loaded in zip(store.indices, load.indices, strict=False):
        iv = _bare(loaded)
        if len(store.indices) != len(load.indices) or iv is None \
                or (stored - LinearForm.of(iv)).terms or stored.const < 0:  # type: ignore[arg-type]
            report_error(statement.innermost, refusal,
                         notes=[f"{describe(load, statement.loops)} stored at "
                                f"{describe(store, statement.loops)}"])
        offsets.append(stored.const)
    _check_domain(statement, [load, store])
    return PaddedCopy(statement, load.memref, tuple(offsets))
