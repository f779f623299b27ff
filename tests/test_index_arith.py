"""Host index arithmetic has one semantics (vta_mlir.ir.index_arith).

Random index expressions — trees of ``arith`` ops (casts, truncation, division, remainder,
shifts, ``cmpi``, ``select``, ``min`` / ``max``) and ``affine.apply`` / ``min`` / ``max`` with
random maps — are built as real IR in loops with random bounds.  For every iteration, the
shared interpreter, the Python the host compiler's back-end generates, the dependence
analysis of ``vta-coproc-sync``, the linear forms (where they claim linearity), the affine
expressions of ``sram_views.HostIndex`` and the reference evaluator must all agree, and the
interpreter must agree with an oracle written here on numpy fixed-width integers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import affine, arith, func, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    i64,
)
from xdsl.dialects.linalg.ops import FillOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, result_def, var_operand_def

from vta_mlir.ir.index_arith import (
    CMPI_PREDICATES,
    HELPERS,
    Code,
    HostValue,
    IndexArithError,
    LinearForm,
    evaluate,
    linear_form_of_op,
    source,
    wrap,
)
from vta_mlir.passes.analysis.sram_views import HostIndex
from vta_mlir.passes.coproc_sync.deps import HostEval
from vta_mlir.reference import evaluate as reference_evaluate


@irdl_op_definition
class AffineMaxOp(IRDLOperation):
    """``affine.max`` (xDSL has no class for it)."""

    name = "affine.max"
    map = prop_def(AffineMapAttr)
    operands_ = var_operand_def(IndexType())
    result = result_def(IndexType())


index = IndexType()
WIDTHS = (8, 16, 32, 64)
DTYPES = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
UDTYPES = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def width(t: Any) -> int:
    return 64 if isinstance(t, IndexType) else t.width.data


# ---------------------------------------------------------------------------------------------
# The oracle: each op on numpy fixed-width integers


def _np(v: int, w: int) -> np.ndarray:
    return np.array(v, dtype=np.int64).astype(DTYPES[w]) if w < 64 else np.array(v, np.int64)


def _u(v: int, w: int) -> np.ndarray:
    return _np(v, w).astype(UDTYPES[w])


def oracle(op: Operation, args: list[int]) -> int:
    name = op.name
    if isinstance(op, arith.ConstantOp):
        return int(_np(op.value.value.data, width(op.result.type)))
    if isinstance(op, arith.SelectOp):
        return args[1] if args[0] != 0 else args[2]
    if isinstance(op, arith.CmpiOp):
        w = width(op.lhs.type)
        pred = CMPI_PREDICATES[op.predicate.value.data]
        a, b = (_u(x, w) for x in args) if pred[0] == "u" else (_np(x, w) for x in args)
        fn = {
            "eq": np.equal,
            "ne": np.not_equal,
            "lt": np.less,
            "le": np.less_equal,
            "gt": np.greater,
            "ge": np.greater_equal,
        }[pred[-2:]]
        return -1 if bool(fn(a, b)) else 0
    if name in ("arith.extsi", "arith.trunci", "arith.index_cast"):
        return int(
            _np(args[0], width(op.operands[0].type)).astype(DTYPES[width(op.results[0].type)])
        )
    if name in ("arith.extui", "arith.index_castui"):
        u = _u(args[0], width(op.operands[0].type))
        return int(
            u.astype(UDTYPES[width(op.results[0].type)]).astype(DTYPES[width(op.results[0].type)])
        )
    if name.startswith("affine."):
        amap = op.properties["map"].data
        dims, syms = args[: amap.num_dims], args[amap.num_dims :]
        results = [int(_affine_oracle(r, dims, syms)) for r in amap.results]
        return {"affine.apply": results[0], "affine.min": min(results), "affine.max": max(results)}[
            name
        ]
    w = width(op.results[0].type)
    a, b = _np(args[0], w), _np(args[1], w)
    ua, ub = _u(args[0], w), _u(args[1], w)
    with np.errstate(all="ignore"):
        signed: dict[str, Callable[[], Any]] = {
            "arith.addi": lambda: a + b,
            "arith.subi": lambda: a - b,
            "arith.muli": lambda: a * b,
            "arith.divsi": lambda: (
                np.fix(a.astype(np.float64) / b)
                if w < 64
                else (a // b + ((a % b != 0) & ((a < 0) != (b < 0))))
            ),
            "arith.floordivsi": lambda: a // b,
            "arith.ceildivsi": lambda: -((-a) // b),
            "arith.remsi": lambda: np.fmod(a, b),
            "arith.minsi": lambda: np.minimum(a, b),
            "arith.maxsi": lambda: np.maximum(a, b),
            "arith.andi": lambda: a & b,
            "arith.ori": lambda: a | b,
            "arith.xori": lambda: a ^ b,
            "arith.shli": lambda: a << b,
            "arith.shrsi": lambda: a >> b,
        }
        unsigned: dict[str, Callable[[], Any]] = {
            "arith.divui": lambda: ua // ub,
            "arith.remui": lambda: ua % ub,
            "arith.ceildivui": lambda: ua // ub + (ua % ub != 0),
            "arith.minui": lambda: np.minimum(ua, ub),
            "arith.maxui": lambda: np.maximum(ua, ub),
            "arith.shrui": lambda: ua >> ub,
        }
        if name in signed:
            return int(np.asarray(signed[name]()).astype(np.int64).astype(DTYPES[w]))
        return int(np.asarray(unsigned[name]()).astype(UDTYPES[w]).astype(DTYPES[w]))


def _affine_oracle(expr: AffineExpr, dims: list[int], syms: list[int]) -> int:
    """Affine expressions on int64 (index), floordiv / mod as MLIR's ``lower-affine``."""
    if isinstance(expr, AffineConstantExpr):
        return expr.value
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if not isinstance(expr, AffineBinaryOpExpr):
        return syms[expr.position]  # type: ignore[attr-defined]
    a = np.int64(_affine_oracle(expr.lhs, dims, syms))
    b = np.int64(_affine_oracle(expr.rhs, dims, syms))
    with np.errstate(all="ignore"):
        if expr.kind == AffineBinaryOpKind.Add:
            return int(a + b)
        if expr.kind == AffineBinaryOpKind.Mul:
            return int(a * b)
        # lower-affine: mod = rem + (rem < 0 ? b : 0); floordiv / ceildiv by the signs
        rem = np.fmod(a, b)
        if expr.kind == AffineBinaryOpKind.Mod:
            return int(rem + b if rem < 0 else rem)
        quot = (a - rem) // b  # exact
        if expr.kind == AffineBinaryOpKind.FloorDiv:
            return int(quot - 1 if rem < 0 else quot)
        return int(quot + 1 if rem > 0 else quot)


# ---------------------------------------------------------------------------------------------
# Random programs


class Builder:
    def __init__(self, draw: Callable[[Any], Any], ivs: list[SSAValue]) -> None:
        self.draw = draw
        self.ops: list[Operation] = []
        self.pool: dict[int, list[SSAValue]] = {64: [], 8: [], 16: [], 32: []}
        self.index: list[SSAValue] = list(ivs)

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        r = op.results[0]
        if isinstance(r.type, IndexType):
            self.index.append(r)
        elif r.type.width.data > 1:
            self.pool[r.type.width.data].append(r)
        return r

    def const(self, value: int, t: Any) -> SSAValue:
        return self.add(arith.ConstantOp(IntegerAttr(value, t)))

    def pick(self, w: int | None) -> SSAValue:
        """A value of ``w`` bits (``None``: index), made by a cast if there is none."""
        values = self.index if w is None else self.pool[w]
        if values and self.draw(st.booleans()):
            return self.draw(st.sampled_from(values))
        if w is None:
            return self.draw(st.sampled_from(self.index))
        src = self.draw(st.sampled_from(self.index))
        return self.add(arith.IndexCastOp(src, IntegerType(w)))

    def step(self) -> None:
        draw = self.draw
        kind = draw(
            st.sampled_from(
                ["binary", "divide", "shift", "cmp_select", "cast", "affine", "affine", "to_index"]
            )
        )
        w = draw(st.sampled_from(WIDTHS))
        t = index if w == 64 and draw(st.booleans()) else IntegerType(w)
        tw = None if isinstance(t, IndexType) else w
        if kind == "binary":
            cls = draw(
                st.sampled_from(
                    [
                        arith.AddiOp,
                        arith.SubiOp,
                        arith.MuliOp,
                        arith.MinSIOp,
                        arith.MaxSIOp,
                        arith.MinUIOp,
                        arith.MaxUIOp,
                        arith.AndIOp,
                        arith.OrIOp,
                        arith.XOrIOp,
                    ]
                )
            )
            self.add(cls(self.pick(tw), self.pick(tw)))
        elif kind == "divide":
            cls = draw(
                st.sampled_from(
                    [
                        arith.DivSIOp,
                        arith.DivUIOp,
                        arith.FloorDivSIOp,
                        arith.CeilDivSIOp,
                        arith.CeilDivUIOp,
                        arith.RemSIOp,
                        arith.RemUIOp,
                    ]
                )
            )
            d = draw(st.integers(-9, 9).filter(lambda v: v not in (0, -1)))
            self.add(cls(self.pick(tw), self.const(d, t)))
        elif kind == "shift":
            cls = draw(st.sampled_from([arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp]))
            self.add(cls(self.pick(tw), self.const(draw(st.integers(0, w - 1)), t)))
        elif kind == "cmp_select":
            a, b = self.pick(tw), self.pick(tw)
            pred = draw(st.sampled_from(CMPI_PREDICATES))
            cond = self.add(arith.CmpiOp(a, b, pred))
            self.add(arith.SelectOp(cond, self.pick(tw), self.pick(tw)))
        elif kind == "cast":
            src_w = draw(st.sampled_from(WIDTHS))
            dst_w = draw(st.sampled_from([x for x in WIDTHS if x != src_w]))
            a = self.pick(src_w)
            if dst_w < src_w:
                self.add(arith.TruncIOp(a, IntegerType(dst_w)))
            else:
                cls = draw(st.sampled_from([arith.ExtSIOp, arith.ExtUIOp]))
                self.add(cls(a, IntegerType(dst_w)))
        elif kind == "to_index":
            # (xDSL has no arith.index_castui: extui then index_cast is the same value)
            a = self.pick(draw(st.sampled_from(WIDTHS[:3])))
            if draw(st.booleans()):
                a = self.add(arith.ExtUIOp(a, IntegerType(64)))
            self.add(arith.IndexCastOp(a, index))
        else:
            n_dims = draw(st.integers(1, 3))
            n_syms = draw(st.integers(0, 1))
            results = tuple(self.expr(n_dims, n_syms, 3) for _ in range(draw(st.integers(1, 3))))
            amap = AffineMap(n_dims, n_syms, results)
            operands = [self.pick(None) for _ in range(n_dims + n_syms)]
            which = draw(st.sampled_from(["apply", "min", "max"]))
            if which == "apply":
                self.add(
                    affine.ApplyOp(operands, AffineMapAttr(AffineMap(n_dims, n_syms, results[:1])))
                )
            elif which == "min":
                self.add(affine.MinOp(operands, AffineMapAttr(amap)))
            else:
                self.add(
                    AffineMaxOp(
                        operands=[operands],
                        properties={"map": AffineMapAttr(amap)},
                        result_types=[index],
                    )
                )

    def expr(self, n_dims: int, n_syms: int, depth: int) -> AffineExpr:
        draw = self.draw
        leaf = draw(st.integers(0, n_dims + n_syms))
        if depth == 0 or draw(st.integers(0, 2)) == 0:
            if leaf == n_dims + n_syms:
                return AffineExpr.constant(draw(st.integers(-20, 20)))
            return AffineExpr.dimension(leaf) if leaf < n_dims else AffineExpr.symbol(leaf - n_dims)
        lhs = self.expr(n_dims, n_syms, depth - 1)
        op = draw(st.sampled_from(["+", "*", "floordiv", "mod", "ceildiv"]))
        if op == "+":
            return lhs + self.expr(n_dims, n_syms, depth - 1)
        c = draw(st.integers(1, 9) if op != "*" else st.integers(-9, 9))
        kind = {
            "*": AffineBinaryOpKind.Mul,
            "floordiv": AffineBinaryOpKind.FloorDiv,
            "mod": AffineBinaryOpKind.Mod,
            "ceildiv": AffineBinaryOpKind.CeilDiv,
        }[op]
        return AffineBinaryOpExpr(kind, lhs, AffineExpr.constant(c))


class Program:
    """A random program: the module, its loops, the index ops in order, the loop bounds."""

    def __init__(
        self,
        module: ModuleOp,
        loops: list[affine.ForOp],
        ops: list[Operation],
        bounds: list[tuple[int, int]],
    ) -> None:
        self.module, self.loops, self.ops, self.bounds = module, loops, ops, bounds

    def __repr__(self) -> str:  # what a failing example shows: the IR
        return str(self.module)


@st.composite
def programs(draw: Callable[[Any], Any]) -> Program:
    n_loops = draw(st.integers(1, 2))
    bounds = []
    for _ in range(n_loops):
        lb = draw(st.integers(-40, 40))
        bounds.append((lb, lb + draw(st.integers(1, 4))))
    trips = [ub - lb for lb, ub in bounds]
    out_type = MemRefType(i64, [int(np.prod(trips))])
    block = Block(arg_types=[out_type])
    loops: list[affine.ForOp] = []
    body = block
    for lb, ub in bounds:
        inner = Block(arg_types=[index])
        loop = affine.ForOp.from_region([], [], [], [], lb, ub, Region(inner))
        body.add_op(loop)
        loops.append(loop)
        body = inner
    ivs = [lp.body.block.args[0] for lp in loops]
    b = Builder(draw, ivs)
    for _ in range(draw(st.integers(4, 14))):
        b.step()
    # The last index value, recorded by the reference at the iteration's position.
    value = b.ops[-1].results[0]
    if not isinstance(value.type, IndexType):
        value = b.add(arith.IndexCastOp(value, index))
    ops = list(b.ops)
    for op in ops:
        body.add_op(op)
    flat = AffineExpr.constant(0)
    for d, ((lb, _), trip) in enumerate(zip(bounds, trips, strict=True)):
        flat = flat * trip + (AffineExpr.dimension(d) - lb)
    pos = affine.ApplyOp(ivs, AffineMapAttr(AffineMap(len(ivs), 0, (flat,))))
    view = memref.SubviewOp.get(
        block.args[0],
        [pos.result],
        [1],
        [1],
        MemRefType(i64, [1], memref.StridedLayoutAttr([1], None)),
    )
    scalar = arith.IndexCastOp(value, i64)
    fill = FillOp([scalar.result], [view.result], [])
    for op in (pos, view, scalar, fill):
        body.add_op(op)
    for lp in reversed(loops):
        lp.body.block.add_op(affine.YieldOp.get())
    block.add_op(func.ReturnOp())
    f = func.FuncOp("f", ((out_type,), ()), Region(block))
    if value.owner not in ops:
        ops.append(value.owner)
    return Program(ModuleOp([f]), loops, ops, bounds)


# ---------------------------------------------------------------------------------------------
# The back-ends


def interpret(ops: list[Operation], env: dict[SSAValue, int], check: bool) -> None:
    for op in ops:
        args = [env[v] for v in op.operands]
        got = evaluate(op, args)
        if check:
            assert got == oracle(op, args), (op.name, args, got)
        env[op.results[0]] = got


def generated(
    ops: list[Operation], ivs: list[SSAValue], bounds: list[tuple[int, int]]
) -> Callable[..., list[int]]:
    """The straight-line Python the host compiler's back-end writes for ``ops``."""
    values: dict[SSAValue, HostValue] = {
        iv: Code(f"i{k}", lb, ub - 1)
        for k, (iv, (lb, ub)) in enumerate(zip(ivs, bounds, strict=True))
    }
    lines = [f"def f({', '.join(f'i{k}' for k in range(len(ivs)))}):"]
    for n, op in enumerate(ops):
        result = source(op, [values[v] for v in op.operands])
        if isinstance(result, Code) and not result.text.isidentifier():
            lines.append(f"    v{n} = {result}")
            result = Code(f"v{n}", result.lo, result.hi)
        values[op.results[0]] = result
    lines.append(f"    return [{', '.join(str(values[op.results[0]]) for op in ops)}]")
    namespace: dict[str, Any] = dict(HELPERS)
    exec("\n".join(lines), namespace)
    return namespace["f"]


def linear(ops: list[Operation], ivs: list[SSAValue]) -> dict[SSAValue, LinearForm | None]:
    forms: dict[SSAValue, LinearForm | None] = {iv: LinearForm.of(iv) for iv in ivs}
    for op in ops:
        forms[op.results[0]] = linear_form_of_op(op, [forms[v] for v in op.operands])
    return forms


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(programs())
def test_every_evaluation_of_index_arithmetic_agrees(program: Program) -> None:
    module, loops, ops, bounds = program.module, program.loops, program.ops, program.bounds
    ivs = [lp.body.block.args[0] for lp in loops]
    try:
        module.verify()
    except Exception as e:  # a malformed random program is the generator's fault
        pytest.fail(f"generated IR does not verify: {e}")
    code = generated(ops, ivs, bounds)
    forms = linear(ops, ivs)
    host_eval = HostEval()
    host_index = HostIndex()
    index_values = [op.results[0] for op in ops if isinstance(op.results[0].type, IndexType)]
    exprs = {v: host_index.expr(v) for v in index_values}
    expected = []
    for point in itertools.product(*(range(lb, ub) for lb, ub in bounds)):
        env: dict[SSAValue, int] = dict(zip(ivs, point, strict=True))
        interpret(ops, env, check=True)
        got = code(*point)
        for op, g in zip(ops, got, strict=True):
            r = op.results[0]
            assert g == env[r], (op.name, point)
            assert host_eval.index(r, dict(zip(ivs, point, strict=True))) == env[r], op.name
            form = forms[r]
            if form is not None:
                total = form.const + sum(c * env[k] for k, c in form.terms.items())
                assert wrap(total, 64) == env[r], (op.name, form)
        for v, expr in exprs.items():
            leaves = [env[leaf] for leaf in host_index.leaves]
            amap = AffineMap(len(leaves), 0, (expr,))
            assert (
                evaluate(affine.ApplyOp(host_index.leaves, AffineMapAttr(amap)), leaves) == env[v]
            ), str(expr)
        expected.append(env[ops[-1].results[0]])
    (out,) = reference_evaluate(module, [])
    assert out.tolist() == expected


# ---------------------------------------------------------------------------------------------
# Undefined behaviour is an error everywhere


@pytest.mark.parametrize(
    ("cls", "a", "b", "message"),
    [
        (arith.DivSIOp, 7, 0, "division by zero"),
        (arith.RemUIOp, 7, 0, "division by zero"),
        (arith.DivSIOp, -128, -1, "overflows"),
        (arith.ShLIOp, 1, 8, "shift amount"),
        (arith.ShRSIOp, 1, -1, "shift amount"),
    ],
)
def test_undefined_cases_are_errors(cls: Any, a: int, b: int, message: str) -> None:
    x = arith.ConstantOp(IntegerAttr(a, IntegerType(8)))
    y = arith.ConstantOp(IntegerAttr(b, IntegerType(8)))
    op = cls(x, y)
    with pytest.raises(IndexArithError, match=message):
        evaluate(op, [a, b])
    with pytest.raises(IndexArithError, match=message):
        source(op, [a, b])


def test_affine_division_by_a_non_positive_value_is_an_error() -> None:
    amap = AffineMap(
        1,
        1,
        (
            AffineBinaryOpExpr(
                AffineBinaryOpKind.FloorDiv, AffineExpr.dimension(0), AffineExpr.symbol(0)
            ),
        ),
    )
    iv = Block(arg_types=[index, index]).args
    op = affine.ApplyOp(list(iv), AffineMapAttr(amap))
    with pytest.raises(IndexArithError, match="non-positive"):
        evaluate(op, [5, 0])
    # A divisor of unknown sign is checked when the generated code runs.
    text = source(op, [Code("a", 0, 9), Code("b", -3, 3)])
    assert "_affine_positive" in str(text)
    with pytest.raises(IndexArithError, match="non-positive"):
        eval(str(text), dict(HELPERS, a=5, b=-2))  # noqa: S307


def test_plain_python_where_ranges_allow() -> None:
    """Known ranges keep the generated code what it was: plain operators, no wrap."""
    block = Block(arg_types=[index, IntegerType(32)])
    i, x = block.args
    c16 = arith.ConstantOp(IntegerAttr(16, index))
    mul = arith.MuliOp(i, c16)
    assert str(source(mul, [Code("i", 0, 63), 16])) == "(i * 16)"
    div = arith.DivSIOp(i, c16)
    assert str(source(div, [Code("i", 0, 63), 16])) == "(i // 16)"
    assert "_divsi" in str(source(div, [Code("i", -5, 63), 16]))
    big = arith.MuliOp(x, arith.ConstantOp(IntegerAttr(1 << 20, IntegerType(32))))
    assert "_wrap" in str(source(big, [Code("x", 0, 1 << 12), 1 << 20]))
