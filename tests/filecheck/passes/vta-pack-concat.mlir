// vta-pack on concatenations along channels (passes/pack/concat.py): layers write channel
// slices of one buffer, each slice a memref.subview of the packed tensor at its channel block,
// which the layer's output DMA then stores into. A memref.copy of a layer's own buffer into a
// slice is folded: that layer writes the slice (no copy on VTA). Parts that do not start at
// whole blocks are written at whole blocks of a wider buffer (%cat_blocks), and a 1×1
// convolution by a 0/1 kernel (@cat_select, packed at compile time) selects the channels of
// the concatenation. A concatenation into an argument is built in a buffer of its own and
// copied out. A part of a buffer along other dimensions than the channels is diagnosed.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack | filecheck %s

// CHECK-LABEL: func.func @neck(
// CHECK:         %[[CAT:.*]] = memref.alloc() : memref<1x3x4x4x1x16xi8>
// CHECK:         %[[S2:.*]] = memref.subview %[[CAT]][0, 2, 0, 0, 0, 0] [1, 1, 4, 4, 1, 16] [1, 1, 1, 1, 1, 1] : memref<1x3x4x4x1x16xi8> to memref<1x1x4x4x1x16xi8, strided<[768, 256, 64, 16, 16, 1], offset: 512>>
// CHECK:         %[[S1:.*]] = memref.subview %[[CAT]][0, 0, 0, 0, 0, 0] [1, 2, 4, 4, 1, 16] [1, 1, 1, 1, 1, 1] : memref<1x3x4x4x1x16xi8> to memref<1x2x4x4x1x16xi8, strided<[768, 256, 64, 16, 16, 1]>>
// CHECK-NOT:     memref.copy
// CHECK:         outs(%[[S1]] : memref<1x2x4x4x1x16xi8, strided<[768, 256, 64, 16, 16, 1]>>)
// CHECK:         outs(%[[S2]] : memref<1x1x4x4x1x16xi8, strided<[768, 256, 64, 16, 16, 1], offset: 512>>)
// CHECK:         ins(%[[CAT]], %{{.*}} : memref<1x3x4x4x1x16xi8>, memref<1x3x1x1x16x16xi8>)
func.func @neck(%x: memref<1x16x4x4xi8>, %w1: memref<32x16x1x1xi8>, %w2: memref<16x16x1x1xi8>,
                %w3: memref<8x48x1x1xi8>, %y: memref<1x8x4x4xi8>) {
  %c0 = arith.constant 0 : i32
  %cat = memref.alloc() : memref<1x48x4x4xi8>
  %a = memref.alloc() : memref<1x32x4x4xi8>
  %acc1 = memref.alloc() : memref<1x32x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc1 : memref<1x32x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : memref<1x16x4x4xi8>, memref<32x16x1x1xi8>) outs(%acc1 : memref<1x32x4x4xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc1 : memref<1x32x4x4xi32>) outs(%a : memref<1x32x4x4xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c5 = arith.constant 5 : i32
    %s = arith.shrsi %v, %c5 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  %s1 = memref.subview %cat[0, 0, 0, 0] [1, 32, 4, 4] [1, 1, 1, 1] : memref<1x48x4x4xi8> to memref<1x32x4x4xi8, strided<[768, 16, 4, 1]>>
  memref.copy %a, %s1 : memref<1x32x4x4xi8> to memref<1x32x4x4xi8, strided<[768, 16, 4, 1]>>
  %acc2 = memref.alloc() : memref<1x16x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<1x16x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w2 : memref<1x16x4x4xi8>, memref<16x16x1x1xi8>) outs(%acc2 : memref<1x16x4x4xi32>)
  %s2 = memref.subview %cat[0, 32, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : memref<1x48x4x4xi8> to memref<1x16x4x4xi8, strided<[768, 16, 4, 1], offset: 512>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc2 : memref<1x16x4x4xi32>) outs(%s2 : memref<1x16x4x4xi8, strided<[768, 16, 4, 1], offset: 512>>) {
  ^bb0(%v: i32, %o: i8):
    %c6 = arith.constant 6 : i32
    %s = arith.shrsi %v, %c6 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  %acc3 = memref.alloc() : memref<1x8x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc3 : memref<1x8x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%cat, %w3 : memref<1x48x4x4xi8>, memref<8x48x1x1xi8>) outs(%acc3 : memref<1x8x4x4xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc3 : memref<1x8x4x4xi32>) outs(%y : memref<1x8x4x4xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c7 = arith.constant 7 : i32
    %s = arith.shrsi %v, %c7 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// CHECK-LABEL: func.func @neck_unaligned(
// CHECK:         %[[CAT:.*]] = memref.alloc() : memref<1x3x4x4x1x16xi8>
// CHECK:         %[[WIDE:.*]] = memref.alloc() : memref<1x3x4x4x1x16xi8>
// CHECK:         %[[S2:.*]] = memref.subview %[[WIDE]][0, 2, 0, 0, 0, 0] [1, 1, 4, 4, 1, 16]
// CHECK:         %[[S1:.*]] = memref.subview %[[WIDE]][0, 0, 0, 0, 0, 0] [1, 2, 4, 4, 1, 16]
// CHECK:         %[[SEL:.*]] = memref.get_global @cat_select_packed : memref<3x3x1x1x16x16xi8>
// CHECK:         outs(%[[S1]] :
// CHECK:         outs(%[[S2]] :
// CHECK:         ins(%[[WIDE]], %[[SEL]] : memref<1x3x4x4x1x16xi8>, memref<3x3x1x1x16x16xi8>)
// CHECK:         outs(%[[CAT]] : memref<1x3x4x4x1x16xi8>)
// CHECK:         ins(%[[CAT]], %{{.*}} : memref<1x3x4x4x1x16xi8>, memref<1x3x1x1x16x16xi8>)
func.func @neck_unaligned(%x: memref<1x16x4x4xi8>, %w1: memref<24x16x1x1xi8>, %w2: memref<16x16x1x1xi8>,
                %w3: memref<8x40x1x1xi8>, %y: memref<1x8x4x4xi8>) {
  %c0 = arith.constant 0 : i32
  %cat = memref.alloc() : memref<1x40x4x4xi8>
  %a = memref.alloc() : memref<1x24x4x4xi8>
  %acc1 = memref.alloc() : memref<1x24x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc1 : memref<1x24x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : memref<1x16x4x4xi8>, memref<24x16x1x1xi8>) outs(%acc1 : memref<1x24x4x4xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc1 : memref<1x24x4x4xi32>) outs(%a : memref<1x24x4x4xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c5 = arith.constant 5 : i32
    %s = arith.shrsi %v, %c5 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  %s1 = memref.subview %cat[0, 0, 0, 0] [1, 24, 4, 4] [1, 1, 1, 1] : memref<1x40x4x4xi8> to memref<1x24x4x4xi8, strided<[640, 16, 4, 1]>>
  memref.copy %a, %s1 : memref<1x24x4x4xi8> to memref<1x24x4x4xi8, strided<[640, 16, 4, 1]>>
  %acc2 = memref.alloc() : memref<1x16x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<1x16x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w2 : memref<1x16x4x4xi8>, memref<16x16x1x1xi8>) outs(%acc2 : memref<1x16x4x4xi32>)
  %s2 = memref.subview %cat[0, 24, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : memref<1x40x4x4xi8> to memref<1x16x4x4xi8, strided<[640, 16, 4, 1], offset: 384>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc2 : memref<1x16x4x4xi32>) outs(%s2 : memref<1x16x4x4xi8, strided<[640, 16, 4, 1], offset: 384>>) {
  ^bb0(%v: i32, %o: i8):
    %c6 = arith.constant 6 : i32
    %s = arith.shrsi %v, %c6 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  %acc3 = memref.alloc() : memref<1x8x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc3 : memref<1x8x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%cat, %w3 : memref<1x40x4x4xi8>, memref<8x40x1x1xi8>) outs(%acc3 : memref<1x8x4x4xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc3 : memref<1x8x4x4xi32>) outs(%y : memref<1x8x4x4xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c7 = arith.constant 7 : i32
    %s = arith.shrsi %v, %c7 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// CHECK-LABEL: func.func @concat_output(
// CHECK:         %[[CAT:.*]] = memref.alloc() : memref<1x2x4x4x1x16xi8>
// CHECK:         %[[S0:.*]] = memref.subview %[[CAT]][0, 0, 0, 0, 0, 0] [1, 1, 4, 4, 1, 16]
// CHECK:         %[[S1:.*]] = memref.subview %[[CAT]][0, 1, 0, 0, 0, 0] [1, 1, 4, 4, 1, 16]
// CHECK:         outs(%[[S0]] :
// CHECK:         outs(%[[S1]] :
// CHECK:         outs(%y : memref<1x32x1x16xi8>)
func.func @concat_output(%x: memref<1x16x4x4xi8>, %w_p0: memref<16x16x1x1xi8>, %w_p1: memref<8x16x1x1xi8>, %y: memref<1x24x4x4xi8>) {
  %c0 = arith.constant 0 : i32
  %s0 = memref.subview %y[0, 0, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : memref<1x24x4x4xi8> to memref<1x16x4x4xi8, strided<[384, 16, 4, 1], offset: 0>>
  %acc_p0 = memref.alloc() : memref<1x16x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc_p0 : memref<1x16x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w_p0 : memref<1x16x4x4xi8>, memref<16x16x1x1xi8>) outs(%acc_p0 : memref<1x16x4x4xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc_p0 : memref<1x16x4x4xi32>) outs(%s0 : memref<1x16x4x4xi8, strided<[384, 16, 4, 1], offset: 0>>) {
  ^bb0(%v: i32, %o: i8):
    %cs = arith.constant 5 : i32
    %s = arith.shrsi %v, %cs : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  %s1 = memref.subview %y[0, 16, 0, 0] [1, 8, 4, 4] [1, 1, 1, 1] : memref<1x24x4x4xi8> to memref<1x8x4x4xi8, strided<[384, 16, 4, 1], offset: 256>>
  %acc_p1 = memref.alloc() : memref<1x8x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc_p1 : memref<1x8x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w_p1 : memref<1x16x4x4xi8>, memref<8x16x1x1xi8>) outs(%acc_p1 : memref<1x8x4x4xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc_p1 : memref<1x8x4x4xi32>) outs(%s1 : memref<1x8x4x4xi8, strided<[384, 16, 4, 1], offset: 256>>) {
  ^bb0(%v: i32, %o: i8):
    %cs = arith.constant 6 : i32
    %s = arith.shrsi %v, %cs : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @concat_rows(%x: memref<1x16x4x4xi8>, %y: memref<1x16x8x4xi8>) {
  %cat = memref.alloc() : memref<1x16x8x4xi8>
  // expected-error @+1 {{is a part of %cat other than a slice of its channels, which a layer writes: VTA concatenates NCHW tensors along the channels (a view with offsets 0 but along dimension 1, the other dimensions whole, unit strides)}}
  %s0 = memref.subview %cat[0, 0, 4, 0] [1, 16, 4, 4] [1, 1, 1, 1] : memref<1x16x8x4xi8> to memref<1x16x4x4xi8, strided<[512, 32, 4, 1], offset: 16>>
  memref.copy %x, %s0 : memref<1x16x4x4xi8> to memref<1x16x4x4xi8, strided<[512, 32, 4, 1], offset: 16>>
  memref.copy %cat, %y : memref<1x16x8x4xi8> to memref<1x16x8x4xi8>
  return
}
