"""The steps of ``vta-pack``'s plans: the ops of the stage-1 normal form of each VTA region
(``docs/pipeline.md``), before anything is rewritten (``passes/pack/plan.py`` makes them,
``passes/pack/__init__.py`` emits them)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import BlockArgument, Operation, Region

from vta_mlir.isa import AluKind
from vta_mlir.passes.pack.expr import HostStepBuffers
from vta_mlir.passes.pack.match_conv import Padding
from vta_mlir.passes.pack.match_pool import Pool
from vta_mlir.passes.pack.match_resize import Resize

__all__ = [
    "AccBuffer",
    "AluStep",
    "BatchLoop",
    "Contract",
    "EndBatchLoop",
    "Fill",
    "FreePadded",
    "Init",
    "NewAcc",
    "PadData",
    "PaddedData",
    "PoolStep",
    "ResizeStep",
    "RunHost",
    "Step",
    "Store",
]


@dataclass(eq=False)
class AccBuffer:
    """A packed i32 accumulator of a ``rows × cols`` or ``N × O × H × W`` result."""

    shape: tuple[int, ...]
    name: str

    @property
    def cols(self) -> int:
        """The columns of a matrix, the channels of a tensor: what a bias runs along."""
        return self.shape[1]


@dataclass
class Step:
    """One op of a region; ``source`` gives it its location."""

    source: Operation


@dataclass
class RunHost(Step):
    """A host step, in its place among the regions (``passes/pack/host_steps.py``), with a
    copy of its body (the function's ops are erased before the steps are emitted)."""

    step: HostStepBuffers
    body: Region


@dataclass
class NewAcc(Step):
    acc: AccBuffer


@dataclass
class Fill(Step):
    acc: AccBuffer


@dataclass
class Init(Step):
    acc: AccBuffer
    arg: BlockArgument
    broadcast: bool


@dataclass(eq=False)
class PaddedData:
    """A zero-padded copy of the packed convolution data ``arg``: ``pads`` rows and columns
    (top, bottom, left, right) around it; ``source`` the stage-0 idiom it comes from."""

    arg: BlockArgument
    source: Padding

    @property
    def pads(self) -> tuple[int, int, int, int]:
        return self.source.pads


@dataclass
class PadData(Step):
    """Allocate the padded buffer, fill it with 0, copy the argument into its interior."""

    data: PaddedData


@dataclass
class FreePadded(Step):
    data: PaddedData


@dataclass
class Contract(Step):
    acc: AccBuffer
    act: BlockArgument
    wgt: BlockArgument
    #: The strides of a convolution; None for a matrix contraction.
    strides: tuple[int, int] | None = None
    #: The zero-padded copy of ``act`` a convolution reads instead of ``act``.
    padded: PaddedData | None = None
    #: A depthwise convolution: ``wgt`` is block-diagonal, one input block per output block
    #: (``passes/pack/depthwise.py``).
    depthwise: bool = False


@dataclass
class PoolStep(Step):
    """The pooling ``pool`` into ``acc`` (``passes/pack/match_pool.py``) of ``act`` (its
    argument, or a copy of it in the pooling's layout), reading ``padded`` instead when the
    data is padded."""

    acc: AccBuffer
    pool: Pool
    act: BlockArgument
    padded: PaddedData | None = None


@dataclass
class ResizeStep(Step):
    """The nearest upsampling ``resize`` into ``acc`` of ``act`` (in the pooling's layout,
    ``passes/pack/match_resize.py``)."""

    acc: AccBuffer
    resize: Resize
    act: BlockArgument


@dataclass
class AluStep(Step):
    acc: AccBuffer
    kind: AluKind
    imm: int | None = None
    other: AccBuffer | None = None


@dataclass
class BatchLoop(Step):
    """The region's steps up to :class:`EndBatchLoop` run once per batch, on each batch's
    slice of the batched operands (``passes/pack/plan_batch.py``)."""

    count: int


@dataclass
class EndBatchLoop(Step):
    pass


@dataclass
class Store(Step):
    """The store of ``acc`` into ``out``: its low bits, or its ``planes`` byte planes (an i32
    result, ``passes/pack/wide_outputs.py``)."""

    acc: AccBuffer
    out: BlockArgument
    #: The output is stored in the weight layout of a later product reading it
    #: (``passes/pack/match_matmul_operands.py``).
    weight_layout: bool = False
    planes: int = 1
