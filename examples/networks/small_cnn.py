"""A small int8 CNN with the kinds of ops of ResNet-18, for fast end-to-end tests.

``1x16x16x16`` input; ``conv1`` 3×3 pad 1 + ReLU; ``maxpool`` 3×3 stride 2 pad 1 (padded with
-128); a basic residual block (``block1.conv1``, ``block1.conv2`` + the pooled activation); a
downsampling block (``block2.conv1`` 3×3 stride 2 to 32 channels, ``block2.downsample`` 1×1
stride 2 on the shortcut, ``block2.conv2`` + the shortcut); ``avgpool`` (global); ``fc`` 32 →
10 into the ``1x10xi8`` output. ``--epilogue shift-bias`` adds each bias after the shift,
``(acc >> s) + b``.

``small_cnn.mlir`` (weights as arguments) and ``small_cnn_globals.mlir`` (weights as
``memref.global`` constants) in this folder are this script's output for seed 0; rewrite
them with ``python examples/networks/small_cnn.py --write-examples``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# Appended, not prepended: benchmarks/resnet18.py is the module `resnet18` where both are on
# the path.
if str(HERE) not in sys.path:
    sys.path.append(str(HERE))

from builder import Builder  # noqa: E402
from generated import Generated, main, render  # noqa: E402
from numpy_model import EPILOGUES, INPUT, Network  # noqa: E402

__all__ = ["EXAMPLES", "build", "generate"]

#: The committed files, by weight form.
EXAMPLES = {"args": HERE / "small_cnn.mlir", "globals": HERE / "small_cnn_globals.mlir"}


def build(seed: int = 0, epilogue: str = EPILOGUES[0]) -> tuple[Network, np.ndarray]:
    """The calibrated network and its random input (``numpy.random.default_rng(seed)``); its
    convolutions and ``fc`` add their bias before or after the shift (``epilogue``)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 127, size=(1, 16, 16, 16), endpoint=True, dtype=np.int8)
    b = Builder("small_cnn", x, rng, epilogue)
    act = b.conv("conv1", INPUT, 16, 3, pad=1)
    pooled = b.maxpool("maxpool", act, 3, stride=2, pad=1, pad_value=-128)
    hidden = b.conv("block1.conv1", pooled, 16, 3, pad=1)
    act = b.conv("block1.conv2", hidden, 16, 3, pad=1, residual=pooled)
    hidden = b.conv("block2.conv1", act, 32, 3, stride=2, pad=1)
    shortcut = b.conv("block2.downsample", act, 32, 1, stride=2, relu=False)
    act = b.conv("block2.conv2", hidden, 32, 3, pad=1, residual=shortcut)
    act = b.avgpool("avgpool", act)
    b.dense("fc", act, 10)
    return b.network, x


def generate(seed: int = 0, weights: str = "globals", pool: str = "nchw11",
             epilogue: str = EPILOGUES[0]) -> Generated:
    """The MLIR text (weights as ``"args"`` or ``"globals"``, the global average pool into
    N×C×1×1 or N×C: ``pool``, the bias before or after the shift: ``epilogue``), the network
    and its input."""
    network, x = build(seed, epilogue)
    command = (f"python examples/networks/small_cnn.py --weights {weights} --seed {seed}"
               + ("" if pool == "nchw11" else f" --pool {pool}")
               + ("" if epilogue == EPILOGUES[0] else f" --epilogue {epilogue}"))
    return render(network, x, weights, command, pool)


def write_examples() -> None:
    """Rewrite the committed examples (seed 0)."""
    for weights, path in EXAMPLES.items():
        path.write_text(generate(0, weights).text)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-examples"]:
        write_examples()
        sys.exit(0)
    sys.exit(main(__doc__.split("\n\n")[0], generate, None))
