// vta-tile on a region whose output is stored in the weight layout of a later product
// (passes/tile/weight_store.py), default configuration (BATCH 1, BLOCK 16): the trunci output
// through (r, c, b, o) -> (r floordiv 16, c, r mod 16 + b, o) becomes, in each tile, a host
// loop over the tile's row blocks, each a trunci from one row of the accumulator tile into the
// weight tiles' rows it fills: a view of one row of 16 elements in each column block, a weight
// tile (256 elements) apart, which vta-inject-dma makes one strided store.

// RUN: vta-opt %s -p vta-tile | filecheck %s
// RUN: vta-opt %s -p vta-tile,vta-inject-dma | filecheck %s --check-prefix=DMA

// CHECK-LABEL: func.func @keys(
// CHECK-SAME:      %[[K:[a-z0-9_]+]]: memref<2x2x16x16xi8>)
// CHECK:         affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[B0:.*]] = affine.apply affine_map<(d0) -> ((d0 * 16))> (%[[B]])
// CHECK:           affine.for %[[R:.*]] = 0 to 16 {
// CHECK-NEXT:        %[[ROW:.*]] = affine.apply affine_map<(d0, d1) -> ((d0 + d1))> (%[[R]], %[[B0]])
// CHECK-NEXT:        %[[TILE:.*]] = affine.apply affine_map<(d0) -> ((d0 floordiv 16))> (%[[ROW]])
// CHECK-NEXT:        %[[LANE:.*]] = affine.apply affine_map<(d0) -> ((d0 mod 16))> (%[[ROW]])
// CHECK-NEXT:        %[[ACC_ROW:.*]] = memref.subview %{{.*}}[%[[R]], 0, 0, 0] [1, 2, 1, 16] [1, 1, 1, 1] : memref<16x2x1x16xi32, #vta.sram<acc>> to memref<1x2x1x16xi32, strided<[32, 16, 16, 1], offset: ?>, #vta.sram<acc>>
// CHECK-NEXT:        %[[ROWS:.*]] = memref.subview %[[K]][%[[TILE]], 0, %[[LANE]], 0] [1, 2, 1, 16] [1, 1, 1, 1] : memref<2x2x16x16xi8> to memref<1x2x1x16xi8, strided<[512, 256, 16, 1], offset: ?>>
// CHECK-NEXT:        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], {{.*}} ins(%[[ACC_ROW]] : {{.*}}) outs(%[[ROWS]] : {{.*}})
// CHECK-NEXT:        ^{{.*}}(%[[A:.*]]: i32, %{{.*}}: i8):
// CHECK-NEXT:          %{{.*}} = arith.trunci %[[A]] : i32 to i8

// DMA-LABEL: func.func @keys(
// DMA:         affine.for %{{.*}} = 0 to 16 {
// DMA:           vta.dma_copy %{{.*}}[%{{.*}}] -> %{{.*}}[%{{.*}}] y 2 x 1 stride 16 : memref<16x2x1x16xi32, #vta.sram<acc>> -> memref<2x2x16x16xi8>

func.func @keys(%x: memref<32x1x1x16xi8>, %w: memref<2x1x16x16xi8>, %k: memref<2x2x16x16xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<32x2x1x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<32x2x1x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]} ins(%x, %w : memref<32x1x1x16xi8>, memref<2x1x16x16xi8>) outs(%acc : memref<32x2x1x16xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ea = arith.extsi %a : i8 to i32
    %eb = arith.extsi %b : i8 to i32
    %p = arith.muli %ea, %eb : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 16), d1, ((d0 mod 16) + d2), d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<32x2x1x16xi32>) outs(%k : memref<2x2x16x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  return
}
