"""Builders of networks of layers written as one function, and their numpy side.

A layer is a convolution (optionally reading its data through the zero-padding idiom) with a
per-channel bias, a right shift, an optional residual and a clip to [0, 127], written into an
int8 buffer; later layers read those buffers (``docs/pipeline.md``, "Layers").  The numpy
functions compute the same integers independently of the compiler.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tests.mlir_programs import memref
from vta_mlir.frontend.mlir_text import padding_idiom


@dataclass
class Network:
    """MLIR text being built: the signature's arguments, the body, the int8 buffers."""

    args: list[str] = field(default_factory=list[str])
    body: list[str] = field(default_factory=list[str])

    def buffer(self, name: str, shape: tuple[int, ...]) -> None:
        self.body.append(f"  %{name} = memref.alloc() : {memref(shape, 'i8')}")

    def conv(self, name: str, src: str, shape: tuple[int, int, int, int], cout: int, k: int,
             stride: int, pad: int, shift: int, out: str, residual: str | None = None) -> tuple[
                 int, int, int, int]:
        """A conv layer ``name`` reading ``src`` of ``shape`` into ``out``; returns the output
        shape.  Its weights ``%<name>_w`` and bias ``%<name>_b`` become arguments."""
        n, cin, h, w = shape
        oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        t_w = memref((cout, cin, k, k), "i8")
        t_acc, t_out = memref((n, cout, oh, ow), "i32"), memref((n, cout, oh, ow), "i8")
        self.args += [f"%{name}_w: {t_w}", f"%{name}_b: {memref((cout,), 'i32')}"]
        lines = self.body
        padding, data, t_data = padding_idiom(f"%{name}", f"%{src}", shape, (pad,) * 4,
                                              "%c0_i8")
        lines += padding
        ident = "affine_map<(n, c, h, w) -> (n, c, h, w)>"
        ins, types, maps = [f"%{name}_acc", f"%{name}_b"], [t_acc, memref((cout,), "i32")], [
            ident, "affine_map<(n, c, h, w) -> (c)>"]
        args, last = ["%v: i32", "%b: i32"], "%r"
        body = ["    %s = arith.addi %v, %b : i32", f"    %sh = arith.constant {shift} : i32",
                "    %r = arith.shrsi %s, %sh : i32"]
        if residual is not None:
            ins.append(f"%{residual}")
            types.append(t_out)
            maps.append(ident)
            args.append("%res: i8")
            body += ["    %re = arith.extsi %res : i8 to i32", "    %ra = arith.addi %r, %re : i32"]
            last = "%ra"
        body += ["    %z = arith.constant 0 : i32", "    %m = arith.constant 127 : i32",
                 f"    %lo = arith.maxsi {last}, %z : i32", "    %hi = arith.minsi %lo, %m : i32",
                 "    %t = arith.trunci %hi : i32 to i8", "    linalg.yield %t : i8"]
        lines += [
            f"  %{name}_acc = memref.alloc() : {t_acc}",
            f"  linalg.fill ins(%c0 : i32) outs(%{name}_acc : {t_acc})",
            f"  linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = "
            f"dense<{stride}> : tensor<2xi64>}} ins({data}, %{name}_w : {t_data}, {t_w}) "
            f"outs(%{name}_acc : {t_acc})",
            f"  linalg.generic {{indexing_maps = [{', '.join([*maps, ident])}], iterator_types = "
            f"[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}} ins({', '.join(ins)} : "
            f"{', '.join(types)}) outs(%{out} : {t_out}) {{",
            f"  ^bb0({', '.join(args)}, %o: i8):", *body, "  }"]
        return n, cout, oh, ow

    def function(self, name: str, inputs: list[str], outputs: list[str]) -> str:
        """The function: ``inputs``, the layers' weights and biases, then ``outputs``."""
        head = ["  %c0 = arith.constant 0 : i32", "  %c0_i8 = arith.constant 0 : i8"]
        sig = ", ".join([*inputs, *self.args, *outputs])
        return f"func.func @{name}({sig}) {{\n" + "\n".join(head + self.body) + \
            "\n  return\n}\n"


def conv_layer(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int, pad: int, shift: int,
               residual: np.ndarray | None = None) -> np.ndarray:
    """``clip(((conv(x, w) + b) >> shift) + residual, 0, 127)`` as int8."""
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    k = w.shape[2]
    oh, ow = (xp.shape[2] - k) // stride + 1, (xp.shape[3] - k) // stride + 1
    acc = np.zeros((x.shape[0], w.shape[0], oh, ow), np.int64)
    for i in range(k):
        for j in range(k):
            patch = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            acc += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j].astype(np.int64))
    r = (acc + b.astype(np.int64)[None, :, None, None]) >> shift
    if residual is not None:
        r = r + residual.astype(np.int64)
    return np.clip(r, 0, 127).astype(np.int8)
