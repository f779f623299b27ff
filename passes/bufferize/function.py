"""Bufferizing one function: every tensor value gets a buffer, every tensor op its memref form.

The ops of the function's body are visited in order; each tensor value is bound to a memref
(its *buffer*) and to the *storage* it lives in (the ``memref.alloc``, argument or constant
global whose bytes the buffer views).  A destination-passing op writes its result into its
``outs`` operand's buffer — *in place* — when that is exact: the storage is an allocation of
this pass (never an argument or a constant), and no value living in it is read by the op
itself or by any later op (its contents would be overwritten before they are read).
Otherwise the op writes a new allocation, first a copy of the ``outs`` value (``memref.copy``,
or the ``linalg.fill`` again when the value is a fill's result).
A ``tensor.empty`` has no contents: each op writing one gets a new allocation of its own,
placed where the ``tensor.empty`` was, so buffers of unrelated layers are never shared.

Function results become trailing out-parameters marked ``vta.result = i``: the storage of a
returned value, when it is a whole allocation of this pass, is replaced by the out-parameter
(the ops producing the value write it directly); any other result is copied into it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, bufferization, func, memref, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.dialects.linalg.ops import FillOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.host import RESULT_ATTR_NAME
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.locations import copy_location
from vta_mlir.ir.upstream_fixes.resources import module_resources

from .check import dps_inits, is_tensor, pad_value, static_shape, tensor_op

__all__ = ["ConstantGlobals", "FunctionBufferizer", "Storage", "memref_type_of"]


def memref_type_of(t: Attribute) -> MemRefType:
    """The identity-layout memref of a static tensor type."""
    assert isinstance(t, TensorType)
    return MemRefType(t.element_type, t.get_shape())


@dataclass
class ConstantGlobals:
    """The ``memref.global`` constants tensor constants become, one per distinct value."""

    taken: set[str]
    globals: list[memref.GlobalOp] = field(default_factory=list["memref.GlobalOp"])
    by_value: dict[DenseIntOrFPElementsAttr, str] = field(
        default_factory=dict[DenseIntOrFPElementsAttr, str])

    def symbol(self, value: DenseIntOrFPElementsAttr, t: MemRefType) -> str:
        """The symbol of the global holding ``value`` as ``t`` (made on first use)."""
        # Equal attributes are the same type and bytes.
        if value in self.by_value:
            return self.by_value[value]
        shape = "x".join(str(d) for d in t.get_shape())
        base = f"__constant_{shape}x{t.element_type}"
        name, n = base, 0
        while name in self.taken:
            n += 1
            name = f"{base}_{n}"
        self.taken.add(name)
        self.by_value[value] = name
        self.globals.append(memref.GlobalOp.get(
            StringAttr(name), t, value, constant=UnitAttr()))
        return name


@dataclass(eq=False)
class Storage:
    """The bytes tensor values live in: a whole buffer and the values it holds (each in
    turn, or viewed)."""

    buffer: SSAValue
    #: An allocation of this pass, which ops may overwrite in place (never an argument or a
    #: constant: the caller's inputs and the constants stay as they are).
    owned: bool
    values: list[SSAValue] = field(default_factory=list[SSAValue])


class FunctionBufferizer:
    """Rewrites one checked function (``check.check_function``) into its memref form."""

    def __init__(self, f: func.FuncOp, constants: ConstantGlobals) -> None:
        self.f = f
        self.block: Block = f.body.block
        self.constants = constants
        self.order: dict[Operation, int] = {op: i for i, op in enumerate(self.block.ops)}
        self.buffer: dict[SSAValue, SSAValue] = {}
        self.storage: dict[SSAValue, Storage] = {}
        #: tensor.empty results: they have no contents, hence no storage of their own.
        self.empties: dict[SSAValue, tensor.EmptyOp] = {}
        self.tensor_ops: list[Operation] = []

    # ---------------------------------------------------------------------------------------
    # Buffers

    def _bind(self, value: SSAValue, buffer: SSAValue, storage: Storage) -> None:
        self.buffer[value] = buffer
        self.storage[value] = storage
        storage.values.append(value)

    def _insert(self, ops: Sequence[Operation], before: Operation, origin: Operation) -> None:
        copy_location(origin, ops)
        Rewriter.insert_op(list(ops), InsertPoint.before(before))

    def _alloc(self, value: SSAValue, before: Operation, origin: Operation) -> SSAValue:
        t = memref_type_of(value.type)
        alloc = memref.AllocOp.get(t.element_type, shape=t.get_shape())
        alloc.memref.name_hint = value.name_hint
        self._insert([alloc], before, origin)
        return alloc.memref

    def _fresh(self, value: SSAValue, before: Operation, origin: Operation) -> tuple[
            SSAValue, Storage]:
        buffer = self._alloc(value, before, origin)
        return buffer, Storage(buffer, owned=True)

    def _operand(self, value: SSAValue) -> tuple[SSAValue, Storage]:
        """The buffer an op reads ``value`` from (a ``tensor.empty``: a new allocation where
        it was)."""
        if value in self.empties:
            empty = self.empties[value]
            return self._fresh(value, empty, empty)
        return self.buffer[value], self.storage[value]

    def _top(self, op: Operation) -> Operation:
        while op.parent_block() is not self.block:
            parent = op.parent_op()
            assert parent is not None
            op = parent
        return op

    def _read_from(self, storage: Storage, op: Operation, written: int) -> bool:
        """Whether a value living in ``storage`` is read by ``op`` (other than as its operand
        ``written``) or by a later op: then ``op`` may not overwrite it."""
        position = self.order[op]
        for value in storage.values:
            for use in value.uses:
                user = self._top(use.operation)
                if user is op and use.index == written:
                    continue
                if self.order[user] >= position:
                    return True
        return False

    def _destination(self, op: Operation, index: int) -> tuple[SSAValue, Storage]:
        """The buffer ``op`` writes its result into for its ``outs`` operand ``index``: that
        operand's buffer in place when exact (module doc), else a copy of it."""
        value = op.operands[index]
        if value in self.empties:
            return self._operand(value)
        storage = self.storage[value]
        if storage.owned and not self._read_from(storage, op, index):
            return self.buffer[value], storage
        buffer, fresh = self._fresh(value, op, op)
        fill = value.owner
        if isinstance(fill, FillOp):
            # A filled tensor is filled again rather than copied: the same contents, and the
            # initialisation the pipeline knows.
            self._insert([FillOp(tuple(fill.inputs), (buffer,), res=())], op, op)
        else:
            self._insert([memref.CopyOp(self.buffer[value], buffer)], op, op)
        return buffer, fresh

    # ---------------------------------------------------------------------------------------
    # Ops

    def _constant(self, op: arith.ConstantOp) -> None:
        t = memref_type_of(op.result.type)
        value = op.value
        if isinstance(value, DenseResourceAttr):
            # The blob's bytes are the elements: the same bytes as a dense<...> literal.
            blobs = module_resources(op)
            blob = None if blobs is None else blobs.blob(value.resource_handle.data)
            assert blob is not None and isinstance(value.type, TensorType)
            value = DenseIntOrFPElementsAttr(value.type, BytesAttr(blob.data))
        assert isinstance(value, DenseIntOrFPElementsAttr)
        read = memref.GetGlobalOp(self.constants.symbol(value, t), t)
        read.memref.name_hint = op.result.name_hint
        self._insert([read], op, op)
        self._bind(op.result, read.memref, Storage(read.memref, owned=False))

    def _pad(self, op: tensor.PadOp) -> None:
        source, _ = self._operand(op.source)
        value = pad_value(op)
        ops: list[Operation] = []
        if isinstance(value, arith.ConstantOp):
            constant = value.clone()
            ops.append(constant)
            value = constant.result
        assert isinstance(value, SSAValue)
        target = memref_type_of(op.result.type)
        alloc = memref.AllocOp.get(target.element_type, shape=target.get_shape())
        alloc.memref.name_hint = op.result.name_hint
        fill = FillOp((value,), (alloc.memref,), res=())
        low = [int(v) for v in op.static_low.get_values()]
        sizes = list(static_shape(op.source.type) or ())
        view = memref.SubviewOp.from_static_parameters(alloc.memref, target, low, sizes,
                                                       [1] * len(sizes))
        if op.result.name_hint:
            view.result.name_hint = f"{op.result.name_hint}_interior"
        ops += [alloc, fill, view, memref.CopyOp(source, view.result)]
        self._insert(ops, op, op)
        self._bind(op.result, alloc.memref, Storage(alloc.memref, owned=True))

    def _reshape(self, op: tensor.CollapseShapeOp | tensor.ExpandShapeOp) -> None:
        source, storage = self._operand(op.src)
        assert isinstance(source.type, MemRefType)
        if not isinstance(source.type.layout, NoneAttr):
            report_error(op, f"reshapes a strided view ({source.type}): vta-bufferize "
                             "reshapes whole buffers only")
        t = memref_type_of(op.result.type)
        view: Operation
        if isinstance(op, tensor.CollapseShapeOp):
            view = memref.CollapseShapeOp(operands=[source], result_types=[t],
                                          properties={"reassociation": op.reassociation})
        else:
            view = memref.ExpandShapeOp.build(
                operands=[source, []], result_types=[t],
                properties={"reassociation": op.reassociation,
                            "static_output_shape": op.static_output_shape})
        view.results[0].name_hint = op.result.name_hint
        self._insert([view], op, op)
        self._bind(op.result, view.results[0], storage)

    def _subview(self, op: Operation, buffer: SSAValue, t: TensorType,
                 parameters: tuple[list[int], list[int], list[int]]) -> memref.SubviewOp:
        assert isinstance(buffer.type, MemRefType)
        offsets, sizes, strides = parameters
        reduce = len(t.get_shape()) != len(sizes)
        view = memref.SubviewOp.from_static_parameters(buffer, buffer.type, offsets, sizes,
                                                       strides, reduce_rank=reduce)
        if tuple(view.result.type.get_shape()) != tuple(t.get_shape()):
            report_error(op, f"slices {'x'.join(map(str, sizes))} elements as {t}: "
                             "vta-bufferize drops all unit dimensions of a slice or none")
        return view

    @staticmethod
    def _slice(op: tensor.ExtractSliceOp | tensor.InsertSliceOp) -> tuple[
            list[int], list[int], list[int]]:
        return ([int(v) for v in op.static_offsets.get_values()],
                [int(v) for v in op.static_sizes.get_values()],
                [int(v) for v in op.static_strides.get_values()])

    def _extract_slice(self, op: tensor.ExtractSliceOp) -> None:
        source, storage = self._operand(op.source)
        assert isinstance(op.result.type, TensorType)
        view = self._subview(op, source, op.result.type, self._slice(op))
        view.result.name_hint = op.result.name_hint
        self._insert([view], op, op)
        self._bind(op.result, view.result, storage)

    def _insert_slice(self, op: tensor.InsertSliceOp) -> None:
        source, _ = self._operand(op.source)
        target, storage = self._destination(op, 1)
        assert isinstance(op.source.type, TensorType)
        view = self._subview(op, target, op.source.type, self._slice(op))
        self._insert([view, memref.CopyOp(source, view.result)], op, op)
        self._bind(op.result, target, storage)

    def _concat(self, op: tensor.ConcatOp) -> None:
        """A new buffer, each input copied into its slice along ``dim`` (``vta-pack`` makes
        the copies of layers' results the layers' own writes, passes/pack/concat.py)."""
        target, storage = self._fresh(op.result, op, op)
        dim, first = op.dim.value.data, 0
        for value in op.inputs:
            source, _ = self._operand(value)
            assert isinstance(value.type, TensorType)
            shape = list(value.type.get_shape())
            offsets = [first if d == dim else 0 for d in range(len(shape))]
            view = self._subview(op, target, value.type, (offsets, shape, [1] * len(shape)))
            self._insert([view, memref.CopyOp(source, view.result)], op, op)
            first += shape[dim]
        self._bind(op.result, target, storage)

    def _destination_passing(self, op: Operation, inits: tuple[SSAValue, ...]) -> None:
        first_init = len(op.operands) - len(inits)
        operands: list[SSAValue] = []
        for value in op.operands[:first_init]:
            operands.append(self._operand(value)[0] if is_tensor(value.type) else value)
        targets = [self._destination(op, first_init + i) for i in range(len(inits))]
        operands += [buffer for buffer, _ in targets]
        for inner in list(op.walk()):
            if isinstance(inner, tensor.ExtractOp):
                # A gather in the body (check.element_read): a load of the tensor's buffer.
                load = memref.LoadOp.get(self._operand(inner.tensor)[0], inner.indices)
                load.res.name_hint = inner.result.name_hint
                Rewriter.replace_op(inner, load)
        regions = [op.detach_region(region) for region in list(op.regions)]
        memref_op = type(op).create(operands=operands, result_types=[],
                                    properties=dict(op.properties),
                                    attributes=dict(op.attributes), regions=regions)
        self._insert([memref_op], op, op)
        for result, (buffer, storage) in zip(op.results, targets, strict=True):
            self._bind(result, buffer, storage)

    def _bufferize(self, op: Operation) -> None:
        match op:
            case tensor.EmptyOp():
                self.empties[op.tensor] = op
            case arith.ConstantOp():
                self._constant(op)
            case bufferization.ToTensorOp():
                self._bind(op.tensor, op.memref, Storage(op.memref, owned=False))
            case tensor.PadOp():
                self._pad(op)
            case tensor.CollapseShapeOp() | tensor.ExpandShapeOp():
                self._reshape(op)
            case tensor.ExtractSliceOp():
                self._extract_slice(op)
            case tensor.InsertSliceOp():
                self._insert_slice(op)
            case tensor.ConcatOp():
                self._concat(op)
            case _:
                inits = dps_inits(op)
                assert inits is not None, f"{op.name} passed the checks"
                self._destination_passing(op, inits)

    # ---------------------------------------------------------------------------------------
    # Signature

    def _arguments(self) -> list[BlockArgument]:
        """Memref arguments in place of the tensor ones; returns the tensor ones."""
        old: list[BlockArgument] = []
        for arg in list(self.block.args):
            if is_tensor(arg.type):
                new = self.block.insert_arg(memref_type_of(arg.type), arg.index + 1)
                new.name_hint = arg.name_hint
                self._bind(arg, new, Storage(new, owned=False))
                old.append(arg)
        return old

    def _results(self, ret: func.ReturnOp) -> list[DictionaryAttr]:
        """Out-parameters for the tensor results of ``ret``; returns their attributes."""
        res_attrs = self.f.res_attrs.data if self.f.res_attrs is not None else ()
        attrs: list[DictionaryAttr] = []
        claimed: dict[SSAValue, BlockArgument] = {}
        for i, value in enumerate(ret.operands):
            t = memref_type_of(value.type)
            out = self.block.insert_arg(t, len(self.block.args))
            out.name_hint = f"result{i}"
            given = dict(res_attrs[i].data) if i < len(res_attrs) else {}
            attrs.append(DictionaryAttr({**given, RESULT_ATTR_NAME: IntegerAttr(i, i64)}))
            buffer, storage = self._operand(value)
            if (storage.owned and buffer is storage.buffer and buffer not in claimed
                    and isinstance(buffer.owner, memref.AllocOp) and buffer.type == t):
                # The ops computing the result write the out-parameter itself.
                claimed[buffer] = out
            else:
                self._insert([memref.CopyOp(buffer, out)], ret, ret)
        for buffer, out in claimed.items():
            alloc = buffer.owner
            assert isinstance(alloc, memref.AllocOp)
            buffer.replace_all_uses_with(out)
            alloc.detach()
            alloc.erase()
        new_ret = func.ReturnOp()
        self._insert([new_ret], ret, ret)
        self.tensor_ops.append(ret)
        return attrs

    def run(self) -> None:
        """Bufferize the function (module doc)."""
        inputs = len(self.block.args)
        old_args = self._arguments()
        result_attrs: list[DictionaryAttr] = []
        for op in list(self.block.ops):
            if isinstance(op, func.ReturnOp):
                if op.operands:
                    result_attrs = self._results(op)
            elif tensor_op(op):
                self.tensor_ops.append(op)
                self._bufferize(op)
        for op in reversed(self.tensor_ops):
            op.detach()
            op.erase()
        for arg in old_args:
            self.block.erase_arg(arg)
        arg_attrs = list(self.f.arg_attrs.data) if self.f.arg_attrs is not None else [
            DictionaryAttr({}) for _ in range(inputs)]
        if result_attrs or self.f.arg_attrs is not None:
            self.f.arg_attrs = ArrayAttr(arg_attrs + result_attrs)
        self.f.res_attrs = None
        self.f.update_function_type()
