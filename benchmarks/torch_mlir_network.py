"""A network through torch-mlir's linalg-on-tensors output: the file ``torch-mlir-opt`` writes
for the QDQ model, compiled as it is (``vta-bufferize``, ``vta-integerize`` with
``requant=fixed-point``, ``vta-to-isa``) and run on the model's float input, beside onnxruntime
on the same input.

The files (tens of MB for ResNet-18) are not in the repository:
``tests/data/torch_mlir/regenerate.py --network NAME DIR --size 224`` writes ``DIR/NAME.mlir``
and the quantized ``DIR/NAME.onnx`` it comes from (a builder of ``examples/onnx/models.py``:
``resnet18``, ``mobilenet_v2``, ...), in an environment with torch-mlir
(``tests/data/torch_mlir/README.md``).

It prints the seconds to read the file and compile it, the run's seconds and cycles against
the GEMM bound of the network's true multiply-accumulates, the share of them that ran on VTA
(``vta_mac_fraction``), the largest error the fixed-point requantization can make against the
float one, the agreement with onnxruntime (the share of outputs within one output quantization
step, the worst difference) and the process's peak memory. A step that fails prints one line
and the exit status is 1.

Usage::

    python benchmarks/torch_mlir_network.py DIR [--network resnet18]
                                            [--config default|block32|batch2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from resnet18_network import first_line, peak_memory_mb  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="holds NAME.mlir and NAME.onnx")
    parser.add_argument("--network", default="resnet18", metavar="NAME",
                        help="the files' stem (default: resnet18)")
    parser.add_argument("--config", default="default")
    args = parser.parse_args(argv)
    try:
        import onnx
        import onnxruntime as ort

        from vta_mlir import compile, parse, run_pipeline
        from vta_mlir.config import VTAConfig
        from vta_mlir.frontend.onnx import import_program

        mlir_path = args.folder / f"{args.network}.mlir"
        text = mlir_path.read_text()
        onnx_path = args.folder / f"{args.network}.onnx"
        start = time.perf_counter()
        module = parse(text, filename=str(mlir_path), config=args.config)
        parsed = time.perf_counter()
        program = compile(module, requant="fixed-point")
        compiled = time.perf_counter()
        model = onnx.load(str(onnx_path))
        shape = tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)
        x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        (y,) = program(x)
        ran = time.perf_counter()
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        session = ort.InferenceSession(str(onnx_path), options,
                                       providers=["CPUExecutionProvider"])
        expected = session.run(None, {model.graph.input[0].name: x})[0]
        qdq = import_program(onnx_path)
        steps = np.abs(y.astype(np.float64) - expected) / qdq.output.scale
        # The requantization's error bound, as vta-run --stats reports it.
        probe = parse(text, filename=str(mlir_path), config=args.config)
        run_pipeline(probe, "vta-bufferize,vta-integerize{requant=fixed-point}")
        requant = probe.attributes["vta.requant"]
    except Exception as exc:  # noqa: BLE001 - one line for any failing step
        print(f"torch_mlir_network: {args.network}: error: {first_line(exc)}")
        return 1
    cfg = VTAConfig.load(args.config)
    macs = sum(int(np.prod(layer.weight.shape)) * int(np.prod(qdq.tensors[layer.dst].shape))
               // qdq.tensors[layer.dst].shape[1] for layer in qdq.layers
               if hasattr(layer, "weight"))
    bound = macs / (cfg.batch * cfg.block_in * cfg.block_out)
    cycles = program.last_run.cycles
    print(f"file: {len(text) / 1e6:.1f} MB, {len(qdq.layers)} layers, {macs:,} MACs")
    print(f"parse {parsed - start:.1f} s, compile {compiled - parsed:.1f} s, "
          f"run {ran - compiled:.2f} s")
    print(f"cycles {cycles:,} against the GEMM bound {bound:,.0f}: {cycles / bound:.2f}x; "
          f"vta_mac_fraction {program.last_run.vta_mac_fraction:.4f}")
    print(f"requantization: {requant.data['layers'].value.data} layers, largest error "
          f"{requant.data['max_error_steps'].value.data:.4f} steps")
    print(f"onnxruntime: {np.mean(steps <= 1.001):.2%} within one step, worst "
          f"{steps.max():.2f} steps")
    print(f"peak memory {peak_memory_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
