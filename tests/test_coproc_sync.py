"""``vta-coproc-sync``: stages and dependency tokens, checked by running the result.

* TVM's tutorials, written without stages and tokens, get back exactly the protocol TVM
  generated: their lowered instruction streams equal those of ``examples/vta/``;
* the blocked matrix multiply of ``docs/pipeline.md`` (at stage 5, sized for each shipped
  configuration) runs against numpy on every configuration, with the configuration given as
  the ``vta.config`` attribute or through ``vta-opt --config``;
* double buffering (a ``vta.double_buffer`` loop whose buffers alternate with the parity)
  primes two tokens and takes fewer cycles than ``double-buffer=false``, with the same result;
* random programs (loads, GEMMs, ALU ops and stores over a few buffers inside one or two loops,
  with positions that vary with the loop variables) give, after the pass, the result of running
  the same commands strictly one after the other, whatever order the modules' instructions are
  interleaved in (a simulator that picks the next module at random), with no deadlock and no
  token left over;
* the random interleaving does find the races of a program without tokens (so the check above
  can fail), and input that is already synchronised is left alone;
* the examples taken to stage 5 by the passes before this one run like their serial version;
* unsupported input is a diagnostic at the op.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import vta_mlir.host.lowering as lowering
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects.vta import DepPopOp, DepPushOp, StageOp, set_module_config
from vta_mlir.host import lower_to_binary
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError, verify_op
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


def blocked_matmul(cfg: VTAConfig, *, oc: int = 2, ic: int = 3, tile: int = 2,
                   double_buffer: bool = False) -> str:
    """``matrix_multiply_opt`` at stage 5 for ``cfg``: y = int8(clip(x·wᵀ >> 8, 0, 127)) with
    ``oc × ic`` tiles of ``tile × tile`` blocks; with ``double_buffer`` the input and weight
    buffers hold two copies selected by the parity of the inner loop."""
    b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    n_o, n_i = oc * tile, ic * tile
    copies = 2 if double_buffer else 1
    x_t = f"memref<1x{n_i}x{b}x{bi}xi8>"
    w_t = f"memref<{n_o}x{n_i}x{bo}x{bi}xi8>"
    y_t = f"memref<1x{n_o}x{b}x{bo}xi8>"
    inp_t = f"memref<{copies * tile}x{b}x{bi}xi8, #vta.sram<inp>>"
    wgt_t = f"memref<{copies * tile * tile}x{bo}x{bi}xi8, #vta.sram<wgt>>"
    acc_t = f"memref<{tile}x{b}x{bo}xi32, #vta.sram<acc>>"
    if double_buffer:
        sel = (f"      %p = affine.apply affine_map<(d0) -> ((d0 mod 2) * {tile})> (%ic)\n"
               f"      %q = affine.apply affine_map<(d0) -> ((d0 mod 2) * {tile * tile})> (%ic)\n")
        p, q, attr = "%p", "%q", " {vta.double_buffer}"
    else:
        sel, p, q, attr = "", "0", "0", ""
    alus = "".join(
        f"    vta.uop_loop {tile} dst 1 src 1 {{\n"
        f"      vta.alu {op} %acc[0], {imm} : {acc_t}\n    }}\n"
        for op, imm in (("shr", 8), ("max", 0), ("min", 127)))
    return f"""
func.func @dense(%x: {x_t}, %w: {w_t}, %y: {y_t}) {{
  %inp = memref.alloc() : {inp_t}
  %wgt = memref.alloc() : {wgt_t}
  %acc = memref.alloc() : {acc_t}
  affine.for %oc = 0 to {oc} {{
    vta.uop_loop {tile} dst 1 {{
      vta.gemm reset %acc[0] : {acc_t}
    }}
    affine.for %ic = 0 to {ic} {{
{sel}      %xo = affine.apply affine_map<(d0) -> (d0 * {tile})> (%ic)
      vta.dma_copy %x[%xo] -> %inp[{p}] y 1 x {tile} stride {n_i} : {x_t} -> {inp_t}
      %wo = affine.apply affine_map<(d0, d1) -> (d0 * {tile * n_i} + d1 * {tile})> (%oc, %ic)
      vta.dma_copy %w[%wo] -> %wgt[{q}] y {tile} x {tile} stride {n_i} : {w_t} -> {wgt_t}
      vta.uop_loop {tile} dst 1 wgt {tile} {{
        vta.uop_loop {tile} src 1 wgt 1 {{
          vta.gemm %acc[0] += %inp[{p}] * %wgt[{q}] : {acc_t}, {inp_t}, {wgt_t}
        }}
      }}
    }}
{alus}    %yo = affine.apply affine_map<(d0) -> (d0 * {tile})> (%oc)
    vta.dma_copy %acc[0] -> %y[%yo] y 1 x {tile} stride {tile} : {acc_t} -> {y_t}
  }}{attr}
  func.return
}}
"""


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
            self.emit(f"vta.gemm reset %{acc}[{self.pos(n, 1, depth)}] : {t[acc]}", depth)
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
        self.emit(f"vta.uop_loop 2 dst 1 {{ vta.gemm reset %acc0[0] : {t['acc0']} }}", 2)
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


# ---------------------------------------------------------------------------------------------
# Property: the synchronised program computes what the serial one does


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_match_serial_execution(cfg: VTAConfig, seed: int) -> None:
    text = random_program(cfg, seed)
    synced = sync(text, cfg, double_buffer=seed % 3 != 0)
    binary = lower_to_binary(synced)
    inputs = random_args(binary.args, seed, within(100))
    want = serial_reference(text, cfg, inputs)
    for order in range(3):
        got, stats = run(binary, cfg, inputs, seed=1000 * seed + order)
        assert not stats.warnings, f"{stats.warnings}\n{print_module(synced)}"
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value, err_msg=f"{name}\n{text}")


def test_random_order_finds_races_without_tokens(cfg: VTAConfig) -> None:
    """The same check on programs left without tokens fails: the random interleaving is a
    real test of the protocol."""
    failures = 0
    for seed in range(12):
        text = random_program(cfg, seed)
        module = sync(text, cfg)
        strip_sync(module)
        binary = lower_to_binary(module)
        inputs = random_args(binary.args, seed, within(100))
        want = serial_reference(text, cfg, inputs)
        for order in range(3):
            got, _ = run(binary, cfg, inputs, seed=order)
            if any(not np.array_equal(got[k], v) for k, v in want.items()):
                failures += 1
                break
    assert failures >= 3


# ---------------------------------------------------------------------------------------------
# TVM's tutorials and the running example


#: The protocol of docs/pipeline.md §6 (matrix_multiply_opt), as stage_ops() lists it.
WALKTHROUGH = [
    "push store->compute",
    "for",
    "stage compute", "pop store->compute", "push compute->load",
    "for",
    "stage load", "pop compute->load", "push load->compute",
    "stage compute", "pop load->compute", "push compute->load",
    "pop compute->load",
    "stage compute", "push compute->store",
    "stage store", "pop compute->store", "push store->compute",
    "pop store->compute",
]


def _without_flags(stream: bytes) -> bytes:
    """An instruction stream with the four dependency flags of every header cleared (bits 3
    to 6 of each 16-byte instruction, docs/isa.md §2.2)."""
    out = bytearray(stream)
    for k in range(0, len(out), 16):
        out[k] &= 0x87
    return bytes(out)


@pytest.mark.parametrize("name", ["matrix_multiply", "vector_add"])
def test_tutorials_get_tvm_protocol_back(name: str) -> None:
    """The tutorials of examples/vta without their stages and tokens: the pass puts back a
    protocol that lowers to TVM's instruction streams — exactly for vector_add; for
    matrix_multiply the same instructions with the loop's primed token pushed by a NOP before
    the reset GEMM instead of after it (the first load need not wait for the reset), which is
    faster."""
    text = (EXAMPLES / f"{name}.mlir").read_text()
    bare = parse(text)
    strip_sync(bare)
    CoprocSyncPass().apply(make_context(), bare)
    verify_op(bare)
    got = lower_to_binary(bare, base=0x1000)
    want = lower_to_binary(parse(text), base=0x1000)
    if name == "vector_add":
        assert got.run_streams() == want.run_streams()
        return
    (ours,), (theirs,) = got.run_streams(), want.run_streams()
    # One more instruction: a NOP at the start that pushes the prime.
    assert len(ours) == len(theirs) + 16 and ours[:16].hex() == "20" + "00" * 15
    assert _without_flags(ours[16:]) == _without_flags(theirs)
    cycles = []
    for binary in (got, want):
        module = Device().load_module(binary)
        module(*[np.zeros(a.shape, a.dtype) for a in module.inputs])
        cycles.append(module.last_run.cycles)
    assert cycles[0] < cycles[1]


def test_running_example_gets_the_walkthrough_protocol(default_cfg: VTAConfig) -> None:
    module = sync(blocked_matmul(default_cfg, oc=4, ic=4, tile=16), default_cfg)
    assert stage_ops(module) == WALKTHROUGH


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


def test_blocked_matmul_on_every_configuration(cfg: VTAConfig) -> None:
    """The configuration comes from the module's vta.config attribute."""
    text = blocked_matmul(cfg)
    module = sync(text, cfg)
    assert stage_ops(module) == WALKTHROUGH
    check_blocked_matmul(text, cfg, module)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_blocked_matmul_through_vta_opt_config(name: str, tmp_path: Path) -> None:
    """The configuration comes from `vta-opt --config`."""
    cfg = VTAConfig.shipped(name)
    src = tmp_path / "in.mlir"
    src.write_text(blocked_matmul(cfg, double_buffer=True))
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from vta_mlir.tools.vta_opt import main; "
         "sys.exit(main())", str(src), "--config", name, "-p", "vta-coproc-sync"],
        capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    module = parse_module(proc.stdout, filename="out.mlir")
    assert lower_to_binary(module).config == cfg
    check_blocked_matmul("", cfg, module)


@pytest.mark.parametrize(("oc", "ic"), [(1, 1), (1, 3), (3, 1), (2, 2)])
@pytest.mark.parametrize("double_buffer", [False, True])
def test_trip_counts(default_cfg: VTAConfig, oc: int, ic: int, double_buffer: bool) -> None:
    """Any trip count, 1 included: tokens balance and the result is right."""
    text = blocked_matmul(default_cfg, oc=oc, ic=ic, double_buffer=double_buffer)
    module = sync(text, default_cfg)
    ops = stage_ops(module)
    check_blocked_matmul(text, default_cfg, module)
    if ic == 1:
        # No iteration follows another: the inner loop has no carried token.
        inner = ops[ops.index("for", ops.index("for") + 1):]
        assert inner[:3] == ["for", "stage load", "push load->compute"]


# ---------------------------------------------------------------------------------------------
# Double buffering


def test_double_buffering_primes_two_tokens_and_saves_cycles(cfg: VTAConfig) -> None:
    """A load-heavy GEMM whose input/weight tiles alternate between two copies: the load of
    tile k+1 overlaps the GEMM of tile k."""
    text = blocked_matmul(cfg, oc=2, ic=6, tile=2, double_buffer=True)
    deep = sync(text, cfg)
    shallow = sync(text, cfg, double_buffer=False)
    ops = stage_ops(deep)
    start = ops.index("for", ops.index("for") + 1)
    assert ops[start - 2:start] == ["push compute->load", "push compute->load"]
    assert ops.count("pop compute->load") == 3  # one in the loop, two drains
    assert stage_ops(shallow) == WALKTHROUGH
    fast = check_blocked_matmul(text, cfg, deep)
    slow = check_blocked_matmul(text, cfg, shallow)
    assert fast < slow


def test_double_buffering_needs_the_attribute(default_cfg: VTAConfig) -> None:
    text = blocked_matmul(default_cfg, double_buffer=True).replace(" {vta.double_buffer}", "")
    assert stage_ops(sync(text, default_cfg)) == WALKTHROUGH


def test_alternating_buffers_the_analysis_sees_through(default_cfg: VTAConfig) -> None:
    """Two separate buffers selected by the parity with arith.select: the analysis evaluates
    the selection per iteration, so the tokens run two deep."""
    cfg = default_cfg
    inp_t = "memref<2x1x16xi8, #vta.sram<inp>>"
    wgt_t = "memref<8x16x16xi8, #vta.sram<wgt>>"
    acc_t = "memref<2x1x16xi32, #vta.sram<acc>>"
    text = f"""
func.func @f(%x: memref<1x8x1x16xi8>, %w: memref<2x8x16x16xi8>, %y: memref<1x2x1x16xi8>) {{
  %i0 = memref.alloc() : {inp_t}
  %i1 = memref.alloc() : {inp_t}
  %wgt = memref.alloc() : {wgt_t}
  %acc = memref.alloc() : {acc_t}
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  vta.uop_loop 2 dst 1 {{ vta.gemm reset %acc[0] : {acc_t} }}
  affine.for %k = 0 to 4 {{
    %par = arith.remui %k, %c2 : index
    %even = arith.cmpi eq, %par, %c0 : index
    %inp = arith.select %even, %i0, %i1 : {inp_t}
    %xo = affine.apply affine_map<(d0) -> (d0 * 2)> (%k)
    vta.dma_copy %x[%xo] -> %inp[0] y 1 x 2 stride 8 : memref<1x8x1x16xi8> -> {inp_t}
    vta.uop_loop 2 dst 1 wgt 2 {{
      vta.uop_loop 2 src 1 wgt 1 {{
        vta.gemm %acc[0] += %inp[0] * %wgt[0] : {acc_t}, {inp_t}, {wgt_t}
      }}
    }}
  }} {{vta.double_buffer}}
  vta.dma_copy %acc[0] -> %y[0] y 1 x 2 stride 2 : {acc_t} -> memref<1x2x1x16xi8>
  func.return
}}
"""
    ops = stage_ops(sync(text, cfg))
    assert ops[:3] == ["stage compute", "push compute->load", "push compute->load"]
    assert ops.count("pop compute->load") == 3


# ---------------------------------------------------------------------------------------------
# Precision, relays, idempotence


def test_disjoint_ranges_need_no_token(default_cfg: VTAConfig) -> None:
    """The store reads accumulator elements 0..1, the ALU then rewrites 2..3: no order is
    needed between them; a store -> DRAM -> load dependence is relayed by compute."""
    acc_t = "memref<4x1x16xi32, #vta.sram<acc>>"
    inp_t = "memref<4x1x16xi8, #vta.sram<inp>>"
    text = f"""
func.func @f(%a: memref<4x1x16xi32>, %t: memref<4x1x16xi8>) {{
  %acc = memref.alloc() : {acc_t}
  %inp = memref.alloc() : {inp_t}
  vta.dma_copy %a[0] -> %acc[0] y 1 x 4 stride 4 : memref<4x1x16xi32> -> {acc_t}
  vta.dma_copy %acc[0] -> %t[0] y 1 x 2 stride 2 : {acc_t} -> memref<4x1x16xi8>
  vta.alu add %acc[2], 1 : {acc_t}
  vta.alu add %acc[3], 1 : {acc_t}
  vta.dma_copy %t[0] -> %inp[0] y 1 x 2 stride 2 : memref<4x1x16xi8> -> {inp_t}
  func.return
}}
"""
    assert stage_ops(sync(text, default_cfg)) == [
        "stage compute", "push compute->store",
        "stage store", "pop compute->store", "push store->compute",
        "stage compute",  # the ALU ops: no wait for the store
        "pop store->compute", "push compute->load",  # compute relays store -> load
        "stage load", "pop compute->load",
    ]


def test_uses_of_one_global_are_one_buffer(default_cfg: VTAConfig) -> None:
    """Two memref.get_global of one global alias: the store into one orders the load from the
    other (relayed by compute)."""
    text = """
builtin.module {
  memref.global "private" @t : memref<4x1x16xi8> = uninitialized
  func.func @f(%a: memref<4x1x16xi32>) {
    %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
    %inp = memref.alloc() : memref<4x1x16xi8, #vta.sram<inp>>
    vta.dma_copy %a[0] -> %acc[0] y 1 x 4 stride 4
        : memref<4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
    %t1 = memref.get_global @t : memref<4x1x16xi8>
    vta.dma_copy %acc[0] -> %t1[0] y 1 x 2 stride 2
        : memref<4x1x16xi32, #vta.sram<acc>> -> memref<4x1x16xi8>
    %t2 = memref.get_global @t : memref<4x1x16xi8>
    vta.dma_copy %t2[2] -> %inp[0] y 1 x 2 stride 2
        : memref<4x1x16xi8> -> memref<4x1x16xi8, #vta.sram<inp>>
    vta.dma_copy %t2[0] -> %inp[2] y 1 x 2 stride 2
        : memref<4x1x16xi8> -> memref<4x1x16xi8, #vta.sram<inp>>
    func.return
  }
}
"""
    ops = stage_ops(sync(text, default_cfg))
    # The first load reads bytes the store does not write; the second waits for the store.
    assert ops == [
        "stage compute", "push compute->store",
        "stage store", "pop compute->store", "push store->compute",
        "stage load",
        "pop store->compute", "push compute->load",
        "stage load", "pop compute->load",
    ]


def _tile_loops_then_remainder(cfg: VTAConfig, marked: bool) -> str:
    """What ``vta-tile`` makes of a GEMM whose output channels are not a multiple of the tile:
    a loop over the whole tiles around a loop over the batch rows (each row: reset the one
    accumulator tile, compute, store it), then the batch loop of the remainder tile.  The
    store of one row must precede the reset of the next (store -> compute, carried), in the
    inner loop of the first nest and in the second loop alike."""
    bo = cfg.block_out
    acc_t = f"memref<1x2x{cfg.batch}x{bo}xi32, #vta.sram<acc>>"
    y_t = f"memref<2x5x{cfg.batch}x{bo}xi8>"
    attr = " {vta.double_buffer}" if marked else ""
    return f"""
func.func @f(%y: {y_t}) {{
  %acc = memref.alloc() : {acc_t}
  affine.for %o = 0 to 2 {{
    affine.for %b = 0 to 2 {{
      vta.uop_loop 2 dst 1 {{ vta.gemm reset %acc[0] : {acc_t} }}
      vta.uop_loop 2 dst 1 src 1 {{ vta.alu add %acc[0], 3 : {acc_t} }}
      %yo = affine.apply affine_map<(d0, d1) -> (d0 * 5 + d1 * 2)> (%b, %o)
      vta.dma_copy %acc[0] -> %y[%yo] y 1 x 2 stride 2 : {acc_t} -> {y_t}
    }}
  }}{attr}
  affine.for %b = 0 to 2 {{
    vta.gemm reset %acc[0] : {acc_t}
    vta.alu add %acc[0], 5 : {acc_t}
    %yo = affine.apply affine_map<(d0) -> (d0 * 5 + 4)> (%b)
    vta.dma_copy %acc[0] -> %y[%yo] y 1 x 1 stride 1 : {acc_t} -> {y_t}
  }}{attr}
  func.return
}}
"""


@pytest.mark.parametrize("marked", [False, True])
def test_primes_stay_below_a_loop_using_their_queue(cfg: VTAConfig, marked: bool) -> None:
    """The primes of the second loop (store -> compute) may not move above the first nest,
    whose inner loop uses that queue: its pops would receive the moved prime instead of their
    own tokens, and the reset of a row would no longer wait for the store of the row before
    (this used to be an internal error of the protocol check)."""
    text = _tile_loops_then_remainder(cfg, marked)
    module = sync(text, cfg, double_buffer=True)
    ops = stage_ops(module)
    second = [i for i, op in enumerate(ops) if op == "for"][2]
    assert ops[second - 1] == "push store->compute"  # the prime, right before its loop
    binary = lower_to_binary(module)
    inputs = random_args(binary.args, 5, within(100))
    want = serial_reference(text, cfg, inputs)
    for seed in (None, 21, 22, 23):
        got, stats = run(binary, cfg, inputs, seed)
        assert not stats.warnings
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value)


def test_already_synchronised_input_is_left_alone() -> None:
    for name in ("matrix_multiply", "vector_add"):
        text = (EXAMPLES / f"{name}.mlir").read_text()
        module = parse(text)
        before = print_module(module)
        CoprocSyncPass().apply(make_context(), module)
        assert print_module(module) == before


def test_pass_is_idempotent(default_cfg: VTAConfig) -> None:
    once = sync(blocked_matmul(default_cfg, double_buffer=True), default_cfg)
    text = print_module(once)
    twice = parse(text)
    CoprocSyncPass().apply(make_context(), twice)
    assert print_module(twice) == text


def test_the_protocol_check_finds_a_missing_token(default_cfg: VTAConfig) -> None:
    from vta_mlir.dialects.vta import get_config
    from vta_mlir.passes.coproc_sync import deps as deps
    from vta_mlir.passes.coproc_sync import protocol as protocol

    module = parse(blocked_matmul(default_cfg), default_cfg)
    f = next(op for op in module.walk() if op.name == "func.func")
    ev = deps.HostEval()
    root = deps.build_model(f.regions[0].block, ev)
    deps.DependenceAnalysis(root, get_config(f), ev).run()
    protocol.synthesize(root, True)
    assert protocol.verify_protocol(root) is None
    inner = next(n for n in root.walk() if n.op is not None and n.op.parent_op() is not f)
    inner.forward.clear()  # drop load -> compute
    inner.events = protocol.slot_events(inner)
    missed = protocol.verify_protocol(root)
    assert missed is not None and (missed.x, missed.y) == (deps.LOAD, deps.COMPUTE)


# ---------------------------------------------------------------------------------------------
# Errors


def error_of(text: str) -> tuple[str, int]:
    with pytest.raises(DiagnosticError) as info:
        sync(text)
    loc = info.value.location
    assert loc is not None
    return info.value.diagnostic.message, loc.line


ACC = "memref<4x1x16xi32, #vta.sram<acc>>"


def test_errors_are_reported_at_the_op() -> None:
    message, line = error_of(f"""func.func @f(%c: i1) {{
  %acc = memref.alloc() : {ACC}
  scf.if %c {{
    vta.alu add %acc[0], 1 : {ACC}
  }}
  func.return
}}""")
    assert line == 3 and "VTA commands inside 'scf.if' are not supported" in message

    message, line = error_of(f"""func.func @f(%n: index) {{
  %acc = memref.alloc() : {ACC}
  affine.for %i = 0 to %n {{
    vta.alu add %acc[0], 1 : {ACC}
  }}
  func.return
}}""")
    assert line == 3 and "needs constant bounds" in message

    message, line = error_of(f"""func.func @f(%y: memref<4x1x16xi8>) {{
  %acc = memref.alloc() : {ACC}
  vta.stage compute {{
    vta.alu add %acc[0], 1 : {ACC}
  }}
  vta.dma_copy %acc[0] -> %y[0] y 1 x 4 stride 4 : {ACC} -> memref<4x1x16xi8>
  func.return
}}""")
    assert line == 6 and "outside any vta.stage" in message


# ---------------------------------------------------------------------------------------------
# The whole pipeline

STAGE5 = "vta-pack,vta-tile,vta-inject-dma,vta-tensorize,vta-fold-uop-loops"


def _config_name(cfg: VTAConfig) -> str:
    return next(name for name in SHIPPED_CONFIGS if VTAConfig.shipped(name) == cfg)


@pytest.mark.parametrize("example", ["matrix_multiply_opt", "dense_bias_relu", "vector_add"])
def test_pipeline_output_matches_serial_execution(cfg: VTAConfig, example: str) -> None:
    """The examples taken to stage 5 by the passes before this one (skipped where those cannot
    handle them yet), then synchronised: the serial result under random interleavings."""
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from vta_mlir.tools.vta_opt import main; "
         "sys.exit(main())", str(ROOT / "examples" / f"{example}.mlir"), "--config",
         _config_name(cfg), "-p", STAGE5],
        capture_output=True, text=True, check=False)
    if proc.returncode:
        pytest.skip(f"stage 5 not reached: {proc.stderr.strip().splitlines()[0]}")
    stage5 = proc.stdout
    module = parse_module(stage5, filename="stage5.mlir")
    CoprocSyncPass().apply(make_context(), module)
    verify_op(module)
    binary = lower_to_binary(module)
    inputs = random_args(binary.args, 3, within(100))
    want = serial_reference(stage5, cfg, inputs)
    for seed in (None, 11, 12):
        got, stats = run(binary, cfg, inputs, seed)
        assert not stats.warnings
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value)
