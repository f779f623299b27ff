"""``vta-bufferize``: linalg on tensors (what MLIR frontends such as torch-mlir emit) to the
memref form in destination-passing style that the pipeline takes.

For each function with tensors in its signature or body (``function.py``):

* ``tensor.empty`` → ``memref.alloc`` (one per op writing it: an empty tensor has no
  contents); tensor arguments → memref arguments;
* a linalg op on tensors (any op of the dialect whose tensor results are typed like its last
  operands, its ``outs``: ``linalg.generic``, ``fill``, ``matmul``, ``conv_2d_nchw_fchw``,
  ``pooling_nchw_max``, ``broadcast``, ``transpose``, ... and ops registered later) → the same
  op on memrefs without results, writing its ``outs`` buffer in place when no later op reads
  what that buffer holds, else a copy of it;
* ``tensor.pad`` (static pads, a constant pad value) → the padding idiom: ``memref.alloc``,
  ``linalg.fill`` with the pad value, ``memref.subview`` of the interior, ``memref.copy``;
* ``tensor.collapse_shape`` / ``expand_shape`` → ``memref.collapse_shape`` / ``expand_shape``
  of the source buffer; ``tensor.extract_slice`` → ``memref.subview``;
  ``tensor.insert_slice`` → ``memref.copy`` into a ``memref.subview`` of the destination;
* a dense tensor ``arith.constant`` → a ``memref.global`` constant (the same ``dense<...>``
  attribute, bytes stay bytes) read by ``memref.get_global``;
* ``bufferization.to_tensor`` → its memref (read only: ops write copies of it);
* a ``tensor.extract`` in the body of a linalg op, of a tensor defined outside the op (a
  gather, as torch-mlir writes a nearest ``Resize``) → ``memref.load`` of that tensor's buffer;
* the function's results → trailing out-parameters with ``vta.result = i``, written by the
  ops computing them (``docs/dialects.md``); ``vta-run`` and ``vta_mlir.compile`` return them
  after the arguments the function writes.

Anything else on tensors (another tensor op, dynamic shapes, tensors inside loops,
``bufferization.to_buffer``) is one error at the op, and the module is left unchanged (the
pass works on a copy).  The buffer decisions depend on the order of the whole function's uses,
so the pass walks each function once rather than applying local rewrite patterns.
``vta-to-isa`` (``vta-run``, ``vta-translate``, ``vta_mlir.compile``) runs it first when the
input has tensors (:func:`has_tensors`).  ``docs/pipeline.md`` ("Input forms: linalg on tensors").

Input::

    func.func @dense(%x: tensor<1x64xi8>, %w: tensor<64x32xi8>) -> tensor<1x32xi8> {
      %0 = tensor.empty() : tensor<1x32xi32>
      %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<1x32xi32>) -> tensor<1x32xi32>
      %2 = linalg.matmul ins(%x, %w : ...) outs(%1 : tensor<1x32xi32>) -> tensor<1x32xi32>
      %3 = tensor.empty() : tensor<1x32xi8>
      %4 = linalg.generic {...} ins(%2 : tensor<1x32xi32>) outs(%3 : tensor<1x32xi8>) {...}
      return %4 : tensor<1x32xi8>
    }

Output::

    func.func @dense(%x: memref<1x64xi8>, %w: memref<64x32xi8>,
                     %result0: memref<1x32xi8> {vta.result = 0 : i64}) {
      %0 = memref.alloc() : memref<1x32xi32>
      linalg.fill ins(%c0 : i32) outs(%0 : memref<1x32xi32>)
      linalg.matmul ins(%x, %w : ...) outs(%0 : memref<1x32xi32>)
      linalg.generic {...} ins(%0 : memref<1x32xi32>) outs(%result0 : memref<1x32xi8>) {...}
      return
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.host import RESULT_ATTR_NAME
from vta_mlir.ir.diagnostics import verify_op

from .check import check_function, is_tensor, tensor_op
from .function import ConstantGlobals, FunctionBufferizer

__all__ = ["RESULT_ATTR_NAME", "BufferizePass", "function_has_tensors", "has_tensors"]


def function_has_tensors(f: func.FuncOp) -> bool:
    """Whether ``f`` has a tensor in its signature or a tensor op in its body."""
    t = f.function_type
    if any(is_tensor(a) for a in (*t.inputs.data, *t.outputs.data)):
        return True
    return any(tensor_op(op) for op in f.body.walk())


def has_tensors(module: Operation) -> bool:
    """Whether a function of ``module`` needs vta-bufferize (:func:`function_has_tensors`)."""
    return any(function_has_tensors(f) for f in module.walk() if isinstance(f, func.FuncOp))


def bufferize_module(module: ModuleOp) -> None:
    """Bufferize every function of ``module`` that has tensors, in place; on an error,
    ``module`` may be half rewritten (the pass runs this on a copy)."""
    functions = [f for f in module.walk() if isinstance(f, func.FuncOp)
                 and function_has_tensors(f)]
    # Everything is checked before anything changes.
    for f in functions:
        check_function(f)
    taken = {op.sym_name.data for op in module.walk()
             if isinstance(op, memref.GlobalOp | func.FuncOp)}
    constants = ConstantGlobals(taken)
    for f in functions:
        FunctionBufferizer(f, constants).run()
    if constants.globals:
        first = module.body.block.first_op
        if first is None:
            module.body.block.add_ops(constants.globals)
        else:
            Rewriter.insert_op(constants.globals, InsertPoint.before(first))


@dataclass(frozen=True)
class BufferizePass(ModulePass):
    """The pass ``vta-bufferize``; see the module docstring."""

    name = "vta-bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not has_tensors(op):
            return
        work = op.clone()
        bufferize_module(work)
        verify_op(work)
        # Only a whole success replaces the module's contents.
        for block in list(op.body.blocks):
            op.body.detach_block(block).erase(safe_erase=False)
        work.body.move_blocks(op.body)
