// vtaisa.arg with a `window` (an argument the host packs as its convolution patches): a
// convolution with 3 input channels folds its 3x3 window into the reduction (vta-pack), and the
// lowered program prints its data and kernel arguments with their windows, and parses back.

// RUN: vta-opt %s -p vta-to-isa | filecheck %s
// RUN: vta-opt %s -p vta-to-isa | vta-opt | filecheck %s

// CHECK: vtaisa.arg "x" in int8 [1, 3, 8, 8] window [3, 3, 1, 1, 1, 1, 1, 1] padded [1, 32, 8, 8] split [1, 1, 2, 16, 8, 8] perm [0, 2, 4, 5, 1, 3] packed int8 segment "x"
// CHECK: vtaisa.arg "w" in int8 [16, 3, 3, 3] window [3, 3, 1, 1, 0, 0, 0, 0] padded [16, 32, 1, 1] split [1, 16, 2, 16, 1, 1] perm [0, 2, 4, 5, 1, 3] packed int8 segment "w"
// CHECK: vtaisa.arg "bias" in int32 [16] repeat [1] padded [16]
// ResNet-18 s (docs/performance.md §4.2): 1x3x8x8 data, 16 output channels, 3x3 kernel, pad 1,1, stride 1,1; y = int8(max(min((conv2d(x, w) >> 8) + bias, 127), 0))
func.func @conv(%x: memref<1x3x8x8xi8>, %w: memref<16x3x3x3xi8>, %bias: memref<16xi32>, %y: memref<1x16x8x8xi8>) {
  %c0_i8 = arith.constant 0 : i8
  %xp = memref.alloc() : memref<1x3x10x10xi8>
  linalg.fill ins(%c0_i8 : i8) outs(%xp : memref<1x3x10x10xi8>)
  %xin = memref.subview %xp[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x10xi8> to memref<1x3x8x8xi8, strided<[300, 100, 10, 1], offset: 11>>
  memref.copy %x, %xin : memref<1x3x8x8xi8> to memref<1x3x8x8xi8, strided<[300, 100, 10, 1], offset: 11>>
  %c0_i32 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x16x8x8xi32>
  linalg.fill ins(%c0_i32 : i32) outs(%acc : memref<1x16x8x8xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : memref<1x3x10x10xi8>, memref<16x3x3x3xi8>) outs(%acc : memref<1x16x8x8xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<1x16x8x8xi32>, memref<16xi32>) outs(%y : memref<1x16x8x8xi8>) {
  ^bb0(%v: i32, %bv: i32, %out: i8):
    %c8 = arith.constant 8 : i32
    %zero = arith.constant 0 : i32
    %c127 = arith.constant 127 : i32
    %sh = arith.shrsi %v, %c8 : i32
    %biased = arith.addi %sh, %bv : i32
    %hi = arith.minsi %biased, %c127 : i32
    %lo = arith.maxsi %hi, %zero : i32
    %t = arith.trunci %lo : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<1x16x8x8xi32>
  memref.dealloc %xp : memref<1x3x10x10xi8>
  return
}

