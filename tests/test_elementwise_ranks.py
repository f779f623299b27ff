"""Element-wise programs of rank 1 to 5 through the whole pipeline, on every shipped
configuration.

``vta-pack`` flattens an element-wise region of any rank into the packed matrix layout (the
``vta.arg`` transform of each argument does the reshape), so these programs run on the same
path as the 2-D ones.  Each program is written out here as MLIR text, compiled with
``vta_mlir.compile``, run on the simulator with random inputs and compared bit for bit with numpy
written independently: int32 arithmetic wraps, shifts are arithmetic, ``trunci`` keeps the low
8 bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from vta_mlir import compile as vta_compile
from vta_mlir import parse, print_ir, run_pipeline
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects.vta import set_module_config
from vta_mlir.ir.diagnostics import DiagnosticError

from .mlir_programs import function, generic, memref
from .numerics import random_args, run_and_compare, trunc8, wrap32

CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}


# --------------------------------------------------------------------------------------------
# MLIR text


def add_program(shape: Sequence[int], element: str) -> str:
    """``y = trunci(a + b)`` of two i32 tensors, or of two sign-extended i8 tensors."""
    full = list(range(len(shape)))
    if element == "i8":
        body = (
            "    %x = arith.extsi %in0 : i8 to i32\n    %z = arith.extsi %in1 : i8 to i32\n"
            "    %r = arith.addi %x, %z : i32"
        )
    else:
        body = "    %r = arith.addi %in0, %in1 : i32"
    ops = generic(shape, [("a", shape, element, full), ("b", shape, element, full)], body)
    return function("add", [("a", shape, element), ("b", shape, element), ("y", shape, "i8")], ops)


def bias_program(shape: Sequence[int], axes: Sequence[int | None]) -> str:
    """``y = trunci(max(s, s >> 2))`` with ``s = (a + bias) >> 1``: an i8 tensor plus a
    broadcast i32 operand whose axes are the result dimensions ``axes``, then a leaky ReLU."""
    full = list(range(len(shape)))
    bias_shape = [1 if d is None else shape[d] for d in axes]
    body = (
        "    %x = arith.extsi %in0 : i8 to i32\n"
        "    %sum = arith.addi %x, %in1 : i32\n"
        "    %c1 = arith.constant 1 : i32\n"
        "    %s = arith.shrsi %sum, %c1 : i32\n"
        "    %c2 = arith.constant 2 : i32\n"
        "    %l = arith.shrsi %s, %c2 : i32\n"
        "    %r = arith.maxsi %s, %l : i32"
    )
    ops = generic(shape, [("a", shape, "i8", full), ("bias", bias_shape, "i32", axes)], body)
    return function(
        "bias", [("a", shape, "i8"), ("bias", bias_shape, "i32"), ("y", shape, "i8")], ops
    )


def chain_program(shape: Sequence[int]) -> str:
    """Three element-wise generics through an i32 buffer of the same rank:
    ``t = (a << 2) - 5``; ``y = trunci(min(max(t, -100), 100))``."""
    full = list(range(len(shape)))
    t = memref(shape, "i32")
    first = generic(
        shape,
        [("a", shape, "i32", full)],
        "    %c2 = arith.constant 2 : i32\n    %s = arith.shli %in0, %c2 : i32\n"
        "    %c5 = arith.constant 5 : i32\n    %r = arith.subi %s, %c5 : i32",
        out="tmp",
        out_element="i32",
    )
    second = generic(
        shape,
        [("tmp", shape, "i32", full)],
        "    %lo = arith.constant -100 : i32\n    %hi = arith.constant 100 : i32\n"
        "    %m = arith.maxsi %in0, %lo : i32\n    %r = arith.minsi %m, %hi : i32",
    )
    ops = f"\n  %tmp = memref.alloc() : {t}{first}{second}"
    return function("chain", [("a", shape, "i32"), ("y", shape, "i8")], ops)


# --------------------------------------------------------------------------------------------
# Running


def run(
    text: str,
    cfg: VTAConfig,
    reference: Callable[[dict[str, np.ndarray]], np.ndarray],
    seed: int = 0,
) -> np.ndarray:
    """Compile ``text``, run it on full-range random inputs and compare with ``reference``
    (given the inputs as int64)."""
    mod = vta_compile(text, config=cfg)
    values = random_args(mod.inputs, seed)
    want = reference({k: v.astype(np.int64) for k, v in values.items()})
    return run_and_compare(mod, values, want)


def bias_reference(shape: Sequence[int], axes: Sequence[int | None]):
    def reference(v: dict[str, np.ndarray]) -> np.ndarray:
        # The bias's axes moved to the result dimensions they index, unit axes elsewhere.
        kept = [d for d in axes if d is not None]
        bias = v["bias"].reshape([shape[d] for d in kept])
        expanded = bias.reshape([shape[d] if d in kept else 1 for d in range(len(shape))])
        s = wrap32(v["a"] + expanded) >> 1
        return trunc8(np.maximum(s, s >> 2))

    return reference


SHAPES = [
    (1024,),
    (1000,),
    (7,),
    (64, 1),
    (1, 7),
    (1, 1, 7),
    (3, 5, 7),
    (2, 33, 3),
    (1, 64, 1, 16),
    (3, 1, 5, 1),
    (2, 3, 4, 5),
    (2, 1, 3, 1, 5),
]


def shape_id(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape))


# --------------------------------------------------------------------------------------------
# Tests


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("element", ["i32", "i8"])
@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
def test_add_matches_numpy(shape: tuple[int, ...], element: str, name: str) -> None:
    run(
        add_program(shape, element),
        CONFIGS[name],
        lambda v: trunc8(wrap32(v["a"] + v["b"])),
        seed=len(shape),
    )


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("shape", [(1000,), (3, 1, 5, 1), (2, 3, 4, 5)], ids=shape_id)
def test_chain_through_a_buffer_matches_numpy(shape: tuple[int, ...], name: str) -> None:
    def reference(v: dict[str, np.ndarray]) -> np.ndarray:
        t = wrap32(wrap32(v["a"] << 2) - 5)
        return trunc8(np.minimum(np.maximum(t, -100), 100))

    run(chain_program(shape), CONFIGS[name], reference)


BIASES = [
    ((64, 3), (0,)),  # a per-row operand of a matrix
    ((5, 40), (None, 1)),  # a per-column bias given as a 1 × N matrix
    ((3, 5, 7), (2,)),
    ((3, 5, 7), (1, 2)),
    ((3, 5, 7), (None, 1, 2)),
    ((4, 6, 9), (0,)),
    ((2, 20, 3, 3), (1,)),  # a per-channel bias of an NCHW tensor
    ((1, 64, 1, 16), (1, 3)),
    ((3, 1, 5, 1), (0, 2)),
]


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize(
    "shape,axes", BIASES, ids=[f"{shape_id(s)}-{'.'.join(map(str, a))}" for s, a in BIASES]
)
def test_broadcast_operand_matches_numpy(
    shape: tuple[int, ...], axes: tuple[int | None, ...], name: str
) -> None:
    run(bias_program(shape, axes), CONFIGS[name], bias_reference(shape, axes), seed=3)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_flattened_arguments_have_the_matrix_layout(name: str) -> None:
    """Without a broadcast operand, a tensor of rank other than 2 is one column block of whole
    tensor elements, one dimension zero-padded as little as possible; a 2-D one keeps the
    matrix layout of the 2-D programs."""
    cfg = CONFIGS[name]
    lanes = cfg.batch * cfg.block_out
    for shape in SHAPES:
        mod = vta_compile(add_program(shape, "i32"), config=cfg)
        for spec in (*mod.inputs, *mod.outputs):
            assert spec.shape == shape
            if len(shape) == 2:
                rows, cols = shape
                assert spec.packed_shape == (
                    -(-rows // cfg.batch),
                    -(-cols // cfg.block_out),
                    cfg.batch,
                    cfg.block_out,
                )
                continue
            elements = math.prod(spec.padded_shape)
            assert spec.packed_shape == (elements // lanes, 1, cfg.batch, cfg.block_out)
            grown = [
                k for k, (p, n) in enumerate(zip(spec.padded_shape, shape, strict=True)) if p != n
            ]
            assert len(grown) <= 1
            # The least padding one dimension can give, by trying every size.
            least = min(
                next(
                    math.prod(shape) // n * p
                    for p in range(n, n + lanes + 1)
                    if math.prod(shape) // n * p % lanes == 0
                )
                for n in shape
            )
            assert elements == least


def test_rank_4_is_not_a_convolution() -> None:
    """``1x64x1x16`` i32 + i32 -> i8 used to reach the convolution tiler."""
    cfg = CONFIGS["default"]
    module = parse(add_program((1, 64, 1, 16), "i32"))
    set_module_config(module, cfg)
    run_pipeline(module, "vta-pack")
    text = print_ir(module)
    assert "memref<64x1x1x16xi32>" in text
    assert "perm = array<i64: 0, 1, 2, 3>" in text


@pytest.mark.parametrize(
    "text,message",
    [
        (
            function(
                "mixed",
                [
                    ("a", (3, 5, 7), "i32"),
                    ("b", (7,), "i32"),
                    ("c", (5,), "i32"),
                    ("y", (3, 5, 7), "i8"),
                ],
                generic(
                    (3, 5, 7),
                    [
                        ("a", (3, 5, 7), "i32", (0, 1, 2)),
                        ("b", (7,), "i32", (2,)),
                        ("c", (5,), "i32", (1,)),
                    ],
                    "    %s = arith.addi %in0, %in1 : i32\n    %r = arith.addi %s, %in2 : i32",
                ),
            ),
            "the broadcast operands of a VTA region vary along the same dimensions",
        ),
        (
            function(
                "scalar",
                [("a", (3, 5), "i32"), ("b", (1,), "i32"), ("y", (3, 5), "i8")],
                generic(
                    (3, 5),
                    [("a", (3, 5), "i32", (0, 1)), ("b", (1,), "i32", (None,))],
                    "    %r = arith.addi %in0, %in1 : i32",
                ),
            ),
            "as a single value: VTA's ALU takes a scalar as an immediate",
        ),
        (
            function(
                "transposed",
                [("a", (3, 7, 5), "i32"), ("y", (3, 5, 7), "i8")],
                generic(
                    (3, 5, 7),
                    [("a", (3, 7, 5), "i32", (0, 2, 1))],
                    "    %r = arith.addi %in0, %in0 : i32",
                ),
            ),
            "reads %a transposed",
        ),
        (
            function(
                "rank8",
                [("a", (1,) * 8, "i32"), ("y", (1,) * 8, "i8")],
                generic(
                    (1,) * 8,
                    [("a", (1,) * 8, "i32", tuple(range(8)))],
                    "    %r = arith.addi %in0, %in0 : i32",
                ),
            ),
            "has rank 8: VTA's element-wise ops take buffers of rank 1 to 7",
        ),
    ],
)
def test_unsupported_forms_are_diagnosed(text: str, message: str) -> None:
    with pytest.raises(DiagnosticError, match=message):
        vta_compile(text, config=CONFIGS["default"])
