"""Pieces of input-level MLIR text that frontends and generators write alike.

The ONNX importer (``vta_mlir.frontend.onnx``) and the network generators of
``examples/networks/`` write whole networks as MLIR text; the padding idiom of a convolution's
or a pooling's data (``docs/pipeline.md``, stage 1) is the same four ops for all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["global_sum", "memref_type", "network_function", "padding_idiom"]


def memref_type(shape: Sequence[int], element: str) -> str:
    """``memref<AxBx...xelement>``."""
    return f"memref<{'x'.join(map(str, shape))}x{element}>"


def padding_idiom(prefix: str, src: str, shape: Sequence[int],
                  pads: tuple[int, int, int, int], fill: str) -> tuple[list[str], str, str]:
    """The ops building the NCHW tensor ``src`` (an SSA name such as ``%x``) of ``shape`` padded
    by ``pads`` (top, bottom, left, right) rows and columns of ``fill`` (an ``i8`` SSA value):
    ``memref.alloc``, ``linalg.fill``, the interior ``memref.subview`` and the ``memref.copy``
    into it, named ``<prefix>_xp`` and ``<prefix>_xi``.  Returns the lines, the padded buffer's
    name and its type; without padding, no lines and ``src`` itself."""
    n, c, h, w = shape
    src_t = memref_type(shape, "i8")
    if not any(pads):
        return [], src, src_t
    top, bottom, left, right = pads
    hp, wp = h + top + bottom, w + left + right
    padded_t = memref_type((n, c, hp, wp), "i8")
    strides = ", ".join(map(str, (c * hp * wp, hp * wp, wp, 1)))
    view_t = f"{src_t[:-1]}, strided<[{strides}], offset: {top * wp + left}>>"
    lines = [
        f"  {prefix}_xp = memref.alloc() : {padded_t}",
        f"  linalg.fill ins({fill} : i8) outs({prefix}_xp : {padded_t})",
        f"  {prefix}_xi = memref.subview {prefix}_xp[0, 0, {top}, {left}] [{n}, {c}, {h}, {w}]"
        f" [1, 1, 1, 1] : {padded_t} to {view_t}",
        f"  memref.copy {src}, {prefix}_xi : {src_t} to {view_t}",
    ]
    return lines, f"{prefix}_xp", padded_t


def network_function(name: str, params: Sequence[str], globals_: Sequence[str],
                     fetch: Sequence[str], body: Sequence[str]) -> str:
    """The module text of a whole-network function: its ``memref.global`` constants, then
    ``func.func @name(params)`` with the constants' ``memref.get_global`` reads (``fetch``),
    the scalars the layers share (``%c0_i8``, ``%cmin_i8``, ``%c0_i32``) and the layers'
    lines (``body``)."""
    lines = [*globals_, ""] if globals_ else []
    lines += [
        f"func.func @{name}({', '.join(params)}) {{",
        *fetch,
        "  %c0_i8 = arith.constant 0 : i8",
        "  %cmin_i8 = arith.constant -128 : i8",
        "  %c0_i32 = arith.constant 0 : i32",
        *body,
        "  return",
        "}",
        "",
    ]
    return "\n".join(lines)


def global_sum(src: str, shape: Sequence[int], acc: str, name: str,
               keep_dims: bool = True) -> list[str]:
    """The lines of a ``linalg.generic`` summing the int8 NCHW buffer ``src`` (of ``shape``)
    over H and W into the int32 accumulator ``acc`` (a global pool's reduction), located at
    ``name``: N×C×1×1, or N×C when ``keep_dims`` is false."""
    acc_shape = (shape[0], shape[1], 1, 1) if keep_dims else (shape[0], shape[1])
    acc_t = memref_type(acc_shape, "i32")
    acc_map = "(n, c, 0, 0)" if keep_dims else "(n, c)"
    return [
        "  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,",
        f"                                   affine_map<(n, c, h, w) -> {acc_map}>],",
        '                  iterator_types = ["parallel", "parallel", "reduction", '
        '"reduction"]}',
        f"      ins({src} : {memref_type(shape, 'i8')}) outs({acc} : {acc_t}) {{",
        "  ^bb0(%x: i8, %sum: i32):",
        "    %xe = arith.extsi %x : i8 to i32",
        "    %next = arith.addi %sum, %xe : i32",
        "    linalg.yield %next : i32",
        f"  }} loc(\"{name}\")",
    ]
