// vta-tile on a pooling region (stage 1 → 2, docs/pipeline.md "Pooling"): a 3×3, stride 2
// max-pool of 1×16×8×8 data padded by 1 with 5, into an output filled with -3, packed by
// vta-pack. One tile: the data tile, halo included, is loaded into the accumulator SRAM by an
// ACC_8BIT vta.dma_copy whose pad fields place it (one padding row on top, one column on the
// left); the output tile is set to -3 (the fill and the add); each window offset is one ALU
// max with the data tile read 2 rows and 2 columns apart, restricted to the outputs whose
// element of the window lies in the image (kh = 0 or kw = 0 skip the first output row or
// column); offsets of equal rectangles share a host loop, marked vta.window (one instruction
// per offset: vta-fold-uop-loops leaves it on the host). The padding (5) exceeds the initial
// value (-3), so the outputs whose window touches it (row 0, column 0) get a max 5.

// RUN: vta-opt %s -p vta-pack,vta-tile | filecheck %s

// CHECK-LABEL: func.func @maxpool(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x1x8x8x1x16xi8> {vta.arg = {{.*}}},
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<1x1x4x4x1x16xi8> {vta.arg = {{.*}}}) {
// CHECK:         %[[WIN:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x1x9x9x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x1x4x4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    vta.dma_copy %[[X]][0] -> %[[WIN]][0] y 8 x 8 stride 8 pad [1, 0, 1, 0] : memref<1x1x8x8x1x16xi8> -> memref<1x1x9x9x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : i32) outs(%[[ACC]] : memref<1x1x4x4x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]] : {{.*}}) outs(%[[ACC]] : {{.*}}) {
// CHECK:           arith.constant -3 : i32
// kh = 0, kw = 0: output rows and columns 1 .. 3.
// CHECK:         %[[R0:.*]] = memref.subview %[[ACC]][0, 0, 1, 1, 0, 0] [1, 1, 3, 3, 1, 16] [1, 1, 1, 1, 1, 1]
// CHECK-NEXT:    %[[S0:.*]] = memref.subview %[[WIN]][0, 0, 2, 2, 0, 0] [1, 1, 5, 5, 1, 16] [1, 1, 1, 1, 1, 1]
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, (d2 * 2), (d3 * 2), d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], {{.*}}} ins(%[[R0]], %[[S0]] : {{.*}}) outs(%[[R0]] : {{.*}}) {
// CHECK:           arith.maxsi
// kh = 0, kw = 1, 2: output rows 1 .. 3, every column.
// CHECK:         %[[R1:.*]] = memref.subview %[[ACC]][0, 0, 1, 0, 0, 0] [1, 1, 3, 4, 1, 16]
// CHECK-NEXT:    affine.for %[[KW:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[KW0:.*]] = affine.apply affine_map<(d0) -> ((d0 + 1))> (%[[KW]])
// CHECK-NEXT:      %[[S1:.*]] = memref.subview %[[WIN]][0, 0, 2, %[[KW0]], 0, 0] [1, 1, 5, 7, 1, 16]
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[R1]], %[[S1]] : {{.*}}) outs(%[[R1]] : {{.*}}) {
// CHECK:           }
// CHECK-NEXT:    } {vta.window}
// kh = 1, 2, kw = 0: every row, output columns 1 .. 3.
// CHECK-NEXT:    %[[R2:.*]] = memref.subview %[[ACC]][0, 0, 0, 1, 0, 0] [1, 1, 4, 3, 1, 16]
// CHECK-NEXT:    affine.for %[[KH:.*]] = 0 to 2 {
// CHECK:           memref.subview %[[WIN]][0, 0, %{{.*}}, 2, 0, 0] [1, 1, 7, 5, 1, 16]
// kh = 1, 2, kw = 1, 2: the whole tile.
// CHECK:         affine.for
// CHECK-NEXT:      affine.for
// CHECK:             memref.subview %[[WIN]][0, 0, %{{.*}}, %{{.*}}, 0, 0] [1, 1, 7, 7, 1, 16]
// CHECK-NEXT:        linalg.generic {{.*}} ins(%[[ACC]], %{{.*}} : {{.*}}) outs(%[[ACC]] : {{.*}}) {
// The outputs whose window touches the padding: row 0, then column 0 of rows 1 .. 3.
// CHECK:         %[[B0:.*]] = memref.subview %[[ACC]][0, 0, 0, 0, 0, 0] [1, 1, 1, 4, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[B0]] : {{.*}}) outs(%[[B0]] : {{.*}}) {
// CHECK:           arith.constant 5 : i32
// CHECK-NEXT:      arith.maxsi
// CHECK:         %[[B1:.*]] = memref.subview %[[ACC]][0, 0, 1, 0, 0, 0] [1, 1, 3, 1, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[B1]] : {{.*}}) outs(%[[B1]] : {{.*}}) {
// CHECK:           arith.constant 5 : i32
// CHECK:         %[[YT:.*]] = memref.subview %[[Y]][0, 0, 0, 0, 0, 0] [1, 1, 4, 4, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]] : {{.*}}) outs(%[[YT]] : {{.*}}) {
// CHECK:           arith.trunci
// CHECK-NOT:     vta.double_buffer
// CHECK:         func.return

func.func @maxpool(%x: memref<1x16x8x8xi8>, %y: memref<1x16x4x4xi8>) {
  %v = arith.constant 5 : i8
  %f = arith.constant -3 : i8
  %xp = memref.alloc() : memref<1x16x10x10xi8>
  linalg.fill ins(%v : i8) outs(%xp : memref<1x16x10x10xi8>)
  %xi = memref.subview %xp[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  memref.copy %x, %xi : memref<1x16x8x8xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  %win = memref.alloc() : memref<3x3xi8>
  linalg.fill ins(%f : i8) outs(%y : memref<1x16x4x4xi8>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%xp, %win : memref<1x16x10x10xi8>, memref<3x3xi8>) outs(%y : memref<1x16x4x4xi8>)
  memref.dealloc %xp : memref<1x16x10x10xi8>
  return
}
