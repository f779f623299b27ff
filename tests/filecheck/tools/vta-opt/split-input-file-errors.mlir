// RUN: not vta-opt %s --split-input-file 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=ERR < %t.err

// CHECK:      func.func @ok()
// CHECK-NEXT:   func.return
// CHECK:      // -----
// CHECK-NOT:  func.func @bad
// CHECK:      // -----
// CHECK:      func.func @ok_again()

// ERR:     split-input-file-errors.mlir:21:10: error: use of undeclared SSA value name %missing
// ERR-NOT: error:

func.func @ok() {
  return
}

// -----

func.func @bad() -> i32 {
  return %missing : i32
}

// -----

func.func @ok_again() {
  return
}
