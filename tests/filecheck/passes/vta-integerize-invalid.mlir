// vta-integerize refuses what it does not read as a quantized layer with one error at the op
// (the module is left unchanged): a float computation other than a quantize, dequantize, ReLU,
// add or average; codes requantized to another scale without a layer; a convolution whose data
// is padded with other than its zero point; a function without one float input and one result.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p 'vta-integerize{requant=fixed-point}'
// RUN: not vta-opt %s --split-input-file -p 'vta-integerize{requant=fixed-point}' 2>&1 | filecheck %s

// CHECK: vta-integerize-invalid.mlir:[[# @LINE + 22]]:3: error: 'linalg.generic' op vta-integerize: is not a quantize, dequantize, ReLU, add or average of a quantized layer
// CHECK-NOT: Traceback

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @exp_of_reals(%arg0: memref<2x8xf32>, %result0: memref<2x8xf32> {vta.result = 0 : i64}) {
  %s = arith.constant 5.000000e-02 : f32
  %z = arith.constant 0.000000e+00 : f32
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %q = memref.alloc() : memref<2x8xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : memref<2x8xf32>) outs(%q : memref<2x8xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %e = memref.alloc() : memref<2x8xf32>
  // expected-error@+1 {{is not a quantize, dequantize, ReLU, add or average of a quantized layer}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%q : memref<2x8xi8>) outs(%e : memref<2x8xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  }
  func.return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @another_scale(%arg0: memref<2x8xf32>, %result0: memref<2x8xf32> {vta.result = 0 : i64}) {
  %s = arith.constant 5.000000e-02 : f32
  %s2 = arith.constant 1.000000e-01 : f32
  %z = arith.constant 0.000000e+00 : f32
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %q = memref.alloc() : memref<2x8xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : memref<2x8xf32>) outs(%q : memref<2x8xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %r = memref.alloc() : memref<2x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%q : memref<2x8xi8>) outs(%r : memref<2x8xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  }
  %q2 = memref.alloc() : memref<2x8xi8>
  // expected-error@+1 {{requantizes int8 codes to another scale}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : memref<2x8xf32>) outs(%q2 : memref<2x8xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s2 : f32
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

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
memref.global "private" constant @w : memref<4x2x3x3xi8> = dense<1>
func.func @pad_not_zero_point(%arg0: memref<1x2x4x4xf32>, %result0: memref<1x4x4x4xf32> {vta.result = 0 : i64}) {
  %s = arith.constant 5.000000e-02 : f32
  %z = arith.constant 3.000000e+00 : f32
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %c0_i8 = arith.constant 0 : i8
  %c3 = arith.constant 3 : i32
  %c0 = arith.constant 0 : i32
  %w = memref.get_global @w : memref<4x2x3x3xi8>
  %q = memref.alloc() : memref<1x2x4x4xi8>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x2x4x4xf32>) outs(%q : memref<1x2x4x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %p = memref.alloc() : memref<1x2x6x6xi8>
  linalg.fill ins(%c0_i8 : i8) outs(%p : memref<1x2x6x6xi8>)
  %pi = memref.subview %p[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1] : memref<1x2x6x6xi8> to memref<1x2x4x4xi8, strided<[72, 36, 6, 1], offset: 7>>
  memref.copy %q, %pi : memref<1x2x4x4xi8> to memref<1x2x4x4xi8, strided<[72, 36, 6, 1], offset: 7>>
  %acc = memref.alloc() : memref<1x4x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x4x4x4xi32>)
  // expected-error@+1 {{the convolution's data is padded with 0, not its zero point 3}}
  linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%p, %w, %c3, %c0 : memref<1x2x6x6xi8>, memref<4x2x3x3xi8>, i32, i32) outs(%acc : memref<1x4x4x4xi32>)
  func.return
}

// -----

// expected-error@+1 {{a quantized network is read from a function of one float input and one result}}
func.func @two_inputs(%a: memref<2x8xf32>, %b: memref<2x8xf32>, %result0: memref<2x8xf32> {vta.result = 0 : i64}) {
  %e = memref.alloc() : memref<2x8xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<2x8xf32>, memref<2x8xf32>) outs(%e : memref<2x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %0 = arith.addf %x, %y : f32
    linalg.yield %0 : f32
  }
  func.return
}

// -----

// A quantize whose clip bound is NaN (no int8 bound): not a quantize the pass reads.
func.func @nan_bound(%arg0: memref<2x8xf32>, %result0: memref<2x8xi8> {vta.result = 0 : i64}) {
  %s = arith.constant 5.000000e-02 : f32
  %z = arith.constant 0.000000e+00 : f32
  %lo = arith.constant 0x7FC00000 : f32
  %hi = arith.constant 1.270000e+02 : f32
  // expected-error@+1 {{is not a quantize, dequantize, ReLU, add or average of a quantized layer}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0 : memref<2x8xf32>) outs(%result0 : memref<2x8xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  return
}
