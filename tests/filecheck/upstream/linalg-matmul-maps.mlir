// MLIR's `indexing_maps = [...]` form of linalg.matmul (here B transposed) parses and prints
// back; the default maps are not printed.

// RUN: vta-opt %s | filecheck %s
// RUN: vta-opt %s | vta-opt | filecheck %s
// RUN: vta-opt %s -p convert-linalg-to-loops | filecheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @matmul_bt(
// CHECK:         linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%{{.*}}, %{{.*}} : memref<16x32xi8>, memref<8x32xi8>) outs(%{{.*}} : memref<16x8xi32>)

// LOOPS-LABEL: func.func @matmul_bt(
// LOOPS:         scf.for %[[I:.*]] = {{.*}} {
// LOOPS:           scf.for %[[J:.*]] = {{.*}} {
// LOOPS:             scf.for %[[K:.*]] = {{.*}} {
// LOOPS:               memref.load %{{.*}}[%[[I]], %[[K]]] : memref<16x32xi8>
// LOOPS-NEXT:          memref.load %{{.*}}[%[[J]], %[[K]]] : memref<8x32xi8>
func.func @matmul_bt(%a: memref<16x32xi8>, %b: memref<8x32xi8>, %c: memref<16x8xi32>) {
  linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<16x32xi8>, memref<8x32xi8>) outs(%c : memref<16x8xi32>)
  return
}

// CHECK-LABEL: func.func @matmul_default(
// CHECK:         linalg.matmul ins(
func.func @matmul_default(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                 affine_map<(d0, d1, d2) -> (d2, d1)>,
                                 affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
