"""What ``vta-bufferize`` takes: the tensor ops it knows, static shapes, one block per function.

Every function is checked before anything changes, so that an unsupported op is one error at
that op and the module stays as it was.  A *destination-passing* op is recognised by its form,
not by its name, so that linalg ops registered later bufferize without changes: an op of the
``linalg`` dialect whose ``k`` results are tensors typed exactly like its last ``k`` operands
(its ``outs``).
"""

from __future__ import annotations

from xdsl.dialects import arith, bufferization, func, tensor
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from vta_mlir.ir.dense import resource_problem
from vta_mlir.ir.diagnostics import DiagnosticError, op_diagnostic, report_error
from vta_mlir.ir.upstream_fixes.resources import module_resources

__all__ = [
    "check_function",
    "dps_inits",
    "element_read",
    "is_tensor",
    "pad_value",
    "static_shape",
    "tensor_op",
]


def is_tensor(t: Attribute) -> bool:
    """Whether ``t`` is a tensor type, ranked or not."""
    return isinstance(t, TensorType | UnrankedTensorType)


def tensor_op(op: Operation) -> bool:
    """Whether ``op`` has a tensor operand or result (ops without them stay as they are)."""
    return any(is_tensor(v.type) for v in (*op.operands, *op.results))


def static_shape(t: Attribute) -> tuple[int, ...] | None:
    """The shape of a ranked tensor type with static sizes, else None."""
    if not isinstance(t, TensorType):
        return None
    shape = tuple(t.get_shape())
    return None if any(d < 0 for d in shape) else shape


def dps_inits(op: Operation) -> tuple[SSAValue, ...] | None:
    """The ``outs`` operands of a destination-passing linalg op on tensors, one per result
    (the last operands, typed like the results), or None when ``op`` is not one."""
    if not op.name.startswith("linalg.") or not op.results:
        return None
    k = len(op.results)
    if len(op.operands) < k:
        return None
    inits = tuple(op.operands[-k:])
    if any(not is_tensor(r.type) or r.type != i.type
           for r, i in zip(op.results, inits, strict=True)):
        return None
    return inits


def pad_value(pad: tensor.PadOp) -> SSAValue | arith.ConstantOp | None:
    """The value a ``tensor.pad`` pads with: the value its region yields when defined outside
    the pad, or the ``arith.constant`` of the region that it yields; None for anything else
    (a value depending on the indices)."""
    block = pad.region.block
    terminator = block.last_op
    if not isinstance(terminator, tensor.YieldOp) or len(terminator.operands) != 1:
        return None
    value = terminator.operands[0]
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and owner.parent_block() is block:
        return owner
    if isinstance(owner, Operation) and pad.is_ancestor(owner):
        return None
    if owner is block:
        return None
    return value


def element_read(inner: Operation, op: Operation) -> bool:
    """Whether ``inner``, inside the region of the top-level ``op``, is a ``tensor.extract``
    that a linalg op in destination-passing style makes of a statically shaped tensor defined
    outside it (a gather: torch-mlir's nearest ``Resize``); it becomes a ``memref.load`` of
    that tensor's buffer."""
    if not isinstance(inner, tensor.ExtractOp) or dps_inits(op) is None:
        return False
    source = inner.tensor
    owner = source.owner
    definer = owner if isinstance(owner, Operation) else owner.parent_op()
    inside = definer is not None and op.is_ancestor(definer)
    return not inside and static_shape(source.type) is not None


def _shape_problem(op: Operation, value: SSAValue, what: str) -> None:
    t = value.type
    if isinstance(t, UnrankedTensorType):
        report_error(op, f"{what} is an unranked tensor ({t}): vta-bufferize needs static shapes")
    if is_tensor(t) and static_shape(t) is None:
        report_error(op, f"{what} has a dynamic shape ({t}): vta-bufferize needs static shapes")


def _check_static(op: Operation) -> None:
    for i, v in enumerate(op.operands):
        _shape_problem(op, v, f"operand {i}")
    for i, v in enumerate(op.results):
        _shape_problem(op, v, f"result {i}")


def _check_dynamic_operands(op: Operation, names: tuple[str, ...]) -> None:
    for name in names:
        if getattr(op, name):
            report_error(op, f"has dynamic {name.replace('_', ' ')}: vta-bufferize needs "
                             "static offsets, sizes and pads")


def _check_op(op: Operation) -> None:
    _check_static(op)
    match op:
        case tensor.EmptyOp():
            return
        case tensor.PadOp():
            _check_dynamic_operands(op, ("low", "high"))
            if pad_value(op) is None:
                report_error(op, "pads with a value computed in its region: vta-bufferize takes "
                                 "a region yielding a constant (or a value defined outside it)")
            return
        case tensor.CollapseShapeOp() | tensor.ExpandShapeOp():
            if isinstance(op, tensor.ExpandShapeOp):
                _check_dynamic_operands(op, ("dynamic_output_shape",))
            return
        case tensor.ExtractSliceOp() | tensor.InsertSliceOp():
            _check_dynamic_operands(op, ("offsets", "sizes", "strides"))
            return
        case tensor.ConcatOp():
            return
        case arith.ConstantOp():
            if isinstance(op.value, DenseResourceAttr):
                problem = resource_problem(op.value, module_resources(op))
                if problem is not None:
                    report_error(op, f"cannot read its dense_resource: {problem}")
            elif not isinstance(op.value, DenseIntOrFPElementsAttr):
                report_error(op, f"is a tensor constant of {type(op.value).__name__}: "
                                 "vta-bufferize takes dense<...> and dense_resource<...> "
                                 "constants")
            return
        case bufferization.ToTensorOp():
            return
        case bufferization.ToBufferOp():
            report_error(op, "exposes a tensor's buffer as a memref that later ops may write "
                             "behind the tensor's back: vta-bufferize does not take it (use "
                             "the tensor, or bufferize the whole program)")
        case func.ReturnOp():
            return
    if dps_inits(op) is not None:
        return
    if op.name.startswith("linalg."):
        report_error(op, "is not in destination-passing style: each tensor result must be "
                         "typed like one of its last operands (its outs)")
    report_error(op, "is not supported by vta-bufferize: it takes tensor.empty, linalg ops "
                     "in destination-passing style, tensor.pad, tensor.collapse_shape / "
                     "expand_shape / extract_slice / insert_slice / concat, tensor constants and "
                     "bufferization.to_tensor")


def check_function(f: func.FuncOp) -> None:
    """Report the first thing of ``f`` vta-bufferize cannot bufferize (module doc)."""
    for i, t in enumerate(f.function_type.inputs.data):
        if is_tensor(t) and static_shape(t) is None:
            report_error(f, f"argument {i} has type {t}: vta-bufferize needs static shapes")
    for i, t in enumerate(f.function_type.outputs.data):
        if not is_tensor(t):
            report_error(f, f"result {i} has type {t}: vta-bufferize turns tensor results "
                            "into out-parameters, and takes no other results")
        if static_shape(t) is None:
            report_error(f, f"result {i} has type {t}: vta-bufferize needs static shapes")
    if f.is_declaration:
        report_error(f, "is a declaration with tensor types: vta-bufferize rewrites the "
                        "signatures of the functions it bufferizes, bodies included")
    if len(f.body.blocks) != 1:
        report_error(f, "has more than one block: vta-bufferize takes functions of one block")
    block = f.body.block
    for op in block.ops:
        for inner in op.walk():
            if inner is op or not tensor_op(inner) or element_read(inner, op):
                continue
            diagnostic = op_diagnostic(inner, "uses a tensor inside the region of another op: "
                                              "vta-bufferize takes tensor values in the "
                                              "function's body only")
            diagnostic.attach_note("inside this op", op=op)
            raise DiagnosticError(diagnostic)
        if tensor_op(op):
            _check_op(op)
