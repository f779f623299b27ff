"""The ResNet-18 convolution layers C1–C11 of TVM's conv2d benchmark (``docs/performance.md``
§4.2), as upstream-MLIR programs, a numpy reference and the bounds they are measured against.

Each layer is ``y = int8(max(min((conv2d(pad(x), w) >> 8) + bias [+ res], 127), 0))`` with a
per-output-channel ``i32`` bias and an optional ``i8`` residual input (NCHW data, OIHW weights).

* :data:`LAYERS` — the table of §4.2 with the default configuration's BATCH (1);
  :func:`layers` gives it for another configuration (batch = its BATCH).
* :func:`conv_mlir` — the layer as a ``func.func @conv`` on logical NCHW memrefs: zero padding
  in the memref idiom (``memref.alloc`` of the padded shape, ``linalg.fill`` with 0, a
  ``memref.subview`` of the interior, ``memref.copy`` of ``%x`` into it), the convolution
  (``linalg.conv_2d_nchw_fchw`` or the equivalent ``linalg.generic``) into an ``i32``
  accumulator, and the whole epilogue as one ``linalg.generic``.
* :func:`reference` — the same computation in numpy, bit for bit.
* :func:`macs`, :func:`gemm_bound`, :func:`alu_cycles`, :func:`compute_bound`,
  :func:`compulsory`, :func:`compulsory_bytes` — figures computed from the layer's shape and a
  :class:`~vta_mlir.config.VTAConfig` only (never from a run):

  - ``gemm_bound``: GEMM micro-op executions, one per cycle, of a schedule that does no more
    than the convolution: ``ceil(batch/B) · ceil(out/BO) · ceil(in/BI) · OH · OW · KH · KW``
    (the MACs over ``B · BI · BO`` with batch and channels rounded up to whole blocks);
  - ``compute_bound``: ``gemm_bound`` plus the epilogue's ALU cycles at the timing model's rates
    (``docs/timing-model.md``): per accumulator element (``ceil(batch/B) · ceil(out/BO) · OH · OW``
    of them) 1 cycle for each immediate operation (``>> 8``, ``min``, ``max``) and 2 for each
    tensor operation (the bias add, and the residual add when there is one); resetting the
    accumulator is not counted;
  - ``compulsory``: the DRAM bytes of each buffer that any schedule has to move once, in the
    packed layouts of ``docs/isa.md`` §1.6 (channels rounded up to whole blocks): ``inp`` the
    input rows and columns the output depends on (a 1×1 stride-2 layer reads a quarter of its
    input; the zero padding is not in DRAM), ``wgt`` the weights, ``acc`` the bias — one
    accumulator element per output-channel block, ``ceil(out/BO) · B · BO · 4`` bytes, as
    the packed bias argument holds it — plus the residual (``i8``, packed like the output),
    ``out`` the output.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from vta_mlir.config import VTAConfig

__all__ = [
    "LAYERS",
    "Layer",
    "alu_cycles",
    "by_name",
    "compulsory",
    "compulsory_bytes",
    "compute_bound",
    "conv_mlir",
    "gemm_bound",
    "layers",
    "macs",
    "random_inputs",
    "reference",
]


@dataclass(frozen=True)
class Layer:
    """One convolution of the table of §4.2 (TVM's workload tuple, in its order)."""

    name: str
    batch: int
    height: int
    width: int
    in_filter: int
    out_filter: int
    hkernel: int
    wkernel: int
    hpad: int
    wpad: int
    hstride: int
    wstride: int

    @property
    def out_height(self) -> int:
        return (self.height + 2 * self.hpad - self.hkernel) // self.hstride + 1

    @property
    def out_width(self) -> int:
        return (self.width + 2 * self.wpad - self.wkernel) // self.wstride + 1

    @property
    def padded(self) -> bool:
        return self.hpad > 0 or self.wpad > 0

    @property
    def x_shape(self) -> tuple[int, int, int, int]:
        return (self.batch, self.in_filter, self.height, self.width)

    @property
    def w_shape(self) -> tuple[int, int, int, int]:
        return (self.out_filter, self.in_filter, self.hkernel, self.wkernel)

    @property
    def y_shape(self) -> tuple[int, int, int, int]:
        return (self.batch, self.out_filter, self.out_height, self.out_width)


#: ``docs/performance.md`` §4.2 (C1 is commented out in TVM's test, kept here), batch = BATCH of the
#: default configuration.
LAYERS: tuple[Layer, ...] = (
    Layer("C1", 1, 224, 224, 3, 64, 7, 7, 3, 3, 2, 2),
    Layer("C2", 1, 56, 56, 64, 64, 3, 3, 1, 1, 1, 1),
    Layer("C3", 1, 56, 56, 64, 128, 3, 3, 1, 1, 2, 2),
    Layer("C4", 1, 56, 56, 64, 128, 1, 1, 0, 0, 2, 2),
    Layer("C5", 1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 1),
    Layer("C6", 1, 28, 28, 128, 256, 3, 3, 1, 1, 2, 2),
    Layer("C7", 1, 28, 28, 128, 256, 1, 1, 0, 0, 2, 2),
    Layer("C8", 1, 14, 14, 256, 256, 3, 3, 1, 1, 1, 1),
    Layer("C9", 1, 14, 14, 256, 512, 3, 3, 1, 1, 2, 2),
    Layer("C10", 1, 14, 14, 256, 512, 1, 1, 0, 0, 2, 2),
    Layer("C11", 1, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1),
)


def layers(cfg: VTAConfig | None = None) -> tuple[Layer, ...]:
    """:data:`LAYERS` with batch = ``cfg.batch`` (the configuration's BATCH)."""
    if cfg is None:
        return LAYERS
    return tuple(dataclasses.replace(layer, batch=cfg.batch) for layer in LAYERS)


def by_name(name: str, cfg: VTAConfig | None = None) -> Layer:
    """The layer called ``name`` (``C1`` … ``C11``, any case) for ``cfg``."""
    for layer in layers(cfg):
        if layer.name.lower() == name.lower():
            return layer
    raise KeyError(f"unknown layer {name!r}; known: {', '.join(lay.name for lay in LAYERS)}")


# ---------------------------------------------------------------------------------------------
# MLIR


def _memref(shape: tuple[int, ...], elem: str) -> str:
    return "memref<" + "x".join(str(d) for d in shape) + f"x{elem}>"


def _dense(a: int, b: int) -> str:
    return f"dense<{a}>" if a == b else f"dense<[{a}, {b}]>"


def _term(var: str, stride: int, offset: str) -> str:
    return f"{var} + {offset}" if stride == 1 else f"{var} * {stride} + {offset}"


def conv_mlir(layer: Layer, *, residual: bool = False, generic: bool = False) -> str:
    """``func.func @conv(%x, %w, %bias, [%res,] %y)`` computing ``layer`` on NCHW memrefs.

    ``residual`` adds an ``i8`` input ``%res`` shaped like the output to the epilogue (after the
    bias); ``generic`` writes the convolution as a ``linalg.generic`` instead of
    ``linalg.conv_2d_nchw_fchw``.
    """
    n, c, h, w = layer.x_shape
    o, _, kh, kw = layer.w_shape
    oh, ow = layer.out_height, layer.out_width
    if oh < 1 or ow < 1:
        raise ValueError(f"{layer.name}: the kernel does not fit the padded input")
    x_t = _memref(layer.x_shape, "i8")
    w_t = _memref(layer.w_shape, "i8")
    b_t = _memref((o,), "i32")
    y_t = _memref(layer.y_shape, "i8")
    acc_t = _memref(layer.y_shape, "i32")

    args = [f"%x: {x_t}", f"%w: {w_t}", f"%bias: {b_t}"]
    if residual:
        args.append(f"%res: {y_t}")
    args.append(f"%y: {y_t}")
    lines = [
        f"// ResNet-18 {layer.name} (docs/performance.md §4.2): {n}x{c}x{h}x{w} data, {o} output "
        f"channels, {kh}x{kw} kernel, pad {layer.hpad},{layer.wpad}, "
        f"stride {layer.hstride},{layer.wstride}; "
        "y = int8(max(min((conv2d(x, w) >> 8) + bias" + (" + res" if residual else "")
        + ", 127), 0))",
        "func.func @conv(" + ", ".join(args) + ") {",
    ]

    conv_in, conv_in_t = "%x", x_t
    if layer.padded:
        hp, wp = h + 2 * layer.hpad, w + 2 * layer.wpad
        xp_t = _memref((n, c, hp, wp), "i8")
        strides = [c * hp * wp, hp * wp, wp, 1]
        offset = layer.hpad * wp + layer.wpad
        view_t = (_memref(layer.x_shape, "i8")[:-1]
                  + f", strided<[{', '.join(map(str, strides))}], offset: {offset}>>")
        lines += [
            "  %c0_i8 = arith.constant 0 : i8",
            f"  %xp = memref.alloc() : {xp_t}",
            f"  linalg.fill ins(%c0_i8 : i8) outs(%xp : {xp_t})",
            f"  %xin = memref.subview %xp[0, 0, {layer.hpad}, {layer.wpad}] [{n}, {c}, {h}, {w}]"
            f" [1, 1, 1, 1] : {xp_t} to {view_t}",
            f"  memref.copy %x, %xin : {x_t} to {view_t}",
        ]
        conv_in, conv_in_t = "%xp", xp_t

    lines += [
        "  %c0_i32 = arith.constant 0 : i32",
        f"  %acc = memref.alloc() : {acc_t}",
        f"  linalg.fill ins(%c0_i32 : i32) outs(%acc : {acc_t})",
    ]
    if generic:
        dims = "(n, f, oh, ow, c, kh, kw)"
        x_map = (f"(n, c, {_term('oh', layer.hstride, 'kh')}, "
                 f"{_term('ow', layer.wstride, 'kw')})")
        lines += [
            f"  linalg.generic {{indexing_maps = [affine_map<{dims} -> {x_map}>,",
            f"                                   affine_map<{dims} -> (f, c, kh, kw)>,",
            f"                                   affine_map<{dims} -> (n, f, oh, ow)>],",
            '                  iterator_types = ["parallel", "parallel", "parallel", '
            '"parallel",',
            '                                    "reduction", "reduction", "reduction"]}',
            f"      ins({conv_in}, %w : {conv_in_t}, {w_t}) outs(%acc : {acc_t}) {{",
            "  ^bb0(%a: i8, %b: i8, %sum: i32):",
            "    %ae = arith.extsi %a : i8 to i32",
            "    %be = arith.extsi %b : i8 to i32",
            "    %p = arith.muli %ae, %be : i32",
            "    %s = arith.addi %sum, %p : i32",
            "    linalg.yield %s : i32",
            "  }",
        ]
    else:
        lines += [
            "  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, "
            f"strides = {_dense(layer.hstride, layer.wstride)} : tensor<2xi64>}}",
            f"      ins({conv_in}, %w : {conv_in_t}, {w_t}) outs(%acc : {acc_t})",
        ]

    ident = "affine_map<(n, c, h, w) -> (n, c, h, w)>"
    maps = [ident, "affine_map<(n, c, h, w) -> (c)>"] + ([ident] if residual else []) + [ident]
    ins = "%acc, %bias" + (", %res" if residual else "")
    ins_t = f"{acc_t}, {b_t}" + (f", {y_t}" if residual else "")
    block = "%v: i32, %bv: i32" + (", %r: i8" if residual else "") + ", %out: i8"
    lines += [
        "  linalg.generic {indexing_maps = [" + (",\n" + " " * 35).join(maps) + "],",
        '                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}',
        f"      ins({ins} : {ins_t}) outs(%y : {y_t}) {{",
        f"  ^bb0({block}):",
        "    %c8 = arith.constant 8 : i32",
        "    %zero = arith.constant 0 : i32",
        "    %c127 = arith.constant 127 : i32",
        "    %sh = arith.shrsi %v, %c8 : i32",
        "    %biased = arith.addi %sh, %bv : i32",
    ]
    summed = "%biased"
    if residual:
        lines += [
            "    %re = arith.extsi %r : i8 to i32",
            "    %summed = arith.addi %biased, %re : i32",
        ]
        summed = "%summed"
    lines += [
        f"    %hi = arith.minsi {summed}, %c127 : i32",
        "    %lo = arith.maxsi %hi, %zero : i32",
        "    %t = arith.trunci %lo : i32 to i8",
        "    linalg.yield %t : i8",
        "  }",
        f"  memref.dealloc %acc : {acc_t}",
    ]
    if layer.padded:
        lines.append(f"  memref.dealloc %xp : {conv_in_t}")
    lines += ["  return", "}", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# numpy


def random_inputs(layer: Layer, rng: np.random.Generator, *,
                  residual: bool = False) -> list[np.ndarray]:
    """TVM's benchmark inputs (§4.2): activations and weights uniform in [−128, 128), bias in
    [−16384, 16384); the residual, when asked for, uniform in [−128, 128) as well."""
    arrays = [
        rng.integers(-128, 128, size=layer.x_shape, dtype=np.int8),
        rng.integers(-128, 128, size=layer.w_shape, dtype=np.int8),
        rng.integers(-16384, 16384, size=(layer.out_filter,), dtype=np.int32),
    ]
    if residual:
        arrays.append(rng.integers(-128, 128, size=layer.y_shape, dtype=np.int8))
    return arrays


def _wrap32(a: np.ndarray) -> np.ndarray:
    """Two's-complement wrap of an integer array to int32."""
    return a.astype(np.int64).astype(np.uint32).view(np.int32) if a.dtype != np.int32 else a


def reference(layer: Layer, x: np.ndarray, w: np.ndarray, bias: np.ndarray,
              res: np.ndarray | None = None) -> np.ndarray:
    """The layer's int8 output for NCHW ``x``, OIHW ``w``, ``bias`` (and ``res``), with the
    int32 arithmetic of the MLIR program (each op wrapping at 32 bits)."""
    if x.shape != layer.x_shape or w.shape != layer.w_shape:
        raise ValueError(f"{layer.name}: shapes {x.shape}, {w.shape}, expected "
                         f"{layer.x_shape}, {layer.w_shape}")
    n, c, h, wd = layer.x_shape
    oh, ow = layer.out_height, layer.out_width
    sh, sw = layer.hstride, layer.wstride
    xp = np.zeros((n, c, h + 2 * layer.hpad, wd + 2 * layer.wpad), dtype=np.float64)
    xp[:, :, layer.hpad:layer.hpad + h, layer.wpad:layer.wpad + wd] = x
    wf = w.astype(np.float64)
    # float64 sums of int8 products are exact far beyond any layer here (|sum| < 2**53).
    acc = np.zeros((n, layer.out_filter, oh, ow), dtype=np.float64)
    for i in range(layer.hkernel):
        for j in range(layer.wkernel):
            window = xp[:, :, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw]
            acc += np.einsum("nchw,fc->nfhw", window, wf[:, :, i, j], optimize=True)
    v = _wrap32(acc.astype(np.int64))
    v = v >> np.int32(8)
    v = _wrap32(v.astype(np.int64) + bias.astype(np.int64).reshape(1, -1, 1, 1))
    if res is not None:
        if res.shape != layer.y_shape:
            raise ValueError(f"{layer.name}: residual shape {res.shape}, expected "
                             f"{layer.y_shape}")
        v = _wrap32(v.astype(np.int64) + res.astype(np.int64))
    v = np.maximum(np.minimum(v, np.int32(127)), np.int32(0))
    return v.astype(np.int8)


# ---------------------------------------------------------------------------------------------
# Bounds from the shape and the configuration


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def macs(layer: Layer) -> int:
    """Multiply-accumulates of the convolution: batch · OH · OW · KH · KW · in · out."""
    return (layer.batch * layer.out_height * layer.out_width * layer.hkernel * layer.wkernel
            * layer.in_filter * layer.out_filter)


def gemm_bound(layer: Layer, cfg: VTAConfig) -> int:
    """GEMM micro-op executions (cycles) of the convolution with batch and channels rounded up
    to whole blocks: MACs / (BATCH · BLOCK_IN · BLOCK_OUT)."""
    return (_ceil(layer.batch, cfg.batch) * _ceil(layer.out_filter, cfg.block_out)
            * _ceil(layer.in_filter, cfg.block_in) * layer.out_height * layer.out_width
            * layer.hkernel * layer.wkernel)


def acc_elements(layer: Layer, cfg: VTAConfig) -> int:
    """Accumulator tensor elements of the output: ceil(batch/B) · ceil(out/BO) · OH · OW."""
    return (_ceil(layer.batch, cfg.batch) * _ceil(layer.out_filter, cfg.block_out)
            * layer.out_height * layer.out_width)


def alu_cycles(layer: Layer, cfg: VTAConfig, *, residual: bool = False) -> int:
    """ALU cycles of the epilogue: per accumulator element 1 for each immediate operation
    (``>> 8``, min, max) and 2 for each tensor operation (bias add, residual add)."""
    per_element = 3 * 1 + 2 * (2 if residual else 1)
    return acc_elements(layer, cfg) * per_element


def compute_bound(layer: Layer, cfg: VTAConfig, *, residual: bool = False) -> int:
    """:func:`gemm_bound` + :func:`alu_cycles`: the compute module's busy time when it does
    nothing but the layer's GEMMs and its epilogue (one after the other)."""
    return gemm_bound(layer, cfg) + alu_cycles(layer, cfg, residual=residual)


def _read(size: int, out: int, kernel: int, pad: int, stride: int) -> int:
    """How many of the ``size`` input rows (or columns) some output row reads."""
    rows = {o * stride + k - pad for o in range(out) for k in range(kernel)}
    return sum(1 for r in rows if 0 <= r < size)


def compulsory(layer: Layer, cfg: VTAConfig, *, residual: bool = False) -> dict[str, int]:
    """DRAM bytes each buffer must move at least once (packed layouts, channels rounded up to
    whole blocks): ``inp``, ``wgt``, ``acc`` (bias, and the residual), ``out``."""
    nb = _ceil(layer.batch, cfg.batch)
    ib = _ceil(layer.in_filter, cfg.block_in)
    ob = _ceil(layer.out_filter, cfg.block_out)
    rows = _read(layer.height, layer.out_height, layer.hkernel, layer.hpad, layer.hstride)
    cols = _read(layer.width, layer.out_width, layer.wkernel, layer.wpad, layer.wstride)
    out = nb * ob * layer.out_height * layer.out_width * cfg.out_elem_bytes
    bias = ob * cfg.acc_elem_bytes
    return {
        "inp": nb * ib * rows * cols * cfg.inp_elem_bytes,
        "wgt": ob * ib * layer.hkernel * layer.wkernel * cfg.wgt_elem_bytes,
        "acc": bias + (out if residual else 0),
        "out": out,
    }


def compulsory_bytes(layer: Layer, cfg: VTAConfig, *, residual: bool = False) -> int:
    """The sum of :func:`compulsory` over the buffers."""
    return sum(compulsory(layer, cfg, residual=residual).values())
