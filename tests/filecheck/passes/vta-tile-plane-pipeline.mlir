// vta-tile: the byte planes of an i32 result stored in a software pipeline over the tiles
// (passes/tile/plane_pipeline.py), default configuration.  The 16x96 result of a 16x64 . 64x96
// product is six tiles of one output block; their accumulators take turns in five copies
// (memref<5x...>, copy t mod 5 for tile t).  Step t computes tile t and stores its plane 0,
// shifts tiles t-1, t-2, t-3 once each and stores their planes 1, 2, 3 (plane 3, which frees a
// copy, before plane 2).  Steps 0-2 and 6-8 are written out (tiles before 0 and after 5 left
// out), steps 3-5 are the loop, marked vta.double_buffer.  vta-coproc-sync gives each shift of
// the loop a token of its own, pushed by the store of the plane before it in the previous step,
// so no shift waits for a store of its own step.

// RUN: vta-opt %s -p vta-tile | filecheck %s
// RUN: vta-opt %s -p vta-tile,vta-inject-dma,vta-tensorize,vta-fold-uop-loops,vta-coproc-sync | filecheck %s --check-prefix=SYNC

// CHECK-LABEL: func.func @matmul_i32(
// CHECK:         %inp = memref.alloc() {vta.sram_offset = 0 : i64} : memref<16x4x1x16xi8, #vta.sram<inp>>
// CHECK:         %wgt = memref.alloc() {vta.sram_offset = 0 : i64} : memref<2x1x4x16x16xi8, #vta.sram<wgt>>
// CHECK:         %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<5x16x1x1x16xi32, #vta.sram<acc>>
// CHECK:         memref.copy %x_tile, %inp
// Step 0: tile 0 in copy 0, its plane 0.
// CHECK:         %acc_view = memref.subview %acc[0, 0, 0, 0, 0] [1, 16, 1, 1, 16]
// CHECK-NEXT:    linalg.fill ins(%c0 : i32) outs(%acc_view :
// CHECK:         linalg.generic {{.*}} ins(%inp, %wgt_view : {{.*}}) outs(%acc_view :
// CHECK:         %y_plane0_tile = memref.subview %y_plane0[0, 0, 0, 0] [16, 1, 1, 16]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%acc_view : {{.*}}) outs(%y_plane0_tile :
// Step 1: tile 1, then tile 0 shifted and its plane 1.
// CHECK:         %acc_view_1 = memref.subview %acc[1, 0, 0, 0, 0]
// CHECK:         %y_plane0_tile_1 = memref.subview %y_plane0[0, 1, 0, 0]
// CHECK:         linalg.generic {{.*}} ins(%acc_view : {{.*}}) outs(%acc_view :
// CHECK:           arith.shrsi
// CHECK:         %y_plane1_tile = memref.subview %y_plane1[0, 0, 0, 0]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%acc_view : {{.*}}) outs(%y_plane1_tile :
// Step 2: tile 2; tile 1 shifted, its plane 1; tile 0 shifted, its plane 2.
// CHECK:         %y_plane0_tile_2 = memref.subview %y_plane0[0, 2, 0, 0]
// CHECK:         %y_plane1_tile_1 = memref.subview %y_plane1[0, 1, 0, 0]
// CHECK:         %y_plane2_tile = memref.subview %y_plane2[0, 0, 0, 0]
// Steps 3-5: tile t = %t + 3 in copy t mod 5; tile t - 1 shifted, its plane 1; tiles t - 2 and
// t - 3 shifted; plane 3 of tile t - 3 (%t), then plane 2 of tile t - 2.
// CHECK:         affine.for %t = 0 to 3 {
// CHECK-NEXT:      %tile = affine.apply affine_map<(d0) -> ((d0 + 3))> (%t)
// CHECK-NEXT:      %copy = affine.apply affine_map<(d0) -> ((d0 mod 5))> (%tile)
// CHECK-NEXT:      %acc_view_3 = memref.subview %acc[%copy, 0, 0, 0, 0] [1, 16, 1, 1, 16]
// CHECK-NEXT:      linalg.fill ins(%c0 : i32) outs(%acc_view_3 :
// CHECK:           %copy_1 = affine.apply affine_map<(d0) -> ((d0 mod 2))> (%tile)
// CHECK:           memref.copy %w_tile_3, %wgt_view_3
// CHECK:           linalg.generic {{.*}} ins(%inp, %wgt_view_3 : {{.*}}) outs(%acc_view_3 :
// CHECK:           %y_plane0_tile_3 = memref.subview %y_plane0[0, %tile, 0, 0]
// CHECK-NEXT:      linalg.generic {{.*}} ins(%acc_view_3 : {{.*}}) outs(%y_plane0_tile_3 :
// CHECK:           %tile_1 = affine.apply affine_map<(d0) -> ((d0 + 2))> (%t)
// CHECK:           linalg.generic {{.*}} ins(%acc_view_4 : {{.*}}) outs(%acc_view_4 :
// CHECK:             arith.shrsi
// CHECK:           %y_plane1_tile_2 = memref.subview %y_plane1[0, %tile_1, 0, 0]
// CHECK-NEXT:      linalg.generic {{.*}} ins(%acc_view_4 : {{.*}}) outs(%y_plane1_tile_2 :
// CHECK:           %tile_2 = affine.apply affine_map<(d0) -> ((d0 + 1))> (%t)
// CHECK:           linalg.generic {{.*}} ins(%acc_view_5 : {{.*}}) outs(%acc_view_5 :
// CHECK:           %copy_4 = affine.apply affine_map<(d0) -> ((d0 mod 5))> (%t)
// CHECK:           linalg.generic {{.*}} ins(%acc_view_6 : {{.*}}) outs(%acc_view_6 :
// CHECK:           %y_plane3_tile = memref.subview %y_plane3[0, %t, 0, 0]
// CHECK-NEXT:      linalg.generic {{.*}} ins(%acc_view_6 : {{.*}}) outs(%y_plane3_tile :
// CHECK:           %y_plane2_tile_1 = memref.subview %y_plane2[0, %tile_2, 0, 0]
// CHECK-NEXT:      linalg.generic {{.*}} ins(%acc_view_5 : {{.*}}) outs(%y_plane2_tile_1 :
// CHECK:         } {vta.double_buffer}
// Steps 6-8: the last planes of tiles 3-5.
// CHECK:         %y_plane1_tile_3 = memref.subview %y_plane1[0, 5, 0, 0]
// CHECK:         %y_plane3_tile_1 = memref.subview %y_plane3[0, 3, 0, 0]
// CHECK:         %y_plane2_tile_2 = memref.subview %y_plane2[0, 4, 0, 0]
// CHECK:         %y_plane3_tile_2 = memref.subview %y_plane3[0, 4, 0, 0]
// CHECK:         %y_plane2_tile_3 = memref.subview %y_plane2[0, 5, 0, 0]
// CHECK:         %y_plane3_tile_3 = memref.subview %y_plane3[0, 5, 0, 0]
// CHECK-NEXT:    linalg.generic {{.*}} outs(%y_plane3_tile_3 :
// CHECK:           arith.trunci
// CHECK-NEXT:      linalg.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// Three store -> compute tokens primed for the loop, one per shift; in the loop each shift pops
// the token of the store before it (the previous step's), and the stores of planes 0, 1 and 2
// push them; the store of plane 3 pushes none (the next reuse of its copy waits behind plane 2).
// The loop as a whole waits for the stores of the steps before it (one token, popped before it).
// The loop's second compute -> load prime comes right after the GEMM of the tile before the
// loop whose weight copy the loop's second load overwrites (not after that tile's stores);
// its first, for a load into the other copy, before that GEMM.
// SYNC:          vta.dma_copy %w[8] -> %wgt[0]
// SYNC-NEXT:     vta.dep_push load -> compute
// SYNC-NEXT:   }
// SYNC-NEXT:   vta.stage compute {
// SYNC-NEXT:     vta.dep_push compute -> load
// SYNC-NEXT:     vta.dep_pop load -> compute
// SYNC-NEXT:     vta.uop_loop 16 dst 1 src 4 {
// SYNC-NEXT:       vta.uop_loop 4 src 1 wgt 1 {
// SYNC-NEXT:         vta.gemm %acc[32] += %inp[0] * %wgt[0]
// SYNC:          vta.dep_push compute -> store
// SYNC-NEXT:     vta.dep_push compute -> load
// SYNC-NEXT:   }
// SYNC:          vta.dma_copy %acc[0] -> %y[192]
// SYNC-NEXT:     vta.dep_push store -> compute
// SYNC-NEXT:   }
// SYNC-NEXT:   vta.dep_pop store -> compute
// SYNC-NEXT:   vta.dep_push store -> compute
// SYNC-NEXT:   vta.dep_push store -> compute
// SYNC-NEXT:     vta.dep_push store -> compute
// SYNC-NEXT:     affine.for %t = 0 to 3 {
// SYNC:            vta.gemm_reset
// SYNC:            vta.gemm
// SYNC:            vta.stage store {
// SYNC-NEXT:         vta.dep_pop compute -> store
// SYNC:              vta.dma_copy %acc[{{.*}}] -> %y[%t + 3]
// SYNC-NEXT:         vta.dep_push store -> compute
// SYNC:            vta.stage compute {
// SYNC-NEXT:         vta.dep_pop store -> compute
// SYNC:              vta.alu shr
// SYNC:              vta.dep_push compute -> store
// SYNC:              vta.dma_copy %acc[{{.*}}] -> %y[%t + 98]
// SYNC-NEXT:         vta.dep_push store -> compute
// SYNC:            vta.stage compute {
// SYNC-NEXT:         vta.dep_pop store -> compute
// SYNC:              vta.alu shr
// SYNC:              vta.dep_pop store -> compute
// SYNC:              vta.alu shr
// SYNC:              vta.dma_copy %acc[{{.*}}] -> %y[%t + 288]
// SYNC-NEXT:         affine.apply
// SYNC-NEXT:         vta.dma_copy %acc[{{.*}}] -> %y[%t + 193]
// SYNC-NEXT:         vta.dep_push store -> compute
// SYNC-NEXT:       }
// SYNC-NEXT:     } {vta.double_buffer}

builtin.module {
  func.func @matmul_i32(%x: memref<16x4x1x16xi8> {vta.arg = {shape = array<i64: 16, 64>, dtype = "int8", padded_shape = array<i64: 16, 64>, split_shape = array<i64: 16, 1, 4, 16>, perm = array<i64: 0, 2, 1, 3>}}, %w: memref<6x4x16x16xi8> {vta.arg = {shape = array<i64: 64, 96>, dtype = "int8", padded_shape = array<i64: 64, 96>, split_shape = array<i64: 4, 16, 6, 16>, perm = array<i64: 2, 0, 3, 1>}}, %y: memref<4x16x6x1x16xi8> {vta.arg = {shape = array<i64: 16, 96>, dtype = "int32", padded_shape = array<i64: 16, 96>, split_shape = array<i64: 16, 1, 6, 16, 4>, perm = array<i64: 4, 0, 2, 1, 3>}}) {
    %y_plane0 = memref.subview %y[0, 0, 0, 0, 0] [1, 16, 6, 1, 16] [1, 1, 1, 1, 1] : memref<4x16x6x1x16xi8> to memref<16x6x1x16xi8, strided<[96, 16, 16, 1]>>
    %y_plane1 = memref.subview %y[1, 0, 0, 0, 0] [1, 16, 6, 1, 16] [1, 1, 1, 1, 1] : memref<4x16x6x1x16xi8> to memref<16x6x1x16xi8, strided<[96, 16, 16, 1], offset: 1536>>
    %y_plane2 = memref.subview %y[2, 0, 0, 0, 0] [1, 16, 6, 1, 16] [1, 1, 1, 1, 1] : memref<4x16x6x1x16xi8> to memref<16x6x1x16xi8, strided<[96, 16, 16, 1], offset: 3072>>
    %y_plane3 = memref.subview %y[3, 0, 0, 0, 0] [1, 16, 6, 1, 16] [1, 1, 1, 1, 1] : memref<4x16x6x1x16xi8> to memref<16x6x1x16xi8, strided<[96, 16, 16, 1], offset: 4608>>
    %c0 = arith.constant 0 : i32
    %acc = memref.alloc() : memref<16x6x1x16xi32>
    linalg.fill ins(%c0 : i32) outs(%acc : memref<16x6x1x16xi32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]} ins(%x, %w : memref<16x4x1x16xi8>, memref<6x4x16x16xi8>) outs(%acc : memref<16x6x1x16xi32>) {
    ^bb0(%0: i8, %1: i8, %2: i32):
      %3 = arith.extsi %0 : i8 to i32
      %4 = arith.extsi %1 : i8 to i32
      %5 = arith.muli %3, %4 : i32
      %6 = arith.addi %2, %5 : i32
      linalg.yield %6 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<16x6x1x16xi32>) outs(%y_plane0 : memref<16x6x1x16xi8, strided<[96, 16, 16, 1]>>) {
    ^bb0(%7: i32, %8: i8):
      %9 = arith.trunci %7 : i32 to i8
      linalg.yield %9 : i8
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<16x6x1x16xi32>) outs(%acc : memref<16x6x1x16xi32>) {
    ^bb0(%10: i32, %11: i32):
      %12 = arith.constant 8 : i32
      %13 = arith.shrsi %10, %12 : i32
      linalg.yield %13 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<16x6x1x16xi32>) outs(%y_plane1 : memref<16x6x1x16xi8, strided<[96, 16, 16, 1], offset: 1536>>) {
    ^bb0(%14: i32, %15: i8):
      %16 = arith.trunci %14 : i32 to i8
      linalg.yield %16 : i8
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<16x6x1x16xi32>) outs(%acc : memref<16x6x1x16xi32>) {
    ^bb0(%17: i32, %18: i32):
      %19 = arith.constant 8 : i32
      %20 = arith.shrsi %17, %19 : i32
      linalg.yield %20 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<16x6x1x16xi32>) outs(%y_plane2 : memref<16x6x1x16xi8, strided<[96, 16, 16, 1], offset: 3072>>) {
    ^bb0(%21: i32, %22: i8):
      %23 = arith.trunci %21 : i32 to i8
      linalg.yield %23 : i8
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<16x6x1x16xi32>) outs(%acc : memref<16x6x1x16xi32>) {
    ^bb0(%24: i32, %25: i32):
      %26 = arith.constant 8 : i32
      %27 = arith.shrsi %24, %26 : i32
      linalg.yield %27 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<16x6x1x16xi32>) outs(%y_plane3 : memref<16x6x1x16xi8, strided<[96, 16, 16, 1], offset: 4608>>) {
    ^bb0(%28: i32, %29: i8):
      %30 = arith.trunci %28 : i32 to i8
      linalg.yield %30 : i8
    }
    func.return
  }
}
