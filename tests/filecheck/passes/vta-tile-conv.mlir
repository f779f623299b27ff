// vta-tile on a convolution region (stage 1 → 2, docs/pipeline.md "Convolutions"): a 3×3,
// pad 1 convolution (1×32×8×8 → 32 channels, bias, >> 8, clip) packed by vta-pack. The padded
// input buffer disappears: every input tile is a vta.dma_copy whose pad fields supply the halo
// (top row only in the first row tile, bottom row only in the last), the weights are resident
// in one slice per input step, loaded by the first tile before each step's input tile (a
// layer's first input tile often waits for the layer before), two accumulator tiles
// alternate, and
// the bias is loaded once and added with a broadcasting map. There are two row tiles of four
// rows, each written out (a run of one tile), with two input steps each.
// Tiles fixed with tile=0,2,1 (2 output blocks, 1 input block per step).

// RUN: vta-opt %s -p 'vta-tile{tile=0,2,1}' | filecheck %s
// RUN: vta-opt %s -p 'vta-tile{tile=0,2,1 double-buffer=false}' | filecheck %s --check-prefix=SB

// CHECK-LABEL: func.func @c(
// CHECK-NOT:     memref.alloc() : memref<1x2x10x10x1x16xi8>
// CHECK:         %inp = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<2x1x1x6x10x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %wgt = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<2x2x1x3x3x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:    %acc = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<2x1x2x4x8x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    %acc_1 = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x2x1x1x1x16xi32, #vta.sram<acc>>
// CHECK:         memref.copy %bias_tile, %acc_1
// CHECK:         memref.copy %w_tile, %wgt_slice
// CHECK-NEXT:    vta.dma_copy %x[0] -> %inp[0] y 5 x 8 stride 8 pad [1, 0, 1, 1]
// CHECK:         memref.copy %w_tile_1, %wgt_slice_1
// CHECK-NEXT:    vta.dma_copy %x[64] -> %inp[60] y 5 x 8 stride 8 pad [1, 0, 1, 1]
// CHECK:         affine_map<(d0, d1, d2, d3, d4, d5) -> (0, d1, 0, 0, 0, d5)>
// CHECK:         vta.dma_copy %x[24] -> %inp[0] y 5 x 8 stride 8 pad [0, 1, 1, 1]
// CHECK:         vta.dma_copy %x[88] -> %inp[60] y 5 x 8 stride 8 pad [0, 1, 1, 1]
// CHECK-NOT:     memref.dealloc

// double-buffer=false: the same tiles and accumulator tiles, one copy of the input tile, no
// loop marked for two-deep tokens.
// SB-LABEL: func.func @c(
// SB:         %inp = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x1x6x10x1x16xi8, #vta.sram<inp>>
// SB:         %acc = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<2x1x2x4x8x1x16xi32, #vta.sram<acc>>
// SB-NOT:     vta.double_buffer


  func.func @c(%x: memref<1x2x8x8x1x16xi8> {vta.arg = {shape = array<i64: 1, 32, 8, 8>, dtype = "int8", padded_shape = array<i64: 1, 32, 8, 8>, split_shape = array<i64: 1, 1, 2, 16, 8, 8>, perm = array<i64: 0, 2, 4, 5, 1, 3>}}, %w: memref<2x2x3x3x16x16xi8> {vta.arg = {shape = array<i64: 32, 32, 3, 3>, dtype = "int8", padded_shape = array<i64: 32, 32, 3, 3>, split_shape = array<i64: 2, 16, 2, 16, 3, 3>, perm = array<i64: 0, 2, 4, 5, 1, 3>}}, %bias: memref<1x2x1x1x1x16xi32> {vta.arg = {shape = array<i64: 32>, dtype = "int32", repeat = array<i64: 1>, padded_shape = array<i64: 32>, split_shape = array<i64: 1, 1, 1, 1, 2, 16>, perm = array<i64: 0, 4, 1, 2, 3, 5>}}, %y: memref<1x2x8x8x1x16xi8> {vta.arg = {shape = array<i64: 1, 32, 8, 8>, dtype = "int8", padded_shape = array<i64: 1, 32, 8, 8>, split_shape = array<i64: 1, 1, 2, 16, 8, 8>, perm = array<i64: 0, 2, 4, 5, 1, 3>}}) {
    %c0_i8 = arith.constant 0 : i8
    %c0 = arith.constant 0 : i32
    %acc = memref.alloc() : memref<1x2x8x8x1x16xi32>
    linalg.fill ins(%c0 : i32) outs(%acc : memref<1x2x8x8x1x16xi32>)
    %xp = memref.alloc() : memref<1x2x10x10x1x16xi8>
    linalg.fill ins(%c0_i8 : i8) outs(%xp : memref<1x2x10x10x1x16xi8>)
    %xi = memref.subview %xp[0, 0, 1, 1, 0, 0] [1, 2, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1] : memref<1x2x10x10x1x16xi8> to memref<1x2x8x8x1x16xi8, strided<[3200, 1600, 160, 16, 16, 1], offset: 176>>
    memref.copy %x, %xi : memref<1x2x8x8x1x16xi8> to memref<1x2x8x8x1x16xi8, strided<[3200, 1600, 160, 16, 16, 1], offset: 176>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d4, (d2 + d5), (d3 + d6), d7, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel", "reduction"]} ins(%xp, %w : memref<1x2x10x10x1x16xi8>, memref<2x2x3x3x16x16xi8>) outs(%acc : memref<1x2x8x8x1x16xi32>) {
    ^bb0(%0: i8, %1: i8, %2: i32):
      %3 = arith.extsi %0 : i8 to i32
      %4 = arith.extsi %1 : i8 to i32
      %5 = arith.muli %3, %4 : i32
      %6 = arith.addi %2, %5 : i32
      linalg.yield %6 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x8x8x1x16xi32>) outs(%acc : memref<1x2x8x8x1x16xi32>) {
    ^bb0(%7: i32, %8: i32):
      %9 = arith.constant 8 : i32
      %10 = arith.shrsi %7, %9 : i32
      linalg.yield %10 : i32
    }
    %bias_acc = memref.alloc() : memref<1x2x8x8x1x16xi32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (0, d1, 0, 0, 0, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%bias : memref<1x2x1x1x1x16xi32>) outs(%bias_acc : memref<1x2x8x8x1x16xi32>) {
    ^bb0(%11: i32, %12: i32):
      linalg.yield %11 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc, %bias_acc : memref<1x2x8x8x1x16xi32>, memref<1x2x8x8x1x16xi32>) outs(%acc : memref<1x2x8x8x1x16xi32>) {
    ^bb0(%13: i32, %14: i32, %15: i32):
      %16 = arith.addi %13, %14 : i32
      linalg.yield %16 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x8x8x1x16xi32>) outs(%acc : memref<1x2x8x8x1x16xi32>) {
    ^bb0(%17: i32, %18: i32):
      %19 = arith.constant 127 : i32
      %20 = arith.minsi %17, %19 : i32
      linalg.yield %20 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x8x8x1x16xi32>) outs(%acc : memref<1x2x8x8x1x16xi32>) {
    ^bb0(%21: i32, %22: i32):
      %23 = arith.constant 0 : i32
      %24 = arith.maxsi %21, %23 : i32
      linalg.yield %24 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x8x8x1x16xi32>) outs(%y : memref<1x2x8x8x1x16xi8>) {
    ^bb0(%25: i32, %26: i8):
      %27 = arith.trunci %25 : i32 to i8
      linalg.yield %27 : i8
    }
    memref.dealloc %xp : memref<1x2x10x10x1x16xi8>
    func.return
  }
