"""``vta-bufferize`` end to end: programs on tensors, written as torch-mlir writes an int8 model
(``tests/tensor_programs.py``), compiled with ``vta_mlir.compile`` on every shipped
configuration, run on the simulator and compared bit for bit with numpy; their results come
back from the program call and from ``vta-run --output``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vta_mlir
from tests.layer_programs import conv_layer
from tests.tensor_programs import TensorNetwork, dense, requant_body, tensor
from tests.test_layer_chaining import downsampling_block
from tools.vta_run import main as vta_run
from vta_mlir.config import VTAConfig
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.passes.bufferize import RESULT_ATTR_NAME, BufferizePass, has_tensors


def _i8(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.integers(-128, 128, shape, dtype=np.int8)


def _bias(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(-3000, 3000, n).astype(np.int32)


def matmul_program(m: int, k: int, n: int, shift: int) -> str:
    """``clip((x · w) >> shift, 0, 127)``: fill, ``linalg.matmul`` and a requant generic."""
    acc, y = tensor((m, n), "i32"), tensor((m, n), "i8")
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    return "\n".join([
        f"func.func @dense(%x: {tensor((m, k), 'i8')}, %w: {tensor((k, n), 'i8')}) -> {y} {{",
        "  %c0 = arith.constant 0 : i32",
        f"  %0 = tensor.empty() : {acc}",
        f"  %1 = linalg.fill ins(%c0 : i32) outs(%0 : {acc}) -> {acc}",
        f"  %2 = linalg.matmul ins(%x, %w : {tensor((m, k), 'i8')}, {tensor((k, n), 'i8')}) "
        f"outs(%1 : {acc}) -> {acc}",
        f"  %3 = tensor.empty() : {y}",
        f"  %4 = linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = "
        f"[\"parallel\", \"parallel\"]}} ins(%2 : {acc}) outs(%3 : {y}) {{",
        *requant_body("%in: i32, %out: i8", "%in", shift),
        f"  }} -> {y}",
        f"  return %4 : {y}",
        "}", ""])


def test_matmul_with_fill(cfg: VTAConfig) -> None:
    rng = np.random.default_rng(1)
    x, w = _i8(rng, (2 * cfg.batch, 64)), _i8(rng, (64, 48))
    (y,) = vta_mlir.compile(matmul_program(2 * cfg.batch, 64, 48, 8), config=cfg)(x, w)
    want = np.clip((x.astype(np.int64) @ w.astype(np.int64)) >> 8, 0, 127).astype(np.int8)
    assert 0.2 < (want > 0).mean() < 0.9
    np.testing.assert_array_equal(y, want)


def conv_program(x_shape: tuple[int, int, int, int], w: np.ndarray, b: np.ndarray,
                 stride: int, pad: int, shift: int) -> tuple[str, tuple[int, ...]]:
    """One conv layer whose weights and bias are dense constants of the function."""
    net = TensorNetwork(args=[f"%x: {tensor(x_shape, 'i8')}"])
    net.body += [f"  %w = arith.constant {dense(w)} : {tensor(w.shape, 'i8')}",
                 f"  %b = arith.constant {dense(b)} : {tensor(b.shape, 'i32')}"]
    out = net.conv("y", "x", x_shape, "%w", w.shape, "%b", stride, pad, shift)
    return net.function("conv", [("y", out)]), out


@pytest.mark.parametrize(("stride", "pad"), [(1, 1), (2, 1), (1, 0)])
def test_conv_with_pad_bias_and_requant(cfg: VTAConfig, stride: int, pad: int) -> None:
    rng = np.random.default_rng(stride * 10 + pad)
    w, b = _i8(rng, (32, 16, 3, 3)), _bias(rng, 32)
    x = _i8(rng, (cfg.batch, 16, 8, 8))
    text, out = conv_program(x.shape, w, b, stride, pad, 7)
    (y,) = vta_mlir.compile(text, config=cfg)(x)
    want = conv_layer(x, w, b, stride, pad, 7)
    assert y.shape == out and 0.2 < (want > 0).mean() < 0.9
    np.testing.assert_array_equal(y, want)


def two_layer_program(c: int, size: int, batch: int, also_hidden: bool) -> str:
    """conv a (padded) → i8 intermediate ``%a`` → conv b (padded, stride 2); returns ``%b``
    (and ``%a`` first when ``also_hidden``)."""
    x = (batch, c, size, size)
    net = TensorNetwork(args=[f"%x: {tensor(x, 'i8')}",
                              f"%wa: {tensor((c, c, 3, 3), 'i8')}", f"%ba: {tensor((c,), 'i32')}",
                              f"%wb: {tensor((2 * c, c, 3, 3), 'i8')}",
                              f"%bb: {tensor((2 * c,), 'i32')}"])
    h = net.conv("a", "x", x, "%wa", (c, c, 3, 3), "%ba", 1, 1, 6)
    y = net.conv("b", "a", h, "%wb", (2 * c, c, 3, 3), "%bb", 2, 1, 7)
    results = [("a", h), ("b", y)] if also_hidden else [("b", y)]
    return net.function("net", results)


@pytest.mark.parametrize("also_hidden", [False, True])
def test_two_layers_with_an_intermediate(cfg: VTAConfig, also_hidden: bool) -> None:
    """The intermediate is an int8 allocation handed over through DRAM; returned as well, it
    is the first out-parameter, written by layer a and read by layer b."""
    rng = np.random.default_rng(3)
    c, size = 16, 8
    x = _i8(rng, (cfg.batch, c, size, size))
    wa, ba, wb, bb = _i8(rng, (c, c, 3, 3)), _bias(rng, c), _i8(rng, (2 * c, c, 3, 3)), \
        _bias(rng, 2 * c)
    module = vta_mlir.compile(two_layer_program(c, size, cfg.batch, also_hidden), config=cfg)
    outputs = module(x, wa, ba, wb, bb)
    h = conv_layer(x, wa, ba, 1, 1, 6)
    want = conv_layer(h, wb, bb, 2, 1, 7)
    assert [a.name for a in module.outputs] == (["result0", "result1"] if also_hidden
                                                else ["result0"])
    np.testing.assert_array_equal(outputs[-1], want)
    if also_hidden:
        np.testing.assert_array_equal(outputs[0], h)


def downsampling_block_program(c: int, size: int, batch: int) -> str:
    """A stem conv into ``%h1``, read by a padded 3×3 stride-2 conv and by a 1×1 stride-2
    shortcut, whose result is the residual of the last conv (ResNet's downsampling block)."""
    x = (batch, c, size, size)
    shapes = {"a": (c, c, 3, 3), "b": (2 * c, c, 3, 3), "d": (2 * c, c, 1, 1),
              "c": (2 * c, 2 * c, 3, 3)}
    args = [f"%x: {tensor(x, 'i8')}"]
    for name, shape in shapes.items():
        args += [f"%w{name}: {tensor(shape, 'i8')}", f"%b{name}: {tensor(shape[:1], 'i32')}"]
    net = TensorNetwork(args=args)
    h1 = net.conv("h1", "x", x, "%wa", shapes["a"], "%ba", 1, 1, 6)
    h2 = net.conv("h2", "h1", h1, "%wb", shapes["b"], "%bb", 2, 1, 6)
    net.conv("sc", "h1", h1, "%wd", shapes["d"], "%bd", 2, 0, 4)
    y = net.conv("y", "h2", h2, "%wc", shapes["c"], "%bc", 1, 1, 7, residual="%sc")
    return net.function("block", [("y", y)])


def test_downsampling_block(cfg: VTAConfig) -> None:
    """An intermediate read by two layers (one through tensor.pad) and a residual."""
    rng = np.random.default_rng(9)
    c, size = 16, 8
    x = _i8(rng, (cfg.batch, c, size, size))
    params = []
    for cout, cin, k in ((c, c, 3), (2 * c, c, 3), (2 * c, c, 1), (2 * c, 2 * c, 3)):
        params += [_i8(rng, (cout, cin, k, k)), _bias(rng, cout)]
    (y,) = vta_mlir.compile(downsampling_block_program(c, size, cfg.batch), config=cfg)(
        x, *params)
    wa, ba, wb, bb, wd, bd, wc, bc = params
    h1 = conv_layer(x, wa, ba, 1, 1, 6)
    h2 = conv_layer(h1, wb, bb, 2, 1, 6)
    shortcut = conv_layer(h1, wd, bd, 2, 0, 4)
    want = conv_layer(h2, wc, bc, 1, 1, 7, residual=shortcut)
    assert 0.2 < (want > 0).mean() < 0.9
    np.testing.assert_array_equal(y, want)


def test_tensor_form_compiles_to_the_memref_forms_program(cfg: VTAConfig) -> None:
    """The downsampling block on tensors and its hand-written memref form
    (``tests/test_layer_chaining.py``, the same arguments in the same order) give the same
    instructions and micro-ops: bufferizing costs no cycle."""
    memref_form, _ = downsampling_block(16, 8)
    programs = [vta_mlir.lower(text, config=cfg).program
                for text in (downsampling_block_program(16, 8, 1), memref_form)]
    tensor_runs, memref_runs = (p.runs for p in programs)
    assert [r.insns for r in tensor_runs] == [r.insns for r in memref_runs]
    for ours, theirs in zip(tensor_runs, memref_runs, strict=True):
        np.testing.assert_array_equal(ours.uop_words, theirs.uop_words)


def fc_program(c: int, o: int, n: int, batch: int) -> str:
    """A 3×3 conv without padding to ``batch×o×1×1``, collapsed to ``batch×o`` for a fully
    connected ``linalg.matmul`` with a bias."""
    net = TensorNetwork(args=[f"%x: {tensor((batch, c, 3, 3), 'i8')}",
                              f"%wa: {tensor((o, c, 3, 3), 'i8')}", f"%ba: {tensor((o,), 'i32')}",
                              f"%fw: {tensor((o, n), 'i8')}", f"%fb: {tensor((n,), 'i32')}"])
    net.conv("a", "x", (batch, c, 3, 3), "%wa", (o, c, 3, 3), "%ba", 1, 0, 6)
    acc, y = tensor((batch, n), "i32"), tensor((batch, n), "i8")
    ident = "affine_map<(m, n) -> (m, n)>"
    net.body += [
        f"  %f = tensor.collapse_shape %a [[0], [1, 2, 3]] : {tensor((batch, o, 1, 1), 'i8')} "
        f"into {tensor((batch, o), 'i8')}",
        f"  %fe = tensor.empty() : {acc}",
        f"  %ff = linalg.fill ins(%c0 : i32) outs(%fe : {acc}) -> {acc}",
        f"  %fm = linalg.matmul ins(%f, %fw : {tensor((batch, o), 'i8')}, "
        f"{tensor((o, n), 'i8')}) outs(%ff : {acc}) -> {acc}",
        f"  %fo = tensor.empty() : {y}",
        f"  %fc = linalg.generic {{indexing_maps = [{ident}, affine_map<(m, n) -> (n)>, "
        f"{ident}], iterator_types = [\"parallel\", \"parallel\"]}} ins(%fm, %fb : {acc}, "
        f"{tensor((n,), 'i32')}) outs(%fo : {y}) {{",
        "  ^bb0(%v: i32, %bias: i32, %o: i8):",
        "    %s = arith.addi %v, %bias : i32",
        *requant_body("", "%s", 5, -128, 127)[1:],
        f"  }} -> {y}"]
    return net.function("fc", [("fc", (batch, n))])


def test_collapse_for_a_fully_connected_layer(cfg: VTAConfig) -> None:
    rng = np.random.default_rng(4)
    c, o, n = 16, 32, 16
    x = _i8(rng, (cfg.batch, c, 3, 3))
    wa, ba, fw, fb = _i8(rng, (o, c, 3, 3)), _bias(rng, o), _i8(rng, (o, n)), _bias(rng, n)
    (y,) = vta_mlir.compile(fc_program(c, o, n, cfg.batch), config=cfg)(x, wa, ba, fw, fb)
    h = conv_layer(x, wa, ba, 1, 0, 6).reshape(cfg.batch, o).astype(np.int64)
    want = np.clip((h @ fw.astype(np.int64) + fb) >> 5, -128, 127).astype(np.int8)
    np.testing.assert_array_equal(y, want)


def maxpool_program(shape: tuple[int, int, int, int], k: int, stride: int, pad: int) -> str:
    """ResNet's max-pool: the data padded with -128, ``linalg.pooling_nchw_max`` into a
    destination filled with -128, the window a ``tensor.empty``."""
    n, c, h, w = shape
    oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    net = TensorNetwork(args=[f"%x: {tensor(shape, 'i8')}"])
    net.body.append("  %cm128 = arith.constant -128 : i8")
    data, data_shape = net.pad("x", "x", shape, pad, "%cm128")
    y = tensor((n, c, oh, ow), "i8")
    net.body += [
        f"  %e = tensor.empty() : {y}",
        f"  %f = linalg.fill ins(%cm128 : i8) outs(%e : {y}) -> {y}",
        f"  %win = tensor.empty() : {tensor((k, k), 'i8')}",
        f"  %y = linalg.pooling_nchw_max {{dilations = dense<1> : vector<2xi64>, strides = "
        f"dense<{stride}> : vector<2xi64>}} ins(%{data}, %win : {tensor(data_shape, 'i8')}, "
        f"{tensor((k, k), 'i8')}) outs(%f : {y}) -> {y}"]
    return net.function("pool", [("y", (n, c, oh, ow))])


def test_maxpool_padded_with_minus_128(cfg: VTAConfig) -> None:
    rng = np.random.default_rng(5)
    x = _i8(rng, (cfg.batch, 32, 10, 10))
    (y,) = vta_mlir.compile(maxpool_program(x.shape, 3, 2, 1), config=cfg)(x)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-128)
    want = np.full((cfg.batch, 32, 5, 5), -128, np.int8)
    for i in range(3):
        for j in range(3):
            want = np.maximum(want, xp[:, :, i:i + 9:2, j:j + 9:2])
    np.testing.assert_array_equal(y, want)


def test_results_through_vta_run_output(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``vta-run --output`` receives the function's results in order; ``--check`` passes."""
    rng = np.random.default_rng(6)
    c, size = 16, 8
    program = tmp_path / "net.mlir"
    program.write_text(two_layer_program(c, size, 1, also_hidden=True))
    arrays = [_i8(rng, (1, c, size, size)), _i8(rng, (c, c, 3, 3)), _bias(rng, c),
              _i8(rng, (2 * c, c, 3, 3)), _bias(rng, 2 * c)]
    argv = [str(program), "--check"]
    for i, array in enumerate(arrays):
        np.save(tmp_path / f"in{i}.npy", array)
        argv += ["--input", str(tmp_path / f"in{i}.npy")]
    argv += ["--output", str(tmp_path / "h.npy"), "--output", str(tmp_path / "y.npy")]
    assert vta_run(argv) == 0
    assert "check: PASS" in capsys.readouterr().out
    h = conv_layer(arrays[0], arrays[1], arrays[2], 1, 1, 6)
    np.testing.assert_array_equal(np.load(tmp_path / "h.npy"), h)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"),
                                  conv_layer(h, arrays[3], arrays[4], 2, 1, 7))


def test_out_parameters_follow_written_arguments(cfg: VTAConfig) -> None:
    """A function on tensors that also writes a memref argument (a layer on memrefs): the
    written argument is the first output, the result the second."""
    m = cfg.batch
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    acc = "memref<32x32xi32>"
    memref_layer = [
        "  %acc = memref.alloc() : memref<32x32xi32>",
        f"  linalg.fill ins(%c0 : i32) outs(%acc : {acc})",
        f"  linalg.matmul ins(%x2, %w2 : memref<32x64xi8>, memref<64x32xi8>) outs(%acc : {acc})",
        f"  linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = [\"parallel\", "
        f"\"parallel\"]}} ins(%acc : {acc}) outs(%z : memref<32x32xi8>) {{",
        *requant_body("%in: i32, %out: i8", "%in", 9),
        "  }",
        "  return"]
    text = matmul_program(m, 64, 32, 8).replace(
        "%w: tensor<64x32xi8>) -> tensor<",
        "%w: tensor<64x32xi8>, %x2: memref<32x64xi8>, %w2: memref<64x32xi8>, "
        "%z: memref<32x32xi8>) -> tensor<").replace("  return", "\n".join(memref_layer))
    module = parse_module(text)
    BufferizePass().apply(make_context(), module)
    assert f"%result0: memref<{m}x32xi8> {{{RESULT_ATTR_NAME} = 0 : i64}}" in print_module(module)
    assert not has_tensors(module)
    rng = np.random.default_rng(7)
    x, w, x2, w2 = _i8(rng, (m, 64)), _i8(rng, (64, 32)), _i8(rng, (32, 64)), _i8(rng, (64, 32))
    compiled = vta_mlir.compile(text, config=cfg)
    assert [a.name for a in compiled.outputs] == ["z", "result0"]
    z, y = compiled(x, w, x2, w2)
    np.testing.assert_array_equal(
        z, np.clip((x2.astype(np.int64) @ w2.astype(np.int64)) >> 9, 0, 127))
    np.testing.assert_array_equal(
        y, np.clip((x.astype(np.int64) @ w.astype(np.int64)) >> 8, 0, 127))



def shared_fill_program(c: int, size: int, batch: int) -> str:
    """Two 1×1 convolutions accumulating onto one ``linalg.fill`` (as CSE leaves a network's
    identical initialisations), each truncated into a result."""
    x, w = tensor((batch, c, size, size), "i8"), tensor((c, c, 1, 1), "i8")
    acc, y = tensor((batch, c, size, size), "i32"), tensor((batch, c, size, size), "i8")
    ident = "affine_map<(a, b, c, d) -> (a, b, c, d)>"
    lines = [f"func.func @two(%x: {x}, %w1: {w}, %w2: {w}) -> ({y}, {y}) {{",
             "  %c0 = arith.constant 0 : i32",
             f"  %0 = tensor.empty() : {acc}",
             f"  %1 = linalg.fill ins(%c0 : i32) outs(%0 : {acc}) -> {acc}",
             f"  %e = tensor.empty() : {y}"]
    for i in (1, 2):
        lines += [
            f"  %c{i} = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, "
            f"strides = dense<1> : vector<2xi64>}} ins(%x, %w{i} : {x}, {w}) outs(%1 : {acc}) "
            f"-> {acc}",
            f"  %y{i} = linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = "
            f"[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}} ins(%c{i} : {acc}) "
            f"outs(%e : {y}) {{",
            *requant_body("%in: i32, %out: i8", "%in", 6, -128, 127), f"  }} -> {y}"]
    lines += [f"  return %y1, %y2 : {y}, {y}", "}", ""]
    return "\n".join(lines)


def test_one_fill_initialises_two_layers(cfg: VTAConfig) -> None:
    """The first convolution may not accumulate onto the fill's buffer (the second reads the
    fill after it): it gets a buffer of its own, filled again."""
    rng = np.random.default_rng(8)
    c, size = 32, 4
    x, w1, w2 = _i8(rng, (cfg.batch, c, size, size)), _i8(rng, (c, c, 1, 1)), \
        _i8(rng, (c, c, 1, 1))
    y1, y2 = vta_mlir.compile(shared_fill_program(c, size, cfg.batch), config=cfg)(x, w1, w2)
    for y, w in ((y1, w1), (y2, w2)):
        acc = np.einsum("nchw,oc->nohw", x.astype(np.int64), w[:, :, 0, 0].astype(np.int64))
        np.testing.assert_array_equal(y, np.clip(acc >> 6, -128, 127).astype(np.int8))

BAD_SECOND_FUNCTION = matmul_program(1, 16, 16, 4) + """
func.func @bad(%c: i8) -> tensor<8x16xi8> {
  %0 = tensor.splat %c : tensor<8x16xi8>
  return %0 : tensor<8x16xi8>
}
"""


def test_an_error_leaves_the_module_unchanged() -> None:
    module = parse_module(BAD_SECOND_FUNCTION, filename="bad.mlir")
    before = print_module(module)
    with pytest.raises(DiagnosticError) as info:
        BufferizePass().apply(make_context(), module)
    assert str(info.value).startswith("bad.mlir:22:3: error: 'tensor.splat' op is not "
                                      "supported by vta-bufferize")
    assert print_module(module) == before


def test_vta_run_reports_unsupported_tensor_ops(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "bad.mlir"
    program.write_text(BAD_SECOND_FUNCTION)
    assert vta_run([str(program), "--random-inputs", "--check"]) == 1
    err = capsys.readouterr().err
    assert "bad.mlir:22:3: error: 'tensor.splat' op is not supported" in err
    assert "Traceback" not in err
