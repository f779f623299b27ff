// Malformed input gives one MLIR-style error (`file:line:col: error: message`, the source
// line and a caret, then the op when there is one) and exit status 1 — never a traceback.

// RUN: not vta-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: not vta-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=NOTRACE

// NOTRACE-NOT: Traceback
// NOTRACE-NOT: internal error

// Syntax error.
// CHECK:      errors.mlir:[[# @LINE + 2]]:22: error: Expected ':' after block argument name
// CHECK-NEXT: func.func @syntax(%a i32) {
func.func @syntax(%a i32) {
  return
}

// -----

// Unknown op.
// CHECK:      errors.mlir:[[# @LINE + 3]]:17: error: Operation foo.frob is not registered
// CHECK-NEXT:   %0 = foo.frob : i32
// CHECK-NEXT:  ^
  %0 = foo.frob : i32

// -----

// Wrong types: caught by the verifier, reported at the op, which is then shown.
// CHECK:      errors.mlir:[[# @LINE + 4]]:3: error: 'arith.addi' op operand 'rhs' at position 1 does not verify: attribute i32 expected from variable 'T', but got i8
// CHECK-NEXT:   %0 = "arith.addi"(%a, %b) : (i32, i8) -> i32
// CHECK-NEXT:   ^
// CHECK-NEXT: errors.mlir:[[# @LINE + 1]]:3: note: see current operation: %0 = "arith.addi"(%a, %b) <{overflowFlags = #arith.overflow<none>}> : (i32, i8) -> i32
  %0 = "arith.addi"(%a, %b) : (i32, i8) -> i32
  %a, %b = "test.op"() : () -> (i32, i8)

// -----

// Wrong types in custom syntax: caught by the parser.
func.func @mismatch(%a: i32, %b: i8) {
// CHECK:      errors.mlir:[[# @LINE + 1]]:23: error: operand is used with type i32, but has been previously used or defined with type i8
  %0 = arith.addi %a, %b : i32
  return
}

// -----

// Out-of-range field.
// CHECK:      errors.mlir:[[# @LINE + 1]]:3: error: Integer value 300 is out of range for type i8
  %0 = arith.constant 300 : i8

// -----

// Undefined value.
// CHECK:      errors.mlir:[[# @LINE + 2]]:10: error: use of undeclared SSA value name %nope
func.func @undef() -> i32 {
  return %nope : i32
}

// -----

// Structural error (a region that needs a terminator).
// CHECK:      errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op
func.func @no_terminator() {
^bb0:
}

// -----

// The i8 matmul of upstream MLIR is valid; a shape mismatch is not.
// CHECK:      errors.mlir:[[# @LINE + 2]]:3: error: 'linalg.matmul' op inferred input/output operand #1 has shape's dimension #0 to be 32, but found 31
func.func @bad_shape(%a: memref<16x32xi8>, %b: memref<31x8xi8>, %c: memref<16x8xi32>) {
  linalg.matmul ins(%a, %b : memref<16x32xi8>, memref<31x8xi8>) outs(%c : memref<16x8xi32>)
  return
}
