"""Layer-by-layer agreement of an imported QDQ model with onnxruntime: where the integer
semantics (``docs/onnx.md`` §3–§4) and onnxruntime's float computation of the QDQ graph part.

onnxruntime (CPU, ``ORT_DISABLE_ALL``) runs the quantized model with every ``QuantizeLinear``
output exposed as a graph output. Each layer of the imported program is emitted alone as a
function of its input codes (``vta_mlir.quant.emit.Emitter``) and evaluated by the numpy
reference (``vta_mlir.reference.evaluate``, ``docs/reference.md``) twice:

* **isolated**: on onnxruntime's own input codes — the layer's own disagreement;
* **propagated**: on the codes the reference computed for the layers before it — what a run
  of the whole program gives (the simulator is bit-exact with it).

Per layer it prints the share of output codes that differ and the largest difference (in
codes, i.e. output steps), then the float model against the quantized one at the output:
how far onnxruntime's own int8 model is from the float network it quantizes.

Usage::

    python benchmarks/onnx_layer_agreement.py [--model mobilenet_v2|resnet50|resnet18]
        [--size 224] [--classes 1000] [--width 1.0] [--seed 0] [--asymmetric]
        [--per-channel] [--beta LO,HI] [--all-layers]

``--beta`` draws the batch norms' shifts in another range than ``trained_like.BETA``: the
table of ``docs/onnx.md`` §6 (how the agreement follows the network's own conditioning).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

HERE = Path(__file__).resolve().parent
ONNX_EXAMPLES = HERE.parent / "examples" / "onnx"
for folder in (HERE, ONNX_EXAMPLES):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

if TYPE_CHECKING:
    from vta_mlir.quant.program import Layer, Program

__all__ = ["layer_text", "main", "onnxruntime_codes"]


def onnxruntime_codes(path: Path, x: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """onnxruntime's output codes of every ``QuantizeLinear`` of the model at ``path`` (by
    output name) and its float output, on ``x`` (CPU, ``ORT_DISABLE_ALL``)."""
    import onnx
    import onnxruntime as ort
    from onnx import helper

    model = onnx.load(str(path))
    graph = model.graph
    names = [n.output[0] for n in graph.node if n.op_type == "QuantizeLinear"]
    known = {o.name for o in graph.output}
    for name in names:
        if name not in known:
            graph.output.append(helper.make_empty_tensor_value_info(name))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    outputs = session.run(None, {session.get_inputs()[0].name: x})
    by_name = {o.name: v for o, v in zip(session.get_outputs(), outputs, strict=True)}
    return {n: by_name[n].astype(np.int64) for n in names}, by_name[graph.output[0].name]


def float_output(path: Path, x: np.ndarray) -> np.ndarray:
    """The float model's output (``quantize`` keeps it beside the quantized one as ``*.f``)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path.with_suffix(".f.onnx")), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x})[0]


def layer_sources(program: Program, layer: Layer) -> list[str]:
    """The int8 tensors ``layer`` reads (a Flatten's output as the tensor it views)."""
    from vta_mlir.quant.layers_cnn import ConcatLayer
    from vta_mlir.quant.program import AddLayer

    if isinstance(layer, AddLayer):
        srcs = [layer.a] if layer.b is None else [layer.a, layer.b]
    elif isinstance(layer, ConcatLayer):
        srcs = list(layer.srcs)
    else:
        srcs = [layer.src]
    return list(dict.fromkeys(program.aliases.get(s, s) for s in srcs))


def layer_text(program: Program, layer: Layer) -> str:
    """``layer`` alone as a function of plain int8 arguments: its sources in order, then its
    output (no ``vta.quant``: codes in, codes out)."""
    from vta_mlir.frontend.mlir_text import memref_type, network_function
    from vta_mlir.quant.emit import Emitter

    em = Emitter(program)
    params = []
    for i, src in enumerate(layer_sources(program, layer)):
        em.names[src] = f"%in{i}"
        em.used.add(f"in{i}")
        params.append(f"%in{i}: {memref_type(program.tensors[src].shape, 'i8')}")
    em.names[layer.dst] = "%output"
    em.used.add("output")
    params.append(f"%output: {memref_type(program.tensors[layer.dst].shape, 'i8')}")
    em.emit(layer, "%output")
    return network_function("layer", params, em.globals, em.fetch, em.lines)


def evaluate_layer(program: Program, layer: Layer, codes: dict[str, np.ndarray]) -> np.ndarray:
    """``layer``'s output codes on the input ``codes`` (by tensor name), by the reference."""
    from vta_mlir import parse
    from vta_mlir.reference import arguments, evaluate

    module = parse(layer_text(program, layer))
    inputs = [codes[s].reshape(program.tensors[s].shape).astype(np.int8)
              for s in layer_sources(program, layer)]
    # A pool accumulates into its output (linalg's init operand): it starts as zeros.
    inputs += [np.zeros(a.shape, np.int8) for a in arguments(module)
               if a.reads and a.name == "output"]
    (out,) = evaluate(module, inputs)
    return out.astype(np.int64)


def compare(got: np.ndarray, expected: np.ndarray) -> tuple[float, int]:
    diff = np.abs(got - expected.reshape(got.shape))
    return float(np.mean(diff > 0)), int(diff.max())


def build_model(args: argparse.Namespace, folder: Path) -> tuple[Path, Program, np.ndarray]:
    import models
    from trained_like import BETA

    from vta_mlir.frontend.onnx import import_program

    rng = np.random.default_rng(args.seed)
    size, classes = args.size, args.classes
    build = getattr(models, args.model)
    # mobilenet_v2 and resnet50 measure their batch norms on the calibration inputs.
    calibration = None if args.model == "resnet18" else \
        models.calibration_inputs((1, 3, size, size), rng)
    extra = {} if calibration is None else {"width": args.width, "calibration": calibration,
                                            "beta": args.beta or BETA}

    def builder(rng: np.random.Generator) -> models.Built:
        return build(rng, size=size, classes=classes, **extra)

    model = models.float_model(builder, rng, name=args.model)
    path = models.quantize(model, folder / f"{args.model}.onnx", not args.asymmetric, rng,
                           args.per_channel, calibration=calibration)
    program = import_program(path)
    x = np.random.default_rng(args.seed + 1).standard_normal(program.input.shape)
    return path, program, x.astype(np.float32)


def _beta_range(text: str) -> tuple[float, float]:
    try:
        low, high = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not LO,HI") from None
    if not low <= high:
        raise argparse.ArgumentTypeError(f"'{text}': LO is above HI")
    return low, high


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="mobilenet_v2",
                        choices=("mobilenet_v2", "resnet50", "resnet18"))
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--classes", type=int, default=1000)
    parser.add_argument("--width", type=float, default=1.0,
                        help="width of mobilenet_v2 and resnet50")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--asymmetric", action="store_true")
    parser.add_argument("--per-channel", action="store_true")
    parser.add_argument("--beta", type=_beta_range, default=None, metavar="LO,HI",
                        help="the range of the batch norms' shift β (mobilenet_v2, resnet50; "
                        "default: examples/onnx/trained_like.py's BETA)")
    parser.add_argument("--all-layers", action="store_true",
                        help="print every layer (default: those that differ)")
    args = parser.parse_args(argv)
    from onnx_resnet18 import agreement

    with tempfile.TemporaryDirectory(prefix="layer_agreement_") as folder:
        path, program, x = build_model(args, Path(folder))
        ort_codes, ort_out = onnxruntime_codes(path, x)
        reference = float_output(path, x)
    own = {program.input.name: ort_codes[program.input.name]}
    isolated_total = propagated_total = elements = 0.0
    print(f"{'layer':40s} {'kind':10s} {'elements':>10s} {'isolated':>16s} "
          f"{'propagated':>16s}")
    for layer in program.layers:
        expected = ort_codes[layer.dst]
        iso, iso_worst = compare(evaluate_layer(program, layer, ort_codes), expected)
        own[layer.dst] = evaluate_layer(program, layer, own)
        prop, prop_worst = compare(own[layer.dst], expected)
        size = expected.size
        isolated_total += iso * size
        propagated_total += prop * size
        elements += size
        if args.all_layers or iso or prop:
            kind = re.sub("Layer$", "", type(layer).__name__).lower()
            print(f"{layer.name[:40]:40s} {kind:10s} {size:10d} "
                  f"{100 * iso:8.3f}% ({iso_worst:2d}) {100 * prop:8.3f}% ({prop_worst:2d})")
    print(f"all layers: {int(elements):,} codes, isolated {100 * isolated_total / elements:.4f} % "
          f"differ, propagated {100 * propagated_total / elements:.4f} %")
    step = program.output.scale
    out_codes = own[program.output.name].reshape(ort_out.shape)
    got = ((out_codes - program.output.zero_point) * step).astype(np.float32)
    within, worst = agreement(got, ort_out, step)
    print(f"output vs onnxruntime: {100 * within:.1f} % within one step, worst {worst:.0f}")
    within, worst = agreement(ort_out, reference, step)
    print(f"onnxruntime's int8 model vs the float model: {100 * within:.1f} % within one "
          f"step, worst {worst:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
