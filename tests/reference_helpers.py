"""Shared by the reference evaluator tests: Python integers wrapped to a width, and a
matrix reduction whose term and combining op vary."""

from __future__ import annotations


def pywrap(value: int, bits: int) -> int:
    """Python integer wrapped to ``bits`` (two's complement)."""
    half = 1 << (bits - 1)
    return (value + half) % (1 << bits) - half


def reduction_text(term: str, combine: str, ty: str = "i32", in_ty: str = "i32") -> str:
    """A 6x50 by 50x7 reduction: ``term`` of two elements (``%t``), folded by ``combine``."""
    return f"""
func.func @f(%a: memref<6x50x{in_ty}>, %b: memref<50x7x{in_ty}>, %y: memref<6x7x{ty}>) {{
  linalg.generic {{indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %b : memref<6x50x{in_ty}>, memref<50x7x{in_ty}>) outs(%y : memref<6x7x{ty}>) {{
  ^bb0(%x: {in_ty}, %z: {in_ty}, %acc: {ty}):
    {term}
    %r = arith.{combine} %acc, %t : {ty}
    linalg.yield %r : {ty}
  }}
  return
}}
"""
