"""Input programs on tensors, written as an MLIR frontend (torch-mlir) writes an int8 model:
``tensor.empty`` destinations, ``linalg`` ops on tensors in destination-passing style,
``tensor.pad`` with a constant region, ``tensor.collapse_shape``, dense ``arith.constant``
weights, results returned.  Their numpy references are in ``tests/layer_programs.py``
(``conv_layer``) and in the tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np


def tensor(shape: Sequence[int], element: str) -> str:
    """``tensor<AxBx...xelement>``."""
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def dense(values: np.ndarray) -> str:
    """A ``dense<...>`` literal of ``values`` in MLIR's nested-list form."""
    return f"dense<{np.asarray(values).tolist()}>".replace(" ", "")


def _par(rank: int) -> str:
    return ", ".join(['"parallel"'] * rank)


def requant_body(args: str, value: str, shift: int, lo: int = 0, hi: int = 127) -> list[str]:
    """The body of a requantizing epilogue: ``clip(value >> shift, lo, hi)`` to i8."""
    return [f"  ^bb0({args}):",
            f"    %sh = arith.constant {shift} : i32",
            f"    %r = arith.shrsi {value}, %sh : i32",
            f"    %lo = arith.constant {lo} : i32",
            f"    %hi = arith.constant {hi} : i32",
            "    %m0 = arith.maxsi %r, %lo : i32",
            "    %m1 = arith.minsi %m0, %hi : i32",
            "    %t = arith.trunci %m1 : i32 to i8",
            "    linalg.yield %t : i8"]


@dataclass
class TensorNetwork:
    """A function on tensors being built: its arguments and body lines."""

    args: list[str] = field(default_factory=list[str])
    body: list[str] = field(default_factory=lambda: ["  %c0 = arith.constant 0 : i32",
                                                     "  %c0_i8 = arith.constant 0 : i8"])

    def pad(self, name: str, src: str, shape: Sequence[int], pad: int, value: str) -> tuple[
            str, tuple[int, ...]]:
        """``tensor.pad`` of ``src`` by ``pad`` rows and columns of ``value`` (an i8 SSA
        value); returns the padded value and its shape."""
        n, c, h, w = shape
        padded = (n, c, h + 2 * pad, w + 2 * pad)
        self.body += [
            f"  %{name}_p = tensor.pad %{src} low[0, 0, {pad}, {pad}] high[0, 0, {pad}, {pad}] {{",
            "  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):",
            f"    tensor.yield {value} : i8",
            f"  }} : {tensor(shape, 'i8')} to {tensor(padded, 'i8')}"]
        return f"{name}_p", padded

    def conv(self, name: str, src: str, shape: Sequence[int], weights: str, w_shape: Sequence[int],
             bias: str, stride: int, pad: int, shift: int, residual: str | None = None) -> tuple[
                 int, int, int, int]:
        """A conv layer: pad, fill, ``linalg.conv_2d_nchw_fchw``, bias + requant ``generic``
        (adding the i8 ``residual`` after the shift) into ``%<name>`` (i8); ``weights`` /
        ``bias`` / ``residual`` name SSA values.  Returns its shape."""
        n, _, h, w = shape
        cout, _, k, _ = w_shape
        oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        out = (n, cout, oh, ow)
        data, data_shape = src, tuple(shape)
        if pad:
            data, data_shape = self.pad(name, src, shape, pad, "%c0_i8")
        acc, y = tensor(out, "i32"), tensor(out, "i8")
        ident = "affine_map<(n, c, h, w) -> (n, c, h, w)>"
        ins, types, maps = f"%{name}_c, {bias}", f"{acc}, {tensor((cout,), 'i32')}", [
            ident, "affine_map<(n, c, h, w) -> (c)>"]
        args, body = "%v: i32, %bv: i32", ["    %s = arith.addi %v, %bv : i32",
                                           f"    %sh = arith.constant {shift} : i32",
                                           "    %q = arith.shrsi %s, %sh : i32"]
        last = "%q"
        if residual is not None:
            ins, types, maps = f"{ins}, {residual}", f"{types}, {y}", [*maps, ident]
            args += ", %res: i8"
            body += ["    %re = arith.extsi %res : i8 to i32", "    %r = arith.addi %q, %re : i32"]
            last = "%r"
        body += ["    %lo = arith.constant 0 : i32", "    %hi = arith.constant 127 : i32",
                 f"    %m0 = arith.maxsi {last}, %lo : i32", "    %m1 = arith.minsi %m0, %hi : i32",
                 "    %t = arith.trunci %m1 : i32 to i8", "    linalg.yield %t : i8"]
        self.body += [
            f"  %{name}_e = tensor.empty() : {acc}",
            f"  %{name}_f = linalg.fill ins(%c0 : i32) outs(%{name}_e : {acc}) -> {acc}",
            f"  %{name}_c = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, "
            f"strides = dense<{stride}> : vector<2xi64>}} ins(%{data}, {weights} : "
            f"{tensor(data_shape, 'i8')}, {tensor(w_shape, 'i8')}) outs(%{name}_f : {acc}) "
            f"-> {acc}",
            f"  %{name}_o = tensor.empty() : {y}",
            f"  %{name} = linalg.generic {{indexing_maps = [{', '.join([*maps, ident])}], "
            f"iterator_types = [{_par(4)}]}} ins({ins} : {types}) outs(%{name}_o : {y}) {{",
            f"  ^bb0({args}, %o: i8):", *body,
            f"  }} -> {y}"]
        return out

    def function(self, name: str, results: Sequence[tuple[str, Sequence[int]]]) -> str:
        """The function returning the i8 values ``results`` (name, shape)."""
        types = ", ".join(tensor(shape, "i8") for _, shape in results)
        values = ", ".join(f"%{v}" for v, _ in results)
        return (f"func.func @{name}({', '.join(self.args)}) -> ({types}) {{\n"
                + "\n".join(self.body) + f"\n  return {values} : {types}\n}}\n")
