"""Host values for ``vta-coproc-sync``: the index computations of the host code evaluated for
given loop-variable values, and the buffers a memref operand can be (so a buffer chosen by
``arith.select`` on the loop parity is seen as double buffering).  The semantics of the index
arithmetic are :mod:`vta_mlir.ir.index_arith`'s."""

from __future__ import annotations

from collections.abc import Hashable

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from vta_mlir.ir.index_arith import IndexArithError, evaluate, is_index_op

__all__ = ["Env", "HostEval"]

_BUFFER_ROOTS = (memref.AllocOp, memref.AllocaOp)

Env = dict[SSAValue, int]

#: Marks a value not computed yet (``None`` is a computed "unknown").
_UNKNOWN = object()


class HostEval:
    """Values of host index computations for given loop-variable values (``None`` when not
    computable), and the buffers a memref operand can be."""

    def __init__(self) -> None:
        self._inputs: dict[SSAValue, tuple[SSAValue, ...]] = {}
        self._values: dict[tuple[SSAValue, tuple[int | None, ...]], int | None] = {}

    def _leaves(self, value: SSAValue) -> tuple[SSAValue, ...]:
        """The block arguments (loop variables, function arguments) ``value`` is computed
        from."""
        found = self._inputs.get(value)
        if found is None:
            op = value.owner
            if isinstance(op, Operation):
                leaves: dict[SSAValue, None] = {}
                for operand in op.operands:
                    leaves.update(dict.fromkeys(self._leaves(operand)))
                found = tuple(leaves)
            else:
                found = (value,)
            self._inputs[value] = found
        return found

    def index(self, value: SSAValue | None, env: Env) -> int | None:
        """The value of ``value`` (0 for ``None``), remembered by the values of the loop
        variables it is computed from."""
        if value is None:
            return 0
        if value in env:
            return env[value]
        if not isinstance(value.owner, Operation):
            return None  # a loop variable outside env, or a function argument
        key = (value, tuple(env.get(leaf) for leaf in self._leaves(value)))
        result = self._values.get(key, _UNKNOWN)
        if result is _UNKNOWN:
            result = self._values[key] = self._compute(value, env, {})
        return result  # type: ignore[return-value]

    def _compute(self, value: SSAValue, env: Env, done: dict[SSAValue, int | None]
                 ) -> int | None:
        """The value of ``value`` computed from its operands', each once (``done``); only the
        values :meth:`index` is asked for are remembered across calls, which saves a key of
        loop-variable values per intermediate value."""
        if value in env:
            return env[value]
        if value in done:
            return done[value]
        op = value.owner
        if not isinstance(op, Operation):
            return None
        try:
            result = self._op(op, env, done)
        except IndexArithError:
            result = None
        done[value] = result
        return result

    def _op(self, op: Operation, env: Env, done: dict[SSAValue, int | None]) -> int | None:
        if not is_index_op(op):
            return None
        if isinstance(op, arith.SelectOp):
            # Only the operand selected is computed (the other may be undefined here).
            c = self._compute(op.cond, env, done)
            if c is None:
                return None
            return self._compute(op.lhs if c else op.rhs, env, done)
        values = [self._compute(v, env, done) for v in op.operands]
        if any(v is None for v in values):
            return None
        return evaluate(op, values)  # type: ignore[arg-type]

    def roots(self, value: SSAValue, env: Env) -> list[tuple[Hashable, bool]]:
        """The buffers ``value`` may be, each with whether positions in ``value`` are positions
        in it (False for a view of unknown layout: the whole buffer counts).  A buffer is its
        allocation or argument, or the symbol of a ``memref.get_global`` (every use of the
        global is the same buffer)."""
        op = value.owner
        if isinstance(op, memref.GetGlobalOp):
            return [(("global", op.name_.root_reference.data), True)]
        if not isinstance(op, Operation) or isinstance(op, _BUFFER_ROOTS):
            return [(value, True)]
        if isinstance(op, arith.SelectOp):
            c = self.index(op.cond, env)
            if c is not None:
                return self.roots(op.lhs if c else op.rhs, env)
            return self.roots(op.lhs, env) + self.roots(op.rhs, env)
        # A view (cast, subview, ...): it aliases every memref it is made from.
        sources = [v for v in op.operands if isinstance(v.type, MemRefType)]
        if not sources:
            return [(value, True)]
        return [(root, False) for v in sources for root, _ in self.roots(v, env)]

