"""GEMM execution (``docs/isa.md`` §3.6), bit-exact and vectorized.

The reference runs ``acc[d] += inp[s] · wgt[w]ᵀ`` for every (i_out, i_in, uop) iteration, in
int32 with wrap-around.  Addition modulo 2³² is associative and commutative, so any grouping of
the products gives the same accumulator bits; only the set of (d, s, w) triples matters.

**Fast path.**  Each loop axis (outer loop, inner loop, the micro-op list) is classified by which
of its dst / src / wgt index vectors vary:

* dst fixed: the axis is a reduction — ``K`` if src or wgt moves, ``R`` (plain repetition,
  folded in as an integer multiplier) if nothing moves;
* dst moves, wgt fixed: ``M`` (rows of the input operand);
* dst moves, src fixed, wgt moves: ``N`` (rows of the weight operand);
* all three move: ``B`` (a batch of independent products).

Every combination falls in one class, and the micro-ops need not be an arithmetic progression:
their index vectors are gathered like any other axis.  The instruction then is one (batched)
matrix product ``C[b, m, n] = Σ_k A[b, m, k] · W[b, n, k]`` over gathered operands, computed with
float BLAS when every partial sum is provably an exactly representable integer (float32 below
2²⁴, float64 below 2⁵³; bound = K·BLOCK_IN·2^(INP_WIDTH−1)·2^(WGT_WIDTH−1), i.e. K·BLOCK_IN·2¹⁴
for int8), then added to the accumulator with exact int32 wrap.  Destinations repeated across
the (B, M, N) grid are summed exactly (int64) before the add.  A micro-op list that is not an
even progression in every field is first split into a product of smaller axes when possible
(:meth:`~vta_mlir.sim.loops.Axis.factorize`), so e.g. "pixels × taps" convolution kernels become
a matrix product rather than a batch of tiny ones.  The analysis depends only on the
instruction fields and its micro-op words, so it is cached per SRAM set.

**General path.**  When the precision or memory bounds fail: gather the operands of each
iteration, take exact integer products per iteration (batched einsum, in chunks), and scatter-add
them by destination through a sort, again with int64 sums and int32 wrap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vta_mlir.isa import GemmInsn
from vta_mlir.sim.loops import Axis, LoopNest, all_distinct, arith_slice, loop_nest
from vta_mlir.sim.sram import SRAMs

_F32_EXACT = 1 << 24
_F64_EXACT = 1 << 53
#: Largest operand an exact fast path may gather or produce (elements); above it the general
#: path works in bounded chunks instead.
_MAX_OPERAND = 1 << 25
#: Weight bytes gathered per chunk of the general path.
_CHUNK_BYTES = 1 << 22


@dataclass
class _FastPlan:
    """Everything about a fast-path GEMM that depends only on the instruction and its
    micro-ops (not on SRAM contents), so a repeated instruction skips the analysis."""

    rows_a: np.ndarray  # BLOCK_IN-byte input rows to gather, [B, M, BATCH, K]
    rows_w: np.ndarray  # BLOCK_IN-byte weight rows to gather, [B, N, BLOCK_OUT, K]
    dst: slice | np.ndarray | tuple[np.ndarray]  # result rows' accumulators, see dst_target
    shape: tuple[int, int, int, int]  # B, M, N, K
    ftype: type
    repeat: int


@dataclass
class _GeneralPlan:
    nest: LoopNest


@dataclass
class _ResetPlan:
    dst: slice | np.ndarray


_Plan = _FastPlan | _GeneralPlan | _ResetPlan
#: Plans kept per SRAM set; programs reuse a handful of kernels, so a small cache suffices.
_PLAN_CACHE_SIZE = 256
#: Index arrays larger than this are not kept (a plan is cheap relative to such a GEMM).
_PLAN_MAX_BYTES = 1 << 22


def run_gemm(st: SRAMs, insn: GemmInsn, *, fast: bool = True) -> int:
    """Execute one GEMM instruction; returns its ``gemm_counter`` increment.

    ``fast=False`` forces the general path (used by tests to cross-check the fast path).
    """
    count = insn.iter_out * insn.iter_in * (insn.uop_end - insn.uop_bgn)
    if insn.iter_out <= 0 or insn.iter_in <= 0 or insn.uop_end <= insn.uop_bgn:
        return 0 if insn.reset_reg else count
    # The plan depends on the loop fields and the micro-op words, nothing else; indices were
    # bounds-checked when it was made.
    key = (insn.reset_reg, insn.uop_bgn, insn.uop_end, insn.iter_out, insn.iter_in,
           insn.dst_factor_out, insn.dst_factor_in, insn.src_factor_out, insn.src_factor_in,
           insn.wgt_factor_out, insn.wgt_factor_in, fast,
           st.uop[insn.uop_bgn:insn.uop_end].tobytes())
    cache = st.plans
    plan = cache.get(key)
    if plan is None:
        plan = _plan(st, insn, fast)
        if _plan_bytes(plan) <= _PLAN_MAX_BYTES:
            if len(cache) >= _PLAN_CACHE_SIZE:
                cache.clear()
            cache[key] = plan
    if isinstance(plan, _FastPlan):
        _run_fast(st, plan)
    elif isinstance(plan, _ResetPlan):
        # Reset form: only the accumulator index is computed and checked; not counted (§3.6).
        st.acc2[plan.dst] = 0
        return 0
    else:
        _gemm_general(st, plan.nest)
    return count


def _plan(st: SRAMs, insn: GemmInsn, fast: bool) -> _Plan:
    nest = loop_nest(st, insn)
    assert nest is not None  # empty nests return before planning
    cfg = st.cfg
    nest.check("dst", "accumulator", "ACC", cfg.acc_buff_depth)
    if insn.reset_reg:
        sl = nest.as_slice("dst")
        return _ResetPlan(sl if sl is not None else nest.flat("dst"))
    nest.check("src", "input", "INP", cfg.inp_buff_depth)
    nest.check("wgt", "weight", "WGT", cfg.wgt_buff_depth)
    plan = _plan_fast(st, nest) if fast else None
    return plan if plan is not None else _GeneralPlan(nest)


def _plan_bytes(plan: _Plan) -> int:
    if isinstance(plan, _FastPlan):
        dst = plan.dst[0] if isinstance(plan.dst, tuple) else plan.dst
        return plan.rows_a.nbytes + plan.rows_w.nbytes + getattr(dst, "nbytes", 0)
    if isinstance(plan, _ResetPlan):
        return getattr(plan.dst, "nbytes", 0)
    return sum(ax.extent for ax in plan.nest.axes) * 24


def _max_product(st: SRAMs) -> int:
    cfg = st.cfg
    return (1 << (cfg.inp_width - 1)) * (1 << (cfg.wgt_width - 1))


def _combine(vecs: list[np.ndarray]) -> np.ndarray:
    """All sums of one element from each vector, first vector outermost (``int64[Π len]``)."""
    out = np.zeros(1, dtype=np.int64)
    for v in vecs:
        out = (out[:, None] + v[None, :]).reshape(-1)
    return out


def _plan_fast(st: SRAMs, nest: LoopNest) -> _FastPlan | None:
    """Classify the axes (module docstring); ``None`` if a fast-path precondition fails."""
    cfg = st.cfg
    base = {"dst": 0, "src": 0, "wgt": 0}
    cls: dict[str, list[Axis]] = {"B": [], "M": [], "N": [], "K": []}
    repeat = 1
    for ax in [part for whole in nest.axes for part in whole.factorize()]:
        moves = {k: ax.varies(k) for k in base}
        if moves["dst"]:
            c = "M" if not moves["wgt"] else ("N" if not moves["src"] else "B")
        elif moves["src"] or moves["wgt"]:
            c = "K"
        else:
            c = "R"
        # A component the class ignores is constant along the axis: fold it into the base.
        kept = {"B": ("dst", "src", "wgt"), "M": ("dst", "src"), "N": ("dst", "wgt"),
                "K": ("src", "wgt"), "R": ()}[c]
        for k in base:
            if k not in kept:
                base[k] += ax.first(k)
        if c == "R":
            repeat *= ax.extent
        else:
            cls[c].append(ax)

    def comb(c: str, kind: str) -> np.ndarray:
        return _combine([ax.vec(kind) for ax in cls[c]])

    bd, bs, bw = comb("B", "dst"), comb("B", "src"), comb("B", "wgt")
    md, ms = comb("M", "dst"), comb("M", "src")
    nd, nw = comb("N", "dst"), comb("N", "wgt")
    ks, kw = comb("K", "src"), comb("K", "wgt")
    nb, nm, nn, nk = bd.size, md.size, nd.size, ks.size
    batch, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    if max(nb * nm * nk * batch * bi, nb * nn * nk * bo * bi, nb * nm * nn * batch * bo) \
            > _MAX_OPERAND:
        return None
    bound = nk * bi * _max_product(st)
    if bound < _F32_EXACT:
        ftype: type = np.float32
    elif bound < _F64_EXACT:
        ftype = np.float64
    else:
        return None
    src = base["src"] + bs[:, None, None] + ms[None, :, None] + ks[None, None, :]
    wgt = base["wgt"] + bw[:, None, None] + nw[None, :, None] + kw[None, None, :]
    dst = (base["dst"] + bd[:, None, None] + md[None, :, None] + nd[None, None, :]).reshape(-1)
    # Whole BLOCK_IN-byte rows: A[b, (m, batch), (k, lane)] and W[b, (n, j), (k, lane)].
    rows_a = src[:, :, None, :] * batch + np.arange(batch)[None, None, :, None]
    rows_w = wgt[:, :, None, :] * bo + np.arange(bo)[None, None, :, None]
    return _FastPlan(rows_a, rows_w, dst_target(dst, cfg.acc_buff_depth), (nb, nm, nn, nk), ftype,
                     repeat)


def _run_fast(st: SRAMs, plan: _FastPlan) -> None:
    """One (batched) matrix product over the gathered operands, added with int32 wrap."""
    cfg = st.cfg
    batch, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    nb, nm, nn, nk = plan.shape
    ftype = plan.ftype
    af = np.take(st.inp_rows, plan.rows_a).view(np.int8).reshape(nb, nm * batch, nk * bi) \
        .astype(ftype)
    wf = np.take(st.wgt_rows, plan.rows_w).view(np.int8).reshape(nb, nn * bo, nk * bi) \
        .astype(ftype)
    if nb == 1:
        c = (af[0] @ wf[0].T)[None]
    else:
        c = np.matmul(af, wf.transpose(0, 2, 1))
    # Exact integers in the float result; int64 then wraps to int32 modulo 2^32.
    ci = c.astype(np.int32 if ftype is np.float32 and plan.repeat == 1 else np.int64)
    if plan.repeat != 1:
        # int64 products wrap modulo 2^64, which preserves the value modulo 2^32.
        ci = ci * np.int64(plan.repeat % (1 << 32))
    if ci.dtype != np.int32:
        ci = ci.astype(np.int32)
    ci = ci.reshape(nb, nm, batch, nn, bo)
    if batch != 1:
        ci = ci.transpose(0, 1, 3, 2, 4)
    accumulate(st.acc2, plan.dst, ci.reshape(nb * nm * nn, batch * bo))


def dst_target(dst: np.ndarray, depth: int) -> slice | np.ndarray | tuple[np.ndarray]:
    """How :func:`accumulate` addresses ``dst``: a slice (an even progression), the index array
    (distinct indices), or the index array in a 1-tuple (repeated indices, summed first)."""
    sl = arith_slice(dst)
    if sl is not None:
        return sl
    return dst if all_distinct(dst, depth) else (dst,)


def accumulate(acc2: np.ndarray, target: slice | np.ndarray | tuple[np.ndarray],
               vals: np.ndarray) -> None:
    """``acc2[dst[i]] += vals[i]`` for every i (``target`` from :func:`dst_target`), with int32
    wrap and repeated destinations summed."""
    if isinstance(target, tuple):
        uniq, sums = _sum_by_index(target[0], vals)
        acc2[uniq] = (acc2[uniq].astype(np.int64) + sums).astype(np.int32)
    elif isinstance(target, slice):
        view = acc2[target].view(np.uint32)  # unsigned: wrap-around is defined
        np.add(view, vals.view(np.uint32), out=view)
    else:
        acc2[target] = (acc2[target].view(np.uint32) + vals.view(np.uint32)).view(np.int32)


def _sum_by_index(idx: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct indices and the exact int64 sum of the rows of ``vals`` for each."""
    order = np.argsort(idx, kind="stable")
    sidx = idx[order]
    starts = np.flatnonzero(np.concatenate(([True], sidx[1:] != sidx[:-1])))
    sums = np.add.reduceat(vals[order].astype(np.int64), starts, axis=0)
    return sidx[starts], sums


def _gemm_general(st: SRAMs, nest: LoopNest) -> None:
    """Per-iteration products, exact integer arithmetic, bounded memory."""
    cfg = st.cfg
    d, s, w = nest.flat("dst"), nest.flat("src"), nest.flat("wgt")
    total = d.size
    chunk = max(1, _CHUNK_BYTES // (cfg.block_out * cfg.block_in))
    lanes = cfg.batch * cfg.block_out
    sums = np.zeros((cfg.acc_buff_depth, lanes), dtype=np.int64)
    touched = np.zeros(cfg.acc_buff_depth, dtype=bool)
    for lo in range(0, total, chunk):  # chunks bound memory; each chunk is one vector op
        hi = min(total, lo + chunk)
        a = st.inp[s[lo:hi]].astype(np.int32)
        b = st.wgt[w[lo:hi]].astype(np.int32)
        # |product sum| ≤ BLOCK_IN · 2^14 ≤ 2^20: exact in int32.
        prod = np.einsum("tbk,tjk->tbj", a, b).reshape(hi - lo, lanes)
        uniq, part = _sum_by_index(d[lo:hi], prod)
        sums[uniq] += part
        touched[uniq] = True
    idx = np.flatnonzero(touched)
    st.acc2[idx] = (st.acc2[idx].astype(np.int64) + sums[idx]).astype(np.int32)
