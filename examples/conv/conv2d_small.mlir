// Small ResNet-style convolutions with the epilogue of docs/performance.md §4.2:
// y = int8(max(min((conv2d(x, w) >> 8) + bias, 127), 0)) per output channel.
// @conv3x3: 1×32×8×8 data, 32 output channels, 3×3 kernel, stride 1, no padding (valid);
// @conv3x3_s2: the same as a linalg.generic with stride 2.
// Lower with: vta-opt examples/conv/conv2d_small.mlir -p vta-pack

func.func @conv3x3(%x: memref<1x32x8x8xi8>, %w: memref<32x32x3x3xi8>, %bias: memref<32xi32>,
                   %y: memref<1x32x6x6xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x32x6x6xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x32x6x6xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x32x8x8xi8>, memref<32x32x3x3xi8>) outs(%acc : memref<1x32x6x6xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<1x32x6x6xi32>, memref<32xi32>) outs(%y : memref<1x32x6x6xi8>) {
  ^bb0(%v: i32, %b: i32, %out: i8):
    %c8 = arith.constant 8 : i32
    %zero = arith.constant 0 : i32
    %c127 = arith.constant 127 : i32
    %s = arith.shrsi %v, %c8 : i32
    %a = arith.addi %s, %b : i32
    %hi = arith.minsi %a, %c127 : i32
    %lo = arith.maxsi %hi, %zero : i32
    %t = arith.trunci %lo : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<1x32x6x6xi32>
  return
}

func.func @conv3x3_s2(%x: memref<1x32x8x8xi8>, %w: memref<32x32x3x3xi8>, %bias: memref<32xi32>,
                      %y: memref<1x32x3x3xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x32x3x3xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x32x3x3xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x32x8x8xi8>, memref<32x32x3x3xi8>) outs(%acc : memref<1x32x3x3xi32>) {
  ^bb0(%a: i8, %b: i8, %sum: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %s = arith.addi %sum, %p : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<1x32x3x3xi32>, memref<32xi32>) outs(%y : memref<1x32x3x3xi8>) {
  ^bb0(%v: i32, %b: i32, %out: i8):
    %c8 = arith.constant 8 : i32
    %zero = arith.constant 0 : i32
    %c127 = arith.constant 127 : i32
    %s = arith.shrsi %v, %c8 : i32
    %a = arith.addi %s, %b : i32
    %hi = arith.minsi %a, %c127 : i32
    %lo = arith.maxsi %hi, %zero : i32
    %t = arith.trunci %lo : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<1x32x3x3xi32>
  return
}
