"""The design space of a sweep: ``SPACE.json`` read into the configurations to try.

Two forms (``docs/explore.md``):

* **axes** — keys of ``vta_config.json`` (``LOG_BLOCK``, ``LOG_ACC_BUFF_SIZE``, ...) or
  cycle-model parameters spelled ``timing.<name>`` (``timing.dma_latency``, the keys of the
  configuration's ``timing`` object), each with the list of values to try: the points are the
  cartesian product of the lists, applied over the default configuration, in the order of the
  file (the last axis varies fastest). A point is named after its values,
  ``LOG_BLOCK=5,LOG_BATCH=0``.
* **configs** — ``{"configs": ["default", "block32", "path/to/config.json"]}``: shipped
  configuration names or ``vta_config.json`` files (relative to the space file's folder), each
  a point named after it (a file by its stem).

A malformed space — not JSON, an unknown axis, an empty list, a value of the wrong type, a
repeated value or name — is a :class:`SpaceError`, reported before anything runs. A point whose
configuration the hardware rules forbid (``LOG_BLOCK = 7``, an SRAM of less than one element,
an instruction field that no longer fits) is no error of the space: it is a point with the
rule it breaks as its ``invalid_reason``, and becomes an ``invalid-config`` row.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from vta_mlir.config import CONFIG_KEYS, SHIPPED_CONFIGS, TimingParams, VTAConfig
from vta_mlir.errors import ConfigError, VTAError

__all__ = [
    "CONFIGS_KEY",
    "TIMING_PREFIX",
    "Point",
    "Space",
    "SpaceError",
    "axis_names",
    "load_space",
    "parse_space",
]

#: The key of the list form.
CONFIGS_KEY = "configs"
#: How an axis names a parameter of the configuration's ``timing`` object.
TIMING_PREFIX = "timing."
#: Keys of ``vta_config.json`` whose values are strings; every other key takes integers.
_STRING_KEYS = frozenset({"TARGET", "HW_VER"})
#: Timing parameters that take any positive number rather than an integer.
_REAL_TIMING = frozenset({"clock_mhz"})


class SpaceError(VTAError):
    """A malformed space file: the sweep cannot start."""


@dataclass(frozen=True)
class Point:
    """One configuration of the space: its name, its value on each axis (none in the
    ``configs`` form), and the configuration — or, when the hardware rules forbid it, the rule
    it breaks."""

    name: str
    values: tuple[tuple[str, Any], ...]
    config: VTAConfig | None
    invalid_reason: str | None = None


@dataclass(frozen=True)
class Space:
    """The points of a sweep, in order, and the axes they vary (empty in the ``configs``
    form)."""

    axes: tuple[str, ...]
    points: tuple[Point, ...]
    description: str


def axis_names() -> tuple[str, ...]:
    """Every name an axis may have: the keys of ``vta_config.json``, then the timing
    parameters."""
    timing = tuple(f"{TIMING_PREFIX}{f.name}" for f in fields(TimingParams))
    return (*CONFIG_KEYS, *timing)


def load_space(path: str | os.PathLike[str]) -> Space:
    """The space of the file ``path`` (configuration files it names are relative to its
    folder)."""
    where = Path(path)
    try:
        text = where.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise SpaceError(f"cannot read the space file '{where}': {reason}") from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SpaceError(f"{where}: not valid JSON: {exc}") from None
    return parse_space(data, source=str(where), folder=where.parent)


def parse_space(
    data: Any, *, source: str = "space", folder: str | os.PathLike[str] | None = None
) -> Space:
    """The space of a decoded ``SPACE.json`` object; configuration files are relative to
    ``folder`` (the current directory when ``None``)."""
    if not isinstance(data, Mapping) or not data:
        raise SpaceError(
            f"{source}: expected a JSON object of axes with the values to try, e.g. "
            '{"LOG_BLOCK": [4, 5]}, or {"configs": [...]}'
        )
    if CONFIGS_KEY in data:
        others = sorted(str(k) for k in data if k != CONFIGS_KEY)
        if others:
            raise SpaceError(
                f"{source}: a space lists either configurations ('{CONFIGS_KEY}') or axes, "
                f"not both (found {', '.join(others)})"
            )
        return _configs_space(data[CONFIGS_KEY], source, Path(folder or "."))
    return _axes_space(data, source)


# --------------------------------------------------------------------------------------------
# The axes form


def _check_value(source: str, axis: str, value: Any) -> None:
    """A value of the right JSON type for ``axis`` (its range is the configuration's rule)."""
    if axis in _STRING_KEYS:
        if not isinstance(value, str):
            raise SpaceError(f"{source}: axis {axis}: expected strings, got {value!r}")
        return
    name = axis.removeprefix(TIMING_PREFIX)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpaceError(f"{source}: axis {axis}: expected numbers, got {value!r}")
    if isinstance(value, float) and name not in _REAL_TIMING:
        raise SpaceError(f"{source}: axis {axis}: expected integers, got {value!r}")


def _axis_values(source: str, axis: Any, values: Any) -> list[Any]:
    known = axis_names()
    if not isinstance(axis, str) or axis not in known:
        raise SpaceError(f"{source}: unknown axis {axis!r} (axes: {', '.join(known)})")
    if not isinstance(values, list):
        raise SpaceError(f"{source}: axis {axis}: expected a list of values, got {values!r}")
    if not values:
        raise SpaceError(f"{source}: axis {axis}: the list of values is empty")
    for value in values:
        _check_value(source, axis, value)
    repeated = [v for i, v in enumerate(values) if v in values[:i]]
    if repeated:
        raise SpaceError(f"{source}: axis {axis}: the value {repeated[0]!r} is listed twice")
    return values


def _configuration(name: str, values: Sequence[tuple[str, Any]]) -> Point:
    """The point of ``values`` over the default configuration."""
    base = VTAConfig.shipped("default")
    keys = base.to_dict(with_timing=False)
    timing = base.timing.to_dict()
    for axis, value in values:
        if axis.startswith(TIMING_PREFIX):
            timing[axis.removeprefix(TIMING_PREFIX)] = value
        else:
            keys[axis] = value
    try:
        config = VTAConfig.from_dict({**keys, "timing": timing}, source=name)
    except ConfigError as exc:
        return Point(name, tuple(values), None, str(exc).removeprefix(f"{name}: "))
    return Point(name, tuple(values), config)


def _axes_space(data: Mapping[Any, Any], source: str) -> Space:
    axes = {axis: _axis_values(source, axis, values) for axis, values in data.items()}
    points = []
    for combination in itertools.product(*axes.values()):
        values = tuple(zip(axes, combination, strict=True))
        name = ",".join(f"{axis}={value}" for axis, value in values)
        points.append(_configuration(name, values))
    sizes = " × ".join(f"{axis} ({len(v)})" for axis, v in axes.items())
    return Space(tuple(axes), tuple(points), f"{sizes} over the default configuration")


# --------------------------------------------------------------------------------------------
# The configs form


def _listed_config(source: str, entry: str, folder: Path) -> Point:
    """A shipped configuration by name, else a configuration file; a file that cannot be read
    or is not JSON is a malformed space, one the rules forbid an invalid point."""
    if entry in SHIPPED_CONFIGS and not (folder / entry).exists():
        return Point(entry, (), VTAConfig.shipped(entry))
    path = folder / entry
    name = Path(entry).stem
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise SpaceError(
            f"{source}: configuration {entry!r} is neither a shipped configuration "
            f"({', '.join(SHIPPED_CONFIGS)}) nor a readable file: {reason}"
        ) from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SpaceError(f"{source}: configuration file '{path}': not valid JSON: {exc}") from None
    try:
        return Point(name, (), VTAConfig.from_dict(data, source=name))
    except ConfigError as exc:
        return Point(name, (), None, str(exc).removeprefix(f"{name}: "))


def _configs_space(entries: Any, source: str, folder: Path) -> Space:
    if not isinstance(entries, list):
        raise SpaceError(
            f"{source}: '{CONFIGS_KEY}' must be a list of configuration names or files, "
            f"got {entries!r}"
        )
    if not entries:
        raise SpaceError(f"{source}: the list '{CONFIGS_KEY}' is empty")
    points: list[Point] = []
    for entry in entries:
        if not isinstance(entry, str) or not entry:
            raise SpaceError(
                f"{source}: '{CONFIGS_KEY}' lists configuration names or files, got {entry!r}"
            )
        point = _listed_config(source, entry, folder)
        if any(p.name == point.name for p in points):
            raise SpaceError(
                f"{source}: two configurations are named '{point.name}' (a file is named "
                "by its stem)"
            )
        points.append(point)
    return Space((), tuple(points), f"{len(points)} listed configurations")
