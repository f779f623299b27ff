// vta-integerize: a detector neck as torch-mlir writes it (on tensors, bufferized first). The
// nearest Resize ×2 is a generic without inputs computing each source index from linalg.index
// in f32 (half_pixel: (o + 0.5) / 2 − 0.5; round_prefer_floor: floor or ceil by the fraction;
// clamped to [0, 1]) and reading it with tensor.extract, which vta-bufferize makes a
// memref.load. The pass evaluates the index arithmetic over every output index: rows and
// columns read o // 2, N and C the output's own index, so the gather is VTA's nearest
// upsampling on the codes (docs/onnx.md §4.8), kept at its input's quantization. The
// tensor.concat of the upsampled reals with themselves along the channels, quantized at
// another scale (0.1 for 0.05), is the ONNX frontend's Concat: each part rescaled (× 1/2: a
// 1×1 sum pool of the codes, × 256 · 16384 >> 22, rounded >> 1), then copied into its slice
// (vta-pack makes each rescale write its slice).
// Refused, each with one error at the op (memref form): a gather whose rows are not o // f,
// index arithmetic with another op, a resize quantized to another scale than its input's.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p 'vta-bufferize,vta-integerize{requant=fixed-point}' | filecheck %s

// CHECK:      builtin.module attributes {vta.requant = {mode = "fixed-point", max_error_steps = {{.*}}, layers = 4 : i64}}
// CHECK:        func.func @neck(%input: memref<1x16x2x2xi8> {vta.quant = {scale = 0.05000000074505806 : f64, zero_point = 0 : i64}}, %output: memref<1x32x4x4xi8> {vta.quant = {scale = 0.10000000149011612 : f64, zero_point = 0 : i64}, vta.result = 0 : i64}) {
// CHECK:          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, (d2 floordiv 2), (d3 floordiv 2))>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%input : memref<1x16x2x2xi8>) outs(%[[UP:.*]] : memref<1x16x4x4xi8>)
// CHECK:          linalg.pooling_nchw_sum {{.*}} ins(%[[UP]], %concat0_rescale0_win : memref<1x16x4x4xi8>, memref<1x1xi8>)
// CHECK:            %k0 = arith.constant 256 : i32
// CHECK:            %k2 = arith.constant 16384 : i32
// CHECK:            %k4 = arith.constant 22 : i32
// CHECK:          linalg.pooling_nchw_sum {{.*}} ins(%[[UP]], %concat0_rescale1_win : memref<1x16x4x4xi8>, memref<1x1xi8>)
// CHECK:          %concat0_slice0 = memref.subview %output[0, 0, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1]
// CHECK-NEXT:     memref.copy %{{.*}}, %concat0_slice0
// CHECK:          %concat0_slice1 = memref.subview %output[0, 16, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1]
// CHECK-NEXT:     memref.copy %{{.*}}, %concat0_slice1
// CHECK-NOT:    memref.load
// CHECK:        func.return

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @neck(%arg0: tensor<1x16x2x2xf32>) -> tensor<1x32x4x4xf32> {
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %s = arith.constant 5.000000e-02 : f32
  %s2 = arith.constant 1.000000e-01 : f32
  %z = arith.constant 0.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %two = arith.constant 2.000000e+00 : f32
  %last = arith.constant 1.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %codes_init = tensor.empty() : tensor<1x16x2x2xi8>
  %reals_init = tensor.empty() : tensor<1x16x2x2xf32>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x16x2x2xf32>) outs(%codes_init : tensor<1x16x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  } -> tensor<1x16x2x2xi8>
  %dq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<1x16x2x2xi8>) outs(%reals_init : tensor<1x16x2x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  } -> tensor<1x16x2x2xf32>
  %up_init = tensor.empty() : tensor<1x16x4x4xf32>
  %up = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%up_init : tensor<1x16x4x4xf32>) {
  ^bb0(%out: f32):
    %c = linalg.index 1 : index
    %h = linalg.index 2 : index
    %w = linalg.index 3 : index
    %h0 = arith.index_cast %h : index to i64
    %h1 = arith.sitofp %h0 : i64 to f32
    %h2 = arith.addf %h1, %half : f32
    %h3 = arith.divf %h2, %two : f32
    %h4 = arith.subf %h3, %half : f32
    %h5 = math.floor %h4 : f32
    %h6 = math.ceil %h4 : f32
    %h7 = arith.subf %h4, %h5 : f32
    %h8 = arith.cmpf ule, %h7, %half : f32
    %h9 = arith.select %h8, %h5, %h6 : f32
    %h10 = arith.maximumf %h9, %z : f32
    %h11 = arith.minimumf %h10, %last : f32
    %h12 = arith.fptosi %h11 : f32 to i64
    %hi_ = arith.index_cast %h12 : i64 to index
    %w0 = arith.index_cast %w : index to i64
    %w1 = arith.sitofp %w0 : i64 to f32
    %w2 = arith.addf %w1, %half : f32
    %w3 = arith.divf %w2, %two : f32
    %w4 = arith.subf %w3, %half : f32
    %w5 = math.floor %w4 : f32
    %w6 = math.ceil %w4 : f32
    %w7 = arith.subf %w4, %w5 : f32
    %w8 = arith.cmpf ule, %w7, %half : f32
    %w9 = arith.select %w8, %w5, %w6 : f32
    %w10 = arith.maximumf %w9, %z : f32
    %w11 = arith.minimumf %w10, %last : f32
    %w12 = arith.fptosi %w11 : f32 to i64
    %wi = arith.index_cast %w12 : i64 to index
    %e = tensor.extract %dq[%c0, %c, %hi_, %wi] : tensor<1x16x2x2xf32>
    linalg.yield %e : f32
  } -> tensor<1x16x4x4xf32>
  %up_codes_init = tensor.empty() : tensor<1x16x4x4xi8>
  %up_q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%up : tensor<1x16x4x4xf32>) outs(%up_codes_init : tensor<1x16x4x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  } -> tensor<1x16x4x4xi8>
  %up_dq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%up_q : tensor<1x16x4x4xi8>) outs(%up_init : tensor<1x16x4x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  } -> tensor<1x16x4x4xf32>
  %cat = tensor.concat dim(1) %up_dq, %up_dq : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x32x4x4xf32>
  %cat_codes_init = tensor.empty() : tensor<1x32x4x4xi8>
  %cat_q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cat : tensor<1x32x4x4xf32>) outs(%cat_codes_init : tensor<1x32x4x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s2 : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  } -> tensor<1x32x4x4xi8>
  %out_init = tensor.empty() : tensor<1x32x4x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cat_q : tensor<1x32x4x4xi8>) outs(%out_init : tensor<1x32x4x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s2 : f32
    linalg.yield %1 : f32
  } -> tensor<1x32x4x4xf32>
  return %y : tensor<1x32x4x4xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @rows_not_repeated(%arg0: memref<1x1x2x2xf32>, %result0: memref<1x1x4x4xf32> {vta.result = 0 : i64}) {
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %s = arith.constant 5.000000e-02 : f32
  %z = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q = memref.alloc() : memref<1x1x2x2xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x1x2x2xf32>) outs(%q : memref<1x1x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %dq = memref.alloc() : memref<1x1x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : memref<1x1x2x2xi8>) outs(%dq : memref<1x1x2x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  }
  %up = memref.alloc() : memref<1x1x4x4xf32>
  // expected-error @+1 {{the gather reads index [0, 1, 1, 1] of dimension 2 (size 2) for output index 0.. 3: VTA's nearest resize reads o // f for an integer factor f on H and W and the same index on N and C}}
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%up : memref<1x1x4x4xf32>) {
  ^bb0(%out: f32):
    %h = linalg.index 2 : index
    %w = linalg.index 3 : index
    %h1 = arith.minsi %h, %c1 : index
    %e = memref.load %dq[%c0, %c0, %h1, %w] : memref<1x1x2x2xf32>
    linalg.yield %e : f32
  }
  func.return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @another_index_op(%arg0: memref<1x1x2x2xf32>, %result0: memref<1x1x4x4xf32> {vta.result = 0 : i64}) {
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %s = arith.constant 5.000000e-02 : f32
  %z = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %q = memref.alloc() : memref<1x1x2x2xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x1x2x2xf32>) outs(%q : memref<1x1x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %dq = memref.alloc() : memref<1x1x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : memref<1x1x2x2xi8>) outs(%dq : memref<1x1x2x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  }
  %up = memref.alloc() : memref<1x1x4x4xf32>
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%up : memref<1x1x4x4xf32>) {
  ^bb0(%out: f32):
    %h = linalg.index 2 : index
    %w = linalg.index 3 : index
    // expected-error @+1 {{is not an op of the index arithmetic of a nearest-resize gather}}
    %h1 = arith.divui %h, %c2 : index
    %w1 = arith.divui %w, %c2 : index
    %e = memref.load %dq[%c0, %c0, %h1, %w1] : memref<1x1x2x2xf32>
    linalg.yield %e : f32
  }
  func.return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @requantized(%arg0: memref<1x1x2x2xf32>, %result0: memref<1x1x4x4xf32> {vta.result = 0 : i64}) {
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %s = arith.constant 5.000000e-02 : f32
  %s2 = arith.constant 1.000000e-01 : f32
  %z = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %q = memref.alloc() : memref<1x1x2x2xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x1x2x2xf32>) outs(%q : memref<1x1x2x2xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %s : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %dq = memref.alloc() : memref<1x1x2x2xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : memref<1x1x2x2xi8>) outs(%dq : memref<1x1x2x2xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  }
  %up = memref.alloc() : memref<1x1x4x4xf32>
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%up : memref<1x1x4x4xf32>) {
  ^bb0(%out: f32):
    %h = linalg.index 2 : index
    %w = linalg.index 3 : index
    %h1 = arith.index_cast %h : index to i64
    %w1 = arith.index_cast %w : index to i64
    %h2 = arith.sitofp %h1 : i64 to f32
    %w2 = arith.sitofp %w1 : i64 to f32
    %two = arith.constant 2.000000e+00 : f32
    %h3 = arith.divf %h2, %two : f32
    %w3 = arith.divf %w2, %two : f32
    %h4 = arith.fptosi %h3 : f32 to i64
    %w4 = arith.fptosi %w3 : f32 to i64
    %h5 = arith.index_cast %h4 : i64 to index
    %w5 = arith.index_cast %w4 : i64 to index
    %e = memref.load %dq[%c0, %c0, %h5, %w5] : memref<1x1x2x2xf32>
    linalg.yield %e : f32
  }
  %uq = memref.alloc() : memref<1x1x4x4xi8>
  // expected-error @+1 {{a nearest resize moves codes: it is quantized with the scale and zero point of the codes it gathers, not requantized}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%up : memref<1x1x4x4xf32>) outs(%uq : memref<1x1x4x4xi8>) {
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
