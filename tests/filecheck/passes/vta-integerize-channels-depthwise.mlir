// vta-integerize: a depthwise convolution with per-channel weight scales as torch-mlir writes it
// (tests/data/torch_mlir/mobilenet_block_pc.mlir has it inside an inverted residual block) and
// vta-bufferize leaves it: the int8 C×1×KH×KW kernel dequantized by a generic reading one
// scale and zero point per channel, collapsed to C×KH×KW, a float
// linalg.depthwise_conv_2d_nchw_chw of the zero-padded dequantized input onto the broadcast
// float bias, the float quantization. It becomes the integer depthwise layer: the int8 kernel
// as C×KH×KW codes and per-channel fixed-point multipliers fitted to the accumulator's range
// (docs/onnx.md §3), so that the epilogue multiplies first: the multipliers and the bias
// folded with them (bias·m + K) are vectors read along the channels (d1), then one shift and
// the int8 clip, with no float left.

// RUN: vta-opt %s -p 'vta-integerize{requant=fixed-point}' | filecheck %s

// CHECK:      builtin.module attributes {vta.requant = {mode = "fixed-point", max_error_steps = {{.*}} : f64, layers = 1 : i64}}
// CHECK:        memref.global "private" constant @conv0_w : memref<4x3x3xi8> = dense<{{\[}}{{\[}}[12, -13, 62], [10, -52, 35], [127, 92, -69]],
// CHECK:        memref.global "private" constant @conv0_m : memref<4xi32> = dense<[13115, 23384, 13743, 10154]>
// CHECK:        memref.global "private" constant @conv0_b : memref<4xi32> = dense<[-26151934, -4353128, 33660715, 63170748]>
// CHECK:        func.func @dw(%input: memref<1x4x4x4xi8> {vta.quant = {scale = {{.*}} : f64, zero_point = 0 : i64}}, %output: memref<1x4x4x4xi8>
// CHECK:          linalg.fill ins(%c0_i8 : i8) outs(%conv0_xp : memref<1x4x6x6xi8>)
// CHECK:          linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%conv0_xp, %conv0_w : memref<1x4x6x6xi8>, memref<4x3x3xi8>) outs(%conv0_acc : memref<1x4x4x4xi32>)
// CHECK-NEXT:     linalg.generic
// CHECK-SAME:         ins(%conv0_acc, %conv0_m, %conv0_b : memref<1x4x4x4xi32>, memref<4xi32>, memref<4xi32>) outs(%output : memref<1x4x4x4xi8>)
// CHECK-NEXT:     ^bb0(%a: i32, %mc: i32, %b: i32, %o: i8):
// CHECK-NEXT:       %v0 = arith.muli %a, %mc : i32
// CHECK-NEXT:       %v1 = arith.addi %v0, %b : i32
// CHECK-NEXT:       %k2 = arith.constant 21 : i32
// CHECK-NEXT:       %v2 = arith.shrsi %v1, %k2 : i32
// CHECK-NOT:    f32

builtin.module {
  memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[0.000157630537, 0.000281055109, 0.000165181264, 0.00012204497]>
  memref.global "private" constant @__constant_4xf32_1 : memref<4xf32> = dense<[0.00513385842, 0.00915366504, 0.0053797774, 0.0039748745]>
  memref.global "private" constant @__constant_4xi32 : memref<4xi32> = dense<[-2074, -231, 2373, 6118]>
  memref.global "private" constant @__constant_4xi32_1 : memref<4xi32> = dense<0>
  memref.global "private" constant @__constant_4x1x3x3xi8 : memref<4x1x3x3xi8> = dense<[[[[12, -13, 62], [10, -52, 35], [127, 92, -69]]], [[[-69, -34, 2], [-127, -12, -68], [-40, -30, -17]]], [[[38, 97, -12], [127, -62, 33], [84, 9, -69]]], [[[-116, -58, 28], [-127, -26, -20], [68, 27, 45]]]]>
  memref.global "private" constant @__constant_4xi8 : memref<4xi8> = dense<0>
  func.func @dw(%arg0: memref<1x4x4x4xf32>, %result0: memref<1x4x4x4xf32> {vta.result = 0 : i64}) {
    %cst = arith.constant -1.280000e+02 : f32
    %cst_1 = arith.constant 1.270000e+02 : f32
    %cst_2 = arith.constant 0.000000e+00 : f32
    %cst_3 = memref.get_global @__constant_4xf32 : memref<4xf32>
    %cst_4 = memref.get_global @__constant_4xf32_1 : memref<4xf32>
    %cst_5 = arith.constant 0.0307041071 : f32
    %cst_6 = arith.constant 0.025205778 : f32
    %cst_7 = memref.get_global @__constant_4xi32 : memref<4xi32>
    %cst_8 = memref.get_global @__constant_4xi32_1 : memref<4xi32>
    %cst_9 = memref.get_global @__constant_4x1x3x3xi8 : memref<4x1x3x3xi8>
    %cst_10 = memref.get_global @__constant_4xi8 : memref<4xi8>
    %0 = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%cst_7, %cst_3, %cst_8 : memref<4xi32>, memref<4xf32>, memref<4xi32>) outs(%0 : memref<4xf32>) {
    ^bb0(%in: i32, %in_1: f32, %in_2: i32, %out: f32):
      %1 = arith.extsi %in_2 : i32 to i64
      %2 = arith.extsi %in : i32 to i64
      %3 = arith.subi %2, %1 : i64
      %4 = arith.sitofp %3 : i64 to f32
      %5 = arith.mulf %4, %in_1 : f32
      linalg.yield %5 : f32
    }
    %6 = memref.alloc() : memref<4x1x3x3xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_9, %cst_4, %cst_10 : memref<4x1x3x3xi8>, memref<4xf32>, memref<4xi8>) outs(%6 : memref<4x1x3x3xf32>) {
    ^bb0(%in_3: i8, %in_4: f32, %in_5: i8, %out_1: f32):
      %7 = arith.extsi %in_5 : i8 to i16
      %8 = arith.extsi %in_3 : i8 to i16
      %9 = arith.subi %8, %7 : i16
      %10 = arith.sitofp %9 : i16 to f32
      %11 = arith.mulf %10, %in_4 : f32
      linalg.yield %11 : f32
    }
    %12 = memref.alloc() : memref<1x4x4x4xi8>
    %13 = memref.alloc() : memref<1x4x4x4xi8>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x4x4x4xf32>) outs(%12 : memref<1x4x4x4xi8>) {
    ^bb0(%in_6: f32, %out_2: i8):
      %14 = arith.divf %in_6, %cst_5 : f32
      %15 = math.roundeven %14 : f32
      %16 = arith.addf %15, %cst_2 : f32
      %17 = arith.maximumf %16, %cst : f32
      %18 = arith.minimumf %17, %cst_1 : f32
      %19 = arith.fptosi %18 : f32 to i8
      linalg.yield %19 : i8
    }
    %20 = memref.alloc() : memref<1x4x4x4xf32>
    %21 = memref.alloc() : memref<1x4x4x4xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12 : memref<1x4x4x4xi8>) outs(%20 : memref<1x4x4x4xf32>) {
    ^bb0(%in_7: i8, %out_3: f32):
      %22 = arith.sitofp %in_7 : i8 to f32
      %23 = arith.mulf %22, %cst_5 : f32
      linalg.yield %23 : f32
    }
    %padded = memref.alloc() : memref<1x4x6x6xf32>
    linalg.fill ins(%cst_2 : f32) outs(%padded : memref<1x4x6x6xf32>)
    %padded_interior = memref.subview %padded[0, 0, 1, 1] [1, 4, 4, 4] [1, 1, 1, 1] : memref<1x4x6x6xf32> to memref<1x4x4x4xf32, strided<[144, 36, 6, 1], offset: 7>>
    memref.copy %20, %padded_interior : memref<1x4x4x4xf32> to memref<1x4x4x4xf32, strided<[144, 36, 6, 1], offset: 7>>
    linalg.broadcast ins(%0 : memref<4xf32>) outs(%21 : memref<1x4x4x4xf32>) dimensions = [0, 2, 3]
    %collapsed = memref.collapse_shape %6 [[0, 1], [2], [3]] : memref<4x1x3x3xf32> into memref<4x3x3xf32>
    linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %collapsed : memref<1x4x6x6xf32>, memref<4x3x3xf32>) outs(%21 : memref<1x4x4x4xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21 : memref<1x4x4x4xf32>) outs(%13 : memref<1x4x4x4xi8>) {
    ^bb0(%in_8: f32, %out_4: i8):
      %24 = arith.divf %in_8, %cst_6 : f32
      %25 = math.roundeven %24 : f32
      %26 = arith.addf %25, %cst_2 : f32
      %27 = arith.maximumf %26, %cst : f32
      %28 = arith.minimumf %27, %cst_1 : f32
      %29 = arith.fptosi %28 : f32 to i8
      linalg.yield %29 : i8
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : memref<1x4x4x4xi8>) outs(%result0 : memref<1x4x4x4xf32>) {
    ^bb0(%in_9: i8, %out_5: f32):
      %30 = arith.sitofp %in_9 : i8 to f32
      %31 = arith.mulf %30, %cst_6 : f32
      linalg.yield %31 : f32
    }
    func.return
  }
}
