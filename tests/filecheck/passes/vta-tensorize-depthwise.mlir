// vta-tensorize on a depthwise convolution (docs/pipeline.md, Stage 4): 32 channels of 6×6, a
// 3×3 window, padding 1, one tile of both channel blocks (vta-tile{tile=0,2,0}, then
// vta-inject-dma). The output channel block o indexes the input too (block o + i, i = 0):
// the micro-op list holds the taps and the channel blocks, each micro-op reading its own
// block's input (64 elements a block: the 8×8 padded tile) and weights (9 a block); with two
// blocks, fewer than the write-hazard rule needs innermost, the columns move into the list
// and the rows stay the kernel's one loop level.

// RUN: vta-opt %s -p vta-tensorize | filecheck %s

// CHECK-LABEL: func.func @dw(
// CHECK:         vta.dma_copy %w[0] -> %wgt[0] y 1 x 18 stride 18
// CHECK-NEXT:    affine.for %[[OH:.*]] = 0 to 6 {
// CHECK-NEXT:      affine.for %[[KH:.*]] = 0 to 3 {
// CHECK-NEXT:        affine.for %[[KW:.*]] = 0 to 3 {
// CHECK-NEXT:          affine.for %[[O:.*]] = 0 to 2 {
// CHECK-NEXT:            affine.for %[[OW:.*]] = 0 to 6 {
// CHECK-NEXT:              %[[D:.*]] = affine.apply affine_map<(d0, d1, d2) -> ((((d0 * 6) + (d1 * 36)) + d2))> (%[[OH]], %[[O]], %[[OW]])
// CHECK-NEXT:              %[[S:.*]] = affine.apply affine_map<(d0, d1, d2, d3, d4) -> ((((((d0 * 8) + (d1 * 8)) + d2) + (d3 * 64)) + d4))> (%[[OH]], %[[KH]], %[[KW]], %[[O]], %[[OW]])
// CHECK-NEXT:              %[[W:.*]] = affine.apply affine_map<(d0, d1, d2) -> ((((d0 * 3) + d1) + (d2 * 9)))> (%[[KH]], %[[KW]], %[[O]])
// CHECK-NEXT:              vta.gemm %acc[%[[D]]] += %inp[%[[S]]] * %wgt[%[[W]]]
// CHECK-NEXT:            } {vta.uop_list}
// CHECK-NEXT:          } {vta.uop_list}
// CHECK-NEXT:        } {vta.uop_list}
// CHECK-NEXT:      } {vta.uop_list}
// CHECK-NEXT:    }

builtin.module {
  func.func @dw(%x: memref<1x2x6x6x1x16xi8>, %w: memref<2x1x3x3x16x16xi8>, %y: memref<1x2x6x6x1x16xi8>) {
    %c0 = arith.constant 0 : i32
    %inp = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x2x8x8x1x16xi8, #vta.sram<inp>>
    %wgt = memref.alloc() {vta.sram_offset = 0 : i64} : memref<2x1x3x3x16x16xi8, #vta.sram<wgt>>
    %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x2x6x6x1x16xi32, #vta.sram<acc>>
    linalg.fill ins(%c0 : i32) outs(%acc : memref<1x2x6x6x1x16xi32, #vta.sram<acc>>)
    affine.for %ci = 0 to 2 {
      %x_pos = affine.apply affine_map<(d0) -> ((d0 * 36))> (%ci)
      %inp_pos = affine.apply affine_map<(d0) -> ((d0 * 64))> (%ci)
      vta.dma_copy %x[%x_pos] -> %inp[%inp_pos] y 6 x 6 stride 6 pad [1, 1, 1, 1] : memref<1x2x6x6x1x16xi8> -> memref<1x2x8x8x1x16xi8, #vta.sram<inp>>
    }
    vta.dma_copy %w[0] -> %wgt[0] y 1 x 18 stride 18 : memref<2x1x3x3x16x16xi8> -> memref<2x1x3x3x16x16xi8, #vta.sram<wgt>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, (d1 + d4), (d2 + d5), (d3 + d6), d7, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel", "reduction"]} ins(%inp, %wgt : memref<1x2x8x8x1x16xi8, #vta.sram<inp>>, memref<2x1x3x3x16x16xi8, #vta.sram<wgt>>) outs(%acc : memref<1x2x6x6x1x16xi32, #vta.sram<acc>>) {
    ^bb0(%0: i8, %1: i8, %2: i32):
      %3 = arith.extsi %0 : i8 to i32
      %4 = arith.extsi %1 : i8 to i32
      %5 = arith.muli %3, %4 : i32
      %6 = arith.addi %2, %5 : i32
      linalg.yield %6 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x6x6x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<1x2x6x6x1x16xi32, #vta.sram<acc>>) {
    ^bb0(%7: i32, %8: i32):
      %9 = arith.constant 4 : i32
      %10 = arith.shrsi %7, %9 : i32
      linalg.yield %10 : i32
    }
    vta.dma_copy %acc[0] -> %y[0] y 1 x 72 stride 72 : memref<1x2x6x6x1x16xi32, #vta.sram<acc>> -> memref<1x2x6x6x1x16xi8>
    func.return
  }
}
