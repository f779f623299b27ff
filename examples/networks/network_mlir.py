"""Upstream-MLIR text of the networks of ``numpy_model.py``: one ``func.func`` per network, or
one per layer.

:func:`network_mlir` writes the whole network as one function on logical NCHW memrefs: the
input argument, the weights and biases (as arguments, ``weights="args"``, or as
``memref.global "private" constant`` hex literals read by ``memref.get_global``,
``weights="globals"``), and the int8 output argument. Every intermediate activation is an int8
``memref.alloc`` written by one layer's ``arith.trunci`` and read by the later ones, released by
a ``memref.dealloc`` after its last reader. Each layer is the input form of
``docs/pipeline.md`` "Stage 0":

* convolution: the padding idiom (``memref.alloc`` of the padded shape, ``linalg.fill`` with 0,
  ``memref.subview`` of the interior, ``memref.copy``), ``linalg.conv_2d_nchw_fchw`` into a
  zero-filled i32 accumulator, and one epilogue ``linalg.generic``: ``addi`` bias, ``shrsi``
  (or ``shrsi`` then ``addi`` bias: the layer's ``epilogue`` ``"shift-bias"``), the residual
  ``addi (extsi r)``, ``minsi``/``maxsi``, ``trunci``;
* max-pool: the input padded with the same idiom (filled with the pad value),
  ``linalg.pooling_nchw_max`` into an output filled with -128;
* global average pool: a reduction ``linalg.generic`` over H and W into an i32 ``N×C×1×1``
  accumulator (or ``N×C``, ``pool="nc"``), then ``muli`` by the multiplier, ``shrsi``, the
  clip and ``trunci``;
* fully connected: ``memref.collapse_shape`` of an ``N×C×1×1`` input to ``N×C``,
  ``linalg.matmul`` with K×N weights, the epilogue ``addi`` bias, ``shrsi`` (in the layer's
  ``epilogue`` order), clip, ``trunci``.

The principal op of each layer carries the layer's name as its location (``loc("conv1")``).

:func:`layer_mlir` writes one layer as a function of its own: the buffers it reads are
arguments (the network's activations given by the host; a fully connected layer's input
flattened), then its weights, then its output: what a layer costs on its own
(``benchmarks/resnet18_network.py --layers-alone``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy_model import INPUT, Conv, Dense, GlobalAvgPool, Layer, MaxPool, Network

from vta_mlir.frontend.mlir_text import (
    global_sum,
    memref_type,
    network_function,
    padding_idiom,
)

__all__ = ["arguments", "layer_inputs", "layer_mlir", "network_mlir", "weight_arrays"]

WEIGHT_FORMS = ("args", "globals")
#: Where a global average pool writes: N×C×1×1, which the fully connected layer reads through
#: ``memref.collapse_shape``, or N×C directly (a reduction with the map
#: ``(n, c, h, w) -> (n, c)``).
POOL_FORMS = ("nchw11", "nc")




def _ssa(name: str) -> str:
    """The SSA name of a buffer (layer names may hold dots: ``layer1.0.conv1``)."""
    return "%" + name.replace(".", "_")


def _symbol(name: str) -> str:
    return name.replace(".", "_")


def _hex(values: np.ndarray) -> str:
    """A ``dense<"0x...">`` literal: the little-endian bytes, as MLIR prints large constants."""
    little = values.astype(values.dtype.newbyteorder("<"))
    return f'dense<"0x{little.tobytes().hex().upper()}">'


def _element(values: np.ndarray) -> str:
    return {np.dtype(np.int8): "i8", np.dtype(np.int32): "i32"}[values.dtype]


def weight_arrays(net: Network) -> list[tuple[str, np.ndarray]]:
    """The weights and biases in signature order: ``(name, array)``, ``name_w`` then ``name_b``
    for each layer with weights."""
    arrays: list[tuple[str, np.ndarray]] = []
    for layer in net.weighted():
        arrays += [(f"{_symbol(layer.name)}_w", layer.weight),
                   (f"{_symbol(layer.name)}_b", layer.bias)]
    return arrays


def arguments(net: Network, x: np.ndarray, weights: str = "args") -> list[np.ndarray]:
    """The arrays the network's function reads, in signature order, for the input ``x``."""
    if weights == "globals":
        return [x]
    return [x, *(a for _, a in weight_arrays(net))]


def _bias_and_shift(layer: Conv | Dense) -> list[str]:
    """The epilogue's first steps, ``%v0`` and ``%v1`` from the accumulator ``%a`` and the
    bias ``%b``: ``addi`` then ``shrsi``, or ``shrsi`` then ``addi`` (``layer.epilogue``)."""
    shift = f"%s = arith.constant {layer.shift} : i32"
    if layer.epilogue == "shift-bias":
        return [shift, "%v0 = arith.shrsi %a, %s : i32", "%v1 = arith.addi %v0, %b : i32"]
    return ["%v0 = arith.addi %a, %b : i32", shift, "%v1 = arith.shrsi %v0, %s : i32"]


class _Emitter:
    """Writes the ops of layers into one function body, given where each buffer lives."""

    def __init__(self, shapes: dict[str, tuple[int, ...]]) -> None:
        self.shapes = shapes
        self.lines: list[str] = []

    def emit(self, layer: Layer, out: str) -> None:
        if isinstance(layer, Conv):
            self._conv(layer, out)
        elif isinstance(layer, MaxPool):
            self._maxpool(layer, out)
        elif isinstance(layer, GlobalAvgPool):
            self._avgpool(layer, out)
        else:
            self._dense(layer, out)

    def _padded(self, prefix: str, src: str, pad: int, fill: str) -> tuple[str, str]:
        """The padding idiom around ``src``: the padded buffer's SSA name and type."""
        lines, name, type_ = padding_idiom(prefix, _ssa(src), self.shapes[src], (pad,) * 4, fill)
        self.lines += lines
        return name, type_

    def _accumulator(self, prefix: str, shape: Sequence[int]) -> str:
        acc_t = memref_type(shape, "i32")
        self.lines += [
            f"  {prefix}_acc = memref.alloc() : {acc_t}",
            f"  linalg.fill ins(%c0_i32 : i32) outs({prefix}_acc : {acc_t})",
        ]
        return acc_t

    def _epilogue(self, prefix: str, shape: Sequence[int], out: str, steps: list[str],
                  bias: str | None, residual: str | None, lo: int) -> None:
        """One ``linalg.generic`` from the accumulator to ``out``: ``steps`` (lines computing
        ``%v1``, ``%v2``, ... from ``%v0``, the accumulator value; ``%b`` the bias, ``%r`` the
        residual widened) then the clip to ``[lo, 127]`` and ``trunci``."""
        rank = len(shape)
        dims = ", ".join(f"d{i}" for i in range(rank))
        ident = f"affine_map<({dims}) -> ({dims})>"
        maps, ins, block = [ident], [f"{prefix}_acc"], ["%a: i32"]
        types = [memref_type(shape, "i32")]
        if bias is not None:
            maps.append(f"affine_map<({dims}) -> (d1)>")
            ins.append(bias)
            types.append(memref_type((shape[1],), "i32"))
            block.append("%b: i32")
        if residual is not None:
            maps.append(ident)
            ins.append(_ssa(residual))
            types.append(memref_type(shape, "i8"))
            block.append("%res: i8")
        maps.append(ident)
        iterators = ", ".join(['"parallel"'] * rank)
        last = sum(1 for line in steps if line.startswith("%v")) - 1
        self.lines += [
            f"  linalg.generic {{indexing_maps = [{', '.join(maps)}],",
            f"                  iterator_types = [{iterators}]}}",
            f"      ins({', '.join(ins)} : {', '.join(types)})"
            f" outs({out} : {memref_type(shape, 'i8')})"
            " {",
            f"  ^bb0({', '.join(block)}, %o: i8):",
            *(f"    {line}" for line in steps),
            f"    %lo = arith.constant {lo} : i32",
            "    %hi = arith.constant 127 : i32",
            f"    %min = arith.minsi %v{last}, %hi : i32",
            "    %max = arith.maxsi %min, %lo : i32",
            "    %t = arith.trunci %max : i32 to i8",
            "    linalg.yield %t : i8",
            "  }",
        ]

    def _conv(self, layer: Conv, out: str) -> None:
        prefix = _ssa(layer.name)
        o, c, k, _ = layer.weight.shape
        shape = self.shapes[layer.name]
        data, data_t = self._padded(prefix, layer.src, layer.pad, "%c0_i8")
        acc_t = self._accumulator(prefix, shape)
        self.lines += [
            "  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, "
            f"strides = dense<{layer.stride}> : tensor<2xi64>}}",
            f"      ins({data}, {prefix}_w : {data_t}, {memref_type((o, c, k, k), 'i8')})"
            f" outs({prefix}_acc : {acc_t}) loc(\"{layer.name}\")",
        ]
        steps = _bias_and_shift(layer)
        if layer.residual is not None:
            steps += ["%re = arith.extsi %res : i8 to i32", "%v2 = arith.addi %v1, %re : i32"]
        self._epilogue(prefix, shape, out, steps, f"{prefix}_b", layer.residual,
                       0 if layer.relu else -128)
        self.lines.append(f"  memref.dealloc {prefix}_acc : {acc_t}")
        if layer.pad:
            self.lines.append(f"  memref.dealloc {data} : {data_t}")

    def _maxpool(self, layer: MaxPool, out: str) -> None:
        prefix = _ssa(layer.name)
        shape = self.shapes[layer.name]
        fill = "%c0_i8" if layer.pad_value == 0 else "%cmin_i8"
        if layer.pad_value not in (0, -128):
            raise ValueError(f"{layer.name}: pad value {layer.pad_value}, not 0 or -128")
        data, data_t = self._padded(prefix, layer.src, layer.pad, fill)
        win_t = memref_type((layer.kernel, layer.kernel), "i8")
        out_t = memref_type(shape, "i8")
        self.lines += [
            f"  {prefix}_win = memref.alloc() : {win_t}",
            f"  linalg.fill ins(%cmin_i8 : i8) outs({out} : {out_t})",
            "  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, "
            f"strides = dense<{layer.stride}> : tensor<2xi64>}}",
            f"      ins({data}, {prefix}_win : {data_t}, {win_t}) outs({out} : {out_t})"
            f" loc(\"{layer.name}\")",
            f"  memref.dealloc {prefix}_win : {win_t}",
        ]
        if layer.pad:
            self.lines.append(f"  memref.dealloc {data} : {data_t}")

    def _avgpool(self, layer: GlobalAvgPool, out: str) -> None:
        prefix = _ssa(layer.name)
        src_shape = self.shapes[layer.src]
        shape = self.shapes[layer.name]
        acc_t = self._accumulator(prefix, shape)
        self.lines += global_sum(_ssa(layer.src), src_shape, f"{prefix}_acc", layer.name,
                                 keep_dims=len(shape) == 4)
        steps = [
            f"%m = arith.constant {layer.multiplier} : i32",
            "%v0 = arith.muli %a, %m : i32",
            f"%s = arith.constant {layer.shift} : i32",
            "%v1 = arith.shrsi %v0, %s : i32",
        ]
        self._epilogue(prefix, shape, out, steps, None, None, -128)
        self.lines.append(f"  memref.dealloc {prefix}_acc : {acc_t}")

    def _dense(self, layer: Dense, out: str) -> None:
        prefix = _ssa(layer.name)
        src_shape = self.shapes[layer.src]
        k, n = layer.weight.shape
        flat_shape = (src_shape[0], k)
        data = _ssa(layer.src)
        if len(src_shape) != 2:
            groups = "[[0], [" + ", ".join(str(i) for i in range(1, len(src_shape))) + "]]"
            self.lines.append(
                f"  {prefix}_x = memref.collapse_shape {data} {groups} : "
                f"{memref_type(src_shape, 'i8')} into {memref_type(flat_shape, 'i8')}")
            data = f"{prefix}_x"
        shape = self.shapes[layer.name]
        acc_t = self._accumulator(prefix, shape)
        self.lines.append(
            f"  linalg.matmul ins({data}, {prefix}_w : {memref_type(flat_shape, 'i8')}, "
            f"{memref_type((k, n), 'i8')}) outs({prefix}_acc : {acc_t}) loc(\"{layer.name}\")")
        self._epilogue(prefix, shape, out, _bias_and_shift(layer), f"{prefix}_b", None, -128)
        self.lines.append(f"  memref.dealloc {prefix}_acc : {acc_t}")


def _function(name: str, layers: Sequence[Layer], inputs: Sequence[str],
              shapes: dict[str, tuple[int, ...]], weights: str) -> str:
    """``func.func @name`` computing ``layers`` from the buffers ``inputs`` (arguments) into
    the last layer's buffer (the output argument); weights as arguments or globals."""
    if weights not in WEIGHT_FORMS:
        raise ValueError(f"weights must be one of {', '.join(WEIGHT_FORMS)}, not {weights!r}")
    output = layers[-1].name
    weighted = [lay for lay in layers if isinstance(lay, Conv | Dense)]
    params = [f"{_ssa(b)}: {memref_type(shapes[b], 'i8')}" for b in inputs]
    globals_: list[str] = []
    fetch: list[str] = []
    for layer in weighted:
        for suffix, values in (("w", layer.weight), ("b", layer.bias)):
            symbol, value_t = f"{_symbol(layer.name)}_{suffix}", memref_type(
                values.shape, _element(values))
            if weights == "args":
                params.append(f"%{symbol}: {value_t}")
            else:
                globals_.append(f'memref.global "private" constant @{symbol} : {value_t} = '
                                f"{_hex(values)}")
                fetch.append(f"  %{symbol} = memref.get_global @{symbol} : {value_t}")
    params.append(f"{_ssa(output)}: {memref_type(shapes[output], 'i8')}")

    emitter = _Emitter(shapes)
    # The last reader of each buffer allocated here releases it.
    last_reader: dict[str, str] = {}
    for layer in layers:
        for src in layer.sources:
            last_reader[src] = layer.name
    for layer in layers:
        if layer.name != output:
            emitter.lines.append(f"  {_ssa(layer.name)} = memref.alloc() : "
                                 f"{memref_type(shapes[layer.name], 'i8')}")
        emitter.emit(layer, _ssa(layer.name))
        for src in dict.fromkeys(layer.sources):
            if src not in inputs and last_reader[src] == layer.name:
                emitter.lines.append(f"  memref.dealloc {_ssa(src)} : "
                                     f"{memref_type(shapes[src], 'i8')}")
    return network_function(name, params, globals_, fetch, emitter.lines)


def network_mlir(net: Network, *, weights: str = "args", header: str = "",
                 pool: str = "nchw11") -> str:
    """The whole network as ``func.func @<net.name>(%input, weights..., %output)``, its global
    average pools written into N×C×1×1 or N×C buffers (``pool``, one of :data:`POOL_FORMS`)."""
    if pool not in POOL_FORMS:
        raise ValueError(f"pool must be one of {', '.join(POOL_FORMS)}, not {pool!r}")
    shapes = net.shapes()
    if pool == "nc":
        shapes |= {lay.name: shapes[lay.name][:2] for lay in net.layers
                   if isinstance(lay, GlobalAvgPool)}
    return header + _function(net.name, net.layers, [INPUT], shapes, weights)


def layer_inputs(net: Network, name: str) -> dict[str, tuple[int, ...]]:
    """The buffers :func:`layer_mlir`'s function reads, with the shapes of its arguments: a
    fully connected layer takes its input flattened to ``N × K`` (the host reshapes it)."""
    layer = _layer(net, name)
    shapes = net.shapes()
    inputs = {src: shapes[src] for src in layer.sources}
    if isinstance(layer, Dense):
        inputs[layer.src] = (shapes[layer.src][0], layer.weight.shape[0])
    return inputs


def layer_mlir(net: Network, name: str, *, weights: str = "args") -> str:
    """The layer ``name`` alone: ``func.func @<layer>(sources..., weights..., %output)``,
    the sources shaped as :func:`layer_inputs` says."""
    layer = _layer(net, name)
    shapes = {**net.shapes(), **layer_inputs(net, name)}
    return _function(_symbol(name), [layer], list(dict.fromkeys(layer.sources)), shapes,
                     weights)


def _layer(net: Network, name: str) -> Layer:
    layer = next((lay for lay in net.layers if lay.name == name), None)
    if layer is None:
        raise KeyError(f"{net.name} has no layer {name!r}")
    return layer
