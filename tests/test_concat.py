"""Concatenation along channels on VTA in the memref form (``passes/pack/concat.py``): layers
writing channel slices of one buffer directly, copies into slices (folded into the layer
writing the source, or a placement layer when the source has other readers or is an
argument), a concatenation written into the function's output, and unaligned parts (a wider
buffer and a selecting 1×1 convolution); compiled, run on every shipped configuration and
compared bit for bit with numpy written here."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir import compile as vta_compile
from vta_mlir.config import VTAConfig
from vta_mlir.sim.hazards import program_hazards

IDENT4 = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"


def _t(shape: tuple[int, ...], element: str = "i8", layout: str = "") -> str:
    return f"memref<{'x'.join(map(str, shape))}x{element}{', ' + layout if layout else ''}>"


def _conv(name: str, src: str, cin: int, cout: int, n: int, hw: int, shift: int,
          out: str, out_t: str) -> list[str]:
    """A 1×1 convolution of ``src`` by the argument ``%w_<name>``, ``>> shift``, into ``out``."""
    acc_t = _t((n, cout, hw, hw), "i32")
    return [
        f"  %acc_{name} = memref.alloc() : {acc_t}",
        f"  linalg.fill ins(%c0 : i32) outs(%acc_{name} : {acc_t})",
        "  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, "
        "strides = dense<1> : tensor<2xi64>}",
        f"      ins({src}, %w_{name} : {_t((n, cin, hw, hw))}, {_t((cout, cin, 1, 1))}) "
        f"outs(%acc_{name} : {acc_t})",
        f"  linalg.generic {{indexing_maps = [{IDENT4}, {IDENT4}], iterator_types = "
        "[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}",
        f"      ins(%acc_{name} : {acc_t}) outs({out} : {out_t}) {{",
        "  ^bb0(%v: i32, %o: i8):",
        f"    %cs = arith.constant {shift} : i32",
        "    %s = arith.shrsi %v, %cs : i32",
        "    %t = arith.trunci %s : i32 to i8",
        "    linalg.yield %t : i8",
        "  }"]


def concat_mlir(n: int, parts: list[int], mode: str, hw: int = 4) -> str:
    """Parts ``k`` of ``parts[k]`` channels, each a 1×1 convolution of ``%x`` (16 channels),
    concatenated along the channels; then a 1×1 convolution into ``%y`` (8 channels), or the
    concatenation itself is ``%y`` (``mode`` ``output``). ``mode``: ``direct`` (the layers
    write the slices), ``copy`` (each layer writes a buffer copied into its slice), ``shared``
    (the first part's buffer is also read by another layer, written to ``%z``)."""
    total = sum(parts)
    cat_t = _t((n, total, hw, hw))
    strides = f"[{total * hw * hw}, {hw * hw}, {hw}, 1]"
    args = [f"%x: {_t((n, 16, hw, hw))}"]
    args += [f"%w_p{k}: {_t((c, 16, 1, 1))}" for k, c in enumerate(parts)]
    body = ["  %c0 = arith.constant 0 : i32"]
    cat = "%y" if mode == "output" else "%cat"
    if mode != "output":
        body.append(f"  %cat = memref.alloc() : {cat_t}")
        args.append(f"%w_head: {_t((8, total, 1, 1))}")
    first = 0
    for k, c in enumerate(parts):
        view_t = _t((n, c, hw, hw), "i8", f"strided<{strides}, offset: {first * hw * hw}>")
        view = (f"  %s{k} = memref.subview {cat}[0, {first}, 0, 0] [{n}, {c}, {hw}, {hw}] "
                f"[1, 1, 1, 1] : {cat_t} to {view_t}")
        if mode in ("direct", "output"):
            body += [view, *_conv(f"p{k}", "%x", 16, c, n, hw, 5 + k, f"%s{k}", view_t)]
        else:
            part_t = _t((n, c, hw, hw))
            body += [f"  %p{k} = memref.alloc() : {part_t}",
                     *_conv(f"p{k}", "%x", 16, c, n, hw, 5 + k, f"%p{k}", part_t), view,
                     f"  memref.copy %p{k}, %s{k} : {part_t} to {view_t}"]
        first += c
    if mode == "shared":
        args += [f"%w_side: {_t((8, parts[0], 1, 1))}"]
        body += _conv("side", "%p0", parts[0], 8, n, hw, 6, "%z", _t((n, 8, hw, hw)))
    if mode != "output":
        body += _conv("head", "%cat", total, 8, n, hw, 7, "%y", _t((n, 8, hw, hw)))
    outs = [f"%y: {cat_t if mode == 'output' else _t((n, 8, hw, hw))}"]
    if mode == "shared":
        outs.append(f"%z: {_t((n, 8, hw, hw))}")
    return (f"func.func @neck({', '.join(args + outs)}) {{\n" + "\n".join(body)
            + "\n  return\n}\n")


def _conv_ref(x: np.ndarray, w: np.ndarray, shift: int) -> np.ndarray:
    acc = np.einsum("nchw,oc->nohw", x.astype(np.int64), w[:, :, 0, 0].astype(np.int64))
    return (acc >> shift).astype(np.int32).astype(np.int8)


@pytest.mark.parametrize(("parts", "mode"), [
    ([32, 32], "direct"),
    ([32, 16], "copy"),
    ([32, 8], "shared"),
    ([24, 16, 8], "direct"),     # unaligned everywhere: the wider buffer and the selection
    ([16, 16], "copy"),          # unaligned on block32 only
    ([32, 24], "output"),        # the function's output is the concatenation
])
def test_concat_matches_numpy(cfg: VTAConfig, parts: list[int], mode: str) -> None:
    rng = np.random.default_rng(sum(parts) + len(mode))
    n, hw = cfg.batch, 4
    x = rng.integers(-128, 128, (n, 16, hw, hw), dtype=np.int8)
    ws = [rng.integers(-20, 20, (c, 16, 1, 1), dtype=np.int8) for c in parts]
    args = [x, *ws]
    pieces = [_conv_ref(x, w, 5 + k) for k, w in enumerate(ws)]
    cat = np.concatenate(pieces, axis=1)
    expected = [cat]
    if mode != "output":
        head = rng.integers(-10, 10, (8, sum(parts), 1, 1), dtype=np.int8)
        args.append(head)
        expected = [_conv_ref(cat, head, 7)]
    if mode == "shared":
        side = rng.integers(-20, 20, (8, parts[0], 1, 1), dtype=np.int8)
        args.append(side)
        expected.append(_conv_ref(pieces[0], side, 6))
    module = vta_compile(concat_mlir(n, parts, mode, hw), config=cfg)
    results = module(*args)
    assert module.last_run.warnings == []
    assert program_hazards(module.module.program, cfg) == []
    for got, want in zip(results, expected, strict=True):
        np.testing.assert_array_equal(got, want)


def _tensor_conv(name: str, src: str, cin: int, cout: int, hw: int, shift: int) -> list[str]:
    """A 1×1 convolution on tensors, ``>> shift``, into ``%<name>``."""
    acc_t, out_t = f"tensor<1x{cout}x{hw}x{hw}xi32>", f"tensor<1x{cout}x{hw}x{hw}xi8>"
    return [
        f"  %e_{name} = tensor.empty() : {acc_t}",
        f"  %z_{name} = linalg.fill ins(%c0 : i32) outs(%e_{name} : {acc_t}) -> {acc_t}",
        f"  %a_{name} = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, "
        "strides = dense<1> : tensor<2xi64>}",
        f"      ins({src}, %w_{name} : tensor<1x{cin}x{hw}x{hw}xi8>, tensor<{cout}x{cin}x1x1xi8>)"
        f" outs(%z_{name} : {acc_t}) -> {acc_t}",
        f"  %o_{name} = tensor.empty() : {out_t}",
        f"  %{name} = linalg.generic {{indexing_maps = [{IDENT4}, {IDENT4}], iterator_types = "
        "[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}",
        f"      ins(%a_{name} : {acc_t}) outs(%o_{name} : {out_t}) {{",
        "  ^bb0(%v: i32, %o: i8):",
        f"    %cs = arith.constant {shift} : i32",
        "    %s = arith.shrsi %v, %cs : i32",
        "    %t = arith.trunci %s : i32 to i8",
        "    linalg.yield %t : i8",
        f"  }} -> {out_t}"]


def tensor_concat_mlir(parts: list[int], insert_slices: bool, hw: int = 4) -> str:
    """The tensor form of :func:`concat_mlir`'s ``direct`` program: ``tensor.concat`` or
    ``tensor.insert_slice`` of each part into a ``tensor.empty``."""
    total = sum(parts)
    cat_t = f"tensor<1x{total}x{hw}x{hw}xi8>"
    args = [f"%x: tensor<1x16x{hw}x{hw}xi8>"]
    args += [f"%w_p{k}: tensor<{c}x16x1x1xi8>" for k, c in enumerate(parts)]
    args.append(f"%w_head: tensor<8x{total}x1x1xi8>")
    body = ["  %c0 = arith.constant 0 : i32"]
    for k, c in enumerate(parts):
        body += _tensor_conv(f"p{k}", "%x", 16, c, hw, 5 + k)
    types = ", ".join(f"tensor<1x{c}x{hw}x{hw}xi8>" for c in parts)
    if insert_slices:
        body.append(f"  %cat0 = tensor.empty() : {cat_t}")
        first = 0
        for k, c in enumerate(parts):
            body.append(f"  %cat{k + 1} = tensor.insert_slice %p{k} into %cat{k}"
                        f"[0, {first}, 0, 0] [1, {c}, {hw}, {hw}] [1, 1, 1, 1] : "
                        f"tensor<1x{c}x{hw}x{hw}xi8> into {cat_t}")
            first += c
        cat = f"%cat{len(parts)}"
    else:
        inputs = ", ".join(f"%p{k}" for k in range(len(parts)))
        body.append(f"  %cat = tensor.concat dim(1) {inputs} : ({types}) -> {cat_t}")
        cat = "%cat"
    body += _tensor_conv("head", cat, total, 8, hw, 7)
    return (f"func.func @neck({', '.join(args)}) -> tensor<1x8x{hw}x{hw}xi8> {{\n"
            + "\n".join(body) + f"\n  return %head : tensor<1x8x{hw}x{hw}xi8>\n}}\n")


@pytest.mark.parametrize("insert_slices", [False, True], ids=["concat", "insert_slice"])
@pytest.mark.parametrize("parts", [[32, 32], [24, 16]], ids=["aligned", "unaligned"])
def test_tensor_concat_matches_numpy(cfg: VTAConfig, parts: list[int],
                                     insert_slices: bool) -> None:
    """``tensor.concat`` and ``tensor.insert_slice`` into a ``tensor.empty``, as torch-mlir
    writes a concatenation: bufferized into copies into slices, which the layers then write
    directly (the same program as the memref form's)."""
    rng = np.random.default_rng(len(parts) + sum(parts))
    x = rng.integers(-128, 128, (1, 16, 4, 4), dtype=np.int8)
    ws = [rng.integers(-20, 20, (c, 16, 1, 1), dtype=np.int8) for c in parts]
    head = rng.integers(-10, 10, (8, sum(parts), 1, 1), dtype=np.int8)
    text = tensor_concat_mlir(parts, insert_slices)
    module = vta_compile(text, config=cfg)
    (y,) = module(x, *ws, head)
    cat = np.concatenate([_conv_ref(x, w, 5 + k) for k, w in enumerate(ws)], axis=1)
    np.testing.assert_array_equal(y, _conv_ref(cat, head, 7))
    # No layer copies: the parts' layers store into the concatenation (an unaligned one adds
    # its selection, a 1×1 convolution).
    memref_form = vta_compile(concat_mlir(1, parts, "direct"), config=cfg).module.program
    program = module.module.program
    assert (program.num_insns, len(program.layers)) == (memref_form.num_insns,
                                                         len(memref_form.layers))
    assert len(program.layers) == len(parts) + 1 + (parts != [32, 32])
