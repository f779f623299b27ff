"""The MLIR text of a recognised :class:`~vta_mlir.quant.program.Program`: one
``func.func`` on int8 memrefs in the whole-network input form of ``docs/pipeline.md``
("Layers"), weights and biases as ``memref.global`` constants, the float edges as ``vta.quant``
argument attributes (``docs/onnx.md`` §1).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from vta_mlir.frontend.mlir_text import (
    global_sum,
    memref_type,
    network_function,
    padding_idiom,
)
from vta_mlir.ir.locations import mlir_string

from .batch_product import BatchProductLayer, emit_batch_product
from .depthwise import DepthwiseConvLayer
from .emit_cnn import CNN_LAYERS, emit_cnn_layer, immediate_parts
from .fuse import ResidualAdd, Unit, emission_units, fused_epilogue, rescaled_operand, unit_sources
from .host_float import FloatBuffers, FloatLayer, allocate_float_outputs, float_parameter
from .host_layers import HostLayer, host_layer_lines
from .host_requant import product_result
from .product_first import product_first_steps
from .program import (
    AddLayer,
    AvgPoolLayer,
    ConvLayer,
    DenseLayer,
    MaxPoolLayer,
    Program,
    QTensor,
)
from .requant import IMM_MAX, Requant, output_window

__all__ = ["Emitter", "emit_program"]




#: The longest identifier made from a node name: the symbols built on it (``@{name}_w``) name
#: the binary's arguments, whose names have at most 255 bytes (``docs/binary-format.md``).
MAX_IDENT = 200


def _ident(name: str) -> str:
    """An identifier made of the characters MLIR's bare names allow (a long name shortened,
    with a digest of the whole name that keeps it distinct)."""
    text = "".join(ch if ch.isascii() and (ch.isalnum() or ch == "_") else "_" for ch in name)
    text = text if text and not text[0].isdigit() else f"t_{text}"
    if len(text) > MAX_IDENT:
        digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:12]
        text = f"{text[:MAX_IDENT - 13]}_{digest}"
    return text


def _hex(values: np.ndarray) -> str:
    little = values.astype(values.dtype.newbyteorder("<"))
    return f'dense<"0x{little.tobytes().hex().upper()}">'


def _quant_attr(scale: float, zero_point: int) -> str:
    return f"{{vta.quant = {{scale = {scale!r} : f64, zero_point = {zero_point} : i64}}}}"


class Emitter:
    def __init__(self, program: Program) -> None:
        self.program = program
        self.lines: list[str] = []
        self.globals: list[str] = []
        self.fetch: list[str] = []
        self.names: dict[str, str] = {}
        self.used: set[str] = set()

    def unique(self, name: str) -> str:
        base = _ident(name)
        text, i = base, 1
        while text in self.used:
            text, i = f"{base}_{i}", i + 1
        self.used.add(text)
        return text

    def buffer(self, tensor: str) -> str:
        """The SSA name of an int8 tensor (a Flatten's output is its source's buffer)."""
        return self.names[self.program.aliases.get(tensor, tensor)]

    def shape(self, tensor: str) -> tuple[int, ...]:
        return self.program.tensors[self.program.aliases.get(tensor, tensor)].shape

    def constant(self, prefix: str, values: np.ndarray) -> str:
        symbol = self.unique(prefix)
        element = {np.dtype(np.int8): "i8", np.dtype(np.int32): "i32"}[values.dtype]
        value_t = memref_type(values.shape, element)
        self.globals.append(f'memref.global "private" constant @{symbol} : {value_t} = '
                            f"{_hex(values)}")
        self.fetch.append(f"  %{symbol} = memref.get_global @{symbol} : {value_t}")
        return f"%{symbol}"

    # -- building blocks -------------------------------------------------------------------
    def padded(self, prefix: str, src: str, pads: tuple[int, int, int, int],
               fill: str) -> tuple[str, str]:
        """The padding idiom around ``src``, ``pads`` in ONNX's order (top, left, bottom,
        right): the padded buffer's SSA name and type."""
        pt, pl, pb, pr = pads
        lines, name, type_ = padding_idiom(prefix, self.buffer(src), self.shape(src),
                                           (pt, pb, pl, pr), fill)
        self.lines += lines
        return name, type_

    def accumulator(self, prefix: str, shape: Sequence[int]) -> str:
        acc_t = memref_type(shape, "i32")
        self.lines += [f"  {prefix}_acc = memref.alloc() : {acc_t}",
                       f"  linalg.fill ins(%c0_i32 : i32) outs({prefix}_acc : {acc_t})"]
        return acc_t

    def requant_steps(self, steps: list[str], rq: Requant, zero_point: int, lo: int, hi: int,
                      operands: list[tuple[str, str, str, str]], name: str, dst: str,
                      channel_dim: int = 1) -> bool:
        """Append the fixed-point requantization of ``docs/onnx.md`` §3 and the output zero
        point to ``steps``; constants beyond immediates (per-channel multipliers, wide clip
        bounds) become constant vectors read along the channels, dimension ``channel_dim``
        (added to ``operands``). The rounding constant of ``>> s1`` is in the layer's bias.

        Returns whether the result already lies in ``[lo, hi]``: the clip before the
        multiplication then uses the bounds of :func:`output_window`, which saturate exactly
        like the output clip, so that clip is left out (§3, "The emitted operations")."""
        if rq.s1:
            self.step(steps, "shrsi", rq.s1)
        windows = [output_window(rq, m, zero_point, lo, hi) for m in rq.multipliers]
        merged = all(w is not None for w in windows)
        if merged:
            lows = [w[0] for w in windows if w is not None]
            highs = [w[1] for w in windows if w is not None]
        elif rq.channel_clip:
            # Each channel's own bound: the largest one times a larger multiplier could wrap.
            lows, highs = [-c for c in rq.channel_clip], list(rq.channel_clip)
        else:
            lows, highs = [-rq.clip], [rq.clip]
        self.clip_steps(steps, lows, highs, operands, name, dst, channel_dim)
        if rq.channel_m:
            vector = np.array(rq.channel_m, np.int32)
            operands.append((self.constant(f"{name}_m", vector), memref_type(vector.shape, "i32"),
                             "d1", "%mc: i32"))
            k = _last(steps)
            steps.append(f"%v{k + 1} = arith.muli {_value(k)}, %mc : i32")
        elif rq.m != 1:
            self.step(steps, "muli", rq.m)
        self.rounding_shift(steps, rq.s2, zero_point)
        return merged

    def rounding_shift(self, steps: list[str], shift: int, zero_point: int,
                       half_first: bool = False, src: str | None = None) -> str:
        """Append ``value / 2^shift`` rounded to nearest (ties up) plus ``zero_point``:
        ``((value >> (shift − 1)) + 1 + 2·zy) >> 1`` (the zero point joins the rounding
        constant), or with ``half_first`` ``(value + 2^(shift − 1)) >> shift`` then ``+ zy``
        where that constant is an immediate. Returns the last value."""
        value = src or _value(_last(steps))
        half = (1 << shift) >> 1
        if half_first and 0 < half <= IMM_MAX:
            value = self.step(steps, "addi", half, value)
            value = self.step(steps, "shrsi", shift)
            if zero_point:
                value = self.step(steps, "addi", zero_point)
        elif shift:
            value = self.step(steps, "shrsi", shift - 1, value)
            value = self.step(steps, "addi", 1 + 2 * zero_point)
            value = self.step(steps, "shrsi", 1)
        elif zero_point:
            value = self.step(steps, "addi", zero_point, value)
        return value

    def clip_steps(self, steps: list[str], lows: list[int], highs: list[int],
                   operands: list[tuple[str, str, str, str]], name: str, dst: str,
                   channel_dim: int = 1) -> None:
        """``min(v, high)`` then ``max(v, low)``: immediates when one pair of bounds fits, else
        constant vectors along the channels, dimension ``channel_dim`` (one bound per channel,
        or the one repeated)."""
        if len(set(lows)) == 1 and len(set(highs)) == 1 and \
                -IMM_MAX <= lows[0] and highs[0] <= IMM_MAX:
            self.step(steps, "minsi", highs[0])
            self.step(steps, "maxsi", lows[0])
            return
        channels = self.program.tensors[dst].shape[channel_dim]
        for op, bounds, suffix in (("minsi", highs, "hi"), ("maxsi", lows, "lo")):
            vector = np.array(np.broadcast_to(np.array(bounds, np.int64), (channels,)),
                              np.int32)
            operands.append((self.constant(f"{name}_clip_{suffix}", vector),
                             memref_type(vector.shape, "i32"), f"d{channel_dim}",
                             f"%clip_{suffix}: i32"))
            k = _last(steps)
            steps.append(f"%v{k + 1} = arith.{op} {_value(k)}, %clip_{suffix} : i32")

    def step(self, steps: list[str], op: str, value: int, src: str | None = None) -> str:
        """``%v<k+1> = arith.<op> src, value`` (value an ``i32`` constant; ``src`` by default
        the last value ``%v<k>``); returns ``%v<k+1>``."""
        k = _last(steps)
        const = f"%k{len(steps)}"
        steps += [f"{const} = arith.constant {value} : i32",
                  f"%v{k + 1} = arith.{op} {src or _value(k)}, {const} : i32"]
        return f"%v{k + 1}"

    def epilogue(self, prefix: str, shape: Sequence[int], out: str, steps: list[str],
                 operands: list[tuple[str, str, str, str]], lo: int, hi: int,
                 in_range: bool = False) -> None:
        """One ``linalg.generic`` from the accumulator to ``out``; ``operands`` are
        ``(ssa, type, map results, block argument)`` read besides it. The result is clipped to
        ``[lo, hi]`` unless ``steps`` already keep it there (``in_range``)."""
        rank = len(shape)
        dims = ", ".join(f"d{i}" for i in range(rank))
        ident = f"affine_map<({dims}) -> ({dims})>"
        maps, ins, block = [ident], [f"{prefix}_acc"], ["%a: i32"]
        types = [memref_type(shape, "i32")]
        for ssa, type_, results, arg in operands:
            maps.append(f"affine_map<({dims}) -> ({results})>")
            ins.append(ssa)
            types.append(type_)
            block.append(arg)
        maps.append(ident)
        self.lines += [
            f"  linalg.generic {{indexing_maps = [{', '.join(maps)}],",
            f"                  iterator_types = [{_parallel(rank)}]}}",
            f"      ins({', '.join(ins)} : {', '.join(types)})"
            f" outs({out} : {memref_type(shape, 'i8')})"
            " {",
            f"  ^bb0({', '.join(block)}, %o: i8):",
            *(f"    {line}" for line in steps),
        ]
        result = _value(_last(steps))
        if not in_range:
            self.lines += [f"    %lo = arith.constant {lo} : i32",
                           f"    %hi = arith.constant {hi} : i32",
                           f"    %min = arith.minsi {result}, %hi : i32",
                           "    %max = arith.maxsi %min, %lo : i32"]
            result = "%max"
        self.lines += [f"    %t = arith.trunci {result} : i32 to i8",
                       "    linalg.yield %t : i8",
                       "  }"]

    # -- layers ----------------------------------------------------------------------------
    def emit(self, unit: Unit, out: str) -> None:
        """Append the IR of ``unit`` (a layer, or a layer with the Add fused into its
        epilogue, :mod:`vta_mlir.quant.fuse`) writing ``out``."""
        prefix = "%" + self.unique(unit.name)
        fused = unit if isinstance(unit, ResidualAdd) else None
        layer = unit.layer if isinstance(unit, ResidualAdd) else unit
        if isinstance(layer, ConvLayer):
            self.conv(layer, prefix, out, fused)
        elif isinstance(layer, DenseLayer):
            self.dense(layer, prefix, out, fused)
        elif isinstance(layer, MaxPoolLayer):
            self.maxpool(layer, prefix, out)
        elif isinstance(layer, AvgPoolLayer):
            self.avgpool(layer, prefix, out)
        elif isinstance(layer, HostLayer):
            tensors = self.program.tensors
            self.lines += host_layer_lines(layer, self.buffer(layer.src), tensors[
                self.program.aliases.get(layer.src, layer.src)], out, tensors[layer.dst], prefix)
        elif isinstance(layer, BatchProductLayer):
            emit_batch_product(self, layer, prefix, out)
        elif isinstance(layer, CNN_LAYERS):
            emit_cnn_layer(self, layer, prefix, out)
        else:
            self.add(layer, prefix, out)

    def finish(self, prefix: str, shape: Sequence[int], out: str, steps: list[str],
               operands: list[tuple[str, str, str, str]], layer: ConvLayer | DenseLayer,
               in_range: bool, fused: ResidualAdd | None) -> None:
        """The epilogue of a convolution or a fully connected layer, with the Add of
        ``fused`` after its requantization when there is one."""
        if fused is None:
            self.epilogue(prefix, shape, out, steps, operands, layer.lo, layer.hi, in_range)
        else:
            fused_epilogue(self, prefix, shape, out, steps, operands, fused, in_range)

    def dense(self, layer: DenseLayer, prefix: str, out: str,
              fused: ResidualAdd | None = None) -> None:
        src_shape = self.shape(layer.src)
        k, n = layer.weight.shape
        flat = (src_shape[0], k)
        data = self.buffer(layer.src)
        real_shape = self.program.tensors[self.program.aliases.get(layer.src, layer.src)].shape
        if real_shape != flat:
            groups = "[[0], [" + ", ".join(str(i) for i in range(1, len(real_shape))) + "]]"
            self.lines.append(f"  {prefix}_x = memref.collapse_shape {data} {groups} : "
                              f"{memref_type(real_shape, 'i8')} into {memref_type(flat, 'i8')}")
            data = f"{prefix}_x"
        w = self.constant(f"{layer.name}_w", layer.weight)
        shape = (flat[0], n)
        host_t = product_result(self, layer.dst, out)
        acc_t = host_t or self.accumulator(prefix, shape)
        self.lines.append(
            f"  linalg.matmul ins({data}, {w} : {memref_type(flat, 'i8')}, "
            f"{memref_type((k, n), 'i8')})"
            f" outs({out if host_t else prefix + '_acc'} : {acc_t}) loc({mlir_string(layer.name)})")
        if host_t:  # the host requantizes the accumulators (docs/onnx.md §4.19)
            return
        steps: list[str] = []
        operands: list[tuple[str, str, str, str]] = []
        in_range = False
        if not product_first_steps(self, layer, layer.weight.T, steps, operands):
            b = self.constant(f"{layer.name}_b", layer.bias)
            steps.append("%v0 = arith.addi %a, %b : i32")
            operands.append((b, memref_type((n,), "i32"), "d1", "%b: i32"))
            in_range = self.requant_steps(steps, layer.rq, layer.zero_point, layer.lo,
                                          layer.hi, operands, layer.name, layer.dst)
        self.finish(prefix, shape, out, steps, operands, layer, in_range, fused)
        self.lines.append(f"  memref.dealloc {prefix}_acc : {acc_t}")

    def conv(self, layer: ConvLayer, prefix: str, out: str,
             fused: ResidualAdd | None = None) -> None:
        shape = self.program.tensors[layer.dst].shape
        data, data_t = self.padded(prefix, layer.src, layer.pads, "%c0_i8")
        kernel = layer.kernel if isinstance(layer, DepthwiseConvLayer) else layer.weight
        w = self.constant(f"{layer.name}_w", kernel)
        acc_t = memref_type(shape, "i32")
        operands: list[tuple[str, str, str, str]] = []
        steps: list[str] = []
        product_first = product_first_steps(self, layer, layer.weight, steps, operands)
        if product_first:
            self.accumulator(prefix, shape)
        elif layer.bias.ndim == 1:
            b = self.constant(f"{layer.name}_b", layer.bias)
            self.accumulator(prefix, shape)
            operands.append((b, memref_type(layer.bias.shape, "i32"), "d1", "%b: i32"))
            steps.append("%v0 = arith.addi %a, %b : i32")
        else:
            # A bias per output element (padding that meets a non-zero zero point) is the
            # accumulator's initial value, which the convolution accumulates onto.
            init = np.ascontiguousarray(np.broadcast_to(layer.bias, shape))
            b = self.constant(f"{layer.name}_b", init)
            self.lines += [f"  {prefix}_acc = memref.alloc() : {acc_t}",
                           f"  memref.copy {b}, {prefix}_acc : {acc_t} to {acc_t}"]
        sh, sw = layer.stride
        op = "depthwise_conv_2d_nchw_chw" if isinstance(layer, DepthwiseConvLayer) else \
            "conv_2d_nchw_fchw"
        self.lines += [
            f"  linalg.{op} {{dilations = dense<1> : tensor<2xi64>, "
            f"strides = dense<[{sh}, {sw}]> : tensor<2xi64>}}",
            f"      ins({data}, {w} : {data_t}, {memref_type(kernel.shape, 'i8')})"
            f" outs({prefix}_acc : {acc_t}) loc({mlir_string(layer.name)})",
        ]
        in_range = not product_first and self.requant_steps(
            steps, layer.rq, layer.zero_point, layer.lo, layer.hi, operands, layer.name,
            layer.dst)
        self.finish(prefix, shape, out, steps, operands, layer, in_range, fused)
        self.lines.append(f"  memref.dealloc {prefix}_acc : {acc_t}")
        if any(layer.pads):
            self.lines.append(f"  memref.dealloc {data} : {data_t}")

    def maxpool(self, layer: MaxPoolLayer, prefix: str, out: str) -> None:
        shape = self.program.tensors[layer.dst].shape
        # ONNX pads a max-pool with −∞: the smallest code, −128, is never above a real element.
        data, data_t = self.padded(prefix, layer.src, layer.pads, "%cmin_i8")
        win_t = memref_type(layer.kernel, "i8")
        out_t = memref_type(shape, "i8")
        sh, sw = layer.stride
        self.lines += [
            f"  {prefix}_win = memref.alloc() : {win_t}",
            f"  linalg.fill ins(%cmin_i8 : i8) outs({out} : {out_t})",
            "  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, "
            f"strides = dense<[{sh}, {sw}]> : tensor<2xi64>}}",
            f"      ins({data}, {prefix}_win : {data_t}, {win_t}) outs({out} : {out_t})"
            f" loc({mlir_string(layer.name)})",
            f"  memref.dealloc {prefix}_win : {win_t}",
        ]
        if any(layer.pads):
            self.lines.append(f"  memref.dealloc {data} : {data_t}")

    def avgpool(self, layer: AvgPoolLayer, prefix: str, out: str) -> None:
        src_shape = self.shape(layer.src)
        shape = self.program.tensors[layer.dst].shape
        acc_t = self.accumulator(prefix, shape)
        self.lines += global_sum(self.buffer(layer.src), src_shape, f"{prefix}_acc", layer.name)
        steps: list[str] = []
        for part in immediate_parts(layer.bias) if layer.bias else []:
            self.step(steps, "addi", part)
        operands: list[tuple[str, str, str, str]] = []
        in_range = self.requant_steps(steps, layer.rq, layer.zero_point, -128, 127, operands,
                                      layer.name, layer.dst)
        self.epilogue(prefix, shape, out, steps, operands, -128, 127, in_range)
        self.lines.append(f"  memref.dealloc {prefix}_acc : {acc_t}")

    def add(self, layer: AddLayer, prefix: str, out: str) -> None:
        shape = self.program.tensors[layer.dst].shape
        rank = len(shape)
        out_t = memref_type(shape, "i8")
        dims = ", ".join(f"d{i}" for i in range(rank))
        ident = f"affine_map<({dims}) -> ({dims})>"
        ins = [self.buffer(layer.a)]
        maps = [ident]
        types = [memref_type(self.shape(layer.a), "i8")]
        block = ["%a: i8"]
        if layer.b is not None:
            ins.append(self.buffer(layer.b))
            maps.append(ident)
            types.append(memref_type(self.shape(layer.b), "i8"))
            block.append("%b: i8")
        # Zero points first (immediates within ±128), so no large constant is left to add:
        # t = (a − za)·ma + (b − zb)·mb [+ c per column], then one rounding shift.
        steps = ["%ae = arith.extsi %a : i8 to i32"]
        product_a = rescaled_operand(self, steps, "%ae", layer.za, layer.ma)
        if layer.b is not None:
            steps.append("%be = arith.extsi %b : i8 to i32")
            value = rescaled_operand(self, steps, "%be", layer.zb, layer.mb)
            k = _last(steps)
            steps.append(f"%v{k + 1} = arith.addi {product_a}, {value} : i32")
        if layer.const.size > 1:
            axis = rank - 1
            ins.append(self.constant(f"{layer.name}_c", layer.const))
            maps.append(f"affine_map<({dims}) -> (d{axis})>")
            types.append(memref_type((shape[axis],), "i32"))
            block.append("%c: i32")
            k = _last(steps)
            steps.append(f"%v{k + 1} = arith.addi {_value(k)}, %c : i32")
        self.rounding_shift(steps, layer.shift, layer.zero_point, half_first=True)
        maps.append(ident)
        self.lines += [
            f"  linalg.generic {{indexing_maps = [{', '.join(maps)}],",
            f"                  iterator_types = [{_parallel(rank)}]}}",
            f"      ins({', '.join(ins)} : {', '.join(types)}) outs({out} : {out_t}) {{",
            f"  ^bb0({', '.join(block)}, %o: i8):",
            *(f"    {line}" for line in steps),
            f"    %lo = arith.constant {layer.lo} : i32",
            f"    %hi = arith.constant {layer.hi} : i32",
            f"    %min = arith.minsi {_value(_last(steps))}, %hi : i32",
            "    %max = arith.maxsi %min, %lo : i32",
            "    %t = arith.trunci %max : i32 to i8",
            "    linalg.yield %t : i8",
            f"  }} loc({mlir_string(layer.name)})",
        ]


def emit_program(program: Program) -> str:
    """The module text of ``program``: its constants, then ``func.func @<name>(%input,
    %output)``."""
    em = Emitter(program)
    inp, outp = program.input, program.output
    if isinstance(inp, QTensor):
        em.names[inp.name] = "%input"
    em.used.update({"input", "output"})
    # An output that is a view (a Flatten's N×C of an N×C×1×1 tensor): the layer writes that
    # tensor, which is then copied to %output through the view.
    viewed = program.aliases.get(outp.name)
    real = outp.name if viewed is None else viewed
    if viewed is None and isinstance(outp, QTensor):
        em.names[outp.name] = "%output"
    # Each Add that fuses into the epilogue of the layer writing its operand is emitted with
    # that layer, whose own output then needs no buffer (vta_mlir/quant/fuse.py).
    units = emission_units(program)
    last_reader: dict[str, Unit] = {}
    for unit in units:
        for src in unit_sources(unit):
            last_reader[program.aliases.get(src, src)] = unit
    floats = FloatBuffers(em, program)
    for at, unit in enumerate(units):
        if isinstance(unit, FloatLayer):
            if at + 1 < len(units) and isinstance(units[at + 1], FloatLayer):
                allocate_float_outputs(em, units[at + 1])
            floats.emit(em, unit)
        elif unit.dst != outp.name:
            name = "%" + em.unique(unit.dst)
            em.names[unit.dst] = name
            dst_t = memref_type(program.tensors[unit.dst].shape, program.element(unit.dst))
            em.lines.append(f"  {name} = memref.alloc() : {dst_t}")
        if not isinstance(unit, FloatLayer):
            em.emit(unit, em.names[unit.dst])
        for src in dict.fromkeys(program.aliases.get(s, s) for s in unit_sources(unit)):
            if src not in (inp.name, real) and last_reader[src] is unit:
                src_t = memref_type(program.tensors[src].shape, program.element(src))
                em.lines.append(f"  memref.dealloc {em.names[src]} : {src_t}")
    if viewed is not None:
        src_shape = program.tensors[viewed].shape
        groups = "[[0], [" + ", ".join(str(i) for i in range(1, len(src_shape))) + "]]"
        view = "%" + em.unique("output_view")
        out_t = memref_type(outp.shape, "i8")
        em.lines += [f"  {view} = memref.collapse_shape {em.names[viewed]} {groups} : "
                     f"{memref_type(src_shape, 'i8')} into {out_t}",
                     f"  memref.copy {view}, %output : {out_t} to {out_t}",
                     f"  memref.dealloc {em.names[viewed]} : {memref_type(src_shape, 'i8')}"]
    func = _ident(program.name)
    params = [float_parameter(tensor, arg, _quant_attr(tensor.scale, tensor.zero_point)
                              if isinstance(tensor, QTensor) else "")
              for tensor, arg in ((inp, "%input"), (outp, "%output"))]
    return network_function(func, params, em.globals, em.fetch, em.lines)


def _last(steps: list[str]) -> int:
    """The index of the last ``%v<k>`` value of ``steps``, −1 for none (the value is ``%a``)."""
    return sum(1 for line in steps if line.startswith("%v")) - 1


def _value(k: int) -> str:
    return f"%v{k}" if k >= 0 else "%a"


def _parallel(rank: int) -> str:
    return ", ".join(['"parallel"'] * rank)

