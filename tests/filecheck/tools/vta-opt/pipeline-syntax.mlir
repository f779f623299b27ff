// MLIR's --pass-pipeline and xDSL's -p give the same result; nested anchors are flattened,
// options use MLIR's `{key=value ...}` syntax, and blanks after commas are accepted.

// RUN: vta-opt %s -p convert-linalg-to-loops,canonicalize > %t.p.mlir
// RUN: vta-opt %s --pass-pipeline='builtin.module(convert-linalg-to-loops,canonicalize)' > %t.pp.mlir
// RUN: diff %t.p.mlir %t.pp.mlir
// RUN: vta-opt %s --pass-pipeline='builtin.module(func.func(convert-linalg-to-loops), canonicalize)' | diff %t.p.mlir -
// RUN: vta-opt %s -p 'convert-linalg-to-loops, canonicalize' | diff %t.p.mlir -
// RUN: filecheck %s < %t.p.mlir

// RUN: vta-opt %s -p 'linalg-fuse-multiply-add{require-scalar-factor=true require-erasable-mul=false},cse' > %t.opt.mlir
// RUN: vta-opt %s --pass-pipeline='builtin.module(linalg-fuse-multiply-add{require-scalar-factor=true require-erasable-mul=false}, func.func(cse))' | diff %t.opt.mlir -

// An empty pipeline just verifies and prints.
// RUN: vta-opt %s --pass-pipeline='builtin.module()' | filecheck %s --check-prefix=EMPTY

// CHECK-LABEL: func.func @add(
// CHECK-NOT:     linalg.add
// CHECK:         scf.for
// CHECK:           %{{.*}} = arith.addi %{{.*}}, %{{.*}} : i32

// EMPTY: linalg.add ins(
func.func @add(%a: memref<4xi32>, %b: memref<4xi32>, %c: memref<4xi32>) {
  linalg.add ins(%a, %b : memref<4xi32>, memref<4xi32>) outs(%c : memref<4xi32>)
  return
}
