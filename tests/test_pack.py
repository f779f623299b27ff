"""``vta-pack``: the packed IR of every example computes what the original computes, on every
shipped configuration.

The numpy reference evaluator (``vta_mlir.reference``) runs both forms; ``arith.shrsi`` by a
negative amount shifts left there, as in the normal form (VTA's SHR).  The original runs on
random logical arrays; the packed function on the same arrays packed with the ``vta.arg``
transform of each argument (``ArgSpec.pack``), its outputs unpacked with ``ArgSpec.unpack``.
Hand-written numpy references check the evaluator on the original examples.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import DictionaryAttr, MemRefType, ModuleOp
from xdsl.dialects.linalg import ops as linalg

from vta_mlir.abi import ArgSpec, layout_tiles, tiled_packing
from vta_mlir.binary import Linker
from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import set_module_config
from vta_mlir.host.layout import plan_layout
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.passes.pack import PackPass
from vta_mlir.reference import run_function

from .numerics import memref_dtype, random_memref_args, trunc8, wrap

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE_NAMES = ["vector_add", "matrix_multiply", "matrix_multiply_opt", "dense_bias_relu",
                 "dense_kn", "alu_ops", "odd_shapes"]


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def pack(text: str, cfg: VTAConfig) -> ModuleOp:
    module = parse_module(text)
    set_module_config(module, cfg)
    PackPass().apply(make_context(), module)
    module.verify()
    return module


def functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.walk() if isinstance(op, func.FuncOp)]


def arg_specs(f: func.FuncOp) -> list[ArgSpec | None]:
    """Each argument's ``vta.arg`` transform as an ``ArgSpec`` (None: not packed)."""
    specs: list[ArgSpec | None] = []
    attrs = f.arg_attrs.data if f.arg_attrs is not None else [None] * len(f.body.block.args)
    for i, (arg, a) in enumerate(zip(f.body.block.args, attrs, strict=True)):
        desc = a.data.get("vta.arg") if isinstance(a, DictionaryAttr) else None
        if desc is None:
            specs.append(None)
            continue
        assert isinstance(desc, DictionaryAttr)

        def ints(key: str, d: DictionaryAttr = desc) -> tuple[int, ...]:
            return tuple(d.data[key].get_values())  # type: ignore[attr-defined]

        t = arg.type
        assert isinstance(t, MemRefType)
        # A repeated (broadcast) or windowed argument is an input only: it cannot be unpacked.
        repeat = ints("repeat") if "repeat" in desc.data else ()
        window = ints("window") if "window" in desc.data else ()
        specs.append(ArgSpec(arg.name_hint or f"arg{i}", "in" if repeat or window else "inout",
                             desc.data["dtype"].data,  # type: ignore[attr-defined]
                             ints("shape"), ints("padded_shape"), ints("split_shape"),
                             ints("perm"), str(memref_dtype(t)), repeat=repeat, window=window))
    return specs


def run_packed(f: func.FuncOp, logical: list[np.ndarray]) -> list[np.ndarray]:
    """Pack ``logical`` with the function's ABI, run ``f``, unpack every argument."""
    specs = arg_specs(f)
    packed = []
    for arg, spec, value in zip(f.body.block.args, specs, logical, strict=True):
        t = arg.type
        assert isinstance(t, MemRefType)
        if spec is None:
            packed.append(value.copy())
            continue
        raw = np.frombuffer(spec.pack(value), dtype=spec.packed_dtype)
        packed.append(raw.reshape(t.get_shape()).copy())
        assert tuple(t.get_shape()) == spec.packed_shape
    run_function(f, packed)
    return [
        value if spec is None else original if spec.repeat or spec.window
        else spec.unpack(value)
        for spec, value, original in zip(specs, packed, logical, strict=True)
    ]


def clip(a: np.ndarray, lo: int, hi: int) -> np.ndarray:
    return np.clip(a, lo, hi)


def mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return wrap(a.astype(np.int64) @ b.astype(np.int64), 32)


REFERENCES: dict[str, Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]] = {
    "vector_add": lambda v: {"c": trunc8(v["a"].astype(np.int64) + v["b"])},
    "matrix_multiply": lambda v: {"c": trunc8(mm(v["a"], v["b"].T))},
    "matrix_multiply_opt": lambda v: {"y": trunc8(clip(mm(v["x"], v["w"]) >> 8, 0, 127))},
    "dense_bias_relu": lambda v: {
        "y": trunc8(clip(wrap(mm(v["x"], v["w"].T) + v["bias"], 32) >> 6, 0, 127))},
    "dense_kn": lambda v: {"y": trunc8(clip(wrap(mm(v["x"], v["w"]) - 64, 32) >> 5, -128, 127))},
    "odd_shapes": lambda v: {
        "y": trunc8(clip(wrap(mm(v["x"], v["w"]) + v["bias"], 32) >> 3, 0, 127))},
    "alu_ops": lambda v: {
        "shl_imm": trunc8(v["a"].astype(np.int64) << 3),
        "shr_imm": trunc8(v["a"] >> 2),
        "max_imm": trunc8(np.maximum(v["a"], 4)),
        "max_tensor": trunc8(np.maximum(v["a"], v["b"])),
        "add_imm": trunc8(v["a"].astype(np.int64) + 3),
        "add_tensor": trunc8(v["a"].astype(np.int64) + v["b"]),
        "relu": trunc8(clip(v["a"], 0, 127)),
        "shift_scale": trunc8((v["a"].astype(np.int64) + 5) >> 2),
    },
}


# --------------------------------------------------------------------------------------------
# Examples: original == reference, packed == original, on every configuration
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_original_matches_reference(name: str) -> None:
    module = parse_module((EXAMPLES / f"{name}.mlir").read_text())
    (f,) = functions(module)
    arrays = random_memref_args(f, np.random.default_rng(1))
    names = [a.name_hint for a in f.body.block.args]
    expected = REFERENCES[name](dict(zip(names, arrays, strict=True)))
    run_function(f, arrays)
    for key, want in expected.items():
        np.testing.assert_array_equal(arrays[names.index(key)], want, err_msg=key)


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_packed_example_matches_original(name: str, cfg: VTAConfig) -> None:
    text = (EXAMPLES / f"{name}.mlir").read_text()
    (original,) = functions(parse_module(text))
    (packed,) = functions(pack(text, cfg))
    inputs = random_memref_args(original, np.random.default_rng(7))
    expected = [a.copy() for a in inputs]
    run_function(original, expected)
    got = run_packed(packed, inputs)
    names = [a.name_hint for a in original.body.block.args]
    for arg_name, want, have in zip(names, expected, got, strict=True):
        np.testing.assert_array_equal(have, want, err_msg=f"{name}: {arg_name}")


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_packed_example_is_normal_form(name: str, cfg: VTAConfig) -> None:
    """Only the ops of the normal form, on memrefs whose inner dimensions are whole tensor
    elements of the configuration; the ABI is accepted by the host layout planner."""
    module = pack((EXAMPLES / f"{name}.mlir").read_text(), cfg)
    (f,) = functions(module)
    allowed = (arith.ConstantOp, memref.AllocOp, linalg.FillOp, linalg.GenericOp, func.ReturnOp)
    for op in f.body.block.ops:
        assert isinstance(op, allowed), op.name
        if isinstance(op, linalg.GenericOp):
            body = [o for o in op.body.block.ops if not isinstance(o, arith.ConstantOp)]
            assert len(body) <= 5
    for arg, spec in zip(f.body.block.args, arg_specs(f), strict=True):
        assert spec is not None, arg.name_hint
        t = arg.type
        assert isinstance(t, MemRefType)
        inner = tuple(t.get_shape()[2:])
        assert inner in {(cfg.batch, cfg.block_out), (cfg.block_out, cfg.block_in),
                         (cfg.batch, cfg.block_in), (1, cfg.block_out)}, (arg.name_hint, t)
    layout = plan_layout(f, module, cfg, Linker())
    assert [a.name for a in layout.args] == [a.name_hint for a in f.body.block.args]


def test_matrix_multiply_opt_abi(default_cfg: VTAConfig) -> None:
    """The packed signature of docs/pipeline.md's running example, with the standard layouts
    of ``vta_mlir.abi``."""
    module = pack((EXAMPLES / "matrix_multiply_opt.mlir").read_text(), default_cfg)
    (f,) = functions(module)
    types = [str(a.type) for a in f.body.block.args]
    assert types == ["memref<1x64x1x16xi8>", "memref<64x64x16x16xi8>", "memref<1x64x1x16xi8>"]
    x, w, y = arg_specs(f)
    assert x is not None and w is not None and y is not None
    for spec, layout in ((x, "NC"), (w, "KN"), (y, "NC")):
        tiles, outer, inner = layout_tiles(layout, default_cfg, 2)
        assert (spec.padded_shape, spec.split_shape, spec.perm) == tiled_packing(
            spec.shape, tiles, outer_order=outer, inner_order=inner)


def test_odd_shapes_are_padded(cfg: VTAConfig) -> None:
    module = pack((EXAMPLES / "odd_shapes.mlir").read_text(), cfg)
    (f,) = functions(module)
    x, w, bias, y = arg_specs(f)
    assert x is not None and w is not None and bias is not None and y is not None
    b, blk = cfg.batch, cfg.block_out
    assert x.padded_shape == (math.ceil(3 / b) * b, math.ceil(40 / blk) * blk)
    assert w.packed_shape == (math.ceil(24 / blk), math.ceil(40 / blk), blk, blk)
    # the bias is replicated over the batch lanes: one whole accumulator element per block
    assert bias.packed_shape == (1, math.ceil(24 / blk), b, blk)
    assert y.packed_shape == (math.ceil(3 / b), math.ceil(24 / blk), b, blk)


# --------------------------------------------------------------------------------------------
# Forms not covered by the examples
# --------------------------------------------------------------------------------------------

ID2 = "affine_map<(d0, d1) -> (d0, d1)>"

EXTRA_FORMS = {
    # Activations given K×N, weights N×K, inputs swapped; a non-zero fill; tensor MUL with an
    # i8 operand; subtraction and left shift; the result's accumulator reused twice.
    "transposed": f"""
func.func @f(%xt: memref<40x5xi8>, %w: memref<20x40xi8>, %s: memref<5x20xi8>,
             %y: memref<5x20xi8>) {{
  %acc = memref.alloc() : memref<5x20xi32>
  %c7 = arith.constant 7 : i32
  linalg.fill ins(%c7 : i32) outs(%acc : memref<5x20xi32>)
  linalg.generic {{indexing_maps = [affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (k, m)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%w, %xt : memref<20x40xi8>, memref<40x5xi8>) outs(%acc : memref<5x20xi32>) {{
  ^bb0(%a: i8, %b: i8, %sum: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %be, %ae : i32
    %r = arith.addi %p, %sum : i32
    linalg.yield %r : i32
  }}
  linalg.generic {{indexing_maps = [{ID2}, {ID2}, {ID2}],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%acc, %s : memref<5x20xi32>, memref<5x20xi8>) outs(%y : memref<5x20xi8>) {{
  ^bb0(%v: i32, %q: i8, %o: i8):
    %c3 = arith.constant 3 : i32
    %c100 = arith.constant 100 : i32
    %qe = arith.extsi %q : i8 to i32
    %m = arith.muli %qe, %v : i32
    %d = arith.subi %m, %c100 : i32
    %l = arith.shli %d, %c3 : i32
    %t = arith.trunci %l : i32 to i8
    linalg.yield %t : i8
  }}
  return
}}
""",
    # An i8 input copied straight to an i8 output, a constant output, and x + x.
    "copies": f"""
func.func @f(%x: memref<4x24xi8>, %a: memref<4x24xi32>, %y: memref<4x24xi8>,
             %z: memref<4x24xi8>, %d: memref<4x24xi8>) {{
  %t = memref.alloc() : memref<4x24xi8>
  memref.copy %x, %t : memref<4x24xi8> to memref<4x24xi8>
  memref.copy %t, %y : memref<4x24xi8> to memref<4x24xi8>
  %c5 = arith.constant 5 : i8
  linalg.fill ins(%c5 : i8) outs(%z : memref<4x24xi8>)
  %s = memref.alloc() : memref<4x24xi32>
  linalg.generic {{indexing_maps = [{ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%a : memref<4x24xi32>) outs(%s : memref<4x24xi32>) {{
  ^bb0(%v: i32, %o: i32):
    %c1 = arith.constant 1 : i32
    %r = arith.shrsi %v, %c1 : i32
    linalg.yield %r : i32
  }}
  linalg.generic {{indexing_maps = [{ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%s : memref<4x24xi32>) outs(%d : memref<4x24xi8>) {{
  ^bb0(%v: i32, %o: i8):
    %r = arith.addi %v, %v : i32
    %t8 = arith.trunci %r : i32 to i8
    linalg.yield %t8 : i8
  }}
  return
}}
""",
    # A bias broadcast from a 1×N matrix added after the shift (a second accumulator), and a
    # contraction with a bias folded into its initial value.
    "bias": f"""
func.func @f(%x: memref<6x32xi8>, %w: memref<32x16xi8>, %b1: memref<1x16xi32>,
             %b2: memref<16xi32>, %y: memref<6x16xi8>) {{
  %acc = memref.alloc() : memref<6x16xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<6x16xi32>)
  linalg.matmul ins(%x, %w : memref<6x32xi8>, memref<32x16xi8>) outs(%acc : memref<6x16xi32>)
  linalg.generic {{indexing_maps = [{ID2}, affine_map<(d0, d1) -> (d1)>, {ID2}],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%acc, %b2 : memref<6x16xi32>, memref<16xi32>) outs(%acc : memref<6x16xi32>) {{
  ^bb0(%v: i32, %b: i32, %o: i32):
    %r = arith.addi %b, %v : i32
    linalg.yield %r : i32
  }}
  linalg.generic {{indexing_maps = [{ID2}, affine_map<(d0, d1) -> (0, d1)>, {ID2}],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%acc, %b1 : memref<6x16xi32>, memref<1x16xi32>) outs(%y : memref<6x16xi8>) {{
  ^bb0(%v: i32, %b: i32, %o: i8):
    %c4 = arith.constant 4 : i32
    %s = arith.shrsi %v, %c4 : i32
    %r = arith.addi %s, %b : i32
    %m = arith.minsi %b, %r : i32
    %t = arith.trunci %m : i32 to i8
    linalg.yield %t : i8
  }}
  return
}}
""",
}


@pytest.mark.parametrize("name", sorted(EXTRA_FORMS))
def test_extra_forms_match_original(name: str, cfg: VTAConfig) -> None:
    text = EXTRA_FORMS[name]
    (original,) = functions(parse_module(text))
    (packed,) = functions(pack(text, cfg))
    inputs = random_memref_args(original, np.random.default_rng(3))
    expected = [a.copy() for a in inputs]
    run_function(original, expected)
    got = run_packed(packed, inputs)
    for arg, want, have in zip(original.body.block.args, expected, got, strict=True):
        np.testing.assert_array_equal(have, want, err_msg=f"{name}: {arg.name_hint}")


def test_bias_forms_fold_and_load(default_cfg: VTAConfig) -> None:
    text = print_module(pack(EXTRA_FORMS["bias"], default_cfg))
    # b2 initialises the accumulator; b1 gets a second accumulator for the tensor ADD.
    assert text.count("memref.alloc()") == 2
    assert text.count("affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>") == 2
    assert "linalg.fill" not in text


def test_already_packed_function_is_left_alone(default_cfg: VTAConfig) -> None:
    once = print_module(pack((EXAMPLES / "dense_kn.mlir").read_text(), default_cfg))
    twice = parse_module(once)
    PackPass().apply(make_context(), twice)
    assert print_module(twice) == once


def test_error_is_a_diagnostic_at_the_op(default_cfg: VTAConfig) -> None:
    text = """
func.func @f(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c3 = arith.constant 3 : i32
    %r = arith.divsi %v, %c3 : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}
"""
    with pytest.raises(DiagnosticError) as info:
        pack(text, default_cfg)
    diagnostic = info.value.diagnostic
    assert diagnostic.message.startswith("'arith.divsi' op is not supported")
    assert diagnostic.location is not None and diagnostic.location.line == 9
