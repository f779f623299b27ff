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

// -----

// A loop of step 0: xDSL's verifier accepts it, and vta-raise-loops divided by its step.
// CHECK: invalid-input.mlir:[[# @LINE + 2]]:3: error: 'affine.for' op expected step to be a positive integer, got 0
func.func @zero_step(%a: memref<4x16xi32>) {
  affine.for %i = 0 to 4 step 0 {
    %v = affine.load %a[%i, 0] : memref<4x16xi32>
    affine.store %v, %a[%i, 1] : memref<4x16xi32>
  }
  return
}

// -----

// A function inside another op's body: xDSL's verifiers accept it, and the host fallback then
// looked for it among the module's functions.
// CHECK: invalid-input.mlir:[[# @LINE + 4]]:3: error: 'func.func' op symbol's parent must have the SymbolTable trait (it is in 'affine.for'; a func.func belongs directly in a builtin.module)
func.func @f(%a: memref<4xi32>) {
  affine.for %i = 0 to 4 {
    %v = affine.load %a[%i] : memref<4xi32>
  func.func @nested() { return }
  }
  return
}

// -----

// A view beyond its source: xDSL's verifier accepts it, and vta-pack then indexed past the
// concatenation's channels.
// CHECK: invalid-input.mlir:[[# @LINE + 3]]:3: error: 'memref.subview' op the view runs out of its source along dimension 1: offset 25, size 16 and stride 1 reach element 40 of 40
func.func @beyond(%a: memref<1x40x4x4xi8>) {
  %c0 = arith.constant 0 : i8
  %s = memref.subview %a[0, 25, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : memref<1x40x4x4xi8> to memref<1x16x4x4xi8, strided<[640, 16, 4, 1], offset: 400>>
  linalg.fill ins(%c0 : i8) outs(%s : memref<1x16x4x4xi8, strided<[640, 16, 4, 1], offset: 400>>)
  return
}
