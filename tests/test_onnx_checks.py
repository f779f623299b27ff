"""The ONNX importer's checks (``docs/onnx.md`` §5): malformed or oversized models are refused
with one error line naming the node or the tensor, exit status 1, no warning before it, fast
and without allocating what the model declares. The models are written directly with
``onnx.helper`` (``tests/onnx_qdq_builder.py``)."""

from __future__ import annotations

import builtins
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, numpy_helper

from tests.onnx_qdq_builder import QDQ, conv_model, initializer
from vta_mlir.frontend.onnx import OnnxImportError, import_program, import_text
from vta_mlir.frontend.onnx.check import MAX_TENSOR_ELEMENTS, MAX_TOTAL_ELEMENTS
from vta_mlir.tools import vta_import_onnx

ROOT = Path(__file__).resolve().parents[1]


def cli_error(tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of ``vta-import-onnx model -o out`` (exit 1, no output file, no
    warning)."""
    out = tmp_path / "out.mlir"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert vta_import_onnx.main([str(model), "-o", str(out)]) == 1
    assert not caught, [str(w.message) for w in caught]
    assert not out.exists()
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("vta-import-onnx: error: ")
    assert "internal error" not in lines[0], lines[0]
    return lines[0]


def run_cli(model: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """``vta-import-onnx model`` in a fresh process: the result, seconds and peak GiB."""
    code = ("import resource, subprocess, sys, time; t = time.time(); "
            "p = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120); "
            "print(p.returncode, time.time() - t, "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
            "sys.stderr.write(p.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, sys.executable, "-m",
                           "vta_mlir.tools.vta_import_onnx", str(model), *args],
                          capture_output=True, text=True, timeout=180, cwd=ROOT)
    status, seconds, kib = proc.stdout.split()
    result = subprocess.CompletedProcess(proc.args, int(status), "", proc.stderr)
    return result, float(seconds), int(kib) / 2**20


# ---------------------------------------------------------------------------------------------
# Initializer data


def _short_raw(init: TensorProto) -> None:
    init.raw_data = init.raw_data[:64]


def _huge_dims(init: TensorProto) -> None:
    del init.dims[:]
    init.dims.extend([1 << 40, 16])


def _empty_raw(init: TensorProto) -> None:
    init.raw_data = b""


@pytest.mark.parametrize("defect", [_short_raw, _huge_dims, _empty_raw])
def test_malformed_initializer(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               defect: object) -> None:
    """Data that does not match the dims (a 4×3×3×3 weight): the initializer and its reader
    are named, numpy never reshapes it."""
    model = conv_model().model((1, 4, 6, 6))
    defect(initializer(model, "conv_w_q"))  # type: ignore[operator]
    onnx.save(model, tmp_path / "m.onnx")
    line = cli_error(tmp_path, tmp_path / "m.onnx", capsys)
    assert "node 'conv_w_dq' (DequantizeLinear): initializer 'conv_w_q'" in line


def test_bit_flips(tmp_path: Path) -> None:
    """Every single-bit flip of a small model's file is imported or refused with an
    OnnxImportError; nothing else escapes (no numpy error, no warning)."""
    data = conv_model(pads=[1, 1, 1, 1]).model((1, 4, 8, 8)).SerializeToString()
    rng = np.random.default_rng(0)
    path = tmp_path / "flip.onnx"
    refused = 0
    for bit in rng.choice(len(data) * 8, 150, replace=False):
        flipped = bytearray(data)
        flipped[bit // 8] ^= 1 << (bit % 8)
        path.write_bytes(bytes(flipped))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                import_text(path)
            except OnnxImportError:
                refused += 1
    assert refused > 0


# ---------------------------------------------------------------------------------------------
# Windows: strides, pads, kernels, empty outputs


@pytest.mark.parametrize(("op", "attrs", "expected"), [
    ("Conv", {"strides": [0, 1]}, "strides [0, 1]"),
    ("Conv", {"strides": [-1, 1]}, "strides [-1, 1]"),
    ("Conv", {"pads": [-1, 0, 0, 0]}, "pads [-1, 0, 0, 0]"),
    ("Conv", {"kernel_shape": [5, 5]}, "kernel_shape [5, 5]"),
    ("Conv", {"kernel_shape": [0, 3]}, "kernel_shape [0, 3]"),
    ("MaxPool", {"kernel_shape": [2, 2], "strides": [0, 0]}, "strides [0, 0]"),
    ("MaxPool", {"kernel_shape": [0, 2]}, "kernel_shape [0, 2]"),
    ("MaxPool", {"kernel_shape": [2, 2], "pads": [2, 0, 0, 0]}, "not smaller than the kernel"),
])
def test_window_attributes(tmp_path: Path, capsys: pytest.CaptureFixture[str], op: str,
                           attrs: dict[str, object], expected: str) -> None:
    qdq = QDQ((1, 3, 8, 8))
    if op == "Conv":
        qdq.conv("node", 4, **attrs)
    else:
        qdq.op(op, [qdq.last], "node", **attrs)
    line = cli_error(tmp_path, qdq.save(tmp_path / "m.onnx", (1, 4, 6, 6)), capsys)
    assert f"node 'node' ({op})" in line and expected in line


def _strided_then_pool() -> QDQ:
    qdq = QDQ((1, 3, 8, 8))
    qdq.conv("conv", 4, strides=[9, 9])
    qdq.op("MaxPool", [qdq.last], "pool", kernel_shape=[3, 3])
    return qdq


def _pool_too_large() -> QDQ:
    qdq = QDQ((1, 3, 4, 4))
    qdq.op("MaxPool", [qdq.last], "pool", kernel_shape=[5, 5])
    qdq.op("GlobalAveragePool", [qdq.last], "gap")
    return qdq


def _conv_too_large() -> QDQ:
    qdq = QDQ((1, 3, 2, 2))
    qdq.conv("conv", 4)
    return qdq


@pytest.mark.parametrize(("build", "node"), [(_strided_then_pool, "node 'pool' (MaxPool)"),
                                             (_pool_too_large, "node 'pool' (MaxPool)"),
                                             (_conv_too_large, "node 'conv' (Conv)")])
def test_empty_output(tmp_path: Path, capsys: pytest.CaptureFixture[str], build: object,
                      node: str) -> None:
    """A layer whose output is empty is named, not the layer after it."""
    qdq = build()  # type: ignore[operator]
    line = cli_error(tmp_path, qdq.save(tmp_path / "m.onnx", (1, 4, 1, 1)), capsys)
    assert node in line and "empty" in line


def test_empty_output_in_recognizer() -> None:
    """The recogniser checks the windows it computes itself, too."""
    from vta_mlir.frontend.onnx.check import window_output

    with pytest.raises(OnnxImportError, match="node 'p'.*empty"):
        window_output("node 'p' (MaxPool)", (4, 4), (5, 5), (1, 1), (0, 0, 0, 0))
    assert window_output("w", (8, 8), (3, 3), (9, 9), (0, 0, 0, 0)) == (1, 1)


# ---------------------------------------------------------------------------------------------
# Mis-shaped operands


def _channels(tmp_path: Path) -> Path:
    qdq = QDQ((1, 3, 8, 8))
    w = qdq.weight("conv_w", (4, 2, 3, 3))
    qdq.op("Conv", [qdq.last, w], "conv")
    return qdq.save(tmp_path / "m.onnx", (1, 4, 6, 6))


def _gemm_inner(tmp_path: Path) -> Path:
    qdq = QDQ((2, 8))
    w = qdq.weight("fc_w", (4, 6))
    qdq.op("Gemm", [qdq.last, w], "fc", transB=1)
    return qdq.save(tmp_path / "m.onnx", (2, 4))


def _bias_length(tmp_path: Path) -> Path:
    qdq = QDQ((2, 8))
    w, b = qdq.weight("fc_w", (4, 8)), qdq.bias("fc_b", 3)
    qdq.op("Gemm", [qdq.last, w, b], "fc", transB=1)
    return qdq.save(tmp_path / "m.onnx", (2, 4))


def _conv_bias_length(tmp_path: Path) -> Path:
    qdq = QDQ((1, 3, 8, 8))
    w, b = qdq.weight("conv_w", (4, 3, 3, 3)), qdq.bias("conv_b", 5)
    qdq.op("Conv", [qdq.last, w, b], "conv")
    return qdq.save(tmp_path / "m.onnx", (1, 4, 6, 6))


@pytest.mark.parametrize(("build", "node"), [(_channels, "node 'conv' (Conv)"),
                                             (_gemm_inner, "node 'fc' (Gemm)"),
                                             (_bias_length, "node 'fc' (Gemm)"),
                                             (_conv_bias_length, "node 'conv' (Conv)")])
def test_mis_shaped_operands(tmp_path: Path, capsys: pytest.CaptureFixture[str], build: object,
                             node: str) -> None:
    assert node in cli_error(tmp_path, build(tmp_path), capsys)  # type: ignore[operator]


# ---------------------------------------------------------------------------------------------
# Types and versions onnxruntime refuses


def _set_input_type(elem: int) -> onnx.ModelProto:
    model = conv_model().model((1, 4, 6, 6))
    model.graph.input[0].type.tensor_type.elem_type = elem
    return model


def _scale_of(name: str, value: np.ndarray) -> onnx.ModelProto:
    model = conv_model().model((1, 4, 6, 6))
    initializer(model, name).CopyFrom(numpy_helper.from_array(value, name))
    return model


def _ir99() -> onnx.ModelProto:
    model = conv_model().model((1, 4, 6, 6))
    model.ir_version = 99
    return model


@pytest.mark.parametrize(("build", "expected"), [
    (lambda: _set_input_type(TensorProto.INT8), "input 'x' is int8"),
    (lambda: _set_input_type(TensorProto.DOUBLE), "input 'x' is double"),
    (lambda: _scale_of("s", np.array(0.05, np.float16)), "node 'x_q' (QuantizeLinear): y_scale"),
    (lambda: _scale_of("z", np.array(0, np.int16)), "unsupported type: tensor(int16)"),
    (_ir99, "IR version 99"),
])
def test_invalid_types(tmp_path: Path, capsys: pytest.CaptureFixture[str], build: object,
                       expected: str) -> None:
    onnx.save(build(), tmp_path / "m.onnx")  # type: ignore[operator]
    assert expected in cli_error(tmp_path, tmp_path / "m.onnx", capsys)


def test_checker_catches_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What the importer's own checks leave, onnx.checker refuses: here a declared output shape
    the convolution does not give."""
    path = conv_model().save(tmp_path / "m.onnx", (1, 4, 5, 5))
    line = cli_error(tmp_path, path, capsys)
    assert "node 'conv_odq' (DequantizeLinear): Inferred shape and existing shape differ" in line


@pytest.mark.parametrize("name", ["s", "ws"])
@pytest.mark.parametrize("value", [0.0, 1e-45, float("nan"), float("inf"), -0.5])
def test_bad_scales(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                    value: float) -> None:
    """A scale of 0, subnormal, NaN, infinite or negative is refused before anything is
    divided by it: no numpy warning."""
    onnx.save(_scale_of(name, np.array(value, np.float32)), tmp_path / "m.onnx")
    line = cli_error(tmp_path, tmp_path / "m.onnx", capsys)
    assert f"scale '{name}' is" in line and line.startswith("vta-import-onnx: error: node '")


def test_bad_scale_stderr(tmp_path: Path) -> None:
    """The command's whole stderr is the error line (no RuntimeWarning, no source line)."""
    onnx.save(_scale_of("s", np.array(0.0, np.float32)), tmp_path / "m.onnx")
    proc, _, _ = run_cli(tmp_path / "m.onnx", "-o", str(tmp_path / "o.mlir"))
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("vta-import-onnx: error: ")
    assert "scale 's' is 0.0" in proc.stderr


# ---------------------------------------------------------------------------------------------
# External data


def external_weights_model(tmp_path: Path, location: str) -> Path:
    """``conv_model`` in ``tmp_path/model/m.onnx``, its weights declared as external data at
    ``location`` (written as given, whatever it holds)."""
    folder = tmp_path / "model"
    folder.mkdir(exist_ok=True)
    model = conv_model().model((1, 4, 6, 6))
    init = initializer(model, "conv_w_q")
    init.ClearField("raw_data")
    init.data_location = TensorProto.EXTERNAL
    entry = init.external_data.add()
    entry.key, entry.value = "location", location
    (folder / "m.onnx").write_bytes(model.SerializeToString())
    return folder / "m.onnx"


@pytest.mark.parametrize("location", ["../../etc/passwd", "../outside.bin", "/etc/passwd",
                                      "link.bin"])
def test_external_data_outside(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch, location: str) -> None:
    """A location leaving the model's folder (directly or through a symbolic link) is refused
    without being opened."""
    (tmp_path / "outside.bin").write_bytes(bytes(108))
    path = external_weights_model(tmp_path, location)
    (path.parent / "link.bin").symlink_to(tmp_path / "outside.bin")
    opened: list[str] = []
    real_open = builtins.open

    def spy(file: object, *args: object, **kwargs: object) -> object:
        opened.append(os.fspath(file) if isinstance(file, str | os.PathLike) else "")
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", spy)
    line = cli_error(tmp_path, path, capsys)
    assert "initializer 'conv_w_q'" in line and "not a file inside the model's folder" in line
    assert not [f for f in opened if "passwd" in f or "outside" in f or "link" in f]


def test_external_data_missing_or_short(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = external_weights_model(tmp_path, "weights.bin")
    assert "does not exist" in cli_error(tmp_path, path, capsys)
    (path.parent / "weights.bin").write_bytes(bytes(10))
    assert "holds 10 bytes, fewer than offset 0 + length 108" in cli_error(tmp_path, path,
                                                                           capsys)


def test_external_data_inside(tmp_path: Path) -> None:
    """External data inside the folder is read."""
    path = external_weights_model(tmp_path, "sub/weights.bin")
    (path.parent / "sub").mkdir()
    weight = np.random.default_rng(0).integers(-100, 100, (4, 3, 3, 3)).astype(np.int8)
    (path.parent / "sub" / "weights.bin").write_bytes(weight.tobytes())
    layer = import_program(path).layers[0]
    np.testing.assert_array_equal(layer.weight, weight)  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------
# Sizes


def _big_input(tmp_path: Path, size: int, channels: int = 16) -> Path:
    """A padded 3×3 convolution of ``channels`` outputs on an asymmetric 3×size×size input."""
    qdq = QDQ((1, 3, size, size), zero_point=5)
    qdq.conv("conv", channels, pads=[1, 1, 1, 1])
    return qdq.save(tmp_path / "big.onnx", (1, channels, size, size))


@pytest.mark.parametrize("size", [4096, 1 << 20])
def test_size_limit_input(tmp_path: Path, size: int) -> None:
    """An input beyond the limit is refused from its declared shape: fast, small, one line."""
    proc, seconds, gib = run_cli(_big_input(tmp_path, size), "-o", str(tmp_path / "o.mlir"))
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert "input 'x' has" in proc.stderr and str(MAX_TENSOR_ELEMENTS) in proc.stderr
    assert "o.mlir" not in proc.stderr
    assert seconds < 30 and gib < 1.0, (seconds, gib)


def test_size_limit_layer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A layer whose output is beyond the limit is named (its input is within it)."""
    qdq = QDQ((1, 3, 1024, 1024))
    qdq.conv("conv", 17, pads=[1, 1, 1, 1])
    qdq.op("GlobalAveragePool", [qdq.last], "gap")
    line = cli_error(tmp_path, qdq.save(tmp_path / "m.onnx", (1, 17, 1, 1)), capsys)
    assert "node 'conv' (Conv): output 'conv'" in line and "elements" in line


def test_size_limit_total(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qdq = QDQ((1, 8, 1024, 1024))
    qdq.op("Relu", [qdq.last], "r1")
    # Each quantized tensor holds 8 Mi elements: enough of them to pass the total.
    for k in range(MAX_TOTAL_ELEMENTS // (8 << 20)):
        qdq.op("MaxPool", [qdq.last], f"p{k}", kernel_shape=[1, 1])
    line = cli_error(tmp_path, qdq.save(tmp_path / "m.onnx", (1, 8, 1024, 1024)), capsys)
    assert "constants and int8 activations hold" in line


def test_asymmetric_padded_conv_within_limit_is_fast(tmp_path: Path) -> None:
    """A padded convolution with an asymmetric input at 512×512 (a per-output-element bias of
    4 Mi int32): imported in seconds."""
    start = time.time()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    text = import_text(_big_input(tmp_path, 512))
    assert "conv_bias" in text or "memref.global" in text
    assert time.time() - start < 30
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss < 1 << 20  # KiB: < 1 GiB


# ---------------------------------------------------------------------------------------------
# The parse before writing


def test_unparsable_output_is_an_import_error(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the generated text not parse, the error names no position in the output file,
    which was never written."""
    from vta_mlir.frontend import onnx as frontend

    monkeypatch.setattr(frontend, "import_text", lambda *a, **k: "func.func @f(\n")
    path = conv_model().save(tmp_path / "m.onnx", (1, 4, 6, 6))
    line = cli_error(tmp_path, path, capsys)
    assert "out.mlir" not in line and "the imported module does not verify" in line


def test_flatten_as_output_keeps_its_shape(tmp_path: Path) -> None:
    """A Flatten as the graph's last node: the output is N×C, not the N×C×1×1 it views."""
    from vta_mlir import compile

    qdq = QDQ((1, 3, 4, 4))
    qdq.conv("conv", 6)
    qdq.op("GlobalAveragePool", [qdq.last], "gap")
    qdq.op("Flatten", [qdq.last], "flat", axis=1)
    path = qdq.save(tmp_path / "m.onnx", (1, 6))
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 4)).astype(np.float32)
    (y,) = compile(import_text(path))(x)
    assert y.shape == (1, 6)
