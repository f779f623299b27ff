// --verify-diagnostics fails (exit status 1) on an error nobody expected and on an expected
// error that did not occur, and says which, MLIR-style.

// RUN: not vta-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// CHECK-DAG: verify-diagnostics-mismatch.mlir:14:3: error: unexpected error: 'arith.addi' op operand 'rhs' at position 1 does not verify
// CHECK-DAG: verify-diagnostics-mismatch.mlir:21:6: error: expected error "this never happens" was not produced
// CHECK-DAG: verify-diagnostics-mismatch.mlir:29:6: error: expected error "wrong text" was not produced
// CHECK-DAG: verify-diagnostics-mismatch.mlir:30:3: error: unexpected error: 'arith.addi' op operand 'rhs' at position 1 does not verify
// CHECK-DAG: verify-diagnostics-mismatch.mlir:37:6: error: expected warning "an error is not a warning" was not produced
// CHECK-DAG: verify-diagnostics-mismatch.mlir:38:3: error: unexpected error: Integer value 300

func.func @unexpected(%a: i32, %b: i8) {
  %0 = "arith.addi"(%a, %b) : (i32, i8) -> i32
  return
}

// -----

func.func @not_produced() {
  // expected-error@+1 {{this never happens}}
  %0 = arith.constant 1 : i32
  return
}

// -----

func.func @wrong_message(%a: i32, %b: i8) {
  // expected-error@+1 {{wrong text}}
  %0 = "arith.addi"(%a, %b) : (i32, i8) -> i32
  return
}

// -----

func.func @wrong_severity() {
  // expected-warning@+1 {{an error is not a warning}}
  %0 = arith.constant 300 : i8
  return
}

// -----

// A regex (`expected-error-re`) and a correct annotation elsewhere still match.
func.func @regex(%a: i32, %b: i8) {
  // expected-error-re@+1 {{operand 'rhs' at position {{[0-9]+}} does not verify}}
  %0 = "arith.addi"(%a, %b) : (i32, i8) -> i32
  return
}
