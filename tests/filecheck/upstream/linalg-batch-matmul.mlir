// linalg.batch_matmul (with MLIR's optional `indexing_maps = [...]`: here a right operand
// broadcast over the batch) and linalg.quantized_batch_matmul parse, print back and lower to
// loops through their hidden bodies (vta_mlir/ir/upstream_fixes/linalg_batch_matmul.py); the
// default maps are not printed.

// RUN: vta-opt %s | filecheck %s
// RUN: vta-opt %s | vta-opt | filecheck %s
// RUN: vta-opt %s -p convert-linalg-to-loops | filecheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @batch(
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : memref<2x4x8xi8>, memref<2x8x4xi8>) outs(%{{.*}} : memref<2x4x4xi32>)
// CHECK-NEXT:    linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%{{.*}}, %{{.*}} : memref<2x4x8xi8>, memref<8x4xi8>) outs(%{{.*}} : memref<2x4x4xi32>)
// CHECK-NEXT:    linalg.quantized_batch_matmul ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<2x4x8xi8>, memref<2x8x4xi8>, i32, i32) outs(%{{.*}} : memref<2x4x4xi32>)

// LOOPS-LABEL: func.func @batch(
// LOOPS:         scf.for %[[H:.*]] = {{.*}} {
// LOOPS:           scf.for %[[M:.*]] = {{.*}} {
// LOOPS:             scf.for %[[N:.*]] = {{.*}} {
// LOOPS:               scf.for %[[K:.*]] = {{.*}} {
// LOOPS:                 memref.load %{{.*}}[%[[H]], %[[M]], %[[K]]] : memref<2x4x8xi8>
// LOOPS-NEXT:            memref.load %{{.*}}[%[[H]], %[[K]], %[[N]]] : memref<2x8x4xi8>
// LOOPS:                 arith.extsi
// LOOPS:                 arith.muli
// LOOPS:                 arith.addi
func.func @batch(%a: memref<2x4x8xi8>, %b: memref<2x8x4xi8>, %w: memref<8x4xi8>,
                 %c: memref<2x4x4xi32>, %d: memref<2x4x4xi32>, %e: memref<2x4x4xi32>) {
  %zp_a = arith.constant 1 : i32
  %zp_b = arith.constant -2 : i32
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xi8>, memref<2x8x4xi8>) outs(%c : memref<2x4x4xi32>)
  linalg.batch_matmul indexing_maps = [affine_map<(h, m, n, k) -> (h, m, k)>,
                                       affine_map<(h, m, n, k) -> (k, n)>,
                                       affine_map<(h, m, n, k) -> (h, m, n)>]
      ins(%a, %w : memref<2x4x8xi8>, memref<8x4xi8>) outs(%d : memref<2x4x4xi32>)
  linalg.quantized_batch_matmul ins(%a, %b, %zp_a, %zp_b : memref<2x4x8xi8>, memref<2x8x4xi8>, i32, i32)
      outs(%e : memref<2x4x4xi32>)
  return
}
