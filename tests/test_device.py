"""The simulator-backed Device: hand-written programs wrapped in binary modules, saved as .vtab,
loaded at their linked addresses and called with numpy arrays, compared with numpy; counters;
argument checking; placement conflicts and unloading."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir.abi import ArgSpec, ArgumentError  # noqa: E402
from vta_mlir.binary import BinaryModule, Linker, read_vtab, write_vtab  # noqa: E402
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig  # noqa: E402
from vta_mlir.errors import BinaryFormatError, VTAError  # noqa: E402
from vta_mlir.isa import (  # noqa: E402
    AluInsn,
    AluKind,
    FinishInsn,
    Insn,
    MemInsn,
    MemType,
    Uop,
    encode_uops,
)
from vta_mlir.program import COUNTER_NAMES, Program, Run  # noqa: E402
from vta_mlir.runtime.device import Device, LoadedModule  # noqa: E402

CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}
BASE = 0x20_0000


def closing(insns: list[Insn]) -> list[Insn]:
    """The runtime's closing handshake and FINISH (docs/isa.md §4.7), after a last STORE that
    already carries ``push_prev``: a load NOP pushes to compute, a compute NOP pops both."""
    return insns + [
        MemInsn(memory_type=MemType.INP, push_next_dep=1),
        MemInsn(memory_type=MemType.UOP, pop_prev_dep=1, pop_next_dep=1),
        FinishInsn(),
    ]


def load_acc(cfg: VTAConfig, sram: int, phys: int, n: int, kind: int = MemType.ACC) -> MemInsn:
    size = cfg.acc_elem_bytes if kind == MemType.ACC else cfg.acc8_elem_bytes
    return MemInsn(memory_type=kind, sram_base=sram, dram_base=phys // size, y_size=1, x_size=n,
                   x_stride=n)


def load_uop(phys: int, count: int = 1) -> MemInsn:
    return MemInsn(memory_type=MemType.UOP, dram_base=phys // 4, y_size=1, x_size=count,
                   x_stride=count)


def alu(cfg: VTAConfig, op: int, n: int, imm: int | None = None) -> AluInsn:
    return AluInsn(alu_opcode=op, use_imm=int(imm is not None), imm=imm or 0, uop_bgn=0,
                   uop_end=1, iter_out=1, iter_in=n, dst_factor_in=1, src_factor_in=1,
                   push_next_dep=1)


def store(cfg: VTAConfig, sram: int, phys: int, n: int) -> MemInsn:
    return MemInsn(is_store=1, memory_type=MemType.OUT, sram_base=sram,
                   dram_base=phys // cfg.out_elem_bytes, y_size=1, x_size=n, x_stride=n,
                   pop_prev_dep=1, push_prev_dep=1)


def add_module(cfg: VTAConfig, shape: tuple[int, int], *, two_runs: bool = True
               ) -> BinaryModule:
    """y = int8(a + b) in run 0; z = int8(max(a, 0)) in run 1 (if ``two_runs``).

    Both runs stage their single micro-op at the same address, with different contents, so a
    device that did not re-stage per run would compute z from the wrong accumulator elements.
    """
    link = Linker(BASE)
    a = link.argument(ArgSpec.for_layout("a", "in", "int32", shape, "NC", cfg))
    b = link.argument(ArgSpec.for_layout("b", "in", "int32", shape, "NC", cfg))
    y = link.argument(ArgSpec.for_layout("y", "out", "int8", shape, "NC", cfg))
    args = [a, b, y]
    staging = link.segment("uops", 4)
    n = a.packed_nbytes // cfg.acc_elem_bytes
    run0 = Run(closing([
        load_acc(cfg, 0, a.phys, n),
        load_acc(cfg, n, b.phys, n),
        load_uop(staging.phys),
        alu(cfg, AluKind.ADD.opcode, n),
        store(cfg, 0, y.phys, n),
    ]), encode_uops([Uop(0, n, 0)], cfg), staging.phys)
    runs = [run0]
    if two_runs:
        z = link.argument(ArgSpec.for_layout("z", "out", "int8", shape, "NC", cfg))
        args.append(z)
        runs.append(Run(closing([
            load_acc(cfg, n, a.phys, n),
            load_uop(staging.phys),
            alu(cfg, AluKind.MAX.opcode, n, imm=0),
            store(cfg, n, z.phys, n),
        ]), encode_uops([Uop(n, n, 0)], cfg), staging.phys))
    return BinaryModule(cfg, Program(runs, link.segments), args, BASE)


def inout_module(cfg: VTAConfig, shape: tuple[int, int], imm: int) -> BinaryModule:
    """x += imm in place on an int8 tensor (LOAD ACC_8BIT, ALU ADD immediate, STORE)."""
    link = Linker(BASE)
    x = link.argument(ArgSpec.for_layout("x", "inout", "int8", shape, "NC", cfg))
    staging = link.segment("uops", 4)
    n = x.packed_nbytes // cfg.acc8_elem_bytes
    run = Run(closing([
        load_acc(cfg, 0, x.phys, n, MemType.ACC_8BIT),
        load_uop(staging.phys),
        alu(cfg, AluKind.ADD.opcode, n, imm=imm),
        store(cfg, 0, x.phys, n),
    ]), encode_uops([Uop(0, 0, 0)], cfg), staging.phys)
    return BinaryModule(cfg, Program([run], link.segments), [x], BASE)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("shape", [(3, 40), (1, 16), (5, 7)])
def test_end_to_end_from_a_vtab_file(name: str, shape: tuple[int, int], tmp_path) -> None:
    cfg = CONFIGS[name]
    path = tmp_path / "add.vtab"
    write_vtab(add_module(cfg, shape), path)
    module = read_vtab(path, cfg)
    rng = np.random.default_rng(7)
    a = rng.integers(-400, 400, shape, dtype=np.int32)
    b = rng.integers(-400, 400, shape, dtype=np.int32)
    dev = Device(cfg)
    mod = dev.load_module(module)
    y, z = mod(a, b)
    np.testing.assert_array_equal(y, (a + b).astype(np.int8))
    np.testing.assert_array_equal(z, np.maximum(a, 0).astype(np.int8))
    assert y.dtype == np.int8 and y.shape == shape

    stats = mod.last_run
    assert stats is dev.last_run and stats is not None
    n = module.args[0].packed_nbytes // cfg.acc_elem_bytes
    assert stats.runs == 2
    assert stats.instructions == sum(len(r.insns) for r in module.program.runs)
    assert stats.counters == {
        **dict.fromkeys(COUNTER_NAMES, 0),
        "acc_load_nbytes": 3 * n * cfg.acc_elem_bytes,
        "uop_load_nbytes": 2 * 4,
        "out_store_nbytes": 2 * n * cfg.out_elem_bytes,
        "alu_counter": 2 * n,
    }
    assert stats.uop_words_loaded == 2
    assert stats.cycles and stats.cycles > 0
    assert set(stats.utilisation) == set(stats.busy)
    assert all(0.0 <= u <= 1.0 for u in stats.utilisation.values())
    assert stats.warnings == []

    # the same module, called again with new data and by name
    a2, b2 = -a, b // 2
    y2, z2 = mod.run({"b": b2, "a": a2})
    np.testing.assert_array_equal(y2, (a2 + b2).astype(np.int8))
    np.testing.assert_array_equal(z2, np.maximum(a2, 0).astype(np.int8))


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_single_run_module_and_load_from_bytes(name: str) -> None:
    cfg = CONFIGS[name]
    module = add_module(cfg, (2, 20), two_runs=False)
    dev = Device(cfg)
    mod = dev.load_module(module.to_bytes())
    a = np.arange(40, dtype=np.int32).reshape(2, 20) * 9
    b = np.full((2, 20), -3, dtype=np.int32)
    (y,) = mod(a, b)
    np.testing.assert_array_equal(y, (a + b).astype(np.int8))
    assert mod.last_run is not None and mod.last_run.runs == 1


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_inout_argument(name: str) -> None:
    cfg = CONFIGS[name]
    dev = Device(cfg)
    mod = dev.load_module(inout_module(cfg, (3, 21), imm=100))
    x = np.random.default_rng(3).integers(-128, 128, (3, 21), dtype=np.int8)
    (out,) = mod(x)
    np.testing.assert_array_equal(out, (x.astype(np.int32) + 100).astype(np.int8))
    assert [a.name for a in mod.inputs] == [a.name for a in mod.outputs] == ["x"]


def test_argument_errors_are_clear() -> None:
    cfg = CONFIGS["default"]
    mod = Device(cfg).load_module(add_module(cfg, (2, 20)))
    a = np.zeros((2, 20), dtype=np.int32)
    with pytest.raises(ArgumentError, match=r"expected 2 input\(s\), got 1.*\(a: 2x20xint32"):
        mod(a)
    with pytest.raises(ArgumentError, match=r"argument 'b': expected shape \(2, 20\)"):
        mod(a, np.zeros((20, 2), dtype=np.int32))
    with pytest.raises(ArgumentError, match="argument 'b': expected dtype int32, got int8"):
        mod(a, np.zeros((2, 20), dtype=np.int8))
    with pytest.raises(ArgumentError, match=r"missing input\(s\) b"):
        mod.run({"a": a})
    with pytest.raises(ArgumentError, match=r"unknown input\(s\) c"):
        mod.run({"a": a, "b": a, "c": a})
    with pytest.raises(ArgumentError, match="expected a numpy array"):
        mod(a, "b")
    assert issubclass(ArgumentError, VTAError)


def test_placement_conflicts_and_unload() -> None:
    cfg = CONFIGS["default"]
    dev = Device(cfg)
    module = add_module(cfg, (2, 20))
    first = dev.load_module(module)
    with pytest.raises(VTAError, match=r"cannot load module: segment 'a' at 0x200000"):
        dev.load_module(module)
    # a failed load leaves nothing behind: after unloading the first copy, loading succeeds
    first.unload()
    assert not first.loaded
    with pytest.raises(VTAError, match="not loaded"):
        first(np.zeros((2, 20), np.int32), np.zeros((2, 20), np.int32))
    with dev.load_module(module) as second:
        assert isinstance(second, LoadedModule) and second.loaded
        (y, _) = second(np.ones((2, 20), np.int32), np.ones((2, 20), np.int32))
        assert (y == 2).all()
    assert not second.loaded
    # an ordinary allocation can then take the freed pages
    phys = dev.alloc(100)
    dev.write(phys, b"\x01\x02\x03")
    assert dev.read(phys, 3).tolist() == [1, 2, 3]
    dev.free(phys)


def test_module_for_other_hardware_is_refused() -> None:
    module = add_module(CONFIGS["block32"], (2, 40))
    with pytest.raises(BinaryFormatError, match="built for 1x32.*the device is 1x16"):
        Device(CONFIGS["default"]).load_module(module)


def test_simulator_warnings_are_reported_per_run() -> None:
    cfg = CONFIGS["default"]
    module = add_module(cfg, (2, 20))
    for run in module.program.runs:  # the STOREs no longer consume the ALU's token
        store_insn = run.insns[-4]
        assert isinstance(store_insn, MemInsn) and store_insn.is_store
        store_insn.pop_prev_dep = 0
    dev = Device(cfg, timing=False)
    mod = dev.load_module(module)
    mod(np.zeros((2, 20), np.int32), np.zeros((2, 20), np.int32))
    stats = mod.last_run
    assert stats is not None and stats.cycles is None
    assert any(w.startswith("run 0: ") and "token" in w for w in stats.warnings)
    assert any(w.startswith("run 1: ") for w in stats.warnings)
