// An upstream-MLIR int8 GEMM: i8 x i8 operands accumulated into i32.  It parses, verifies
// and prints back unchanged; its hidden body sign-extends, so lowering it keeps 32-bit
// arithmetic.

// RUN: vta-opt %s | filecheck %s
// RUN: vta-opt %s | vta-opt | filecheck %s
// RUN: vta-opt %s -p linalg-generalize-named-ops | filecheck %s --check-prefix=GENERIC
// RUN: vta-opt %s -p convert-linalg-to-loops | filecheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @gemm_i8(
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : memref<16x32xi8>, memref<32x8xi8>) outs(%{{.*}} : memref<16x8xi32>)
// CHECK-NOT:     ^bb0
// CHECK-NEXT:    func.return

// GENERIC-LABEL: func.func @gemm_i8(
// GENERIC:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// GENERIC-NEXT:    ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %[[ACC:.*]]: i32):
// GENERIC-NEXT:      %[[AE:.*]] = arith.extsi %[[A]] : i8 to i32
// GENERIC-NEXT:      %[[BE:.*]] = arith.extsi %[[B]] : i8 to i32
// GENERIC-NEXT:      %[[P:.*]] = arith.muli %[[AE]], %[[BE]] : i32
// GENERIC-NEXT:      %[[S:.*]] = arith.addi %[[ACC]], %[[P]] : i32
// GENERIC-NEXT:      linalg.yield %[[S]] : i32

// LOOPS-LABEL: func.func @gemm_i8(
// LOOPS:         %[[X:.*]] = memref.load %{{.*}} : memref<16x32xi8>
// LOOPS-NEXT:    %[[Y:.*]] = memref.load %{{.*}} : memref<32x8xi8>
// LOOPS-NEXT:    %[[C:.*]] = memref.load %{{.*}} : memref<16x8xi32>
// LOOPS-NEXT:    %[[XE:.*]] = arith.extsi %[[X]] : i8 to i32
// LOOPS-NEXT:    %[[YE:.*]] = arith.extsi %[[Y]] : i8 to i32
// LOOPS-NEXT:    %[[P:.*]] = arith.muli %[[XE]], %[[YE]] : i32
// LOOPS-NEXT:    %[[S:.*]] = arith.addi %[[C]], %[[P]] : i32
// LOOPS-NEXT:    memref.store %[[S]], %{{.*}} : memref<16x8xi32>
func.func @gemm_i8(%a: memref<16x32xi8>, %b: memref<32x8xi8>, %c: memref<16x8xi32>) {
  linalg.matmul ins(%a, %b : memref<16x32xi8>, memref<32x8xi8>)
                outs(%c : memref<16x8xi32>)
  return
}
