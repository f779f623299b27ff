"""The simulator-backed VTA device: DRAM buffers, loading binary modules, calling them on numpy.

A :class:`Device` owns one :class:`vta_mlir.sim.simulator.Simulator` (its DRAM and SRAMs).
:meth:`Device.load_module` places every segment of a :class:`~vta_mlir.binary.BinaryModule` at
exactly its linked physical address (instructions hold absolute addresses), writes the constant
segments and the micro-op staging images, and returns a :class:`LoadedModule`.  Calling it packs
the numpy inputs into their DRAM segments through the argument table (``vta_mlir.abi``), runs every
run of the program, and unpacks the outputs::

    dev = Device()
    mod = dev.load_module(read_vtab("gemm.vtab", dev.cfg))
    y, = mod(x, w)
    mod.last_run.counters, mod.last_run.cycles

Arguments bind in signature order: the caller passes the ``in`` and ``inout`` arguments, the call
returns the ``out`` and ``inout`` ones.  Mismatched arguments raise
:class:`~vta_mlir.abi.ArgumentError` (a :class:`~vta_mlir.errors.VTAError`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from vta_mlir.abi import ArgSpec, ArgumentError
from vta_mlir.binary import BinaryModule, from_bytes, read_vtab
from vta_mlir.config import VTAConfig
from vta_mlir.errors import BinaryFormatError, VTAError
from vta_mlir.isa import Insn
from vta_mlir.program import COUNTER_NAMES
from vta_mlir.runtime.host_steps import HostStepRunner
from vta_mlir.sim.layers import layer_figures
from vta_mlir.sim.simulator import Simulator

__all__ = ["Device", "LoadedModule", "RunStats"]

#: Module names of the timing model (``docs/timing-model.md``).
MODULE_NAMES: tuple[str, ...] = ("load", "compute", "store")


@dataclass
class RunStats:
    """What one call (all runs of a program) did: the sum over its runs.

    ``counters`` are the seven profiling counters (``docs/isa.md`` §3.9); ``cycles``, ``busy`` and
    ``utilisation`` (busy / cycles per module) come from the timing model (``None`` / empty when
    timing is off); ``by_opcode`` counts executed instructions by name.  ``layers`` describes
    each layer of a program that has layers, when it was timed (a list of dictionaries, see
    :func:`vta_mlir.sim.layers.layer_figures`; empty otherwise).  ``host_steps`` lists the
    steps the host ran, in order: ``{"argument": name, "step": "quantize" | "dequantize",
    "seconds": wall time}`` for a quantized argument, ``{"step": "compute", "operation": name,
    "location": "file:line:col", "elements": n, "macs": m, "seconds": wall time}`` for a host
    step of the program (empty without any).  ``vta_macs`` counts the multiply-accumulates of
    the GEMM micro-ops VTA ran (``gemm_counter`` · BATCH · BLOCK_IN · BLOCK_OUT), ``host_macs``
    those of the contractions in host steps; :attr:`vta_mac_fraction` is the share of VTA.
    """

    counters: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTER_NAMES, 0))
    cycles: int | None = 0
    busy: dict[str, int] = field(default_factory=dict)
    utilisation: dict[str, float] = field(default_factory=dict)
    instructions: int = 0
    by_opcode: dict[str, int] = field(default_factory=dict)
    uop_words_loaded: int = 0
    runs: int = 0
    warnings: list[str] = field(default_factory=list)
    layers: list[dict[str, Any]] = field(default_factory=list)
    host_steps: list[dict[str, Any]] = field(default_factory=list)
    vta_macs: int = 0
    host_macs: int = 0

    @property
    def vta_mac_fraction(self) -> float:
        """The multiply-accumulates VTA ran over all of the call's (1.0 without any)."""
        total = self.vta_macs + self.host_macs
        return 1.0 if total == 0 else self.vta_macs / total

    def add(self, result: Any, prefix: str = "") -> None:
        """Accumulate one simulator ``RunResult`` (``prefix`` goes before its warnings)."""
        for name, value in dict(getattr(result, "counters", {}) or {}).items():
            self.counters[name] = self.counters.get(name, 0) + int(value)
        cycles = getattr(result, "cycles", None)
        if cycles is None or self.cycles is None:
            self.cycles = None
        else:
            self.cycles += int(cycles)
        for name, value in dict(getattr(result, "busy", {}) or {}).items():
            self.busy[name] = self.busy.get(name, 0) + int(value)
        self.instructions += int(getattr(result, "instructions", 0) or 0)
        for name, value in dict(getattr(result, "by_opcode", {}) or {}).items():
            self.by_opcode[str(name)] = self.by_opcode.get(str(name), 0) + int(value)
        self.uop_words_loaded += int(getattr(result, "uop_words_loaded", 0) or 0)
        self.warnings.extend(f"{prefix}{w}" for w in (getattr(result, "warnings", ()) or ()))
        self.runs += 1
        self._update_utilisation()

    def _update_utilisation(self) -> None:
        if self.cycles:
            self.utilisation = {m: b / self.cycles for m, b in self.busy.items()}
        else:
            self.utilisation = dict.fromkeys(self.busy, 0.0)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of every field."""
        return {
            "counters": dict(self.counters),
            "cycles": self.cycles,
            "busy": dict(self.busy),
            "utilisation": dict(self.utilisation),
            "instructions": self.instructions,
            "by_opcode": dict(self.by_opcode),
            "uop_words_loaded": self.uop_words_loaded,
            "runs": self.runs,
            "warnings": list(self.warnings),
            "layers": [dict(layer) for layer in self.layers],
            "host_steps": [dict(step) for step in self.host_steps],
            "vta_mac_fraction": self.vta_mac_fraction,
        }


def _host_step(spec: ArgSpec, step: str, function: Callable[[Any], np.ndarray], value: Any,
               steps: list[dict[str, Any]]) -> np.ndarray:
    """``function(value)``, a host step of ``spec`` (checking an input, quantizing it or
    dequantizing an output); timed and recorded in ``steps`` when ``spec`` is quantized."""
    if spec.quant is None:
        return function(value)
    start = time.perf_counter()
    result = function(value)
    steps.append({"argument": spec.name, "step": step,
                  "seconds": time.perf_counter() - start})
    return result


class Device:
    """A simulated VTA: its DRAM (physical addresses) and a simulator to run instructions on."""

    def __init__(self, cfg: VTAConfig | None = None, *, timing: bool = True) -> None:
        self.cfg = cfg if cfg is not None else VTAConfig.shipped("default")
        if not isinstance(self.cfg, VTAConfig):
            raise VTAError(f"Device needs a VTAConfig, got {type(cfg).__name__}")
        self.timing = timing
        self.sim = Simulator(self.cfg)
        self.last_run: RunStats | None = None
        self._modules: list[LoadedModule] = []

    @property
    def dram(self) -> Any:
        """The simulator's DRAM."""
        return self.sim.dram

    # ---- DRAM -------------------------------------------------------------------------------
    def alloc(self, nbytes: int) -> int:
        """Allocate ``nbytes`` of DRAM (whole 4 KiB pages); returns the physical address."""
        return int(self.dram.alloc(int(nbytes)))

    def free(self, phys: int) -> None:
        self.dram.free(int(phys))

    def write(self, phys: int, data: bytes | bytearray | memoryview | np.ndarray) -> None:
        """Copy the raw bytes of ``data`` to physical address ``phys``."""
        self.dram.write(int(phys), data)

    def read(self, phys: int, nbytes: int) -> np.ndarray:
        """``nbytes`` bytes at ``phys`` as a ``uint8`` array."""
        return np.asarray(self.dram.read(int(phys), int(nbytes)), dtype=np.uint8)

    # ---- execution --------------------------------------------------------------------------
    def run(self, insns: Sequence[Insn] | bytes | np.ndarray) -> RunStats:
        """Run one instruction stream (ending in FINISH) as it is; DRAM must be prepared."""
        stats = RunStats(cycles=0 if self.timing else None)
        stats.add(self.sim.run(insns, timing=self.timing))
        self.last_run = stats
        return stats

    def load_module(
        self, module: BinaryModule | bytes | bytearray | str | os.PathLike[str] | IO[bytes]
    ) -> LoadedModule:
        """Place ``module`` in DRAM at its linked addresses and return a callable handle.

        ``module`` may also be a ``.vtab`` image or file; it must target this device's hardware.
        Fails with a :class:`VTAError` if a segment's pages are already in use.
        """
        if isinstance(module, bytes | bytearray):
            module = from_bytes(module, self.cfg)
        elif not isinstance(module, BinaryModule):
            module = read_vtab(module, self.cfg)
        if not module.config.same_hardware(self.cfg):
            raise BinaryFormatError(
                f"module was built for {module.config.bitstream}, the device is "
                f"{self.cfg.bitstream}"
            )
        module.validate(encode=False)
        loaded = LoadedModule(self, module)
        self._modules.append(loaded)
        return loaded

    def unload_all(self) -> None:
        """Unload every module loaded on this device."""
        for mod in list(self._modules):
            mod.unload()


class LoadedModule:
    """A binary module resident in a device's DRAM; call it with numpy arrays."""

    def __init__(self, device: Device, module: BinaryModule) -> None:
        self.device = device
        self.module = module
        self.last_run: RunStats | None = None
        self._streams = module.run_streams()
        self._host = HostStepRunner(module.program.host_steps)
        self._uop_images = [(r.uop_base, r.uop_words.astype("<u4").tobytes())
                            for r in module.program.runs]
        self._placed: list[int] = []
        dram = device.dram
        try:
            for seg in sorted(module.program.segments, key=lambda s: s.phys):
                try:
                    dram.alloc_at(seg.phys, seg.nbytes)
                except VTAError as e:
                    raise VTAError(
                        f"cannot load module: segment '{seg.name}' at {seg.phys:#x} "
                        f"(+{seg.nbytes} bytes): {e}"
                    ) from None
                self._placed.append(seg.phys)
                if seg.data is not None:
                    dram.write(seg.phys, seg.data)
            self._write_uops(range(len(module.program.runs)))
        except BaseException:
            self._release()
            raise
        # Runs whose staging images overlap must have theirs rewritten before each run.
        spans = sorted((base, base + len(image)) for base, image in self._uop_images if image)
        self._restage = any(a[1] > b[0] for a, b in zip(spans, spans[1:], strict=False))

    # ---- signature --------------------------------------------------------------------------
    @property
    def args(self) -> list[ArgSpec]:
        return list(self.module.args)

    @property
    def inputs(self) -> list[ArgSpec]:
        return self.module.inputs

    @property
    def outputs(self) -> list[ArgSpec]:
        return self.module.outputs

    @property
    def loaded(self) -> bool:
        return self in self.device._modules

    def signature(self) -> str:
        """``(x: 1x64xint8, w: ...) -> (y: ...)``; a quantized argument shows the float32 the
        caller exchanges."""
        def one(a: ArgSpec) -> str:
            return f"{a.name}: {'x'.join(map(str, a.shape))}x{a.host_dtype}"
        ins = ", ".join(one(a) for a in self.inputs)
        outs = ", ".join(one(a) for a in self.outputs)
        return f"({ins}) -> ({outs})"

    # ---- calling ----------------------------------------------------------------------------
    def __call__(self, *arrays: Any, **named: Any) -> tuple[np.ndarray, ...]:
        """Run with the ``in``/``inout`` arrays in signature order (or all by name); returns
        the ``out``/``inout`` arrays in signature order."""
        if named:
            if arrays:
                raise ArgumentError("pass the inputs either all by position or all by name")
            return self.run(named)
        return self.run(list(arrays))

    def run(self, inputs: Mapping[str, Any] | Sequence[Any]) -> tuple[np.ndarray, ...]:
        """Run with inputs given by name (a mapping) or in signature order (a sequence)."""
        if not self.loaded:
            raise VTAError("module is not loaded (unload() was called)")
        specs = self.inputs
        if isinstance(inputs, Mapping):
            unknown = sorted(set(map(str, inputs)) - {a.name for a in specs})
            if unknown:
                raise ArgumentError(
                    f"unknown input(s) {', '.join(unknown)}; the module takes "
                    f"{self.signature()}"
                )
            missing = [a.name for a in specs if a.name not in inputs]
            if missing:
                raise ArgumentError(
                    f"missing input(s) {', '.join(missing)}; the module takes {self.signature()}"
                )
            values = [inputs[a.name] for a in specs]
        elif isinstance(inputs, Sequence) and not isinstance(inputs, str | bytes):
            if len(inputs) != len(specs):
                raise ArgumentError(
                    f"expected {len(specs)} input(s), got {len(inputs)}; the module takes "
                    f"{self.signature()}"
                )
            values = list(inputs)
        else:
            raise ArgumentError("inputs must be a sequence of arrays or a mapping of names")
        host_steps: list[dict[str, Any]] = []
        logical = {spec.name: _host_step(spec, "quantize", spec.quantize, value, host_steps)
                   for spec, value in zip(specs, values, strict=True)}
        # An argument read in two layouts is packed into its own buffer and its copies'.
        images = [(spec.phys, spec.pack_values(logical[spec.name])) for spec in specs]
        images += [(copy.phys, copy.pack_values(logical[copy.copy_of]))
                   for copy in self.module.copies]
        dram = self.device.dram
        for phys, image in images:
            dram.write(phys, image)
        stats = RunStats(cycles=0 if self.device.timing else None)
        timings = []
        self._host.run_after(0, self.device.read, dram.write, host_steps)
        for r, stream in enumerate(self._streams):
            if self._restage:
                self._write_uops([r])
            prefix = f"run {r}: " if len(self._streams) > 1 else ""
            result = self.device.sim.run(stream, timing=self.device.timing)
            timings.append(result.timing)
            stats.add(result, prefix)
            self._host.run_after(r + 1, self.device.read, dram.write, host_steps)
        if self.module.program.layers and all(t is not None for t in timings):
            stats.layers = self._layer_figures(timings)
        outputs = tuple(
            _host_step(spec, "dequantize", spec.dequantize,
                       spec.unpack_values(self.device.read(spec.phys, spec.packed_nbytes)),
                       host_steps)
            for spec in self.outputs)
        stats.host_steps = host_steps
        cfg = self.device.cfg
        stats.vta_macs = stats.counters.get("gemm_counter", 0) * cfg.batch * cfg.block_in \
            * cfg.block_out
        stats.host_macs = sum(int(s.get("macs", 0)) for s in host_steps)
        self.last_run = stats
        self.device.last_run = stats
        return outputs

    def _layer_figures(self, timings: Sequence[Any]) -> list[dict[str, Any]]:
        """Per-layer figures from each run's timing (runs timed back to back, as ``cycles``)."""
        start: list[int] = []
        end: list[int] = []
        offset = 0
        for t in timings:
            start.extend(s + offset for s in t.start)
            end.extend(e + offset for e in t.end)
            offset += int(t.cycles)
        return layer_figures(self.module.program, start, end, self.device.cfg)

    # ---- lifetime ---------------------------------------------------------------------------
    def unload(self) -> None:
        """Free the module's DRAM; the handle cannot be called afterwards."""
        if self in self.device._modules:
            self.device._modules.remove(self)
        self._release()

    def __enter__(self) -> LoadedModule:
        return self

    def __exit__(self, *exc: object) -> None:
        self.unload()

    def _release(self) -> None:
        placed, self._placed = self._placed, []
        for phys in placed:
            self.device.dram.free(phys)

    def _write_uops(self, runs: Sequence[int] | range) -> None:
        for r in runs:
            base, image = self._uop_images[r]
            if image:
                self.device.dram.write(base, image)
