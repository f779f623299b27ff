"""The results a sweep keeps in its output folder, so that a rerun computes only what is
missing and an interrupted sweep continues where it stopped.

Each computed point is one small JSON file, ``DIR/points/<key>.json``, written atomically
(:mod:`vta_mlir.atomic_write`) as soon as the point completes. Its key is the SHA-256 of the
model's bytes, the whole configuration (the 11 keys and every timing parameter), the seed of
the random inputs and the version of vta-mlir: the same model and configuration give the same
key whichever space, name or folder they come from, and any change to one of them (or a new
compiler) computes the point again. The file holds the point's result (the keys of
:data:`vta_mlir.explore.point.RESULT_KEYS`) next to what it was computed from.

A file that cannot be read, or that holds something else, counts as missing.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vta_mlir import __version__
from vta_mlir.atomic_write import write_text
from vta_mlir.config import VTAConfig
from vta_mlir.errors import VTAError
from vta_mlir.explore.point import RESULT_KEYS

__all__ = ["POINTS_FOLDER", "PointCache", "config_identity", "model_digest", "point_key"]

#: The folder of the output directory that holds one JSON file per computed point.
POINTS_FOLDER = "points"


def model_digest(model: bytes) -> str:
    """The SHA-256 of a model file's bytes, in hexadecimal."""
    return hashlib.sha256(model).hexdigest()


def config_identity(cfg: VTAConfig) -> dict[str, Any]:
    """Everything of a configuration that can change a result: its 11 keys and all its timing
    parameters (defaults included, so that equal configurations give equal keys)."""
    return {**cfg.to_dict(with_timing=False), "timing": cfg.timing.to_dict()}


def point_key(digest: str, cfg: VTAConfig, seed: int, function: str | None = None) -> str:
    """The key of a point: the SHA-256 of the model's digest, the configuration, the seed, the
    version of vta-mlir and, when one is chosen, the model's function compiled."""
    identity: dict[str, object] = {
        "model_sha256": digest,
        "config": config_identity(cfg),
        "seed": seed,
        "version": __version__,
    }
    if function is not None:
        # Only when given, so that the keys of the points computed without one stay the same.
        identity["function"] = function
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()


class PointCache:
    """The computed points of an output folder, by key."""

    def __init__(self, out_dir: str | os.PathLike[str]) -> None:
        self.folder = Path(out_dir) / POINTS_FOLDER

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def load(self) -> dict[str, dict[str, Any]]:
        """The results of every readable point file, by key."""
        found: dict[str, dict[str, Any]] = {}
        if not self.folder.is_dir():
            return found
        for path in sorted(self.folder.glob("*.json")):
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
                continue
            result = record.get("result") if isinstance(record, Mapping) else None
            if (
                isinstance(record, Mapping)
                and record.get("key") == path.stem
                and isinstance(result, Mapping)
                and set(result) == set(RESULT_KEYS)
            ):
                found[path.stem] = dict(result)
        return found

    def store(
        self,
        key: str,
        result: Mapping[str, Any],
        *,
        model: str,
        digest: str,
        cfg: VTAConfig,
        seed: int,
    ) -> None:
        """Keep the ``result`` of the point ``key`` (computed for the model named ``model``
        with the bytes of ``digest``, on ``cfg`` with ``seed``)."""
        record = {
            "key": key,
            "model": model,
            "model_sha256": digest,
            "config": config_identity(cfg),
            "seed": seed,
            "version": __version__,
            "result": {k: result.get(k) for k in RESULT_KEYS},
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_text(self.path(key), json.dumps(record, indent=1, sort_keys=True) + "\n")
        except OSError as exc:
            raise VTAError(f"cannot write '{self.path(key)}': {exc.strerror or exc}") from None
