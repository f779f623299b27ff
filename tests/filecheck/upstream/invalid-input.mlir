// Malformed upstream IR that used to crash or hang the tools is one MLIR-style error with exit
// status 1 (cases found by tests/test_robustness.py).

// RUN: not vta-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: not vta-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=NOTRACE

// NOTRACE-NOT: Traceback
// NOTRACE-NOT: internal error

// A permutation that is not one: the stock verifier indexed the shape with it.
// CHECK: invalid-input.mlir:[[# @LINE + 2]]:3: error: 'linalg.transpose' op permutation [1, -128] is not valid: it must list each of 0..1 once
func.func @transpose(%a: memref<4x8xi32>, %b: memref<8x4xi32>) {
  linalg.transpose ins(%a : memref<4x8xi32>) outs(%b : memref<8x4xi32>) permutation = [1, -128]
  return
}

// -----

// A string left unclosed on a long line: the stock lexer's backtracking made this take minutes.
// CHECK: invalid-input.mlir:[[# @LINE + 2]]:19: error: End of file reached before closing string literal.
func.func @f() attributes {a = [1,
                  "                 affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                  b = 1} {
  return
}

// -----

// A use before the definition: xDSL's parser accepts the forward reference, and vta-pack then
// failed erasing the op.
// CHECK: invalid-input.mlir:[[# @LINE + 2]]:3: error: 'linalg.fill' op operand #0 does not dominate this use
func.func @use_before_def(%acc: memref<8x16xi32>) {
  linalg.fill ins(%c0 : i32) outs(%acc : memref<8x16xi32>)
  %c0 = arith.constant 0 : i32
  return
}

// -----

// A value of a function used at the top of the module: the parser resolves the name, and
// vta-pack then failed erasing the accumulator.
// CHECK: invalid-input.mlir:[[# @LINE + 1]]:1: error: 'memref.dealloc' op operand #0 is defined in a region that does not enclose this use
memref.dealloc %acc : memref<4x16xi32>
func.func @f() {
  %acc = memref.alloc() : memref<4x16xi32>
  return
}
