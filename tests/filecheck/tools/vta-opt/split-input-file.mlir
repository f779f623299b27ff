// --split-input-file processes each chunk on its own and separates the outputs with
// `// -----`; a failing chunk does not stop the others, but the exit status is 1 and error
// lines count from the start of the whole file.

// RUN: vta-opt %s --split-input-file | filecheck %s
// RUN: not vta-opt %s --split-input-file --pass-pipeline='builtin.module(bogus-pass)' 2>&1 | filecheck %s --check-prefix=NOPASS

// CHECK:      func.func @first()
// CHECK:      // -----
// CHECK:      func.func @second()
// CHECK:      // -----
// CHECK:      func.func @first()

// NOPASS: vta-opt: error: unknown pass 'bogus-pass'

func.func @first() {
  return
}

// -----

// Same names as in other chunks: each chunk is a module of its own.
func.func @second() {
  %0 = arith.constant 1 : i32
  return
}

// -----

func.func @first() {
  return
}
