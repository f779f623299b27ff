// vta-tile on a convolution whose int8 output only a max-pool reads (docs/pipeline.md "A
// max-pool fused into its convolution", passes/tile/conv_pool.py): a 3×3, pad 1 convolution
// of 1×16×8×8 (bias, >> 6, clip to [0, 127]) then a 3×3, stride 2, pad 1 max-pool (padding
// and initial value -128), packed by vta-pack. One region: the convolution computes the
// pool's padded rows and columns (9×9, its input padded by 2 on top and left, 1 below and
// right, by the DMA's pad fields). The pool is separable: first, in place in the convolution's
// accumulator tile, each pooled column's anchor column (window column 1, the one every output
// has in the image: columns 1, 3, 5, 7) takes the maximum with its window columns 0 and 2
// that lie in the image (one ALU max per window column, on column-strided views); then the
// pooled tile is set to window element (1, 1) and takes the maximum with window rows 0 and 2
// at the anchor column, each restricted to the outputs whose row lies in the image; the
// epilogue runs on the 4×4 pooled tile, which is stored: the int8 buffer between the layers
// is gone. In @stride1_pool the pool's stride is 1: every column is an anchor column, so
// the pooled tile takes the maximum with each of the nine window elements instead. In
// @negative_multiplier the epilogue multiplies by -3 (not monotone): the two layers stay, and
// with them the int8 buffer.

// RUN: vta-opt %s -p vta-pack,vta-merge-alu-immediates,vta-tile | filecheck %s

// CHECK-LABEL: func.func @conv_pool(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x1x8x8x1x16xi8>
// CHECK-NOT:     memref<1x1x8x8x1x16xi8>
// CHECK:         %[[ACC:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x1x9x9x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    %[[BIAS:.*]] = memref.alloc() {{.*}} : memref<1x1x1x1x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    %[[POOLED:.*]] = memref.alloc() {{.*}} : memref<1x1x4x4x1x16xi32, #vta.sram<acc>>
// CHECK:         vta.dma_copy %[[X]][0] -> %{{.*}}[0] y 8 x 8 stride 8 pad [2, 1, 2, 1]
// CHECK:         linalg.generic {{.*}} outs(%[[ACC]] : memref<1x1x9x9x1x16xi32, #vta.sram<acc>>) {
// The window columns, in place on the image rows 1 .. 8: window column 0 into the anchor
// columns 3, 5, 7 (column 0 is the padding), then window column 2 into 1, 3, 5, 7.
// CHECK:         %[[A0:.*]] = memref.subview %[[ACC]][0, 0, 1, 3, 0, 0] [1, 1, 8, 3, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    %[[C0:.*]] = memref.subview %[[ACC]][0, 0, 1, 2, 0, 0] [1, 1, 8, 3, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], {{.*}}} ins(%[[A0]], %[[C0]] : {{.*}}) outs(%[[A0]] : {{.*}}) {
// CHECK-NEXT:    ^{{.*}}:
// CHECK-NEXT:      arith.maxsi
// CHECK:         %[[A2:.*]] = memref.subview %[[ACC]][0, 0, 1, 1, 0, 0] [1, 1, 8, 4, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    %[[C2:.*]] = memref.subview %[[ACC]][0, 0, 1, 2, 0, 0] [1, 1, 8, 4, 1, 16] [1, 1, 1, 2, 1, 1]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[A2]], %[[C2]] : {{.*}}) outs(%[[A2]] : {{.*}}) {
// CHECK-NEXT:    ^{{.*}}:
// CHECK-NEXT:      arith.maxsi
// Then the window rows at the anchor columns.
// CHECK:         linalg.fill ins(%{{.*}} : i32) outs(%[[POOLED]] : {{.*}})
// Window element (1, 1): every output, conv rows and columns 1, 3, 5, 7.
// CHECK-NEXT:    %[[W11:.*]] = memref.subview %[[ACC]][0, 0, 1, 1, 0, 0] [1, 1, 7, 7, 1, 16] [1, 1, 1, 1, 1, 1]
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, (d2 * 2), (d3 * 2), d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], {{.*}}} ins(%[[POOLED]], %[[W11]] : {{.*}}) outs(%[[POOLED]] : {{.*}}) {
// CHECK:           arith.addi
// Window element (0, 1): the outputs of rows 1 .. 3 (row 0 reads the padding there).
// CHECK:         %[[R01:.*]] = memref.subview %[[POOLED]][0, 0, 1, 0, 0, 0] [1, 1, 3, 4, 1, 16] [1, 1, 1, 1, 1, 1]
// CHECK-NEXT:    %[[W01:.*]] = memref.subview %[[ACC]][0, 0, 2, 1, 0, 0] [1, 1, 5, 7, 1, 16] [1, 1, 1, 1, 1, 1]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[R01]], %[[W01]] : {{.*}}) outs(%[[R01]] : {{.*}}) {
// CHECK:           arith.maxsi
// Window element (2, 1): every output, conv rows 2, 4, 6, 8.
// CHECK:         %[[W21:.*]] = memref.subview %[[ACC]][0, 0, 2, 1, 0, 0] [1, 1, 7, 7, 1, 16] [1, 1, 1, 1, 1, 1]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[POOLED]], %[[W21]] : {{.*}}) outs(%[[POOLED]] : {{.*}}) {
// CHECK:           arith.maxsi
// The epilogue on the pooled tile: the bias, the shift, the clip.
// CHECK-NOT:     memref.subview %[[ACC]]
// CHECK:         linalg.generic {{.*}} ins(%[[POOLED]], %[[BIAS]] : {{.*}}) outs(%[[POOLED]] : {{.*}}) {
// CHECK:           arith.addi
// CHECK:           arith.shrsi
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:         %[[YT:.*]] = memref.subview %{{.*}}[0, 0, 0, 0, 0, 0] [1, 1, 4, 4, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[POOLED]] : {{.*}}) outs(%[[YT]] : {{.*}}) {
// CHECK:           arith.trunci

// CHECK-LABEL: func.func @negative_multiplier(
// CHECK:         %[[MID:.*]] = memref.alloc() : memref<1x1x8x8x1x16xi8>
// CHECK:         arith.constant -3 : i32
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : memref<1x1x4x8x1x16xi8, {{.*}}>) {
// CHECK:         vta.dma_copy %[[MID]]

// CHECK-LABEL: func.func @stride1_pool(
// CHECK:         %[[ACC1:.*]] = memref.alloc() {{.*}} : memref<1x1x10x10x1x16xi32, #vta.sram<acc>>
// CHECK:         %[[POOLED1:.*]] = memref.alloc() {{.*}} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
// No column-strided view: the pooled tile is set to window element (1, 1), then takes the
// maximum with the eight others.
// CHECK-NOT:     [1, 1, 1, 2, 1, 1]
// CHECK:         linalg.fill ins(%{{.*}} : i32) outs(%[[POOLED1]] : {{.*}})
// CHECK-NEXT:    %[[V11:.*]] = memref.subview %[[ACC1]][0, 0, 1, 1, 0, 0] [1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[POOLED1]], %[[V11]] : {{.*}}) outs(%[[POOLED1]] : {{.*}}) {
// CHECK:           arith.addi
// CHECK-COUNT-8:   arith.maxsi
// CHECK-NOT:     memref.subview %[[ACC1]]
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

func.func @negative_multiplier(%x: memref<1x16x8x8xi8>, %w: memref<16x16x3x3xi8>, %b: memref<16xi32>, %y: memref<1x16x4x4xi8>) {
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
    %mc = arith.constant -3 : i32
    %m = arith.muli %s, %mc : i32
    %sh = arith.constant 7 : i32
    %r = arith.shrsi %m, %sh : i32
    %lo = arith.constant -128 : i32
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

func.func @stride1_pool(%x: memref<1x16x8x8xi8>, %w: memref<16x16x3x3xi8>, %b: memref<16xi32>, %y: memref<1x16x8x8xi8>) {
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
  linalg.fill ins(%m128 : i8) outs(%y : memref<1x16x8x8xi8>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%pool_xp, %win : memref<1x16x10x10xi8>, memref<3x3xi8>) outs(%y : memref<1x16x8x8xi8>)
  return
}
