"""Layers: named from source locations by vta-pack, tagged on every instruction by the command
builder, carried by the .vtab format (version 2, LAYR) and vtaisa.program, and reported per
layer by vta-run --stats (cycles, busy modules, DRAM bytes per buffer) and --trace (slices)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, NameLoc, StringAttr

from tools import vta_run
from vta_mlir import api
from vta_mlir.binary import LAYER_SECTION, SECTION_TAGS, BinaryModule, from_bytes, to_bytes
from vta_mlir.binary_checks import check_layers
from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vtaisa_program import module_to_program, program_to_module
from vta_mlir.errors import BinaryFormatError, RuntimeBuildError
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.ir.locations import (
    RegionLayers,
    SourceLocation,
    given_layer_name,
    layer_name,
    location_of,
)
from vta_mlir.isa import AluInsn, FinishInsn, GemmInsn, MemInsn, MemType
from vta_mlir.program import Program, Run
from vta_mlir.runtime.command_builder import CommandBuilder
from vta_mlir.runtime.device import Device
from vta_mlir.sim.layers import critical_cycles
from vta_mlir.sim.timing import time_runs

from .numerics import trunc8, wrap32

HEADER, DIRENT = 32, 16

# A dense layer (x · wᵀ + bias, >> 6, clip to [0, 127]) named by loc("dense1") on its
# contraction, and an element-wise add of two int32 tensors with plain locations: two VTA
# regions, two layers.  The second layer's principal op (its output writer) is on line 34.
TWO_LAYERS = """\
func.func @net(%x: memref<4x64xi8>, %w: memref<48x64xi8>, %bias: memref<48xi32>,
               %y: memref<4x48xi8>, %a: memref<3x40xi32>, %b: memref<3x40xi32>,
               %c: memref<3x40xi8>) {
  %acc = memref.alloc() : memref<4x48xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x48xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x64xi8>, memref<48x64xi8>) outs(%acc : memref<4x48xi32>) {
  ^bb0(%p: i8, %q: i8, %s: i32):
    %pe = arith.extsi %p : i8 to i32
    %qe = arith.extsi %q : i8 to i32
    %m = arith.muli %pe, %qe : i32
    %r = arith.addi %s, %m : i32
    linalg.yield %r : i32
  } loc("dense1")
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>,
                                   affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<4x48xi32>, memref<48xi32>) outs(%y : memref<4x48xi8>) {
  ^bb0(%v: i32, %bb: i32, %out: i8):
    %c6 = arith.constant 6 : i32
    %zero = arith.constant 0 : i32
    %c127 = arith.constant 127 : i32
    %s = arith.addi %v, %bb : i32
    %sh = arith.shrsi %s, %c6 : i32
    %lo = arith.maxsi %sh, %zero : i32
    %hi = arith.minsi %lo, %c127 : i32
    %t = arith.trunci %hi : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<3x40xi32>, memref<3x40xi32>) outs(%c : memref<3x40xi8>) {
  ^bb0(%p: i32, %q: i32, %out: i8):
    %s = arith.addi %p, %q : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<4x48xi32>
  return
}
"""
LAYER_NAMES = ["dense1", "elementwise@34"]


def _expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """numpy model of TWO_LAYERS."""
    x, w = inputs["x"].astype(np.int64), inputs["w"].astype(np.int64)
    acc = wrap32(x @ w.T + inputs["bias"].astype(np.int64))
    y = np.clip(acc >> 6, 0, 127).astype(np.int8)
    c = trunc8(wrap32(inputs["a"].astype(np.int64) + inputs["b"].astype(np.int64)))
    return {"y": y, "c": c}


def _inputs(seed: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.integers(-128, 128, (4, 64), dtype=np.int8),
        "w": rng.integers(-128, 128, (48, 64), dtype=np.int8),
        "bias": rng.integers(-5000, 5000, (48,), dtype=np.int32),
        "a": rng.integers(-2**31, 2**31, (3, 40), dtype=np.int32),
        "b": rng.integers(-2**31, 2**31, (3, 40), dtype=np.int32),
    }


def _binary(cfg: VTAConfig) -> BinaryModule:
    return api.lower(TWO_LAYERS, config=cfg)


# --------------------------------------------------------------------------------------------
# Layer identity


def test_layer_name_of_locations() -> None:
    f = FileLineColLoc(StringAttr("net.mlir"), IntAttr(3), IntAttr(4))
    op = api.parse("func.func @f() {\n  func.return\n}\n").body.block.first_op
    assert op is not None
    op.location = NameLoc(StringAttr("conv1"), f)
    assert layer_name(op) == given_layer_name(op) == "conv1"
    assert location_of(op) == SourceLocation("net.mlir", 3, 4)
    op.location = NameLoc(StringAttr("outer"), NameLoc(StringAttr("inner"), f))
    assert layer_name(op) == "outer"
    op.location = f
    assert layer_name(op) == "net.mlir:3" and given_layer_name(op) is None


def test_a_bare_name_location_gets_its_position() -> None:
    module = api.parse(TWO_LAYERS, filename="net.mlir")
    named = [op for op in module.walk() if given_layer_name(op) == "dense1"]
    assert len(named) == 1 and location_of(named[0]) == SourceLocation("net.mlir", 7, 3)


def test_diagnostics_keep_their_position_through_a_name() -> None:
    text = TWO_LAYERS.replace("%r = arith.addi %s, %m : i32", "%r = arith.subi %s, %m : i32")
    with pytest.raises(DiagnosticError) as info:
        api.lower(text)
    assert info.value.location is not None
    assert (info.value.location.line, info.value.location.col) == (7, 3)


def test_pack_names_every_op_of_a_region_by_its_layer() -> None:
    module = api.parse(TWO_LAYERS, filename="net.mlir")
    api.run_pipeline(module, "vta-pack")
    f = next(op for op in module.walk() if op.name == "func.func")
    names = [given_layer_name(op) for op in f.body.block.ops
             if op.name not in ("func.return", "arith.constant")]
    assert names[0] == "dense1" and names[-1] == "elementwise@34"
    assert names == sorted(names, key=LAYER_NAMES.index)
    # Each op keeps the position of the op it was created for under the name.
    positions = {location_of(op) for op in f.body.block.ops if given_layer_name(op) == "dense1"}
    assert SourceLocation("net.mlir", 7, 3) in positions and len(positions) > 2


def test_region_layer_names_are_unique() -> None:
    module = api.parse(TWO_LAYERS, filename="net.mlir")
    ops = [op for op in module.walk() if op.name == "linalg.generic"]
    layers = RegionLayers()
    assert layers.name_for(ops[0]) == "dense1"
    assert layers.name_for(ops[0]) == "dense1#2"
    assert layers.name_for(ops[2]) == "elementwise@34"
    assert layers.name_for(ops[2]) == "elementwise@34#2"


def test_critical_cycles_share_out_the_latest_end() -> None:
    # By end cycle: 3 (layer 2: +3), 10 (layer 0: +7), 12 (layer 1: +2), 13 (layer 2: +1),
    # 14 (layer 0: +1), 25 (layer 1: +11), 25 again (FINISH, layer 1: +0).
    tags = [0, 0, 1, 2, 1, 1, 2]
    end = [10, 14, 12, 13, 25, 25, 3]
    shares = critical_cycles(tags, end, 3)
    assert shares == [8, 13, 4]
    assert sum(shares) == max(end)
    # The same instructions in another stream order give the same shares.
    order = [5, 3, 6, 1, 4, 0, 2]
    assert critical_cycles([tags[i] for i in order], [end[i] for i in order], 3) == shares
    # An instruction ending no later than the latest end gets nothing.
    assert critical_cycles([0, 1], [20, 20], 2) == [20, 0]
    assert critical_cycles([], [], 2) == [0, 0]


# --------------------------------------------------------------------------------------------
# End to end: per-layer figures on every configuration


def test_two_layers_run_bit_exact_with_per_layer_figures(cfg: VTAConfig) -> None:
    binary = _binary(cfg)
    program = binary.program
    assert program.layers == LAYER_NAMES
    tags = program.insn_layers()
    assert tags.size == program.num_insns and set(tags.tolist()) == {0, 1}
    inputs = _inputs()
    mod = Device(cfg).load_module(binary)
    outs = dict(zip([a.name for a in mod.outputs], mod.run(inputs), strict=True))
    for name, want in _expected(inputs).items():
        np.testing.assert_array_equal(outs[name], want)
    stats = mod.last_run
    assert stats is not None and [layer["name"] for layer in stats.layers] == LAYER_NAMES
    # The whole-run figures are those of the cycle model over the program.
    assert stats.cycles == time_runs([r.insns for r in program.runs], cfg).cycles
    for layer in stats.layers:
        assert 0 < layer["cycles"] <= stats.cycles
        assert layer["cycles"] == layer["end_cycle"] - layer["start_cycle"]
        assert layer["bound_by"] == max(layer["busy"], key=layer["busy"].get)
        assert all(0 <= u <= 1 for u in layer["utilisation"].values())
    assert sum(layer["instructions"] for layer in stats.layers) == stats.instructions
    # The layers' shares of the cycles add up to the run's cycles; each is at most its span
    # plus what its instructions took before the span (NOPs).
    assert sum(layer["critical_cycles"] for layer in stats.layers) == stats.cycles
    assert all(0 < layer["critical_cycles"] <= layer["end_cycle"] for layer in stats.layers)
    for module_name, total in stats.busy.items():
        assert sum(layer["busy"][module_name] for layer in stats.layers) == total
    # The compute module's work by kind: GEMM and ALU as the cost formulas of
    # docs/timing-model.md give them, and with the compute module's loads and FINISH all of
    # its busy cycles.
    depth = cfg.timing.pipeline_depth
    expected = {"gemm": 0, "reset": 0, "alu": 0}
    finish = 0
    for insn in (i for run in program.runs for i in run.insns):
        if isinstance(insn, GemmInsn | AluInsn):
            kind = "alu" if isinstance(insn, AluInsn) else "reset" if insn.reset_reg else "gemm"
            per_uop = 2 if isinstance(insn, AluInsn) and not insn.use_imm else 1
            expected[kind] += depth + per_uop * insn.iter_out * insn.iter_in * (
                insn.uop_end - insn.uop_bgn)
        finish += isinstance(insn, FinishInsn)
    for kind, cycles in expected.items():
        assert sum(layer["compute_work"][kind] for layer in stats.layers) == cycles, kind
    assert expected["gemm"] and expected["alu"]
    assert sum(sum(layer["compute_work"].values()) for layer in stats.layers) + finish == \
        stats.busy["compute"]
    # DRAM traffic: no ACC_8BIT load here, so the bytes add up to the counters exactly.
    read = sum(t["read"] for layer in stats.layers for t in layer["dram_bytes"].values())
    written = sum(t["written"] for layer in stats.layers for t in layer["dram_bytes"].values())
    counters = stats.counters
    assert read == sum(counters[k] for k in ("inp_load_nbytes", "wgt_load_nbytes",
                                             "acc_load_nbytes", "uop_load_nbytes"))
    assert written == counters["out_store_nbytes"]
    # The element-wise layer reads each input and writes its output exactly once.
    packed = {a.name: a.packed_nbytes for a in binary.args}
    dense, add = stats.layers
    assert add["dram_bytes"]["a"] == {"read": packed["a"], "written": 0}
    assert add["dram_bytes"]["b"] == {"read": packed["b"], "written": 0}
    assert add["dram_bytes"]["c"] == {"read": 0, "written": packed["c"]}
    assert dense["dram_bytes"]["y"]["written"] == packed["y"]
    assert not {"a", "b", "c"} & set(dense["dram_bytes"])
    assert not {"x", "w", "bias", "y"} & set(add["dram_bytes"])


def test_vta_run_stats_and_trace_have_the_layers(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "net.mlir"
    source.write_text(TWO_LAYERS)
    trace = tmp_path / "trace.json"
    status = vta_run.main([str(source), "--random-inputs", "--check", "--stats", "-",
                           "--trace", str(trace)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "check: PASS" in err
    stats = json.loads(out)
    assert [layer["name"] for layer in stats["layers"]] == LAYER_NAMES
    assert all(layer["cycles"] > 0 for layer in stats["layers"])
    events = json.loads(trace.read_text())["traceEvents"]
    slices = [e for e in events if e.get("cat") == "layer"]
    assert [e["name"] for e in slices] == LAYER_NAMES
    tracks = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert all(tracks[e["tid"]].startswith("layers") for e in slices)
    for e, layer in zip(slices, stats["layers"], strict=True):
        assert e["ph"] == "X" and e["args"]["cycles"] == layer["cycles"] and e["dur"] > 0
    # Slices on one track do not overlap.
    for tid in {e["tid"] for e in slices}:
        spans = sorted((e["args"]["start_cycle"], e["args"]["end_cycle"]) for e in slices
                       if e["tid"] == tid)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))


# --------------------------------------------------------------------------------------------
# Binary format version 2 and vtaisa


def _section(data: bytes, tag: bytes) -> tuple[int, int, int, int]:
    (nsec,) = struct.unpack_from("<H", data, 10)
    for i in range(nsec):
        at = HEADER + i * DIRENT
        found, off, size, count = struct.unpack_from("<4sIII", data, at)
        if found == tag:
            return at, off, size, count
    raise AssertionError(f"no section {tag!r}")


def _recrc(data: bytes | bytearray) -> bytes:
    import zlib

    buf = bytearray(data)
    struct.pack_into("<I", buf, 24, zlib.crc32(bytes(buf[28:]), zlib.crc32(bytes(buf[:24]))))
    return bytes(buf)


def test_vtab_round_trip_keeps_the_layers(cfg: VTAConfig) -> None:
    binary = _binary(cfg)
    data = to_bytes(binary)
    assert struct.unpack_from("<HH", data, 8) == (2, len(SECTION_TAGS) + 1)
    _, _, _, count = _section(data, LAYER_SECTION)
    assert count == 2
    back = from_bytes(data, cfg)
    assert back.program.layers == LAYER_NAMES
    np.testing.assert_array_equal(back.program.insn_layers(), binary.program.insn_layers())
    assert to_bytes(back) == data
    assert back.describe().endswith("2 layer(s): dense1, elementwise@34")
    # Through vtaisa IR and back: the same bytes.
    again = module_to_program(program_to_module(back))
    assert to_bytes(again) == data


def test_a_version_1_file_without_layers_still_loads(default_cfg: VTAConfig) -> None:
    binary = _binary(default_cfg)
    program = binary.program
    plain = BinaryModule(default_cfg, Program(
        [Run(r.insns, r.uop_words, r.uop_base) for r in program.runs], program.segments),
        binary.args, binary.base)
    data = to_bytes(plain)
    assert struct.unpack_from("<HH", data, 8) == (1, len(SECTION_TAGS))
    back = from_bytes(data, default_cfg)
    assert back.program.layers == [] and back.program.insn_layers().size == 0
    mod = Device(default_cfg).load_module(back)
    inputs = _inputs(3)
    outs = mod.run(inputs)
    np.testing.assert_array_equal(outs[0], _expected(inputs)["y"])
    assert mod.last_run is not None and mod.last_run.layers == []


def _layr_cases(data: bytes) -> dict[str, tuple[bytes, str]]:
    """Corrupt LAYR sections (CRC recomputed) and the error each must give."""
    dirent, off, size, _ = _section(data, LAYER_SECTION)
    names_end = off + 2 + len("dense1") + 2 + len("elementwise@34")
    (nranges,) = struct.unpack_from("<I", data, names_end)
    ranges = names_end + 4

    def patched(at: int, fmt: str, *values: int) -> bytes:
        buf = bytearray(data)
        struct.pack_into(fmt, buf, at, *values)
        return _recrc(buf)

    first_count, _ = struct.unpack_from("<II", data, ranges)
    return {
        "no layers": (patched(dirent + 12, "<I", 0), "names at least one layer"),
        "too many layers": (patched(dirent + 12, "<I", 1000), "1000 layers need"),
        "range count": (patched(names_end, "<I", nranges + 1), "ranges need"),
        "layer index": (patched(ranges + 4, "<I", 7), "has layer 7, only 2 are named"),
        "empty range": (patched(ranges, "<I", 0), "range 0 is empty"),
        "coverage": (patched(ranges, "<I", first_count + 1), "the ranges cover"),
        "same layer twice": (patched(ranges + 12, "<I", 0), "of the same layer"),
        "name bytes": (patched(off + 2, "<B", 0xFF), "not UTF-8"),
        "size": (patched(dirent + 8, "<I", size + 4), "runs past the end|after the last"),
    }


@pytest.mark.parametrize("case", ["no layers", "too many layers", "range count",
                                  "layer index", "empty range", "coverage", "same layer twice",
                                  "name bytes", "size"])
def test_corrupt_layer_sections_are_rejected(default_cfg: VTAConfig, case: str) -> None:
    data, message = _layr_cases(to_bytes(_binary(default_cfg)))[case]
    with pytest.raises(BinaryFormatError, match=message) as info:
        from_bytes(data, default_cfg)
    assert "\n" not in str(info.value)


def test_every_flipped_layer_byte_is_refused_or_consistent(default_cfg: VTAConfig) -> None:
    data = to_bytes(_binary(default_cfg))
    _, off, size, _ = _section(data, LAYER_SECTION)
    for at in range(off, off + size):
        for mask in (0x01, 0x80, 0xFF):
            buf = bytearray(data)
            buf[at] ^= mask
            try:
                module = from_bytes(_recrc(buf), default_cfg)
            except BinaryFormatError as e:
                assert "\n" not in str(e)
            else:  # e.g. another printable name: still a consistent module
                assert from_bytes(to_bytes(module)).program.layers == module.program.layers


def test_vta_run_refuses_a_corrupt_layer_section(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = _layr_cases(to_bytes(_binary(VTAConfig.shipped("default"))))["layer index"]
    path = tmp_path / "bad.vtab"
    path.write_bytes(data)
    status = vta_run.main([str(path), "--random-inputs"])
    out, err = capsys.readouterr()
    assert status == 1
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "bad.vtab" in err and "has layer 7, only 2 are named" in err


# --------------------------------------------------------------------------------------------
# Consistency rules and the builder


def _module_with(layers: list[str], tags: list[list[int]]) -> Program:
    runs = [Run([MemInsn(memory_type=MemType.UOP)] * (len(t) - 1) + [FinishInsn()],
                layers=np.asarray(t, dtype=np.int32)) for t in tags]
    return Program(runs, [], layers)


@pytest.mark.parametrize(("layers", "tags", "message"), [
    ([], [[0, 0]], "layer tags in a program without layers"),
    (["a"], [[0]], "1 layer tag"),
    (["a"], [[0, 1, 0]], "layer index 1 is out of range"),
    (["a", "b"], [[1, 0, 0]], "layer 1 appears before layer 0"),
    (["a", "b"], [[0, 0], [0, 0]], "layer 'b' has no instructions"),
    (["a", "a"], [[0, 1]], "layer 'a' is named twice"),
    (["a\n"], [[0, 0]], "non-printable"),
])
def test_layer_consistency_rules(layers: list[str], tags: list[list[int]],
                                 message: str) -> None:
    program = _module_with(layers, tags)
    if message == "1 layer tag":
        program.runs[0].insns.append(FinishInsn())
    with pytest.raises(BinaryFormatError, match=message):
        check_layers(program)


def test_the_builder_tags_the_instructions_it_adds(default_cfg: VTAConfig) -> None:
    b = CommandBuilder(default_cfg, 0x10000)
    b.layer(0)
    b.dep_push(2, 3)  # a NOP of the compute module
    b.layer(1)
    b.dep_pop(2, 3)
    b.store_buffer_2d(0, int(MemType.OUT), 0x20000, 0, 1, 1, 1)
    (run,) = b.finish()
    # NOP (layer 0), then the store and the closing NOPs and FINISH (layer 1).
    assert run.layers.tolist() == [0] + [1] * (len(run.insns) - 1)
    with pytest.raises(RuntimeBuildError, match="layer: index"):
        CommandBuilder(default_cfg, 0x10000).layer(-1)


def test_commands_of_two_layers_in_one_loop_switch_layer_every_iteration(
        default_cfg: VTAConfig) -> None:
    text = """\
func.func @f(%A: memref<1x2x1x16xi32>, %C: memref<1x2x1x16xi8>) {
  %a = memref.alloc() : memref<2x1x16xi32, #vta.sram<acc>>
  affine.for %i = 0 to 3 {
    vta.stage compute {
      vta.dma_copy %A[0] -> %a[0] y 1 x 2 stride 2
          : memref<1x2x1x16xi32> -> memref<2x1x16xi32, #vta.sram<acc>> loc("load_a")
      vta.dep_push compute -> store loc("load_a")
    }
    vta.stage store {
      vta.dep_pop compute -> store loc("store_c")
      vta.dma_copy %a[0] -> %C[0] y 1 x 2 stride 2
          : memref<2x1x16xi32, #vta.sram<acc>> -> memref<1x2x1x16xi8> loc("store_c")
      vta.dep_push store -> compute loc("store_c")
    }
    vta.dep_pop store -> compute loc("load_a")
  }
  func.return
}
"""
    binary = api.lower(text, config=default_cfg)
    program = binary.program
    assert program.layers == ["load_a", "store_c"]
    insns = [i for r in program.runs for i in r.insns]
    tags = program.insn_layers().tolist()
    loads = [t for i, t in zip(insns, tags, strict=True)
             if isinstance(i, MemInsn) and i.x_size and not i.is_store]
    stores = [t for i, t in zip(insns, tags, strict=True)
              if isinstance(i, MemInsn) and i.x_size and i.is_store]
    assert loads == [0, 0, 0] and stores == [1, 1, 1]
    assert to_bytes(from_bytes(to_bytes(binary))) == to_bytes(binary)


def test_documented_version_2_example_matches_the_writer() -> None:
    from .binary_helpers import doc_example_module

    module = doc_example_module()
    module.program.layers = ["add"]
    module.program.runs[0].layers = np.zeros(len(module.program.runs[0].insns), dtype=np.int32)
    data = to_bytes(module)
    _, off, size, count = _section(data, LAYER_SECTION)
    assert (len(data), struct.unpack_from("<I", data, 24)[0]) == (635, 0x9C32F273)
    assert (off, size, count) == (0x26A, 17, 1)
    assert data[off:].hex(" ") == "03 00 61 64 64 01 00 00 00 07 00 00 00 00 00 00 00"
    doc = Path(__file__).resolve().parents[1] / "docs" / "binary-format.md"
    if doc.is_file():
        text = doc.read_text(encoding="utf-8")
        assert "CRC `0x9c32f273`" in text and "`LAYR` is at\n`0x26a` (17 bytes" in text
        header = data[:32].hex()
        spaced = " ".join(header[i:i + 4] for i in range(0, len(header), 4))
        assert spaced.replace(" 0000 1000", "\n0000 1000") in text
