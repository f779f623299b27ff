"""Probes of the defects of stock xDSL that ``vta_mlir.ir.upstream_fixes`` patches.

Run as a script, in a process that imports xDSL only (never ``vta_mlir``, whose import applies
the fixes): it prints a JSON object mapping each fix name of ``upstream_fixes.FIXES`` to
whether stock xDSL still shows the defect.  ``tests/test_xdsl_defects.py`` runs it; when a
probe reports ``false``, xDSL has fixed the defect and the patch can be dropped.
"""

from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    i8,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRLexer


def _context() -> Context:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


CTX = _context()


def parse(text: str) -> ModuleOp:
    return Parser(CTX, text).parse_module()


def fails(action: Callable[[], object]) -> bool:
    try:
        action()
    except Exception:
        return True
    return False


def linalg_bodies() -> bool:
    # i8 x i8 -> i32: the hidden body multiplies i8 values into an i32 sum, which does not verify.
    module = parse(
        "func.func @f(%a: memref<2x2xi8>, %b: memref<2x2xi8>, %c: memref<2x2xi32>) {\n"
        "  linalg.matmul ins(%a, %b : memref<2x2xi8>, memref<2x2xi8>)"
        " outs(%c : memref<2x2xi32>)\n  return\n}"
    )
    return fails(module.verify)


def linalg_pooling_ops() -> bool:
    # linalg.pooling_nchw_sum is not an op of the dialect: parsing it fails.
    return fails(lambda: parse(
        "func.func @f(%a: memref<1x1x4x4xi8>, %w: memref<2x2xi8>, %c: memref<1x1x3x3xi32>) {\n"
        "  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : "
        "tensor<2xi64>} ins(%a, %w : memref<1x1x4x4xi8>, memref<2x2xi8>)"
        " outs(%c : memref<1x1x3x3xi32>)\n  return\n}"
    ))


def linalg_quantized_conv_ops() -> bool:
    # linalg.conv_2d_nchw_fchw_q is not an op of the dialect: parsing it fails.
    return fails(lambda: parse(
        "func.func @f(%a: memref<1x1x4x4xi8>, %w: memref<1x1x2x2xi8>, %c: memref<1x1x3x3xi32>,"
        " %z: i32) {\n  linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : tensor<2xi64>,"
        " strides = dense<1> : tensor<2xi64>} ins(%a, %w, %z, %z : memref<1x1x4x4xi8>,"
        " memref<1x1x2x2xi8>, i32, i32) outs(%c : memref<1x1x3x3xi32>)\n  return\n}"
    ))


def linalg_depthwise_conv_ops() -> bool:
    # linalg.depthwise_conv_2d_nchw_chw is not an op of the dialect: parsing it fails.
    return fails(lambda: parse(
        "func.func @f(%a: memref<1x2x4x4xi8>, %w: memref<2x2x2xi8>, %c: memref<1x2x3x3xi32>)"
        " {\n  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>,"
        " strides = dense<1> : tensor<2xi64>} ins(%a, %w : memref<1x2x4x4xi8>,"
        " memref<2x2x2xi8>) outs(%c : memref<1x2x3x3xi32>)\n  return\n}"
    ))


def linalg_map_op() -> bool:
    # linalg.map is not an op of the dialect: parsing it fails.
    return fails(lambda: parse(
        "func.func @f(%a: memref<4xi32>, %c: memref<4xi32>) {\n"
        "  linalg.map { arith.addi } ins(%a, %a : memref<4xi32>, memref<4xi32>)"
        " outs(%c : memref<4xi32>)\n  return\n}"
    ))


def linalg_batch_matmul_ops() -> bool:
    # linalg.batch_matmul is not an op of the dialect: parsing it fails.
    return fails(lambda: parse(
        "func.func @f(%a: memref<2x4x4xi8>, %c: memref<2x4x4xi32>) {\n"
        "  linalg.batch_matmul ins(%a, %a : memref<2x4x4xi8>, memref<2x4x4xi8>)"
        " outs(%c : memref<2x4x4xi32>)\n  return\n}"
    ))


def dense_hex_floats() -> bool:
    # dense<0xFF800000> : tensor<2xf32> is -inf in MLIR; stock xDSL reads 4286578688.0.
    module = parse(
        "func.func @f() {\n  %0 = arith.constant dense<0xFF800000> : tensor<2xf32>\n"
        "  return\n}"
    )
    constant = next(op for op in module.walk() if op.name == "arith.constant")
    return constant.properties["value"].get_values()[0] != float("-inf")  # type: ignore[attr-defined]


def array_element_types() -> bool:
    # MLIR prints [0, 1] for an array of i64 integers; stock xDSL prints [0 : i64, 1 : i64].
    out = io.StringIO()
    Printer(stream=out).print_attribute(
        ArrayAttr([IntegerAttr(0, 64), IntegerAttr(1, 64)])
    )
    return out.getvalue() != "[0, 1]"


def resource_parsing() -> bool:
    # The blobs live in the process-wide builtin dialect: parsing a file a second time renames
    # its key and drops the blob from the printed section; a malformed blob is accepted.
    text = (
        "func.func @f() -> tensor<2xi8> {\n"
        "  %0 = arith.constant dense_resource<probe_blob> : tensor<2xi8>\n"
        "  return %0 : tensor<2xi8>\n}\n"
        '{-#\n  dialect_resources: {\n    builtin: {\n      probe_blob: "0xBLOB"\n    }\n  }\n#-}\n'
    )
    printed = []
    for _ in range(2):
        out = io.StringIO()
        printer = Printer(stream=out)
        printer.print_op(parse(text.replace("BLOB", "010000000102")))
        printer.print_metadata(CTX.loaded_dialects)
        printed.append(out.getvalue())
    malformed_accepted = not fails(lambda: parse(text.replace("BLOB", "01000000zz")))
    return printed[0] != printed[1] or malformed_accepted


def linalg_matmul_syntax() -> bool:
    maps = ", ".join(
        f"affine_map<(m, n, k) -> ({r})>" for r in ("k, m", "k, n", "m, n")
    )
    return fails(
        lambda: parse(
            "func.func @f(%a: memref<2x2xi32>, %b: memref<2x2xi32>, %c: memref<2x2xi32>) {\n"
            f"  linalg.matmul indexing_maps = [{maps}] ins(%a, %b : memref<2x2xi32>,"
            " memref<2x2xi32>) outs(%c : memref<2x2xi32>)\n  return\n}"
        )
    )


TRANSPOSE = (
    "func.func @f(%a: memref<2x3xi32>, %b: memref<3x2xi32>) {\n"
    "  linalg.transpose ins(%a : memref<2x3xi32>) outs(%b : memref<3x2xi32>)"
    " permutation = [PERM]\n  return\n}"
)


def linalg_spacing() -> bool:
    return "ins(%a : memref<2x3xi32>)" not in str(parse(TRANSPOSE.replace("PERM", "1, 0")))


def transpose_verifier() -> bool:
    module = parse(TRANSPOSE.replace("PERM", "1, 5"))
    try:
        module.verify()
    except IndexError:
        return True
    except Exception:
        return False
    return True  # an invalid permutation that verifies is a defect too


def tensor_verifiers() -> bool:
    """Both a pad of i8 yielding an i32 value and a slice past the end verify."""
    pad = parse(
        "func.func @f(%x: tensor<4xi8>) -> tensor<6xi8> {\n  %c = arith.constant 7 : i32\n"
        "  %p = tensor.pad %x low[1] high[1] {\n  ^bb0(%i: index):\n"
        "    tensor.yield %c : i32\n  } : tensor<4xi8> to tensor<6xi8>\n"
        "  return %p : tensor<6xi8>\n}"
    )
    sliced = parse(
        "func.func @f(%x: tensor<4xi8>) -> tensor<2xi8> {\n"
        "  %0 = tensor.extract_slice %x[3] [2] [1] : tensor<4xi8> to tensor<2xi8>\n"
        "  return %0 : tensor<2xi8>\n}"
    )
    found = []
    for module in (pad, sliced):
        try:
            module.verify()
        except Exception:
            found.append(False)
        else:
            found.append(True)
    return all(found)


def elementwise_verifier() -> bool:
    module = parse(
        "func.func @f(%m: memref<4xi32>) {\n  %c0 = arith.constant 0 : i32\n"
        "  linalg.copy ins(%c0 : i32) outs(%m : memref<4xi32>)\n  return\n}"
    )
    try:
        module.verify()
    except AssertionError:
        return True
    except Exception:
        return False
    return True  # a scalar operand that verifies is a defect too


def memref_syntax() -> bool:
    return fails(
        lambda: parse(
            "func.func @f(%a: memref<4xi32>, %b: memref<4xi32>) {\n"
            "  memref.copy %a, %b : memref<4xi32> to memref<4xi32>\n  return\n}"
        )
    )


def memory_space() -> bool:
    return ": i64>" in str(parse("func.func @f(%a: memref<4xi32, 1>) {\n  return\n}"))


def affine_syntax() -> bool:
    module = parse(
        "func.func @f(%a: memref<9xi32>) {\n  affine.for %i = 0 to 8 {\n"
        "    %v = affine.load %a[%i + 1] : memref<9xi32>\n  }\n  return\n}"
    )
    (load,) = [op for op in module.walk() if op.name == "affine.load"]
    return load.map.data.num_dims == 0  # type: ignore[attr-defined]  # %i became a symbol


def affine_if_syntax() -> bool:
    return fails(
        lambda: parse(
            "func.func @f() {\n  affine.for %i = 0 to 8 {\n"
            "    affine.if affine_set<(d0) : (d0 - 2 >= 0)>(%i) {\n    }\n  }\n  return\n}"
        )
    )


def string_literal_lexing() -> bool:
    # The time to fail on an unclosed literal grows 4x per two characters when the match
    # backtracks exponentially, and stays flat when it is linear.
    pattern: re.Pattern[str] = MLIRLexer._unescaped_characters_regex  # pyright: ignore

    def seconds(n: int) -> float:
        start = time.perf_counter()
        pattern.match('"' + "a" * n)
        return time.perf_counter() - start

    # Best of several runs: a busy machine only makes single timings longer.
    short = min(seconds(14) for _ in range(5))
    return min(seconds(22) for _ in range(2)) > 20 * max(short, 1e-5)


def dense_printing() -> bool:
    # A 1000-element literal prints as hex, from its bytes; the stock printer unpacks every
    # element into a Python int on the way (a splat test and a value list it does not print).
    attr = DenseIntOrFPElementsAttr(TensorType(i8, [1000]), BytesAttr(bytes(range(200)) * 5))
    unpacked: list[int] = []
    stock = IntegerType.unpack

    def counting_unpack(self: IntegerType, buffer: bytes, num: int, /) -> tuple[int, ...]:
        unpacked.append(num)
        return stock(self, buffer, num)

    IntegerType.unpack = counting_unpack  # type: ignore[method-assign]
    try:
        text = io.StringIO()
        Printer(stream=text).print_attribute(attr)
    finally:
        IntegerType.unpack = stock  # type: ignore[method-assign]
    assert '"0x000102' in text.getvalue()
    return sum(unpacked) >= 1000


def linalg_generic_results() -> bool:
    # MLIR's `-> (T, U)` after the body of a generic of two results: read as a function type.
    return fails(lambda: parse(
        "func.func @f(%x: tensor<4xf32>, %a: tensor<f32>, %b: tensor<f32>) {\n"
        "  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, "
        "affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = [\"reduction\"]}"
        " ins(%x : tensor<4xf32>) outs(%a, %b : tensor<f32>, tensor<f32>) {\n"
        "  ^bb0(%i: f32, %o: f32, %p: f32):\n"
        "    linalg.yield %i, %p : f32, f32\n"
        "  } -> (tensor<f32>, tensor<f32>)\n"
        "  func.return\n"
        "}"))


PROBES: dict[str, Callable[[], bool]] = {
    "linalg-bodies": linalg_bodies,
    "linalg-pooling-ops": linalg_pooling_ops,
    "linalg-quantized-conv-ops": linalg_quantized_conv_ops,
    "linalg-depthwise-conv-ops": linalg_depthwise_conv_ops,
    "linalg-map-op": linalg_map_op,
    "linalg-batch-matmul-ops": linalg_batch_matmul_ops,
    "linalg-matmul-syntax": linalg_matmul_syntax,
    "linalg-generic-results": linalg_generic_results,
    "linalg-spacing": linalg_spacing,
    "transpose-verifier": transpose_verifier,
    "elementwise-verifier": elementwise_verifier,
    "tensor-verifiers": tensor_verifiers,
    "memref-syntax": memref_syntax,
    "memory-space": memory_space,
    "affine-syntax": affine_syntax,
    "affine-if-syntax": affine_if_syntax,
    "string-literal-lexing": string_literal_lexing,
    "dense-printing": dense_printing,
    "dense-hex-floats": dense_hex_floats,
    "array-element-types": array_element_types,
    "resource-parsing": resource_parsing,
}

if __name__ == "__main__":
    print(json.dumps({name: probe() for name, probe in PROBES.items()}))
