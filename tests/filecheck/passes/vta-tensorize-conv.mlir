// Convolutions (the stage-1 form, tiled: stage 3), the TensorizeConv pattern: vta-tensorize orders
// the loops with the output rows and columns outermost and marks the loops of the micro-op list
// (input channels, kernel rows and columns, output channels) `vta.uop_list`; vta-fold-uop-loops
// makes ONE micro-kernel per convolution generic: two levels (rows, columns) around the list loops.
// The bias add with a broadcasting source map is an ALU kernel with a zero source factor over the
// positions.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-tensorize | filecheck %s
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-tensorize,vta-fold-uop-loops | filecheck %s --check-prefix=FOLD

// 3x3, stride 1, TO = 4 output channel blocks, double-buffer copy views of input and weight.

// CHECK-LABEL: func.func @conv3x3(
// CHECK:         affine.for %[[IC:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[P:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 200))> (%[[IC]])
// CHECK-NEXT:      %[[Q:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 72))> (%[[IC]])
// CHECK-NEXT:      affine.for %[[OH:.*]] = 0 to 8 {
// CHECK-NEXT:        affine.for %[[OW:.*]] = 0 to 8 {
// CHECK-NEXT:          affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:            affine.for %[[KH:.*]] = 0 to 3 {
// CHECK-NEXT:              affine.for %[[KW:.*]] = 0 to 3 {
// CHECK-NEXT:                affine.for %[[O:.*]] = 0 to 4 {
// CHECK-NEXT:                  affine.apply
// CHECK-NEXT:                  affine.apply
// CHECK-NEXT:                  affine.apply
// CHECK-NEXT:                  vta.gemm
// CHECK-NEXT:                } {vta.uop_list}
// CHECK-NEXT:              } {vta.uop_list}
// CHECK-NEXT:            } {vta.uop_list}
// CHECK-NEXT:          } {vta.uop_list}
// CHECK-NEXT:        }{{$}}
// CHECK-NEXT:      }{{$}}
// CHECK-NEXT:    }
// CHECK:         vta.alu shr
// CHECK:         affine.for %[[BO:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %{{.*}} = 0 to 8 {
// CHECK-NEXT:        affine.for %{{.*}} = 0 to 8 {
// CHECK-NEXT:          %[[BD:.*]] = affine.apply
// CHECK-NEXT:          vta.alu add %{{.*}}[%[[BD]]], %{{.*}}[%[[BO]]]

// FOLD-LABEL: func.func @conv3x3(
// FOLD:         vta.uop_loop 256 dst 1 {
// FOLD-NEXT:      vta.gemm_reset %[[ACC:.*]][0]
// FOLD-NEXT:    }
// FOLD-NEXT:    affine.for %[[IC:.*]] = 0 to 2 {
// FOLD-NEXT:      %[[P:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 200))> (%[[IC]])
// FOLD-NEXT:      %[[Q:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 72))> (%[[IC]])
// FOLD-NEXT:      vta.uop_loop 8 dst 8 src 10 {
// FOLD-NEXT:        vta.uop_loop 8 dst 1 src 1 {
// FOLD-NEXT:          affine.for %[[I:.*]] = 0 to 2 {
// FOLD-NEXT:            affine.for %[[KH:.*]] = 0 to 3 {
// FOLD-NEXT:              affine.for %[[KW:.*]] = 0 to 3 {
// FOLD-NEXT:                affine.for %[[O:.*]] = 0 to 4 {
// FOLD-NEXT:                  %[[D:.*]] = affine.apply affine_map<(d0) -> ((d0 * 64))> (%[[O]])
// FOLD-NEXT:                  %[[S:.*]] = affine.apply affine_map<(d0, d1, d2)[s0] -> (((((d0 * 100) + (d1 * 10)) + d2) + s0))> (%[[I]], %[[KH]], %[[KW]])[%[[P]]]
// FOLD-NEXT:                  %[[W:.*]] = affine.apply affine_map<(d0, d1, d2, d3)[s0] -> ((((((d0 * 9) + (d1 * 3)) + d2) + (d3 * 18)) + s0))> (%[[I]], %[[KH]], %[[KW]], %[[O]])[%[[Q]]]
// FOLD-NEXT:                  vta.gemm %[[ACC]][%[[D]]] += %{{.*}}[%[[S]]] * %{{.*}}[%[[W]]]
// FOLD-NEXT:                }{{$}}
// FOLD-NEXT:              }{{$}}
// FOLD-NEXT:            }{{$}}
// FOLD-NEXT:          }{{$}}
// FOLD-NEXT:        }
// FOLD-NEXT:      }
// FOLD-NEXT:    }
// FOLD-NEXT:    vta.uop_loop 256 dst 1 src 1 {
// FOLD-NEXT:      vta.alu shr %[[ACC]][0], 8
// FOLD-NEXT:    }
// FOLD-NEXT:    vta.uop_loop 4 dst 64 src 1 {
// FOLD-NEXT:      vta.uop_loop 64 dst 1 {
// FOLD-NEXT:        vta.alu add %[[ACC]][0], %{{.*}}[0]
// FOLD-NEXT:      }
// FOLD-NEXT:    }
#xm = affine_map<(b, o, oh, ow, i, kh, kw, bb, oo, ii) -> (b, i, oh + kh, ow + kw, bb, ii)>
#wm = affine_map<(b, o, oh, ow, i, kh, kw, bb, oo, ii) -> (o, i, kh, kw, oo, ii)>
#am = affine_map<(b, o, oh, ow, i, kh, kw, bb, oo, ii) -> (b, o, oh, ow, bb, oo)>
#id = affine_map<(b, o, h, w, bb, oo) -> (b, o, h, w, bb, oo)>
#bm = affine_map<(b, o, h, w, bb, oo) -> (0, o, 0, 0, 0, oo)>
func.func @conv3x3(%x: memref<1x4x10x10x1x16xi8>, %w: memref<4x4x3x3x16x16xi8>) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %inp = memref.alloc() : memref<2x1x2x10x10x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<2x4x2x3x3x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() : memref<1x4x8x8x1x16xi32, #vta.sram<acc>>
  %bacc = memref.alloc() : memref<1x4x1x1x1x16xi32, #vta.sram<acc>>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x4x8x8x1x16xi32, #vta.sram<acc>>)
  affine.for %ic = 0 to 2 {
    %c = affine.apply affine_map<(d0) -> (d0 mod 2)> (%ic)
    %iv = memref.subview %inp[%c, 0, 0, 0, 0, 0, 0] [1, 1, 2, 10, 10, 1, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x1x2x10x10x1x16xi8, #vta.sram<inp>> to memref<1x2x10x10x1x16xi8, strided<[3200, 1600, 160, 16, 16, 1], offset: ?>, #vta.sram<inp>>
    %wv = memref.subview %wgt[%c, 0, 0, 0, 0, 0, 0] [1, 4, 2, 3, 3, 16, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x4x2x3x3x16x16xi8, #vta.sram<wgt>> to memref<4x2x3x3x16x16xi8, strided<[4608, 2304, 768, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
    linalg.generic {indexing_maps = [#xm, #wm, #am], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel", "reduction"]}
        ins(%iv, %wv : memref<1x2x10x10x1x16xi8, strided<[3200, 1600, 160, 16, 16, 1], offset: ?>, #vta.sram<inp>>, memref<4x2x3x3x16x16xi8, strided<[4608, 2304, 768, 256, 16, 1], offset: ?>, #vta.sram<wgt>>)
        outs(%acc : memref<1x4x8x8x1x16xi32, #vta.sram<acc>>) {
    ^bb0(%xv: i8, %wv2: i8, %av: i32):
      %0 = arith.extsi %xv : i8 to i32
      %1 = arith.extsi %wv2 : i8 to i32
      %2 = arith.muli %0, %1 : i32
      %3 = arith.addi %av, %2 : i32
      linalg.yield %3 : i32
    }
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x4x8x8x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<1x4x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%in: i32, %out: i32):
    %0 = arith.shrsi %in, %c8 : i32
    linalg.yield %0 : i32
  }
  linalg.generic {indexing_maps = [#id, #bm, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bacc : memref<1x4x8x8x1x16xi32, #vta.sram<acc>>, memref<1x4x1x1x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<1x4x8x8x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%in: i32, %bi: i32, %out: i32):
    %0 = arith.addi %in, %bi : i32
    linalg.yield %0 : i32
  }
  return
}

// -----

// 3x3, stride 2 (maps as vta-pack writes them): rows step src by S * WT = 18, columns by S = 2.

// FOLD-LABEL: func.func @conv_s2(
// FOLD:         vta.uop_loop 4 dst 4 src 18 {
// FOLD-NEXT:      vta.uop_loop 4 dst 1 src 2 {
// FOLD-NEXT:        affine.for %{{.*}} = 0 to 2 {
// FOLD-NEXT:          affine.for %{{.*}} = 0 to 3 {
// FOLD-NEXT:            affine.for %{{.*}} = 0 to 3 {
// FOLD-NEXT:              affine.for %[[O:.*]] = 0 to 4 {
// FOLD-NEXT:                %[[D:.*]] = affine.apply affine_map<(d0) -> ((d0 * 16))> (%[[O]])
// FOLD-NEXT:                affine.apply affine_map<(d0, d1, d2)[s0] -> (((((d0 * 81) + (d1 * 9)) + d2) + s0))>
// FOLD-NEXT:                affine.apply
// FOLD-NEXT:                vta.gemm %{{.*}}[%[[D]]] +=
func.func @conv_s2() {
  %inp = memref.alloc() : memref<2x1x2x9x9x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<2x4x2x3x3x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() : memref<1x4x4x4x1x16xi32, #vta.sram<acc>>
  affine.for %ic = 0 to 2 {
    %c = affine.apply affine_map<(d0) -> (d0 mod 2)> (%ic)
    %iv = memref.subview %inp[%c, 0, 0, 0, 0, 0, 0] [1, 1, 2, 9, 9, 1, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x1x2x9x9x1x16xi8, #vta.sram<inp>> to memref<1x2x9x9x1x16xi8, strided<[2592, 1296, 144, 16, 16, 1], offset: ?>, #vta.sram<inp>>
    %wv = memref.subview %wgt[%c, 0, 0, 0, 0, 0, 0] [1, 4, 2, 3, 3, 16, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x4x2x3x3x16x16xi8, #vta.sram<wgt>> to memref<4x2x3x3x16x16xi8, strided<[4608, 2304, 768, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
    linalg.generic {indexing_maps = [
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6, d7, d9)>,
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>,
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>],
        iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction",
                          "reduction", "parallel", "parallel", "reduction"]}
        ins(%iv, %wv : memref<1x2x9x9x1x16xi8, strided<[2592, 1296, 144, 16, 16, 1], offset: ?>, #vta.sram<inp>>, memref<4x2x3x3x16x16xi8, strided<[4608, 2304, 768, 256, 16, 1], offset: ?>, #vta.sram<wgt>>) outs(%acc : memref<1x4x4x4x1x16xi32, #vta.sram<acc>>) {
    ^bb0(%x: i8, %w: i8, %a: i32):
      %0 = arith.extsi %x : i8 to i32
      %1 = arith.extsi %w : i8 to i32
      %2 = arith.muli %0, %1 : i32
      %3 = arith.addi %a, %2 : i32
      linalg.yield %3 : i32
    }
  }
  return
}

// -----

// 1x1, stride 1, no halo (WT = OW): the row and column levels merge into one level of TH * OW.

// FOLD-LABEL: func.func @conv_k1(
// FOLD:         vta.uop_loop 64 dst 1 src 1 {
// FOLD-NEXT:      affine.for %[[I:.*]] = 0 to 2 {
// FOLD-NEXT:        affine.for %[[O:.*]] = 0 to 4 {
// FOLD-NEXT:          %[[D:.*]] = affine.apply affine_map<(d0) -> ((d0 * 64))> (%[[O]])
// FOLD-NEXT:          %[[S:.*]] = affine.apply affine_map<(d0)[s0] -> (((d0 * 64) + s0))> (%[[I]])
// FOLD-NEXT:          %[[W:.*]] = affine.apply affine_map<(d0, d1)[s0] -> (((d0 + (d1 * 2)) + s0))> (%[[I]], %[[O]])
// FOLD-NEXT:          vta.gemm %{{.*}}[%[[D]]] += %{{.*}}[%[[S]]] * %{{.*}}[%[[W]]]
// FOLD-NEXT:        }
// FOLD-NEXT:      }
// FOLD-NEXT:    }
func.func @conv_k1() {
  %inp = memref.alloc() : memref<2x1x2x8x8x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<2x4x2x1x1x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() : memref<1x4x8x8x1x16xi32, #vta.sram<acc>>
  affine.for %ic = 0 to 2 {
    %c = affine.apply affine_map<(d0) -> (d0 mod 2)> (%ic)
    %iv = memref.subview %inp[%c, 0, 0, 0, 0, 0, 0] [1, 1, 2, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x1x2x8x8x1x16xi8, #vta.sram<inp>> to memref<1x2x8x8x1x16xi8, strided<[2048, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<inp>>
    %wv = memref.subview %wgt[%c, 0, 0, 0, 0, 0, 0] [1, 4, 2, 1, 1, 16, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x4x2x1x1x16x16xi8, #vta.sram<wgt>> to memref<4x2x1x1x16x16xi8, strided<[512, 256, 256, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
    linalg.generic {indexing_maps = [
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d4, d2 + d5, d3 + d6, d7, d9)>,
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>,
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>],
        iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction",
                          "reduction", "parallel", "parallel", "reduction"]}
        ins(%iv, %wv : memref<1x2x8x8x1x16xi8, strided<[2048, 1024, 128, 16, 16, 1], offset: ?>, #vta.sram<inp>>, memref<4x2x1x1x16x16xi8, strided<[512, 256, 256, 256, 16, 1], offset: ?>, #vta.sram<wgt>>) outs(%acc : memref<1x4x8x8x1x16xi32, #vta.sram<acc>>) {
    ^bb0(%x: i8, %w: i8, %a: i32):
      %0 = arith.extsi %x : i8 to i32
      %1 = arith.extsi %w : i8 to i32
      %2 = arith.muli %0, %1 : i32
      %3 = arith.addi %a, %2 : i32
      linalg.yield %3 : i32
    }
  }
  return
}

// -----

// TO = 2: with the output channels innermost every other micro-op would write the same
// element; the columns (OW = 8 >= 3) move into the list, innermost, and the rows stay a level.

// CHECK-LABEL: func.func @conv_to2(
// CHECK:         affine.for %{{.*}} = 0 to 8 {
// CHECK-NEXT:      affine.for %{{.*}} = 0 to 2 {
// CHECK-NEXT:        affine.for %{{.*}} = 0 to 3 {
// CHECK-NEXT:          affine.for %{{.*}} = 0 to 3 {
// CHECK-NEXT:            affine.for %{{.*}} = 0 to 2 {
// CHECK-NEXT:              affine.for %{{.*}} = 0 to 8 {
// CHECK:                   } {vta.uop_list}

// FOLD-LABEL: func.func @conv_to2(
// FOLD:         vta.uop_loop 8 dst 8 src 10 {
// FOLD-NEXT:      affine.for %{{.*}} = 0 to 2 {
// FOLD-NEXT:        affine.for %{{.*}} = 0 to 3 {
// FOLD-NEXT:          affine.for %{{.*}} = 0 to 3 {
// FOLD-NEXT:            affine.for %[[O:.*]] = 0 to 2 {
// FOLD-NEXT:              affine.for %[[OW:.*]] = 0 to 8 {
// FOLD-NEXT:                %[[D:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 64) + d1))> (%[[O]], %[[OW]])
// FOLD:                     vta.gemm %{{.*}}[%[[D]]] +=
func.func @conv_to2() {
  %inp = memref.alloc() : memref<2x1x2x10x10x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<2x2x2x3x3x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() : memref<1x2x8x8x1x16xi32, #vta.sram<acc>>
  affine.for %ic = 0 to 2 {
    %c = affine.apply affine_map<(d0) -> (d0 mod 2)> (%ic)
    %iv = memref.subview %inp[%c, 0, 0, 0, 0, 0, 0] [1, 1, 2, 10, 10, 1, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x1x2x10x10x1x16xi8, #vta.sram<inp>> to memref<1x2x10x10x1x16xi8, strided<[3200, 1600, 160, 16, 16, 1], offset: ?>, #vta.sram<inp>>
    %wv = memref.subview %wgt[%c, 0, 0, 0, 0, 0, 0] [1, 2, 2, 3, 3, 16, 16] [1, 1, 1, 1, 1, 1, 1] : memref<2x2x2x3x3x16x16xi8, #vta.sram<wgt>> to memref<2x2x3x3x16x16xi8, strided<[4608, 2304, 768, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
    linalg.generic {indexing_maps = [
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d4, d2 + d5, d3 + d6, d7, d9)>,
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>,
        affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>],
        iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction",
                          "reduction", "parallel", "parallel", "reduction"]}
        ins(%iv, %wv : memref<1x2x10x10x1x16xi8, strided<[3200, 1600, 160, 16, 16, 1], offset: ?>, #vta.sram<inp>>, memref<2x2x3x3x16x16xi8, strided<[4608, 2304, 768, 256, 16, 1], offset: ?>, #vta.sram<wgt>>) outs(%acc : memref<1x2x8x8x1x16xi32, #vta.sram<acc>>) {
    ^bb0(%x: i8, %w: i8, %a: i32):
      %0 = arith.extsi %x : i8 to i32
      %1 = arith.extsi %w : i8 to i32
      %2 = arith.muli %0, %1 : i32
      %3 = arith.addi %a, %2 : i32
      linalg.yield %3 : i32
    }
  }
  return
}

// -----

// The accumulator is a view with a host-computed offset into a larger buffer (1x3 kernel, TO = 3).

// FOLD-LABEL: func.func @conv_acc_view(
// FOLD-SAME:      %[[OFF:.*]]: index)
// FOLD:         vta.uop_loop 3 dst 4 src 6 {
// FOLD-NEXT:      vta.uop_loop 4 dst 1 src 1 {
// FOLD-NEXT:        affine.for %[[KW:.*]] = 0 to 3 {
// FOLD-NEXT:          affine.for %[[O:.*]] = 0 to 3 {
// FOLD-NEXT:            %[[D:.*]] = affine.apply affine_map<(d0)[s0] -> (((d0 * 12) + (s0 * 36)))> (%[[O]])[%[[OFF]]]
// FOLD-NEXT:            %[[W:.*]] = affine.apply affine_map<(d0, d1) -> ((d0 + (d1 * 3)))> (%[[KW]], %[[O]])
// FOLD-NEXT:            vta.gemm %{{.*}}[%[[D]]] += %{{.*}}[%[[KW]]] * %{{.*}}[%[[W]]]
func.func @conv_acc_view(%o: index) {
  %inp = memref.alloc() : memref<1x1x3x6x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<3x1x1x3x16x16xi8, #vta.sram<wgt>>
  %accb = memref.alloc() : memref<2x3x3x4x1x16xi32, #vta.sram<acc>>
  %acc = memref.subview %accb[%o, 0, 0, 0, 0, 0] [1, 3, 3, 4, 1, 16] [1, 1, 1, 1, 1, 1] : memref<2x3x3x4x1x16xi32, #vta.sram<acc>> to memref<1x3x3x4x1x16xi32, strided<[576, 192, 64, 16, 16, 1], offset: ?>, #vta.sram<acc>>
  linalg.generic {indexing_maps = [
      affine_map<(b, o, oh, ow, i, kh, kw, bb, oo, ii) -> (b, i, oh + kh, ow + kw, bb, ii)>,
      affine_map<(b, o, oh, ow, i, kh, kw, bb, oo, ii) -> (o, i, kh, kw, oo, ii)>,
      affine_map<(b, o, oh, ow, i, kh, kw, bb, oo, ii) -> (b, o, oh, ow, bb, oo)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel", "reduction"]}
      ins(%inp, %wgt : memref<1x1x3x6x1x16xi8, #vta.sram<inp>>, memref<3x1x1x3x16x16xi8, #vta.sram<wgt>>)
      outs(%acc : memref<1x3x3x4x1x16xi32, strided<[576, 192, 64, 16, 16, 1], offset: ?>, #vta.sram<acc>>) {
  ^bb0(%x: i8, %w: i8, %a: i32):
    %0 = arith.extsi %x : i8 to i32
    %1 = arith.extsi %w : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %a, %2 : i32
    linalg.yield %3 : i32
  }
  return
}
