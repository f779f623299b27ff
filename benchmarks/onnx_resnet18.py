"""ResNet-18 (or ResNet-50) through the ONNX frontend: a float model quantized by onnxruntime's
``quantize_static`` (int8 QDQ), imported by ``vta_mlir.frontend.onnx``, compiled to one binary
and run on the simulator on its float input, beside onnxruntime on the same input.

Steps:

1. build: ``examples/onnx/models.py``'s ResNet-18-shaped float graph (``resnet18``: random He
   normal weights, batch norms folded as ``torch.onnx`` exports them; ``--size``, ``--classes``),
   with ``--model resnet50`` its ResNet-50 (``resnet50``: torchvision's v1.5 layout, each batch
   norm measured on the calibration inputs and folded, ``examples/onnx/trained_like.py``),
   or a float model exported by ``torch.onnx`` (``--torch-model PATH``, see
   ``tests/data/torch_onnx/README.md``), quantized by ``quantize`` (``quantize_static``, int8
   activations and weights, calibrated on random normal inputs; ``--asymmetric`` activations,
   ``--per-channel`` weight scales);
2. import: ``vta_mlir.frontend.onnx.import_program`` (the layers, also for the bounds) and its
   text (what ``import_text`` and ``vta-import-onnx`` write);
3. compile: ``vta_mlir.lower`` — parsing, ``vta-to-isa`` and linking — for each configuration;
4. run: on a new simulated device (``Device.load_module``), called with the float input; the
   host steps of ``vta.quant`` quantize it and dequantize the output (``docs/onnx.md`` §1);
5. compare: with onnxruntime on the same float input (CPU provider,
   ``graph_optimization_level = ORT_DISABLE_ALL``: the QDQ graph's own float semantics), in
   output quantization steps: the share of outputs within one step and the worst difference.
   (Bit-exactness with the documented integer semantics is what ``tests/test_onnx_import.py``
   checks.)

It prints the seconds of each step, and per layer (the run's ``vta-run --stats`` layers, named
after the ONNX nodes; a residual ``Add`` fused into the epilogue of the convolution writing its
operand, ``docs/onnx.md`` §4.5, is part of that convolution's row) and in total the cycles
against the GEMM bound of the network's *true* multiply-accumulates: MACs / (BATCH · BLOCK_IN ·
BLOCK_OUT) of the configuration, without rounding channels up to whole blocks; then
``vta_mac_fraction`` (the multiply-accumulates VTA ran over all of them) and the process's peak
memory (maximum resident set).

A step that fails prints one line (the first line of the error) and the exit status is 1.

Usage::

    python benchmarks/onnx_resnet18.py [--config default|block32|batch2|all]
                                       [--model resnet18|resnet50] [--size 224]
                                       [--classes 1000] [--seed 0] [--asymmetric]
                                       [--per-channel] [--requant fixed|pow2]
                                       [--torch-model PATH] [--json FILE] [--no-progress]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

HERE = Path(__file__).resolve().parent
ONNX_EXAMPLES = HERE.parent / "examples" / "onnx"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
if str(ONNX_EXAMPLES) not in sys.path:
    sys.path.append(str(ONNX_EXAMPLES))

from resnet18_network import (  # noqa: E402
    first_line,
    format_int,
    format_ratio,
    format_table,
    fused_layers,
    peak_memory_mb,
    schedule_floor,
)

from vta_mlir.atomic_write import write_text as write_atomically  # noqa: E402

if TYPE_CHECKING:
    import numpy as np

    from vta_mlir.config import VTAConfig
    from vta_mlir.frontend.onnx import Program

CONFIGS = ("default", "block32", "batch2")
STEPS = ("compile", "run", "compare")

__all__ = ["LayerBound", "Measurement", "Model", "agreement", "build", "layer_bounds",
           "layer_count", "main", "measure", "measure_all", "onnxruntime_output"]


class StepError(Exception):
    """A step failed: the message is its one line (``step: what went wrong``)."""


# ---------------------------------------------------------------------------------------------
# The model


@dataclass
class Model:
    """The quantized model, its imported text and program, and the float input it runs on."""

    name: str
    path: Path
    text: str
    program: Program
    input: np.ndarray
    seconds: dict[str, float]


def build(args: argparse.Namespace, folder: Path) -> Model:
    """Steps 1 and 2: the quantized model in ``folder``, imported (:class:`StepError` when a
    step fails)."""
    import numpy as np

    seconds: dict[str, float] = {}
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    try:
        import models
        import onnx

        calibration = None
        if args.torch_model:
            source = Path(args.torch_model)
            model = onnx.load(str(source))
            name = source.stem
        else:
            size, classes, name = args.size, args.classes, args.model
            build = getattr(models, name)
            extra: dict[str, Any] = {}
            if name == "resnet50":  # its batch norms are measured on the calibration inputs
                calibration = models.calibration_inputs((1, 3, size, size), rng)
                extra = {"calibration": calibration}

            def builder(rng: np.random.Generator) -> Any:
                return build(rng, size=size, classes=classes, **extra)

            model = models.float_model(builder, rng, name=name)
        path = models.quantize(model, folder / f"{name}.onnx", not args.asymmetric, rng,
                               args.per_channel, calibration=calibration)
    except Exception as exc:
        raise StepError(f"build: {first_line(exc)}") from None
    seconds["build"] = time.perf_counter() - start
    start = time.perf_counter()
    try:
        from vta_mlir.frontend.onnx import import_program
        from vta_mlir.quant.emit import emit_program

        # import_text's two halves: the program is kept for the bounds.
        program = import_program(path, requant=args.requant)
        text = emit_program(program)
        seconds["import"] = time.perf_counter() - start
    except Exception as exc:
        raise StepError(f"import: {first_line(exc)}") from None
    x = np.random.default_rng(args.seed + 1).standard_normal(program.input.shape)
    return Model(name, path, text, program, x.astype(np.float32), seconds)


@dataclass(frozen=True)
class LayerBound:
    """A layer's true multiply-accumulates and the GEMM cycles they take at full occupancy."""

    name: str
    macs: int
    gemm_bound: float


def layer_bounds(program: Program, cfg: VTAConfig) -> list[LayerBound]:
    """:class:`LayerBound` of every layer of the imported ``program`` on ``cfg``: convolutions
    ``N·O·OH·OW · C·KH·KW``, fully connected layers ``rows · K · N`` (their input's elements
    times the output features), nothing for poolings and additions."""
    from vta_mlir.quant.program import ConvLayer, DenseLayer

    per_cycle = cfg.batch * cfg.block_in * cfg.block_out
    rows = []
    for layer in program.layers:
        macs = 0
        if isinstance(layer, ConvLayer):
            macs = math.prod(program.tensors[layer.dst].shape) * math.prod(layer.weight.shape[1:])
        elif isinstance(layer, DenseLayer):
            src = program.aliases.get(layer.src, layer.src)
            macs = math.prod(program.tensors[src].shape) * layer.weight.shape[1]
        rows.append(LayerBound(layer.name, macs, macs / per_cycle))
    return rows


def layer_count(program: Program) -> str:
    """``N layers`` of the imported ``program``, and how many of its Adds run in the epilogue
    of the layer writing an operand (``vta_mlir/quant/fuse.py``): those have no row of their
    own."""
    from vta_mlir.quant.fuse import ResidualAdd, emission_units

    fused = sum(isinstance(unit, ResidualAdd) for unit in emission_units(program))
    text = f"{len(program.layers)} layers"
    return f"{text} ({fused} Adds fused into a layer's epilogue)" if fused else text


def onnxruntime_output(path: Path, x: np.ndarray) -> np.ndarray:
    """onnxruntime's output for ``x`` (CPU, no graph optimisation: the QDQ graph as written)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x})[0]


def agreement(got: np.ndarray, expected: np.ndarray, step: float) -> tuple[float, float]:
    """The share of elements within one output step of ``expected``, and the worst difference,
    in steps."""
    import numpy as np

    steps = np.abs(got.astype(np.float64) - expected.astype(np.float64)) / step
    # A thousandth of a step: both sides are float32 multiples of the step.
    return float(np.mean(steps <= 1.001)), float(steps.max())


# ---------------------------------------------------------------------------------------------
# One configuration


@dataclass
class Measurement:
    """The figures of one configuration (``error`` set when a step failed)."""

    config: str
    compile_seconds: float | None = None
    run_seconds: float | None = None
    host_seconds: float | None = None
    cycles: int | None = None
    vta_mac_fraction: float | None = None
    host_steps: list[dict[str, Any]] = field(default_factory=list)
    layers: list[dict[str, Any]] = field(default_factory=list)
    within_one_step: float | None = None
    worst_steps: float | None = None
    error: str | None = None
    peak_mb: float = 0.0


def measure(model: Model, config: str, reference: np.ndarray | None, bar: Any = None
            ) -> Measurement:
    """Steps 3 to 5 on ``config``; ``reference`` is onnxruntime's output (``None``: not
    compared)."""
    from vta_mlir import lower, parse
    from vta_mlir.config import VTAConfig
    from vta_mlir.runtime.device import Device

    m = Measurement(config)
    cfg = VTAConfig.load(config)
    step = "compile"
    try:
        if bar is not None:
            bar.set_postfix_str(f"{config}: compile")
        start = time.perf_counter()
        binary = lower(parse(model.text, filename=f"{model.name}.mlir", config=cfg))
        m.compile_seconds = time.perf_counter() - start
        if bar is not None:
            bar.update()
            bar.set_postfix_str(f"{config}: run")
        step = "run"
        loaded = Device(cfg).load_module(binary)
        start = time.perf_counter()
        outputs = loaded(model.input)
        m.run_seconds = time.perf_counter() - start
        stats = loaded.last_run
        m.host_seconds = sum(s["seconds"] for s in stats.host_steps)
        m.cycles = stats.cycles
        m.vta_mac_fraction = stats.vta_mac_fraction
        m.host_steps = [dict(step) for step in stats.host_steps]
        m.layers = [dict(entry) for entry in stats.layers]
        if bar is not None:
            bar.update()
        step = "compare"
        if reference is not None:
            if len(outputs) != 1 or outputs[0].shape != reference.shape:
                raise RuntimeError(f"the program returns {[o.shape for o in outputs]}, "
                                   f"onnxruntime {reference.shape}")
            m.within_one_step, m.worst_steps = agreement(outputs[0], reference,
                                                         model.program.output.scale)
        if bar is not None:
            bar.update()
    except Exception as exc:  # one line per failed configuration; the others still run
        m.error = f"{step}: {first_line(exc)}"
    m.peak_mb = peak_memory_mb()
    return m


# ---------------------------------------------------------------------------------------------
# Report


def measure_all(name: str, args: argparse.Namespace, configs: list[str],
                build_model: Callable[[argparse.Namespace, Path], Model]
                ) -> tuple[Model, list[Measurement]] | None:
    """Build and import the model (``build_model``), run onnxruntime on its input, then
    :func:`measure` it on each of ``configs``, with a progress bar on a terminal; None when a
    step before the measurements fails (its line printed, as ``name: error: ...``)."""
    from tqdm import tqdm

    bar = tqdm(total=3 + len(STEPS) * len(configs), file=sys.stderr, unit="step",
               desc=name, disable=args.no_progress or not sys.stderr.isatty(), leave=False)
    results: list[Measurement] = []
    with tempfile.TemporaryDirectory(prefix=f"{name}_") as folder:
        try:
            bar.set_postfix_str("build, import")
            model = build_model(args, Path(folder))
            bar.update(2)
            bar.set_postfix_str("onnxruntime")
            start = time.perf_counter()
            try:
                reference = onnxruntime_output(model.path, model.input)
            except Exception as exc:
                raise StepError(f"onnxruntime: {first_line(exc)}") from None
            model.seconds["onnxruntime"] = time.perf_counter() - start
            bar.update()
        except StepError as exc:
            bar.close()
            print(f"{name}: error: {exc}")
            return None
        for config in configs:
            results.append(measure(model, config, reference, bar))
            bar.update(3 + len(STEPS) * len(results) - bar.n)  # the steps a failure skipped
    bar.close()
    return model, results


def format_report(model: Model, m: Measurement) -> str:
    """The figures of one configuration: per layer, the total, the seconds and the agreement."""
    from vta_mlir.config import VTAConfig

    cfg = VTAConfig.load(m.config)
    out = [f"{model.name} on {m.config} ({cfg.bitstream})"]
    if m.error is not None:
        return "\n".join([*out, f"  failed: {m.error}"])
    bounds = layer_bounds(model.program, cfg)
    by_name = {b.name: b for b in bounds}
    rows: list[list[str]] = []
    for entry in m.layers:
        b = by_name.get(str(entry.get("name")))
        cycles = entry.get("cycles")
        rows.append([str(entry.get("name")), format_int(b.macs if b else None),
                     format_int(b.gemm_bound if b else None), format_int(cycles),
                     format_ratio(cycles, b.gemm_bound if b else None),
                     format_int(entry.get("critical_cycles")),
                     str(entry.get("bound_by", "-"))])
    macs = sum(b.macs for b in bounds)
    gemm = -(-macs // (cfg.batch * cfg.block_in * cfg.block_out))
    rows.append(["total", format_int(macs), format_int(gemm), format_int(m.cycles),
                 format_ratio(m.cycles, gemm),
                 format_int(sum(int(e.get("critical_cycles", 0)) for e in m.layers)
                            if m.layers else None), "-"])
    # "cycles" is each layer's span (neighbours overlap); "critical" its share of the total.
    out += format_table(["layer", "MACs", "GEMM bound", "cycles", "x GEMM", "critical",
                         "bound by"], rows)
    if not m.layers:
        out.append("(per-layer figures: the run statistics have no `layers`)")
    note = fused_layers([b.name for b in bounds], m.layers)
    if note is not None:
        out.append(note)
    out += schedule_floor(gemm, m.cycles, m.layers)
    out.append(f"vta_mac_fraction {m.vta_mac_fraction:.4f}; {len(m.host_steps)} host steps")
    out.append(f"compile {m.compile_seconds:.2f} s, run {m.run_seconds:.2f} s (of which host "
               f"steps {m.host_seconds:.3f} s), peak memory {m.peak_mb:,.0f} MB")
    if m.within_one_step is not None and m.worst_steps is not None:
        out.append(f"onnxruntime agreement: {100 * m.within_one_step:.1f} % of "
                   f"{model.program.output.shape} outputs within one step "
                   f"({model.program.output.scale:.4g}), worst {m.worst_steps:.0f} steps")
    return "\n".join(out)


def as_json(model: Model, m: Measurement) -> dict[str, Any]:
    from vta_mlir.config import VTAConfig

    return {**vars(m), "layer_bounds": [vars(b) for b in
                                        layer_bounds(model.program, VTAConfig.load(m.config))]}


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="default", choices=[*CONFIGS, "all"],
                        help="a shipped configuration, or all three (default: default)")
    parser.add_argument("--model", default="resnet18", choices=("resnet18", "resnet50"),
                        help="the network examples/onnx/models.py builds (default: resnet18; "
                             "resnet50: torchvision's v1.5 layout, batch norms measured on the "
                             "calibration inputs and folded)")
    parser.add_argument("--size", type=int, default=224, help="input height and width")
    parser.add_argument("--classes", type=int, default=1000, help="outputs of the last layer")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the weights, the calibration data and the input")
    parser.add_argument("--asymmetric", action="store_true",
                        help="asymmetric activations (default: symmetric)")
    parser.add_argument("--per-channel", action="store_true", help="per-channel weight scales")
    parser.add_argument("--requant", default="fixed", choices=("fixed", "pow2"),
                        help="the importer's requantization (docs/onnx.md §3)")
    parser.add_argument("--torch-model", metavar="PATH",
                        help="a float model exported by torch.onnx instead of the built one "
                             "(--size and --classes then do not apply)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (there is none either when stderr is no terminal)")
    args = parser.parse_args(argv)
    if args.size < 32 or args.classes < 1:
        parser.error("--size must be at least 32 (five stride-2 stages) and --classes at least 1")
    configs = list(CONFIGS) if args.config == "all" else [args.config]

    found = measure_all(f"onnx_{args.model}", args, configs, build)
    if found is None:
        return 1
    model, results = found

    program = model.program
    source = (f"exported by torch.onnx ({args.torch_model})" if args.torch_model
              else f"built by examples/onnx/models.py, seed {args.seed}")
    print(f"{model.name}: input {program.input.shape}, output {program.output.shape}, "
          f"{layer_count(program)}; {source}; "
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
        payload = {"model": model.name, "torch_model": args.torch_model, "size": args.size,
                   "classes": args.classes, "seed": args.seed, "asymmetric": args.asymmetric,
                   "per_channel": args.per_channel, "requant": args.requant,
                   "seconds": model.seconds, "results": [as_json(model, m) for m in results]}
        write_atomically(args.json, json.dumps(payload, indent=2) + "\n")
    return 1 if any(m.error is not None for m in results) else 0


if __name__ == "__main__":
    sys.exit(main())
