// vta-integerize: a quantized layer written with float requantization, as torch-mlir writes it
// for a QDQ model and vta-bufferize leaves it (a Gemm with a bias: quantize of the float input,
// quantized_matmul with the zero points as operands onto the broadcast bias, sitofp and mulf of
// the accumulator, quantize, dequantize into the result), becomes the integer layer of
// docs/onnx.md §4.1: the matrix product on codes and the fixed-point requantization with the
// multiplication first (docs/onnx.md §3): M = 0.0025 / 0.1 = 0.025 → m = 13107, s = 19, the
// bias folded with the rounding constant and the output zero point, 13107·b + (3 + ½)·2^19
// (1966078 for b = 10), then the shift and the clip to int8; the float edges become vta.quant
// host steps on the arguments.

// RUN: vta-opt %s -p 'vta-integerize{requant=fixed-point}' | filecheck %s
// RUN: vta-opt %s -p 'vta-integerize{requant=fixed-point},vta-integerize{requant=fixed-point}' | filecheck %s

// CHECK:      builtin.module attributes {vta.requant = {mode = "fixed-point", max_error_steps = {{.*}} : f64, layers = 1 : i64}}
// CHECK:        memref.global "private" constant @dense0_w : memref<8x4xi8> = dense<{{\[}}[1, -2, 3, -4],
// CHECK:        memref.global "private" constant @dense0_b : memref<4xi32> = dense<[1966078, 1572868, 2228218, 1310728]>
// CHECK:        func.func @dense(%input: memref<2x8xi8> {vta.quant = {scale = 0.05000000074505806 : f64, zero_point = 0 : i64}}, %output: memref<2x4xi8> {vta.quant = {scale = 0.10000000149011612 : f64, zero_point = 3 : i64}, vta.result = 0 : i64}) {
// CHECK:          linalg.fill ins(%c0_i32 : i32) outs(%dense0_acc : memref<2x4xi32>)
// CHECK-NEXT:     linalg.matmul ins(%input, %dense0_w : memref<2x8xi8>, memref<8x4xi8>) outs(%dense0_acc : memref<2x4xi32>)
// CHECK-NEXT:     linalg.generic
// CHECK-SAME:         ins(%dense0_acc, %dense0_b : memref<2x4xi32>, memref<4xi32>) outs(%output : memref<2x4xi8>)
// CHECK:            %k0 = arith.constant 13107 : i32
// CHECK-NEXT:       %v0 = arith.muli %a, %k0 : i32
// CHECK-NEXT:       %v1 = arith.addi %v0, %b : i32
// CHECK-NEXT:       %k3 = arith.constant 19 : i32
// CHECK-NEXT:       %v2 = arith.shrsi %v1, %k3 : i32
// CHECK-NEXT:       %lo = arith.constant -128 : i32
// CHECK-NEXT:       %hi = arith.constant 127 : i32
// CHECK-NEXT:       %min = arith.minsi %v2, %hi : i32
// CHECK-NEXT:       %max = arith.maxsi %min, %lo : i32
// CHECK-NEXT:       %t = arith.trunci %max : i32 to i8
// CHECK-NEXT:       linalg.yield %t : i8
// CHECK-NOT:    f32
// CHECK-NOT:    @w
memref.global "private" constant @w : memref<8x4xi8> = dense<[[1, -2, 3, -4], [5, -6, 7, -8], [9, -10, 11, -12], [13, -14, 15, -16], [-1, 2, -3, 4], [-5, 6, -7, 8], [-9, 10, -11, 12], [-13, 14, -15, 16]]>
memref.global "private" constant @b : memref<4xi32> = dense<[10, -20, 30, -40]>
func.func @dense(%arg0: memref<2x8xf32>, %result0: memref<2x4xf32> {vta.result = 0 : i64}) {
  %sx = arith.constant 5.000000e-02 : f32
  %sy = arith.constant 1.000000e-01 : f32
  %sacc = arith.constant 2.5000000000000001E-3 : f64
  %zx = arith.constant 0.000000e+00 : f32
  %zy = arith.constant 3.000000e+00 : f32
  %zy_i64 = arith.constant 3 : i64
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %c0_i32 = arith.constant 0 : i32
  %w = memref.get_global @w : memref<8x4xi8>
  %b = memref.get_global @b : memref<4xi32>
  %q = memref.alloc() : memref<2x8xi8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0 : memref<2x8xf32>) outs(%q : memref<2x8xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %sx : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %zx : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %acc = memref.alloc() : memref<2x4xi32>
  linalg.broadcast ins(%b : memref<4xi32>) outs(%acc : memref<2x4xi32>) dimensions = [0]
  linalg.quantized_matmul ins(%q, %w, %c0_i32, %c0_i32 : memref<2x8xi8>, memref<8x4xi8>, i32, i32) outs(%acc : memref<2x4xi32>)
  %f = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<2x4xi32>) outs(%f : memref<2x4xf32>) {
  ^bb0(%in: i32, %out: f32):
    %0 = arith.truncf %sacc : f64 to f32
    %1 = arith.sitofp %in : i32 to f32
    %2 = arith.mulf %1, %0 : f32
    linalg.yield %2 : f32
  }
  %y = memref.alloc() : memref<2x4xi8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%f : memref<2x4xf32>) outs(%y : memref<2x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %sy : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %zy : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : memref<2x4xi8>) outs(%result0 : memref<2x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.extsi %in : i8 to i64
    %1 = arith.subi %0, %zy_i64 : i64
    %2 = arith.sitofp %1 : i64 to f32
    %3 = arith.mulf %2, %sy : f32
    linalg.yield %3 : f32
  }
  func.return
}
