// ResNet-18 layer C8 (docs/performance.md §4.2) without its padding: 1×256×14×14 data, 256 output
// channels, 3×3 kernel, stride 1, a valid convolution (12×12 output), then the §4.2 epilogue
// y = int8(max(min((conv2d(x, w) >> 8) + bias, 127), 0)).
// Lower with: vta-opt examples/conv/conv2d_c8.mlir -p vta-pack

func.func @conv2d_c8(%x: memref<1x256x14x14xi8>, %w: memref<256x256x3x3xi8>,
                     %bias: memref<256xi32>, %y: memref<1x256x12x12xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x256x12x12xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x256x12x12xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x256x14x14xi8>, memref<256x256x3x3xi8>)
      outs(%acc : memref<1x256x12x12xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<1x256x12x12xi32>, memref<256xi32>)
      outs(%y : memref<1x256x12x12xi8>) {
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
  memref.dealloc %acc : memref<1x256x12x12xi32>
  return
}
