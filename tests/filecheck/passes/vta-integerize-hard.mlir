// vta-integerize: hard activations and a Mul by a constant as torch-mlir writes them (bufferized):
// chains of float generics on the reals of one tensor's codes, between a dequantize and a
// quantize. HardSwish is x · min(max(x + 3, 0), 6) / 6 (α = 1/6, β = 1/2), HardSigmoid
// max(min(0.25·x + 0.4, 1), 0), and the Mul multiplies by a dequantized int8 constant (codes
// 100, scale 0.02). Each becomes the ONNX frontend's fixed-point layer of docs/onnx.md
// §4.10–§4.11, on the codes read by a 1×1 sum pool: HardSwish the product of the codes and
// H = clip(m·(q + c) + f, 0, D) (here 262·(q + 59) + 262 clipped to [0, 31440]), HardSigmoid H
// requantized, the Mul the codes times 100 requantized; the bodies may also hold several steps
// (the HardSigmoid's multiply, add and min in one generic).
// Refused, each with one error at the quantize: a clip of an affine function that is not
// between 0 and 1 (min(max(x + 3, 0), 6) without the / 6), and a product by a float constant
// that is not a dequantized int8 one.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p 'vta-integerize{requant=fixed-point}' | filecheck %s

// CHECK:      builtin.module attributes {vta.requant = {mode = "fixed-point", max_error_steps = {{.*}}, layers = 3 : i64}}
// CHECK:        func.func @hard(%input: memref<1x2x2x2xi8> {vta.quant = {scale = 0.05000000074505806 : f64, zero_point = 0 : i64}}, %output: memref<1x2x2x2xi8> {vta.quant = {scale = 0.0078740157186985016 : f64, zero_point = 0 : i64}, vta.result = 0 : i64}) {
// CHECK:          linalg.pooling_nchw_sum {{.*}} ins(%input, %hardswish0_win : memref<1x2x2x2xi8>, memref<1x1xi8>) outs(%hardswish0_acc : memref<1x2x2x2xi32>)
// CHECK:            %v0 = arith.addi %a, %k0 : i32
// CHECK-NEXT:       %k2 = arith.constant 262 : i32
// CHECK-NEXT:       %v1 = arith.muli %v0, %k2 : i32
// CHECK:            %v3 = arith.maxsi %v2, %k6 : i32
// CHECK:            %v4 = arith.minsi %v3, %k8 : i32
// CHECK-NEXT:       %v5 = arith.muli %a, %v4 : i32
// CHECK:          linalg.pooling_nchw_sum {{.*}} ins(%t1, %mul0_win : memref<1x2x2x2xi8>, memref<1x1xi8>) outs(%mul0_acc : memref<1x2x2x2xi32>)
// CHECK:            %k0_1 = arith.constant 100 : i32
// CHECK-NEXT:       %v0_1 = arith.muli %a_1, %k0_1 : i32
// CHECK:          linalg.pooling_nchw_sum {{.*}} ins(%t2, %hardsigmoid0_win : memref<1x2x2x2xi8>, memref<1x1xi8>) outs(%hardsigmoid0_acc : memref<1x2x2x2xi32>)
// CHECK-NOT:    f32
// CHECK:        func.return
// CHECK-NOT:    func.func

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#scalar = affine_map<(d0, d1, d2, d3) -> ()>
memref.global "private" constant @k_codes : memref<i8> = dense<100>
func.func @hard(%arg0: memref<1x2x2x2xf32>, %result0: memref<1x2x2x2xf32> {vta.result = 0 : i64}) {
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %s = arith.constant 5.000000e-02 : f32
  %s_swish = arith.constant 4.000000e-02 : f32
  %s_k = arith.constant 2.000000e-02 : f32
  %s_mul = arith.constant 8.000000e-02 : f32
  %s_out = arith.constant 0.00787401571 : f32
  %z = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %three = arith.constant 3.000000e+00 : f32
  %six = arith.constant 6.000000e+00 : f32
  %alpha = arith.constant 2.500000e-01 : f32
  %beta = arith.constant 4.000000e-01 : f32
  %q = memref.alloc() : memref<1x2x2x2xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x2x2x2xf32>) outs(%q : memref<1x2x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %x = memref.alloc() : memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : memref<1x2x2x2xi8>) outs(%x : memref<1x2x2x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  }
  // HardSwish: + 3, ReLU (select ugt), min 6 (select olt), / 6, times x.
  %t = memref.alloc() : memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x2x2xf32>) outs(%t : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %three : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t : memref<1x2x2x2xf32>) outs(%t : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf ugt, %in, %z : f32
    %1 = arith.select %0, %in, %z : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t : memref<1x2x2x2xf32>) outs(%t : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf olt, %in, %six : f32
    %1 = arith.select %0, %in, %six : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t : memref<1x2x2x2xf32>) outs(%t : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %six : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %x : memref<1x2x2x2xf32>, memref<1x2x2x2xf32>) outs(%t : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.mulf %in, %in_1 : f32
    linalg.yield %0 : f32
  }
  %q1 = memref.alloc() : memref<1x2x2x2xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t : memref<1x2x2x2xf32>) outs(%q1 : memref<1x2x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s_swish : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %x1 = memref.alloc() : memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q1 : memref<1x2x2x2xi8>) outs(%x1 : memref<1x2x2x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s_swish : f32
    linalg.yield %1 : f32
  }
  // Mul by the constant 100 · 0.02.
  %k_q = memref.get_global @k_codes : memref<i8>
  %k = memref.alloc() : memref<f32>
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%k_q : memref<i8>) outs(%k : memref<f32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s_k : f32
    linalg.yield %1 : f32
  }
  %m = memref.alloc() : memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x1, %k : memref<1x2x2x2xf32>, memref<f32>) outs(%m : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.mulf %in, %in_1 : f32
    linalg.yield %0 : f32
  }
  %q2 = memref.alloc() : memref<1x2x2x2xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m : memref<1x2x2x2xf32>) outs(%q2 : memref<1x2x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s_mul : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %x2 = memref.alloc() : memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q2 : memref<1x2x2x2xi8>) outs(%x2 : memref<1x2x2x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s_mul : f32
    linalg.yield %1 : f32
  }
  // HardSigmoid: · 0.25, + 0.4, min 1, max 0.
  %g = memref.alloc() : memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x2 : memref<1x2x2x2xf32>) outs(%g : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %alpha : f32
    %1 = arith.addf %0, %beta : f32
    %2 = arith.minimumf %1, %one : f32
    linalg.yield %2 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g : memref<1x2x2x2xf32>) outs(%g : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %z : f32
    linalg.yield %0 : f32
  }
  %q3 = memref.alloc() : memref<1x2x2x2xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g : memref<1x2x2x2xf32>) outs(%q3 : memref<1x2x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s_out : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q3 : memref<1x2x2x2xi8>) outs(%result0 : memref<1x2x2x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s_out : f32
    linalg.yield %1 : f32
  }
  func.return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @clip_not_to_one(%arg0: memref<1x2x2x2xf32>, %result0: memref<1x2x2x2xf32> {vta.result = 0 : i64}) {
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %s = arith.constant 5.000000e-02 : f32
  %z = arith.constant 0.000000e+00 : f32
  %three = arith.constant 3.000000e+00 : f32
  %six = arith.constant 6.000000e+00 : f32
  %q = memref.alloc() : memref<1x2x2x2xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x2x2x2xf32>) outs(%q : memref<1x2x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %x = memref.alloc() : memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : memref<1x2x2x2xi8>) outs(%x : memref<1x2x2x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  }
  %t = memref.alloc() : memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x2x2xf32>) outs(%t : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %three : f32
    %1 = arith.maximumf %0, %z : f32
    %2 = arith.minimumf %1, %six : f32
    linalg.yield %2 : f32
  }
  %q1 = memref.alloc() : memref<1x2x2x2xi8>
  // expected-error @+1 {{quantizes a float function of int8 codes that is none of HardSigmoid clip(α·x + β, 0, 1), HardSwish x·clip(α·x + β, 0, 1) and a Mul by a dequantized constant}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t : memref<1x2x2x2xf32>) outs(%q1 : memref<1x2x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  func.return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @float_constant(%arg0: memref<1x2x2x2xf32>, %result0: memref<1x2x2x2xf32> {vta.result = 0 : i64}) {
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %s = arith.constant 5.000000e-02 : f32
  %z = arith.constant 0.000000e+00 : f32
  %k = arith.constant 7.500000e-01 : f32
  %q = memref.alloc() : memref<1x2x2x2xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x2x2x2xf32>) outs(%q : memref<1x2x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %x = memref.alloc() : memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : memref<1x2x2x2xi8>) outs(%x : memref<1x2x2x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  }
  %t = memref.alloc() : memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x2x2xf32>) outs(%t : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %k : f32
    linalg.yield %0 : f32
  }
  %q1 = memref.alloc() : memref<1x2x2x2xi8>
  // expected-error @+1 {{quantizes a float function of int8 codes that is none of HardSigmoid}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t : memref<1x2x2x2xf32>) outs(%q1 : memref<1x2x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  func.return
}
