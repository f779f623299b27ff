"""The modules of ``examples/networks/`` and ``benchmarks/`` the network tests use.

Neither directory is a package: their modules are imported from the directories, with
``benchmarks/`` first (the generator scripts are loaded from their files, since
``benchmarks/resnet18.py`` is another module ``resnet18``).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NETWORKS = ROOT / "examples" / "networks"
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))
if str(NETWORKS) not in sys.path:  # after benchmarks/, whose resnet18.py is `resnet18`
    sys.path.append(str(NETWORKS))

import numpy_model as nm  # noqa: E402
import resnet18_network as bench  # noqa: E402
from builder import Builder, avgpool_constants  # noqa: E402
from generated import Generated, render, write_npy  # noqa: E402
from network_mlir import POOL_FORMS, WEIGHT_FORMS, layer_inputs, layer_mlir  # noqa: E402

__all__ = ["NETWORKS", "POOL_FORMS", "ROOT", "WEIGHT_FORMS", "Builder", "Generated",
           "avgpool_constants", "bench", "layer_inputs", "layer_mlir", "nm", "render",
           "resnet18", "small_cnn", "write_npy"]

resnet18 = bench.load_generator("resnet18")
small_cnn = bench.load_generator("small_cnn")
