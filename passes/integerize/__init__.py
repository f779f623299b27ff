"""``vta-integerize``: quantized networks written with float requantization, as MLIR frontends
emit them (torch-mlir's linalg-on-tensors output for a QDQ model, after ``vta-bufferize``), to
the integer layers the pipeline takes.

Such a program keeps int8 codes between layers but computes each layer's requantization in
float: ``sitofp`` and ``mulf`` of the int32 accumulator, maybe an ``addf`` of a bias
dequantized on its own, then ``divf`` by the output scale, ``math.roundeven``, ``addf`` of the
zero point, a clamp and ``fptosi``. Max-pools, average pools and residual adds run on
dequantized floats between a dequantize and a quantize. The pass reads the function
(``lift.py``) as the integer program of ``docs/onnx.md`` §3–§4 and writes it again
(:func:`vta_mlir.quant.emit.emit_program`):

* a ``linalg.conv_2d_nchw_fchw_q`` or ``linalg.quantized_matmul`` (constant zero points, int8
  weights) with its bias, followed by the float requantization → a convolution or matrix product
  on codes with the zero points folded into the bias and a fixed-point requantization
  (``requant=fixed-point``);
* dequantize → max-pool padded with −∞ → quantize alike → a max-pool on codes padded with −128;
* dequantize → ``pooling_nchw_sum`` over the image → ``divf`` by its size → quantize → a global
  average pool;
* dequantize → padded with 0.0 → ``pooling_nchw_sum`` with any window → ``divf`` by the window
  size or by the count of taps inside the image computed from ``linalg.index`` → quantize → an
  average pool (``pools.py``);
* the ``addf`` of two dequantized tensors → quantize → an add of two rescaled tensors;
* ``max(q, zero point)`` on codes → the ReLU folded into the layer before it; a dequantize then
  quantize with the same parameters → nothing; generics on constants → their values;
* the quantize of the float input and the dequantize into the result → the host steps of
  ``vta.quant`` on the arguments (``docs/dialects.md``).
* per-channel weights, which torch-mlir keeps in float (a generic dequantizing the int8
  weights per output channel, a float convolution or matrix product) → the integer layer
  with per-channel fixed-point multipliers (``channels.py``);
* uint8 codes (``fptoui`` into [0, 255], ``x + (−128)``, ``maxui``, ``uitofp``/``extui``) →
  int8 codes with the zero point minus 128 (``unsigned.py``, ``docs/onnx.md`` §2.1);
* a gather computing its source indices from ``linalg.index`` in float (torch-mlir's nearest
  ``Resize``), its index table ``o // f`` → a nearest upsampling on codes (``gather.py``);
  dequantized tensors copied into channel slices (``tensor.concat``) → a Concat (``neck.py``);
* element-wise float chains on one tensor's reals → ``HardSigmoid``, ``HardSwish`` or a ``Mul``
  by a constant in fixed point (``hard.py``); ``Sigmoid`` and ``Softmax`` bodies → host layers,
  float code the host computes (``host.py``);
* a ``quantized_batch_matmul`` of a ``B×S×K`` activation by a broadcast constant weight → a
  dense layer on its rows; of two activations' codes (attention's ``Q·Kᵀ``, ``P·V``) → a
  batched product (``batch.py``);
* any other float code between dequantizes (or the float input) and quantizes (or the float
  result) → float layers holding the function's own ops, which the host computes with the
  reference evaluator's semantics (``floats.py``); a matrix product whose codes only float
  code reads → its int32 accumulators, which the host requantizes as the program does
  (``docs/onnx.md`` §4.19).

The fixed-point requantization changes a value by at most one rounding step against the
float one, so the pass only does it when asked: ``requant=fixed-point``. Without it, a function
with a float requantization stops with an error that names the option. ``vta-to-isa`` takes
the same option and runs this pass when the input has float layers; ``vta-run`` sets it.
Anything the reading does not recognise is one error at the op, and the module is left
unchanged.

Input (after ``vta-bufferize``; constants elided)::

    func.func @dense(%arg0: memref<2x40xf32>, %result0: memref<2x24xf32> {vta.result = 0 : i64}) {
      linalg.generic ... ins(%arg0 ...) outs(%3 : memref<2x40xi8>) {  // divf, roundeven, ...
      linalg.fill ins(%c0_i32 : i32) outs(%11 : memref<2x24xi32>)
      linalg.quantized_matmul ins(%3, %10, %c6_i32, %c0_i32 : ...) outs(%11 : memref<2x24xi32>)
      linalg.generic ... ins(%11 ...) outs(%12 : memref<2x24xf32>)    // sitofp, mulf
      linalg.generic ... ins(%12, %0 ...) outs(%13 : memref<2x24xf32>) // addf of the bias
      linalg.generic ... ins(%13 ...) outs(%18 : memref<2x24xi8>)     // divf, roundeven, ...
      linalg.generic ... ins(%18 ...) outs(%result0 : memref<2x24xf32>) // sitofp, mulf
      func.return
    }

Output::

    func.func @dense(%input: memref<2x40xi8> {vta.quant = {scale = ..., zero_point = 6}},
                     %output: memref<2x24xi8> {vta.quant = {...}, vta.result = 0 : i64}) {
      linalg.matmul ins(%input, %dense0_w ...) outs(%dense0_acc : memref<2x24xi32>)
      linalg.generic ... {  // addi bias, minsi, maxsi, muli, shrsi, addi, shrsi, trunci
      return
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    DictionaryAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from vta_mlir.host import RESULT_ATTR_NAME
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.passes.outline_host_steps import HOST_FLOAT_ATTR
from vta_mlir.quant.emit import emit_program

from . import bodies
from .lift import lift_function
from .meaning import Unsupported

__all__ = ["REQUANT_ATTR_NAME", "REQUANT_MODES", "IntegerizePass", "has_float_layers"]

#: The module attribute that records what the pass did: the mode, the layers it wrote and the
#: largest error of their fixed-point requantization against the float one, in output steps
#: (``vta-run --stats`` reports it as ``requant``).
REQUANT_ATTR_NAME = "vta.requant"

#: The values of the ``requant`` option: ``fixed-point`` replaces float requantization.
REQUANT_MODES = ("none", "fixed-point")


def _is_float(t: object) -> bool:
    return isinstance(t, MemRefType) and isinstance(t.element_type, Float32Type | Float64Type)


def _reads_float_input(f: func.FuncOp) -> bool:
    """Whether ``f`` returns floats or reads a float argument (its network's input), and does
    not say that its float code is host code (``vta.host_float``)."""
    if HOST_FLOAT_ATTR in f.attributes:
        return False
    if any(_is_float(t) for t in f.function_type.outputs.data):
        return True
    for arg in f.body.block.args:
        if not _is_float(arg.type):
            continue
        for use in arg.uses:
            user = use.operation
            if isinstance(user, memref.CopyOp) and user.source is arg:
                return True
            if isinstance(user, linalg.GenericOp) and arg in user.inputs:
                return True
    return False


def has_float_layers(module: ModuleOp) -> bool:
    """Whether a function of ``module`` reads a float input (or returns floats) and computes on
    float buffers: a quantized network with float requantization, as torch-mlir writes one.
    (Float code in a function of integer inputs is host code: ``vta-outline-host-steps``.)"""
    for f in module.walk():
        if not isinstance(f, func.FuncOp) or f.is_declaration or not _reads_float_input(f):
            continue
        for op in f.walk():
            if isinstance(op, linalg.GenericOp) and any(_is_float(v.type) for v in op.operands):
                return True
    return False


def _float_functions(module: ModuleOp) -> list[func.FuncOp]:
    found = []
    for f in module.ops:
        if isinstance(f, func.FuncOp) and not f.is_declaration \
                and HOST_FLOAT_ATTR not in f.attributes and any(
                isinstance(op, linalg.GenericOp) and any(_is_float(v.type) for v in op.operands)
                for op in f.walk()):
            found.append(f)
    return found


def _first_float_requant(f: func.FuncOp) -> Operation:
    """The first quantization of a computed float value (not of the function's input, nor of
    a constant), else the first generic on floats."""
    generics = [op for op in f.walk() if isinstance(op, linalg.GenericOp)
                and any(_is_float(v.type) for v in op.operands)]
    for op in generics:
        if bodies.quantize(op) is None:
            continue
        src = op.inputs[0]
        writers = [u.operation for u in src.uses if isinstance(u.operation, linalg.GenericOp)
                   and src in u.operation.outputs]
        if any(not all(isinstance(i.owner, memref.GetGlobalOp) for i in w.inputs)
               for w in writers):
            return op
    return generics[0] if generics else f


@dataclass(frozen=True)
class IntegerizePass(ModulePass):
    """The pass; see the module docstring."""

    name = "vta-integerize"

    requant: str = "none"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.requant not in REQUANT_MODES:
            report_error(op, f"vta-integerize: requant={self.requant!r}, not one of "
                             f"{', '.join(REQUANT_MODES)}")
        functions = _float_functions(op)
        if not functions:
            return
        if self.requant != "fixed-point":
            report_error(_first_float_requant(functions[0]),
                         "the network requantizes in float: rerun with requant=fixed-point "
                         "(vta-integerize{requant=fixed-point}, vta-to-isa{requant=fixed-point})"
                         " to compute it in fixed point, within one rounding step of the float "
                         "result")
        replacements = []
        worst = 0.0
        layers = 0
        for f in functions:
            try:
                program, bound = lift_function(op, f)
            except Unsupported as exc:
                report_error(exc.op, f"vta-integerize: {exc}")
            replacements.append((f, program))
            worst = max(worst, bound)
            layers += len(program.layers)
        # Nothing is changed before every function has been read.
        for f, program in replacements:
            _replace(op, f, emit_program(program))
        op.attributes[REQUANT_ATTR_NAME] = DictionaryAttr({
            "mode": StringAttr(self.requant),
            "max_error_steps": FloatAttr(worst, Float64Type()),
            "layers": IntegerAttr(layers, IntegerType(64))})


def _replace(module: ModuleOp, f: func.FuncOp, text: str) -> None:
    """Put the function of ``text`` (and its globals) in place of ``f``; ``f``'s result
    attribute moves to the new output argument."""
    from vta_mlir.api import parse

    new_module = parse(text)
    new_func = next(o for o in new_module.ops if isinstance(o, func.FuncOp))
    new_globals = [o for o in new_module.ops if isinstance(o, memref.GlobalOp)]
    result_attrs = [a.data.get(RESULT_ATTR_NAME) for a in f.arg_attrs.data] \
        if f.arg_attrs is not None else []
    result = next((r for r in result_attrs if r is not None), None)
    read_globals = {g.name_.root_reference.data for g in f.walk()
                    if isinstance(g, memref.GetGlobalOp)}
    f.detach()
    f.erase()
    still_read = {g.name_.root_reference.data for g in module.walk()
                  if isinstance(g, memref.GetGlobalOp)}
    for g in list(module.ops):
        if isinstance(g, memref.GlobalOp) and g.sym_name.data in read_globals - still_read:
            module.body.block.erase_op(g)
    taken = {o.sym_name.data for o in module.ops if isinstance(o, memref.GlobalOp | func.FuncOp)}
    renames: dict[str, str] = {}
    for g in new_globals:
        name = g.sym_name.data
        if name in taken:
            fresh = next(f"{name}_{i}" for i in range(1, 1 << 20) if f"{name}_{i}" not in taken)
            renames[name] = fresh
            g.sym_name = StringAttr(fresh)
        taken.add(g.sym_name.data)
    for read in new_func.walk():
        if isinstance(read, memref.GetGlobalOp) and read.name_.root_reference.data in renames:
            read.name_ = SymbolRefAttr(renames[read.name_.root_reference.data])
    if result is not None and new_func.arg_attrs is not None:
        attrs = list(new_func.arg_attrs.data)
        attrs[-1] = DictionaryAttr({**attrs[-1].data, RESULT_ATTR_NAME: result})
        new_func.arg_attrs = type(new_func.arg_attrs)(attrs)
    for g in new_globals:
        g.detach()
        module.body.block.add_op(g)
    new_func.detach()
    module.body.block.add_op(new_func)
