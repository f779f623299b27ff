"""Synchronisation in the ``vta`` dialect (:mod:`vta_mlir.dialects.vta`): the dependency
tokens ``vta.dep_push`` / ``vta.dep_pop`` (``VTADepPush`` / ``VTADepPop``, ``docs/isa.md``
§3.2, §4.6) and ``vta.stage``, the commands one module executes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, region_def, traits_def
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from .directives import SingleBlockBody
from .vta_attrs import Module, ModuleAttr
from .vta_compute import MicroOp
from .vta_dma import DmaCopyOp
from .vta_kernels import UopLoopOp
from .vta_positions import sram_space

__all__ = ["DepPopOp", "DepPushOp", "StageOp", "module_of"]


def _verify_pair(src: Module, dst: Module) -> None:
    if src == dst:
        raise VerifyException(f"a dependency token goes between two modules, got {src} -> {dst}")
    if {src, dst} == {Module.LOAD, Module.STORE}:
        raise VerifyException(
            f"no dependency queue connects {src} and {dst} (only load <-> compute and "
            "compute <-> store)"
        )


class _DepOp(IRDLOperation):
    from_module = prop_def(ModuleAttr, prop_name="from")
    to_module = prop_def(ModuleAttr, prop_name="to")

    assembly_format = "$from `->` $to attr-dict"

    def __init__(
        self,
        src: Module | str,
        dst: Module | str,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        super().__init__(
            properties={"from": ModuleAttr(Module(src)), "to": ModuleAttr(Module(dst))},
            attributes=attributes or {},
        )

    @property
    def src(self) -> Module:
        """The module that pushes the token."""
        return self.from_module.data

    @property
    def dst(self) -> Module:
        """The module that pops the token."""
        return self.to_module.data

    def verify_(self) -> None:
        _verify_pair(self.src, self.dst)


@irdl_op_definition
class DepPushOp(_DepOp):
    """Send a token from module ``from`` to module ``to`` (``VTADepPush``, docs/isa.md §4.6); the
    push executes on ``from`` after its preceding commands::

        vta.dep_push load -> compute
    """

    name = "vta.dep_push"


@irdl_op_definition
class DepPopOp(_DepOp):
    """Wait on module ``to`` for a token from ``from`` (``VTADepPop``, docs/isa.md §4.6); the pop
    executes on ``to`` before its next command::

        vta.dep_pop load -> compute
    """

    name = "vta.dep_pop"


def module_of(op: Operation) -> Module | None:
    """The module executing a ``vta`` command, ``None`` for host ops and stages
    (a push executes on its ``from`` module, a pop on its ``to`` module)."""
    if isinstance(op, DmaCopyOp):
        return op.module
    if isinstance(op, MicroOp | UopLoopOp):
        return Module.COMPUTE
    if isinstance(op, DepPushOp):
        return op.src
    if isinstance(op, DepPopOp):
        return op.dst
    return None


_STAGE_CONTENTS = {
    Module.LOAD: "DMA loads into inp/wgt",
    Module.COMPUTE: "gemm, alu, uop_loop and DMA loads into acc/uop",
    Module.STORE: "DMA stores",
}


@irdl_op_definition
class StageOp(IRDLOperation):
    """The commands one module executes (docs/isa.md §3.2), with any host code around them::

        vta.stage load {
          vta.dep_pop compute -> load
          vta.dma_copy %x[%i] -> %inp[0] y 1 x 16 stride 64 : ...
          vta.dep_push load -> compute
        }
    """

    name = "vta.stage"

    module = prop_def(ModuleAttr)
    body = region_def("single_block")

    traits = traits_def(NoTerminator())

    assembly_format = "$module attr-dict-with-keyword custom<SingleBlockBody>($body)"
    custom_directives = (SingleBlockBody,)

    def __init__(
        self,
        module: Module | str,
        body: Region | Sequence[Operation] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        if body is None:
            body = Region(Block())
        elif not isinstance(body, Region):
            body = Region(Block(body))
        super().__init__(
            properties={"module": ModuleAttr(Module(module))},
            regions=[body],
            attributes=attributes or {},
        )

    @property
    def kind(self) -> Module:
        return self.module.data

    def _nested(self) -> Iterator[Operation]:
        for region in self.regions:
            yield from region.walk()

    def verify_(self) -> None:
        stage = self.kind
        for op in self._nested():
            if isinstance(op, StageOp):
                raise VerifyException("vta.stage scopes do not nest")
            if isinstance(op, DepPushOp) and op.src != stage:
                raise VerifyException(
                    f"vta.dep_push {op.src} -> {op.dst} executes on the {op.src} module, not "
                    f"in a {stage} stage"
                )
            if isinstance(op, DepPopOp) and op.dst != stage:
                raise VerifyException(
                    f"vta.dep_pop {op.src} -> {op.dst} executes on the {op.dst} module, not "
                    f"in a {stage} stage"
                )
            if isinstance(op, DmaCopyOp | MicroOp | UopLoopOp):
                if isinstance(op, MicroOp) and isinstance(op.parent_op(), UopLoopOp):
                    continue
                if module_of(op) != stage:
                    what = op.name
                    if isinstance(op, DmaCopyOp):
                        what = "DMA store" if op.is_store else \
                            f"DMA load into {sram_space(op.dst.type)}"
                    raise VerifyException(
                        f"a {stage} stage holds {_STAGE_CONTENTS[stage]}, not a {what} "
                        f"(executed by the {module_of(op)} module)"
                    )

