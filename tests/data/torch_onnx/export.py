"""Small PyTorch models exported by ``torch.onnx.export`` to float ONNX files, for
``tests/test_onnx_torch_exported.py`` (which quantizes them with onnxruntime's
``quantize_static`` and runs them through ``vta-import-onnx``).  torch is not a dependency of
the project: the committed ``.onnx`` files are this script's output (``README.md`` gives the
commands and the versions).

    python tests/data/torch_onnx/export.py [--out DIR] [--resnet18 PATH [--exporter E]]

writes ``<model>.opset<N>.<exporter>.onnx`` for every model and opset below and both exporters
(eval mode: each batch norm is folded into the convolution before it) and, with
``--resnet18``, a ResNet-18 at 224×224 (1000 classes, about 45 MB: not committed) to ``PATH``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

HERE = Path(__file__).resolve().parent


def _randomize_batch_norms(model: nn.Module, generator: torch.Generator) -> None:
    """Give every batch norm statistics and an affine transform that are not the identity (a
    freshly built one would fold to nothing)."""
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            n = module.num_features
            with torch.no_grad():
                module.running_mean.copy_(torch.randn(n, generator=generator) * 0.1)
                module.running_var.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
                module.weight.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
                module.bias.copy_(torch.randn(n, generator=generator) * 0.1)


class Dense(nn.Module):
    """One fully connected layer (``nn.Linear``)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(40, 24)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


class ConvBnRelu(nn.Module):
    """A padded, strided 3×3 convolution without bias, a batch norm and a ReLU."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu(self.bn(self.conv(x)))


class SmallCnn(nn.Module):
    """conv/BN/ReLU, max-pool, conv/BN/ReLU, adaptive average pool to 1×1, flatten, linear."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(3, stride=2, padding=1),
            nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


class BasicBlock(nn.Module):
    """torchvision's ResNet basic block: two 3×3 conv/BN (the first strided), and a 1×1
    strided conv/BN shortcut when the shape changes; added, then ReLU."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample: nn.Module | None = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                            nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + identity)


class ResidualBlock(nn.Module):
    """A stem conv/BN/ReLU, then a basic block with a downsampling shortcut."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU())
        self.block = BasicBlock(16, 32, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.block(self.stem(x))


def torchvision_init(model: nn.Module) -> None:
    """torchvision's ResNet initialisation: He normal (fan out) convolutions, batch norms at
    weight 1 and bias 0 (and fresh statistics: mean 0, variance 1)."""
    for module in model.modules():
        if isinstance(module, nn.Conv2d):
            nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
        elif isinstance(module, nn.BatchNorm2d):
            nn.init.constant_(module.weight, 1)
            nn.init.constant_(module.bias, 0)


class TwoBlocks(nn.Module):
    """A stem conv/BN/ReLU and two basic blocks of its width at torchvision's initialisation:
    every folded bias is 0, and the torchscript exporter's constant folding shares one such
    initializer among the convolutions through ``Identity`` nodes, as in a ResNet-18."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU())
        self.blocks = nn.Sequential(BasicBlock(16, 16, 1), BasicBlock(16, 16, 1))
        torchvision_init(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.blocks(self.stem(x))


class ResNet18(nn.Module):
    """torchvision's ResNet-18 (written out: torchvision is not needed), with its
    initialisation (:func:`torchvision_init`)."""

    def __init__(self, classes: int = 1000) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        layers = []
        cin = 64
        for stage, cout in enumerate((64, 128, 256, 512)):
            stride = 1 if stage == 0 else 2
            layers.append(nn.Sequential(BasicBlock(cin, cout, stride),
                                        BasicBlock(cout, cout, 1)))
            cin = cout
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512, classes)
        torchvision_init(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


#: name -> (constructor, input shape, opsets exported, batch norms randomized)
MODELS: dict[str, tuple[Callable[[], nn.Module], tuple[int, ...], tuple[int, ...], bool]] = {
    "dense": (Dense, (2, 40), (13, 17, 21), False),
    "conv_bn_relu": (ConvBnRelu, (1, 3, 10, 10), (17,), True),
    "small_cnn": (SmallCnn, (1, 3, 12, 12), (17,), True),
    "residual_block": (ResidualBlock, (1, 3, 8, 8), (17,), True),
    "two_blocks": (TwoBlocks, (1, 3, 8, 8), (17,), False),
}


#: The two exporters of ``torch.onnx.export``: ``dynamo`` (``torch.export``, the default since
#: torch 2.9) and ``torchscript`` (the earlier one, ``dynamo=False``).
EXPORTERS = ("dynamo", "torchscript")


def export(model: nn.Module, shape: tuple[int, ...], opset: int, path: Path,
           exporter: str) -> None:
    """``model`` in eval mode exported to ``path`` (input ``x``, output ``y``, static shapes,
    the weights inside the file)."""
    model.eval()
    args = (torch.randn(*shape),)
    if exporter == "dynamo":
        torch.onnx.export(model, args, str(path), input_names=["x"], output_names=["y"],
                          opset_version=opset, dynamo=True, external_data=False)
    else:
        torch.onnx.export(model, args, str(path), input_names=["x"], output_names=["y"],
                          opset_version=opset, dynamo=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder of the small models")
    parser.add_argument("--resnet18", type=Path, help="also export ResNet-18 (224x224) here")
    parser.add_argument("--exporter", choices=EXPORTERS, default="dynamo",
                        help="the exporter of the ResNet-18 (the small models: both)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name, (build, shape, opsets, randomize) in MODELS.items():
        for opset in opsets:
            for exporter in EXPORTERS:
                torch.manual_seed(args.seed)
                model = build()
                if randomize:
                    _randomize_batch_norms(model, torch.Generator().manual_seed(args.seed))
                export(model, shape, opset, args.out / f"{name}.opset{opset}.{exporter}.onnx",
                       exporter)
    if args.resnet18:
        torch.manual_seed(args.seed)
        export(ResNet18(), (1, 3, 224, 224), 17, args.resnet18, args.exporter)


if __name__ == "__main__":
    main()
