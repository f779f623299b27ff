"""MobileNetV2 through the ONNX frontend: ``examples/onnx/models.py``'s ``mobilenet_v2`` float
graph (224×224, width 1.0, 1000 classes by default; random He normal weights, each batch norm
measured on the calibration inputs and folded as ``torch.onnx`` exports it,
``examples/onnx/trained_like.py``; ReLU6 as ``Clip(0, 6)``), quantized by onnxruntime's
``quantize_static`` (int8 QDQ), imported by ``vta_mlir.frontend.onnx``, compiled to one binary
and run on the simulator on its float input, beside onnxruntime on the same input.

The steps are ``benchmarks/onnx_resnet18.py``'s (build, import, compile, run, compare with
onnxruntime under ``ORT_DISABLE_ALL`` in output quantization steps).  The 3×3 depthwise
convolutions run on VTA as GEMMs on block-diagonal weights (``docs/onnx.md`` §4.7): one GEMM
cycle per tap per block of channels per output position, so the GEMM bound of the true
multiply-accumulates says little about them.  Per layer and in total the benchmark prints the
cycles against two bounds:

* **GEMM bound**: the true MACs (dense and depthwise) / (BATCH · BLOCK_IN · BLOCK_OUT);
* **depthwise-aware bound**: the dense MACs / (BATCH · BLOCK_IN · BLOCK_OUT), plus one cycle
  per depthwise tap per block of BLOCK_OUT channels (``ceil(C / BLOCK_OUT)``) per output
  position per block of BATCH images, plus the epilogue: 5 cycles per output vector (BATCH ×
  BLOCK_OUT elements) of every convolution and Gemm (add the bias, multiply, shift, clip).

A residual ``Add`` fused into the epilogue of the projection writing its operand
(``docs/onnx.md`` §4.5) is part of that layer's row, of kind ``conv+add``; neither bound counts
its operations.

It also prints ``vta_mac_fraction`` (the multiply-accumulates VTA ran over all of them), the
host steps' seconds and the process's peak memory.  A step that fails prints one line and the
exit status is 1.

Usage::

    python benchmarks/mobilenet_v2.py [--config default|block32|batch2|all] [--size 224]
                                      [--classes 1000] [--width 1.0] [--seed 0]
                                      [--asymmetric] [--per-channel] [--requant fixed|pow2]
                                      [--json FILE] [--no-progress]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

HERE = Path(__file__).resolve().parent
ONNX_EXAMPLES = HERE.parent / "examples" / "onnx"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
if str(ONNX_EXAMPLES) not in sys.path:
    sys.path.append(str(ONNX_EXAMPLES))

from onnx_resnet18 import (  # noqa: E402
    CONFIGS,
    Measurement,
    Model,
    StepError,
    layer_bounds,
    layer_count,
    measure_all,
)
from resnet18_network import (  # noqa: E402
    first_line,
    format_int,
    format_ratio,
    format_table,
    schedule_floor,
)

from vta_mlir.atomic_write import write_text as write_atomically  # noqa: E402

if TYPE_CHECKING:
    from vta_mlir.config import VTAConfig
    from vta_mlir.frontend.onnx import Program

__all__ = ["EPILOGUE_CYCLES", "MobileNetBound", "build", "main", "mobilenet_bounds"]

#: The epilogue's cycles per output vector: the bias add, the requantization's multiply and
#: shift, and the clip's min and max (one ALU pass each over BATCH × BLOCK_OUT accumulators).
EPILOGUE_CYCLES = 5


def build(args: argparse.Namespace, folder: Path) -> Model:
    """The quantized MobileNetV2 in ``folder``, imported (:class:`StepError` when a step
    fails)."""
    import numpy as np

    seconds: dict[str, float] = {}
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    try:
        from models import calibration_inputs, float_model, mobilenet_v2, quantize

        size, classes, width = args.size, args.classes, args.width
        # The batch norms are measured on the inputs the quantizer calibrates on.
        calibration = calibration_inputs((1, 3, size, size), rng)

        def builder(rng: np.random.Generator) -> Any:
            return mobilenet_v2(rng, size=size, classes=classes, width=width,
                                calibration=calibration)

        model = float_model(builder, rng, name="mobilenet_v2")
        path = quantize(model, folder / "mobilenet_v2.onnx", not args.asymmetric, rng,
                        args.per_channel, calibration=calibration)
    except Exception as exc:
        raise StepError(f"build: {first_line(exc)}") from None
    seconds["build"] = time.perf_counter() - start
    start = time.perf_counter()
    try:
        from vta_mlir.frontend.onnx import import_program
        from vta_mlir.quant.emit import emit_program

        program = import_program(path, requant=args.requant)
        text = emit_program(program)
        seconds["import"] = time.perf_counter() - start
    except Exception as exc:
        raise StepError(f"import: {first_line(exc)}") from None
    x = np.random.default_rng(args.seed + 1).standard_normal(program.input.shape)
    return Model("mobilenet_v2", path, text, program, x.astype(np.float32), seconds)


@dataclass(frozen=True)
class MobileNetBound:
    """A layer's kind, true MACs, GEMM bound and depthwise-aware bound (cycles)."""

    name: str
    kind: str
    macs: int
    gemm_bound: float
    depthwise_bound: float
    #: The depthwise-aware bound without its epilogue cycles: the multiply-accumulates alone.
    taps: float = 0.0


def mobilenet_bounds(program: Program, cfg: VTAConfig) -> list[MobileNetBound]:
    """:class:`MobileNetBound` of every layer of ``program`` on ``cfg`` (the GEMM bound is
    ``onnx_resnet18.layer_bounds``'s; nothing for poolings and additions)."""
    from vta_mlir.quant.depthwise import DepthwiseConvLayer
    from vta_mlir.quant.fuse import ResidualAdd, emission_units
    from vta_mlir.quant.program import ConvLayer, DenseLayer

    fused = {unit.name for unit in emission_units(program) if isinstance(unit, ResidualAdd)}
    per_cycle = cfg.batch * cfg.block_in * cfg.block_out
    rows = []
    for layer, gemm in zip(program.layers, layer_bounds(program, cfg), strict=True):
        kind, bound = type(layer).__name__.removesuffix("Layer").lower(), 0.0
        if isinstance(layer, ConvLayer):
            n, c, oh, ow = program.tensors[layer.dst].shape
            vectors = -(-n // cfg.batch) * -(-c // cfg.block_out) * oh * ow
            if isinstance(layer, DepthwiseConvLayer):
                kind = "depthwise"
                bound = math.prod(layer.weight.shape[2:]) * vectors
            else:
                bound = gemm.macs / per_cycle
            taps = bound
            bound += EPILOGUE_CYCLES * vectors
        elif isinstance(layer, DenseLayer):
            rows_in = program.tensors[program.aliases.get(layer.src, layer.src)].shape[0]
            vectors = -(-rows_in // cfg.batch) * -(-layer.weight.shape[1] // cfg.block_out)
            taps = gemm.macs / per_cycle
            bound = taps + EPILOGUE_CYCLES * vectors
        else:
            taps = 0.0
        if layer.name in fused:
            kind += "+add"
        rows.append(MobileNetBound(layer.name, kind, gemm.macs, gemm.gemm_bound, bound, taps))
    return rows


def format_report(model: Model, m: Measurement) -> str:
    """The figures of one configuration: per layer, the total, the seconds and the agreement."""
    from vta_mlir.config import VTAConfig

    cfg = VTAConfig.load(m.config)
    out = [f"{model.name} on {m.config} ({cfg.bitstream})"]
    if m.error is not None:
        return "\n".join([*out, f"  failed: {m.error}"])
    bounds = mobilenet_bounds(model.program, cfg)
    by_name = {b.name: b for b in bounds}
    rows: list[list[str]] = []
    for entry in m.layers:
        b = by_name.get(str(entry.get("name")))
        cycles = entry.get("cycles")
        rows.append([str(entry.get("name")), b.kind if b else "-",
                     format_int(b.macs if b else None),
                     format_int(b.gemm_bound if b else None),
                     format_int(b.depthwise_bound if b else None), format_int(cycles),
                     format_ratio(cycles, b.gemm_bound if b else None),
                     format_ratio(cycles, b.depthwise_bound if b else None),
                     str(entry.get("bound_by", "-"))])
    macs = sum(b.macs for b in bounds)
    gemm = -(-macs // (cfg.batch * cfg.block_in * cfg.block_out))
    aware = math.ceil(sum(b.depthwise_bound for b in bounds))
    rows.append(["total", "-", format_int(macs), format_int(gemm), format_int(aware),
                 format_int(m.cycles), format_ratio(m.cycles, gemm),
                 format_ratio(m.cycles, aware), "-"])
    out += format_table(["layer", "kind", "MACs", "GEMM bound", "dw-aware bound", "cycles",
                         "x GEMM", "x dw-aware", "bound by"], rows)
    if not m.layers:
        out.append("(per-layer figures: the run statistics have no `layers`)")
    # The floor against the multiply-accumulates as the depthwise-aware bound counts them.
    out += schedule_floor(math.ceil(sum(b.taps for b in bounds)), m.cycles, m.layers)
    dw_macs = sum(b.macs for b in bounds if b.kind == "depthwise")
    out.append(f"MACs: {macs:,} ({dw_macs:,} depthwise); vta_mac_fraction "
               f"{m.vta_mac_fraction:.4f}; {len(m.host_steps)} host steps")
    out.append(f"compile {m.compile_seconds:.2f} s, run {m.run_seconds:.2f} s (of which host "
               f"steps {m.host_seconds:.3f} s), peak memory {m.peak_mb:,.0f} MB")
    if m.within_one_step is not None and m.worst_steps is not None:
        out.append(f"onnxruntime agreement: {100 * m.within_one_step:.1f} % of "
                   f"{model.program.output.shape} outputs within one step "
                   f"({model.program.output.scale:.4g}), worst {m.worst_steps:.0f} steps")
    return "\n".join(out)


def as_json(model: Model, m: Measurement) -> dict[str, Any]:
    from vta_mlir.config import VTAConfig

    return {**vars(m), "layer_bounds": [
        vars(b) for b in mobilenet_bounds(model.program, VTAConfig.load(m.config))]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="default", choices=[*CONFIGS, "all"],
                        help="a shipped configuration, or all three (default: default)")
    parser.add_argument("--size", type=int, default=224, help="input height and width")
    parser.add_argument("--classes", type=int, default=1000, help="outputs of the last layer")
    parser.add_argument("--width", type=float, default=1.0,
                        help="width multiplier of the channels (rounded as torchvision)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the weights, the calibration data and the input")
    parser.add_argument("--asymmetric", action="store_true",
                        help="asymmetric activations (default: symmetric)")
    parser.add_argument("--per-channel", action="store_true", help="per-channel weight scales")
    parser.add_argument("--requant", default="fixed", choices=("fixed", "pow2"),
                        help="the importer's requantization (docs/onnx.md §3)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (there is none either when stderr is no terminal)")
    args = parser.parse_args(argv)
    if args.size < 32 or args.classes < 1 or args.width <= 0:
        parser.error("--size must be at least 32 (five stride-2 stages), --classes at least 1 "
                     "and --width positive")
    configs = list(CONFIGS) if args.config == "all" else [args.config]

    found = measure_all("mobilenet_v2", args, configs, build)
    if found is None:
        return 1
    model, results = found

    program = model.program
    print(f"{model.name}: input {program.input.shape}, output {program.output.shape}, "
          f"{layer_count(program)}, width {args.width:g}; built by "
          f"examples/onnx/models.py, seed {args.seed}; "
          f"{'asymmetric' if args.asymmetric else 'symmetric'} activations, "
          f"{'per-channel' if args.per_channel else 'per-tensor'} weights, "
          f"{args.requant} requantization")
    s = model.seconds
    print(f"built and quantized in {s['build']:.2f} s, imported in {s['import']:.2f} s, "
          f"onnxruntime (CPU, ORT_DISABLE_ALL) in {s['onnxruntime']:.2f} s")
    for m in results:
        print()
        print(format_report(model, m))
    if args.json:
        payload = {"model": model.name, "size": args.size, "classes": args.classes,
                   "width": args.width, "seed": args.seed, "asymmetric": args.asymmetric,
                   "per_channel": args.per_channel, "requant": args.requant,
                   "seconds": model.seconds, "results": [as_json(model, m) for m in results]}
        write_atomically(args.json, json.dumps(payload, indent=2) + "\n")
    return 1 if any(m.error is not None for m in results) else 0


if __name__ == "__main__":
    sys.exit(main())
