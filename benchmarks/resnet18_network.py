"""Whole ResNet-18 (224×224, int8, random weights) compiled to one binary, run on the simulator
and checked bit for bit against the independent numpy model of ``examples/networks/``.

Steps, for each configuration asked for:

1. generate: ``examples/networks/resnet18.py`` writes the network as one ``func.func`` (weights
   as ``memref.global`` constants by default, ``--weights args`` as function arguments; each
   bias before the shift, ``(acc + b) >> s``, or after it with ``--epilogue shift-bias``) and
   the numpy model (``examples/networks/numpy_model.py``, plain numpy) computes the expected
   output;
2. compile: ``vta_mlir.lower`` — parsing, ``vta-to-isa`` and linking — to one binary module;
3. run: on a new simulated device through ``vta-run``'s own path (``run_program``: the arrays
   the function reads, in signature order, as its ``--input`` files would be; the output as
   ``--output`` writes it), after ``vta-run``'s check of SRAM indices;
4. check: the output equal to the numpy model's, element for element.

It prints, per layer (when the run statistics carry ``vta-run --stats``'s ``layers``) and in
total:

* cycles against the GEMM bound of the network's *true* multiply-accumulates: MACs /
  (BATCH · BLOCK_IN · BLOCK_OUT) of the configuration, without rounding channels up to whole
  blocks, so channel padding counts as waste (ResNet-18: 1,814,073,344 MACs, 7,086,224 cycles
  on the default configuration);
* DRAM bytes moved (the load and store counters) against the compulsory bytes: every weight
  and bias once, every activation written once and read once per layer reading it, the
  network's input at its original size (read once by ``conv1``) and the output written once;
* compile seconds, simulation seconds and the process's peak memory (maximum resident set).

With ``--layers-alone`` it also compiles and runs every layer as a function of its own
(``network_mlir.layer_mlir``: its input activations as arguments, fed with the numpy model's
buffers) and prints the same figures per layer: what today's single-layer pipeline makes of
each layer, comparable with the whole network's per-layer figures.

A step that fails prints one line (the first line of the compiler's diagnostic); the exit
status is 1 when any configuration failed or differed from the model.

Usage::

    python benchmarks/resnet18_network.py [--config default|block32|batch2|all]
                                          [--weights globals|args] [--size 224] [--seed 0]
                                          [--epilogue bias-shift|shift-bias]
                                          [--network resnet18|small_cnn] [--layers-alone]
                                          [--json FILE] [--no-progress]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import resource
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

HERE = Path(__file__).resolve().parent
NETWORKS = HERE.parent / "examples" / "networks"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
# After this folder: its resnet18.py (the layer benchmark) keeps the name `resnet18`; the
# generator examples/networks/resnet18.py is loaded from its file (load_generator).
if str(NETWORKS) not in sys.path:
    sys.path.append(str(NETWORKS))

import numpy_model as nm  # noqa: E402

from vta_mlir.atomic_write import write_text as write_atomically  # noqa: E402

if TYPE_CHECKING:
    import numpy as np
    from generated import Generated

    from vta_mlir.config import VTAConfig

CONFIGS = ("default", "block32", "batch2")
NETWORK_NAMES = ("resnet18", "small_cnn")
STEPS = ("generate", "compile", "run", "check")

__all__ = ["LayerBounds", "fused_layers", "generate", "layer_bounds", "load_generator", "main",
           "measure", "network_bounds"]


# ---------------------------------------------------------------------------------------------
# Bounds from the network and the configuration


@dataclass(frozen=True)
class LayerBounds:
    """What a layer has to do, whatever the schedule: its true MACs, the GEMM cycles they take
    at full occupancy, and the DRAM bytes it must move."""

    name: str
    macs: int
    gemm_bound: float
    compulsory: int


def _size(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


def layer_bounds(net: nm.Network, cfg: VTAConfig) -> list[LayerBounds]:
    """:class:`LayerBounds` of every layer of ``net`` on ``cfg``: MACs of the convolutions
    (``N·O·OH·OW·C·KH·KW``) and fully connected layers (``N·K·N_out``), the GEMM bound MACs /
    (BATCH · BLOCK_IN · BLOCK_OUT), and the compulsory bytes: weights (int8) and biases (int32)
    once, each buffer read once (the network input at its original size) and the output
    written once."""
    shapes = net.shapes()
    per_cycle = cfg.batch * cfg.block_in * cfg.block_out
    rows = []
    for layer in net.layers:
        out = shapes[layer.name]
        reads = sum(_size(shapes[src]) for src in layer.sources)
        macs = 0
        weights = 0
        if isinstance(layer, nm.Conv):
            macs = _size(out) * _size(layer.weight.shape[1:])
            weights = layer.weight.size + 4 * layer.bias.size
        elif isinstance(layer, nm.Dense):
            macs = out[0] * layer.weight.size
            weights = layer.weight.size + 4 * layer.bias.size
        rows.append(LayerBounds(layer.name, macs, macs / per_cycle,
                                weights + reads + _size(out)))
    return rows


def network_bounds(net: nm.Network, cfg: VTAConfig) -> dict[str, int]:
    """The totals of :func:`layer_bounds`: MACs, GEMM bound (cycles, rounded up) and
    compulsory DRAM bytes."""
    rows = layer_bounds(net, cfg)
    macs = sum(r.macs for r in rows)
    return {"macs": macs, "gemm_bound": -(-macs // (cfg.batch * cfg.block_in * cfg.block_out)),
            "compulsory": sum(r.compulsory for r in rows)}


# ---------------------------------------------------------------------------------------------
# Steps


def load_generator(name: str) -> ModuleType:
    """The generator script ``examples/networks/<name>.py`` as the module ``networks_<name>``
    (``benchmarks/resnet18.py`` already is ``resnet18`` on the path)."""
    module_name = f"networks_{name}"
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, NETWORKS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name]


def generate(network: str, *, size: int, seed: int, weights: str,
             epilogue: str = nm.EPILOGUES[0]) -> Generated:
    """The network's MLIR text, its constants and its input (``examples/networks``), the bias
    of its convolutions and fully connected layer added before or after the shift
    (``epilogue``)."""
    if network == "resnet18":
        return load_generator("resnet18").generate(size, seed, weights, epilogue=epilogue)
    return load_generator("small_cnn").generate(seed, weights, epilogue=epilogue)


@dataclass(eq=False)
class LayerAlone:
    """One layer of a network as a function of its own (``network_mlir.layer_mlir``), with
    the numpy model's buffers as its inputs: what :func:`measure` takes."""

    network: nm.Network
    layer: nm.Layer
    buffers: dict[str, np.ndarray]
    weights: str

    @property
    def text(self) -> str:
        from network_mlir import layer_mlir

        return layer_mlir(self.network, self.layer.name, weights=self.weights)

    def arguments(self) -> list[np.ndarray]:
        from network_mlir import layer_inputs

        arrays = [self.buffers[src].reshape(shape)
                  for src, shape in layer_inputs(self.network, self.layer.name).items()]
        if self.weights == "args" and isinstance(self.layer, nm.Conv | nm.Dense):
            arrays += [self.layer.weight, self.layer.bias]
        return arrays

    def expected(self) -> np.ndarray:
        return self.buffers[self.layer.name]


def layers_alone(generated: Generated) -> list[LayerAlone]:
    """Every layer of the generated network alone, fed with the numpy model's buffers."""
    buffers = nm.evaluate(generated.network, generated.input)
    return [LayerAlone(generated.network, layer, buffers, generated.weights)
            for layer in generated.network.layers]


def first_line(exc: BaseException) -> str:
    """The first non-empty line of an error (a diagnostic's ``file:line:col: error: ...``)."""
    from vta_mlir.errors import VTAError

    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    return text if isinstance(exc, VTAError) else f"{type(exc).__name__}: {text}"


def peak_memory_mb() -> float:
    """The process's peak resident set so far, in MB (``ru_maxrss`` is in KB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass
class Measurement:
    """The figures of one configuration (``error`` set when a step failed)."""

    config: str
    compile_seconds: float | None = None
    sim_seconds: float | None = None
    cycles: int | None = None
    dram_bytes: int | None = None
    uop_bytes: int | None = None
    busy: dict[str, int] = field(default_factory=dict)
    layers: list[dict[str, Any]] | None = None
    #: The micro-op staging segments of the binary (left out of the DRAM bytes).
    staging: list[str] = field(default_factory=list)
    check: str | None = None
    error: str | None = None
    peak_mb: float = 0.0

    @property
    def failed(self) -> bool:
        return self.error is not None or self.check != "PASS"


def _check(binary_outputs: tuple[np.ndarray, ...], expected: np.ndarray) -> str:
    import numpy as np

    if len(binary_outputs) != 1:
        return f"FAIL: {len(binary_outputs)} outputs, expected 1"
    got = binary_outputs[0]
    if got.shape != expected.shape:
        return f"FAIL: output shape {got.shape}, expected {expected.shape}"
    differ = np.flatnonzero(got.astype(np.int64) != expected.astype(np.int64))
    if differ.size:
        return f"FAIL: {differ.size} of {expected.size} elements differ (first at {differ[0]})"
    return "PASS"


def measure(generated: Generated | LayerAlone, config: str, bar: Any = None) -> Measurement:
    """Compile, run and check ``generated`` on the configuration ``config``."""
    from vta_mlir import lower, parse
    from vta_mlir.binary_checks import sram_index_problems
    from vta_mlir.config import VTAConfig
    from vta_mlir.run import run_program
    from vta_mlir.stats import dram_bytes, staging_segments, stats_json

    def step(name: str) -> None:
        if bar is not None:
            bar.set_postfix_str(f"{config}: {name}")

    m = Measurement(config)
    cfg = VTAConfig.load(config)
    try:
        step("compile")
        start = time.perf_counter()
        name = (generated.layer.name if isinstance(generated, LayerAlone)
                else generated.network.name)
        module = parse(generated.text, filename=f"{name}.mlir", config=cfg)
        binary = lower(module)
        m.compile_seconds = time.perf_counter() - start
        if bar is not None:
            bar.update()
        step("run")
        problems = sram_index_problems(binary.program, cfg)
        if problems:
            raise RuntimeError(f"{problems[0]} ({len(problems)} such instructions)")
        # As vta-run binds --input files: the arrays the function reads, in signature order.
        arrays = generated.arguments()
        if len(arrays) != len(binary.inputs):
            raise RuntimeError(f"the program reads {len(binary.inputs)} argument(s), "
                               f"{len(arrays)} given")
        inputs = [spec.check_array(a) for spec, a in zip(binary.inputs, arrays, strict=True)]
        start = time.perf_counter()
        record = run_program(binary, cfg, inputs)
        m.sim_seconds = time.perf_counter() - start
        if bar is not None:
            bar.update()
        stats = stats_json(record.stats)
        m.cycles = stats["cycles"]
        m.busy = dict(stats["busy"])
        m.uop_bytes = stats["counters"].get("uop_load_nbytes")
        m.layers = stats.get("layers")
        m.staging = sorted(staging_segments(binary))
        m.dram_bytes = dram_bytes(stats, set(m.staging))
        step("check")
        m.check = _check(tuple(record.outputs), generated.expected())
        if bar is not None:
            bar.update()
    except Exception as exc:  # one line per failed configuration; the others still run
        m.error = first_line(exc)
    m.peak_mb = peak_memory_mb()
    return m


# ---------------------------------------------------------------------------------------------
# Report


def format_int(v: float | None) -> str:
    """``v`` rounded, with thousands separators; ``-`` for none."""
    return "-" if v is None else f"{round(v):,}"


def format_ratio(a: float | None, b: float | None) -> str:
    """``a / b`` to two decimals; ``-`` when either is missing."""
    return "-" if a is None or not b else f"{a / b:.2f}"


def format_table(heads: list[str], rows: list[list[str]]) -> list[str]:
    """Rows under ``heads``: the first column left-aligned, the others right-aligned."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) + 2 for i, h in enumerate(heads)]
    widths[0] -= 2
    return [r[0].ljust(widths[0]) + "".join(c.rjust(w) for c, w in
                                            zip(r[1:], widths[1:], strict=True))
            for r in [heads, *rows]]


def schedule_floor(base: float, cycles: int, layers: Sequence[Mapping[str, Any]]) -> list[str]:
    """How the cycles divide against the floor of the schedule: ``base`` (the GEMM bound of
    the true MACs, or another bound of the multiply-accumulates) plus the GEMM resets and the
    ALU cycles of the layers' epilogues, pools and residuals (their ``compute_work``, from
    ``vta-run --stats``), which the schedule cannot go below; then what lies beyond it, adding
    up to the cycles: GEMM cycles above ``base`` (channel padding, pipeline fill), the compute
    module's own loads, and the cycles it waits (for loads, or the instructions outside
    layers)."""
    if not layers or not all("compute_work" in e for e in layers):
        return []
    work = {k: sum(int(e["compute_work"][k]) for e in layers)
            for k in ("gemm", "reset", "alu", "loads")}
    busy = sum(int(e["busy"]["compute"]) for e in layers)
    floor = base + work["reset"] + work["alu"]
    return [f"schedule floor {format_int(floor)} = bound {format_int(base)} + resets "
            f"{format_int(work['reset'])} + ALU {format_int(work['alu'])} "
            f"({format_ratio(floor, base)}x the bound; the cycles are "
            f"{format_ratio(cycles, floor)}x the floor)",
            f"beyond the floor: GEMM above the bound {format_int(work['gemm'] - base)}, "
            f"compute-module loads {format_int(work['loads'])}, compute idle "
            f"{format_int(cycles - busy)}, other {format_int(busy - sum(work.values()))}"]


def fused_layers(names: list[str], layers: list[dict[str, Any]] | None) -> str | None:
    """The note naming the layers of ``names`` the run has no figures of — a max-pool that
    ``vta-tile`` fused into the convolution before it runs within that layer — or ``None``."""
    if not layers:
        return None
    ran = {str(entry.get("name")) for entry in layers}
    fused = [name for name in names if name not in ran]
    if not fused:
        return None
    return (f"(no layer of their own: {', '.join(fused)} — fused into the layer before, whose "
            f"figures include them)")


def format_report(net: nm.Network, m: Measurement) -> str:
    """The figures of one configuration: per layer when the run has them, then the totals."""
    from vta_mlir.config import VTAConfig
    from vta_mlir.stats import layer_dram_bytes

    cfg = VTAConfig.load(m.config)
    # "cycles" is the layer's span (spans of neighbours overlap); "critical" its share of the
    # total (the cycles by which it moves the end out), which adds up to the total.
    heads = ["layer", "MACs", "GEMM bound", "cycles", "x GEMM", "critical", "DRAM bytes",
             "compulsory", "x DRAM", "bound by"]
    out = [f"{net.name} on {m.config} ({cfg.bitstream})"]
    if m.error is not None:
        return "\n".join([*out, f"  failed: {m.error}"])
    bounds = {b.name: b for b in layer_bounds(net, cfg)}
    total = network_bounds(net, cfg)
    rows: list[list[str]] = []
    for entry in m.layers or ():
        b = bounds.get(str(entry.get("name")))
        cycles = entry.get("cycles")
        moved = layer_dram_bytes(entry, set(m.staging))
        rows.append([str(entry.get("name")), format_int(b.macs if b else None),
                     format_int(b.gemm_bound if b else None), format_int(cycles),
                     format_ratio(cycles, b.gemm_bound if b else None),
                     format_int(entry.get("critical_cycles")), format_int(moved),
                     format_int(b.compulsory if b else None),
                     format_ratio(moved, b.compulsory if b else None),
                     str(entry.get("bound_by", "-"))])
    rows.append(["total", format_int(total["macs"]), format_int(total["gemm_bound"]),
                 format_int(m.cycles), format_ratio(m.cycles, total["gemm_bound"]),
                 format_int(sum(int(e.get("critical_cycles", 0)) for e in m.layers)
                            if m.layers else None),
                 format_int(m.dram_bytes), format_int(total["compulsory"]),
                 format_ratio(m.dram_bytes, total["compulsory"]), "-"])
    out += format_table(heads, rows)
    if m.layers is None:
        out.append("(per-layer figures: the run statistics have no `layers`)")
    note = fused_layers([b.name for b in layer_bounds(net, cfg)], m.layers)
    if note is not None:
        out.append(note)
    out += schedule_floor(total["gemm_bound"], m.cycles, m.layers or [])
    busy = ", ".join(f"{k} {format_ratio(v, m.cycles)}" for k, v in m.busy.items())
    out.append(f"busy / cycles: {busy}; micro-op bytes loaded {format_int(m.uop_bytes)}")
    out.append(f"compile {m.compile_seconds:.2f} s, simulation {m.sim_seconds:.2f} s, "
               f"peak memory {m.peak_mb:,.0f} MB; check: {m.check}")
    return "\n".join(out)


def format_layers_alone(net: nm.Network, config: str, rows: list[Measurement]) -> str:
    """The table of the layers compiled one at a time (a failed layer: its first line)."""
    from vta_mlir.config import VTAConfig

    bounds = layer_bounds(net, VTAConfig.load(config))
    heads = ["layer", "MACs", "GEMM bound", "cycles", "x GEMM", "DRAM bytes", "compulsory",
             "x DRAM", "check"]
    table: list[list[str]] = []
    failures: list[str] = []
    ran = [(b, m) for b, m in zip(bounds, rows, strict=True) if m.error is None]
    for b, m in zip(bounds, rows, strict=True):
        if m.error is not None:
            failures.append(f"{b.name}: failed: {m.error}")
            continue
        table.append([b.name, format_int(b.macs), format_int(b.gemm_bound),
                      format_int(m.cycles), format_ratio(m.cycles, b.gemm_bound),
                      format_int(m.dram_bytes), format_int(b.compulsory),
                      format_ratio(m.dram_bytes, b.compulsory), str(m.check)])
    if ran:
        cycles = sum(m.cycles or 0 for _, m in ran)
        gemm = sum(b.gemm_bound for b, _ in ran)
        moved = sum(m.dram_bytes or 0 for _, m in ran)
        needed = sum(b.compulsory for b, _ in ran)
        table.append([f"total ({len(ran)})", format_int(sum(b.macs for b, _ in ran)),
                      format_int(gemm), format_int(cycles), format_ratio(cycles, gemm),
                      format_int(moved), format_int(needed), format_ratio(moved, needed),
                      "PASS" if all(m.check == "PASS" for _, m in ran) else "FAIL"])
    out = [f"{net.name} on {config}, each layer compiled alone (inputs from the numpy model)"]
    return "\n".join([*out, *(format_table(heads, table) if table else []), *failures])


def as_json(net: nm.Network, m: Measurement) -> dict[str, Any]:
    from vta_mlir.config import VTAConfig

    cfg = VTAConfig.load(m.config)
    return {**vars(m), "bounds": network_bounds(net, cfg),
            "layer_bounds": [vars(b) for b in layer_bounds(net, cfg)]}


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="default", choices=[*CONFIGS, "all"],
                        help="a shipped configuration, or all three (default: default)")
    parser.add_argument("--weights", default="globals", choices=("globals", "args"),
                        help="weights as memref.global constants or as function arguments")
    parser.add_argument("--size", type=int, default=224, help="ResNet-18 input size")
    parser.add_argument("--seed", type=int, default=0, help="seed of the weights and input")
    parser.add_argument("--epilogue", default=nm.EPILOGUES[0], choices=nm.EPILOGUES,
                        help="the bias added before the shift, (acc + b) >> s, or after it, "
                             "(acc >> s) + b (default: bias-shift)")
    parser.add_argument("--network", default="resnet18", choices=NETWORK_NAMES,
                        help="the network (small_cnn: the small example, for quick runs)")
    parser.add_argument("--layers-alone", action="store_true",
                        help="also compile and run each layer as a function of its own")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (there is none either when stderr is no terminal)")
    args = parser.parse_args(argv)
    configs = list(CONFIGS) if args.config == "all" else [args.config]

    from tqdm import tqdm

    bar = tqdm(total=1 + len(STEPS[1:]) * len(configs), file=sys.stderr, unit="step",
               desc=args.network, disable=args.no_progress or not sys.stderr.isatty(),
               leave=False)
    bar.set_postfix_str("generate")
    start = time.perf_counter()
    try:
        generated = generate(args.network, size=args.size, seed=args.seed, weights=args.weights,
                             epilogue=args.epilogue)
    except ValueError as exc:
        bar.close()
        parser.error(str(exc))
    generate_seconds = time.perf_counter() - start
    bar.update()
    programs = layers_alone(generated) if args.layers_alone else []
    bar.total += len(STEPS[1:]) * len(programs) * len(configs)
    done = 1
    results = []
    alone: dict[str, list[Measurement]] = {}
    for config in configs:
        alone[config] = []
        for program in [generated, *programs]:
            m = measure(program, config, bar)
            (alone[config] if program is not generated else results).append(m)
            done += len(STEPS[1:])
            bar.update(done - bar.n)  # the steps a failure skipped
    bar.close()

    net = generated.network
    print(f"{net.name}: {len(net.layers)} layers, one function, weights as "
          f"{'memref.global constants' if args.weights == 'globals' else 'arguments'}, "
          f"epilogue {args.epilogue}, seed {args.seed}; generated in {generate_seconds:.2f} s; "
          "outputs checked against examples/networks/numpy_model.py")
    for m in results:
        print()
        print(format_report(net, m))
        if args.layers_alone:
            print()
            print(format_layers_alone(net, m.config, alone[m.config]))
    if args.json:
        payload = {"network": net.name, "weights": args.weights, "epilogue": args.epilogue,
                   "seed": args.seed, "results": [as_json(net, m) for m in results],
                   "layers_alone": {c: [vars(m) for m in rows] for c, rows in alone.items()}}
        write_atomically(args.json, json.dumps(payload, indent=2) + "\n")
    return 1 if any(m.failed for m in results) else 0


if __name__ == "__main__":
    sys.exit(main())
