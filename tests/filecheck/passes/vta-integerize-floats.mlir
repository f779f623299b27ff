// vta-integerize: float code between a dequantize and a quantize that no integer form reads
// runs on the host as float layers holding the function's own ops (passes/integerize/floats.py).
// Here: a dense layer; its reals times 0.5 (a chain hard.py starts), a row maximum from −∞ and
// e = exp(h − max) (float code reading the chain: the chain becomes float code); e quantized
// and read again, dequantized, by the same float layer (its value quantized and dequantized in
// float); a second dense layer on e's codes, which closes the first float layer; its reals plus
// u = dequantize(quantize(e))·e of the closed layer, computed again in the second. Both
// products' codes only float code reads: they leave VTA as int32 accumulators that each float
// layer reading them requantizes (docs/onnx.md §4.19, no fixed-point epilogue). Refused with
// one error at the op: a float generic computing from linalg.index.
// tests/test_integerize_floats.py runs the first function on every configuration, bit for bit
// as the reference evaluator computes it.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p 'vta-integerize{requant=fixed-point}' | filecheck %s

// CHECK:      vta.requant = {mode = "fixed-point", max_error_steps = 0.000000e+00 : f64, layers = 4 : i64}
// CHECK:      func.func @floats(%input: memref<2x8xi8> {vta.quant = {scale = 0.05000000074505806 : f64, zero_point = 0 : i64}}, %output: memref<2x4xi8> {vta.quant = {scale = 0.05000000074505806 : f64, zero_point = 0 : i64}, vta.result = 0 : i64})
// CHECK:        %[[ACC1:.*]] = memref.alloc() : memref<2x4xi32>
// CHECK:        linalg.matmul ins(%input, %dense0_w : memref<2x8xi8>, memref<8x4xi8>) outs(%[[ACC1]] : memref<2x4xi32>)
// CHECK-NEXT:   %[[CODES:.*]] = memref.alloc() : memref<2x4xi8>
// The first float layer: the product requantized by the host, ...
// CHECK:        ins(%[[ACC1]] : memref<2x4xi32>) outs(%[[R:.*]] : memref<2x4xf32>)
// CHECK:          %{{.*}} = arith.constant 5.000000e-04 : f32
// CHECK:          math.roundeven
// ... the chain, the maximum and the exponential as they are written ...
// CHECK:        ins(%[[R]] : memref<2x4xf32>) outs(%[[H:.*]] : memref<2x4xf32>)
// CHECK:          %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:     %[[V:.*]] = arith.mulf %{{.*}}, %[[HALF]] : f32
// CHECK-NEXT:     linalg.yield %[[V]] : f32
// CHECK:        %[[INIT:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:   linalg.fill ins(%[[INIT]] : f32) outs(%[[M:.*]] : memref<2x1xf32>)
// CHECK-NEXT:   linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%[[H]] : memref<2x4xf32>) outs(%[[M]] : memref<2x1xf32>)
// CHECK:          arith.maximumf
// CHECK:        linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[H]], %[[M]] : memref<2x4xf32>, memref<2x1xf32>)
// CHECK:          arith.subf
// CHECK-NEXT:     math.exp
// ... e's codes read again: quantized and dequantized in float ...
// CHECK:          arith.fptosi %{{.*}} : f32 to i32
// CHECK:          arith.sitofp %{{.*}} : i32 to f32
// ... and e quantized into the codes the second product reads.
// CHECK:        outs(%[[CODES]] : memref<2x4xi8>)
// CHECK:        %[[ACC2:.*]] = memref.alloc() : memref<2x4xi32>
// CHECK:        linalg.matmul ins(%[[CODES]], %dense1_w : memref<2x4xi8>, memref<4x4xi8>) outs(%[[ACC2]] : memref<2x4xi32>)
// The second float layer reads both products' accumulators (u computed again from the first).
// CHECK:        ins(%[[ACC2]] : memref<2x4xi32>)
// CHECK:        ins(%[[ACC1]] : memref<2x4xi32>)
// CHECK:          math.exp
// CHECK:        outs(%output : memref<2x4xi8>)
// CHECK-NOT:    arith.shrsi
// CHECK:        func.return

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
memref.global "private" constant @w1 : memref<8x4xi8> = dense<[[13, -17, -13, -11], [-13, 12, 15, 3], [-19, -17, -7, -3], [5, -1, -10, -14], [8, 10, -19, -16], [-2, -4, 16, 1], [-3, -3, 7, 4], [-13, 10, 11, 19]]>
memref.global "private" constant @w2 : memref<4x4xi8> = dense<[[12, -9, -7, 6], [6, 8, 15, -8], [18, -20, -17, 19], [18, -8, -15, -8]]>
func.func @floats(%arg0: memref<2x8xf32>, %result0: memref<2x4xf32> {vta.result = 0 : i64}) {
  %w1 = memref.get_global @w1 : memref<8x4xi8>
  %w2 = memref.get_global @w2 : memref<4x4xi8>
  %sx = arith.constant 5.000000e-02 : f32
  %s1 = arith.constant 5.000000e-04 : f32
  %sy = arith.constant 1.000000e-01 : f32
  %half = arith.constant 5.000000e-01 : f32
  %se = arith.constant 1.000000e-02 : f32
  %s2 = arith.constant 1.000000e-04 : f32
  %sy2 = arith.constant 2.000000e-02 : f32
  %so = arith.constant 5.000000e-02 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.000000e+00 : f32
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %c0 = arith.constant 0 : i32
  %q = memref.alloc() : memref<2x8xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : memref<2x8xf32>) outs(%q : memref<2x8xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %sx : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %acc = memref.alloc() : memref<2x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<2x4xi32>)
  linalg.quantized_matmul ins(%q, %w1, %c0, %c0 : memref<2x8xi8>, memref<8x4xi8>, i32, i32) outs(%acc : memref<2x4xi32>)
  %f = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<2x4xi32>) outs(%f : memref<2x4xf32>) {
  ^bb0(%in: i32, %out: f32):
    %0 = arith.sitofp %in : i32 to f32
    %1 = arith.mulf %0, %s1 : f32
    linalg.yield %1 : f32
  }
  %y = memref.alloc() : memref<2x4xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%f : memref<2x4xf32>) outs(%y : memref<2x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %sy : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %r = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : memref<2x4xi8>) outs(%r : memref<2x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %sy : f32
    linalg.yield %1 : f32
  }
  %h = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : memref<2x4xf32>) outs(%h : memref<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %half : f32
    linalg.yield %0 : f32
  }
  %m = memref.alloc() : memref<2x1xf32>
  linalg.fill ins(%ninf : f32) outs(%m : memref<2x1xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%h : memref<2x4xf32>) outs(%m : memref<2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %out : f32
    linalg.yield %0 : f32
  }
  %e = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%h, %m : memref<2x4xf32>, memref<2x1xf32>) outs(%e : memref<2x4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.subf %in, %in_1 : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  }
  %eq = memref.alloc() : memref<2x4xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%e : memref<2x4xf32>) outs(%eq : memref<2x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %se : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %er = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%eq : memref<2x4xi8>) outs(%er : memref<2x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %se : f32
    linalg.yield %1 : f32
  }
  %u = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%er, %e : memref<2x4xf32>, memref<2x4xf32>) outs(%u : memref<2x4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.mulf %in, %in_1 : f32
    linalg.yield %0 : f32
  }
  %acc2 = memref.alloc() : memref<2x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<2x4xi32>)
  linalg.quantized_matmul ins(%eq, %w2, %c0, %c0 : memref<2x4xi8>, memref<4x4xi8>, i32, i32) outs(%acc2 : memref<2x4xi32>)
  %f2 = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc2 : memref<2x4xi32>) outs(%f2 : memref<2x4xf32>) {
  ^bb0(%in: i32, %out: f32):
    %0 = arith.sitofp %in : i32 to f32
    %1 = arith.mulf %0, %s2 : f32
    linalg.yield %1 : f32
  }
  %y2 = memref.alloc() : memref<2x4xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%f2 : memref<2x4xf32>) outs(%y2 : memref<2x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %sy2 : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  %r2 = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y2 : memref<2x4xi8>) outs(%r2 : memref<2x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %sy2 : f32
    linalg.yield %1 : f32
  }
  %g = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%r2, %u : memref<2x4xf32>, memref<2x4xf32>) outs(%g : memref<2x4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.addf %in, %in_1 : f32
    linalg.yield %0 : f32
  }
  %o = memref.alloc() : memref<2x4xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%g : memref<2x4xf32>) outs(%o : memref<2x4xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %so : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%o : memref<2x4xi8>) outs(%result0 : memref<2x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %so : f32
    linalg.yield %1 : f32
  }
  func.return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @position(%arg0: memref<2x8xf32>, %result0: memref<2x8xf32> {vta.result = 0 : i64}) {
  %sx = arith.constant 5.000000e-02 : f32
  %z = arith.constant 0.000000e+00 : f32
  %lo = arith.constant -1.280000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %q = memref.alloc() : memref<2x8xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : memref<2x8xf32>) outs(%q : memref<2x8xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %sx : f32
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
    %1 = arith.mulf %0, %sx : f32
    linalg.yield %1 : f32
  }
  %p = memref.alloc() : memref<2x8xf32>
  // expected-error@+1 {{vta-integerize: a float generic computes 'linalg.index', which the host's float code does not (f32 arithmetic, comparisons, selects and the math functions)}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : memref<2x8xf32>) outs(%p : memref<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %n = arith.index_cast %i : index to i64
    %f = arith.sitofp %n : i64 to f32
    %0 = arith.addf %in, %f : f32
    linalg.yield %0 : f32
  }
  %o = memref.alloc() : memref<2x8xi8>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%p : memref<2x8xf32>) outs(%o : memref<2x8xi8>) {
  ^bb0(%in: f32, %out: i8):
    %0 = arith.divf %in, %sx : f32
    %1 = math.roundeven %0 : f32
    %2 = arith.addf %1, %z : f32
    %3 = arith.maximumf %2, %lo : f32
    %4 = arith.minimumf %3, %hi : f32
    %5 = arith.fptosi %4 : f32 to i8
    linalg.yield %5 : i8
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%o : memref<2x8xi8>) outs(%result0 : memref<2x8xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %sx : f32
    linalg.yield %1 : f32
  }
  func.return
}
