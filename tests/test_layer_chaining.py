"""Layers chained through device DRAM (``passes/pack/intermediates.py``,
``vta_mlir/host/dram_reuse.py``): int8 buffers one layer writes and later layers read as
activations, as the data of a padded convolution, as residuals and, collapsed, as the input of
a fully connected layer; compiled to one binary, run on the simulator and compared bit for bit
with numpy (``tests/layer_programs.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import i32
from xdsl.dialects.memref import AllocOp

import vta_mlir
from tests.layer_programs import Network, conv_layer
from tests.mlir_programs import memref
from tools.vta_run import temporaries_bytes
from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import set_module_config
from vta_mlir.dialects.vta_positions import Sram, SramAttr, sram_offset
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.passes.pack import PackPass
from vta_mlir.passes.tile.search import place_region_buffers
from vta_mlir.sim.hazards import program_hazards


def _weights(rng: np.random.Generator, cout: int, cin: int, k: int) -> list[np.ndarray]:
    return [rng.integers(-128, 128, (cout, cin, k, k), dtype=np.int8),
            rng.integers(-3000, 3000, cout).astype(np.int32)]


def downsampling_block(c: int, size: int) -> tuple[str, list[tuple[int, int, int, int]]]:
    """A stem conv, then a ResNet downsampling block: ``h1`` read by a padded 3×3 stride-2
    conv and by a 1×1 stride-2 shortcut, whose result is the residual of the last conv."""
    net = Network()
    x = (1, c, size, size)
    h1 = (1, c, size, size)
    h2 = (1, 2 * c, size // 2, size // 2)
    for name, shape in (("h1", h1), ("h2", h2), ("sc", h2)):
        net.buffer(name, shape)
    specs = [("a", "x", x, c, 3, 1, 1, 6, "h1", None),
             ("b", "h1", h1, 2 * c, 3, 2, 1, 6, "h2", None),
             ("d", "h1", h1, 2 * c, 1, 2, 0, 4, "sc", None),
             ("c", "h2", h2, 2 * c, 3, 1, 1, 7, "y", "sc")]
    for name, src, shape, cout, k, stride, pad, shift, out, res in specs:
        net.conv(name, src, shape, cout, k, stride, pad, shift, out, res)
    text = net.function("block", [f"%x: {memref(x, 'i8')}"], [f"%y: {memref(h2, 'i8')}"])
    return text, [(cout, shape[1], k, stride) for _, _, shape, cout, k, stride, *_ in specs]


@pytest.mark.parametrize("size", [8, 6])
def test_downsampling_block(cfg: VTAConfig, size: int) -> None:
    """Several consumers of one buffer, padded reads of intermediates and an intermediate
    residual, bit-exact on every configuration."""
    rng = np.random.default_rng(size)
    text, shapes = downsampling_block(16, size)
    x = rng.integers(-128, 128, (1, 16, size, size), dtype=np.int8)
    params = [p for cout, cin, k, _ in shapes for p in _weights(rng, cout, cin, k)]
    binary = vta_mlir.lower(text, config=cfg)
    # The layers reuse the SRAMs and hand buffers over through DRAM: no unordered access.
    assert program_hazards(binary.program, cfg) == []
    module = vta_mlir.Device(cfg).load_module(binary)
    (y,) = module(x, *params)
    wa, ba, wb, bb, wd, bd, wc, bc = params
    h1 = conv_layer(x, wa, ba, 1, 1, 6)
    h2 = conv_layer(h1, wb, bb, 2, 1, 6)
    shortcut = conv_layer(h1, wd, bd, 2, 0, 4)
    expected = conv_layer(h2, wc, bc, 1, 1, 7, residual=shortcut)
    assert 0.2 < (expected > 0).mean() < 0.9  # the data is not all clipped
    np.testing.assert_array_equal(y, expected)


def _fc_program(c: int, o: int, n: int, collapse: tuple[int, int] = (1, 1)) -> str:
    kh, kw = collapse
    net = Network()
    net.buffer("h", (1, o, kh, kw))
    net.conv("a", "x", (1, c, 2 + kh, 2 + kw), o, 3, 1, 0, 6, "h")
    k = o * kh * kw
    net.body += [
        f"  %f = memref.collapse_shape %h [[0], [1, 2, 3]] : {memref((1, o, kh, kw), 'i8')} "
        f"into {memref((1, k), 'i8')}",
        f"  %facc = memref.alloc() : {memref((1, n), 'i32')}",
        f"  linalg.fill ins(%c0 : i32) outs(%facc : {memref((1, n), 'i32')})",
        f"  linalg.matmul ins(%f, %fw : {memref((1, k), 'i8')}, {memref((k, n), 'i8')}) "
        f"outs(%facc : {memref((1, n), 'i32')})",
        "  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> "
        "(n)>, affine_map<(m, n) -> (m, n)>], iterator_types = [\"parallel\", \"parallel\"]} "
        f"ins(%facc, %fb : {memref((1, n), 'i32')}, {memref((n,), 'i32')}) "
        f"outs(%y : {memref((1, n), 'i8')}) {{",
        "  ^bb0(%v: i32, %b: i32, %o: i8):",
        "    %s = arith.addi %v, %b : i32",
        "    %c5 = arith.constant 5 : i32",
        "    %r = arith.shrsi %s, %c5 : i32",
        "    %lo = arith.constant -128 : i32",
        "    %hi = arith.constant 127 : i32",
        "    %a1 = arith.maxsi %r, %lo : i32",
        "    %a2 = arith.minsi %a1, %hi : i32",
        "    %t = arith.trunci %a2 : i32 to i8",
        "    linalg.yield %t : i8",
        "  }",
        f"  memref.dealloc %h : {memref((1, o, kh, kw), 'i8')}"]
    net.args += [f"%fw: {memref((k, n), 'i8')}", f"%fb: {memref((n,), 'i32')}"]
    return net.function("fc", [f"%x: {memref((1, c, 2 + kh, 2 + kw), 'i8')}"],
                        [f"%y: {memref((1, n), 'i8')}"])


def test_fully_connected_after_collapse(cfg: VTAConfig) -> None:
    """A fully connected layer reads the 1×C×1×1 result of a convolution collapsed to 1×C."""
    rng = np.random.default_rng(3)
    c, o, n = 16, 48, 10
    x = rng.integers(-128, 128, (1, c, 3, 3), dtype=np.int8)
    w, b = _weights(rng, o, c, 3)
    fw = rng.integers(-128, 128, (o, n), dtype=np.int8)
    fb = rng.integers(-3000, 3000, n).astype(np.int32)
    (y,) = vta_mlir.compile(_fc_program(c, o, n), config=cfg)(x, w, b, fw, fb)
    h = conv_layer(x, w, b, 1, 0, 6).reshape(1, o).astype(np.int64)
    expected = np.clip((h @ fw.astype(np.int64) + fb) >> 5, -128, 127).astype(np.int8)
    np.testing.assert_array_equal(y, expected)


def test_dead_buffers_share_device_dram(default_cfg: VTAConfig) -> None:
    """In a chain x → h1 → h2 → h3 → y, h3 is written after h1's last read: they share bytes,
    and the temporaries segment holds two buffers, not three."""
    net = Network()
    shape = (1, 16, 16, 16)
    for name in ("h1", "h2", "h3"):
        net.buffer(name, shape)
    for name, src, out in (("a", "x", "h1"), ("b", "h1", "h2"), ("c", "h2", "h3"),
                           ("d", "h3", "y")):
        net.conv(name, src, shape, 16, 3, 1, 1, 7, out)
    text = net.function("chain", [f"%x: {memref(shape, 'i8')}"], [f"%y: {memref(shape, 'i8')}"])
    binary = vta_mlir.lower(text, config=default_cfg)
    segments = {s.name: s for s in binary.program.segments}
    assert segments["temporaries"].nbytes == 2 * 16 * 16 * 16
    assert temporaries_bytes(binary) == 2 * 16 * 16 * 16  # vta-run --stats reports it
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    params = [p for _ in range(4) for p in _weights(rng, 16, 16, 3)]
    (y,) = vta_mlir.compile(text, config=default_cfg)(x, *params)
    expected = x
    for k in range(4):
        expected = conv_layer(expected, params[2 * k], params[2 * k + 1], 1, 1, 7)
    np.testing.assert_array_equal(y, expected)


def _pack_error(text: str, cfg: VTAConfig) -> str:
    module = parse_module(text)
    set_module_config(module, cfg)
    before = print_module(module)
    with pytest.raises(DiagnosticError) as info:
        PackPass().apply(make_context(), module)
    assert print_module(module) == before  # nothing is half-rewritten
    return str(info.value.diagnostic.message)


def test_read_before_write_is_diagnosed(default_cfg: VTAConfig) -> None:
    net = Network()
    shape = (1, 16, 8, 8)
    net.buffer("h", shape)
    net.conv("a", "h", shape, 16, 3, 1, 1, 6, "y")
    net.conv("b", "x", shape, 16, 3, 1, 1, 6, "h")
    text = net.function("early", [f"%x: {memref(shape, 'i8')}"], [f"%y: {memref(shape, 'i8')}"])
    message = _pack_error(text, default_cfg)
    assert "'memref.copy' op reads %h before anything was written to it" in message


def test_fully_connected_after_spatial_collapse(default_cfg: VTAConfig) -> None:
    """Collapsing 1×16×2×2 to 1×64 interleaves channels and positions in the packed bytes: the
    fully connected layer's weights are permuted to them (passes/pack/flattened_act.py)."""
    rng = np.random.default_rng(4)
    c, o, n = 16, 16, 10
    x = rng.integers(-128, 128, (1, c, 4, 4), dtype=np.int8)
    w, b = _weights(rng, o, c, 3)
    fw = rng.integers(-128, 128, (o * 4, n), dtype=np.int8)
    fb = rng.integers(-3000, 3000, n).astype(np.int32)
    program = _fc_program(c, o, n, collapse=(2, 2))
    (y,) = vta_mlir.compile(program, config=default_cfg)(x, w, b, fw, fb)
    h = conv_layer(x, w, b, 1, 0, 6).reshape(1, o * 4).astype(np.int64)
    expected = np.clip((h @ fw.astype(np.int64) + fb) >> 5, -128, 127).astype(np.int8)
    np.testing.assert_array_equal(y, expected)


def test_elementwise_layer_on_intermediates(cfg: VTAConfig) -> None:
    """A residual add written as its own layer, ``min(h1 + h2, 127)`` of two activations,
    between convolutions: it reads and writes their tensor layout as a matrix view."""
    shape = (1, 16, 6, 6)
    t, ident = memref(shape, "i8"), "affine_map<(n, c, h, w) -> (n, c, h, w)>"
    net = Network()
    for name in ("h1", "h2", "h3"):
        net.buffer(name, shape)
    net.conv("a", "x", shape, 16, 3, 1, 1, 6, "h1")
    net.conv("b", "h1", shape, 16, 3, 1, 1, 6, "h2")
    net.body += [
        f"  linalg.generic {{indexing_maps = [{ident}, {ident}, {ident}], iterator_types = "
        f"[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}} ins(%h1, %h2 : {t}, {t}) "
        f"outs(%h3 : {t}) {{",
        "  ^bb0(%p: i8, %q: i8, %o: i8):",
        "    %pe = arith.extsi %p : i8 to i32",
        "    %qe = arith.extsi %q : i8 to i32",
        "    %s = arith.addi %pe, %qe : i32",
        "    %m = arith.constant 127 : i32",
        "    %r = arith.minsi %s, %m : i32",
        "    %tr = arith.trunci %r : i32 to i8",
        "    linalg.yield %tr : i8",
        "  }"]
    net.conv("c", "h3", shape, 16, 3, 1, 1, 6, "y")
    text = net.function("residual_add", [f"%x: {t}"], [f"%y: {t}"])
    rng = np.random.default_rng(2)
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    params = [p for _ in range(3) for p in _weights(rng, 16, 16, 3)]
    (y,) = vta_mlir.compile(text, config=cfg)(x, *params)
    h1 = conv_layer(x, params[0], params[1], 1, 1, 6)
    h2 = conv_layer(h1, params[2], params[3], 1, 1, 6)
    h3 = np.minimum(h1.astype(np.int64) + h2, 127).astype(np.int8)
    np.testing.assert_array_equal(y, conv_layer(h3, params[4], params[5], 1, 1, 6))


def test_regions_follow_each_other_in_sram_or_start_again(default_cfg: VTAConfig) -> None:
    """A region's buffers go right after the previous region's when they fit, else back to
    the start (after what the function already holds): consecutive layers reuse the SRAM."""
    depth = default_cfg.sram_depth("acc")

    def acc_buffer(elements: int) -> AllocOp:
        return AllocOp.get(i32, shape=[elements, 1, 16],
                                  memory_space=SramAttr(Sram.ACC))

    held = {"inp": 0, "wgt": 0, "acc": 8}
    after: dict[str, int] = {}
    first = [acc_buffer(100), acc_buffer(50)]
    place_region_buffers([op.memref for op in first], held, default_cfg, after)
    assert [sram_offset(op) for op in first] == [8, 108]
    small = acc_buffer(10)
    place_region_buffers([small.memref], held, default_cfg, after)
    assert sram_offset(small) == 158
    large = acc_buffer(depth - 8)
    place_region_buffers([large.memref], held, default_cfg, after)
    assert sram_offset(large) == 8  # does not fit after the others: starts again


def test_use_after_dealloc_is_diagnosed(default_cfg: VTAConfig) -> None:
    """A buffer's lifetime ends at its memref.dealloc: its DRAM may then hold another one."""
    net = Network()
    shape = (1, 16, 8, 8)
    net.buffer("h", shape)
    net.conv("a", "x", shape, 16, 3, 1, 1, 6, "h")
    net.body.append(f"  memref.dealloc %h : {memref(shape, 'i8')}")
    net.conv("b", "h", shape, 16, 3, 1, 1, 6, "y")
    text = net.function("freed", [f"%x: {memref(shape, 'i8')}"], [f"%y: {memref(shape, 'i8')}"])
    message = _pack_error(text, default_cfg)
    assert "'memref.copy' op uses %h after it is deallocated" in message
