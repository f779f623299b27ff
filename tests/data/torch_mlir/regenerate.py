"""Regenerate the torch-mlir linalg-on-tensors files of this folder (see ``README.md``).

For each model of :data:`MODELS` (``examples/onnx/models.py``, symmetric and asymmetric
activations), :data:`PRODUCTS` and :data:`ENCODERS` (``examples/onnx/transformer.py``) it
writes the quantized ``NAME.onnx``, imports it with ``torch-mlir-import-onnx`` and lowers it
with ``torch-mlir-opt`` to ``NAME.mlir`` (linalg on tensors).  torch-mlir is not a
dependency of vta-mlir: run this script with the Python of a separate environment where
``torch-mlir``, ``onnx``, ``onnxruntime`` and ``numpy`` are installed.

    python tests/data/torch_mlir/regenerate.py               # the committed files
    python tests/data/torch_mlir/regenerate.py conv_relu_pc  # only these
    python tests/data/torch_mlir/regenerate.py --network NAME OUT_DIR [--size 224]

Whole networks (``NAME`` a builder of ``examples/onnx/models.py`` taking ``size``, such as
``resnet18`` or ``mobilenet_v2``: tens of MB of weights) are never committed; ``--network``
writes ``NAME.onnx`` and ``NAME.mlir`` into ``OUT_DIR`` (``benchmarks/torch_mlir_network.py``
runs them).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import numpy as np

HERE = Path(__file__).resolve().parent
MODELS_PY = HERE.parents[2] / "examples" / "onnx" / "models.py"
TRANSFORMER_PY = MODELS_PY.with_name("transformer.py")

#: The committed files: (file stem, model name, asymmetric activations).
MODELS: tuple[tuple[str, str, bool], ...] = (
    ("dense", "dense", False),
    ("dense_asym", "dense", True),
    ("conv_relu", "conv_relu", False),
    ("conv_relu_asym", "conv_relu", True),
    ("small_cnn", "small_cnn", False),
    ("small_cnn_asym", "small_cnn", True),
    ("residual", "residual", False),
    ("residual_asym", "residual", True),
    ("gap_fc", "gap_fc", False),
    ("gap_fc_asym", "gap_fc", True),
    ("mobilenet_block", "mobilenet_block", False),
    ("mobilenet_block_asym", "mobilenet_block", True),
    ("vgg_head", "vgg_head", False),
    ("vgg_head_asym", "vgg_head", True),
    ("avgpool_block", "avgpool_block", False),
    ("detector_neck", "detector_neck", False),
    ("hard_activations", "hard_activations", False),
    ("detector", "detector", False),
    ("vgg", "vgg", False),
)

#: Further forms of quantization (asymmetric activations), each with the options it passes to
#: ``quantize`` of ``examples/onnx/models.py``: per-channel weight scales (``_pc``), which
#: torch-mlir keeps in float around dequantized weights, uint8 activations (``_u8``) and the
#: QOperator format (``_qop``: torch-mlir lowers ``QLinearConv``, not the ``com.microsoft``
#: operators such as ``QGemm`` or ``QLinearAdd``).
VARIANTS: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("conv_relu_pc", "conv_relu", {"per_channel": True}),
    ("residual_pc", "residual", {"per_channel": True}),
    ("dense_pc", "dense", {"per_channel": True}),
    ("small_cnn_pc", "small_cnn", {"per_channel": True}),
    ("mobilenet_block_pc", "mobilenet_block", {"per_channel": True}),
    ("conv_relu_u8", "conv_relu", {"activations": "QUInt8"}),
    ("residual_u8", "residual", {"activations": "QUInt8"}),
    ("small_cnn_u8", "small_cnn", {"activations": "QUInt8"}),
    ("conv_relu_qop", "conv_relu", {"quant_format": "QOperator"}),
)

#: The BERT-style encoders of ``examples/onnx/transformer.py`` (static QDQ on the matrix
#: products, seed 0, eight calibration inputs as its ``main`` draws them): (file stem, layers,
#: sequence, width, heads, feed-forward width).
ENCODERS: tuple[tuple[str, int, int, int, int, int], ...] = (
    ("encoder", 1, 16, 32, 2, 64),
)

#: Single matrix products of a rank-3 activation and a constant weight, quantized as the
#: encoders' (static QDQ on the ``MatMul``): (file stem, rows, depth, columns). torch-mlir
#: writes them as ``linalg.quantized_batch_matmul`` against the weight broadcast to 1×K×N.
PRODUCTS: tuple[tuple[str, int, int, int], ...] = (
    ("linear3d", 16, 32, 24),
)

#: Files also written with their hex constants as ``dense_resource`` blobs (``STEM.resources.mlir``,
#: see :func:`to_resources`).
RESOURCE_VARIANTS = ("conv_relu", "small_cnn_asym")

#: Alignment written in the header of each blob (torch-mlir-import-onnx writes 8).
BLOB_ALIGNMENT = 8

#: torch-mlir-opt's pipeline from the ONNX import to linalg on tensors.  Both pipelines are
#: module passes (the ONNX one nests its function passes itself): ``func.func(...)`` around the
#: first one aborts with "Can't add pass 'ReifyShapeCalculations' restricted to
#: 'builtin.module'".
PIPELINE = ("builtin.module(torch-onnx-to-torch-backend-pipeline,"
            "torch-backend-to-linalg-on-tensors-backend-pipeline)")


def load_models(path: Path = MODELS_PY, name: str = "onnx_models") -> ModuleType:
    """``examples/onnx/models.py`` (or its sibling ``path``), imported from its path
    (``examples`` is no package)."""
    # models.py imports its sibling whole_networks.py from its own folder.
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Dataclasses look their module up in sys.modules while the module runs.
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def tool(name: str) -> str:
    """The path of a torch-mlir tool, beside this Python or on ``PATH``."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        sys.exit(f"error: {name} not found; install torch-mlir (pip install torch-mlir)")
    return found


def lower(onnx_path: Path, mlir_path: Path) -> None:
    """``onnx_path`` -> torch dialect -> linalg on tensors at ``mlir_path``."""
    with tempfile.TemporaryDirectory() as tmp:
        torch_path = Path(tmp) / "model.torch.mlir"
        # The importer keeps its temporary files beside the model unless told otherwise.
        subprocess.run([tool("torch-mlir-import-onnx"), str(onnx_path), "-o", str(torch_path),
                        f"--temp-dir={tmp}"], check=True)
        subprocess.run([tool("torch-mlir-opt"), str(torch_path), f"--pass-pipeline={PIPELINE}",
                        "-o", str(mlir_path)], check=True)


HEX_CONSTANT = re.compile(r'dense<"0x([0-9A-F]+)"> : (tensor<[^>]*>)')


def to_resources(text: str) -> str:
    """``text`` with every ``dense<"0x...">`` constant made a ``dense_resource`` whose blob is in
    a ``{-# dialect_resources #-}`` section at the end: the form torch-mlir's importer gives
    weights (``model.torch.mlir``), which this torch-mlir's lowering to linalg turns into
    ``dense<"0x...">`` literals.  The bytes are the same (raw little-endian elements), after
    the blob's 4-byte alignment header."""
    blobs: list[str] = []

    def replace(match: re.Match[str]) -> str:
        key = f"torch_tensor_{len(blobs)}"
        header = BLOB_ALIGNMENT.to_bytes(4, "little").hex().upper()
        blobs.append(f'      {key}: "0x{header}{match.group(1)}"')
        return f"dense_resource<{key}> : {match.group(2)}"

    body = HEX_CONSTANT.sub(replace, text)
    if not blobs:
        return text
    section = ",\n".join(blobs)
    return (f"{body.rstrip()}\n\n{{-#\n  dialect_resources: {{\n    builtin: {{\n{section}\n"
            "    }\n  }\n#-}\n")


def write_model(models: ModuleType, stem: str, model: str, asymmetric: bool, out: Path,
                seed: int = 0, size: int | None = None, **options: object) -> None:
    """Quantize ``model`` (``options`` for ``quantize``) into ``out/stem.onnx`` and lower it
    to ``out/stem.mlir``."""
    rng = np.random.default_rng(seed)
    builder = models.MODELS.get(model)
    if size is not None:
        network = getattr(models, model)

        def builder(rng: np.random.Generator) -> object:
            return network(rng, size=size)
    onnx_path = out / f"{stem}.onnx"
    models.quantize(models.float_model(builder, rng, name=stem), onnx_path, not asymmetric, rng,
                    **options)
    # quantize() keeps the float model beside the quantized one; only the latter is kept.
    onnx_path.with_suffix(".f.onnx").unlink()
    lower(onnx_path, out / f"{stem}.mlir")
    print(f"wrote {out / stem}.onnx and {out / stem}.mlir")
    if stem in RESOURCE_VARIANTS:
        resources = out / f"{stem}.resources.mlir"
        resources.write_text(to_resources((out / f"{stem}.mlir").read_text()))
        print(f"wrote {resources}")


def write_encoder(stem: str, dims: tuple[int, int, int, int, int], out: Path,
                  seed: int = 0) -> None:
    """The static int8 encoder of ``dims`` (layers, sequence, width, heads, feed-forward
    width) into ``out/stem.onnx``, lowered to ``out/stem.mlir``."""
    transformer = load_models(TRANSFORMER_PY, "onnx_transformer")
    shape = transformer.EncoderShape(*dims)
    rng = np.random.default_rng(seed)
    model = transformer.bert_encoder(rng, shape)
    onnx_path = out / f"{stem}.onnx"
    transformer.quantize_static_matmuls(model, onnx_path,
                                        transformer.encoder_inputs(rng, shape, 8))
    onnx_path.with_suffix(".f.onnx").unlink()
    lower(onnx_path, out / f"{stem}.mlir")
    print(f"wrote {out / stem}.onnx and {out / stem}.mlir")


def write_product(stem: str, rows: int, depth: int, columns: int, out: Path,
                  seed: int = 0) -> None:
    """``y = x·W`` (``x`` 1×rows×depth, ``W`` depth×columns normal with BERT's standard
    deviation) quantized as the encoders are, into ``out/stem.onnx`` and ``out/stem.mlir``."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    transformer = load_models(TRANSFORMER_PY, "onnx_transformer")
    rng = np.random.default_rng(seed)
    weight = (rng.standard_normal((depth, columns)) * transformer.WEIGHT_STD).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="product")], stem,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (1, rows, depth))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, rows, columns))],
        [numpy_helper.from_array(weight, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model, full_check=True)
    calibration = [rng.standard_normal((1, rows, depth)).astype(np.float32) for _ in range(8)]
    onnx_path = out / f"{stem}.onnx"
    transformer.quantize_static_matmuls(model, onnx_path, calibration)
    onnx_path.with_suffix(".f.onnx").unlink()
    lower(onnx_path, out / f"{stem}.mlir")
    print(f"wrote {out / stem}.onnx and {out / stem}.mlir")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--network", nargs=2, metavar=("NAME", "OUT_DIR"),
                        help="write NAME.onnx and NAME.mlir of the whole network NAME (a builder "
                        "of examples/onnx/models.py) into OUT_DIR instead")
    parser.add_argument("--size", type=int, default=32, help="the network's input size")
    parser.add_argument("--asymmetric", action="store_true",
                        help="the network with asymmetric activations")
    parser.add_argument("--per-channel", action="store_true",
                        help="the network with per-channel weight scales")
    parser.add_argument("--encoder", metavar="OUT_DIR", type=Path,
                        help="write bert_encoder.onnx and bert_encoder.mlir, the static encoder "
                        "of benchmarks/bert_encoder.py (--encoder-shape, seed 0), into OUT_DIR "
                        "instead (its --torch-mlir input)")
    parser.add_argument("--encoder-shape", type=int, nargs=5, default=[2, 64, 128, 2, 512],
                        metavar=("LAYERS", "SEQ", "HIDDEN", "HEADS", "FFN"),
                        help="the encoder's shape (default: the benchmark's, 2 64 128 2 512)")
    parser.add_argument("stems", nargs="*", help="write only these files (default: all)")
    args = parser.parse_args()
    if args.encoder is not None:
        args.encoder.mkdir(parents=True, exist_ok=True)
        write_encoder("bert_encoder", tuple(args.encoder_shape), args.encoder)
        return
    models = load_models()
    if args.network is not None:
        name, folder = args.network[0], Path(args.network[1])
        if not callable(getattr(models, name, None)) or name.startswith("_"):
            sys.exit(f"error: examples/onnx/models.py has no network '{name}'")
        folder.mkdir(parents=True, exist_ok=True)
        options = {"per_channel": True} if args.per_channel else {}
        write_model(models, name, name, args.asymmetric, folder, size=args.size, **options)
        return
    for stem, model, asymmetric in MODELS:
        if not args.stems or stem in args.stems:
            write_model(models, stem, model, asymmetric, HERE)
    for stem, model, options in VARIANTS:
        if not args.stems or stem in args.stems:
            write_model(models, stem, model, True, HERE, **options)
    for stem, rows, depth, columns in PRODUCTS:
        if not args.stems or stem in args.stems:
            write_product(stem, rows, depth, columns, HERE)
    for stem, *dims in ENCODERS:
        if not args.stems or stem in args.stems:
            write_encoder(stem, tuple(dims), HERE)


if __name__ == "__main__":
    main()
