"""Shared by the ``vta-coproc-sync`` tests: parsing and synchronising programs, running
them in a random module order or strictly one command after the other, and the
programs they run (the blocked matrix multiply, random command sequences)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

import vta_mlir.host.lowering as lowering
from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import DepPopOp, DepPushOp, StageOp, set_module_config
from vta_mlir.host import lower_to_binary
from vta_mlir.ir.context import make_context, parse_module
from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.isa import FinishInsn
from vta_mlir.passes.coproc_sync import CoprocSyncPass
from vta_mlir.runtime import Device
from vta_mlir.runtime.command_builder import CommandBuilder
from vta_mlir.sim.simulator import Simulator

from .numerics import random_args, run_binary, within

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "vta"


# ---------------------------------------------------------------------------------------------
# Helpers


def parse(text: str, cfg: VTAConfig | None = None):
    module = parse_module(text, filename="test.mlir")
    if cfg is not None:
        set_module_config(module, cfg)
    return module


def sync(text: str, cfg: VTAConfig | None = None, **options: Any):
    """The module of ``text`` after the pass (verified)."""
    module = parse(text, cfg)
    CoprocSyncPass(**options).apply(make_context(), module)
    verify_op(module)
    return module


def strip_sync(module) -> None:
    """Remove every token operation and inline every stage: the program of stage 5."""
    for op in list(module.walk()):
        if isinstance(op, DepPushOp | DepPopOp):
            op.detach()
            op.erase()
    for op in list(module.walk()):
        if isinstance(op, StageOp):
            block = op.parent_block()
            assert block is not None
            for inner in list(op.body.block.ops):
                inner.detach()
                block.insert_op_before(inner, op)
            op.detach()
            op.erase()


class RandomOrderSimulator(Simulator):
    """A simulator that, at every step, runs one instruction of a module picked at random
    among those whose next instruction can run: any interleaving the tokens allow."""

    def __init__(self, cfg: VTAConfig, seed: int) -> None:
        super().__init__(cfg)
        self.rng = random.Random(seed)

    def _schedule(self, stream, plan, st) -> None:  # type: ignore[no-untyped-def]
        tok, heads = st.tokens, st.heads
        while True:
            ready = [m for m, queue in enumerate(plan.queues) if heads[m] < len(queue)
                     and all(tok[k] > 0 for k in plan.pops[queue[heads[m]]])]
            if not ready:
                return
            m = self.rng.choice(ready)
            i = plan.queues[m][heads[m]]
            for k in plan.pops[i]:
                tok[k] -= 1
            self.executor.execute(stream[i])
            for k in plan.pushes[i]:
                tok[k] += 1
            heads[m] += 1
            if st.finished:
                st.late.append(i)
            elif isinstance(stream[i], FinishInsn):
                st.finished = True


def device(cfg: VTAConfig, seed: int | None = None) -> Device:
    dev = Device(cfg)
    if seed is not None:
        dev.sim = RandomOrderSimulator(cfg, seed)
    return dev


class SerialBuilder(CommandBuilder):
    """Closes the run after every command: each command runs alone, in program order."""

    def load_buffer_2d(self, *args: Any) -> None:
        super().load_buffer_2d(*args)
        self.synchronize()

    def store_buffer_2d(self, *args: Any) -> None:
        super().store_buffer_2d(*args)
        self.synchronize()

    def push_gemm(self, *args: Any) -> None:
        super().push_gemm(*args)
        self.synchronize()

    def push_alu(self, *args: Any) -> None:
        super().push_alu(*args)
        self.synchronize()


@contextmanager
def serial_lowering() -> Iterator[None]:
    saved = lowering.CommandBuilder
    lowering.CommandBuilder = SerialBuilder  # type: ignore[misc]
    try:
        yield
    finally:
        lowering.CommandBuilder = saved  # type: ignore[misc]


def run(binary, cfg: VTAConfig, inputs: dict[str, np.ndarray],
        seed: int | None = None) -> tuple[dict[str, np.ndarray], Any]:
    """Outputs by name and the run statistics."""
    return run_binary(binary, cfg, inputs, device(cfg, seed))


def serial_reference(text: str, cfg: VTAConfig,
                     inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """What the unsynchronised program computes with its commands run strictly in order."""
    with serial_lowering():
        binary = lower_to_binary(parse(text, cfg))
    outs, stats = run(binary, cfg, inputs)
    assert not stats.warnings
    return outs


def stage_ops(module) -> list[str]:
    """The synchronisation skeleton: loops, stages and token operations, one per line."""
    lines = []
    for op in module.walk():
        if isinstance(op, StageOp):
            lines.append(f"stage {op.kind.value}")
        elif isinstance(op, DepPushOp):
            lines.append(f"push {op.src.value}->{op.dst.value}")
        elif isinstance(op, DepPopOp):
            lines.append(f"pop {op.src.value}->{op.dst.value}")
        elif op.name == "affine.for":
            lines.append("for")
    return lines


# ---------------------------------------------------------------------------------------------
# Programs


class _Types:
    """The memref types of :func:`_dense`'s arguments and SRAM buffers."""

    def __init__(self, cfg: VTAConfig, n_o: int, n_i: int, tile: int, copies: int) -> None:
        b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
        self.x = f"memref<1x{n_i}x{b}x{bi}xi8>"
        self.w = f"memref<{n_o}x{n_i}x{bo}x{bi}xi8>"
        self.y = f"memref<1x{n_o}x{b}x{bo}xi8>"
        self.inp = f"memref<{copies * tile}x{b}x{bi}xi8, #vta.sram<inp>>"
        self.wgt = f"memref<{copies * tile * tile}x{bo}x{bi}xi8, #vta.sram<wgt>>"
        self.acc = f"memref<{tile}x{b}x{bo}xi32, #vta.sram<acc>>"


def _dense(t: _Types, oc: int, tile: int, body: str, double_buffer: bool) -> str:
    """``@dense`` (y = int8(clip(x·wᵀ >> 8, 0, 127))) of the types ``t`` over ``oc`` output
    tiles of ``tile`` blocks: per tile a reset, ``body`` (its input steps, written by
    :func:`_step`), the epilogue and the store."""
    alus = "".join(
        f"    vta.uop_loop {tile} dst 1 src 1 {{\n"
        f"      vta.alu {op} %acc[0], {imm} : {t.acc}\n    }}\n"
        for op, imm in (("shr", 8), ("max", 0), ("min", 127)))
    attr = " {vta.double_buffer}" if double_buffer else ""
    return f"""
func.func @dense(%x: {t.x}, %w: {t.w}, %y: {t.y}) {{
  %inp = memref.alloc() : {t.inp}
  %wgt = memref.alloc() : {t.wgt}
  %acc = memref.alloc() : {t.acc}
  affine.for %oc = 0 to {oc} {{
    vta.uop_loop {tile} dst 1 {{
      vta.gemm_reset %acc[0] : {t.acc}
    }}
{body}{alus}    %yo = affine.apply affine_map<(d0) -> (d0 * {tile})> (%oc)
    vta.dma_copy %acc[0] -> %y[%yo] y 1 x {tile} stride {tile} : {t.acc} -> {t.y}
  }}{attr}
  func.return
}}
"""


def _step(t: _Types, tile: int, n_i: int, xo: str, wo: str, p: str, q: str,
          indent: str) -> str:
    """One input step of :func:`_dense`: the input tile at ``xo`` into copy offset ``p``, the
    weight tile at ``wo`` into ``q``, and the GEMM."""
    return "".join(indent + line + "\n" for line in (
        f"vta.dma_copy %x[{xo}] -> %inp[{p}] y 1 x {tile} stride {n_i} : {t.x} -> {t.inp}",
        f"vta.dma_copy %w[{wo}] -> %wgt[{q}] y {tile} x {tile} stride {n_i} : {t.w} -> {t.wgt}",
        f"vta.uop_loop {tile} dst 1 wgt {tile} {{",
        f"  vta.uop_loop {tile} src 1 wgt 1 {{",
        f"    vta.gemm %acc[0] += %inp[{p}] * %wgt[{q}] : {t.acc}, {t.inp}, {t.wgt}",
        "  }",
        "}"))


def blocked_matmul(cfg: VTAConfig, *, oc: int = 2, ic: int = 3, tile: int = 2,
                   double_buffer: bool = False, copies: int = 2) -> str:
    """``matrix_multiply_opt`` at stage 5 for ``cfg``: y = int8(clip(x·wᵀ >> 8, 0, 127)) with
    ``oc × ic`` tiles of ``tile × tile`` blocks; with ``double_buffer`` the input and weight
    buffers hold ``copies`` copies selected by the inner loop's variable modulo ``copies``."""
    n_i = ic * tile
    copies = copies if double_buffer else 1
    t = _Types(cfg, oc * tile, n_i, tile, copies)
    if double_buffer:
        sel = (f"      %p = affine.apply affine_map<(d0) -> ((d0 mod {copies}) * {tile})> (%ic)\n"
               f"      %q = affine.apply affine_map<(d0) -> ((d0 mod {copies}) * {tile * tile})>"
               " (%ic)\n")
        p, q = "%p", "%q"
    else:
        sel, p, q = "", "0", "0"
    body = (f"    affine.for %ic = 0 to {ic} {{\n{sel}"
            f"      %xo = affine.apply affine_map<(d0) -> (d0 * {tile})> (%ic)\n"
            f"      %wo = affine.apply affine_map<(d0, d1) -> (d0 * {tile * n_i} + d1 * {tile})>"
            " (%oc, %ic)\n"
            + _step(t, tile, n_i, "%xo", "%wo", p, q, "      ") + "    }\n")
    return _dense(t, oc, tile, body, double_buffer)


def streamed_matmul(cfg: VTAConfig, *, oc: int = 4, steps: int = 4, tile: int = 2) -> str:
    """:func:`blocked_matmul`'s product with its ``steps`` input steps written out in each
    output tile, the input and weight tiles of step ``k`` in copy ``k mod 2``: a step's loads
    wait for the GEMM two steps before in the same tile (forward tokens), and the first two
    steps' for the last two GEMMs of the tile before (carried)."""
    n_i = steps * tile
    t = _Types(cfg, oc * tile, n_i, tile, 2)
    body = ""
    for k in range(steps):
        body += (f"    %wo{k} = affine.apply affine_map<(d0) -> (d0 * {tile * n_i} + {k * tile})>"
                 " (%oc)\n"
                 + _step(t, tile, n_i, str(k * tile), f"%wo{k}", str((k % 2) * tile),
                         str((k % 2) * tile * tile), "    "))
    return _dense(t, oc, tile, body, True)


def blocked_matmul_reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """numpy result of :func:`blocked_matmul` on its packed arguments."""
    _, n_i, b, bi = x.shape
    n_o, _, bo, _ = w.shape
    xl = x.transpose(0, 2, 1, 3).reshape(b, n_i * bi).astype(np.int64)
    wl = w.transpose(0, 2, 1, 3).reshape(n_o * bo, n_i * bi).astype(np.int64)
    acc = (xl @ wl.T).astype(np.int32)  # wraps as the accumulator does
    out = np.clip(acc >> 8, 0, 127).astype(np.int8)
    return out.reshape(b, n_o, bo).transpose(1, 0, 2)[None]


class _Gen:
    """A random unsynchronised host program on configuration ``cfg``."""

    N_SRAM = 4  # elements of each SRAM buffer
    N_DRAM = 8  # elements of each DRAM buffer

    def __init__(self, cfg: VTAConfig, seed: int) -> None:
        self.rng = random.Random(seed)
        b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
        n, d = self.N_SRAM, self.N_DRAM
        self.t = {
            "inp": f"memref<{n}x{b}x{bi}xi8, #vta.sram<inp>>",
            "wgt": f"memref<{n}x{bo}x{bi}xi8, #vta.sram<wgt>>",
            "acc0": f"memref<{n}x{b}x{bo}xi32, #vta.sram<acc>>",
            "acc1": f"memref<{n}x{b}x{bo}xi32, #vta.sram<acc>>",
            "x": f"memref<{d}x{b}x{bi}xi8>",
            "w": f"memref<{d}x{bo}x{bi}xi8>",
            "a": f"memref<{d}x{b}x{bo}xi32>",
            "y": f"memref<{d}x{b}x{bo}xi8>",
            "z": f"memref<{d}x{b}x{bo}xi8>",
        }
        self.lines: list[str] = []
        self.names = 0
        self.ivs: list[str] = []

    def emit(self, text: str, depth: int) -> None:
        self.lines.append("  " * depth + text)

    def pos(self, n: int, size: int, depth: int) -> str:
        """A position for ``size`` elements in a buffer of ``n``: a constant, or one that moves
        with a loop variable (often with its parity)."""
        top = n - size
        if not self.ivs or self.rng.random() < 0.4:
            return str(self.rng.randint(0, top))
        iv = self.rng.choice(self.ivs)
        m = self.rng.choice([2, 2, top + 1]) if top >= 1 else 1
        c = self.rng.randint(0, m - 1)
        self.names += 1
        name = f"%p{self.names}"
        self.emit(f"{name} = affine.apply affine_map<(d0) -> ((d0 + {c}) mod {m})> ({iv})",
                  depth)
        return name

    def acc(self) -> str:
        return self.rng.choice(["acc0", "acc1"])

    def command(self, depth: int) -> None:
        t, n, d = self.t, self.N_SRAM, self.N_DRAM
        kind = self.rng.choice(["inp", "inp", "wgt", "wgt", "acc", "acc8", "gemm", "gemm",
                                "gemm_loop", "reset", "alu", "alu_tensor", "store", "store"])
        size = self.rng.choice([1, 2])
        if kind in ("inp", "wgt", "acc", "acc8"):
            src = {"inp": self.rng.choice(["x", "x", "y"]), "wgt": "w", "acc": "a",
                   "acc8": "y"}[kind]
            dst = kind if kind in ("inp", "wgt") else self.acc()
            sp, dp = self.pos(n, size, depth), self.pos(d, size, depth)
            self.emit(f"vta.dma_copy %{src}[{dp}] -> %{dst}[{sp}] y 1 x {size} stride {size} "
                      f": {t[src]} -> {t[dst]}", depth)
        elif kind == "store":
            src = self.acc()
            sp, dp = self.pos(n, size, depth), self.pos(d, size, depth)
            self.emit(f"vta.dma_copy %{src}[{sp}] -> %y[{dp}] y 1 x {size} stride {size} "
                      f": {t[src]} -> {t['y']}", depth)
        elif kind in ("gemm", "gemm_loop"):
            acc = self.acc()
            span = 2 if kind == "gemm_loop" else 1
            dp, sp, wp = (self.pos(n, span, depth) for _ in range(3))
            uop = (f"vta.gemm %{acc}[{dp}] += %inp[{sp}] * %wgt[{wp}] "
                   f": {t[acc]}, {t['inp']}, {t['wgt']}")
            if span == 1:
                self.emit(uop, depth)
            else:
                self.emit("vta.uop_loop 2 dst 1 src 1 wgt 1 {", depth)
                self.emit(uop, depth + 1)
                self.emit("}", depth)
        elif kind == "reset":
            acc = self.acc()
            self.emit(f"vta.gemm_reset %{acc}[{self.pos(n, 1, depth)}] : {t[acc]}", depth)
        elif kind == "alu":
            acc = self.acc()
            op, imm = self.rng.choice([("add", 3), ("max", -5), ("min", 40), ("shr", 1)])
            self.emit(f"vta.alu {op} %{acc}[{self.pos(n, 1, depth)}], {imm} : {t[acc]}", depth)
        else:
            dst, src = self.acc(), self.acc()
            dp, sp = self.pos(n, 1, depth), self.pos(n, 1, depth)
            self.emit(f"vta.alu add %{dst}[{dp}], %{src}[{sp}] : {t[dst]}, {t[src]}", depth)

    def commands(self, depth: int, count: int) -> None:
        for _ in range(count):
            self.command(depth)

    def program(self) -> str:
        rng, t = self.rng, self.t
        self.emit("func.func @f(" + ", ".join(f"%{k}: {t[k]}" for k in "xwayz") + ") {", 0)
        for buf in ("inp", "wgt", "acc0", "acc1"):
            self.emit(f"%{buf} = memref.alloc() : {t[buf]}", 1)
        self.commands(1, rng.randint(0, 2))
        attr = " {vta.double_buffer}" if rng.random() < 0.5 else ""
        self.emit(f"affine.for %i = 0 to {rng.randint(1, 4)} {{", 1)
        self.ivs.append("%i")
        self.commands(2, rng.randint(1, 4))
        if rng.random() < 0.6:
            self.emit(f"affine.for %j = 0 to {rng.randint(1, 3)} {{", 2)
            self.ivs.append("%j")
            self.commands(3, rng.randint(1, 4))
            self.ivs.pop()
            self.emit("}", 2)
            self.commands(2, rng.randint(0, 3))
        self.ivs.pop()
        self.emit("}" + attr, 1)
        self.commands(1, rng.randint(0, 2))
        self.finish()
        return "\n".join(self.lines) + "\n"

    def finish(self) -> None:
        t = self.t
        # Make the whole accumulator state visible.
        for k, acc in enumerate(("acc0", "acc1")):
            self.emit(f"vta.dma_copy %{acc}[0] -> %z[{4 * k}] y 1 x 4 stride 4 "
                      f": {t[acc]} -> {t['z']}", 1)
        self.emit("func.return", 1)
        self.emit("}", 0)

    def pipeline(self) -> str:
        """A double-buffered GEMM pipeline with random commands mixed in: each tile goes to
        the half of ``inp`` / ``wgt`` the inner loop's parity selects, or the loop is unrolled
        by two over the two halves."""
        rng, t = self.rng, self.t
        self.emit("func.func @f(" + ", ".join(f"%{k}: {t[k]}" for k in "xwayz") + ") {", 0)
        for buf in ("inp", "wgt", "acc0", "acc1"):
            self.emit(f"%{buf} = memref.alloc() : {t[buf]}", 1)
        self.commands(1, rng.randint(0, 1))
        attr = " {vta.double_buffer}" if rng.random() < 0.8 else ""
        self.emit(f"affine.for %i = 0 to {rng.randint(1, 3)} {{", 1)
        self.ivs.append("%i")
        self.emit(f"vta.uop_loop 2 dst 1 {{ vta.gemm_reset %acc0[0] : {t['acc0']} }}", 2)
        unrolled = rng.random() < 0.4
        step = 2 if unrolled else 1
        self.emit(f"affine.for %j = 0 to {rng.randint(1, 5) * step} step {step} {{", 2)
        self.ivs.append("%j")
        if not unrolled:
            self.emit("%h = affine.apply affine_map<(d0) -> ((d0 mod 2) * 2)> (%j)", 3)
        for half in ("0", "2") if unrolled else ("%h",):
            for src, dst in (("x", "inp"), ("w", "wgt")):
                dp = self.pos(self.N_DRAM, 2, 3)
                self.emit(f"vta.dma_copy %{src}[{dp}] -> %{dst}[{half}] y 1 x 2 stride 2 "
                          f": {t[src]} -> {t[dst]}", 3)
                if rng.random() < 0.2:
                    self.command(3)
            self.emit("vta.uop_loop 2 dst 1 src 1 wgt 1 {", 3)
            self.emit(f"vta.gemm %acc0[0] += %inp[{half}] * %wgt[{half}] "
                      f": {t['acc0']}, {t['inp']}, {t['wgt']}", 4)
            self.emit("}", 3)
            if rng.random() < 0.3:
                self.command(3)
        self.ivs.pop()
        self.emit("}", 2)
        self.commands(2, rng.randint(0, 2))
        self.emit(f"vta.dma_copy %acc0[0] -> %y[%i] y 1 x 2 stride 2 : {t['acc0']} -> {t['y']}",
                  2)
        self.ivs.pop()
        self.emit("}" + attr, 1)
        self.finish()
        return "\n".join(self.lines) + "\n"


def random_program(cfg: VTAConfig, seed: int) -> str:
    """Odd seeds: a double-buffered pipeline with random commands mixed in; even seeds: random
    commands in one or two loops."""
    gen = _Gen(cfg, seed)
    return gen.pipeline() if seed % 2 else gen.program()


#: The protocol of docs/pipeline.md §6 (matrix_multiply_opt), as stage_ops() lists it.
WALKTHROUGH = [
    "push compute->load",
    "push store->compute",
    "for",
    "stage compute", "pop store->compute",
    "for",
    "stage load", "pop compute->load", "push load->compute",
    "stage compute", "pop load->compute", "push compute->load",
    "pop compute->load",
    "stage compute", "push compute->load", "push compute->store",
    "stage store", "pop compute->store", "push store->compute",
    "pop compute->load",
    "pop store->compute",
]


def check_blocked_matmul(text: str, cfg: VTAConfig, module=None, seeds=(None, 1, 2)) -> int:
    """Lower, run (in the simulator's order and in random ones) and compare with numpy;
    returns the cycles of the simulator's own order."""
    module = module if module is not None else sync(text, cfg)
    binary = lower_to_binary(module)
    inputs = random_args(binary.args, 7, within(100))
    want = blocked_matmul_reference(inputs["x"], inputs["w"])
    cycles = 0
    for seed in seeds:
        got, stats = run(binary, cfg, inputs, seed)
        assert not stats.warnings
        np.testing.assert_array_equal(got["y"], want)
        if seed is None:
            cycles = stats.cycles
    return cycles
