// vta-integerize: a layer with per-channel weight scales as torch-mlir writes it (it keeps
// such a layer in its QDQ form) and vta-bufferize leaves it: the int8 weights dequantized by a
// generic on constants that reads one scale and one zero point per output channel (d0), the
// bias dequantized alike, the transpose of the dequantized weights, a float matmul of the
// dequantized input onto 0, the addf of the bias, the float quantization. It becomes the
// integer layer of docs/onnx.md §4.1 with per-channel fixed-point multipliers (§3): the
// multipliers M = 0.0625 · w_scale / 0.125 = [2^-8, 2^-7, 2^-9, 2^-6] are m / 2^9 with the
// i32 vector m = [2, 4, 1, 8] read along the channels, multiplied first (§3, "The
// multiplication first"); the bias folds the input zero point (10 − 2 · Σ w[0] = 18), then
// times m with the rounding constant and the output zero point: 18 · 2 + (−3 + ½) · 2^9 = −1244.

// RUN: vta-opt %s -p 'vta-integerize{requant=fixed-point}' | filecheck %s

// CHECK:      builtin.module attributes {vta.requant = {mode = "fixed-point", max_error_steps = 0.000000e+00 : f64, layers = 1 : i64}}
// CHECK:        memref.global "private" constant @dense0_w : memref<8x4xi8> = dense<{{\[}}[1, 9, -1, -9],
// CHECK:        memref.global "private" constant @dense0_m : memref<4xi32> = dense<[2, 4, 1, 8]>
// CHECK:        memref.global "private" constant @dense0_b : memref<4xi32> = dense<[-1244, -1328, -1258, -1664]>
// CHECK:        func.func @dense(%input: memref<2x8xi8> {vta.quant = {scale = 6.250000e-02 : f64, zero_point = 2 : i64}}, %output: memref<2x4xi8> {vta.quant = {scale = 1.250000e-01 : f64, zero_point = -3 : i64}, vta.result = 0 : i64}) {
// CHECK:          linalg.matmul ins(%input, %dense0_w : memref<2x8xi8>, memref<8x4xi8>) outs(%dense0_acc : memref<2x4xi32>)
// CHECK-NEXT:     linalg.generic
// CHECK-SAME:         ins(%dense0_acc, %dense0_m, %dense0_b : memref<2x4xi32>, memref<4xi32>, memref<4xi32>) outs(%output : memref<2x4xi8>)
// CHECK:            %v0 = arith.muli %a, %mc : i32
// CHECK-NEXT:       %v1 = arith.addi %v0, %b : i32
// CHECK-NEXT:       %k2 = arith.constant 9 : i32
// CHECK-NEXT:       %v2 = arith.shrsi %v1, %k2 : i32
// CHECK-NEXT:       %lo = arith.constant -128 : i32
// CHECK-NEXT:       %hi = arith.constant 127 : i32
// CHECK-NEXT:       %min = arith.minsi %v2, %hi : i32
// CHECK-NEXT:       %max = arith.maxsi %min, %lo : i32
// CHECK-NEXT:       %t = arith.trunci %max : i32 to i8
// CHECK-NOT:    f32

memref.global "private" constant @w : memref<4x8xi8> = dense<[[1, -2, 3, -4, 5, -6, 7, -8], [9, -10, 11, -12, 13, -14, 15, -16], [-1, 2, -3, 4, -5, 6, -7, 8], [-9, 10, -11, 12, -13, 14, -15, 16]]>
memref.global "private" constant @w_scale : memref<4xf32> = dense<[7.812500e-03, 1.562500e-02, 3.906250e-03, 3.125000e-02]>
memref.global "private" constant @w_zp : memref<4xi8> = dense<0>
memref.global "private" constant @b : memref<4xi32> = dense<[10, -20, 30, -40]>
memref.global "private" constant @b_scale : memref<4xf32> = dense<[4.8828125e-04, 9.765625e-04, 2.44140625e-04, 1.953125e-03]>
memref.global "private" constant @b_zp : memref<4xi32> = dense<0>
func.func @dense(%arg0: memref<2x8xf32>, %result0: memref<2x4xf32> {vta.result = 0 : i64}) {
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %sx = arith.constant 6.250000e-02 : f32
  %zx = arith.constant 2.000000e+00 : f32
  %zx_i64 = arith.constant 2 : i64
  %sy = arith.constant 1.250000e-01 : f32
  %zy = arith.constant -3.000000e+00 : f32
  %zy_i64 = arith.constant -3 : i64
  %zero = arith.constant 0.000000e+00 : f32
  %w = memref.get_global @w : memref<4x8xi8>
  %ws = memref.get_global @w_scale : memref<4xf32>
  %wz = memref.get_global @w_zp : memref<4xi8>
  %b = memref.get_global @b : memref<4xi32>
  %bs = memref.get_global @b_scale : memref<4xf32>
  %bz = memref.get_global @b_zp : memref<4xi32>
  %bias = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b, %bs, %bz : memref<4xi32>, memref<4xf32>, memref<4xi32>) outs(%bias : memref<4xf32>) {
  ^bb0(%in: i32, %s: f32, %z: i32, %out: f32):
    %0 = arith.extsi %z : i32 to i64
    %1 = arith.extsi %in : i32 to i64
    %2 = arith.subi %1, %0 : i64
    %3 = arith.sitofp %2 : i64 to f32
    %4 = arith.mulf %3, %s : f32
    linalg.yield %4 : f32
  }
  %wf = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w, %ws, %wz : memref<4x8xi8>, memref<4xf32>, memref<4xi8>) outs(%wf : memref<4x8xf32>) {
  ^bb0(%in: i8, %s: f32, %z: i8, %out: f32):
    %0 = arith.extsi %z : i8 to i16
    %1 = arith.extsi %in : i8 to i16
    %2 = arith.subi %1, %0 : i16
    %3 = arith.sitofp %2 : i16 to f32
    %4 = arith.mulf %3, %s : f32
    linalg.yield %4 : f32
  }
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
  %x = memref.alloc() : memref<2x8xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q : memref<2x8xi8>) outs(%x : memref<2x8xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.extsi %in : i8 to i64
    %1 = arith.subi %0, %zx_i64 : i64
    %2 = arith.sitofp %1 : i64 to f32
    %3 = arith.mulf %2, %sx : f32
    linalg.yield %3 : f32
  }
  %wt = memref.alloc() : memref<8x4xf32>
  linalg.transpose ins(%wf : memref<4x8xf32>) outs(%wt : memref<8x4xf32>) permutation = [1, 0]
  %acc = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<2x4xf32>)
  linalg.matmul ins(%x, %wt : memref<2x8xf32>, memref<8x4xf32>) outs(%acc : memref<2x4xf32>)
  %sum = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %bias : memref<2x4xf32>, memref<4xf32>) outs(%sum : memref<2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %0 = arith.addf %a, %c : f32
    linalg.yield %0 : f32
  }
  %y = memref.alloc() : memref<2x4xi8>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sum : memref<2x4xf32>) outs(%y : memref<2x4xi8>) {
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
  return
}
