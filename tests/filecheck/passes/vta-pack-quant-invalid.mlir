// A malformed vta.quant is one error at the function, before anything is packed (vta-pack, the
// first pass of vta-to-isa); tests/test_host_quant.py checks the host layout's own check.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack
// RUN: not vta-opt %s --split-input-file -p vta-to-isa 2>&1 | filecheck %s

// CHECK: error: 'func.func' op argument 0 (%x): vta.quant must be a dictionary
// CHECK: error: 'func.func' op argument 0 (%x): vta.quant: missing zero_point
// CHECK: error: 'func.func' op argument 0 (%x): vta.quant: unknown key(s) axis
// CHECK: error: 'func.func' op argument 0 (%x): vta.quant: scale must be a positive finite float (e.g. 0.05 : f64), got 0.000000e+00 : f64
// CHECK: error: 'func.func' op argument 0 (%x): vta.quant: scale must be a positive finite float (e.g. 0.05 : f64), got -2.500000e-01 : f64
// CHECK: error: 'func.func' op argument 0 (%x): vta.quant: scale must be a positive finite float (e.g. 0.05 : f64), got 1 : i64
// CHECK: error: 'func.func' op argument 1 (%y): vta.quant: zero_point must be an integer in [-128, 127] (e.g. -3 : i64), got 128 : i64
// CHECK: error: 'func.func' op argument 1 (%y): vta.quant: zero_point must be an integer in [-128, 127] (e.g. -3 : i64), got 1.000000e+00 : f64
// CHECK: error: 'func.func' op argument 0 (%a): vta.quant is on an argument of type memref<2x16xi32>; only int8 arguments (memrefs of i8) are quantized

// expected-error@+1 {{argument 0 (%x): vta.quant must be a dictionary {scale = <positive finite float> : f64, zero_point = <integer in [-128, 127]> : i64}, got 5.000000e-01 : f64}}
func.func @not_a_dictionary(%x: memref<2x16xi8> {vta.quant = 0.5 : f64}, %y: memref<2x16xi8>) {
  memref.copy %x, %y : memref<2x16xi8> to memref<2x16xi8>
  return
}

// -----

// expected-error@+1 {{argument 0 (%x): vta.quant: missing zero_point}}
func.func @missing(%x: memref<2x16xi8> {vta.quant = {scale = 0.5 : f64}}, %y: memref<2x16xi8>) {
  memref.copy %x, %y : memref<2x16xi8> to memref<2x16xi8>
  return
}

// -----

// expected-error@+1 {{argument 0 (%x): vta.quant: unknown key(s) axis}}
func.func @per_axis(%x: memref<2x16xi8> {vta.quant = {scale = 0.5 : f64, zero_point = 0 : i64, axis = 1 : i64}}, %y: memref<2x16xi8>) {
  memref.copy %x, %y : memref<2x16xi8> to memref<2x16xi8>
  return
}

// -----

// expected-error@+1 {{argument 0 (%x): vta.quant: scale must be a positive finite float}}
func.func @zero_scale(%x: memref<2x16xi8> {vta.quant = {scale = 0.0 : f64, zero_point = 0 : i64}}, %y: memref<2x16xi8>) {
  memref.copy %x, %y : memref<2x16xi8> to memref<2x16xi8>
  return
}

// -----

// expected-error@+1 {{argument 0 (%x): vta.quant: scale must be a positive finite float}}
func.func @negative_scale(%x: memref<2x16xi8> {vta.quant = {scale = -0.25 : f64, zero_point = 0 : i64}}, %y: memref<2x16xi8>) {
  memref.copy %x, %y : memref<2x16xi8> to memref<2x16xi8>
  return
}

// -----

// expected-error@+1 {{argument 0 (%x): vta.quant: scale must be a positive finite float}}
func.func @integer_scale(%x: memref<2x16xi8> {vta.quant = {scale = 1 : i64, zero_point = 0 : i64}}, %y: memref<2x16xi8>) {
  memref.copy %x, %y : memref<2x16xi8> to memref<2x16xi8>
  return
}

// -----

// expected-error@+1 {{argument 1 (%y): vta.quant: zero_point must be an integer in [-128, 127]}}
func.func @zero_point_range(%x: memref<2x16xi8>, %y: memref<2x16xi8> {vta.quant = {scale = 0.5 : f64, zero_point = 128 : i64}}) {
  memref.copy %x, %y : memref<2x16xi8> to memref<2x16xi8>
  return
}

// -----

// expected-error@+1 {{argument 1 (%y): vta.quant: zero_point must be an integer in [-128, 127]}}
func.func @float_zero_point(%x: memref<2x16xi8>, %y: memref<2x16xi8> {vta.quant = {scale = 0.5 : f64, zero_point = 1.0 : f64}}) {
  memref.copy %x, %y : memref<2x16xi8> to memref<2x16xi8>
  return
}

// -----

// expected-error@+1 {{argument 0 (%a): vta.quant is on an argument of type memref<2x16xi32>; only int8 arguments (memrefs of i8) are quantized}}
func.func @int32_argument(%a: memref<2x16xi32> {vta.quant = {scale = 0.5 : f64, zero_point = 0 : i64}}, %y: memref<2x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<2x16xi32>) outs(%y : memref<2x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  return
}
