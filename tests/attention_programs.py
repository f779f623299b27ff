"""Attention-shaped programs for the tests of computed right operands
(``passes/pack/match_matmul_operands.py``, ``passes/pack/transpose_operand.py``): matrix
layers (a product, ``>> shift``, a clip to int8) chained through int8 buffers, the right
operand of a product given as K × N (``linalg.matmul``), as N × K (a transposed map), or as the
``linalg.transpose`` of a buffer; and their numpy reference."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tests.mlir_programs import memref

#: The spellings of a product's right operand.
KN, NK_MAP, NK_MATMUL, TRANSPOSE = "kn", "nk_map", "nk_matmul", "transpose"

_ID = "affine_map<(i, j) -> (i, j)>"
_PAR2 = 'iterator_types = ["parallel", "parallel"]'
_MAC = """  ^bb0(%a: i8, %b: i8, %s: i32):
    %ea = arith.extsi %a : i8 to i32
    %eb = arith.extsi %b : i8 to i32
    %prod = arith.muli %ea, %eb : i32
    %r = arith.addi %s, %prod : i32
    linalg.yield %r : i32
  }"""


def _requant(k: int, shift: int) -> str:
    """The body of product ``k``'s epilogue: ``>> shift``, clip to int8, truncate."""
    return f"""  ^bb0(%in: i32, %o: i8):
    %c{k}_s = arith.constant {shift} : i32
    %e0 = arith.shrsi %in, %c{k}_s : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %e1 = arith.maxsi %e0, %lo : i32
    %e2 = arith.minsi %e1, %hi : i32
    %t = arith.trunci %e2 : i32 to i8
    linalg.yield %t : i8
  }}"""


def layer(a: np.ndarray, b: np.ndarray, shift: int) -> np.ndarray:
    """``clip((a · b) >> shift, -128, 127)`` as int8."""
    product = a.astype(np.int64) @ b.astype(np.int64)
    return np.clip(product >> shift, -128, 127).astype(np.int8)


@dataclass
class Program:
    """A function of matrix layers; ``shapes`` holds every buffer's logical shape."""

    shapes: dict[str, tuple[int, int]] = field(default_factory=dict[str, tuple[int, int]])
    body: list[str] = field(default_factory=list[str])
    counter: int = 0
    #: The types of views (a head's columns), by name.
    types: dict[str, str] = field(default_factory=dict[str, str])

    def buffer(self, name: str, shape: tuple[int, int]) -> None:
        self.shapes[name] = shape
        self.body.append(f"  %{name} = memref.alloc() : {memref(shape, 'i8')}")

    def type(self, name: str) -> str:
        return self.types.get(name) or memref(self.shapes[name], "i8")

    def columns(self, name: str, whole: str, first: int, count: int) -> None:
        """``name`` = columns ``first .. first + count`` of ``whole`` (a ``memref.subview``)."""
        rows, cols = self.shapes[whole]
        self.shapes[name] = (rows, count)
        self.types[name] = f"memref<{rows}x{count}xi8, strided<[{cols}, 1], offset: {first}>>"
        self.body.append(f"  %{name} = memref.subview %{whole}[0, {first}] [{rows}, {count}] "
                         f"[1, 1] : {self.type(whole)} to {self.types[name]}")

    def product(self, a: str, b: str, out: str, shift: int, form: str = KN) -> None:
        """``out = clip((a · B) >> shift)``: ``B`` is ``b`` (K × N) for :data:`KN`, ``bᵀ``
        (``b`` N × K) otherwise."""
        k = self.counter
        self.counter += 1
        (m, depth), n = self.shapes[a], self.shapes[out][1]
        acc = memref((m, n), "i32")
        self.body.append(f"  %acc{k} = memref.alloc() : {acc}")
        self.body.append(f"  linalg.fill ins(%c0 : i32) outs(%acc{k} : {acc})")
        bt = self.type(b)
        at = self.type(a)
        if form == TRANSPOSE:
            self.body.append(f"  %{b}_t{k} = memref.alloc() : {memref((depth, n), 'i8')}")
            self.body.append(f"  linalg.transpose ins(%{b} : {bt}) outs(%{b}_t{k} : "
                             f"{memref((depth, n), 'i8')}) permutation = [1, 0]")
            b, bt = f"{b}_t{k}", memref((depth, n), "i8")
        if form in (KN, TRANSPOSE):
            self.body.append(f"  linalg.matmul ins(%{a}, %{b} : {at}, {bt}) outs(%acc{k} : {acc})")
        elif form == NK_MATMUL:
            self.body.append(
                "  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
                "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] "
                f"ins(%{a}, %{b} : {at}, {bt}) outs(%acc{k} : {acc})")
        else:
            self.body.append(
                "  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
                "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], "
                'iterator_types = ["parallel", "parallel", "reduction"]} '
                f"ins(%{a}, %{b} : {at}, {bt}) outs(%acc{k} : {acc}) {{\n{_MAC}")
        self.body.append(f"""  linalg.generic {{indexing_maps = [{_ID}, {_ID}], {_PAR2}}}
      ins(%acc{k} : {acc}) outs(%{out} : {self.type(out)}) {{
{_requant(k, shift)}""")

    def function(self, name: str, params: list[str]) -> str:
        """``func.func @name`` taking the buffers ``params`` (in order) as arguments; the
        others are allocations of its body."""
        args = ", ".join(f"%{p}: {memref(self.shapes[p], 'i8')}" for p in params)
        body = [line for line in self.body
                if not any(line.startswith(f"  %{p} = memref.alloc") for p in params)]
        return (f"func.func @{name}({args}) {{\n  %c0 = arith.constant 0 : i32\n"
                + "\n".join(body) + "\n  return\n}\n")


def scores(s: int, d: int, c: int, form: str = NK_MAP) -> str:
    """``q = x·wq``, ``k = x·wk`` (S × D), then ``p = q·kᵀ`` (S × S) with ``kᵀ`` spelled as
    ``form``."""
    prog = Program()
    for name, shape in (("x", (s, c)), ("wq", (c, d)), ("wk", (c, d)), ("q", (s, d)),
                        ("k", (s, d)), ("p", (s, s))):
        prog.buffer(name, shape)
    for w, out in (("wq", "q"), ("wk", "k")):
        prog.product("x", w, out, 9)
    prog.product("q", "k", "p", 10, form)
    return prog.function("scores", ["x", "wq", "wk", "p"])


def scores_reference(x: np.ndarray, wq: np.ndarray, wk: np.ndarray) -> np.ndarray:
    return layer(layer(x, wq, 9), layer(x, wk, 9).T, 10)


def heads(s: int, d: int, count: int, c: int) -> str:
    """Multi-head attention on S × (count·D) matrices: ``q``, ``k``, ``v`` of all heads (one
    product each), then per head ``h`` (columns ``h·D`` onwards) ``p_h = q_h·k_hᵀ`` and
    ``p_h·v_h`` written into head ``h``'s columns of the output ``y``."""
    prog = Program()
    width = count * d
    for name, shape in (("x", (s, c)), ("wq", (c, width)), ("wk", (c, width)),
                        ("wv", (c, width)), ("q", (s, width)), ("k", (s, width)),
                        ("v", (s, width)), ("y", (s, width))):
        prog.buffer(name, shape)
    for w, out in (("wq", "q"), ("wk", "k"), ("wv", "v")):
        prog.product("x", w, out, 9)
    for h in range(count):
        for name in ("q", "k", "v", "y"):
            prog.columns(f"{name}{h}", name, h * d, d)
        prog.buffer(f"p{h}", (s, s))
        prog.product(f"q{h}", f"k{h}", f"p{h}", 10, NK_MAP)
        prog.product(f"p{h}", f"v{h}", f"y{h}", 10)
    return prog.function("heads", ["x", "wq", "wk", "wv", "y"])


def heads_reference(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray,
                    d: int) -> np.ndarray:
    q, k, v = layer(x, wq, 9), layer(x, wk, 9), layer(x, wv, 9)
    parts = [layer(layer(q[:, h:h + d], k[:, h:h + d].T, 10), v[:, h:h + d], 10)
             for h in range(0, q.shape[1], d)]
    return np.concatenate(parts, axis=1)


def attention(s: int, d: int, c: int, qk_form: str = NK_MAP) -> str:
    """``q = x·wq``, ``k = x·wk``, ``v = x·wv`` (S × D), ``p = q·kᵀ`` (S × S, ``qk_form``),
    ``y = p·v`` (S × D): every right operand of the last two products computed on the device."""
    prog = Program()
    for name, shape in (("x", (s, c)), ("wq", (c, d)), ("wk", (c, d)), ("wv", (c, d)),
                        ("q", (s, d)), ("k", (s, d)), ("v", (s, d)), ("p", (s, s)),
                        ("y", (s, d))):
        prog.buffer(name, shape)
    for w, out in (("wq", "q"), ("wk", "k"), ("wv", "v")):
        prog.product("x", w, out, 9)
    prog.product("q", "k", "p", 10, qk_form)
    prog.product("p", "v", "y", 10)
    return prog.function("attention", ["x", "wq", "wk", "wv", "y"])


def attention_reference(x: np.ndarray, wq: np.ndarray, wk: np.ndarray,
                        wv: np.ndarray) -> np.ndarray:
    q, k, v = layer(x, wq, 9), layer(x, wk, 9), layer(x, wv, 9)
    return layer(layer(q, k.T, 10), v, 10)


_BATCH_MAPS = {
    "shared": "[affine_map<(h, m, n, k) -> (h, m, k)>, affine_map<(h, m, n, k) -> (k, n)>, "
              "affine_map<(h, m, n, k) -> (h, m, n)>]",
    "nk": "[affine_map<(h, m, n, k) -> (h, m, k)>, affine_map<(h, m, n, k) -> (h, n, k)>, "
          "affine_map<(h, m, n, k) -> (h, m, n)>]",
}
_ID3 = "affine_map<(h, i, j) -> (h, i, j)>"
_PAR3 = 'iterator_types = ["parallel", "parallel", "parallel"]'


@dataclass
class BatchedProgram:
    """A function of batched matrix layers (``linalg.batch_matmul``, ``>> shift``, a clip to
    int8) on ``H × rows × cols`` buffers."""

    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict[str, tuple[int, ...]])
    body: list[str] = field(default_factory=list[str])
    counter: int = 0

    def buffer(self, name: str, shape: tuple[int, ...]) -> None:
        self.shapes[name] = shape
        self.body.append(f"  %{name} = memref.alloc() : {memref(shape, 'i8')}")

    def product(self, a: str, b: str, out: str, shift: int, maps: str | None = None) -> None:
        """``out[h] = clip((a[h] · B[h]) >> shift)``; ``maps``: ``None`` (``b[h]``, K × N),
        ``"shared"`` (``b`` one K × N matrix), ``"nk"`` (``b[h]ᵀ``)."""
        k = self.counter
        self.counter += 1
        shape = self.shapes[out]
        acc = memref(shape, "i32")
        prefix = "" if maps is None else f"indexing_maps = {_BATCH_MAPS[maps]} "
        types = f"{memref(self.shapes[a], 'i8')}, {memref(self.shapes[b], 'i8')}"
        self.body += [
            f"  %acc{k} = memref.alloc() : {acc}",
            f"  linalg.fill ins(%c0 : i32) outs(%acc{k} : {acc})",
            f"  linalg.batch_matmul {prefix}ins(%{a}, %{b} : {types}) outs(%acc{k} : {acc})",
            f"""  linalg.generic {{indexing_maps = [{_ID3}, {_ID3}], {_PAR3}}}
      ins(%acc{k} : {acc}) outs(%{out} : {memref(shape, "i8")}) {{
{_requant(k, shift)}"""]

    function = Program.function


def head_scores(h: int, s: int, d: int, c: int) -> str:
    """Per-head ``q[h] = x[h]·wq``, ``k[h] = x[h]·wk`` (one weight for every head), then
    ``p[h] = q[h]·k[h]ᵀ``: a batched product of two computed operands."""
    prog = BatchedProgram()
    for name, shape in (("x", (h, s, c)), ("wq", (c, d)), ("wk", (c, d)), ("q", (h, s, d)),
                        ("k", (h, s, d)), ("p", (h, s, s))):
        prog.buffer(name, shape)
    prog.product("x", "wq", "q", 9, "shared")
    prog.product("x", "wk", "k", 9, "shared")
    prog.product("q", "k", "p", 10, "nk")
    return prog.function("head_scores", ["x", "wq", "wk", "p"])  # type: ignore[arg-type]


def head_scores_reference(x: np.ndarray, wq: np.ndarray, wk: np.ndarray) -> np.ndarray:
    q, k = layer(x, wq, 9), layer(x, wk, 9)
    return layer(q, k.transpose(0, 2, 1), 10)


def head_attention(h: int, s: int, d: int, c: int) -> str:
    """Per head, ``q``, ``k``, ``v`` from ``x[h]`` (one weight for every head), ``p[h] =
    q[h]·k[h]ᵀ``, ``y[h] = p[h]·v[h]``: ``v[h]`` transposed on the device."""
    prog = BatchedProgram()
    for name, shape in (("x", (h, s, c)), ("wq", (c, d)), ("wk", (c, d)), ("wv", (c, d)),
                        ("q", (h, s, d)), ("k", (h, s, d)), ("v", (h, s, d)), ("p", (h, s, s)),
                        ("y", (h, s, d))):
        prog.buffer(name, shape)
    for w, out in (("wq", "q"), ("wk", "k"), ("wv", "v")):
        prog.product("x", w, out, 9, "shared")
    prog.product("q", "k", "p", 10, "nk")
    prog.product("p", "v", "y", 10)
    return prog.function("head_attention", ["x", "wq", "wk", "wv", "y"])  # type: ignore[arg-type]


def head_attention_reference(x: np.ndarray, wq: np.ndarray, wk: np.ndarray,
                             wv: np.ndarray) -> np.ndarray:
    q, k, v = layer(x, wq, 9), layer(x, wk, 9), layer(x, wv, 9)
    return layer(layer(q, k.transpose(0, 2, 1), 10), v, 10)
