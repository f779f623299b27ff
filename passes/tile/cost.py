"""The cost model of ``vta-tile``: which tiling of a VTA region moves the fewest DRAM bytes and,
among those, takes the fewest cycles.

A region (``docs/pipeline.md``, stage 1) computes a ``B × O`` accumulator (in tensor elements:
``BATCH × BLOCK_OUT`` lanes each), optionally as the contraction over ``I`` input elements of
``X[B][I]`` and ``W[O][I]``.  A :class:`Plan` fixes

* the tile sizes ``tb``, ``to``, ``ti`` (elements of b, o, i).  ``ti`` divides ``I``; ``tb`` and
  ``to`` may leave a smaller last tile (the *remainder*, emitted as a second copy of the loop
  body) when every SRAM view it needs is contiguous;
* the order of the two outer tile loops (``b`` outside ``o`` or the reverse); the ``i`` loop is
  always innermost, so an accumulator tile stays in SRAM for its whole reduction;
* where each operand lives (:class:`Residency`): one tile loaded in the ``i`` loop, the tile's
  rows over the whole reduction loaded in its own outer loop (so the ``i`` loop and, when that
  loop is the outer one, the other loop's tiles reuse it), or the whole operand loaded once;
* double buffering: an input or weight buffer loaded more than once gets two copies that
  alternate, so the load of the next tile overlaps the GEMM of this one.

Every instruction's cycles come from the timing model's own
:func:`~vta_mlir.sim.timing.insn_cost` on ``cfg.timing`` (LOAD: DMA latency + bytes per cycle;
GEMM and ALU: pipeline depth + iterations, twice for an ALU tensor operand; a LOAD UOP per
distinct micro-kernel).  Two estimates combine them:

* :func:`estimate`, in closed form, with the DRAM bytes per buffer (inp, wgt, acc, out): the
  cycles are the larger of the *load path* (every load; each restart of the loop that loads an
  operand per ``i`` step, whose tokens are drained and primed again; then the last GEMMs and
  the epilogue; without double buffering every GEMM too, since each load waits for the GEMM
  that read the previous tile) and the *compute path* (the first loads, then all compute and
  the stores, which the single accumulator buffer serialises with it);
* :func:`replay`, which replays the plan's commands in program order on the three modules with
  the dependences the synchronisation enforces (:class:`_Replay`).  It is within 1 % of the
  simulator on ``matrix_multiply_opt`` and on a 256×512×512 GEMM, and within about 10 % on
  small latency-bound regions.

The search over plans is :mod:`.search`; the plans that pipeline the byte planes of an i32
result (``Plan.plane_pipeline``) are costed by :mod:`.plane_cost`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from vta_mlir.config import VTAConfig
from vta_mlir.isa import AluInsn, GemmInsn, MemInsn, MemType
from vta_mlir.sim.timing import insn_cost

__all__ = [
    "loaded_repeatedly",
    "tile_count",
    "REPLAY_LIMIT",
    "Budget",
    "Estimate",
    "InsnCosts",
    "NoFit",
    "Plan",
    "RegionShape",
    "Residency",
    "double_buffered",
    "epilogue_cost",
    "estimate",
    "footprint",
    "init_cost",
    "operand_loads",
    "pieces",
    "replay",
]

#: GEMM steps (or tiles) up to which a plan's commands are replayed one by one.
REPLAY_LIMIT = 20_000


class Residency(StrEnum):
    """What part of an operand its SRAM buffer holds (module docstring)."""

    TILE = "tile"
    ROW = "row"
    ALL = "all"


class NoFit(Exception):
    """The requested tiling does not fit the configuration (the message says why)."""


@dataclass(frozen=True)
class RegionShape:
    """What a region computes, in tensor elements; ``i == 0`` when it has no contraction.

    ``inits`` has one entry per accumulator buffer: ``fill`` (a reset GEMM), ``fill+`` (a
    reset and an ALU add of the value), ``load`` (i32 from DRAM), ``load8`` (i8 from DRAM,
    sign-extended) or ``bcast`` (a bias row repeated over b).
    """

    b: int
    o: int
    i: int
    inits: tuple[str, ...]
    alu_imm: int = 0
    alu_tensor: int = 0
    #: Stores of the accumulator per tile: one, or the byte planes of an i32 result.
    stores: int = 1

    @property
    def accs(self) -> int:
        return len(self.inits)


@dataclass(frozen=True)
class Budget:
    """SRAM elements available to a region."""

    inp: int
    wgt: int
    acc: int


@dataclass(frozen=True)
class Plan:
    """A tiling of a region (module docstring)."""

    tb: int
    to: int
    ti: int
    b_outer: bool = True
    inp: Residency = Residency.TILE
    wgt: Residency = Residency.TILE
    double_buffer: bool = False
    #: The byte planes of an i32 result stored in a software pipeline over the tiles
    #: (:mod:`.plane_pipeline`): one flat tile loop, the output accumulator in one more copy
    #: than there are planes.
    plane_pipeline: bool = False

    def describe(self) -> str:
        order = "b, o, i" if self.b_outer else "o, b, i"
        db = "double-buffered" if self.double_buffer else "single-buffered"
        planes = ", byte planes pipelined over the tiles" if self.plane_pipeline else ""
        return (f"tile {self.tb}x{self.to}x{self.ti} (b x o x i elements), loops {order}, "
                f"input {self.inp.value}, weights {self.wgt.value}, {db}{planes}")


@dataclass(frozen=True)
class Estimate:
    """DRAM traffic per buffer and modelled cycles (with each module's busy cycles)."""

    inp_bytes: int
    wgt_bytes: int
    acc_bytes: int
    out_bytes: int
    load: int
    compute: int
    store: int
    cycles: int

    @property
    def dram_bytes(self) -> int:
        return self.inp_bytes + self.wgt_bytes + self.acc_bytes + self.out_bytes


def pieces(n: int, t: int) -> tuple[tuple[int, int], ...]:
    """``n`` elements in tiles of ``t``: ``((t, n // t), (n % t, 1))``, without empty parts."""
    q, r = divmod(n, t)
    return tuple(p for p in ((t, q), (r, 1)) if p[0] and p[1])


def tile_count(n: int, t: int) -> int:
    return -(-n // t)


class InsnCosts:
    """Instruction costs of ``cfg`` from the timing model, memoised by size."""

    def __init__(self, cfg: VTAConfig) -> None:
        self.cfg = cfg
        self._memo: dict[tuple[str, int], int] = {}

    def _get(self, key: str, n: int) -> int:
        found = self._memo.get((key, n))
        if found is None:
            found = self._memo[(key, n)] = insn_cost(self._insn(key, n), self.cfg)
        return found

    @staticmethod
    def _insn(key: str, n: int) -> MemInsn | GemmInsn | AluInsn:
        if key == "gemm":
            return GemmInsn(uop_end=1, iter_out=1, iter_in=n)
        if key in ("alu", "alu2"):
            return AluInsn(uop_end=1, iter_out=1, iter_in=n, use_imm=int(key == "alu"))
        if key == "store":
            return MemInsn(is_store=1, memory_type=MemType.OUT, y_size=1, x_size=n)
        return MemInsn(memory_type=MemType[key], y_size=1, x_size=n)

    def load(self, mem: str, elements: int) -> int:
        """A LOAD of ``elements`` tensor elements of memory type ``mem`` (INP, WGT, ACC,
        ACC_8BIT, UOP)."""
        return self._get(mem, elements)

    def store(self, elements: int) -> int:
        return self._get("store", elements)

    def gemm(self, uops: int) -> int:
        return self._get("gemm", uops)

    def alu(self, uops: int, tensor: bool) -> int:
        return self._get("alu2" if tensor else "alu", uops)


_INIT_MEM = {"load": "ACC", "bcast": "ACC", "load8": "ACC_8BIT"}


def operand_loads(shape: RegionShape, plan: Plan, which: str) -> list[tuple[int, int]]:
    """The loads of the input (``which == "inp"``) or weight buffer: ``(count, elements)``."""
    own, other = (shape.b, shape.o) if which == "inp" else (shape.o, shape.b)
    t_own, t_other = (plan.tb, plan.to) if which == "inp" else (plan.to, plan.tb)
    res = plan.inp if which == "inp" else plan.wgt
    own_outer = plan.b_outer == (which == "inp")
    n_other, ni = tile_count(other, t_other), shape.i // plan.ti
    if res is Residency.ALL:
        return [(1, own * shape.i)]
    if res is Residency.ROW:
        repeat = 1 if own_outer else n_other
        return [(c * repeat, s * shape.i) for s, c in pieces(own, t_own)]
    return [(c * n_other * ni, s * plan.ti) for s, c in pieces(own, t_own)]


def footprint(shape: RegionShape, plan: Plan) -> dict[str, int]:
    """SRAM elements the plan allocates (doubled buffers counted twice; a pipeline of byte
    planes holds ``stores + 1`` output accumulator tiles)."""
    acc_tiles = shape.accs + (shape.stores if plan.plane_pipeline else 0)
    use = {"inp": 0, "wgt": 0, "acc": acc_tiles * plan.tb * plan.to}
    if not shape.i:
        return use
    for which, rows, full in (("inp", plan.tb, shape.b), ("wgt", plan.to, shape.o)):
        res = plan.inp if which == "inp" else plan.wgt
        size = {Residency.TILE: rows * plan.ti, Residency.ROW: rows * shape.i,
                Residency.ALL: full * shape.i}[res]
        use[which] = size * (2 if double_buffered(shape, plan, which) else 1)
    return use


def loaded_repeatedly(shape: RegionShape, plan: Plan, which: str) -> bool:
    return sum(c for c, _ in operand_loads(shape, plan, which)) > 1


def double_buffered(shape: RegionShape, plan: Plan, which: str) -> bool:
    """Whether the plan gives the input (``"inp"``) or weight buffer two copies: when it
    double-buffers and the buffer is loaded more than once."""
    return bool(shape.i) and plan.double_buffer and loaded_repeatedly(shape, plan, which)


def estimate(shape: RegionShape, plan: Plan, cfg: VTAConfig,
             costs: InsnCosts | None = None) -> Estimate:
    """DRAM bytes per buffer and the closed-form cycle estimate of ``plan`` (module
    docstring)."""
    costs = costs or InsnCosts(cfg)
    ni = shape.i // plan.ti if shape.i else 1
    nb, no = tile_count(shape.b, plan.tb), tile_count(shape.o, plan.to)
    load = inp_el = wgt_el = 0
    first_load = 0
    if shape.i:
        for which, mem in (("inp", "INP"), ("wgt", "WGT")):
            loads = operand_loads(shape, plan, which)
            load += sum(c * costs.load(mem, e) for c, e in loads)
            total = sum(c * e for c, e in loads)
            if which == "inp":
                inp_el = total
            else:
                wgt_el = total
            first_load += costs.load(mem, loads[0][1])
    compute = store = gemm = acc_el = acc8_el = 0
    gemm_step = epilogue = init = 0
    for sb, cb in pieces(shape.b, plan.tb):
        for so, co in pieces(shape.o, plan.to):
            n, area = cb * co, sb * so
            init = init_cost(shape, costs, area)
            for kind in shape.inits:
                if kind == "load8":
                    acc8_el += n * area
                elif not kind.startswith("fill"):
                    acc_el += n * area
            if shape.i:
                # Three tile loops above one element: the outermost stays a host loop
                # (vta-fold-uop-loops folds two), one GEMM per iteration.
                insns = sb if min(sb, so, plan.ti) > 1 else 1
                gemm_step = insns * costs.gemm(area * plan.ti // insns)
                gemm += n * ni * gemm_step
            epilogue = epilogue_cost(shape, costs, area)
            compute += n * (init + epilogue)
            store += n * shape.stores * costs.store(area)
            epilogue += shape.stores * costs.store(area)
    compute += gemm + _uop_loads(shape, plan, costs, nb, no, ni)
    # Compute path: the first tiles must arrive; the single accumulator buffer makes each
    # tile's initialisation wait for the previous tile's store.
    compute_path = first_load + compute + store
    # Load path.  Each time the innermost loading loop starts again, its tokens are drained
    # and primed anew: the loads wait for the last GEMMs, the epilogue and store of that tile
    # and the initialisation of the next.  After the last load, the GEMMs using it remain (one
    # i step when an operand is loaded per i step, else the tile's reduction) and the epilogue.
    restarts = _restarts(shape, plan, nb, no, ni) if shape.i else 0
    in_i_loop = ni > 1 and Residency.TILE in (plan.inp, plan.wgt)
    steps = 1 if in_i_loop else ni
    tail = steps * gemm_step + epilogue
    # Loads in the i loop start once the compute module reaches it, after the first tile's
    # initialisation.
    head = init if in_i_loop else 0
    if plan.double_buffer:
        load_path = head + load + restarts * (tail + init) + tail
    else:
        # One buffer each: every load also waits for the GEMM that read the previous tile.
        load_path = head + load + gemm + restarts * (epilogue + init) + epilogue
    cycles = max(load_path, compute_path)
    return Estimate(
        inp_bytes=inp_el * cfg.inp_elem_bytes,
        wgt_bytes=wgt_el * cfg.wgt_elem_bytes,
        acc_bytes=acc_el * cfg.acc_elem_bytes + acc8_el * cfg.acc8_elem_bytes,
        out_bytes=shape.b * shape.o * cfg.out_elem_bytes,
        load=load, compute=compute, store=store, cycles=cycles,
    )


def init_cost(shape: RegionShape, costs: InsnCosts, area: int) -> int:
    """Compute cycles initialising the accumulator tiles of ``area`` elements."""
    cycles = 0
    for kind in shape.inits:
        if kind.startswith("fill"):
            cycles += costs.gemm(area) + (costs.alu(area, False) if kind == "fill+" else 0)
        else:
            cycles += costs.load(_INIT_MEM[kind], area)
    return cycles


def epilogue_cost(shape: RegionShape, costs: InsnCosts, area: int) -> int:
    """Compute cycles of the element-wise ops on a tile of ``area`` elements."""
    return shape.alu_imm * costs.alu(area, False) + shape.alu_tensor * costs.alu(area, True)


def _restarts(shape: RegionShape, plan: Plan, nb: int, no: int, ni: int) -> int:
    """How many times the innermost loop that loads an operand starts again after its first
    run."""
    if ni > 1 and Residency.TILE in (plan.inp, plan.wgt):
        return nb * no - 1
    inner_loads = (plan.wgt is Residency.ROW) if plan.b_outer else (plan.inp is Residency.ROW)
    outer_trips = nb if plan.b_outer else no
    return outer_trips - 1 if inner_loads else 0


def _uop_loads(shape: RegionShape, plan: Plan, costs: InsnCosts, nb: int, no: int, ni: int) -> int:
    """LOAD UOP cycles: every distinct micro-kernel is loaded once (the micro-op cache keeps
    it).  A GEMM's micro-op holds its SRAM positions, so kernels differ per buffer copy, per
    iteration of a host loop left around it, and per sub-tile of a resident operand."""
    shapes = len(pieces(shape.b, plan.tb)) * len(pieces(shape.o, plan.to))
    fills = sum(kind.startswith("fill") for kind in shape.inits)
    kernels = (fills + shape.alu_imm + shape.alu_tensor) * shapes
    if shape.i:
        variants = 2 if plan.double_buffer else 1
        if ni > 1 and Residency.TILE not in (plan.inp, plan.wgt):
            variants *= ni
        if plan.inp is Residency.ALL:
            variants *= nb
        if plan.wgt is Residency.ALL:
            variants *= no
        host = plan.tb if min(plan.tb, plan.to, plan.ti) > 1 else 1
        kernels += min(host * variants, nb * no * ni * host)
    return kernels * costs.load("UOP", 1)


class _Replay:
    """The plan's commands replayed in program order on the three modules: a GEMM step waits
    for its operands' loads, a load for the last GEMM that read the buffer copy it overwrites,
    a tile's initialisation for the previous tile's store (one accumulator buffer), a store for
    its tile's epilogue."""

    def __init__(self, shape: RegionShape, plan: Plan, costs: InsnCosts) -> None:
        self.shape, self.plan, self.costs = shape, plan, costs
        self.copies = {w: 2 if double_buffered(shape, plan, w) else 1 for w in ("inp", "wgt")}
        self.load_t = self.store_t = self.acc_free = 0
        self.compute_t = 0
        self.ready = {"inp": 0, "wgt": 0}
        self.current = {"inp": 0, "wgt": 0}
        self.count = {"inp": 0, "wgt": 0}
        self.released = {(w, c): 0 for w in ("inp", "wgt") for c in (0, 1)}

    def load(self, which: str, elements: int) -> None:
        copy = self.count[which] % self.copies[which]
        self.count[which] += 1
        start = max(self.load_t, self.released[(which, copy)])
        self.load_t = start + self.costs.load(which.upper(), elements)
        self.ready[which], self.current[which] = self.load_t, copy

    def tile(self, sb: int, so: int, ni: int) -> None:
        s, p, costs = self.shape, self.plan, self.costs
        area = sb * so
        self.compute_t = max(self.compute_t, self.acc_free) + init_cost(s, costs, area)
        insns = sb if min(sb, so, p.ti) > 1 else 1
        step = insns * costs.gemm(area * p.ti // insns) if s.i else 0
        if s.i and Residency.TILE in (p.inp, p.wgt):
            # The i loop's tokens are primed by the compute module as it reaches the loop.
            self.load_t = max(self.load_t, self.compute_t)
        for _ in range(ni if s.i else 0):
            if p.inp is Residency.TILE:
                self.load("inp", sb * p.ti)
            if p.wgt is Residency.TILE:
                self.load("wgt", so * p.ti)
            self.compute_t = max(self.compute_t, self.ready["inp"], self.ready["wgt"]) + step
            for w in ("inp", "wgt"):
                self.released[(w, self.current[w])] = self.compute_t
        self.compute_t += epilogue_cost(s, costs, area)
        self.store_t = max(self.store_t, self.compute_t) + s.stores * costs.store(area)
        self.acc_free = self.store_t

    def run(self, uop_cycles: int) -> int:
        s, p = self.shape, self.plan
        ni = s.i // p.ti if s.i else 1
        if s.i:
            for which, full in (("inp", s.b), ("wgt", s.o)):
                if (p.inp if which == "inp" else p.wgt) is Residency.ALL:
                    self.load(which, full * s.i)
            # Loaded before the tile loops: the loops' first compute command waits for them.
            self.compute_t = self.load_t
        # Micro-kernels are loaded (once each) by the compute module as they are first used.
        self.compute_t += uop_cycles
        dims = [("inp", s.b, p.tb), ("wgt", s.o, p.to)]
        outer, inner = dims if p.b_outer else dims[::-1]
        nested = tile_count(inner[1], inner[2]) > 1
        for s1, c1 in pieces(outer[1], outer[2]):
            for _ in range(c1):
                if self.row_load(outer[0], s1, nested):
                    # Its token is popped before the inner tile loop, by the first tile's
                    # initialisation.
                    self.compute_t = max(self.compute_t, self.load_t)
                for s2, c2 in pieces(inner[1], inner[2]):
                    for _ in range(c2):
                        self.row_load(inner[0], s2)
                        sb, so = (s1, s2) if p.b_outer else (s2, s1)
                        self.tile(sb, so, ni)
        return max(self.load_t, self.compute_t, self.store_t)

    def row_load(self, which: str, rows: int, nested: bool = False) -> bool:
        """Load the rows of a ``ROW`` operand (its buffer reused by a nested tile loop when
        ``nested``); whether there was one."""
        if not (self.shape.i and (self.plan.inp if which == "inp" else self.plan.wgt)
                is Residency.ROW):
            return False
        if nested and self.copies[which] == 1:
            # One buffer under a nested loop: its carried token comes after the loop, once
            # the last tile's store is done.
            self.load_t = max(self.load_t, self.acc_free)
        self.load(which, rows * self.shape.i)
        return True


def replay(shape: RegionShape, plan: Plan, cfg: VTAConfig, costs: InsnCosts | None = None,
           limit: int = REPLAY_LIMIT) -> int | None:
    """Cycles of ``plan`` with every command replayed (:class:`_Replay`); ``None`` when the
    plan has more than ``limit`` GEMM steps or tiles."""
    costs = costs or InsnCosts(cfg)
    ni = shape.i // plan.ti if shape.i else 1
    nb, no = tile_count(shape.b, plan.tb), tile_count(shape.o, plan.to)
    if nb * no * ni > limit:
        return None
    return _Replay(shape, plan, costs).run(_uop_loads(shape, plan, costs, nb, no, ni))
