"""``vta-outline-host-steps``: the operations VTA cannot compute become host steps.

VTA computes on integers.  An operation with float semantics — a Softmax, a Sigmoid, an
``exp``, a division, a LayerNormalization, a dequantize-compute-quantize chain — runs on the
host instead, between device runs (``dialects/vta_host.py``).  This pass finds, in the body of
each function, the top-level ops that compute on floats (a float operand, result or block
argument, in the op or in its regions) and puts each run of them into one ``vta.host``::

    linalg.generic ... outs(%logits : memref<1x10xi8>) { ... trunci ... }   // VTA (a layer)
    %f = memref.alloc() : memref<1x10xf32>
    linalg.generic ins(%logits) outs(%f) { sitofp, mulf }                   // dequantize
    linalg.generic ins(%f) outs(%y : memref<1x10xi8>) { ..., fptosi }       // quantize

becomes::

    linalg.generic ... outs(%logits : memref<1x10xi8>) { ... trunci ... }
    vta.host "host@12" ins(%logits : memref<1x10xi8>) outs(%y : memref<1x10xi8>) {
    ^bb0(%a: memref<1x10xi8>, %b: memref<1x10xi8>):
      %f = memref.alloc() : memref<1x10xf32>
      linalg.generic ins(%a) outs(%f) { sitofp, mulf }
      linalg.generic ins(%f) outs(%b) { ..., fptosi }
    }

A run may have ops without effects between its float ops (constants, views of buffers,
allocations); they stay where they are, and a host step that uses one gets a copy of it (the
original goes when nothing else uses it).  An allocation only host code uses moves into the
step, with its ``memref.dealloc``.  Every other buffer a step reads becomes an input, every
buffer it writes (through views too) an output.  The step is named after the first layer its
ops name (a ``NameLoc``, ``vta_mlir/ir/locations.py``), else ``host@LINE`` of its first op.

An integer op that VTA cannot lower stays where it is, and ``vta-pack`` reports it; with the
option ``fallback=any`` (``vta-to-isa{host-fallback=any}``, ``vta-run --host-fallback=any``) it
becomes a host step too: the pass packs a copy of the module, and each top-level op
``vta-pack`` refuses goes to the host, until the copy packs.  A program without float ops is
not changed at all.  ``vta-to-isa`` runs the pass after its prepasses and
``vta-normalize`` (float requantizations that ``vta-integerize`` turns into integer layers
have become VTA layers by then), before ``vta-pack``.

A function of float arguments is a torch-mlir quantized network, which ``vta-integerize``
reads first, unless it carries the unit attribute ``vta.host_float`` (:data:`HOST_FLOAT_ATTR`):
its float code is host code as it stands (the ONNX importer writes it for dynamically
quantized models, whose scales are computed at run time, ``docs/onnx.md`` §4.17).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, func, memref
from xdsl.dialects.builtin import AnyFloat, ContainerType, ModuleOp
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.dialects.vta_host import HostOp
from vta_mlir.errors import VTAError
from vta_mlir.ir.diagnostics import DiagnosticError, report_error
from vta_mlir.ir.locations import copy_location, given_layer_name, location_of

__all__ = ["HOST_FLOAT_ATTR", "OutlineHostStepsPass", "computes_on_floats", "outline_host_steps"]

#: The function attribute saying that its float code is host code, not float requantization
#: for ``vta-integerize`` to read (module doc).
HOST_FLOAT_ATTR = "vta.host_float"

#: Ops without effects that may sit between a step's ops and that it may copy.
_VIEWS = (memref.SubviewOp, memref.CollapseShapeOp, memref.ExpandShapeOp, memref.CastOp)
_COPYABLE = (arith.ConstantOp, memref.GetGlobalOp, *_VIEWS)


def _is_float(t: Attribute) -> bool:
    if isinstance(t, AnyFloat):
        return True
    return isinstance(t, ContainerType) and isinstance(t.get_element_type(), AnyFloat)


def computes_on_floats(op: Operation) -> bool:
    """Whether ``op`` (or an op nested in it) has a float operand, result or block argument."""
    for inner in op.walk():
        values: Iterable[SSAValue] = (*inner.operands, *inner.results)
        if any(_is_float(v.type) for v in values):
            return True
        for region in inner.regions:
            for block in region.blocks:
                if any(_is_float(a.type) for a in block.args):
                    return True
    return False


def _root(value: SSAValue) -> SSAValue:
    """The buffer a view (subview, reshape, cast) of ``value`` views."""
    while isinstance(value.owner, _VIEWS):
        value = value.owner.operands[0]
    return value


def _written(ops: Sequence[Operation]) -> set[SSAValue]:
    """The buffers ``ops`` write (through views too)."""
    found: set[SSAValue] = set()
    for op in ops:
        for inner in op.walk():
            if isinstance(inner, linalg_abstract.LinalgStructuredOperation):
                found.update(_root(v) for v in inner.outputs)
            elif isinstance(inner, memref.CopyOp):
                found.add(_root(inner.destination))
            elif isinstance(inner, memref.StoreOp | affine.StoreOp):
                found.add(_root(inner.memref))
    return found


def _used_outside(value: SSAValue, group: set[Operation], block: Block) -> bool:
    for use in value.uses:
        top = block.find_ancestor_op_in_block(use.operation)
        if top is not None and top not in group:
            return True
    return False


@dataclass
class _Group:
    """A run of host ops of one block, in order."""

    ops: list[Operation]


def _groups(block: Block, forced: set[Operation]) -> list[_Group]:
    groups: list[_Group] = []
    current: list[Operation] = []
    for op in block.ops:
        if isinstance(op, func.ReturnOp | HostOp):
            pass
        elif op in forced and not isinstance(op, _COPYABLE):
            current.append(op)
            continue
        elif isinstance(op, (*_COPYABLE, memref.AllocOp, memref.AllocaOp, memref.DeallocOp)):
            # No effect on the buffers a run of host ops works on.  A float buffer only one
            # run uses moves into its step (_outline); one that several steps use stays, a
            # buffer they hand each other.
            continue
        elif computes_on_floats(op):
            current.append(op)
            continue
        if current:
            groups.append(_Group(current))
            current = []
    if current:
        groups.append(_Group(current))
    return groups


def _outline(group: _Group, block: Block, index: int) -> None:
    ops = group.ops
    # The step runs where its first op ran: the buffers it hands over are allocated before.
    at = ops[0]
    members = set(ops)
    # Allocations only the group uses (and their deallocations) move into it.
    for op in list(block.ops):
        if isinstance(op, memref.AllocOp | memref.AllocaOp) and op not in members:
            users = {block.find_ancestor_op_in_block(u.operation) for u in op.memref.uses}
            deallocs = {u for u in users if isinstance(u, memref.DeallocOp)}
            if users - deallocs and users - deallocs <= members:
                ops.insert(0, op)
                ops.extend(sorted(deallocs, key=block.get_operation_index))
                members.add(op)
                members.update(deallocs)
    ops.sort(key=block.get_operation_index)
    inside: set[SSAValue] = set()
    for op in ops:
        for inner in op.walk():
            inside.update(inner.results)
            inside.update(a for region in inner.regions for b in region.blocks for a in b.args)
    outside: list[SSAValue] = []
    for op in ops:
        for inner in op.walk():
            for v in inner.operands:
                if v not in inside and v not in outside:
                    outside.append(v)
    # Constants, globals and views defined outside: copied in, with what they read.
    copied: list[Operation] = []
    buffers: list[SSAValue] = []
    pending = list(outside)
    while pending:
        v = pending.pop(0)
        owner = v.owner
        if isinstance(owner, _COPYABLE) and owner not in copied:
            copied.append(owner)
            pending.extend(x for x in owner.operands if x not in pending)
        elif not isinstance(owner, _COPYABLE) and v not in buffers:
            buffers.append(v)
    copied.sort(key=block.get_operation_index)
    written = _written(ops)
    outputs = [b for b in buffers if b in written]
    inputs = [b for b in buffers if b not in written]
    body = Block(arg_types=[v.type for v in (*inputs, *outputs)])
    for arg, value in zip(body.args, (*inputs, *outputs), strict=True):
        arg.name_hint = value.name_hint
    mapping: dict[SSAValue, SSAValue] = dict(zip((*inputs, *outputs), body.args, strict=True))
    for op in (*copied, *ops):
        body.add_op(op.clone(value_mapper=mapping))
    first = ops[0]
    where = location_of(first)
    given = next((n for op in ops if (n := given_layer_name(op)) is not None), None)
    name = given or (f"host@{where.line}" if where else f"host{index}")
    host = HostOp(name, inputs, outputs, Region(body))
    copy_location(first, [host])
    Rewriter.insert_op(host, InsertPoint.before(at))
    for op in reversed(ops):
        for r in op.results:
            if _used_outside(r, members, block):
                report_error(op, "computes on floats for the host, but its result is used by "
                                 "code outside the host step: host steps hand results over "
                                 "in memref buffers")
        op.detach()
        op.erase()
    # What was copied in and nothing outside uses any more goes.
    for op in reversed(copied):
        if not any(r.uses for r in op.results):
            op.detach()
            op.erase()


def outline_host_steps(f: func.FuncOp, forced: Iterable[Operation] = ()) -> int:
    """Outline the host steps of ``f`` (module doc), the top-level ops ``forced`` too; how
    many it made."""
    if not f.body.blocks:
        return 0
    block = f.body.block
    groups = _groups(block, set(forced))
    for k, group in enumerate(groups):
        _outline(group, block, k)
    return len(groups)


def _refused_op(module: ModuleOp, f: func.FuncOp) -> Operation | None:
    """The top-level op of ``f`` that ``vta-pack`` refuses first (tried on a copy of the
    module), found by its source position; None when it packs."""
    from vta_mlir.dialects.vta_config_attr import get_config
    from vta_mlir.passes.pack import pack_function
    from vta_mlir.passes.pack.constants import ConstantPool

    trial = module.clone()
    index = [o for o in module.walk() if isinstance(o, func.FuncOp)].index(f)
    copy = [o for o in trial.walk() if isinstance(o, func.FuncOp)][index]
    try:
        pack_function(copy, get_config(trial), ConstantPool(trial))
    except DiagnosticError as error:
        where = error.diagnostic.location
        if where is None:
            raise
        # The last top-level op starting at or before the refused op's position holds it.
        found: Operation | None = None
        for op in f.body.block.ops:
            at = location_of(op)
            if at is not None and at.file == where.file \
                    and (at.line, at.col) <= (where.line, where.col):
                found = op
        if found is None or isinstance(found, HostOp | func.ReturnOp):
            raise
        return found
    return None


#: How many integer ops ``fallback=any`` moves to the host before giving up.
MAX_FALLBACK_STEPS = 1000


@dataclass(frozen=True)
class OutlineHostStepsPass(ModulePass):
    """Put the float computations of every function into host steps (module doc);
    ``fallback="any"`` also each top-level op ``vta-pack`` would refuse."""

    name = "vta-outline-host-steps"

    fallback: str = "float"

    def __post_init__(self) -> None:
        if self.fallback not in ("float", "any"):
            raise VTAError(f"vta-outline-host-steps: fallback is 'float' or 'any', not "
                           f"'{self.fallback}'")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            outline_host_steps(f)
            if self.fallback != "any" or not f.body.blocks:
                continue
            for _ in range(MAX_FALLBACK_STEPS):
                refused = _refused_op(op, f)
                if refused is None:
                    break
                outline_host_steps(f, [refused])
