// --verify-diagnostics refuses a directive it cannot read (its text not closed by '}}'), as
// MLIR does, instead of ignoring it and passing.

// RUN: not vta-opt %s --verify-diagnostics 2>&1 | filecheck %s

// CHECK: verify-diagnostics-malformed.mlir:[[# @LINE + 3]]:3: error: malformed expected-error directive: its text goes in {{[{][{]}}...{{[}][}]}} at the end of the line
// CHECK-NOT: Traceback
func.func @f() {
  // expected-error {{this text is never closed
  return
}
