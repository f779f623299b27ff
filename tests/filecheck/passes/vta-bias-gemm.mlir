// vta-bias-gemm (stage 2, after vta-tile): a constant per-channel bias loaded into the
// accumulator SRAM and added with a broadcasting map (two ALU cycles per output vector)
// becomes a contraction of a constant input vector x (BLOCK_IN - 1 lanes of -128, one of 1)
// with constant bias weights, loaded into the input and weight SRAMs where the bias was
// (one GEMM cycle per output vector and weight element). A bias broadcast into an
// accumulator tile before its contraction becomes a reset and the same contraction.

// RUN: vta-opt %s --split-input-file -p vta-bias-gemm | filecheck %s

// The bias add of a convolution's accumulator tiles; 243781 needs two weight elements.

// CHECK:       memref.global "private" constant @b_packed_gemm_input : memref<1x1x1x1x1x16xi8> = dense<{{\[\[\[\[\[\[}}-128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, 1]]]]]]>
// CHECK:       memref.global "private" constant @b_packed_gemm_weights : memref<2x2x1x1x16x16xi8>
// CHECK-NOT:   @b_packed :
// CHECK-LABEL: func.func @conv(
// CHECK:         %[[W:.*]] = memref.get_global @b_packed_gemm_weights
// CHECK:         %[[X:.*]] = memref.get_global @b_packed_gemm_input
// CHECK:         %[[XB:.*]] = memref.alloc() {vta.sram_offset = 128 : i64} : memref<1x1x1x1x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %[[WB:.*]] = memref.alloc() {vta.sram_offset = 18 : i64} : memref<2x2x1x1x16x16xi8, #vta.sram<wgt>>
// CHECK-NOT:     memref.alloc() {{.*}} : memref<1x2x1x1x1x16xi32
// CHECK:         %[[WT:.*]] = memref.subview %[[W]][0, 0, 0, 0, 0, 0] [2, 2, 1, 1, 16, 16] [1, 1, 1, 1, 1, 1]
// CHECK-NEXT:    memref.copy %[[X]], %[[XB]]
// CHECK-NEXT:    memref.copy %[[WT]], %[[WB]]
// CHECK:         affine.for %[[T:.*]] = 0 to 8 {
// CHECK:           %[[WV:.*]] = memref.subview %[[WB]][%{{.*}}, 0, 0, 0, 0, 0] [1, 2, 1, 1, 16, 16] [1, 1, 1, 1, 1, 1]
// CHECK-NEXT:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (0, 0, 0, 0, d5, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d0, 0, 0, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d3, d4, d5, d6)>], iterator_types = ["reduction", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[XB]], %[[WV]] : {{.*}}) outs(%{{.*}} : {{.*}}) {
// CHECK-NEXT:      ^{{.*}}(%[[A:.*]]: i8, %[[B:.*]]: i8, %[[C:.*]]: i32):
// CHECK-NEXT:        %[[AE:.*]] = arith.extsi %[[A]] : i8 to i32
// CHECK-NEXT:        %[[BE:.*]] = arith.extsi %[[B]] : i8 to i32
// CHECK-NEXT:        %[[P:.*]] = arith.muli %[[AE]], %[[BE]] : i32
// CHECK-NEXT:        %[[S:.*]] = arith.addi %[[C]], %[[P]] : i32
// CHECK-NEXT:        linalg.yield %[[S]] : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      linalg.generic
// CHECK-NEXT:      ^{{.*}}
// CHECK-NEXT:        arith.shrsi

#id = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#bm = affine_map<(d0, d1, d2, d3, d4, d5) -> (0, d1, 0, 0, 0, d5)>
#par6 = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
memref.global "private" constant @b_packed : memref<1x2x1x1x1x16xi32> = dense<[[[[[[243781, -3, 1000, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]]]], [[[[-243781, 3, -1000, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]]]]]]>
func.func @conv(%y: memref<1x2x8x8x1x16xi32>) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %bias = memref.get_global @b_packed : memref<1x2x1x1x1x16xi32>
  %inp = memref.alloc() {vta.sram_offset = 0 : i64} : memref<2x1x1x8x8x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() {vta.sram_offset = 0 : i64} : memref<2x1x1x3x3x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<2x1x1x8x8x1x16xi32, #vta.sram<acc>>
  %bacc = memref.alloc() {vta.sram_offset = 128 : i64} : memref<1x2x1x1x1x16xi32, #vta.sram<acc>>
  %bias_tile = memref.subview %bias[0, 0, 0, 0, 0, 0] [1, 2, 1, 1, 1, 16] [1, 1, 1, 1, 1, 1] : memref<1x2x1x1x1x16xi32> to memref<1x2x1x1x1x16xi32, strided<[32, 16, 16, 16, 16, 1]>>
  memref.copy %bias_tile, %bacc : memref<1x2x1x1x1x16xi32, strided<[32, 16, 16, 16, 16, 1]>> to memref<1x2x1x1x1x16xi32, #vta.sram<acc>>
  affine.for %t = 0 to 8 {
    %o = affine.apply affine_map<(d0) -> (d0 mod 2)> (%t)
    // (the region's input and weight buffers, read by its contraction, elided)
    %iv = memref.subview %inp[%o, 0, 0, 0, 0, 0, 0] [1, 1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x1x1x8x8x1x16xi8, #vta.sram<inp>> to memref<1x1x8x8x1x16xi8, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<inp>>
    %wv = memref.subview %wgt[%o, 0, 0, 0, 0, 0, 0] [1, 1, 1, 3, 3, 16, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x1x1x3x3x16x16xi8, #vta.sram<wgt>> to memref<1x1x3x3x16x16xi8, strided<[2304, 2304, 768, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
    %av = memref.subview %acc[%o, 0, 0, 0, 0, 0, 0] [1, 1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x1x1x8x8x1x16xi32, #vta.sram<acc>> to memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>
    %bv = memref.subview %bacc[0, %o, 0, 0, 0, 0] [1, 1, 1, 1, 1, 16] [1, 1, 1, 1, 1, 1] : memref<1x2x1x1x1x16xi32, #vta.sram<acc>> to memref<1x1x1x1x1x16xi32, strided<[32, 16, 16, 16, 16, 1], offset: ?>, #vta.sram<acc>>
    linalg.fill ins(%c0 : i32) outs(%av : memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>)
    linalg.generic {indexing_maps = [#id, #bm, #id], iterator_types = #par6}
        ins(%av, %bv : memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>, memref<1x1x1x1x1x16xi32, strided<[32, 16, 16, 16, 16, 1], offset: ?>, #vta.sram<acc>>)
        outs(%av : memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>) {
    ^bb0(%a: i32, %b: i32, %out: i32):
      %s = arith.addi %a, %b : i32
      linalg.yield %s : i32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = #par6}
        ins(%av : memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>)
        outs(%av : memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>) {
    ^bb0(%a: i32, %out: i32):
      %s = arith.shrsi %a, %c8 : i32
      linalg.yield %s : i32
    }
  }
  return
}

// -----

// A dense layer's bias broadcast into each accumulator tile: a reset and the contraction; x is
// loaded once before the loop, the tile's bias weights where its bias was.

// CHECK-LABEL: func.func @dense(
// CHECK:         %[[XB:.*]] = memref.alloc() {vta.sram_offset = 32 : i64} : memref<1x1x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %[[WB:.*]] = memref.alloc() {vta.sram_offset = 1 : i64} : memref<1x1x16x16xi8, #vta.sram<wgt>>
// CHECK:         memref.copy %{{.*}}, %[[XB]]
// CHECK-NEXT:    affine.for %[[O:.*]] = 0 to 2 {
// CHECK:           %[[WT:.*]] = memref.subview %{{.*}}[%[[O]], 0, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1]
// CHECK-NEXT:      memref.copy %[[WT]], %[[WB]]
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      linalg.fill ins(%[[Z]] : i32) outs(%[[ACC:.*]] : memref<32x1x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (0, 0, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d0, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d3, d4)>], {{.*}} ins(%[[XB]], %[[WB]] : {{.*}}) outs(%[[ACC]] : memref<32x1x1x16xi32, #vta.sram<acc>>)

memref.global "private" constant @bias_packed : memref<1x2x1x16xi32> = dense<1000>
func.func @dense(%y: memref<32x2x1x16xi32>) {
  %bias = memref.get_global @bias_packed : memref<1x2x1x16xi32>
  %inp = memref.alloc() {vta.sram_offset = 0 : i64} : memref<32x1x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x1x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<32x1x1x16xi32, #vta.sram<acc>>
  affine.for %o = 0 to 2 {
    %bias_tile = memref.subview %bias[0, %o, 0, 0] [1, 1, 1, 16] [1, 1, 1, 1] : memref<1x2x1x16xi32> to memref<1x1x1x16xi32, strided<[32, 16, 16, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%bias_tile : memref<1x1x1x16xi32, strided<[32, 16, 16, 1], offset: ?>>) outs(%acc : memref<32x1x1x16xi32, #vta.sram<acc>>) {
    ^bb0(%b: i32, %out: i32):
      linalg.yield %b : i32
    }
    linalg.generic {indexing_maps = [affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>, affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>, affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
        ins(%inp, %wgt : memref<32x1x1x16xi8, #vta.sram<inp>>, memref<1x1x16x16xi8, #vta.sram<wgt>>) outs(%acc : memref<32x1x1x16xi32, #vta.sram<acc>>) {
    ^bb0(%xv: i8, %wv: i8, %av: i32):
      %xe = arith.extsi %xv : i8 to i32
      %we = arith.extsi %wv : i8 to i32
      %p = arith.muli %xe, %we : i32
      %s = arith.addi %av, %p : i32
      linalg.yield %s : i32
    }
  }
  return
}

// -----

// A bias passed as an argument, and a constant bias beyond four weight elements, stay ALU adds.

// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     gemm_weights
// CHECK:         arith.addi
// CHECK:         arith.addi
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bm = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>
#par4 = ["parallel", "parallel", "parallel", "parallel"]
memref.global "private" constant @big_packed : memref<1x1x1x16xi32> = dense<975105>
func.func @kept(%barg: memref<1x1x1x16xi32>) {
  %big = memref.get_global @big_packed : memref<1x1x1x16xi32>
  %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<256x1x1x16xi32, #vta.sram<acc>>
  %b1 = memref.alloc() {vta.sram_offset = 256 : i64} : memref<1x1x1x16xi32, #vta.sram<acc>>
  %b2 = memref.alloc() {vta.sram_offset = 257 : i64} : memref<1x1x1x16xi32, #vta.sram<acc>>
  memref.copy %barg, %b1 : memref<1x1x1x16xi32> to memref<1x1x1x16xi32, #vta.sram<acc>>
  memref.copy %big, %b2 : memref<1x1x1x16xi32> to memref<1x1x1x16xi32, #vta.sram<acc>>
  linalg.generic {indexing_maps = [#id, #bm, #id], iterator_types = #par4}
      ins(%acc, %b1 : memref<256x1x1x16xi32, #vta.sram<acc>>, memref<1x1x1x16xi32, #vta.sram<acc>>)
      outs(%acc : memref<256x1x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%a: i32, %b: i32, %out: i32):
    %s = arith.addi %a, %b : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#id, #bm, #id], iterator_types = #par4}
      ins(%acc, %b2 : memref<256x1x1x16xi32, #vta.sram<acc>>, memref<1x1x1x16xi32, #vta.sram<acc>>)
      outs(%acc : memref<256x1x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%a: i32, %b: i32, %out: i32):
    %s = arith.addi %a, %b : i32
    linalg.yield %s : i32
  }
  return
}
