// memref.copy, memref.cast and memref.global in MLIR's custom syntax.

// RUN: vta-opt %s | filecheck %s
// RUN: vta-opt %s | vta-opt | filecheck %s
// RUN: vta-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: vta-opt %s --print-op-generic | vta-opt | filecheck %s

// CHECK:       memref.global "private" constant @weights : memref<2x2xi8> = dense<{{\[\[}}1, 2], [3, 4]]> {alignment = 64 : i64}
// CHECK:       memref.global @scratch : memref<4xi32> = uninitialized
memref.global "private" constant @weights : memref<2x2xi8> = dense<[[1, 2], [3, 4]]> {alignment = 64 : i64}
memref.global @scratch : memref<4xi32> = uninitialized

// CHECK-LABEL: func.func @copy(
// CHECK-SAME:    %[[A:.*]]: memref<16x32xi8>, %[[B:.*]]: memref<16x32xi8, strided<[64, 1]>>)
// CHECK-NEXT:    memref.copy %[[A]], %[[B]] : memref<16x32xi8> to memref<16x32xi8, strided<[64, 1]>>
// CHECK-NEXT:    memref.copy %[[A]], %[[B]] {tag = 1 : i32} : memref<16x32xi8> to memref<16x32xi8, strided<[64, 1]>>
// CHECK-NEXT:    %[[W:.*]] = memref.get_global @weights : memref<2x2xi8>
// CHECK-NEXT:    %{{.*}} = memref.cast %[[W]] : memref<2x2xi8> to memref<?x2xi8>
// CHECK-NEXT:    func.return

// GENERIC:     "memref.copy"(%{{.*}}, %{{.*}}) : (memref<16x32xi8>, memref<16x32xi8, strided<[64, 1]>>) -> ()
func.func @copy(%a: memref<16x32xi8>, %b: memref<16x32xi8, strided<[64, 1]>>) {
  memref.copy %a, %b : memref<16x32xi8> to memref<16x32xi8, strided<[64, 1]>>
  memref.copy %a, %b {tag = 1 : i32} : memref<16x32xi8> to memref<16x32xi8, strided<[64, 1]>>
  %w = memref.get_global @weights : memref<2x2xi8>
  %d = memref.cast %w : memref<2x2xi8> to memref<?x2xi8>
  return
}
