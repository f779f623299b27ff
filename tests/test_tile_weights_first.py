"""``vta-tile``: a dense layer whose whole input an earlier layer of the function computes
loads its first output tile's weights before that input.

The input's load waits for the earlier layer's store; the weights do not, so the load module
fetches them meanwhile (ResNet-18's classifier after the global average pool).  The first
output tile is written out before the loop over the others; the program stays bit-exact with
numpy written here, on every shipped configuration, and a layer reading a function argument
keeps the input first.
"""

from __future__ import annotations

import numpy as np

from vta_mlir import lower, parse, print_ir, run_pipeline
from vta_mlir.config import VTAConfig
from vta_mlir.runtime.device import Device

from .mlir_programs import clip, function, generic, matmul_nk, memref, requantize
from .numerics import run_and_compare

SHIFT = 8


def two_dense(m: int, k: int, h: int, n: int, w1: str, w2: str) -> str:
    """``y = clip((clip((x · w1ᵀ) >> SHIFT) · w2ᵀ) >> SHIFT)`` with constant weights: the
    second layer reads the first one's output, an intermediate buffer."""
    steps = [("shrsi", SHIFT), *clip(-128, 127)]
    ops = f"""
  %w1 = memref.get_global @w1 : {memref((h, k), "i8")}
  %w2 = memref.get_global @w2 : {memref((n, h), "i8")}
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : {memref((m, h), "i32")}
  linalg.fill ins(%c0 : i32) outs(%acc : {memref((m, h), "i32")}){matmul_nk(m, k, h, w="%w1")}
  %mid = memref.alloc() : {memref((m, h), "i8")}{generic((m, h), [("acc", (m, h), "i32", (0, 1))],
                                                        requantize(steps), out="mid")}
  %acc2 = memref.alloc() : {memref((m, n), "i32")}
  linalg.fill ins(%c0 : i32) outs(%acc2 : {memref((m, n), "i32")}){matmul_nk(m, h, n, x="%mid",
                                                                          w="%w2", acc="%acc2")}
{generic((m, n), [("acc2", (m, n), "i32", (0, 1))], requantize(steps))}"""
    glob = (f'memref.global "private" constant @w1 : {memref((h, k), "i8")} = {w1}\n'
            f'memref.global "private" constant @w2 : {memref((n, h), "i8")} = {w2}\n')
    return glob + function("dense2", [("x", (m, k), "i8"), ("y", (m, n), "i8")], ops)


def _hex(a: np.ndarray) -> str:
    return f'dense<"0x{a.astype(np.int8).tobytes().hex().upper()}">'


def _reference(x: np.ndarray, w1: np.ndarray, w2: np.ndarray) -> np.ndarray:
    mid = np.clip((x.astype(np.int64) @ w1.astype(np.int64).T) >> SHIFT, -128, 127)
    return np.clip((mid @ w2.astype(np.int64).T) >> SHIFT, -128, 127).astype(np.int8)


def _copies(text: str, cfg: VTAConfig) -> list[str]:
    """The copies into input or weight buffers after vta-tile, in order: ``"SPACE SOURCE"``."""
    module = parse(text, config=cfg)
    run_pipeline(module, "vta-pack,vta-merge-alu-immediates,vta-tile")
    order = []
    for line in print_ir(module).splitlines():
        line = line.strip()
        if not line.startswith(("memref.copy", "vta.dma_copy")):
            continue
        src = line.split()[1].rstrip(",").split("[")[0]
        for space in ("inp", "wgt"):
            if line.endswith(f"#vta.sram<{space}>>"):
                order.append(f"{space} {src}")
    return order


def test_first_weights_before_an_intermediate_input(cfg: VTAConfig) -> None:
    m, k = cfg.batch, 4 * cfg.block_in
    h, n = 8 * cfg.block_in, 40 * cfg.block_out
    rng = np.random.default_rng(4)
    x = rng.integers(-128, 128, (m, k)).astype(np.int8)
    w1 = rng.integers(-128, 128, (h, k)).astype(np.int8)
    w2 = rng.integers(-128, 128, (n, h)).astype(np.int8)
    text = two_dense(m, k, h, n, _hex(w1), _hex(w2))
    order = _copies(text, cfg)
    # The first layer reads an argument: its input first.  The second, a tile of its weights,
    # then its whole input (loaded once), then its other weight tiles.
    assert order[0].startswith("inp %x"), order
    mid = [k for k, c in enumerate(order) if c.startswith("inp %mid")]
    assert len(mid) == 1, order
    assert order[mid[0] - 1].startswith("wgt %w2"), order
    assert all(c.startswith("wgt %w2") for c in order[mid[0] + 1:]), order
    binary = lower(text, config=cfg)
    run_and_compare(Device(cfg).load_module(binary), {"x": x}, _reference(x, w1, w2))
