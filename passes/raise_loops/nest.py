"""Reading a loop nest: constant bounds, statements, and their accesses as linear forms of the
loop variables.

A *nest* is an outermost ``affine.for`` or ``scf.for`` of a function body.  Its loops must have
constant bounds and no loop-carried values; the ops of a loop body are index arithmetic,
inner loops, loads, stores and the computation between them.  Each store is one
:class:`Statement`: the loops around it and the backward slice of its stored value inside the
innermost of them (loads and computation).  Indices are :class:`LinearForm` s whose keys are the
loops' induction variables, read from ``affine.load`` / ``affine.store`` maps and operands and
from the index arithmetic (``arith`` on ``index``, ``affine.apply``) feeding
``memref.load`` / ``memref.store``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType
from xdsl.ir import Block, Operation, SSAValue

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.index_arith import LinearForm, linear_affine_expr, linear_form_of_op

LOOP_OPS = (affine.ForOp, scf.ForOp)
LOAD_OPS = (affine.LoadOp, memref.LoadOp)
STORE_OPS = (affine.StoreOp, memref.StoreOp)
TERMINATORS = ("affine.yield", "scf.yield")


@dataclass(frozen=True)
class Loop:
    """One loop of a nest: ``for iv = lower to upper step step``."""

    op: Operation
    iv: SSAValue
    lower: int
    upper: int
    step: int

    @property
    def trip_count(self) -> int:
        return max(0, -(-(self.upper - self.lower) // self.step))


@dataclass(frozen=True)
class Access:
    """A load or a store: the memref and one linear form of the loop variables per index."""

    op: Operation
    memref: SSAValue
    indices: tuple[LinearForm, ...]

    def same_element(self, other: Access) -> bool:
        return self.memref == other.memref and self.indices == other.indices


@dataclass
class Statement:
    """A store inside a nest with what it needs: the loops around it (outermost first), its
    loads and the computation of the stored value (program order)."""

    store: Access
    loops: tuple[Loop, ...]
    loads: list[Access] = field(default_factory=list)
    compute: list[Operation] = field(default_factory=list)

    @property
    def value(self) -> SSAValue:
        return self.store.op.operands[0]

    @property
    def innermost(self) -> Operation:
        return self.loops[-1].op


def _constant_int(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value.type, (IndexType,
                                                                             IntegerType)):
        return owner.value.value.data  # type: ignore[union-attr]
    return None


def _affine_bound(op: affine.ForOp, name: str) -> int | None:
    amap = op.properties[name].data  # type: ignore[union-attr]
    if amap.num_dims or amap.num_symbols or len(amap.results) != 1:
        return None
    return amap.eval([], [])[0]


def read_loop(op: Operation) -> Loop:
    """The loop ``op`` with its constant bounds; a loop with other bounds or loop-carried
    values is an error at it."""
    if isinstance(op, affine.ForOp):
        lower, upper = _affine_bound(op, "lowerBoundMap"), _affine_bound(op, "upperBoundMap")
        step: int | None = op.step.value.data
        carried = bool(op.inits)
    else:
        assert isinstance(op, scf.ForOp)
        lower, upper, step = (_constant_int(v) for v in (op.lb, op.ub, op.step))
        carried = bool(op.iter_args)
    if carried:
        report_error(op, "loop-carried values (iter_args) are not raised: a scalar reduction "
                         "in registers is not a computation on memrefs")
    if lower is None or upper is None or step is None:
        report_error(op, "only loops with constant bounds and step are raised")
    if step <= 0:
        report_error(op, f"the loop's step must be positive, not {step}")
    return Loop(op, op.regions[0].blocks[0].args[0], lower, upper, step)


class NestReader:
    """Reads the statements of one nest (see the module docstring)."""

    def __init__(self, root: Operation) -> None:
        self.root = root
        self.statements: list[Statement] = []
        #: Linear forms of the index values defined inside the nest (and of loop variables).
        self.forms: dict[SSAValue, LinearForm | None] = {}

    def read(self) -> list[Statement]:
        self._loop(self.root, ())
        return self.statements

    def _loop(self, op: Operation, outer: tuple[Loop, ...]) -> None:
        loop = read_loop(op)
        self.forms[loop.iv] = LinearForm.of(loop.iv)
        self._block(op.regions[0].blocks[0], (*outer, loop))

    def _block(self, block: Block, loops: tuple[Loop, ...]) -> None:
        for op in block.ops:
            if isinstance(op, LOOP_OPS):
                self._loop(op, loops)
            elif isinstance(op, STORE_OPS):
                self.statements.append(self._statement(op, loops))
            elif op.name in TERMINATORS:
                if op.operands:
                    report_error(op, "loops yielding values are not raised")
            elif op.regions:
                report_error(op, f"'{op.name}' inside a loop nest is not raised: only loops, "
                                 "loads, stores and arithmetic can be")
            elif self._is_index(op):
                forms = [self._form(v) for v in op.operands]
                self.forms[op.results[0]] = linear_form_of_op(op, forms)
            elif isinstance(op, LOAD_OPS) or not _has_effects(op):
                continue  # read through the statements that use it
            else:
                report_error(op, f"'{op.name}' inside a loop nest is not raised: it has side "
                                 "effects other than a store")

    @staticmethod
    def _is_index(op: Operation) -> bool:
        return isinstance(op, affine.ApplyOp) or (
            len(op.results) == 1 and isinstance(op.results[0].type, IndexType))

    def _form(self, value: SSAValue) -> LinearForm | None:
        if value in self.forms:
            return self.forms[value]
        constant = _constant_int(value)
        # Anything else (an index loaded from memory, or defined outside the nest and not a
        # constant) is no affine function of the loop variables with known coefficients.
        return None if constant is None else LinearForm(const=constant)

    def _inside(self, value: SSAValue) -> bool:
        owner = value.owner
        op = owner if isinstance(owner, Operation) else owner.parent_op()
        return op is not None and self.root.is_ancestor(op)

    def access(self, op: Operation) -> Access:
        """The access of a load or store, its indices as linear forms; a non-affine index is
        an error at the op."""
        if isinstance(op, (affine.LoadOp, affine.StoreOp)):
            amap = op.map.data if op.map is not None else None
            operands = [self._form(v) for v in op.indices]
            if amap is None:
                indices = operands
            else:
                dims, syms = operands[: amap.num_dims], operands[amap.num_dims:]
                indices = [linear_affine_expr(e, dims, syms) for e in amap.results]
        else:
            indices = [self._form(v) for v in op.indices]  # type: ignore[attr-defined]
        if any(i is None for i in indices):
            report_error(op, "non-affine index: an index of this access is not an affine "
                             "function of the loop variables with constant coefficients")
        return Access(op, op.memref, tuple(indices))  # type: ignore[attr-defined, arg-type]

    def _statement(self, store: Operation, loops: tuple[Loop, ...]) -> Statement:
        statement = Statement(self.access(store), loops)
        block = store.parent_block()
        seen: set[Operation] = set()

        def visit(value: SSAValue) -> None:
            owner = value.owner
            if not isinstance(owner, Operation) or owner in seen:
                if isinstance(owner, Block) and self._inside(value):
                    report_error(store, "the stored value uses a loop variable: only "
                                        "computations on loaded elements are raised")
                return
            if not self._inside(value):
                return  # a value of the function (a constant), used as it is
            if owner.parent_block() is not block:
                report_error(store, "the stored value is computed in an outer loop: only "
                                    "computations in the innermost loop are raised")
            if self._is_index(owner):
                report_error(store, "the stored value uses index arithmetic on the loop "
                                    "variables: only computations on loaded elements are raised")
            seen.add(owner)
            if isinstance(owner, LOAD_OPS):
                return
            for operand in owner.operands:
                visit(operand)

        visit(statement.value)
        for op in block.ops:
            if op not in seen:
                continue
            if isinstance(op, LOAD_OPS):
                statement.loads.append(self.access(op))
            else:
                statement.compute.append(op)
        return statement


def _has_effects(op: Operation) -> bool:
    return op.name.split(".", 1)[0] not in ("arith", "math")


def describe(access: Access, loops: tuple[Loop, ...]) -> str:
    """``%buf[d0 - 1, d1]``: an access with the loops named ``d0``, ``d1``, ... outermost
    first."""
    names = {loop.iv: f"d{i}" for i, loop in enumerate(loops)}

    def show(form: LinearForm) -> str:
        parts = [("" if c == 1 else f"{c} * ") + names.get(k, "?")  # type: ignore[call-overload]
                 for k, c in form.terms.items()]
        if form.const or not parts:
            parts.append(str(form.const))
        return " + ".join(parts).replace("+ -", "- ")

    buffer = access.memref.name_hint or "buffer"
    return f"%{buffer}[{', '.join(show(i) for i in access.indices)}]"


def memref_root(value: SSAValue) -> SSAValue:
    """The buffer ``value`` is a view of (itself if it is no view)."""
    while isinstance(value.owner, (memref.SubviewOp, memref.CollapseShapeOp,
                                   memref.ExpandShapeOp, memref.CastOp,
                                   memref.ReinterpretCastOp)):
        value = value.owner.operands[0]
    return value


def shape_of(value: SSAValue) -> tuple[int, ...]:
    mtype = value.type
    assert isinstance(mtype, MemRefType)
    return tuple(mtype.get_shape())
