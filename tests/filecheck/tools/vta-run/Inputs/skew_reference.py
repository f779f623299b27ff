"""Pass plugin for ``check.mlir``: registers a pass that changes nothing and makes the numpy
reference evaluator add one to the sixth element of the function's last argument, so that
``vta-run --check`` has a mismatch to report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

import vta_mlir.reference
from vta_mlir.passes import register_pass

_original = vta_mlir.reference.run_function


def _skewed(f: Any, arrays: Any) -> None:
    _original(f, arrays)
    arrays[-1].reshape(-1)[5] += 1


vta_mlir.reference.run_function = _skewed


@register_pass
@dataclass(frozen=True)
class SkewReferencePass(ModulePass):
    name = "test-skew-reference"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pass
