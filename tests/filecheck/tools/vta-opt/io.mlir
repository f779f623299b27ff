// Input from a file or stdin (`-` or nothing), output to stdout or `-o FILE`; diagnostics
// name stdin `<stdin>`.

// RUN: vta-opt %s -o %t.out.mlir
// RUN: filecheck %s < %t.out.mlir
// RUN: vta-opt < %s | filecheck %s
// RUN: vta-opt - < %s | filecheck %s
// RUN: vta-opt %s --print-op-generic | vta-opt - -o - | filecheck %s
// RUN: vta-opt %s --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: echo 'func.func @f() { %0 = foo.bar : i8 }' | not vta-opt 2>&1 | filecheck %s --check-prefix=STDIN

// CHECK: func.func @copy(%{{.*}}: memref<4xi8>, %{{.*}}: memref<4xi8>) {
// CHECK:   memref.copy

// LOC: memref.copy %{{.*}}, %{{.*}} : memref<4xi8> to memref<4xi8> loc("{{.*}}io.mlir":[[# @LINE + 4]]:3)

// STDIN: <stdin>:1:31: error: Operation foo.bar is not registered
func.func @copy(%a: memref<4xi8>, %b: memref<4xi8>) {
  memref.copy %a, %b : memref<4xi8> to memref<4xi8>
  return
}
