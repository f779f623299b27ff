// vta-tile: the byte planes of an i32 result (passes/tile/byte_planes.py).  The stage-1 region
// stores its accumulator into plane 0, shifts it right by 8 in place, stores plane 1, ... ; the
// region is that of its last store, and every tile repeats the sequence on its SRAM views, each
// store into the tile of its plane.  Default configuration.

// RUN: vta-opt %s -p vta-tile | filecheck %s

// CHECK-LABEL: func.func @matmul_i32(
// CHECK:         %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<3x1x1x16xi32, #vta.sram<acc>>
// CHECK:         affine.for %o = 0 to 2 {
// CHECK:           linalg.fill ins(%c0 : i32) outs(%acc : memref<3x1x1x16xi32, #vta.sram<acc>>)
// CHECK:           %y_plane0_tile = memref.subview %y_plane0[0, %o, 0, 0] [3, 1, 1, 16] [1, 1, 1, 1] : memref<3x2x1x16xi8, strided<[32, 16, 16, 1]>> to memref<3x1x1x16xi8, strided<[32, 16, 16, 1], offset: ?>>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%acc : memref<3x1x1x16xi32, #vta.sram<acc>>) outs(%y_plane0_tile : {{.*}}) {
// CHECK:             arith.trunci
// CHECK:           linalg.generic {{.*}} ins(%acc : memref<3x1x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<3x1x1x16xi32, #vta.sram<acc>>) {
// CHECK:             arith.shrsi
// CHECK:           %y_plane1_tile = memref.subview %y_plane1[0, %o, 0, 0]
// CHECK:           %y_plane2_tile = memref.subview %y_plane2[0, %o, 0, 0]
// CHECK:           %y_plane3_tile = memref.subview %y_plane3[0, %o, 0, 0] [3, 1, 1, 16] [1, 1, 1, 1] : memref<3x2x1x16xi8, strided<[32, 16, 16, 1], offset: 288>> to memref<3x1x1x16xi8, strided<[32, 16, 16, 1], offset: ?>>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%acc : memref<3x1x1x16xi32, #vta.sram<acc>>) outs(%y_plane3_tile : {{.*}}) {
// CHECK:             arith.trunci
// CHECK:             linalg.yield
// CHECK-NEXT:      }
// CHECK-NEXT:    }
builtin.module {
  func.func @matmul_i32(%x: memref<3x3x1x16xi8> {vta.arg = {shape = array<i64: 3, 40>, dtype = "int8", padded_shape = array<i64: 3, 48>, split_shape = array<i64: 3, 1, 3, 16>, perm = array<i64: 0, 2, 1, 3>}}, %w: memref<2x3x16x16xi8> {vta.arg = {shape = array<i64: 40, 20>, dtype = "int8", padded_shape = array<i64: 48, 32>, split_shape = array<i64: 3, 16, 2, 16>, perm = array<i64: 2, 0, 3, 1>}}, %y: memref<4x3x2x1x16xi8> {vta.arg = {shape = array<i64: 3, 20>, dtype = "int32", padded_shape = array<i64: 3, 32>, split_shape = array<i64: 3, 1, 2, 16, 4>, perm = array<i64: 4, 0, 2, 1, 3>}}) {
    %y_plane0 = memref.subview %y[0, 0, 0, 0, 0] [1, 3, 2, 1, 16] [1, 1, 1, 1, 1] : memref<4x3x2x1x16xi8> to memref<3x2x1x16xi8, strided<[32, 16, 16, 1]>>
    %y_plane1 = memref.subview %y[1, 0, 0, 0, 0] [1, 3, 2, 1, 16] [1, 1, 1, 1, 1] : memref<4x3x2x1x16xi8> to memref<3x2x1x16xi8, strided<[32, 16, 16, 1], offset: 96>>
    %y_plane2 = memref.subview %y[2, 0, 0, 0, 0] [1, 3, 2, 1, 16] [1, 1, 1, 1, 1] : memref<4x3x2x1x16xi8> to memref<3x2x1x16xi8, strided<[32, 16, 16, 1], offset: 192>>
    %y_plane3 = memref.subview %y[3, 0, 0, 0, 0] [1, 3, 2, 1, 16] [1, 1, 1, 1, 1] : memref<4x3x2x1x16xi8> to memref<3x2x1x16xi8, strided<[32, 16, 16, 1], offset: 288>>
    %c0 = arith.constant 0 : i32
    %acc = memref.alloc() : memref<3x2x1x16xi32>
    linalg.fill ins(%c0 : i32) outs(%acc : memref<3x2x1x16xi32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]} ins(%x, %w : memref<3x3x1x16xi8>, memref<2x3x16x16xi8>) outs(%acc : memref<3x2x1x16xi32>) {
    ^bb0(%0: i8, %1: i8, %2: i32):
      %3 = arith.extsi %0 : i8 to i32
      %4 = arith.extsi %1 : i8 to i32
      %5 = arith.muli %3, %4 : i32
      %6 = arith.addi %2, %5 : i32
      linalg.yield %6 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<3x2x1x16xi32>) outs(%y_plane0 : memref<3x2x1x16xi8, strided<[32, 16, 16, 1]>>) {
    ^bb0(%7: i32, %8: i8):
      %9 = arith.trunci %7 : i32 to i8
      linalg.yield %9 : i8
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<3x2x1x16xi32>) outs(%acc : memref<3x2x1x16xi32>) {
    ^bb0(%10: i32, %11: i32):
      %12 = arith.constant 8 : i32
      %13 = arith.shrsi %10, %12 : i32
      linalg.yield %13 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<3x2x1x16xi32>) outs(%y_plane1 : memref<3x2x1x16xi8, strided<[32, 16, 16, 1], offset: 96>>) {
    ^bb0(%14: i32, %15: i8):
      %16 = arith.trunci %14 : i32 to i8
      linalg.yield %16 : i8
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<3x2x1x16xi32>) outs(%acc : memref<3x2x1x16xi32>) {
    ^bb0(%17: i32, %18: i32):
      %19 = arith.constant 8 : i32
      %20 = arith.shrsi %17, %19 : i32
      linalg.yield %20 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<3x2x1x16xi32>) outs(%y_plane2 : memref<3x2x1x16xi8, strided<[32, 16, 16, 1], offset: 192>>) {
    ^bb0(%21: i32, %22: i8):
      %23 = arith.trunci %21 : i32 to i8
      linalg.yield %23 : i8
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<3x2x1x16xi32>) outs(%acc : memref<3x2x1x16xi32>) {
    ^bb0(%24: i32, %25: i32):
      %26 = arith.constant 8 : i32
      %27 = arith.shrsi %24, %26 : i32
      linalg.yield %27 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<3x2x1x16xi32>) outs(%y_plane3 : memref<3x2x1x16xi8, strided<[32, 16, 16, 1], offset: 288>>) {
    ^bb0(%28: i32, %29: i8):
      %30 = arith.trunci %28 : i32 to i8
      linalg.yield %30 : i8
    }
    func.return
  }
}
