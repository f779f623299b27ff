"""ALU execution (``docs/isa.md`` §3.7), bit-exact and vectorized.

The reference updates ``acc[d] = f(acc[d], imm or acc[s])`` one iteration after the other, so an
iteration sees what earlier iterations of the same instruction wrote.  Gathering every operand
first and scattering every result afterwards is equivalent exactly when

* no destination is written twice (a repeated dst must see its own earlier result), and
* with a tensor operand, no iteration reads a source an *earlier* iteration wrote.

(``d == s`` within one iteration is fine: ``x op x``.  Reading an element that a *later*
iteration overwrites is fine too: the gather happens first.)  Both are checked per instruction;
when either fails, the iterations are grouped into wavefronts — a wave may only read what earlier
waves wrote and writes each element once — and executed wave by wave, which is the reference
order restricted to the dependences that matter.

Arithmetic: MIN/MAX signed; ADD and MUL modulo 2³² (computed on uint32 views, where wrap-around
is defined); SHR by ``y ≥ 0`` is an arithmetic right shift by ``y & 31``, by ``y < 0`` a left shift
by ``(−y) & 31`` — the count masking of x86, where the reference is built.
"""

from __future__ import annotations

import numpy as np

from vta_mlir.errors import SimulatorError
from vta_mlir.isa import AluInsn, AluKind
from vta_mlir.sim.loops import all_distinct, loop_nest
from vta_mlir.sim.sram import SRAMs

_VALID_OPS = frozenset(kind.opcode for kind in AluKind)
# The ``alu_opcode`` values _compute dispatches on (an instruction field is an integer).
_MIN, _MAX = AluKind.MIN.opcode, AluKind.MAX.opcode
_ADD, _MUL = AluKind.ADD.opcode, AluKind.MUL.opcode


def run_alu(st: SRAMs, insn: AluInsn, *, vectorize: bool = True) -> int:
    """Execute one ALU instruction; returns its ``alu_counter`` increment.

    ``vectorize=False`` forces the wavefront path (used by tests).
    """
    op = insn.alu_opcode
    if op not in _VALID_OPS:
        raise SimulatorError(f"unknown ALU opcode {op}")
    count = insn.iter_out * insn.iter_in * (insn.uop_end - insn.uop_bgn)
    nest = loop_nest(st, insn)
    if nest is None:
        return count
    depth = st.cfg.acc_buff_depth
    nest.check("dst", "destination accumulator", "ACC", depth)
    # The source index is computed and checked even when the immediate is used (§3.7).
    nest.check("src", "source accumulator", "ACC", depth)
    imm = int(insn.imm)
    acc2 = st.acc2
    dsl = nest.as_slice("dst")
    ssl = None if insn.use_imm else nest.as_slice("src")
    if vectorize and dsl is not None and (insn.use_imm or ssl == dsl):
        # Distinct destinations, each reading only itself: one in-place vector operation.
        x = acc2[dsl]
        _compute(op, x, imm if insn.use_imm else x, out=x)
        return count
    d = nest.flat("dst")
    s = None if insn.use_imm else nest.flat("src")
    if vectorize and _independent(d, s, depth):
        y: np.ndarray | int = imm if s is None else acc2[ssl if ssl is not None else s]
        if dsl is not None:
            x = acc2[dsl]
            _compute(op, x, y, out=x)  # ufuncs buffer overlapping operands, so y may alias x
        else:
            acc2[d] = _compute(op, acc2[d], y)
    else:
        _apply_waves(acc2, op, d, s, imm)
    return count


def _independent(d: np.ndarray, s: np.ndarray | None, depth: int) -> bool:
    """True if gather-all-then-scatter-all equals the sequential order (module docstring)."""
    if not all_distinct(d, depth):
        return False
    if s is None:
        return True
    n = d.size
    pos = np.full(depth, n, dtype=np.int64)
    pos[d] = np.arange(n)
    # pos[s[t]] < t: an earlier iteration wrote what iteration t reads.
    return not bool(np.any(pos[s] < np.arange(n)))


def _apply_waves(acc2: np.ndarray, op: int, d: np.ndarray, s: np.ndarray | None,
                 imm: int) -> None:
    level = _levels_imm(d) if s is None else _levels_tensor(d, s)
    order = np.argsort(level, kind="stable")
    bounds = np.cumsum(np.bincount(level))
    lo = 0
    for hi in bounds.tolist():  # one vector step per wavefront
        sel = order[lo:hi]
        lo = hi
        dw = d[sel]
        y: np.ndarray | int = imm if s is None else acc2[s[sel]]
        acc2[dw] = _compute(op, acc2[dw], y)


def _levels_imm(d: np.ndarray) -> np.ndarray:
    """With an immediate only repeated destinations conflict: wave = occurrence rank of d."""
    n = d.size
    order = np.argsort(d, kind="stable")
    sd = d[order]
    first = np.concatenate(([True], sd[1:] != sd[:-1]))
    start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    level = np.empty(n, dtype=np.int64)
    level[order] = np.arange(n) - start
    return level


def _levels_tensor(d: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Earliest wave of each iteration: after the last write of its dst and of its src
    (read-after-write, write-after-write), not before an earlier read of its dst
    (write-after-read; the same wave is fine since a wave gathers before it scatters)."""
    last_write: dict[int, int] = {}
    last_read: dict[int, int] = {}
    out = []
    for dv, sv in zip(d.tolist(), s.tolist(), strict=True):
        lv = max(last_write.get(dv, -1) + 1, last_write.get(sv, -1) + 1, last_read.get(dv, 0))
        out.append(lv)
        last_write[dv] = lv
        if last_read.get(sv, -1) < lv:
            last_read[sv] = lv
    return np.asarray(out, dtype=np.int64)


def _compute(op: int, x: np.ndarray, y: np.ndarray | int,
             out: np.ndarray | None = None) -> np.ndarray:
    """``f(x, y)`` of §3.7 on int32 lanes (``y`` an int32 array or a Python int immediate)."""
    if op == _MIN:
        return np.minimum(x, _i32(y), out=out)
    if op == _MAX:
        return np.maximum(x, _i32(y), out=out)
    if op in (_ADD, _MUL):
        xu = x.view(np.uint32)
        yu = np.uint32(y & 0xFFFFFFFF) if isinstance(y, int) else y.view(np.uint32)
        ou = None if out is None else out.view(np.uint32)
        r = np.add(xu, yu, out=ou) if op == _ADD else np.multiply(xu, yu, out=ou)
        return r.view(np.int32)
    # SHR
    if isinstance(y, int):
        if y >= 0:
            return np.right_shift(x, np.int32(y & 31), out=out)
        r = np.left_shift(x.view(np.uint32), np.uint32(-y & 31),
                          out=None if out is None else out.view(np.uint32))
        return r.view(np.int32)
    right = np.right_shift(x, y & 31)
    left = np.left_shift(x.view(np.uint32), (-y & 31).view(np.uint32)).view(np.int32)
    r = np.where(y >= 0, right, left)
    if out is None:
        return r
    out[...] = r
    return out


def _i32(y: np.ndarray | int) -> np.ndarray | np.int32:
    return np.int32(y) if isinstance(y, int) else y
