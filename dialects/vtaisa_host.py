"""``vtaisa.host_step``: a step the host computes between the runs of a linked program
(:mod:`vta_mlir.dialects.vtaisa`), the lowered form of a ``vta.host``.

Its body holds the buffers it works on, as ``vtaisa.arg`` records in the order of the
function's arguments (``in`` ones are unpacked from DRAM before the step, ``inout`` ones
unpacked before and packed back after), then one ``builtin.module`` holding the function
``@step`` on their logical types and the ``memref.global`` s it reads::

    vtaisa.host_step "softmax" at "net.mlir:42:3" {
      vtaisa.arg "logits" in int8 [1, 10] padded [1, 16] split [1, 1, 1, 16] perm [0, 2, 1, 3]
          packed int8 segment "temporaries" phys 0x1003000
      vtaisa.arg "y" inout int8 [1, 10] padded [1, 10] split [1, 10] perm [0, 1]
          packed int8 segment "y" phys 0x1001000
      builtin.module {
        func.func @step(%x: memref<1x10xi8>, %y: memref<1x10xi8>) { ... }
      }
    }

Its place among the ``vtaisa.run`` ops is its place in the program: it runs after the runs
before it, and the runs after it start when it is done.  The runtime evaluates ``@step`` with
the reference evaluator (:mod:`vta_mlir.reference`), which gives a host step its semantics.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type, MemRefType, ModuleOp, StringAttr
from xdsl.ir import Block, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
)
from xdsl.traits import HasParent, NoTerminator
from xdsl.utils.exceptions import VerifyException

from vta_mlir.abi import ArgSpec
from vta_mlir.errors import BinaryFormatError
from vta_mlir.program import HostStep

from .directives import SingleBlockBody
from .vtaisa_arg import ArgOp

__all__ = ["STEP_FUNCTION", "HostStepOp", "step_function"]

#: The name of a host step's function in its module.
STEP_FUNCTION = "step"


def _program_op() -> type[IRDLOperation]:
    from .vtaisa_program_ops import ProgramOp

    return ProgramOp


def step_function(module: ModuleOp) -> func.FuncOp | None:
    """The ``@step`` function of a host step's module, if it has one with a body."""
    for op in module.body.block.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == STEP_FUNCTION and op.body.blocks:
            return op
    return None


def _dtype_of(t: MemRefType) -> str:
    element = t.element_type
    if isinstance(element, Float32Type):
        return "float32"
    return f"int{element.width.data}"  # type: ignore[attr-defined]


@irdl_op_definition
class HostStepOp(IRDLOperation):
    """A host step of a linked program (module docstring)."""

    name = "vtaisa.host_step"

    step_name = prop_def(StringAttr, prop_name="name")
    source_location = opt_prop_def(StringAttr, prop_name="source")
    body = region_def("single_block")

    traits = lazy_traits_def(lambda: (NoTerminator(), HasParent(_program_op())))

    assembly_format = (
        "$name (`at` $source^)? attr-dict-with-keyword custom<SingleBlockBody>($body)"
    )
    custom_directives = (SingleBlockBody,)

    def __init__(self, name: str, args: Sequence[ArgSpec], module: ModuleOp,
                 location: str = "") -> None:
        block = Block([*(ArgOp.from_spec(spec) for spec in args), module])
        properties = {"name": StringAttr(name)}
        if location:
            properties["source"] = StringAttr(location)
        super().__init__(properties=properties, regions=[Region(block)])

    @property
    def arg_ops(self) -> list[ArgOp]:
        return [op for op in self.body.block.ops if isinstance(op, ArgOp)]

    @property
    def module(self) -> ModuleOp:
        """The module of ``@step`` (the verifier checks there is exactly one)."""
        found = [op for op in self.body.block.ops if isinstance(op, ModuleOp)]
        return found[0]

    def specs(self) -> list[ArgSpec]:
        return [op.to_spec() for op in self.arg_ops]

    def to_record(self, after_run: int) -> HostStep:
        """The step as the binary module stores it: its function as generic MLIR text."""
        from vta_mlir.ir.context import print_module

        source = self.source_location
        location = source.data if source is not None else ""
        return HostStep(self.step_name.data, after_run, self.specs(),
                        print_module(self.module, generic=True), location)

    @classmethod
    def from_record(cls, step: HostStep) -> HostStepOp:
        """The op of a stored host step; :class:`BinaryFormatError` if its function does not
        parse."""
        from vta_mlir.ir.context import parse_module
        from vta_mlir.ir.diagnostics import DiagnosticError

        try:
            module = parse_module(step.function, filename=f"<host step '{step.name}'>",
                                  allow_implicit_module=False)
        except DiagnosticError as e:
            first = str(e).splitlines()[0] if str(e) else "a parse error"
            raise BinaryFormatError(
                f"host step '{step.name}': its function does not parse: {first}") from None
        return cls(step.name, step.args, module, step.location)

    def verify_(self) -> None:
        ops = list(self.body.block.ops)
        args = self.arg_ops
        modules = [op for op in ops if isinstance(op, ModuleOp)]
        if len(modules) != 1 or ops[-1] is not modules[0] or len(args) + 1 != len(ops):
            raise VerifyException(
                "a vtaisa.host_step holds its vtaisa.arg records, then one builtin.module"
            )
        f = step_function(modules[0])
        if f is None:
            raise VerifyException(f"the module of a vtaisa.host_step defines @{STEP_FUNCTION}")
        inputs = f.function_type.inputs.data
        if len(inputs) != len(args):
            raise VerifyException(
                f"@{STEP_FUNCTION} takes {len(inputs)} argument(s) but the host step has "
                f"{len(args)} vtaisa.arg record(s)"
            )
        for index, (t, arg) in enumerate(zip(inputs, args, strict=True)):
            spec = arg.to_spec()
            if spec.direction not in ("in", "inout") or spec.repeat or spec.window \
                    or spec.quant is not None or spec.copy_of:
                raise VerifyException(
                    f"vtaisa.arg '{spec.name}' of a host step is 'in' or 'inout', without "
                    "repeat, window, quantization or copy"
                )
            if not isinstance(t, MemRefType) or tuple(t.get_shape()) != spec.shape \
                    or _dtype_of(t) != spec.dtype:
                raise VerifyException(
                    f"argument {index} of @{STEP_FUNCTION} has type {t}, but its vtaisa.arg "
                    f"'{spec.name}' holds {spec.dtype} {list(spec.shape)}"
                )
