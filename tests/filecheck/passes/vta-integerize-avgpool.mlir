// vta-integerize: average pools as torch-mlir writes them (on tensors, bufferized first): the
// dequantized reals padded with 0 (the zero point), a pooling_nchw_sum, then a divf by the
// window size (count_include_pad=1) or by the count of the window's taps inside the image that
// the body computes from linalg.index (count_include_pad=0: 4 at the corners, 6 at the edges,
// 9 inside for 3×3 padded by 1 on 4×4), and the quantize. Each becomes the average pool of
// docs/onnx.md §4.7: the window sum of the codes padded with the zero point, the bias
// −K·zx + 2^(s1−1), one multiplier, or an OH × OW i32 constant of them read per position
// ((d0, d1, d2, d3) -> (d2, d3)).
// Here sx = sy, so M = 1/9 (29127 / 2^18) and, per position, 1/4, 1/6 and 1/9 (m / 2^22).

// RUN: vta-opt %s -p 'vta-bufferize,vta-integerize{requant=fixed-point}' | filecheck %s

// CHECK:      builtin.module attributes {vta.requant = {mode = "fixed-point", max_error_steps = {{.*}}, layers = 2 : i64}}
// CHECK-NEXT:   memref.global "private" constant @avgpool1_m : memref<4x4xi32> = dense<{{\[}}[1048576, 699051, 699051, 1048576], [699051, 466034, 466034, 699051], [699051, 466034, 466034, 699051], [1048576, 699051, 699051, 1048576]]>
// CHECK:        func.func @pools(%input: memref<1x16x4x4xi8> {vta.quant = {scale = 0.05000000074505806 : f64, zero_point = 0 : i64}}, %output: memref<1x16x4x4xi8> {vta.quant = {scale = 0.05000000074505806 : f64, zero_point = 0 : i64}, vta.result = 0 : i64}) {
// CHECK:          linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%avgpool0_xp, %avgpool0_win : memref<1x16x6x6xi8>, memref<3x3xi8>) outs(%avgpool0_acc : memref<1x16x4x4xi32>)
// CHECK:            %k4 = arith.constant 29127 : i32
// CHECK-NEXT:       %v2 = arith.muli %v1, %k4 : i32
// CHECK-NEXT:       %k6 = arith.constant 17 : i32
// CHECK:          linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%avgpool1_xp, %avgpool1_win : memref<1x16x6x6xi8>, memref<3x3xi8>) outs(%avgpool1_acc : memref<1x16x4x4xi32>)
// CHECK:          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK:            %v2_1 = arith.muli %v1_1, %mp : i32
// CHECK-NEXT:       %k5 = arith.constant 21 : i32
// CHECK-NOT:    f32

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @pools(%arg0: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %s = arith.constant 5.000000e-02 : f32
  %z = arith.constant 0.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %nine = arith.constant 9.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %c2_i64 = arith.constant 2 : i64
  %c4_i64 = arith.constant 4 : i64
  %c5_i64 = arith.constant 5 : i64
  %codes_init = tensor.empty() : tensor<1x16x4x4xi8>
  %reals_init = tensor.empty() : tensor<1x16x4x4xf32>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x16x4x4xf32>) outs(%codes_init : tensor<1x16x4x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  } -> tensor<1x16x4x4xi8>
  %dq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<1x16x4x4xi8>) outs(%reals_init : tensor<1x16x4x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %2 = arith.mulf %0, %s : f32
    linalg.yield %2 : f32
  } -> tensor<1x16x4x4xf32>
  %padded = tensor.pad %dq low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x4x4xf32> to tensor<1x16x6x6xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%reals_init : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %sum = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %window : tensor<1x16x6x6xf32>, tensor<3x3xf32>) outs(%filled : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %avg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<1x16x4x4xf32>) outs(%reals_init : tensor<1x16x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %nine : f32
    linalg.yield %0 : f32
  } -> tensor<1x16x4x4xf32>
  %q1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%avg : tensor<1x16x4x4xf32>) outs(%codes_init : tensor<1x16x4x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  } -> tensor<1x16x4x4xi8>
  %dq1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q1 : tensor<1x16x4x4xi8>) outs(%reals_init : tensor<1x16x4x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %2 = arith.mulf %0, %s : f32
    linalg.yield %2 : f32
  } -> tensor<1x16x4x4xf32>
  %padded1 = tensor.pad %dq1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x4x4xf32> to tensor<1x16x6x6xf32>
  %sum1 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded1, %window : tensor<1x16x6x6xf32>, tensor<3x3xf32>) outs(%filled : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %avg1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum1 : tensor<1x16x4x4xf32>) outs(%reals_init : tensor<1x16x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    // rows inside: min(h + 2, 5, 4) − max(1 − h, 0) − (h − 1); columns alike
    %h = linalg.index 2 : index
    %hi64 = arith.index_cast %h : index to i64
    %hstart = arith.subi %hi64, %c1_i64 : i64
    %hend0 = arith.addi %hi64, %c2_i64 : i64
    %hend1 = arith.minsi %hend0, %c5_i64 : i64
    %hend = arith.minsi %hend1, %c4_i64 : i64
    %hlow0 = arith.subi %c1_i64, %hi64 : i64
    %hlow = arith.maxsi %hlow0, %c0_i64 : i64
    %hspan = arith.subi %hend, %hstart : i64
    %hrows0 = arith.subi %hspan, %hlow : i64
    %hrows = arith.maxsi %hrows0, %c0_i64 : i64
    %w = linalg.index 3 : index
    %wi64 = arith.index_cast %w : index to i64
    %wstart = arith.subi %wi64, %c1_i64 : i64
    %wend0 = arith.addi %wi64, %c2_i64 : i64
    %wend1 = arith.minsi %wend0, %c5_i64 : i64
    %wend = arith.minsi %wend1, %c4_i64 : i64
    %wlow0 = arith.subi %c1_i64, %wi64 : i64
    %wlow = arith.maxsi %wlow0, %c0_i64 : i64
    %wspan = arith.subi %wend, %wstart : i64
    %wcols0 = arith.subi %wspan, %wlow : i64
    %wcols = arith.maxsi %wcols0, %c0_i64 : i64
    %count = arith.muli %hrows, %wcols : i64
    %countf = arith.sitofp %count : i64 to f32
    %0 = arith.divf %in, %countf : f32
    linalg.yield %0 : f32
  } -> tensor<1x16x4x4xf32>
  %q2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%avg1 : tensor<1x16x4x4xf32>) outs(%codes_init : tensor<1x16x4x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  } -> tensor<1x16x4x4xi8>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q2 : tensor<1x16x4x4xi8>) outs(%reals_init : tensor<1x16x4x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %2 = arith.mulf %0, %s : f32
    linalg.yield %2 : f32
  } -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}
