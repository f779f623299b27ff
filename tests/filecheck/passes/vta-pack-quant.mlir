// vta.quant on the int8 arguments at a model's float edges: vta-pack keeps it beside the
// argument's vta.arg, the host layout puts it in the argument table, and the lowered program
// prints it on vtaisa.arg (and parses back to the same text).  An argument without it is
// unchanged.  tests/test_host_quant.py runs such programs.

// RUN: vta-opt %s -p vta-pack | filecheck %s
// RUN: vta-opt %s -p vta-to-isa | filecheck %s --check-prefix=ISA
// RUN: vta-opt %s -p vta-to-isa > %t.isa.mlir
// RUN: vta-opt %t.isa.mlir | diff %t.isa.mlir -

// CHECK-LABEL: func.func @dense(
// CHECK-SAME:    %x: memref<2x3x1x16xi8> {vta.quant = {scale = 7.812500e-03 : f64, zero_point = -3 : i64}, vta.arg = {shape = array<i64: 2, 40>, dtype = "int8", padded_shape = array<i64: 2, 48>, split_shape = array<i64: 2, 1, 3, 16>, perm = array<i64: 0, 2, 1, 3>}},
// CHECK-SAME:    %w: memref<2x3x16x16xi8> {vta.arg = {shape = array<i64: 40, 24>, dtype = "int8", {{[^}]*}}}},
// CHECK-SAME:    %y: memref<2x2x1x16xi8> {vta.quant = {scale = 5.000000e-02 : f64, zero_point = 12 : i64}, vta.arg = {shape = array<i64: 2, 24>, dtype = "int8", padded_shape = array<i64: 2, 32>, split_shape = array<i64: 2, 1, 2, 16>, perm = array<i64: 0, 2, 1, 3>}})

// ISA:      vtaisa.arg "x" in int8 [2, 40] quant scale 0.0078125 zero_point -3 padded [2, 48] split [2, 1, 3, 16] perm [0, 2, 1, 3] packed int8 segment "x"
// ISA-NEXT: vtaisa.arg "w" in int8 [40, 24] padded [48, 32] split [3, 16, 2, 16] perm [2, 0, 3, 1] packed int8 segment "w"
// ISA-NEXT: vtaisa.arg "y" out int8 [2, 24] quant scale 0.05 zero_point 12 padded [2, 32] split [2, 1, 2, 16] perm [0, 2, 1, 3] packed int8 segment "y"

func.func @dense(%x: memref<2x40xi8> {vta.quant = {scale = 0.0078125 : f64, zero_point = -3 : i64}},
                 %w: memref<40x24xi8>,
                 %y: memref<2x24xi8> {vta.quant = {scale = 0.05 : f64, zero_point = 12 : i64}}) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<2x24xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<2x24xi32>)
  linalg.matmul ins(%x, %w : memref<2x40xi8>, memref<40x24xi8>) outs(%acc : memref<2x24xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<2x24xi32>) outs(%y : memref<2x24xi8>) {
  ^bb0(%a: i32, %o: i8):
    %c6 = arith.constant 6 : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %s = arith.shrsi %a, %c6 : i32
    %m = arith.maxsi %s, %lo : i32
    %n = arith.minsi %m, %hi : i32
    %t = arith.trunci %n : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<2x24xi32>
  return
}
