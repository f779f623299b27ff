// vta-tile on a depthwise convolution region (stage 1 → 2, docs/pipeline.md "Convolutions"):
// 32 channels of 6×6, a 3×3 window, padding 1, packed by vta-pack (the kernel one input block
// per output block, the input read at channel block o + i). The input tile of an output tile
// holds that tile's own channel blocks, one DMA per block at the block's channels; the weight
// tile is (to, 1, 3, 3, 16, 16), loaded before the input tile. With one output block per tile (tile=0,1,0) one loop runs
// over the two output tiles, each loading its own block (x_pos = 36·o: one 6×6 block); with
// both blocks in one tile (tile=0,2,0) the input tile holds two blocks, loaded by a loop.

// RUN: vta-opt %s -p 'vta-tile{tile=0,1,0}' | filecheck %s
// RUN: vta-opt %s -p 'vta-tile{tile=0,2,0}' | filecheck %s --check-prefix=TWO

// CHECK-LABEL: func.func @dw(
// CHECK:         %inp = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<2x1x1x8x8x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %wgt = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<2x1x1x3x3x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:    %acc = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<2x1x1x6x6x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    affine.for %[[T:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[O:.*]] = affine.apply affine_map<(d0) -> ((d0 mod 2))> (%[[T]])
// CHECK:           memref.subview %w[%[[O]], 0, 0, 0, 0, 0] [1, 1, 3, 3, 16, 16] [1, 1, 1, 1, 1, 1]
// CHECK:           %[[XPOS:.*]] = affine.apply affine_map<(d0) -> ((d0 * 36))> (%[[O]])
// CHECK:           vta.dma_copy %x[%[[XPOS]]] -> %inp[%{{.*}}] y 6 x 6 stride 6 pad [1, 1, 1, 1]
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, (d1 + d4), (d2 + d5), (d3 + d6), d7, d9)>
// CHECK-SAME:      memref<1x1x8x8x1x16xi8, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<inp>>, memref<1x1x3x3x16x16xi8, strided<[2304, 2304, 768, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
// CHECK:         } {vta.double_buffer}

// TWO-LABEL: func.func @dw(
// TWO:         %inp = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x2x8x8x1x16xi8, #vta.sram<inp>>
// TWO-NEXT:    %wgt = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<2x1x3x3x16x16xi8, #vta.sram<wgt>>
// TWO-NEXT:    %acc = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x2x6x6x1x16xi32, #vta.sram<acc>>
// TWO:         memref.subview %w[0, 0, 0, 0, 0, 0] [2, 1, 3, 3, 16, 16] [1, 1, 1, 1, 1, 1]
// TWO:         affine.for %[[CI:.*]] = 0 to 2 {
// TWO-NEXT:      %[[XPOS:.*]] = affine.apply affine_map<(d0) -> ((d0 * 36))> (%[[CI]])
// TWO-NEXT:      %[[IPOS:.*]] = affine.apply affine_map<(d0) -> ((d0 * 64))> (%[[CI]])
// TWO-NEXT:      vta.dma_copy %x[%[[XPOS]]] -> %inp[%[[IPOS]]] y 6 x 6 stride 6 pad [1, 1, 1, 1]

builtin.module {
  func.func @dw(%x: memref<1x2x6x6x1x16xi8>, %w: memref<2x1x3x3x16x16xi8>, %y: memref<1x2x6x6x1x16xi8>) {
    %c0_i8 = arith.constant 0 : i8
    %c0 = arith.constant 0 : i32
        %acc = memref.alloc() : memref<1x2x6x6x1x16xi32>
    linalg.fill ins(%c0 : i32) outs(%acc : memref<1x2x6x6x1x16xi32>)
    %xp = memref.alloc() : memref<1x2x8x8x1x16xi8>
    linalg.fill ins(%c0_i8 : i8) outs(%xp : memref<1x2x8x8x1x16xi8>)
    %xi = memref.subview %xp[0, 0, 1, 1, 0, 0] [1, 2, 6, 6, 1, 16] [1, 1, 1, 1, 1, 1] : memref<1x2x8x8x1x16xi8> to memref<1x2x6x6x1x16xi8, strided<[2048, 1024, 128, 16, 16, 1], offset: 144>>
    memref.copy %x, %xi : memref<1x2x6x6x1x16xi8> to memref<1x2x6x6x1x16xi8, strided<[2048, 1024, 128, 16, 16, 1], offset: 144>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, (d1 + d4), (d2 + d5), (d3 + d6), d7, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel", "reduction"]} ins(%xp, %w : memref<1x2x8x8x1x16xi8>, memref<2x1x3x3x16x16xi8>) outs(%acc : memref<1x2x6x6x1x16xi32>) {
    ^bb0(%0: i8, %1: i8, %2: i32):
      %3 = arith.extsi %0 : i8 to i32
      %4 = arith.extsi %1 : i8 to i32
      %5 = arith.muli %3, %4 : i32
      %6 = arith.addi %2, %5 : i32
      linalg.yield %6 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x6x6x1x16xi32>) outs(%acc : memref<1x2x6x6x1x16xi32>) {
    ^bb0(%7: i32, %8: i32):
      %9 = arith.constant 4 : i32
      %10 = arith.shrsi %7, %9 : i32
      linalg.yield %10 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x2x6x6x1x16xi32>) outs(%y : memref<1x2x6x6x1x16xi8>) {
    ^bb0(%11: i32, %12: i8):
      %13 = arith.trunci %11 : i32 to i8
      linalg.yield %13 : i8
    }
    func.return
  }
}
