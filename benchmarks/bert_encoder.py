"""A BERT-style encoder through the ONNX frontend: ``examples/onnx/transformer.py``'s float
encoder (2 layers, sequence 64, hidden 128, 2 heads, FFN 512, GELU with ``Erf``, post-norm
LayerNorms by default), quantized by onnxruntime in both of its ways — static QDQ on the matrix
products (``quantize_static``, ``op_types_to_quantize=["MatMul"]``, symmetric int8
activations) and dynamic (``quantize_dynamic``: ``DynamicQuantizeLinear`` and
``MatMulInteger``) — imported by ``vta_mlir.frontend.onnx``, compiled to one binary and run on
the simulator on its float input, beside onnxruntime (``ORT_DISABLE_ALL``) on the same input.

The steps are ``benchmarks/onnx_resnet18.py``'s (build, import, compile, run, compare). For
each form and configuration it prints side by side:

* the agreement with onnxruntime: the share of outputs within one step and the worst
  difference, in steps of the last ``DequantizeLinear`` before the float tail (the scale of
  the last residual's codes, ``docs/onnx.md`` §6.2); for the dynamic form, the largest
  difference relative to ``max|y|`` (§6.1);
* ``vta_mac_fraction``: the share of the multiply-accumulates that ran on VTA;
* the device cycles against the bound ``max(GEMM bound + 4 cycles per output vector, weight
  bytes / DRAM bytes per cycle)``: the GEMM bound is the MatMuls' true MACs / (BATCH ·
  BLOCK_IN · BLOCK_OUT), an output vector BATCH × BLOCK_OUT elements of a product's result
  (its epilogue: the bias add, the multiply, the shift and one clip), the weight bytes the
  constant int8 weights the device must read once;
* the seconds of the device (the simulated cycles at the configuration's clock) and of the
  host steps (measured).

A form whose build or import fails prints one line naming the step and the importer's error;
a failing configuration one line; the exit status is then 1.

Usage::

    python benchmarks/bert_encoder.py [--config default|block32|batch2|all] [--layers 2]
        [--seq 64] [--hidden 128] [--heads 2] [--ffn 512] [--seed 0] [--torch-mlir FILE]
        [--json FILE] [--no-progress]

``--torch-mlir FILE`` also runs torch-mlir's linalg-on-tensors lowering of the same static
model (``tests/data/torch_mlir/regenerate.py --encoder DIR`` writes it, with torch-mlir
installed apart) through ``vta-integerize``, and prints its rows beside the imported model's.
``--json FILE`` writes the figures all at once (``vta_mlir.atomic_write``): a reader of
``FILE`` sees its old contents or the complete new ones.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

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
    agreement,
    onnxruntime_output,
)
from resnet18_network import first_line, format_int, format_ratio, format_table  # noqa: E402

from vta_mlir.atomic_write import write_text  # noqa: E402

if TYPE_CHECKING:
    import numpy as np

    from vta_mlir.config import VTAConfig
    from vta_mlir.frontend.onnx import Program

__all__ = ["EPILOGUE_CYCLES", "EncoderBound", "encoder_bound", "main", "residual_step"]

#: The epilogue's cycles per output vector of a product: the bias add, the multiply, the
#: shift and one clip (one ALU pass each over BATCH × BLOCK_OUT accumulators).
EPILOGUE_CYCLES = 4


@dataclass(frozen=True)
class EncoderBound:
    """The MatMuls' true MACs, their output vectors and constant weight bytes, and the bound
    they give on a configuration (cycles)."""

    macs: int
    vectors: int
    weight_bytes: int
    gemm_bound: float
    dram_bound: float

    @property
    def bound(self) -> float:
        return max(self.gemm_bound + EPILOGUE_CYCLES * self.vectors, self.dram_bound)


def encoder_bound(program: Program, cfg: VTAConfig) -> EncoderBound:
    """:class:`EncoderBound` of the products of ``program`` (dense layers and batched products
    of two activations) on ``cfg``."""
    from vta_mlir.quant.batch_product import BatchProductLayer
    from vta_mlir.quant.program import DenseLayer

    macs = vectors = weight_bytes = 0
    for layer in program.layers:
        if isinstance(layer, DenseLayer):
            rows = program.tensors[program.aliases.get(layer.src, layer.src)].shape[0]
            k, n = layer.weight.shape
            macs += rows * k * n
            vectors += -(-rows // cfg.batch) * -(-n // cfg.block_out)
            weight_bytes += layer.weight.nbytes
        elif isinstance(layer, BatchProductLayer):
            batch, m, k = program.tensors[layer.a].shape
            n = program.tensors[layer.dst].shape[2]
            macs += batch * m * k * n
            vectors += batch * -(-m // cfg.batch) * -(-n // cfg.block_out)
    per_cycle = cfg.batch * cfg.block_in * cfg.block_out
    return EncoderBound(macs, vectors, weight_bytes, macs / per_cycle,
                        weight_bytes / cfg.timing.dram_bytes_per_cycle)


def residual_step(path: Path) -> float:
    """The step of the agreement: the scale of the last ``DequantizeLinear`` of an activation
    before the graph's float output (the codes the float tail reads)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    inits = {i.name: i for i in model.graph.initializer}
    last = [node for node in model.graph.node
            if node.op_type == "DequantizeLinear" and node.input[0] not in inits]
    return float(numpy_helper.to_array(inits[last[-1].input[1]]))


def build_static(args: argparse.Namespace, folder: Path) -> Model:
    """The statically quantized encoder in ``folder``, imported (:class:`StepError` when a
    step fails)."""
    import numpy as np

    seconds: dict[str, float] = {}
    start = time.perf_counter()
    try:
        from transformer import EncoderShape, bert_encoder, encoder_inputs, quantize_static_matmuls

        shape = EncoderShape(args.layers, args.seq, args.hidden, args.heads, args.ffn)
        rng = np.random.default_rng(args.seed)
        path = quantize_static_matmuls(bert_encoder(rng, shape), folder / "encoder.onnx",
                                       encoder_inputs(rng, shape, 8))
    except Exception as exc:
        raise StepError(f"build: {first_line(exc)}") from None
    seconds["build"] = time.perf_counter() - start
    start = time.perf_counter()
    try:
        from vta_mlir.frontend.onnx import import_program
        from vta_mlir.quant.emit import emit_program

        program = import_program(path)
        text = emit_program(program)
    except Exception as exc:
        raise StepError(f"import: {first_line(exc)}") from None
    seconds["import"] = time.perf_counter() - start
    x = np.random.default_rng(args.seed + 1).standard_normal((1, args.seq, args.hidden))
    return Model("bert_encoder", path, text, program, x.astype(np.float32), seconds)


@dataclass
class DynamicRow:
    """The dynamically quantized encoder on one configuration: the largest difference from
    onnxruntime over the largest of its outputs (``docs/onnx.md`` §6.1 promises at most 1e-3),
    ``vta_mac_fraction``, cycles and seconds; or the line saying why it did not run."""

    config: str
    relative_error: float | None = None
    vta_mac_fraction: float | None = None
    cycles: int | None = None
    host_seconds: float | None = None
    error: str | None = None


def measure_dynamic(args: argparse.Namespace, folder: Path,
                    configs: list[str]) -> tuple[list[DynamicRow], str | None]:
    """The dynamically quantized encoder (``quantize_dynamic``) built, imported, compiled and
    run on each of ``configs`` beside onnxruntime; the rows, or the line saying why no
    configuration ran."""
    import numpy as np

    try:
        from transformer import EncoderShape, bert_encoder, quantize_dynamic_matmuls

        shape = EncoderShape(args.layers, args.seq, args.hidden, args.heads, args.ffn)
        path = quantize_dynamic_matmuls(bert_encoder(np.random.default_rng(args.seed), shape),
                                        folder / "encoder_dynamic.onnx")
        x = np.random.default_rng(args.seed + 1).standard_normal(
            (1, args.seq, args.hidden)).astype(np.float32)
        reference = onnxruntime_output(path, x)
    except Exception as exc:
        return [], f"build: {first_line(exc)}"
    try:
        from vta_mlir.frontend.onnx import import_text

        text = import_text(path)
    except Exception as exc:
        return [], f"import: {first_line(exc)}"
    from vta_mlir import lower, parse
    from vta_mlir.config import VTAConfig
    from vta_mlir.runtime.device import Device

    rows = []
    for config in configs:
        row = DynamicRow(config)
        try:
            cfg = VTAConfig.load(config)
            loaded = Device(cfg).load_module(
                lower(parse(text, filename="encoder_dynamic.mlir", config=cfg)))
            (y,) = loaded(x)
            stats = loaded.last_run
            row.relative_error = float(np.abs(y - reference).max() / np.abs(reference).max())
            row.vta_mac_fraction = stats.vta_mac_fraction
            row.cycles = stats.cycles
            row.host_seconds = sum(s["seconds"] for s in stats.host_steps)
        except Exception as exc:  # one line per failed configuration
            row.error = first_line(exc)
        rows.append(row)
    return rows, None


@dataclass
class Report:
    """The figures of the static form on each configuration, and the dynamic form's state."""

    model: Model
    results: list[Measurement]
    step: float
    dynamic_error: str | None
    bounds: dict[str, EncoderBound] = field(default_factory=dict)
    dynamic: list[DynamicRow] = field(default_factory=list)
    #: The same model as torch-mlir lowers it (``--torch-mlir FILE``), per configuration.
    torch_mlir: list[Measurement] = field(default_factory=list)


def device_seconds(m: Measurement, cfg: VTAConfig) -> float | None:
    return None if m.cycles is None else m.cycles / (cfg.timing.clock_mhz * 1e6)


def format_report(report: Report) -> list[str]:
    from vta_mlir.config import VTAConfig

    out = _static_table("static QDQ", report.results, report)
    if report.torch_mlir:
        out += _static_table("torch-mlir", report.torch_mlir, report)
    if report.dynamic_error is not None:
        out.append(f"dynamic (MatMulInteger): not run: {report.dynamic_error}")
        return out
    rows: list[list[str]] = []
    for d in report.dynamic:
        cfg = VTAConfig.load(d.config)
        if d.error is not None or d.cycles is None:
            rows.append([d.config, f"failed: {d.error}"] + ["-"] * 4)
            continue
        rows.append([d.config, f"{d.relative_error:.1e}", f"{d.vta_mac_fraction:.4f}",
                     format_int(d.cycles),
                     f"{1e3 * d.cycles / (cfg.timing.clock_mhz * 1e6):.3f}",
                     f"{1e3 * (d.host_seconds or 0):.1f}"])
    out += format_table(["dynamic", "max |Δ| / max |y|", "vta_mac_fraction", "cycles",
                         "device ms", "host steps ms"], rows)
    return out


def _static_table(title: str, results: list[Measurement], report: Report) -> list[str]:
    """The statically quantized encoder's rows (the imported model's, or torch-mlir's)."""
    from vta_mlir.config import VTAConfig

    rows: list[list[str]] = []
    for m in results:
        cfg = VTAConfig.load(m.config)
        b = report.bounds[m.config]
        if m.error is not None:
            rows.append([m.config, f"failed: {m.error}"] + ["-"] * 7)
            continue
        seconds = device_seconds(m, cfg)
        rows.append([
            m.config,
            f"{100 * (m.within_one_step or 0):.1f} % / {m.worst_steps:.2f}",
            f"{m.vta_mac_fraction:.4f}", format_int(m.cycles), format_int(b.bound),
            format_ratio(m.cycles, b.bound),
            f"{format_int(b.gemm_bound)} + {format_int(EPILOGUE_CYCLES * b.vectors)} | "
            f"{format_int(b.dram_bound)}",
            "-" if seconds is None else f"{1e3 * seconds:.3f}",
            f"{1e3 * (m.host_seconds or 0):.1f}"])
    return format_table([title, "within 1 step / worst", "vta_mac_fraction", "cycles",
                         "bound", "x bound", "GEMM + epilogue | DRAM", "device ms",
                         "host steps ms"], rows)


def run(args: argparse.Namespace, configs: list[str]) -> Report | None:
    from vta_mlir.config import VTAConfig

    with tempfile.TemporaryDirectory(prefix="bert_encoder_") as name:
        folder = Path(name)
        try:
            model = build_static(args, folder)
            start = time.perf_counter()
            reference = onnxruntime_output(model.path, model.input)
            model.seconds["onnxruntime"] = time.perf_counter() - start
        except StepError as exc:
            print(f"bert_encoder: error: {exc}")
            return None
        step = residual_step(model.path)
        results = [measure_encoder(model, config, reference, step) for config in configs]
        dynamic, dynamic_error = measure_dynamic(args, folder, configs)
        torch_mlir = [] if args.torch_mlir is None else [
            measure_encoder(model, config, reference, step, args.torch_mlir.read_text())
            for config in configs]
    bounds = {c: encoder_bound(model.program, VTAConfig.load(c)) for c in configs}
    return Report(model, results, step, dynamic_error, bounds, dynamic, torch_mlir)


def measure_encoder(model: Model, config: str, reference: np.ndarray, step: float,
                    text: str | None = None) -> Measurement:
    """Compile, run and compare on ``config`` as ``onnx_resnet18.measure`` does, the agreement
    in steps of ``step`` (the output is float: it has no scale of its own); ``text``: another
    form of the same model (torch-mlir's linalg on tensors, its float requantization read by
    ``vta-integerize``) instead of the imported one."""
    from vta_mlir import lower, parse
    from vta_mlir.config import VTAConfig
    from vta_mlir.runtime.device import Device

    m = Measurement(config)
    cfg = VTAConfig.load(config)
    stage = "compile"
    try:
        start = time.perf_counter()
        source = parse(model.text if text is None else text,
                       filename=f"{model.name}.mlir", config=cfg)
        binary = lower(source) if text is None else lower(source, requant="fixed-point")
        m.compile_seconds = time.perf_counter() - start
        stage = "run"
        loaded = Device(cfg).load_module(binary)
        start = time.perf_counter()
        (y,) = loaded(model.input)
        m.run_seconds = time.perf_counter() - start
        stats = loaded.last_run
        m.host_seconds = sum(s["seconds"] for s in stats.host_steps)
        m.cycles = stats.cycles
        m.vta_mac_fraction = stats.vta_mac_fraction
        m.host_steps = [dict(s) for s in stats.host_steps]
        m.layers = [dict(entry) for entry in stats.layers]
        stage = "compare"
        m.within_one_step, m.worst_steps = agreement(y, reference, step)
    except Exception as exc:  # one line per failed configuration; the others still run
        m.error = f"{stage}: {first_line(exc)}"
    return m


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="default", choices=[*CONFIGS, "all"],
                        help="a shipped configuration, or all three (default: default)")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--seq", type=int, default=64, help="sequence length")
    parser.add_argument("--hidden", type=int, default=128, help="hidden width")
    parser.add_argument("--heads", type=int, default=2, help="attention heads")
    parser.add_argument("--ffn", type=int, default=512, help="feed-forward width")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the weights, the calibration data and the input")
    parser.add_argument("--torch-mlir", metavar="FILE", type=Path,
                        help="also run torch-mlir's linalg-on-tensors lowering of the same "
                        "static model (tests/data/torch_mlir/regenerate.py --encoder writes it)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress output (the steps print nothing while they run)")
    args = parser.parse_args(argv)
    if min(args.layers, args.seq, args.hidden, args.heads, args.ffn) < 1 or \
            args.hidden % args.heads:
        parser.error("every dimension is positive and --heads divides --hidden")
    if args.torch_mlir is not None and not args.torch_mlir.is_file():
        parser.error(f"--torch-mlir {args.torch_mlir}: no such file")
    configs = list(CONFIGS) if args.config == "all" else [args.config]
    report = run(args, configs)
    if report is None:
        return 1
    model = report.model
    print(f"bert_encoder: {args.layers} layers, sequence {args.seq}, hidden {args.hidden}, "
          f"{args.heads} heads, FFN {args.ffn}; built by examples/onnx/transformer.py, seed "
          f"{args.seed}; {len(model.program.layers)} layers imported")
    s = model.seconds
    print(f"built and quantized in {s['build']:.2f} s, imported in {s['import']:.2f} s, "
          f"onnxruntime (CPU, ORT_DISABLE_ALL) in {s['onnxruntime']:.2f} s; agreement in "
          f"steps of {report.step:.4g}")
    any_bound = next(iter(report.bounds.values()))
    print(f"MatMul MACs {any_bound.macs:,}, constant weights {any_bound.weight_bytes:,} bytes")
    for line in format_report(report):
        print(line)
    if args.json:
        payload = {"model": model.name, "shape": {k: getattr(args, k) for k in (
            "layers", "seq", "hidden", "heads", "ffn")}, "seed": args.seed,
            "step": report.step, "seconds": model.seconds, "dynamic_error": report.dynamic_error,
            "results": [{**vars(m), "bound": report.bounds[m.config].bound,
                         **{k: v for k, v in vars(report.bounds[m.config]).items()}}
                        for m in report.results],
            "dynamic": [vars(d) for d in report.dynamic],
            "torch_mlir": [vars(m) for m in report.torch_mlir]}
        # Written to a temporary file in the same folder and renamed into place: a reader (or an
        # interrupted run) never sees a truncated file.
        write_text(args.json, json.dumps(payload, indent=2, default=str) + "\n")
    failed = report.dynamic_error is not None or any(
        d.error is not None for d in report.dynamic) or any(
        m.error is not None for m in report.torch_mlir)
    return 1 if failed or any(m.error is not None for m in report.results) else 0


if __name__ == "__main__":
    sys.exit(main())
