"""The statistics of a run as JSON, and the figures derived from them.

* :func:`stats_json` — the object ``vta-run --stats`` writes (its keys but ``requant``, which
  describes the compilation): counters, instructions, cycles, busy cycles per module, the
  per-layer figures, the device DRAM of the temporaries and the host steps;
* :func:`dram_bytes` — the data bytes a run moved between DRAM and the SRAMs, counted on the
  DRAM side and without the micro-op traffic (what ``benchmarks/resnet18_network.py`` and
  ``vta-explore`` report);
* :func:`temporaries_bytes`, :func:`staging_segments`, :func:`layer_dram_bytes` — the parts
  those are made of.

``vta-run`` (``tools/vta_run_io.py``), the benchmarks and :mod:`vta_mlir.explore` all take
their figures from here, so that the same run gives the same numbers everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import TYPE_CHECKING, Any

from vta_mlir.program import COUNTER_NAMES

if TYPE_CHECKING:
    from vta_mlir.binary import BinaryModule

__all__ = [
    "DRAM_COUNTERS",
    "MODULES",
    "dram_bytes",
    "layer_dram_bytes",
    "staging_segments",
    "stats_json",
    "temporaries_bytes",
]

#: Module names of the ``busy`` object.
MODULES: tuple[str, ...] = ("load", "compute", "store")
#: The counters of data moved between DRAM and the SRAMs (micro-op loads are not data).
DRAM_COUNTERS: tuple[str, ...] = (
    "inp_load_nbytes",
    "wgt_load_nbytes",
    "acc_load_nbytes",
    "out_store_nbytes",
)


def temporaries_bytes(binary: BinaryModule) -> int:
    """The device DRAM of the program's temporaries — the intermediate activations of a
    network, placed by lifetime in one scratch segment (``vta_mlir/host/dram_reuse.py``): the
    peak of what is live at once, 0 without any."""
    from vta_mlir.host.layout import TEMPORARIES_SEGMENT

    args = {a.name for a in binary.args}
    return sum(
        s.nbytes
        for s in binary.program.segments
        if s.name == TEMPORARIES_SEGMENT and s.data is None and s.name not in args
    )


def stats_json(stats: Any, binary: BinaryModule | None = None) -> dict[str, Any]:
    """The ``--stats`` object of a :class:`~vta_mlir.runtime.device.RunStats`; with the
    ``binary`` that ran, also its ``temporaries_bytes`` and the call's ``host_steps``."""
    busy = {m: int(stats.busy.get(m, 0)) for m in MODULES}
    extra: dict[str, Any] = {}
    if binary is not None:
        extra["temporaries_bytes"] = temporaries_bytes(binary)
        extra["host_steps"] = [dict(step) for step in getattr(stats, "host_steps", [])]
        extra["vta_mac_fraction"] = float(getattr(stats, "vta_mac_fraction", 1.0))
    return {
        "counters": {k: int(stats.counters.get(k, 0)) for k in COUNTER_NAMES},
        "instructions": int(stats.instructions),
        "by_opcode": {str(k): int(v) for k, v in sorted(stats.by_opcode.items())},
        "uop_words_loaded": int(stats.uop_words_loaded),
        "runs": int(stats.runs),
        "cycles": None if stats.cycles is None else int(stats.cycles),
        "busy": busy,
        "layers": [dict(layer) for layer in getattr(stats, "layers", [])],
        **extra,
    }


def staging_segments(binary: BinaryModule) -> set[str]:
    """The names of the binary's micro-op staging segments: micro-op traffic is not data
    traffic."""
    from vta_mlir.host.lowering import STAGING_SEGMENT

    args = {a.name for a in binary.args}
    return {
        s.name
        for s in binary.program.segments
        if s.name.startswith(STAGING_SEGMENT) and s.data is None and s.name not in args
    }


def layer_dram_bytes(entry: Mapping[str, Any], staging: Set[str] = frozenset()) -> int | None:
    """A layer's DRAM bytes read and written (an entry of the ``layers`` of
    :func:`stats_json`), the segments named in ``staging`` left out; None when the entry has
    no ``dram_bytes``."""
    value = entry.get("dram_bytes")
    if isinstance(value, Mapping):
        return sum(
            int(v["read"]) + int(v["written"]) if isinstance(v, Mapping) else int(v)
            for seg, v in value.items()
            if seg not in staging
        )
    return None if value is None else int(value)


def dram_bytes(stats: Mapping[str, Any], staging: Set[str] = frozenset()) -> int:
    """The data bytes the run of ``stats`` (a :func:`stats_json` object) moved between DRAM
    and the SRAMs, counted on the DRAM side: the layers' per-segment bytes without the
    ``staging`` segments (:func:`staging_segments`) when the run has layers, else the load and
    store counters (which count an int8 load into the accumulator at its SRAM width)."""
    layers = stats.get("layers")
    if layers:
        return sum(layer_dram_bytes(entry, staging) or 0 for entry in layers)
    return sum(int(stats["counters"][c]) for c in DRAM_COUNTERS)
