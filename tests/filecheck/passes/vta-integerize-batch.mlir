// vta-integerize: a MatMul of a B×S×K activation by a constant weight as torch-mlir writes it
// (bufferized here): a linalg.quantized_batch_matmul against the weight broadcast to 1×K×N by
// a generic. It is the dense layer on the activation's rows (4×8 · 8×4), as the ONNX route
// stores such tensors (docs/onnx.md §4.16): the host quantizes the float input into the rows
// and dequantizes the result from them (float layers on the 1×4×8 and 1×4×4 float arguments,
// which stay float). Only that float layer reads the product's codes: the product leaves VTA as
// its int32 accumulators, which the host requantizes as the program does (docs/onnx.md §4.19).
// Refused with one error at the op: a weight zero point other than 0.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p 'vta-bufferize,vta-integerize{requant=fixed-point}' | filecheck %s

// CHECK:      memref.global "private" constant @dense0_w : memref<8x4xi8> = dense<{{\[\[}}1, -2, 3, 4], [5, 6, -7, 8]
// CHECK:      func.func @rows(%input: memref<1x4x8xf32>, %output: memref<1x4x4xf32>)
// CHECK:        %t0 = memref.alloc() : memref<4x8xi8>
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>], {{.*}} ins(%input_host : memref<1x4x8xf32>) outs(%t0 : memref<4x8xi8>)
// CHECK:          math.roundeven
// CHECK:        linalg.matmul ins(%t0, %dense0_w : memref<4x8xi8>, memref<8x4xi8>) outs(%t3 : memref<4x4xi32>)
// CHECK-NOT:      arith.shrsi
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], {{.*}} ins(%t3 : memref<4x4xi32>) outs(%dequantize0 : memref<1x4x4xf32>)
// CHECK:          arith.sitofp %{{.*}} : i32 to f32
// CHECK:          arith.constant 5.000000e-04 : f32
// CHECK:          math.roundeven
// CHECK:        outs(%output : memref<1x4x4xf32>)
// CHECK-NOT:  linalg.quantized_batch_matmul
// CHECK:        func.return

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @rows(%arg0: tensor<1x4x8xf32>) -> tensor<1x4x4xf32> {
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %c0_i32 = arith.constant 0 : i32
  %sx = arith.constant 2.500000e-02 : f32
  %sacc = arith.constant 5.0E-4 : f64
  %sy = arith.constant 1.000000e-02 : f32
  %w = arith.constant dense<[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, 14, 15, 16], [-1, 2, 3, 4], [5, -6, 7, 8], [9, 10, -11, 12], [13, 14, 15, -16]]> : tensor<8x4xi8>
  %0 = tensor.empty() : tensor<1x4x8xi8>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x4x8xf32>) outs(%0 : tensor<1x4x8xi8>) {
  ^bb0(%in: f32, %out: i8):
    %d = arith.divf %in, %sx : f32
    %r = math.roundeven %d : f32
    %z = arith.addf %r, %zero : f32
    %a = arith.maximumf %z, %lo : f32
    %b = arith.minimumf %a, %hi : f32
    %q = arith.fptosi %b : f32 to i8
    linalg.yield %q : i8
  } -> tensor<1x4x8xi8>
  %2 = tensor.empty() : tensor<1x8x4xi8>
  %3 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x4xi8>) outs(%2 : tensor<1x8x4xi8>) {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  } -> tensor<1x8x4xi8>
  %4 = tensor.empty() : tensor<1x4x4xi32>
  %5 = linalg.fill ins(%c0_i32 : i32) outs(%4 : tensor<1x4x4xi32>) -> tensor<1x4x4xi32>
  %6 = linalg.quantized_batch_matmul ins(%1, %3, %c0_i32, %c0_i32 : tensor<1x4x8xi8>, tensor<1x8x4xi8>, i32, i32) outs(%5 : tensor<1x4x4xi32>) -> tensor<1x4x4xi32>
  %7 = tensor.empty() : tensor<1x4x4xf32>
  %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6 : tensor<1x4x4xi32>) outs(%7 : tensor<1x4x4xf32>) {
  ^bb0(%in: i32, %out: f32):
    %s = arith.truncf %sacc : f64 to f32
    %f = arith.sitofp %in : i32 to f32
    %m = arith.mulf %f, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4xf32>
  %9 = tensor.empty() : tensor<1x4x4xi8>
  %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<1x4x4xf32>) outs(%9 : tensor<1x4x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %d = arith.divf %in, %sy : f32
    %r = math.roundeven %d : f32
    %z = arith.addf %r, %zero : f32
    %a = arith.maximumf %z, %lo : f32
    %b = arith.minimumf %a, %hi : f32
    %q = arith.fptosi %b : f32 to i8
    linalg.yield %q : i8
  } -> tensor<1x4x4xi8>
  %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10 : tensor<1x4x4xi8>) outs(%7 : tensor<1x4x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %f = arith.sitofp %in : i8 to f32
    %m = arith.mulf %f, %sy : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4xf32>
  return %11 : tensor<1x4x4xf32>
}

// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @rows_zw(%arg0: tensor<1x4x8xf32>) -> tensor<1x4x4xf32> {
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %c0_i32 = arith.constant 0 : i32
  %c3_i32 = arith.constant 3 : i32
  %sx = arith.constant 2.500000e-02 : f32
  %sacc = arith.constant 5.0E-4 : f64
  %sy = arith.constant 1.000000e-02 : f32
  %w = arith.constant dense<[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, 14, 15, 16], [-1, 2, 3, 4], [5, -6, 7, 8], [9, 10, -11, 12], [13, 14, 15, -16]]> : tensor<8x4xi8>
  %0 = tensor.empty() : tensor<1x4x8xi8>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x4x8xf32>) outs(%0 : tensor<1x4x8xi8>) {
  ^bb0(%in: f32, %out: i8):
    %d = arith.divf %in, %sx : f32
    %r = math.roundeven %d : f32
    %z = arith.addf %r, %zero : f32
    %a = arith.maximumf %z, %lo : f32
    %b = arith.minimumf %a, %hi : f32
    %q = arith.fptosi %b : f32 to i8
    linalg.yield %q : i8
  } -> tensor<1x4x8xi8>
  %2 = tensor.empty() : tensor<1x8x4xi8>
  %3 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x4xi8>) outs(%2 : tensor<1x8x4xi8>) {
  ^bb0(%in: i8, %out: i8):
    linalg.yield %in : i8
  } -> tensor<1x8x4xi8>
  %4 = tensor.empty() : tensor<1x4x4xi32>
  %5 = linalg.fill ins(%c0_i32 : i32) outs(%4 : tensor<1x4x4xi32>) -> tensor<1x4x4xi32>
  // expected-error @+1 {{vta-integerize: the batched product's weights are an int8 constant with zero point 0, the same matrix for every batch}}
  %6 = linalg.quantized_batch_matmul ins(%1, %3, %c0_i32, %c3_i32 : tensor<1x4x8xi8>, tensor<1x8x4xi8>, i32, i32) outs(%5 : tensor<1x4x4xi32>) -> tensor<1x4x4xi32>
  %7 = tensor.empty() : tensor<1x4x4xf32>
  %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6 : tensor<1x4x4xi32>) outs(%7 : tensor<1x4x4xf32>) {
  ^bb0(%in: i32, %out: f32):
    %s = arith.truncf %sacc : f64 to f32
    %f = arith.sitofp %in : i32 to f32
    %m = arith.mulf %f, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4xf32>
  %9 = tensor.empty() : tensor<1x4x4xi8>
  %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<1x4x4xf32>) outs(%9 : tensor<1x4x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %d = arith.divf %in, %sy : f32
    %r = math.roundeven %d : f32
    %z = arith.addf %r, %zero : f32
    %a = arith.maximumf %z, %lo : f32
    %b = arith.minimumf %a, %hi : f32
    %q = arith.fptosi %b : f32 to i8
    linalg.yield %q : i8
  } -> tensor<1x4x4xi8>
  %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10 : tensor<1x4x4xi8>) outs(%7 : tensor<1x4x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %f = arith.sitofp %in : i8 to f32
    %m = arith.mulf %f, %sy : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4xf32>
  return %11 : tensor<1x4x4xf32>
}
