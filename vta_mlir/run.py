"""One checked call of a binary module on the simulator, as ``vta-run --random-inputs --check``
makes it.

* :func:`random_inputs` — the deterministic random arrays of ``--random-inputs``;
* :func:`check_sram_indices` — the refusal of a module that indexes past an SRAM;
* :func:`run_program` — the call on a new simulated device, with the DRAM contents before and
  after (:class:`RunRecord`);
* :func:`check_outputs` — the comparison of the outputs with the numpy reference evaluation of
  the input-level program.

``vta-run`` (``tools/vta_run.py``), the benchmarks and :mod:`vta_mlir.explore` all run programs
through these functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from vta_mlir.abi import ArgSpec, dequantize, quantize
from vta_mlir.config import VTAConfig
from vta_mlir.errors import VTAError

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from vta_mlir.binary import BinaryModule

__all__ = [
    "RANDOM_RANGE",
    "RunRecord",
    "check_outputs",
    "check_sram_indices",
    "difference",
    "random_inputs",
    "run_program",
    "signature",
]

#: Range of random input values (clipped to the type's range).
RANDOM_RANGE: tuple[int, int] = (-128, 127)


def signature(binary: BinaryModule) -> str:
    """The program's arguments for messages: ``(name: shape x dtype, ...) -> (...)``."""

    def one(a: ArgSpec) -> str:
        return f"{a.name}: {'x'.join(map(str, a.shape))}x{a.host_dtype}"

    ins = ", ".join(one(a) for a in binary.inputs)
    outs = ", ".join(one(a) for a in binary.outputs)
    return f"({ins}) -> ({outs})"


def random_inputs(specs: Sequence[ArgSpec], seed: int) -> list[np.ndarray]:
    """Deterministic random arrays for ``specs``: integers in :data:`RANDOM_RANGE` (clipped to
    each dtype's range), drawn in signature order from ``numpy.random.default_rng(seed)``;
    for a quantized argument, float32 values uniform over those that quantize into
    :data:`RANDOM_RANGE`, ``[(-128 - zero_point) * scale, (127 - zero_point) * scale]``; for a
    float32 argument (a float edge the program's host steps read as it is), standard normal
    values."""
    if seed < 0:
        raise VTAError(f"the seed of random inputs must be a non-negative integer, not {seed}")
    rng = np.random.default_rng(seed)
    arrays = []
    for spec in specs:
        if spec.quant is not None:
            scale, zero_point = spec.quant.scale, spec.quant.zero_point
            lo, hi = (RANDOM_RANGE[0] - zero_point) * scale, (RANDOM_RANGE[1] - zero_point) * scale
            with np.errstate(over="ignore"):  # a scale near float32's largest: ±inf saturates
                arrays.append(rng.uniform(lo, hi, size=spec.shape).astype(np.float32))
            continue
        if np.issubdtype(np.dtype(spec.dtype), np.floating):
            arrays.append(rng.standard_normal(spec.shape).astype(spec.dtype))
            continue
        info = np.iinfo(np.dtype(spec.dtype))
        lo, hi = max(RANDOM_RANGE[0], info.min), min(RANDOM_RANGE[1], info.max)
        arrays.append(rng.integers(lo, hi, size=spec.shape, dtype=spec.dtype, endpoint=True))
    return arrays


def check_sram_indices(binary: BinaryModule, cfg: VTAConfig) -> None:
    """Refuse a module with an instruction that indexes past an SRAM or the micro-op table
    (the device would address memory it does not have), naming the first one."""
    from vta_mlir.binary_checks import sram_index_problems

    problems = sram_index_problems(binary.program, cfg)
    if problems:
        more = f" (and {len(problems) - 1} more such instructions)" if len(problems) > 1 else ""
        raise VTAError(f"{problems[0]}{more}")


@dataclass
class RunRecord:
    """One call of the program: its inputs, outputs and statistics, and the DRAM contents of
    every segment just before the first run and just after the last."""

    binary: BinaryModule
    config: VTAConfig
    inputs: list[np.ndarray]
    outputs: tuple[np.ndarray, ...]
    stats: Any
    before: dict[str, np.ndarray]
    after: dict[str, np.ndarray]


def run_program(binary: BinaryModule, cfg: VTAConfig, inputs: Sequence[np.ndarray]) -> RunRecord:
    """Load ``binary`` on a fresh simulated device for ``cfg`` and call it once."""
    from vta_mlir.runtime.device import Device

    device = Device(cfg)
    loaded = device.load_module(binary)
    segments = binary.program.segments
    # After loading, DRAM holds the constants and staging images; the call then writes the
    # packed inputs, so this plus the packed images is the state the first run starts from.
    before = {s.name: device.read(s.phys, s.nbytes).copy() for s in segments}
    for spec, array in zip(binary.inputs, inputs, strict=True):
        before[spec.segment] = np.frombuffer(spec.pack(array), dtype=np.uint8).copy()
    given = {spec.name: array for spec, array in zip(binary.inputs, inputs, strict=True)}
    for copy in binary.copies:  # an argument read in a second layout: packed into both
        before[copy.segment] = np.frombuffer(copy.pack(given[copy.copy_of]), np.uint8).copy()
    outputs = loaded.run(list(inputs))
    after = {s.name: device.read(s.phys, s.nbytes).copy() for s in segments}
    return RunRecord(binary, cfg, list(inputs), outputs, loaded.last_run, before, after)


def _index(flat: int, shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def check_outputs(
    module: ModuleOp,
    binary: BinaryModule,
    inputs: Sequence[np.ndarray],
    outputs: Sequence[np.ndarray],
    *,
    function: str | None = None,
) -> list[str]:
    """Compare a run's ``outputs`` with the numpy reference evaluation of the input-level
    ``module`` on the same ``inputs``; returns one description per output that differs.

    The binary module's arguments are the function's memref arguments in signature order; an
    argument the program does not read starts as zeros, as it does on the device.  The host
    steps of a ``vta.quant`` argument, read from the input program, apply around the
    evaluation as around the run: float inputs are quantized, outputs dequantized, and float
    outputs compared bit for bit.  A program on tensors is evaluated in its bufferized form
    (``vta-bufferize``).
    """
    from vta_mlir.passes.bufferize import BufferizePass, has_tensors
    from vta_mlir.reference import arguments, find_function, run_function

    if has_tensors(module):
        # The reference evaluates memrefs: a tensor program runs in the memref form the
        # compiler lowered, its results the trailing out-parameters (vta.result).
        from vta_mlir.ir.context import make_context

        module = module.clone()
        BufferizePass().apply(make_context(), module)
    f = find_function(module, function)
    args = arguments(f)
    if [a.shape for a in args] != [tuple(spec.shape) for spec in binary.args]:
        raise VTAError(
            f"--check: the arguments of @{f.sym_name.data} do not match the compiled module's "
            f"{signature(binary)}"
        )
    for arg, spec in zip(args, binary.args, strict=True):
        if arg.quant is None and spec.quant is not None:
            raise VTAError(
                "--check: the program requantizes in float and the compiled module in fixed "
                "point (requant=fixed-point), within one output step of it, not bit for bit; "
                "compare with vta_mlir.reference.evaluate within that step instead"
            )
        if arg.quant != spec.quant:
            raise VTAError(
                f"--check: argument '{spec.name}' has quantization {arg.quant} in the input "
                f"program and {spec.quant} in the compiled module"
            )
    given = iter(inputs)
    arrays = []
    for arg, spec in zip(args, binary.args, strict=True):
        if spec.is_input:
            value = np.asarray(next(given))
            arrays.append(
                value.astype(arg.dtype) if arg.quant is None else quantize(value, arg.quant)
            )
        else:
            arrays.append(np.zeros(arg.shape, dtype=arg.dtype))
    run_function(f, arrays)
    expected = [
        array if arg.quant is None else dequantize(array, arg.quant)
        for array, arg, spec in zip(arrays, args, binary.args, strict=True)
        if spec.is_output
    ]
    return [
        problem
        for spec, want, got in zip(binary.outputs, expected, outputs, strict=True)
        if (problem := difference(spec.name, want, np.asarray(got))) is not None
    ]


def difference(name: str, want: np.ndarray, got: np.ndarray) -> str | None:
    """How the output ``name`` differs from ``want`` (integers by value, floats bit for bit):
    how many elements, the first one and its two values; None if it does not."""
    if np.issubdtype(want.dtype, np.floating):
        if got.dtype != want.dtype:
            return f"'{name}' is {got.dtype}, expected {want.dtype}"
        differ = np.flatnonzero(want.reshape(-1).view(np.uint32) != got.reshape(-1).view(np.uint32))
        values: tuple[np.ndarray, np.ndarray] = (want.reshape(-1), got.reshape(-1))
    else:
        values = (want.astype(np.int64).reshape(-1), got.astype(np.int64).reshape(-1))
        differ = np.flatnonzero(values[0] != values[1])
    if not differ.size:
        return None
    first = int(differ[0])
    return (
        f"{differ.size} of {want.size} elements of '{name}' differ, first at "
        f"{_index(first, want.shape)}: expected {values[0][first]}, got {values[1][first]}"
    )
