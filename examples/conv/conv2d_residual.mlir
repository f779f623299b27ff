// A ResNet basic block's tail: 1×1 convolution, requantization shift, per-channel bias, the
// residual (the block's int8 shortcut) added, ReLU and clip to int8:
// y = int8(max(min((conv2d(x, w) >> 8) + bias + r, 127), 0)).
// @conv1x1_residual: 1×32×7×7 data, 32 output channels, 1×1 kernel, stride 1; the residual r
// is an int8 tensor shaped like the output.
// Lower with: vta-opt examples/conv/conv2d_residual.mlir -p vta-pack

func.func @conv1x1_residual(%x: memref<1x32x7x7xi8>, %w: memref<32x32x1x1xi8>,
                            %bias: memref<32xi32>, %r: memref<1x32x7x7xi8>,
                            %y: memref<1x32x7x7xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x32x7x7xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x32x7x7xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x32x7x7xi8>, memref<32x32x1x1xi8>) outs(%acc : memref<1x32x7x7xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias, %r : memref<1x32x7x7xi32>, memref<32xi32>, memref<1x32x7x7xi8>)
      outs(%y : memref<1x32x7x7xi8>) {
  ^bb0(%v: i32, %b: i32, %res: i8, %out: i8):
    %c8 = arith.constant 8 : i32
    %zero = arith.constant 0 : i32
    %c127 = arith.constant 127 : i32
    %s = arith.shrsi %v, %c8 : i32
    %a = arith.addi %s, %b : i32
    %re = arith.extsi %res : i8 to i32
    %sum = arith.addi %a, %re : i32
    %hi = arith.minsi %sum, %c127 : i32
    %lo = arith.maxsi %hi, %zero : i32
    %t = arith.trunci %lo : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<1x32x7x7xi32>
  return
}
