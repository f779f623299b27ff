// vta-tile{carry-rows=true} on the convolution and max-pool of vta-tile-conv-pool.mlir
// (docs/pipeline.md "A max-pool fused into its convolution", passes/tile/conv_pool.py
// ConvPlan.carry_rows): a 3×3, pad 1 convolution of 1×16×8×8 (bias, >> 6, clip to [0, 127])
// then a 3×3, stride 2, pad 1 max-pool, packed by vta-pack. The row the windows of two
// consecutive pooled rows share is computed once and carried instead of being computed in both
// row tiles: two row tiles of 4 convolution rows (2 pooled rows each, every 4 rows; without
// the carry a tile would hold 2·(2 − 1) + 3 = 5 rows), the pool's top padding row left out of
// the convolution (the first input DMA pads one row on top, not two). Two pooled tiles
// alternate. Each tile first pools the window columns of all its rows in place into the
// anchor columns 1, 3, 5, 7 (window column 1), before either pooling below reads them. The
// first tile sets its whole pooled tile (copy 0) and pools all its rows at the anchor
// columns; then it pools its last row (window row 0 of the next tile's pooled row 0) ahead
// into copy 1: it sets pooled row 0 of copy 1 to that row's anchor columns (ALU add after a
// fill of that row), which hold its three window columns already. The second tile resets and
// sets only its pooled row 1 (row 0 holds the carried row already) and takes the maximum of
// row 0 with its own two window rows. Each tile then runs the epilogue on its pooled tile and
// stores its 2 pooled rows.

// RUN: vta-opt %s -p 'vta-pack,vta-merge-alu-immediates,vta-tile{carry-rows=true}' | filecheck %s
// RUN: vta-opt %s -p 'vta-pack,vta-merge-alu-immediates,vta-tile{carry-rows=true verbose=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// Without the option the cost model computes the shared rows in both tiles (no carry on so
// small a layer, docs/pipeline.md): one tile of the pool's padded 9×9.
// RUN: vta-opt %s -p 'vta-pack,vta-merge-alu-immediates,vta-tile' | filecheck %s --check-prefix=MODEL

// REMARK: remark: {{.*}} vta-tile: convolution tile 1 output blocks x 4 rows x 1 input blocks, {{.*}}, every 4 rows, the last 1 pooled ahead into the next tile; max-pool fused: 2 pooled rows per tile, two pooled tiles, window columns first

// MODEL:      memref.alloc() {{.*}} : memref<1x1x9x9x1x16xi32, #vta.sram<acc>>
// MODEL-NEXT: memref.alloc() {{.*}} : memref<1x1x1x1x1x16xi32, #vta.sram<acc>>
// MODEL-NEXT: memref.alloc() {{.*}} : memref<1x1x4x4x1x16xi32, #vta.sram<acc>>

// CHECK-LABEL: func.func @conv_pool(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x1x8x8x1x16xi8>
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<1x1x4x4x1x16xi8>
// CHECK-NOT:     memref<1x1x8x8x1x16xi8>
// Two accumulator tiles of 4 rows, the bias, two pooled tiles of 2 rows.
// CHECK:         %[[ACC:.*]] = memref.alloc() {{.*}} : memref<2x1x1x4x9x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    %[[BIAS:.*]] = memref.alloc() {{.*}} : memref<1x1x1x1x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    %[[POOLED:.*]] = memref.alloc() {{.*}} : memref<2x1x1x2x4x1x16xi32, #vta.sram<acc>>

// The first row tile: convolution rows 0 .. 3 (image rows -1 .. 4, one padding row on top).
// CHECK:         %[[A0:.*]] = memref.subview %[[ACC]][0, 0, 0, 0, 0, 0, 0] [1, 1, 1, 4, 9, 1, 16]
// CHECK:         vta.dma_copy %[[X]][0] -> %{{.*}}[0] y 5 x 8 stride 8 pad [1, 0, 2, 1]
// CHECK:         linalg.generic {{.*}} outs(%[[A0]] : {{.*}}) {
// CHECK:         %[[P0:.*]] = memref.subview %[[POOLED]][0, 0, 0, 0, 0, 0, 0] [1, 1, 1, 2, 4, 1, 16]
// Its window columns, in place on its rows 0 .. 3 (and so on the row pooled ahead): window
// column 0 into the anchor columns 3, 5, 7, window column 2 into 1, 3, 5, 7.
// CHECK-NEXT:    %[[H0:.*]] = memref.subview %[[A0]][0, 0, 0, 3, 0, 0] [1, 1, 4, 3, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    %[[S0:.*]] = memref.subview %[[A0]][0, 0, 0, 2, 0, 0] [1, 1, 4, 3, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[H0]], %[[S0]] : {{.*}}) outs(%[[H0]] : {{.*}}) {
// CHECK:           arith.maxsi
// CHECK:         %[[H2:.*]] = memref.subview %[[A0]][0, 0, 0, 1, 0, 0] [1, 1, 4, 4, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    %[[S2:.*]] = memref.subview %[[A0]][0, 0, 0, 2, 0, 0] [1, 1, 4, 4, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[H2]], %[[S2]] : {{.*}}) outs(%[[H2]] : {{.*}}) {
// CHECK:           arith.maxsi
// Its pooled tile (copy 0), every row set: window element (1, 1) is convolution rows 0, 2.
// CHECK:         linalg.fill ins(%{{.*}} : i32) outs(%[[P0]] : {{.*}})
// CHECK-NEXT:    %[[W0:.*]] = memref.subview %[[A0]][0, 0, 0, 1, 0, 0] [1, 1, 3, 7, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[P0]], %[[W0]] : {{.*}}) outs(%[[P0]] : {{.*}}) {
// CHECK:           arith.addi
// Window element (0, 1) of pooled row 1 (row 0's is the padding), (2, 1) of both.
// CHECK:         %[[P0R1:.*]] = memref.subview %[[P0]][0, 0, 1, 0, 0, 0] [1, 1, 1, 4, 1, 16]
// CHECK-NEXT:    %[[W1:.*]] = memref.subview %[[A0]][0, 0, 1, 1, 0, 0] [1, 1, 1, 7, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[P0R1]], %[[W1]] : {{.*}}) outs(%[[P0R1]] : {{.*}}) {
// CHECK:           arith.maxsi
// CHECK:         %[[W2:.*]] = memref.subview %[[A0]][0, 0, 1, 1, 0, 0] [1, 1, 3, 7, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[P0]], %[[W2]] : {{.*}}) outs(%[[P0]] : {{.*}}) {
// CHECK:           arith.maxsi
// Ahead: its last row (3) into pooled row 0 of the next tile's pooled tile (copy 1).
// CHECK:         %[[P1:.*]] = memref.subview %[[POOLED]][1, 0, 0, 0, 0, 0, 0] [1, 1, 1, 2, 4, 1, 16]
// CHECK-NEXT:    %[[P1R0:.*]] = memref.subview %[[P1]][0, 0, 0, 0, 0, 0] [1, 1, 1, 4, 1, 16]
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : i32) outs(%[[P1R0]] : {{.*}})
// CHECK-NEXT:    %[[P1R0B:.*]] = memref.subview %[[P1]][0, 0, 0, 0, 0, 0] [1, 1, 1, 4, 1, 16]
// CHECK-NEXT:    %[[W3:.*]] = memref.subview %[[A0]][0, 0, 3, 1, 0, 0] [1, 1, 1, 7, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[P1R0B]], %[[W3]] : {{.*}}) outs(%[[P1R0B]] : {{.*}}) {
// CHECK:           arith.addi
// CHECK-NOT:     memref.subview %[[A0]]
// The epilogue on copy 0, then its store: pooled rows 0, 1.
// CHECK:         linalg.generic {{.*}} ins(%[[P0]], %[[BIAS]] : {{.*}}) outs(%[[P0]] : {{.*}}) {
// CHECK:           arith.addi
// CHECK:         %[[Y0:.*]] = memref.subview %[[Y]][0, 0, 0, 0, 0, 0] [1, 1, 2, 4, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[P0]] : {{.*}}) outs(%[[Y0]] : {{.*}}) {
// CHECK:           arith.trunci

// The second row tile: convolution rows 4 .. 7 (image rows 3 .. 8, one padding row below).
// CHECK:         %[[A1:.*]] = memref.subview %[[ACC]][1, 0, 0, 0, 0, 0, 0] [1, 1, 1, 4, 9, 1, 16]
// CHECK:         vta.dma_copy %[[X]][24] -> %{{.*}} y 5 x 8 stride 8 pad [0, 1, 2, 1]
// CHECK:         linalg.generic {{.*}} outs(%[[A1]] : {{.*}}) {
// CHECK:         %[[Q1:.*]] = memref.subview %[[POOLED]][1, 0, 0, 0, 0, 0, 0] [1, 1, 1, 2, 4, 1, 16]
// Its window columns, in place on its rows 0 .. 3.
// CHECK-NEXT:    %[[K0:.*]] = memref.subview %[[A1]][0, 0, 0, 3, 0, 0] [1, 1, 4, 3, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    %[[T0:.*]] = memref.subview %[[A1]][0, 0, 0, 2, 0, 0] [1, 1, 4, 3, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[K0]], %[[T0]] : {{.*}}) outs(%[[K0]] : {{.*}}) {
// CHECK:           arith.maxsi
// CHECK:         %[[K2:.*]] = memref.subview %[[A1]][0, 0, 0, 1, 0, 0] [1, 1, 4, 4, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    %[[T2:.*]] = memref.subview %[[A1]][0, 0, 0, 2, 0, 0] [1, 1, 4, 4, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[K2]], %[[T2]] : {{.*}}) outs(%[[K2]] : {{.*}}) {
// CHECK:           arith.maxsi
// Only pooled row 1 of copy 1 is reset and set (window element (0, 1): convolution row 1);
// row 0 holds the carried row and only takes the maximum.
// CHECK:         %[[Q1R1:.*]] = memref.subview %[[Q1]][0, 0, 1, 0, 0, 0] [1, 1, 1, 4, 1, 16]
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : i32) outs(%[[Q1R1]] : {{.*}})
// CHECK-NEXT:    %[[Q1R1B:.*]] = memref.subview %[[Q1]][0, 0, 1, 0, 0, 0] [1, 1, 1, 4, 1, 16]
// CHECK-NEXT:    %[[V1:.*]] = memref.subview %[[A1]][0, 0, 1, 1, 0, 0] [1, 1, 1, 7, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[Q1R1B]], %[[V1]] : {{.*}}) outs(%[[Q1R1B]] : {{.*}}) {
// CHECK:           arith.addi
// CHECK-NOT:     linalg.fill
// Window rows 1 and 2 of both pooled rows: convolution rows 0, 2 and 1, 3.
// CHECK:         %[[V01:.*]] = memref.subview %[[A1]][0, 0, 0, 1, 0, 0] [1, 1, 3, 7, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[Q1]], %[[V01]] : {{.*}}) outs(%[[Q1]] : {{.*}}) {
// CHECK:           arith.maxsi
// CHECK:         %[[V11:.*]] = memref.subview %[[A1]][0, 0, 1, 1, 0, 0] [1, 1, 3, 7, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[Q1]], %[[V11]] : {{.*}}) outs(%[[Q1]] : {{.*}}) {
// CHECK:           arith.maxsi
// CHECK-NOT:     memref.subview %[[A1]]
// The epilogue on copy 1, then its store: pooled rows 2, 3.
// CHECK:         linalg.generic {{.*}} ins(%[[Q1]], %[[BIAS]] : {{.*}}) outs(%[[Q1]] : {{.*}}) {
// CHECK:           arith.addi
// CHECK:         %[[Y1:.*]] = memref.subview %[[Y]][0, 0, 2, 0, 0, 0] [1, 1, 2, 4, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[Q1]] : {{.*}}) outs(%[[Y1]] : {{.*}}) {
// CHECK:           arith.trunci
// CHECK-NOT:     linalg.fill
// CHECK:         func.return

func.func @conv_pool(%x: memref<1x16x8x8xi8>, %w: memref<16x16x3x3xi8>, %b: memref<16xi32>, %y: memref<1x16x4x4xi8>) {
  %c0 = arith.constant 0 : i32
  %z8 = arith.constant 0 : i8
  %m128 = arith.constant -128 : i8
  %mid = memref.alloc() : memref<1x16x8x8xi8>
  %conv_xp = memref.alloc() : memref<1x16x10x10xi8>
  linalg.fill ins(%z8 : i8) outs(%conv_xp : memref<1x16x10x10xi8>)
  %conv_xi = memref.subview %conv_xp[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  memref.copy %x, %conv_xi : memref<1x16x8x8xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  %acc = memref.alloc() : memref<1x16x8x8xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x8x8xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%conv_xp, %w : memref<1x16x10x10xi8>, memref<16x16x3x3xi8>) outs(%acc : memref<1x16x8x8xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %b : memref<1x16x8x8xi32>, memref<16xi32>) outs(%mid : memref<1x16x8x8xi8>) {
  ^bb0(%v: i32, %bb: i32, %o: i8):
    %s = arith.addi %v, %bb : i32
    %mc = arith.constant 1 : i32
    %m = arith.muli %s, %mc : i32
    %sh = arith.constant 6 : i32
    %r = arith.shrsi %m, %sh : i32
    %lo = arith.constant 0 : i32
    %hi = arith.constant 127 : i32
    %a = arith.maxsi %r, %lo : i32
    %c = arith.minsi %a, %hi : i32
    %t = arith.trunci %c : i32 to i8
    linalg.yield %t : i8
  }
  %pool_xp = memref.alloc() : memref<1x16x10x10xi8>
  linalg.fill ins(%m128 : i8) outs(%pool_xp : memref<1x16x10x10xi8>)
  %pool_xi = memref.subview %pool_xp[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  memref.copy %mid, %pool_xi : memref<1x16x8x8xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  %win = memref.alloc() : memref<3x3xi8>
  linalg.fill ins(%m128 : i8) outs(%y : memref<1x16x4x4xi8>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%pool_xp, %win : memref<1x16x10x10xi8>, memref<3x3xi8>) outs(%y : memref<1x16x4x4xi8>)
  return
}
