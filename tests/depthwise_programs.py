"""Depthwise convolution programs of the end-to-end tests, and their numpy model.

:func:`depthwise_program` writes one layer in each input form ``vta-pack`` takes — the named
``linalg.depthwise_conv_2d_nchw_chw`` or the equivalent ``linalg.generic``, a ``C×KH×KW`` or
ONNX's ``C×1×KH×KW`` kernel, on memrefs or on tensors (torch-mlir's form, bufferized by the
pipeline) — with a constant kernel and bias, zero padding, and the epilogue ``clip((acc +
bias) >> shift, lo, hi)`` (ReLU6 as a clip).  :func:`depthwise_reference` computes the same
layer with numpy, independently of the compiler.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .mlir_programs import amap, mac_region, memref


@dataclass(frozen=True)
class Depthwise:
    """One depthwise layer: ``channels`` of ``size × size`` data, a ``kernel × kernel``
    window, ``stride``, ``pad`` zero rows and columns on each side, the kernel
    ``C×KH×KW`` (or ``C×1×KH×KW`` when ``onnx_kernel``), the named op or a generic."""

    channels: int
    size: int
    kernel: int = 3
    stride: int = 1
    pad: int = 1
    form: str = "named"  # "named", "generic" or "nhwc" (linalg.depthwise_conv_2d_nhwc_hwc)
    onnx_kernel: bool = False
    shift: int = 6
    lo: int = 0
    hi: int = 6
    batch: int = 1

    @property
    def out_size(self) -> int:
        return (self.size + 2 * self.pad - self.kernel) // self.stride + 1

    @property
    def kernel_shape(self) -> tuple[int, ...]:
        c, k = self.channels, self.kernel
        if self.form == "nhwc":
            return (k, k, c)
        return (c, 1, k, k) if self.onnx_kernel else (c, k, k)

    def nchw(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """``shape`` (N, C, H, W) in the layer's layout: NHWC for the ``nhwc`` form."""
        n, c, h, w = shape
        return (n, h, w, c) if self.form == "nhwc" else shape


def _hex(values: np.ndarray) -> str:
    return f'dense<"0x{values.astype(values.dtype.newbyteorder("<")).tobytes().hex().upper()}">'


def _tensor_type(shape: tuple[int, ...], element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def depthwise_reference(layer: Depthwise, x: np.ndarray, w: np.ndarray,
                        bias: np.ndarray) -> np.ndarray:
    """``clip((dwconv(x zero-padded, w) + bias) >> shift, lo, hi)`` as int8."""
    c, k, s, p = layer.channels, layer.kernel, layer.stride, layer.pad
    nhwc = layer.form == "nhwc"
    kernel = (np.moveaxis(w, 2, 0) if nhwc else w.reshape(c, k, k)).astype(np.int64)
    if nhwc:  # NHWC in and out: the same computation on the transposed arrays
        x = np.moveaxis(x, 3, 1)
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (p, p), (p, p)))
    o = layer.out_size
    acc = np.zeros((x.shape[0], c, o, o), np.int64)
    for i in range(k):
        for j in range(k):
            window = xp[:, :, i:i + (o - 1) * s + 1:s, j:j + (o - 1) * s + 1:s]
            acc += window * kernel[None, :, i, j, None, None]
    acc += bias.astype(np.int64)[None, :, None, None]
    y = np.clip(acc >> layer.shift, layer.lo, layer.hi).astype(np.int8)
    return np.ascontiguousarray(np.moveaxis(y, 1, 3)) if nhwc else y


def _conv_op(layer: Depthwise, data: str, data_t: str, w_t: str, acc: str, acc_t: str) -> str:
    s = layer.stride
    if layer.form == "nhwc":
        return (f"  linalg.depthwise_conv_2d_nhwc_hwc {{dilations = dense<1> : vector<2xi64>, "
                f"strides = dense<{s}> : vector<2xi64>}}\n"
                f"      ins({data}, %w : {data_t}, {w_t}) outs({acc} : {acc_t})")
    if layer.form == "named":
        return (f"  linalg.depthwise_conv_2d_nchw_chw {{dilations = dense<1> : vector<2xi64>, "
                f"strides = dense<{s}> : vector<2xi64>}}\n"
                f"      ins({data}, %w : {data_t}, {w_t}) outs({acc} : {acc_t})")
    # (n, c, oh, ow, kh, kw), the loops in another order than the named op's.
    dims = "(n, kh, c, oh, kw, ow)"
    kernel = "(c, 0, kh, kw)" if layer.onnx_kernel else "(c, kh, kw)"
    maps = [f"affine_map<{dims} -> (n, c, oh * {s} + kh, ow * {s} + kw)>",
            f"affine_map<{dims} -> {kernel}>", f"affine_map<{dims} -> (n, c, oh, ow)>"]
    iterators = ", ".join(f'"{t}"' for t in ("parallel", "reduction", "parallel", "parallel",
                                             "reduction", "parallel"))
    return (f"  linalg.generic {{indexing_maps = [{', '.join(maps)}], "
            f"iterator_types = [{iterators}]}}\n"
            f"      ins({data}, %w : {data_t}, {w_t}) outs({acc} : {acc_t}) {{\n"
            f"{mac_region('%xv', '%wv', '%sv')}\n  }}")


def _epilogue(layer: Depthwise, acc: str, acc_t: str, out: str, out_t: str,
              tensors: bool) -> str:
    ident = amap(4, range(4))
    channel = 3 if layer.form == "nhwc" else 1
    result = f" -> {out_t}" if tensors else ""
    name = "%r = " if tensors else ""
    return f"""
  {name}linalg.generic {{indexing_maps = [{ident}, {amap(4, (channel,))}, {ident}],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins({acc}, %b : {acc_t}, {"tensor" if tensors else "memref"}<{layer.channels}xi32>)
      outs({out} : {out_t}) {{
  ^bb0(%a: i32, %bias: i32, %o: i8):
    %s = arith.addi %a, %bias : i32
    %sh = arith.constant {layer.shift} : i32
    %q = arith.shrsi %s, %sh : i32
    %lo = arith.constant {layer.lo} : i32
    %hi = arith.constant {layer.hi} : i32
    %m = arith.maxsi %q, %lo : i32
    %n = arith.minsi %m, %hi : i32
    %t = arith.trunci %n : i32 to i8
    linalg.yield %t : i8
  }}{result}"""


def depthwise_program(layer: Depthwise, w: np.ndarray, bias: np.ndarray,
                      tensors: bool = False) -> str:
    """The layer as a module: ``@dw(%x) -> %y`` with the kernel ``w`` and ``bias`` constants
    (memref globals, or ``arith.constant`` tensors when ``tensors``)."""
    c, n, p = layer.channels, layer.size, layer.pad
    o = layer.out_size
    b = layer.batch
    x_shape, p_shape = (b, c, n, n), (b, c, n + 2 * p, n + 2 * p)
    out_shape = (b, c, o, o)
    if layer.form == "nhwc":
        x_shape, p_shape, out_shape = (layer.nchw(t) for t in (x_shape, p_shape, out_shape))
    if tensors:
        return _tensor_program(layer, w, bias, x_shape, p_shape, out_shape)
    x_t, p_t, w_t = memref(x_shape, "i8"), memref(p_shape, "i8"), memref(w.shape, "i8")
    acc_t, out_t = memref(out_shape, "i32"), memref(out_shape, "i8")
    b_t = memref((c,), "i32")
    wp = n + 2 * p
    strides = f"strided<[{c * wp ** 2}, {wp ** 2}, {wp}, 1], offset: {p * wp + p}>"
    offsets, sizes = f"[0, 0, {p}, {p}]", f"[{b}, {c}, {n}, {n}]"
    if layer.form == "nhwc":
        strides = f"strided<[{c * wp ** 2}, {wp * c}, {c}, 1], offset: {(p * wp + p) * c}>"
        offsets, sizes = f"[0, {p}, {p}, 0]", f"[{b}, {n}, {n}, {c}]"
    data = "%x"
    ops = [f"  %w = memref.get_global @w : {w_t}", f"  %b = memref.get_global @b : {b_t}",
           "  %c0 = arith.constant 0 : i32", "  %c0_i8 = arith.constant 0 : i8"]
    if p:
        view_t = f"memref<{'x'.join(map(str, x_shape))}xi8, {strides}>"
        ops += [f"  %xp = memref.alloc() : {p_t}",
                f"  linalg.fill ins(%c0_i8 : i8) outs(%xp : {p_t})",
                f"  %xi = memref.subview %xp{offsets} {sizes} [1, 1, 1, 1] "
                f": {p_t} to {view_t}",
                f"  memref.copy %x, %xi : {x_t} to {view_t}"]
        data = "%xp"
    ops += [f"  %acc = memref.alloc() : {acc_t}",
            f"  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})",
            _conv_op(layer, data, p_t if p else x_t, w_t, "%acc", acc_t),
            _epilogue(layer, "%acc", acc_t, "%y", out_t, False)]
    body = "\n".join(ops)
    return (f'memref.global "private" constant @w : {w_t} = {_hex(w)}\n'
            f'memref.global "private" constant @b : {b_t} = {_hex(bias)}\n'
            f"func.func @dw(%x: {x_t}, %y: {out_t}) {{\n{body}\n  return\n}}\n")


def _tensor_program(layer: Depthwise, w: np.ndarray, bias: np.ndarray, x_shape: tuple[int, ...],
                    p_shape: tuple[int, ...], out_shape: tuple[int, ...]) -> str:
    """The layer on tensors, as torch-mlir writes linalg: ``tensor.pad``, ``tensor.empty``
    inits, the results returned."""
    p = layer.pad
    x_t, p_t = _tensor_type(x_shape, "i8"), _tensor_type(p_shape, "i8")
    w_t = _tensor_type(tuple(w.shape), "i8")
    acc_t, out_t = _tensor_type(out_shape, "i32"), _tensor_type(out_shape, "i8")
    data, data_t = "%x", x_t
    ops = [f"  %w = arith.constant {_hex(w)} : {w_t}",
           f"  %b = arith.constant {_hex(bias)} : tensor<{layer.channels}xi32>",
           "  %c0 = arith.constant 0 : i32", "  %c0_i8 = arith.constant 0 : i8"]
    if p:
        ops += [f"  %xp = tensor.pad %x low[0, 0, {p}, {p}] high[0, 0, {p}, {p}] {{",
                "  ^bb0(%i: index, %j: index, %k: index, %l: index):",
                "    tensor.yield %c0_i8 : i8", f"  }} : {x_t} to {p_t}"]
        data, data_t = "%xp", p_t
    conv = _conv_op(layer, data, data_t, w_t, "%fill", acc_t)
    ops += [f"  %e = tensor.empty() : {acc_t}",
            f"  %fill = linalg.fill ins(%c0 : i32) outs(%e : {acc_t}) -> {acc_t}",
            f"  %acc = {conv.strip()} -> {acc_t}",
            f"  %out = tensor.empty() : {out_t}",
            _epilogue(layer, "%acc", acc_t, "%out", out_t, True),
            f"  return %r : {out_t}"]
    body = "\n".join(ops)
    return f"func.func @dw(%x: {x_t}) -> {out_t} {{\n{body}\n}}\n"
