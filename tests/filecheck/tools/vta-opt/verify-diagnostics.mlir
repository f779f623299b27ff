// --verify-diagnostics checks the errors against `expected-error` annotations (same line,
// @+N, @-N, @above, @below), chunk by chunk with lines counted in the whole file; the chunks
// that succeed are still printed.

// RUN: vta-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p convert-linalg-to-loops | filecheck %s --check-prefix=LOOPS

// CHECK:      func.func @fine()
// LOOPS:      func.func @fine()
func.func @fine() {
  return
}

// -----

func.func @verifier(%a: i32, %b: i8) {
  // expected-error@+1 {{'arith.addi' op operand 'rhs' at position 1 does not verify}}
  %0 = "arith.addi"(%a, %b) : (i32, i8) -> i32
  return
}

// -----

func.func @same_line() {
  %0 = arith.constant 300 : i8 // expected-error {{Integer value 300 is out of range for type i8}}
  return
}

// -----

func.func @below() {
  // expected-error@below {{Operation foo.bar is not registered}}
  %0 = foo.bar : i8
  return
}

// -----

func.func @above(%x: i32) -> i32 {
  %0 = arith.muli %x, %y : i32
  // expected-error@above {{use of undeclared SSA value name %y}}
  return %0 : i32
}

// -----

func.func @minus(%a: memref<4xi32>) {
  %0 = affine.apply affine_map<(d0) -> (d0)> ()
  // expected-error@-1 {{'affine.apply' op affine.apply expects 1 operands, but got 0}}
  return
}

// -----

// CHECK:      func.func @fine_again()
// LOOPS:      func.func @fine_again()
func.func @fine_again() {
  return
}
