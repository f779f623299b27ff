// vta-residual-gemm (stage 2, after vta-bias-gemm): a residual sign-extended from int8 DRAM
// into an accumulator SRAM buffer (LOAD ACC_8BIT, on the compute module) and added to the
// output tile by the ALU (two cycles per output vector) gets an input SRAM buffer instead:
// the load becomes a memref.copy (LOAD INP, on the load module) and the add a contraction
// with a constant identity weight tile (one GEMM cycle per output vector). The new buffers
// take the lowest offsets that no buffer of the region uses; where the region's own buffers
// leave only gaps too small, the largest of them that nothing else uses moves down first. A residual the ALU rescales in
// place before the add, first by an int8 immediate, keeps its accumulator buffer: the load and
// that multiplication become a reset and a contraction with the identity times the immediate.

// RUN: vta-opt %s --split-input-file -p vta-residual-gemm | filecheck %s

// A double-buffered residual: the input buffer takes the same tiles, beside the region's own
// input buffer (elements 0..127).

// CHECK:       memref.global "private" constant @residual_identity_weights : memref<1x1x16x16xi8> = dense<"0x01000000000000000000000000000000000100
// CHECK-LABEL: func.func @block(
// CHECK:         %[[ID:.*]] = memref.get_global @residual_identity_weights : memref<1x1x16x16xi8>
// CHECK-NOT:     {vta.sram_offset = 128 : i64} : memref<2x1x1x8x8x1x16xi32
// CHECK:         %[[XB:.*]] = memref.alloc() {vta.sram_offset = 128 : i64} : memref<2x1x1x8x8x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %[[WB:.*]] = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x1x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:    %[[WT:.*]] = memref.subview %[[WB]][0, 0, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1]
// CHECK-NEXT:    memref.copy %[[ID]], %[[WT]] : memref<1x1x16x16xi8> to
// CHECK:         affine.for %[[T:.*]] = 0 to 2 {
// CHECK:           %[[O:.*]] = affine.apply
// CHECK:           %[[AV:.*]] = memref.subview %acc[%[[O]], 0, 0, 0, 0, 0, 0]
// CHECK-NEXT:      %[[RV:.*]] = memref.subview %[[XB]][%[[O]], 0, 0, 0, 0, 0, 0] [1, 1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x1x1x8x8x1x16xi8, #vta.sram<inp>> to memref<1x1x8x8x1x16xi8, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<inp>>
// CHECK:           %[[RT:.*]] = memref.subview %{{.*}}[0, %[[T]], 0, 0, 0, 0]
// CHECK-NEXT:      memref.copy %[[RT]], %[[RV]]
// CHECK-NEXT:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (0, 0, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[RV]], %[[WT]] : {{.*}}) outs(%[[AV]] : {{.*}}) {
// CHECK-NEXT:      ^{{.*}}(%[[A:.*]]: i8, %[[B:.*]]: i8, %[[C:.*]]: i32):
// CHECK-NEXT:        %[[AE:.*]] = arith.extsi %[[A]] : i8 to i32
// CHECK-NEXT:        %[[BE:.*]] = arith.extsi %[[B]] : i8 to i32
// CHECK-NEXT:        %[[P:.*]] = arith.muli %[[AE]], %[[BE]] : i32
// CHECK-NEXT:        %[[S:.*]] = arith.addi %[[C]], %[[P]] : i32
// CHECK-NEXT:        linalg.yield %[[S]] : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.subview
// CHECK-NEXT:      linalg.generic
// CHECK-NEXT:      ^{{.*}}
// CHECK-NEXT:        arith.trunci

#id = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#par6 = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
func.func @block(%x: memref<1x2x8x8x1x16xi8>, %r: memref<1x2x8x8x1x16xi8>, %y: memref<1x2x8x8x1x16xi8>) {
  %c0 = arith.constant 0 : i32
  %inp = memref.alloc() {vta.sram_offset = 0 : i64} : memref<2x1x1x8x8x1x16xi8, #vta.sram<inp>>
  %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<2x1x1x8x8x1x16xi32, #vta.sram<acc>>
  %racc = memref.alloc() {vta.sram_offset = 128 : i64} : memref<2x1x1x8x8x1x16xi32, #vta.sram<acc>>
  affine.for %t = 0 to 2 {
    %o = affine.apply affine_map<(d0) -> (d0 mod 2)> (%t)
    %xt = memref.subview %x[0, %t, 0, 0, 0, 0] [1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1] : memref<1x2x8x8x1x16xi8> to memref<1x1x8x8x1x16xi8, strided<[2048, 1024, 128, 16, 16, 1], offset: ?>>
    %iv = memref.subview %inp[%o, 0, 0, 0, 0, 0, 0] [1, 1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x1x1x8x8x1x16xi8, #vta.sram<inp>> to memref<1x1x8x8x1x16xi8, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<inp>>
    // (the region's convolution, which reads %iv, elided)
    memref.copy %xt, %iv : memref<1x1x8x8x1x16xi8, strided<[2048, 1024, 128, 16, 16, 1], offset: ?>> to memref<1x1x8x8x1x16xi8, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<inp>>
    %av = memref.subview %acc[%o, 0, 0, 0, 0, 0, 0] [1, 1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x1x1x8x8x1x16xi32, #vta.sram<acc>> to memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>
    %rv = memref.subview %racc[%o, 0, 0, 0, 0, 0, 0] [1, 1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x1x1x8x8x1x16xi32, #vta.sram<acc>> to memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>
    linalg.fill ins(%c0 : i32) outs(%av : memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>)
    %rt = memref.subview %r[0, %t, 0, 0, 0, 0] [1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1] : memref<1x2x8x8x1x16xi8> to memref<1x1x8x8x1x16xi8, strided<[2048, 1024, 128, 16, 16, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = #par6} ins(%rt : memref<1x1x8x8x1x16xi8, strided<[2048, 1024, 128, 16, 16, 1], offset: ?>>) outs(%rv : memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>) {
    ^bb0(%in: i8, %out: i32):
      %e = arith.extsi %in : i8 to i32
      linalg.yield %e : i32
    }
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = #par6} ins(%av, %rv : memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>, memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>) outs(%av : memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>) {
    ^bb0(%a: i32, %b: i32, %out: i32):
      %s = arith.addi %a, %b : i32
      linalg.yield %s : i32
    }
    %yt = memref.subview %y[0, %t, 0, 0, 0, 0] [1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1] : memref<1x2x8x8x1x16xi8> to memref<1x1x8x8x1x16xi8, strided<[2048, 1024, 128, 16, 16, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = #par6} ins(%av : memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<acc>>) outs(%yt : memref<1x1x8x8x1x16xi8, strided<[2048, 1024, 128, 16, 16, 1], offset: ?>>) {
    ^bb0(%a: i32, %out: i8):
      %t8 = arith.trunci %a : i32 to i8
      linalg.yield %t8 : i8
    }
  }
  return
}

// -----

// A residual rescaled before the add, first by an int8 immediate (3): its accumulator buffer
// stays, the load and the multiplication become a reset and a contraction with 3 × the
// identity; the add is unchanged.

// CHECK:       memref.global "private" constant @residual_identity_weights_x3 : memref<1x1x16x16xi8> = dense<"0x03000000000000000000000000000000000300
// CHECK-LABEL: func.func @rescaled(
// CHECK:         %[[ID:.*]] = memref.get_global @residual_identity_weights_x3
// CHECK:         %[[XB:.*]] = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x1x8x8x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %[[WB:.*]] = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x1x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:    %[[WT:.*]] = memref.subview %[[WB]][0, 0, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1]
// CHECK-NEXT:    memref.copy %[[ID]], %[[WT]]
// CHECK-NEXT:    %[[R:.*]] = memref.alloc() {vta.sram_offset = 64 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    memref.copy %{{.*}}, %[[XB]]
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    linalg.fill ins(%[[Z]] : i32) outs(%[[R]] : {{.*}})
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[XB]], %[[WT]] : {{.*}}) outs(%[[R]] : {{.*}})
// CHECK-NOT:     arith.muli %{{.*}}, %c3
// CHECK:         arith.addi %[[A:.*]], %[[B:.*]] : i32
// CHECK-NEXT:    linalg.yield

#id = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#par6 = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
func.func @rescaled(%r: memref<1x1x8x8x1x16xi8>) {
  %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
  %racc = memref.alloc() {vta.sram_offset = 64 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = #par6} ins(%r : memref<1x1x8x8x1x16xi8>) outs(%racc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    linalg.yield %e : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = #par6} ins(%racc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) outs(%racc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%a: i32, %out: i32):
    %c3 = arith.constant 3 : i32
    %m = arith.muli %a, %c3 : i32
    linalg.yield %m : i32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = #par6} ins(%acc, %racc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>, memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%a: i32, %b: i32, %out: i32):
    %s = arith.addi %a, %b : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// No room in the input SRAM (the region's input buffer fills its 2048 elements): unchanged.

// CHECK-LABEL: func.func @full(
// CHECK-NOT:     residual_identity_weights
// CHECK:         memref.alloc() {vta.sram_offset = 64 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>

#id = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#par6 = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
func.func @full(%x: memref<1x32x8x8x1x16xi8>, %r: memref<1x1x8x8x1x16xi8>) {
  %inp = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x32x8x8x1x16xi8, #vta.sram<inp>>
  %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
  %racc = memref.alloc() {vta.sram_offset = 64 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
  memref.copy %x, %inp : memref<1x32x8x8x1x16xi8> to memref<1x32x8x8x1x16xi8, #vta.sram<inp>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = #par6} ins(%r : memref<1x1x8x8x1x16xi8>) outs(%racc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    linalg.yield %e : i32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = #par6} ins(%racc, %acc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>, memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%a: i32, %b: i32, %out: i32):
    %s = arith.addi %a, %b : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// The region's input buffer (1984 elements) sits at element 32 of the 2048, leaving two gaps
// of 32: the residual's 64 elements fit once that buffer, which only the region uses, moves
// down to element 0.

// CHECK-LABEL: func.func @fragmented(
// CHECK:         memref.alloc() {vta.sram_offset = 1984 : i64} : memref<1x1x8x8x1x16xi8, #vta.sram<inp>>
// CHECK:         memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x31x8x8x1x16xi8, #vta.sram<inp>>
// CHECK:         linalg.generic {{.*}} ins(%residual_inp, %{{.*}} : memref<1x1x8x8x1x16xi8, #vta.sram<inp>>, memref<1x1x16x16xi8, strided<[256, 256, 16, 1]>, #vta.sram<wgt>>)

#id = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#par6 = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
func.func @fragmented(%x: memref<1x31x8x8x1x16xi8>, %r: memref<1x1x8x8x1x16xi8>) {
  %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
  %racc = memref.alloc() {vta.sram_offset = 64 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
  %inp = memref.alloc() {vta.sram_offset = 32 : i64} : memref<1x31x8x8x1x16xi8, #vta.sram<inp>>
  memref.copy %x, %inp : memref<1x31x8x8x1x16xi8> to memref<1x31x8x8x1x16xi8, #vta.sram<inp>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = #par6} ins(%r : memref<1x1x8x8x1x16xi8>) outs(%racc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    linalg.yield %e : i32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = #par6} ins(%racc, %acc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>, memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%a: i32, %b: i32, %out: i32):
    %s = arith.addi %a, %b : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// The same, but the input buffer is read again after the region: it stays where it is, and
// the residual finds no room.

// CHECK-LABEL: func.func @fragmented_shared(
// CHECK-NOT:     residual_identity_weights
// CHECK:         memref.alloc() {vta.sram_offset = 32 : i64} : memref<1x31x8x8x1x16xi8, #vta.sram<inp>>
// CHECK:         arith.extsi

#id = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#par6 = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
func.func @fragmented_shared(%x: memref<1x31x8x8x1x16xi8>, %r: memref<1x1x8x8x1x16xi8>, %z: memref<1x31x8x8x1x16xi8>) {
  %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
  %racc = memref.alloc() {vta.sram_offset = 64 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
  %inp = memref.alloc() {vta.sram_offset = 32 : i64} : memref<1x31x8x8x1x16xi8, #vta.sram<inp>>
  memref.copy %x, %inp : memref<1x31x8x8x1x16xi8> to memref<1x31x8x8x1x16xi8, #vta.sram<inp>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = #par6} ins(%r : memref<1x1x8x8x1x16xi8>) outs(%racc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    linalg.yield %e : i32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = #par6} ins(%racc, %acc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>, memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%a: i32, %b: i32, %out: i32):
    %s = arith.addi %a, %b : i32
    linalg.yield %s : i32
  }
  memref.copy %inp, %z : memref<1x31x8x8x1x16xi8, #vta.sram<inp>> to memref<1x31x8x8x1x16xi8>
  return
}

// -----

// A first factor beyond int8 (300) cannot be an identity tile's weight: unchanged.

// CHECK-LABEL: func.func @wide_factor(
// CHECK-NOT:     residual_identity_weights
// CHECK:         memref.alloc() {vta.sram_offset = 64 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
// CHECK:         arith.extsi
// CHECK:         arith.muli

#id = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#par6 = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
func.func @wide_factor(%r: memref<1x1x8x8x1x16xi8>) {
  %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
  %racc = memref.alloc() {vta.sram_offset = 64 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = #par6} ins(%r : memref<1x1x8x8x1x16xi8>) outs(%racc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    linalg.yield %e : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = #par6} ins(%racc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) outs(%racc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%a: i32, %out: i32):
    %c300 = arith.constant 300 : i32
    %m = arith.muli %a, %c300 : i32
    linalg.yield %m : i32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = #par6} ins(%acc, %racc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>, memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%a: i32, %b: i32, %out: i32):
    %s = arith.addi %a, %b : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// A residual buffer of dynamic shape (no input buffer of the same static shape can replace
// it): unchanged.

// CHECK-LABEL: func.func @dyn(
// CHECK-NOT:     residual_identity_weights
// CHECK:         memref.alloc(%{{.*}}) {vta.sram_offset = 64 : i64} : memref<?x1x8x8x1x16xi32, #vta.sram<acc>>
// CHECK:         arith.extsi
// CHECK:         arith.addi

#id = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#par6 = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
func.func @dyn(%r: memref<1x1x8x8x1x16xi8>, %n: index) {
  %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>
  %racc = memref.alloc(%n) {vta.sram_offset = 64 : i64} : memref<?x1x8x8x1x16xi32, #vta.sram<acc>>
  %rv = memref.subview %racc[0, 0, 0, 0, 0, 0] [1, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1] : memref<?x1x8x8x1x16xi32, #vta.sram<acc>> to memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1]>, #vta.sram<acc>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = #par6} ins(%r : memref<1x1x8x8x1x16xi8>) outs(%rv : memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1]>, #vta.sram<acc>>) {
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    linalg.yield %e : i32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = #par6} ins(%acc, %rv : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>, memref<1x1x8x8x1x16xi32, strided<[1024, 1024, 128, 16, 16, 1]>, #vta.sram<acc>>) outs(%acc : memref<1x1x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%a: i32, %b: i32, %out: i32):
    %s = arith.addi %a, %b : i32
    linalg.yield %s : i32
  }
  return
}
