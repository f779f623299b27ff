"""ResNet-18 (batch 1, NCHW, int8, 1000 classes) as one upstream-MLIR function, with random
weights and power-of-two requantization calibrated on a random input.

The layers, in torchvision's names: ``conv1`` (7×7, stride 2, pad 3, 3 → 64) with bias and
ReLU; ``maxpool`` (3×3, stride 2, pad 1, padded with -128); four stages ``layer1`` …
``layer4`` of two basic blocks each (3×3 convolutions; the first block of stages 2–4 has
stride 2 and a 1×1 stride-2 ``downsample`` convolution on its shortcut), the residual added in
the second convolution's epilogue before its ReLU; ``avgpool`` (global, ``(sum · m) >> s``);
``fc`` (512 → 1000, K×N weights, bias and shift) into the ``1x1000xi8`` output argument.

Usage::

    python examples/networks/resnet18.py -o resnet18.mlir [--weights args|globals]
                                         [--pool nchw11|nc] [--epilogue bias-shift|shift-bias]
                                         [--size 224] [--seed N] [--npy-dir DIR]

``--pool nc`` writes ``avgpool`` as a reduction straight into ``1x512`` (maps
``(n, c, h, w) -> (n, c)``), which ``fc`` reads without a ``memref.collapse_shape``.
``--epilogue shift-bias`` adds the bias of every convolution and of ``fc`` after the shift,
``(acc >> s) + b`` with the bias in output units, as hand-written models often do.

From Python, :func:`generate` returns the text with the network (weights, biases, shifts)
and the input it was calibrated on; :func:`build` the network alone.
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

__all__ = ["CLASSES", "STAGES", "build", "generate"]

#: Output channels of the four stages.
STAGES = (64, 128, 256, 512)
CLASSES = 1000


def build(size: int = 224, seed: int = 0,
          epilogue: str = EPILOGUES[0]) -> tuple[Network, np.ndarray]:
    """The calibrated network for ``size × size`` inputs and the random input it was
    calibrated on (both drawn from ``numpy.random.default_rng(seed)``); its convolutions and
    ``fc`` add their bias before or after the shift (``epilogue``)."""
    if size < 32:
        raise ValueError(f"ResNet-18 takes inputs of at least 32x32, not {size}x{size}")
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 127, size=(1, 3, size, size), endpoint=True, dtype=np.int8)
    b = Builder("resnet18", x, rng, epilogue)
    act = b.conv("conv1", INPUT, STAGES[0], 7, stride=2, pad=3)
    act = b.maxpool("maxpool", act, 3, stride=2, pad=1, pad_value=-128)
    channels = STAGES[0]
    for stage, width in enumerate(STAGES, start=1):
        for block in range(2):
            stride = 2 if stage > 1 and block == 0 else 1
            prefix = f"layer{stage}.{block}"
            hidden = b.conv(f"{prefix}.conv1", act, width, 3, stride=stride, pad=1)
            shortcut = act
            if stride != 1 or channels != width:
                shortcut = b.conv(f"{prefix}.downsample", act, width, 1, stride=stride,
                                  relu=False)
            act = b.conv(f"{prefix}.conv2", hidden, width, 3, pad=1, residual=shortcut)
            channels = width
    act = b.avgpool("avgpool", act)
    b.dense("fc", act, CLASSES)
    return b.network, x


def generate(size: int = 224, seed: int = 0, weights: str = "globals",
             pool: str = "nchw11", epilogue: str = EPILOGUES[0]) -> Generated:
    """The MLIR text (weights as ``"args"`` or ``"globals"``, the global average pool into
    N×C×1×1 or N×C: ``pool``, the bias before or after the shift: ``epilogue``), the network
    and its input."""
    network, x = build(size, seed, epilogue)
    command = (f"python examples/networks/resnet18.py --weights {weights} --size {size} "
               f"--seed {seed}" + ("" if pool == "nchw11" else f" --pool {pool}")
               + ("" if epilogue == EPILOGUES[0] else f" --epilogue {epilogue}"))
    return render(network, x, weights, command, pool)


if __name__ == "__main__":
    sys.exit(main(__doc__.split("\n\n")[0], generate, 224))
