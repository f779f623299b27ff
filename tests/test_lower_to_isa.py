"""The host-program driver (``vta_mlir.host.lower_to_binary``) and the ``vta-lower-to-isa`` pass.

* TVM's two tutorials as ``vta`` IR (``examples/vta/``), with the buffers where TVM put them,
  reproduce TVM's instruction streams and micro-ops byte for byte, and the lowered binaries
  reproduce the reference simulator's outputs and counters;
* the same binaries run on the simulator agree with numpy (and with the packed layouts of
  docs/isa.md §1.6);
* a GEMM + ALU program written for each shipped configuration lowers and runs against numpy;
* buffers: SRAM bump allocation, argument ABI (directions, names, ``vta.arg``), temporaries,
  constants, ACC_8BIT; host arithmetic and loops; micro-kernel reuse;
* the pass gives the same program as the driver, with either pipeline syntax;
* errors are diagnostics at the op, including those found while the host program runs.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func

from vta_mlir.abi import ArgSpec
from vta_mlir.binary import Linker
from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import set_module_config
from vta_mlir.dialects.vtaisa_program import module_to_program
from vta_mlir.errors import BinaryFormatError, RuntimeBuildError
from vta_mlir.host import lower_to_binary
from vta_mlir.host.compiler import compile_host_program
from vta_mlir.host.layout import plan_layout
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.isa import MemInsn, MemType, Uop, decode_uops
from vta_mlir.passes.lower_to_isa import LowerToIsaPass
from vta_mlir.tools import vta_opt

from .conftest import CONFORMANCE

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "vta"
#: Where TVM's runtime placed the tutorials' buffers: the first page of its DRAM.
TVM_BASE = 0x1000
TUTORIALS = [("vector_add", "tvm_vta_get_started"), ("matrix_multiply", "tvm_matrix_multiply")]


def parse(text: str, name: str = "test.mlir"):
    return parse_module(text, filename=name)


def lower(text: str, **kwargs):
    return lower_to_binary(parse(text), **kwargs)


def example(name: str):
    path = EXAMPLES / f"{name}.mlir"
    return parse(path.read_text(), str(path))


def device(cfg: VTAConfig | None = None):
    from vta_mlir.runtime import Device

    return Device(cfg)


def diagnostic(text: str, **kwargs) -> tuple[str, int]:
    """The message and line of the error lowering ``text`` reports."""
    with pytest.raises(DiagnosticError) as info:
        lower(text, **kwargs)
    loc = info.value.location
    assert loc is not None
    return info.value.diagnostic.message, loc.line


# ---------------------------------------------------------------------------------------------
# TVM's tutorials


@pytest.mark.parametrize(("name", "golden"), TUTORIALS)
def test_tutorials_reproduce_tvm_streams(name: str, golden: str) -> None:
    data = np.load(CONFORMANCE / f"{golden}.npz")
    binary = lower_to_binary(example(name), base=TVM_BASE)
    runs = binary.program.runs
    assert [len(r.insns) for r in runs] == list(data["run_insn_count"])
    assert b"".join(binary.run_streams()) == data["insns"].tobytes()
    assert b"".join(r.uop_words.astype("<u4").tobytes() for r in runs) == data["uops"].tobytes()
    assert [r.uop_base for r in runs] == list(data["run_uop_base"])


@pytest.mark.parametrize(("name", "golden"), TUTORIALS)
def test_tutorials_reproduce_reference_outputs(name: str, golden: str) -> None:
    """The reference simulator's DRAM before/after, replayed through the argument table."""
    data = np.load(CONFORMANCE / f"{golden}.npz")
    (region_phys,) = data["buf_phys"]
    before, after = data["dram_in_region0"], data["expected_region0"]
    binary = lower_to_binary(example(name), base=TVM_BASE)
    mod = device().load_module(binary)

    def image(spec: ArgSpec, dram: np.ndarray) -> np.ndarray:
        start = spec.phys - int(region_phys)
        return dram[start : start + spec.packed_nbytes]

    outputs = mod(*(spec.unpack(image(spec, before)) for spec in mod.inputs))
    for spec, out in zip(mod.outputs, outputs, strict=True):
        assert spec.pack(out) == image(spec, after).tobytes()
    assert mod.last_run is not None
    assert mod.last_run.counters == json.loads(str(data["counters_json"]))


def test_vector_add_against_numpy() -> None:
    rng = np.random.default_rng(1)
    a = rng.integers(-(1 << 20), 1 << 20, (1, 64, 1, 16), dtype=np.int32)
    b = rng.integers(-(1 << 20), 1 << 20, (1, 64, 1, 16), dtype=np.int32)
    mod = device().load_module(lower_to_binary(example("vector_add")))
    (c,) = mod(a, b)
    np.testing.assert_array_equal(c, (a + b).astype(np.int8))


def test_matrix_multiply_against_numpy() -> None:
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, (1, 256), dtype=np.int8)
    b = rng.integers(-128, 128, (256, 256), dtype=np.int8)
    binary = lower_to_binary(example("matrix_multiply"))
    mod = device().load_module(binary)
    (c,) = mod(a, b)
    np.testing.assert_array_equal(c, (a.astype(np.int32) @ b.astype(np.int32).T).astype(np.int8))
    # The vta.arg attributes describe the packed layouts of docs/isa.md §1.6.
    spec_a, spec_b, spec_c = binary.args
    assert spec_a.pack(a) == a.reshape(1, 1, 16, 16).transpose(0, 2, 1, 3).tobytes()
    assert spec_b.pack(b) == b.reshape(16, 16, 16, 16).transpose(0, 2, 1, 3).tobytes()
    assert (spec_a.direction, spec_b.direction, spec_c.direction) == ("in", "in", "out")


# ---------------------------------------------------------------------------------------------
# The pass


@pytest.mark.parametrize(("name", "golden"), TUTORIALS)
def test_pass_output_is_the_driver_program(name: str, golden: str) -> None:
    module = example(name)
    LowerToIsaPass(base=TVM_BASE).apply(make_context(), module)
    binary = module_to_program(module)
    expected = lower_to_binary(example(name), base=TVM_BASE)
    assert binary.run_streams() == expected.run_streams()
    assert binary.args == expected.args
    assert [(s.name, s.phys, s.nbytes) for s in binary.program.segments] == \
        [(s.name, s.phys, s.nbytes) for s in expected.program.segments]
    assert "vta.config" in module.attributes
    assert [op.name for op in module.body.block.ops] == ["vtaisa.program"]


@pytest.mark.parametrize("options", ["", "{base=4096}"])
@pytest.mark.parametrize("name", ["vector_add", "matrix_multiply"])
def test_both_pipeline_syntaxes_agree(name: str, options: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / f"{name}.mlir")
    outputs = []
    for flags in (["-p", f"vta-lower-to-isa{options}"],
                  [f"--pass-pipeline=builtin.module(vta-lower-to-isa{options})"]):
        assert vta_opt.main([path, *flags]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert f"vtaisa.program base {'0x1000' if options else '0x1000000'} {{" in outputs[0]


def test_pass_options_select_function_and_config() -> None:
    text = """
    func.func @f(%y: memref<1x1x1x16xi8>) {
      func.return
    }
    func.func @g(%y: memref<1x1x1x16xi8>) {
      %acc = memref.alloc() : memref<1x1x16xi32, #vta.sram<acc>>
      vta.dma_copy %acc[0] -> %y[0] y 1 x 1 stride 1
          : memref<1x1x16xi32, #vta.sram<acc>> -> memref<1x1x1x16xi8>
      func.return
    }
    """
    module = parse(text)
    LowerToIsaPass(function="g", config="default").apply(make_context(), module)
    printed = print_module(module)
    assert "vtaisa.store out" in printed
    message, _ = diagnostic(text)
    assert "has 2 functions (@f, @g)" in message
    assert lower(text, function="f").program.runs == []


# ---------------------------------------------------------------------------------------------
# Every shipped configuration


def gemm_alu_program(cfg: VTAConfig, dynamic: bool, kb: int = 2, ob: int = 3) -> str:
    """y = int8(min(max((x·wᵀ + bias) >> 3, -20), 100)) on packed operands, in ``cfg``'s
    element shapes; ``dynamic``: one GEMM kernel per output block, chosen by a host loop."""
    b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    inp = f"memref<{kb}x{b}x{bi}xi8, #vta.sram<inp>>"
    wgt = f"memref<{ob * kb}x{bo}x{bi}xi8, #vta.sram<wgt>>"
    acc = f"memref<{ob}x{b}x{bo}xi32, #vta.sram<acc>>"
    x_t, w_t = f"memref<1x{kb}x{b}x{bi}xi8>", f"memref<{ob}x{kb}x{bo}x{bi}xi8>"
    bias_t, y_t = f"memref<1x{ob}x{b}x{bo}xi32>", f"memref<1x{ob}x{b}x{bo}xi8>"
    if dynamic:
        gemm = f"""
        affine.for %o = 0 to {ob} {{
          %wo = affine.apply affine_map<(d0) -> (d0 * {kb})>(%o)
          vta.uop_loop {kb} src 1 wgt 1 {{
            vta.gemm %acc[%o] += %inp[0] * %wgt[%wo] : {acc}, {inp}, {wgt}
          }}
        }}"""
    else:
        gemm = f"""
        vta.uop_loop {ob} dst 1 wgt {kb} {{
          vta.uop_loop {kb} src 1 wgt 1 {{
            vta.gemm %acc[0] += %inp[0] * %wgt[0] : {acc}, {inp}, {wgt}
          }}
        }}"""
    alu = "\n".join(f"""
        vta.uop_loop {ob} dst 1 src 1 {{
          vta.alu {op} %acc[0], {imm} : {acc}
        }}""" for op, imm in (("shr", 3), ("max", -20), ("min", 100)))
    return f"""
    func.func @gemm_alu(%x: {x_t}, %w: {w_t}, %bias: {bias_t}, %y: {y_t}) {{
      %inp = memref.alloc() : {inp}
      %wgt = memref.alloc() : {wgt}
      %acc = memref.alloc() : {acc}
      %bb = memref.alloc() : {acc}
      vta.stage load {{
        vta.dma_copy %x[0] -> %inp[0] y 1 x {kb} stride {kb} : {x_t} -> {inp}
        vta.dma_copy %w[0] -> %wgt[0] y 1 x {ob * kb} stride {ob * kb} : {w_t} -> {wgt}
        vta.dep_push load -> compute
      }}
      vta.stage compute {{
        vta.dep_pop load -> compute
        vta.dma_copy %bias[0] -> %bb[0] y 1 x {ob} stride {ob} : {bias_t} -> {acc}
        vta.uop_loop {ob} dst 1 {{
          vta.gemm_reset %acc[0] : {acc}
        }}
        {gemm}
        vta.uop_loop {ob} dst 1 src 1 {{
          vta.alu add %acc[0], %bb[0] : {acc}, {acc}
        }}
        {alu}
        vta.dep_push compute -> store
      }}
      vta.stage store {{
        vta.dep_pop compute -> store
        vta.dma_copy %acc[0] -> %y[0] y 1 x {ob} stride {ob} : {acc} -> {y_t}
      }}
      func.return
    }}
    """


@pytest.mark.parametrize("dynamic", [False, True], ids=["uop-loops", "host-loop"])
def test_gemm_alu_on_every_configuration(cfg: VTAConfig, dynamic: bool) -> None:
    kb, ob = 2, 3
    module = parse(gemm_alu_program(cfg, dynamic, kb, ob))
    set_module_config(module, cfg)
    binary = lower_to_binary(module)
    assert binary.config == cfg
    assert lower_to_binary(parse(gemm_alu_program(cfg, dynamic, kb, ob)), cfg).run_streams() \
        == binary.run_streams()
    b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    rng = np.random.default_rng(cfg.log_block * 10 + cfg.log_batch)
    x = rng.integers(-128, 128, (1, kb, b, bi), dtype=np.int8)
    w = rng.integers(-128, 128, (ob, kb, bo, bi), dtype=np.int8)
    bias = rng.integers(-3000, 3000, (1, ob, b, bo), dtype=np.int32)
    (y,) = device(cfg).load_module(binary)(x, w, bias)
    acc = np.einsum("zkbi,okji->zobj", x.astype(np.int64), w.astype(np.int64)) + bias
    want = np.minimum(np.maximum(acc.astype(np.int32) >> 3, -20), 100).astype(np.int8)
    np.testing.assert_array_equal(y, want)
    gemms = [i for r in binary.program.runs for i in r.insns if type(i).__name__ == "GemmInsn"]
    assert len(gemms) == (1 + ob if dynamic else 2)


def test_wrong_configuration_is_an_error() -> None:
    module = example("matrix_multiply")
    with pytest.raises(DiagnosticError, match="was built for configuration "
                       "sim_1x16_i8w8a32_15_15_18_17 but configuration sim_1x32"):
        lower_to_binary(module, VTAConfig.shipped("block32"))


# ---------------------------------------------------------------------------------------------
# Buffers


def test_sram_bump_allocation_and_dram_segments() -> None:
    binary = lower("""
    builtin.module {
      memref.global "private" constant @k : memref<1x1x1x16xi8> = dense<[[[[1, 2, 3, 4, 5, 6, 7,
          8, 9, 10, 11, 12, 13, 14, 15, 16]]]]>
      memref.global "private" @scratch : memref<1x2x1x16xi8> = uninitialized
      func.func @f(%0: memref<1x4x1x16xi8>, %uops: memref<1x4x1x16xi8>,
                   %tmp0: memref<1x4x1x16xi8>) {
        %k = memref.get_global @k : memref<1x1x1x16xi8>
        %k2 = memref.get_global @k : memref<1x1x1x16xi8>
        %s = memref.get_global @scratch : memref<1x2x1x16xi8>
        %t = memref.alloc() : memref<1x4x1x16xi8>
        %a = memref.alloc() : memref<3x1x16xi32, #vta.sram<acc>>
        %i = memref.alloc() : memref<2x1x16xi8, #vta.sram<inp>>
        %b = memref.alloc() : memref<5x1x16xi32, #vta.sram<acc>>
        vta.dma_copy %k[0] -> %b[4] y 1 x 1 stride 1
            : memref<1x1x1x16xi8> -> memref<5x1x16xi32, #vta.sram<acc>>
        vta.dma_copy %k2[0] -> %a[1] y 1 x 1 stride 1
            : memref<1x1x1x16xi8> -> memref<3x1x16xi32, #vta.sram<acc>>
        vta.dma_copy %0[1] -> %i[1] y 1 x 1 stride 1
            : memref<1x4x1x16xi8> -> memref<2x1x16xi8, #vta.sram<inp>>
        vta.dma_copy %b[0] -> %tmp0[0] y 1 x 4 stride 4
            : memref<5x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
        vta.dma_copy %b[0] -> %uops[0] y 1 x 4 stride 4
            : memref<5x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
        vta.dma_copy %b[0] -> %t[0] y 1 x 4 stride 4
            : memref<5x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
        vta.uop_loop 2 dst 1 {
          vta.gemm_reset %b[0] : memref<5x1x16xi32, #vta.sram<acc>>
        }
        func.return
      }
    }
    """, base=0x10000)
    segments = [(s.name, s.phys, s.nbytes, s.data is not None) for s in binary.program.segments]
    assert segments == [
        ("arg0", 0x10000, 64, False), ("uops", 0x11000, 64, False),
        ("tmp0", 0x12000, 64, False), ("temporaries", 0x13000, 64, False),
        ("tmp0_1", 0x14000, 32, False), ("const0", 0x15000, 16, True),
        ("uops_1", 0x16000, 4, False),
    ]
    assert bytes(binary.program.segments[5].data) == bytes(range(1, 17))
    assert [(a.name, a.direction) for a in binary.args] == \
        [("arg0", "in"), ("uops", "out"), ("tmp0", "out")]
    loads = [i for i in binary.program.runs[0].insns if isinstance(i, MemInsn) and i.x_size]
    # acc %a = [0, 3), %b = [3, 8); inp %i = [0, 2); the constant is int8: ACC_8BIT.
    assert [(i.memory_type, i.sram_base, i.dram_base) for i in loads[:3]] == [
        (MemType.ACC_8BIT, 7, 0x15000 // 16), (MemType.ACC_8BIT, 1, 0x15000 // 16),
        (MemType.INP, 1, 0x10000 // 16 + 1)]
    assert binary.program.runs[0].uop_base == 0x16000
    assert decode_uops(binary.program.runs[0].uop_words, binary.config) == [Uop(3, 0, 0)]


def test_temporary_round_trip_through_acc_8bit() -> None:
    """A DRAM temporary written by a store and read back sign-extended (ACC_8BIT)."""
    t = "memref<1x4x1x16xi32>"
    acc, tmp = "memref<4x1x16xi32, #vta.sram<acc>>", "memref<1x4x1x16xi8>"
    binary = lower(f"""
    func.func @f(%x: {t}, %y: {tmp}) {{
      %a = memref.alloc() : {acc}
      %t = memref.alloc() : {tmp}
      vta.stage compute {{
        vta.dma_copy %x[0] -> %a[0] y 1 x 4 stride 4 : {t} -> {acc}
        vta.dep_push compute -> store
      }}
      vta.stage store {{
        vta.dep_pop compute -> store
        vta.dma_copy %a[0] -> %t[0] y 1 x 4 stride 4 : {acc} -> {tmp}
        vta.dep_push store -> compute
      }}
      vta.stage compute {{
        vta.dep_pop store -> compute
        vta.dma_copy %t[0] -> %a[0] y 1 x 4 stride 4 : {tmp} -> {acc}
        vta.uop_loop 4 dst 1 src 1 {{
          vta.alu mul %a[0], 3 : {acc}
        }}
        vta.dep_push compute -> store
      }}
      vta.stage store {{
        vta.dep_pop compute -> store
        vta.dma_copy %a[0] -> %y[0] y 1 x 4 stride 4 : {acc} -> {tmp}
      }}
      func.return
    }}
    """)
    x = np.random.default_rng(3).integers(-1000, 1000, (1, 4, 1, 16), dtype=np.int32)
    (y,) = device().load_module(binary)(x)
    np.testing.assert_array_equal(y, (x.astype(np.int8).astype(np.int32) * 3).astype(np.int8))


def test_vta_arg_forms() -> None:
    text = """
    func.func @f(%x: memref<1x2x1x16xi8> {vta.arg = {shape = array<i64: 1, 20>,
        padded_shape = array<i64: 1, 32>, split_shape = array<i64: 1, 1, 2, 16>,
        perm = array<i64: 0, 2, 1, 3>}}) {
      %i = memref.alloc() : memref<2x1x16xi8, #vta.sram<inp>>
      vta.dma_copy %x[0] -> %i[0] y 1 x 2 stride 2
          : memref<1x2x1x16xi8> -> memref<2x1x16xi8, #vta.sram<inp>>
      func.return
    }
    """
    (spec,) = lower(text).args
    assert (spec.shape, spec.dtype, spec.padded_shape, spec.split_shape, spec.perm) == \
        ((1, 20), "int8", (1, 32), (1, 1, 2, 16), (0, 2, 1, 3))
    bad = text.replace("perm = array<i64: 0, 2, 1, 3>", "perm = array<i64: 0, 2, 1>")
    message, line = diagnostic(bad)
    assert "argument 0 (%x): argument 'x': (0, 2, 1) is not a permutation" in message
    assert line == 2


# ---------------------------------------------------------------------------------------------
# Host arithmetic, loops and micro-kernels


def store_offsets(binary) -> list[int]:
    (run,) = binary.program.runs
    seg = binary.program.segments[0]
    return [i.dram_base - seg.phys // 16 for i in run.insns
            if isinstance(i, MemInsn) and i.is_store and i.x_size]


def test_host_arithmetic_and_loops() -> None:
    binary = lower("""
    func.func @f(%y: memref<1x100x1x16xi8>) {
      %acc = memref.alloc() : memref<1x1x16xi32, #vta.sram<acc>>
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c7 = arith.constant 7 : index
      %cm3 = arith.constant -3 : index
      %c40 = arith.constant 40 : i32
      scf.for %i = %c0 to %c7 step %c2 {
        affine.for %j = affine_map<(d0) -> (d0 floordiv 2)>(%i)
            to min affine_map<(d0) -> (d0 + 2, 5)>(%i) {
          %a = arith.subi %cm3, %j : index
          %q = arith.divsi %a, %c2 : index
          %r = arith.remsi %a, %c2 : index
          %m = affine.apply
              affine_map<(d0, d1)[s0] -> ((d0 * 5 - d1) mod 7 + d1 ceildiv 3 + s0)>(%i, %j)[%c7]
          %lt = arith.cmpi slt, %i, %j : index
          %s = arith.select %lt, %c7, %c0 : index
          %w = arith.index_cast %c40 : i32 to index
          %mn = affine.min affine_map<(d0) -> (d0 * 3, 8)>(%j)
          %t1 = arith.addi %q, %r : index
          %t2 = arith.addi %t1, %m : index
          %t3 = arith.addi %t2, %s : index
          %t4 = arith.addi %t3, %w : index
          %o = arith.addi %t4, %mn : index
          vta.dma_copy %acc[0] -> %y[%o] y 1 x 1 stride 1
              : memref<1x1x16xi32, #vta.sram<acc>> -> memref<1x100x1x16xi8>
        }
      }
      func.return
    }
    """)

    def divsi(a: int, b: int) -> int:
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q

    want = []
    for i in range(0, 7, 2):
        for j in range(i // 2, min(i + 2, 5)):
            a = -3 - j
            q, r = divsi(a, 2), a - 2 * divsi(a, 2)
            m = (i * 5 - j) % 7 + -(-j // 3) + 7
            want.append(q + r + m + (7 if i < j else 0) + 40 + min(j * 3, 8))
    assert store_offsets(binary) == want


def test_kernels_are_made_once_per_value_and_reused() -> None:
    binary = lower("""
    func.func @f() {
      %acc = memref.alloc() : memref<8x1x16xi32, #vta.sram<acc>>
      affine.for %i = 0 to 12 {
        %p = affine.apply affine_map<(d0) -> ((d0 mod 2) * 4)>(%i)
        vta.uop_loop 4 dst 1 src 1 {
          vta.alu shr %acc[%p + 0], 2 : memref<8x1x16xi32, #vta.sram<acc>>
        }
        vta.alu add %acc[3], %acc[%p] : memref<8x1x16xi32, #vta.sram<acc>>,
            memref<8x1x16xi32, #vta.sram<acc>>
      }
      func.return
    }
    """)
    (run,) = binary.program.runs
    uop_loads = [i for i in run.insns if isinstance(i, MemInsn) and i.memory_type == MemType.UOP
                 and i.x_size]
    assert len(uop_loads) == 4  # two kernels, two values of %p each
    # An immediate ALU micro-op carries its destination as source, as TVM's do.
    assert decode_uops(run.uop_words, binary.config) == [
        Uop(0, 0, 0), Uop(3, 0, 0), Uop(4, 4, 0), Uop(3, 4, 0)]


def test_loops_without_commands_are_dropped() -> None:
    module = parse("""
    func.func @f() {
      affine.for %i = 0 to 1000000000 {
        %x = arith.muli %i, %i : index
      }
      func.return
    }
    """)
    start = time.perf_counter()
    assert lower_to_binary(module).program.runs == []
    assert time.perf_counter() - start < 5


# ---------------------------------------------------------------------------------------------
# Errors found only through the API or while the program runs


def test_stage_mismatch_is_reported_at_the_command() -> None:
    # The vta.stage verifier rejects this too; the driver checks it for unverified input.
    message, line = diagnostic("""
    func.func @f(%x: memref<1x1x1x16xi8>) {
      %i = memref.alloc() : memref<1x1x16xi8, #vta.sram<inp>>
      vta.stage compute {
        vta.dma_copy %x[0] -> %i[0] y 1 x 1 stride 1
            : memref<1x1x1x16xi8> -> memref<1x1x16xi8, #vta.sram<inp>>
      }
      func.return
    }
    """)
    assert message == "'vta.dma_copy' op a DMA load into inp executes on the load module, but " \
        "it is inside a compute stage"
    assert line == 5


def test_builder_errors_are_reported_at_the_op_that_ran() -> None:
    module = parse("""
    func.func @f(%y: memref<1x4x1x16xi8>) {
      %acc = memref.alloc() : memref<1x1x16xi32, #vta.sram<acc>>
      affine.for %i = 0 to 4 {
        vta.dep_push compute -> store
        vta.dma_copy %acc[0] -> %y[%i] y 1 x 1 stride 1
            : memref<1x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
      }
      func.return
    }
    """)
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    cfg = VTAConfig.shipped("default")
    program = compile_host_program(f, plan_layout(f, module, cfg, Linker()), cfg)

    class Failing:
        def __getattr__(self, name: str):
            def call(*args: int) -> None:
                if name == "store_buffer_2d" and args[3] == 2:
                    raise RuntimeBuildError("store_buffer_2d: refused")
            return call

    with pytest.raises(DiagnosticError) as info:
        program.run(Failing())
    assert info.value.diagnostic.message == "'vta.dma_copy' op store_buffer_2d: refused"
    assert info.value.location is not None and info.value.location.line == 6


def test_bad_base_and_unknown_function() -> None:
    with pytest.raises(BinaryFormatError, match="base address"):
        lower_to_binary(example("vector_add"), base=0x1234)
    with pytest.raises(DiagnosticError, match="has no function @g to lower"):
        lower_to_binary(example("vector_add"), function="g")


@pytest.mark.slow  # 20,000 host-loop iterations: the other tests lower the same forms
def test_large_loop_nest_lowering_time() -> None:
    """Not a benchmark: shows what lowering a 100 x 200 host-loop nest costs."""
    module = parse("""
    func.func @f(%x: memref<1x64x1x16xi8>) {
      %inp = memref.alloc() : memref<64x1x16xi8, #vta.sram<inp>>
      %acc = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
      %wgt = memref.alloc() : memref<1x16x16xi8, #vta.sram<wgt>>
      vta.dep_push compute -> load
      affine.for %i = 0 to 100 {
        affine.for %j = 0 to 200 {
          %o = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1) mod 60)>(%i, %j)
          vta.stage load {
            vta.dep_pop compute -> load
            vta.dma_copy %x[%o] -> %inp[%o] y 1 x 4 stride 4
                : memref<1x64x1x16xi8> -> memref<64x1x16xi8, #vta.sram<inp>>
            vta.dep_push load -> compute
          }
          vta.stage compute {
            vta.dep_pop load -> compute
            vta.uop_loop 4 dst 1 src 1 {
              vta.gemm %acc[%o] += %inp[%o] * %wgt[0] : memref<64x1x16xi32, #vta.sram<acc>>,
                  memref<64x1x16xi8, #vta.sram<inp>>, memref<1x16x16xi8, #vta.sram<wgt>>
            }
            vta.dep_push compute -> load
          }
        }
      }
      vta.dep_pop compute -> load
      func.return
    }
    """)
    start = time.perf_counter()
    binary = lower_to_binary(module)
    print(f"\n20000 host-loop iterations, {binary.program.num_insns} instructions: "
          f"{time.perf_counter() - start:.3f} s")
