"""The cost of a plan that pipelines the byte planes of an i32 result over its tiles
(:mod:`.plane_pipeline`; ``Plan.plane_pipeline``), in the terms of :mod:`.cost`.

Per tile: its initialisation, ``I / ti`` GEMM steps and its epilogue on the compute module,
then ``m`` plane stores separated by ``m - 1`` shifts (``m``: the planes).  Step ``t`` of the
pipeline computes tile ``t`` and shifts tiles ``t - 1 .. t - m + 1`` once each, so in the
steady state the compute module does one tile's work per step and the store module one tile's
``m`` stores, each module waiting for the other only across steps.  What remains is

* the head: the operands loaded whole before the first GEMM (and the first tile's own loads);
* the tail: after the last GEMM, the ``m (m + 1) / 2`` stores of the last ``m`` tiles' planes
  still to come, in sequence on the store module with the shifts between them;
* at the loop of the steady steps, the compute module waiting for the stores before it (its
  first command orders them all), and after it likewise;
* the micro-kernels: every accumulator copy, load copy and operand position gives a GEMM or
  ALU instruction a kernel of its own, each loaded once per run by a LOAD UOP on the compute
  module.

:func:`plane_estimate` gives those in closed form (every candidate is ranked by it);
:func:`plane_replay` replays the steps command by command, for the best plans.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from vta_mlir.config import VTAConfig

from .cost import (
    REPLAY_LIMIT,
    Estimate,
    InsnCosts,
    Plan,
    RegionShape,
    Residency,
    double_buffered,
    init_cost,
    operand_loads,
)

__all__ = ["plane_estimate", "plane_replay"]


@dataclass(frozen=True)
class _Steps:
    """The commands of one tile and the shape of the pipeline (module docstring)."""

    tiles: int
    planes: int
    ni: int
    #: GEMM instructions per ``i`` step (a host loop over rows when no loop folds them).
    insns: int
    init: int
    gemm_step: int
    epilogue: int
    shift: int
    store: int
    #: Load cycles of one ``i`` step of each operand loaded per tile (0 when held whole).
    step_loads: tuple[int, int]
    whole_loads: int
    uop: int
    #: Kernels of the initialisation and epilogue (every ALU op but the shifts).
    init_kernels: int

    @property
    def steady(self) -> int:
        """Steps of the loop (every tile of the step exists); 0 or 1: no loop."""
        return max(self.tiles - self.planes + 1, 0)

    @property
    def compute(self) -> int:
        """Compute cycles of one tile, kernels aside."""
        return (self.init + self.ni * self.gemm_step + self.epilogue
                + (self.planes - 1) * self.shift)


def _steps(shape: RegionShape, plan: Plan, costs: InsnCosts) -> _Steps:
    m = shape.stores
    area = plan.tb * plan.to
    ni = shape.i // plan.ti if shape.i else 0
    insns = plan.tb if min(plan.tb, plan.to, plan.ti) > 1 else 1
    gemm_step = insns * costs.gemm(area * plan.ti // insns) if shape.i else 0
    shift = costs.alu(area, False)
    epilogue = (shape.alu_imm - (m - 1)) * shift + shape.alu_tensor * costs.alu(area, True)
    step_loads = [0, 0]
    whole = 0
    if shape.i:
        for k, (which, mem, rows) in enumerate((("inp", "INP", plan.tb),
                                                ("wgt", "WGT", plan.to))):
            if (plan.inp if which == "inp" else plan.wgt) is Residency.ALL:
                whole += sum(c * costs.load(mem, e) for c, e in operand_loads(shape, plan,
                                                                              which))
            else:
                step_loads[k] = costs.load(mem, rows * plan.ti)
    fills = sum(kind.startswith("fill") for kind in shape.inits)
    return _Steps(
        tiles=(shape.b // plan.tb) * (shape.o // plan.to), planes=m, ni=ni, insns=insns,
        init=init_cost(shape, costs, area), gemm_step=gemm_step, epilogue=epilogue,
        shift=shift, store=costs.store(area), step_loads=(step_loads[0], step_loads[1]),
        whole_loads=whole, uop=costs.load("UOP", 1),
        init_kernels=fills + shape.alu_imm - (m - 1) + shape.alu_tensor)


def _kernels(shape: RegionShape, plan: Plan, st: _Steps) -> int:
    """Micro-kernels loaded: one per command of the steps written out, and per distinct
    accumulator copy (and operand position) of each command of the loop."""
    m, n, loop = st.planes, st.tiles, st.steady if st.steady > 1 else 0
    per_tile = st.init_kernels + st.ni * st.insns
    first = n - loop  # tiles computed outside the loop
    shifts_out = n * (m - 1) - loop * (m - 1)
    copies = min(loop, m + 1)
    gemm_keys = st.ni * st.insns
    if Residency.ALL not in (plan.inp, plan.wgt):
        gemm_keys = min(gemm_keys, 2 * st.insns)  # two load copies alternate
    in_loop = copies * (st.init_kernels + gemm_keys + (m - 1)) if loop else 0
    return first * per_tile + shifts_out + in_loop


def plane_estimate(shape: RegionShape, plan: Plan, cfg: VTAConfig,
                   costs: InsnCosts | None = None) -> Estimate:
    """DRAM bytes and the closed-form cycles of a pipelined plan (module docstring)."""
    costs = costs or InsnCosts(cfg)
    st = _steps(shape, plan, costs)
    m, n = st.planes, st.tiles
    inp_el = wgt_el = 0
    if shape.i:
        inp_el = sum(c * e for c, e in operand_loads(shape, plan, "inp"))
        wgt_el = sum(c * e for c, e in operand_loads(shape, plan, "wgt"))
    acc_el = acc8_el = 0
    for kind in shape.inits:
        if kind == "load8":
            acc8_el += shape.b * shape.o
        elif not kind.startswith("fill"):
            acc_el += shape.b * shape.o
    uop = _kernels(shape, plan, st) * st.uop
    tile_loads = st.ni * sum(st.step_loads)
    head = st.whole_loads + (min(c for c in st.step_loads if c) if any(st.step_loads) else 0)
    # Shifts done before the last GEMM: every step's but the last m - 1 tiles' remaining ones.
    early_shifts = max(n * (m - 1) - m * (m - 1) // 2 - (m - 1), 0)
    last_gemm = (head + uop + n * (st.init + st.ni * st.gemm_step + st.epilogue)
                 + early_shifts * st.shift)
    tail = m * (m + 1) // 2 * st.store + (m - 1) * st.shift
    bubbles = (m - 1) * st.store if st.steady > 1 else 0
    first = head + st.init + st.ni * st.gemm_step + st.epilogue
    store_path = first + n * m * st.store + (m - 1) * st.shift
    load_path = st.whole_loads + n * tile_loads + st.compute
    store = n * m * st.store
    cycles = max(last_gemm + tail + bubbles, store_path, load_path)
    return Estimate(
        inp_bytes=inp_el * cfg.inp_elem_bytes, wgt_bytes=wgt_el * cfg.wgt_elem_bytes,
        acc_bytes=acc_el * cfg.acc_elem_bytes + acc8_el * cfg.acc8_elem_bytes,
        out_bytes=shape.b * shape.o * cfg.out_elem_bytes,
        load=st.whole_loads + n * tile_loads, compute=n * st.compute + uop, store=store,
        cycles=cycles)


class _Replay:
    """The steps replayed in program order on the three modules, with the dependences the
    synchronisation enforces: a GEMM step waits for its loads, a load for the GEMM that read
    the copy it overwrites, a tile's initialisation for the last store of the tile that held
    its accumulator copy before, a shift for the store of the plane before, a store for the
    command before it; the loop of the steady steps waits for the stores before it, and the
    steps after it for its stores."""

    def __init__(self, shape: RegionShape, plan: Plan, costs: InsnCosts) -> None:
        self.shape, self.plan, self.costs = shape, plan, costs
        self.st = _steps(shape, plan, costs)
        self.load_t = self.compute_t = self.store_t = 0
        self.plane_done: dict[tuple[int, int], int] = {}
        self.copy_free = [0] * (self.st.planes + 1)
        self.copies = [2 if double_buffered(shape, plan, w) else 1 for w in ("inp", "wgt")]
        self.released = {(w, c): 0 for w in (0, 1) for c in (0, 1)}
        self.loads = [0, 0]
        self.seen: set[Hashable] = set()

    def kernel(self, key: Hashable) -> None:
        if key not in self.seen:
            self.seen.add(key)
            self.compute_t += self.st.uop

    def tile(self, u: int, site: Hashable) -> int:
        """Compute tile ``u``; when it is done."""
        st, p = self.st, self.plan
        copy = u % (st.planes + 1)
        self.compute_t = max(self.compute_t, self.copy_free[copy])
        self.kernel((site, "init", copy))
        self.compute_t += st.init
        if st.ni > 1 and any(st.step_loads):
            # The loads of an i loop start once the compute module reaches it.
            self.load_t = max(self.load_t, self.compute_t)
        no = self.shape.o // p.to
        nb = self.shape.b // p.tb
        position = (u // no, u % no) if p.b_outer else (u % nb, u // nb)
        for k in range(st.ni):
            ready = 0
            keys: list[object] = [site, "gemm", copy]
            for w in (0, 1):
                if not st.step_loads[w]:
                    keys.append((position[w], k))
                    continue
                n = self.loads[w]
                self.loads[w] += 1
                c = n % self.copies[w]
                self.load_t = max(self.load_t, self.released[(w, c)]) + st.step_loads[w]
                ready = max(ready, self.load_t)
                keys.append(c)
            for row in range(st.insns):
                self.kernel((*keys, row))
            self.compute_t = max(self.compute_t, ready) + st.gemm_step
            for w in (0, 1):
                if st.step_loads[w]:
                    self.released[(w, (self.loads[w] - 1) % self.copies[w])] = self.compute_t
        self.compute_t += st.epilogue
        return self.compute_t

    def run(self) -> int:
        st = self.st
        m, n = st.planes, st.tiles
        self.load_t = st.whole_loads
        self.compute_t = self.load_t
        for t in range(n + m - 1):
            in_loop = st.steady > 1 and m - 1 <= t < n
            if st.steady > 1 and t in (m - 1, n):
                self.compute_t = max(self.compute_t, self.store_t)
            site: Hashable = "loop" if in_loop else t
            stores: list[tuple[int, int, int]] = []
            for p in range(m):
                u = t - p
                if not 0 <= u < n:
                    continue
                if p == 0:
                    done = self.tile(u, site)
                else:
                    self.kernel((site, "shift", p, u % (m + 1)))
                    self.compute_t = max(self.compute_t, self.plane_done[(u, p - 1)])
                    self.compute_t += st.shift
                    done = self.compute_t
                stores.append((p, u, done))
            stores.sort(key=lambda s: m if s[0] == m - 2 else s[0])
            for p, u, done in stores:
                self.store_t = max(self.store_t, done) + st.store
                self.plane_done[(u, p)] = self.store_t
                if p == m - 1:
                    self.copy_free[u % (m + 1)] = self.store_t
        return max(self.load_t, self.compute_t, self.store_t)


def plane_replay(shape: RegionShape, plan: Plan, cfg: VTAConfig, costs: InsnCosts | None = None,
                 limit: int = REPLAY_LIMIT) -> int | None:
    """Cycles of a pipelined plan with every command replayed (:class:`_Replay`); ``None``
    when it has more than ``limit`` GEMM steps."""
    costs = costs or InsnCosts(cfg)
    st = _steps(shape, plan, costs)
    if st.tiles * max(st.ni, 1) > limit:
        return None
    return _Replay(shape, plan, costs).run()
