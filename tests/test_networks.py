"""Whole networks (``examples/networks/``, ``benchmarks/resnet18_network.py``).

* the numpy model of ``examples/networks/numpy_model.py`` against hand-computed cases, and
  against the reference evaluator (``vta_mlir.reference.evaluate``) on the generated MLIR of
  the small CNN and of ResNet-18 (at 32×32): the generators write what the model computes;
* the committed ``small_cnn.mlir`` / ``small_cnn_globals.mlir`` are the generator's output;
* every layer of the small CNN on its own, compiled and run on the simulator on the three
  shipped configurations, bit for bit against the model; the whole small CNN in both weight
  forms through ``vta-run --input ... --output ...``;
* the benchmark's bounds (ResNet-18: 1,814,073,344 MACs, 7,086,224 GEMM cycles on the default
  configuration), its measurement on a one-layer network and its report;
* the generators' command lines; ResNet-18 at 224×224 on the simulator (``-m slow``).

``examples/networks`` and ``benchmarks`` are not packages: :mod:`.network_modules` imports
their modules.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vta_mlir import compile, lower, parse
from vta_mlir.binary import BinaryModule
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.reference import evaluate
from vta_mlir.tools import vta_run

from .network_modules import (
    NETWORKS,
    POOL_FORMS,
    WEIGHT_FORMS,
    Builder,
    Generated,
    avgpool_constants,
    bench,
    layer_inputs,
    layer_mlir,
    nm,
    render,
    resnet18,
    small_cnn,
    write_npy,
)

SMALL = {form: small_cnn.generate(0, form) for form in WEIGHT_FORMS}


# ---------------------------------------------------------------------------------------------
# The numpy model


def test_conv_accumulator_is_the_direct_sum() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(-128, 128, size=(1, 3, 7, 6), dtype=np.int8)
    w = rng.integers(-128, 128, size=(4, 3, 3, 3), dtype=np.int8)
    layer = nm.Conv("c", nm.INPUT, w, np.zeros(4, np.int32), stride=2, pad=1, shift=0)
    acc = nm.conv_accumulator(layer, x)
    assert acc.shape == layer.out_shape(x.shape) == (1, 4, 4, 3)
    padded = np.zeros((1, 3, 9, 8), np.int64)
    padded[:, :, 1:8, 1:7] = x
    for o in range(4):
        for i in range(4):
            for j in range(3):
                window = padded[0, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3]
                assert acc[0, o, i, j] == int((window * w[o].astype(np.int64)).sum())


def test_requantization_shifts_arithmetically_and_adds_the_residual_before_the_clip() -> None:
    x = np.array([-7, -1, 0, 3, 100, 127], np.int8).reshape(1, 1, 1, 6)
    res = np.array([5, 5, 5, 5, 100, -128], np.int8).reshape(1, 1, 1, 6)
    one = np.ones((1, 1, 1, 1), np.int8)
    relu = nm.Conv("c", nm.INPUT, one, np.array([-1], np.int32), 1, 0, shift=1)
    plain = nm.Conv("c", nm.INPUT, one, np.array([-1], np.int32), 1, 0, shift=1, relu=False)
    with_res = nm.Conv("c", nm.INPUT, one, np.array([-1], np.int32), 1, 0, shift=1,
                       residual="r")
    # (x - 1) >> 1: -8 >> 1 = -4, -2 >> 1 = -1, -1 >> 1 = -1, 1, 49, 63
    buffers = {nm.INPUT: x, "r": res}
    assert nm.run_layer(plain, buffers).ravel().tolist() == [-4, -1, -1, 1, 49, 63]
    assert nm.run_layer(relu, buffers).ravel().tolist() == [0, 0, 0, 1, 49, 63]
    assert nm.run_layer(with_res, buffers).ravel().tolist() == [1, 4, 4, 6, 127, 0]


def test_max_pool_pads_with_its_value() -> None:
    x = np.full((1, 1, 2, 2), -50, np.int8)
    x[0, 0, 1, 1] = -20
    low = nm.MaxPool("p", nm.INPUT, 3, stride=2, pad=1, pad_value=-128)
    zero = nm.MaxPool("p", nm.INPUT, 3, stride=2, pad=1, pad_value=0)
    assert nm.run_layer(low, {nm.INPUT: x}).tolist() == [[[[-20]]]]
    assert nm.run_layer(zero, {nm.INPUT: x}).tolist() == [[[[0]]]]
    wide = np.arange(16, dtype=np.int8).reshape(1, 1, 4, 4)
    assert nm.run_layer(low, {nm.INPUT: wide}).tolist() == [[[[5, 7], [13, 15]]]]


def test_average_pool_multiplies_then_shifts() -> None:
    m, s = avgpool_constants(49)
    assert m <= 32767 and 127 * 49 * m < 2**31
    assert abs(m / 2**s - 1 / 49) < 1e-4
    assert avgpool_constants(1) == (16384, 14)
    x = np.arange(2 * 49, dtype=np.int8).reshape(1, 2, 7, 7)
    pool = nm.GlobalAvgPool("g", nm.INPUT, m, s)
    got = nm.run_layer(pool, {nm.INPUT: x})
    sums = [sum(range(49)), sum(range(49, 98))]
    assert got.ravel().tolist() == [min(127, (t * m) >> s) for t in sums] == [24, 73]


def test_dense_flattens_its_input() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, size=(1, 6, 1, 1), dtype=np.int8)
    w = rng.integers(-128, 128, size=(6, 3), dtype=np.int8)
    bias = np.array([100, -100, 7], np.int32)
    layer = nm.Dense("fc", nm.INPUT, w, bias, shift=3)
    want = np.clip((x.reshape(1, 6).astype(np.int64) @ w + bias) >> 3, -128, 127)
    assert np.array_equal(nm.run_layer(layer, {nm.INPUT: x}), want)


def test_numpy_model_uses_nothing_of_the_compiler() -> None:
    tree = ast.parse((NETWORKS / "numpy_model.py").read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom)}
    assert imported == {"__future__", "collections.abc", "dataclasses", "numpy",
                        "numpy.lib.stride_tricks"}


@pytest.mark.parametrize("form", WEIGHT_FORMS)
def test_small_cnn_model_is_the_reference_evaluation(form: str) -> None:
    generated = SMALL[form]
    (want,) = evaluate(generated.text, generated.arguments())
    got = generated.expected()
    assert got.shape == (1, 10) and np.array_equal(got, want)
    assert len(np.unique(got)) > 5  # not all saturated or zero


def test_resnet18_model_is_the_reference_evaluation() -> None:
    generated = resnet18.generate(32, seed=1, weights="args")
    (want,) = evaluate(generated.text, generated.arguments())
    assert want.shape == (1, 1000) and np.array_equal(generated.expected(), want)


def test_activations_stay_in_a_useful_range() -> None:
    buffers = nm.evaluate(SMALL["args"].network, SMALL["args"].input)
    for name, values in buffers.items():
        saturated = np.mean(np.abs(values.astype(np.int64)) >= 127)
        assert np.mean(values == 0) < 0.75 and saturated < 0.05, name


# ---------------------------------------------------------------------------------------------
# The generators


@pytest.mark.parametrize("form", WEIGHT_FORMS)
def test_committed_small_cnn_is_the_generators_output(form: str) -> None:
    assert small_cnn.EXAMPLES[form].read_text() == SMALL[form].text


def test_resnet18_layers_and_bounds() -> None:
    net, x = resnet18.build(224, seed=0)
    kinds = [type(layer).__name__ for layer in net.layers]
    assert kinds.count("Conv") == 20 and kinds.count("MaxPool") == 1
    assert kinds[-2:] == ["GlobalAvgPool", "Dense"]
    convs = [layer for layer in net.layers if isinstance(layer, nm.Conv)]
    assert sum(layer.residual is not None for layer in convs) == 8
    assert [layer.name for layer in convs if layer.weight.shape[2] == 1] == [
        f"layer{i}.0.downsample" for i in (2, 3, 4)]
    shapes = net.shapes()
    assert shapes["conv1"] == (1, 64, 112, 112) and shapes["maxpool"] == (1, 64, 56, 56)
    assert shapes["layer4.1.conv2"] == (1, 512, 7, 7) and shapes["fc"] == (1, 1000)
    assert x.shape == (1, 3, 224, 224)
    default = bench.network_bounds(net, VTAConfig.load("default"))
    assert default["macs"] == 1_814_073_344 and default["gemm_bound"] == 7_086_224
    assert bench.network_bounds(net, VTAConfig.load("block32"))["gemm_bound"] == 1_771_556
    assert bench.network_bounds(net, VTAConfig.load("batch2"))["gemm_bound"] == 3_543_112


def test_resnet18_text_is_one_function_in_both_forms() -> None:
    for form in WEIGHT_FORMS:
        text = resnet18.generate(32, seed=2, weights=form).text
        module = parse(text, filename="resnet18.mlir")
        names = [op.name for op in module.walk()]
        assert names.count("func.func") == 1
        assert names.count("linalg.conv_2d_nchw_fchw") == 20
        assert names.count("linalg.pooling_nchw_max") == 1
        assert names.count("memref.collapse_shape") == 1
        assert names.count("linalg.matmul") == 1
        assert names.count("memref.global") == (42 if form == "globals" else 0)
        assert 'loc("layer3.0.downsample")' in text and 'dense<"0x' in text or form == "args"


def test_generator_command_lines(tmp_path: Path) -> None:
    out = tmp_path / "r.mlir"
    done = subprocess.run(
        [sys.executable, str(NETWORKS / "resnet18.py"), "-o", str(out), "--weights", "args",
         "--size", "32", "--seed", "4", "--npy-dir", str(tmp_path / "npy")],
        capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == resnet18.generate(32, 4, "args").text
    inputs = sorted((tmp_path / "npy").glob("[0-9]*.npy"))
    assert len(inputs) == 1 + 2 * 21
    assert done.stderr.startswith(f"vta-run {out} --input {inputs[0]}")
    assert np.array_equal(np.load(tmp_path / "npy" / "expected.npy"),
                          resnet18.generate(32, 4, "args").expected())
    bad = subprocess.run([sys.executable, str(NETWORKS / "resnet18.py"), "--size", "16"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "at least 32x32" in bad.stderr
    small = subprocess.run([sys.executable, str(NETWORKS / "small_cnn.py"), "--weights", "args"],
                           capture_output=True, text=True, check=False)
    assert small.returncode == 0 and small.stdout == SMALL["args"].text


# ---------------------------------------------------------------------------------------------
# On the simulator


def _layer_cases() -> list[object]:
    cases = []
    for config in SHIPPED_CONFIGS:
        for layer in SMALL["args"].network.layers:
            cases.append(pytest.param(config, layer.name, id=f"{config}-{layer.name}"))
    return cases


def _run_layer_alone(net: nm.Network, buffers: dict[str, np.ndarray], name: str,
                     config: str) -> None:
    """Compile the layer ``name`` alone, run it on the model's buffers, compare."""
    layer = next(lay for lay in net.layers if lay.name == name)
    arrays = {src.replace(".", "_"): buffers[src].reshape(shape)
              for src, shape in layer_inputs(net, name).items()}
    if isinstance(layer, nm.Conv | nm.Dense):
        symbol = name.replace(".", "_")
        arrays |= {f"{symbol}_w": layer.weight, f"{symbol}_b": layer.bias}
    module = compile(layer_mlir(net, name), config=config)
    # A max-pool's output is filled before the pooling reads it: should the module take it as
    # an input as well, its initial contents do not matter.
    inputs = [arrays.get(spec.name, np.zeros(spec.shape, spec.dtype)) for spec in module.inputs]
    (got,) = module(*inputs)
    assert np.array_equal(got, buffers[name]), name


@pytest.mark.parametrize(("config", "name"), _layer_cases())
def test_small_cnn_layer_on_vta(config: str, name: str) -> None:
    net = SMALL["args"].network
    _run_layer_alone(net, nm.evaluate(net, SMALL["args"].input), name, config)


@pytest.mark.slow
def test_resnet18_layers_one_at_a_time_on_vta() -> None:
    """The convolutions and the FC layer of ResNet-18 at 224×224, each compiled alone."""
    net, x = resnet18.build(224, seed=0)
    buffers = nm.evaluate(net, x)
    for layer in net.weighted():
        _run_layer_alone(net, buffers, layer.name, "default")


def _vta_run_network(path: Path, generated: Generated, config: str, tmp_path: Path,
                     capsys: pytest.CaptureFixture[str]) -> tuple[int, str, Path]:
    inputs = write_npy(generated, tmp_path)
    out = tmp_path / "output.npy"
    argv = [str(path), "--config", config, *(a for p in inputs for a in ("--input", str(p))),
            "--output", str(out)]
    status = vta_run.main(argv)
    return status, capsys.readouterr().err, out


@pytest.mark.parametrize(("config", "form"), [
    # Both weight forms on the default configuration, one on each other (the long form: both).
    pytest.param(config, form, id=f"{config}-{form}",
                 marks=[pytest.mark.slow] if config != "default" and form != WEIGHT_FORMS[0]
                 else [])
    for config in SHIPPED_CONFIGS for form in WEIGHT_FORMS])
def test_small_cnn_on_vta(config: str, form: str, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    status, err, out = _vta_run_network(small_cnn.EXAMPLES[form], SMALL[form], config,
                                        tmp_path, capsys)
    assert status == 0, err
    assert np.array_equal(np.load(out), SMALL[form].expected())


# ---------------------------------------------------------------------------------------------
# The global average pool straight into N×C


def test_pool_into_nc_text() -> None:
    """``pool="nc"``: the reduction's map ``(n, c, h, w) -> (n, c)`` into an N×C buffer that
    the fully connected layer reads as it is; the default form is the committed one."""
    nc = small_cnn.generate(0, "args", pool="nc").text
    assert "affine_map<(n, c, h, w) -> (n, c)>" in nc and "memref.collapse_shape" not in nc
    assert "ins(%avgpool, %fc_w : memref<1x32xi8>, memref<32x10xi8>)" in nc
    assert "--pool nc" in nc.splitlines()[1]
    assert small_cnn.generate(0, "args", pool="nchw11").text == SMALL["args"].text
    with pytest.raises(ValueError, match="pool must be one of nchw11, nc, not 'nhwc'"):
        small_cnn.generate(0, "args", pool="nhwc")


def _same_binary_either_pool(generated: dict[str, Generated], config: str) -> BinaryModule:
    """Both pool forms lowered on ``config``: the same bytes (the N×C reduction is stored
    through an expand_shape of its output, the collapse of the N×C×1×1 one is a view: the
    same layers either way); the N×C form's binary."""
    binaries = {pool: lower(g.text, config=config) for pool, g in generated.items()}
    assert binaries["nc"].to_bytes() == binaries["nchw11"].to_bytes()
    return binaries["nc"]


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_small_cnn_pool_into_nc_on_vta(config: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The small CNN with its pool into N×C, bit for bit as the numpy model (unchanged: its
    pool writes N×C×1×1, the same values) through ``vta-run``, and the same binary as the
    N×C×1×1 form."""
    generated = {pool: small_cnn.generate(0, "args", pool=pool) for pool in POOL_FORMS}
    _same_binary_either_pool(generated, config)
    path = tmp_path / "small_cnn_nc.mlir"
    path.write_text(generated["nc"].text)
    status, err, out = _vta_run_network(path, generated["nc"], config, tmp_path, capsys)
    assert status == 0, err
    assert np.array_equal(np.load(out), generated["nc"].expected())


def test_generator_pool_option(tmp_path: Path) -> None:
    out = tmp_path / "small.mlir"
    subprocess.run([sys.executable, str(NETWORKS / "small_cnn.py"), "--weights", "args",
                    "--pool", "nc", "-o", str(out)], check=True)
    assert out.read_text() == small_cnn.generate(0, "args", pool="nc").text


@pytest.mark.slow
def test_resnet18_pool_into_nc_on_vta() -> None:
    """ResNet-18 at 224×224 with its pool into 1×512: the same binary as the N×C×1×1 form, and
    bit for bit as the numpy model."""
    generated = {pool: resnet18.generate(224, 0, "globals", pool=pool) for pool in POOL_FORMS}
    binary = _same_binary_either_pool(generated, "default")
    (y,) = compile(binary)(*generated["nc"].arguments())
    assert np.array_equal(y, generated["nc"].expected())


# ---------------------------------------------------------------------------------------------
# The benchmark


def _one_conv() -> Generated:
    rng = np.random.default_rng(11)
    x = rng.integers(-128, 128, size=(1, 16, 8, 8), dtype=np.int8)
    b = Builder("one_conv", x, rng)
    b.conv("conv", nm.INPUT, 32, 3, pad=1)
    return render(b.network, x, "globals", "test")


def test_layer_bounds_count_true_sizes() -> None:
    net = SMALL["args"].network
    rows = {r.name: r for r in bench.layer_bounds(net, VTAConfig.load("block32"))}
    conv = rows["block2.conv1"]  # 16 -> 32 channels, 8x8 -> 4x4, 3x3
    assert conv.macs == 32 * 4 * 4 * 16 * 9 and conv.gemm_bound == conv.macs / (32 * 32)
    assert conv.compulsory == 32 * 16 * 9 + 4 * 32 + 16 * 8 * 8 + 32 * 4 * 4
    residual = rows["block2.conv2"]
    assert residual.compulsory == 32 * 32 * 9 + 4 * 32 + 2 * 32 * 4 * 4 + 32 * 4 * 4
    assert rows["maxpool"].macs == 0 and rows["maxpool"].compulsory == 16 * 16 * 16 + 16 * 8 * 8
    assert rows["fc"].macs == 32 * 10


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_benchmark_measures_a_network_that_compiles(config: str) -> None:
    generated = _one_conv()
    m = bench.measure(generated, config)
    assert m.error is None and m.check == "PASS" and not m.failed
    assert m.cycles is not None and m.cycles > 0 and m.dram_bytes and m.compile_seconds
    cfg = VTAConfig.load(config)
    bound = 294_912 // (cfg.batch * cfg.block_in * cfg.block_out)
    report = bench.format_report(generated.network, m)
    assert "check: PASS" in report
    assert re.search(rf"^total\s+294,912\s+{bound:,}\s+{m.cycles:,}\s+[\d.]+\s+{m.cycles:,}\s",
                     report, re.M), report


def _numbers(line: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"(?<![\w.])\d[\d,]*(?![\d.]*x)", line)]


def test_schedule_floor_adds_up() -> None:
    """The floor (bound, resets, ALU) and what lies beyond it (GEMM above the bound, the
    compute module's loads, its idle cycles, FINISH) add up to the cycles."""
    layers = [{"compute_work": {"gemm": 1200, "reset": 64, "alu": 300, "loads": 40},
               "busy": {"compute": 1605}}]
    floor, beyond = bench.schedule_floor(1152, 1800, layers)
    assert _numbers(floor) == [1516, 1152, 64, 300]
    assert _numbers(beyond) == [48, 40, 195, 1]
    assert 1516 + sum(_numbers(beyond)) == 1800
    assert bench.schedule_floor(1152, 1800, [{"busy": {}}]) == []  # figures without the kinds


def test_benchmark_report_has_the_floor() -> None:
    m = bench.measure(_one_conv(), "default")
    lines = bench.format_report(_one_conv().network, m).splitlines()
    floor = next(line for line in lines if line.startswith("schedule floor "))
    beyond = next(line for line in lines if line.startswith("beyond the floor: "))
    assert m.cycles == _numbers(floor)[0] + sum(_numbers(beyond))


def test_benchmark_report_per_layer() -> None:
    generated = _one_conv()
    m = bench.measure(generated, "default")
    m.layers = [{"name": "conv", "cycles": 1000, "critical_cycles": 980, "busy": {},
                 "dram_bytes": {"inp": 3, "out": 4}, "bound_by": "compute"}]
    lines = bench.format_report(generated.network, m).splitlines()
    row = next(line for line in lines if line.startswith("conv "))
    # 32·8·8 outputs of 16·3·3 MACs; weights 32·16·9 + bias 4·32 + input 16·64 + output 32·64
    assert row.split() == ["conv", "294,912", "1,152", "1,000", "0.87", "980", "7", "7,808",
                           "0.00", "compute"]
    total = next(line for line in lines if line.startswith("total "))
    assert total.split()[5] == "980"  # the layers' shares add up


def test_benchmark_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = bench.main(["--network", "small_cnn", "--no-progress", "--layers-alone",
                         "--json", str(tmp_path / "figures.json")])
    out = capsys.readouterr().out
    assert out.startswith("small_cnn: 9 layers, one function")
    assert status == 0 and "check: PASS" in out, out
    # Each layer alone, the pooling layers included, bit-exact.
    alone = out[out.index("each layer compiled alone"):].splitlines()
    for name in ("conv1", "block1.conv2", "block2.downsample", "fc"):
        row = next(line for line in alone if line.startswith(name + " "))
        assert row.endswith("PASS"), row
    assert re.search(r"^total \(9\) .* PASS$", "\n".join(alone), re.M)
    figures = json.loads((tmp_path / "figures.json").read_text())
    assert figures["results"][0]["bounds"]["macs"] == 1_114_432
    assert len(figures["layers_alone"]["default"]) == 9


@pytest.mark.slow
@pytest.mark.parametrize("form", WEIGHT_FORMS)
def test_resnet18_on_vta(form: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = bench.main(["--config", "all", "--weights", form, "--no-progress"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.count("check: PASS") == 3
