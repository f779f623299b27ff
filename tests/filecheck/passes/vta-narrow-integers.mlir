// vta-narrow-integers: an integer matrix product as torch-mlir's FX importer writes it (after
// vta-bufferize): the int8 operands sign-extended to i64 in generics of their own, the
// accumulator in i64, the epilogue in i64. The extensions go (the matmul extends its operands
// itself), the accumulator becomes i32 (|0| + 64·128·128 < 2^31), and the epilogue computes in
// i32 (every value of its body within i32: the accumulator's bound through shrsi, maxsi,
// minsi).

// RUN: vta-opt %s -p vta-narrow-integers | filecheck %s
// RUN: vta-opt %s -p vta-narrow-integers,vta-narrow-integers | filecheck %s

// CHECK-LABEL: func.func @mm
// CHECK-NEXT:    %e2 = memref.alloc() : memref<4x32xi32>
// CHECK-NEXT:    %c0 = arith.constant 0 : i32
// CHECK-NEXT:    linalg.fill ins(%c0 : i32) outs(%e2 : memref<4x32xi32>)
// CHECK-NEXT:    linalg.matmul ins(%a, %b : memref<4x64xi8>, memref<64x32xi8>) outs(%e2 : memref<4x32xi32>)
// CHECK-NEXT:    linalg.generic
// CHECK-SAME:        ins(%e2 : memref<4x32xi32>) outs(%result0 : memref<4x32xi8>)
// CHECK-NEXT:    ^bb0(%in: i32, %out: i8):
// CHECK-NEXT:      %s = arith.constant 6 : i32
// CHECK-NEXT:      %lo = arith.constant -128 : i32
// CHECK-NEXT:      %hi = arith.constant 127 : i32
// CHECK-NEXT:      %0 = arith.shrsi %in, %s : i32
// CHECK-NEXT:      %1 = arith.maxsi %0, %lo : i32
// CHECK-NEXT:      %2 = arith.minsi %1, %hi : i32
// CHECK-NEXT:      %3 = arith.trunci %2 : i32 to i8
// CHECK-NEXT:      linalg.yield %3 : i8
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @mm(%a: memref<4x64xi8>, %b: memref<64x32xi8>, %result0: memref<4x32xi8> {vta.result = 0 : i64}) {
  %e0 = memref.alloc() : memref<4x64xi64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x64xi8>) outs(%e0 : memref<4x64xi64>) {
  ^bb0(%in: i8, %out: i64):
    %x = arith.extsi %in : i8 to i64
    linalg.yield %x : i64
  }
  %e1 = memref.alloc() : memref<64x32xi64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b : memref<64x32xi8>) outs(%e1 : memref<64x32xi64>) {
  ^bb0(%in_1: i8, %out_1: i64):
    %x_1 = arith.extsi %in_1 : i8 to i64
    linalg.yield %x_1 : i64
  }
  %c0 = arith.constant 0 : i64
  %e2 = memref.alloc() : memref<4x32xi64>
  linalg.fill ins(%c0 : i64) outs(%e2 : memref<4x32xi64>)
  linalg.matmul ins(%e0, %e1 : memref<4x64xi64>, memref<64x32xi64>) outs(%e2 : memref<4x32xi64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%e2 : memref<4x32xi64>) outs(%result0 : memref<4x32xi8>) {
  ^bb0(%in_2: i64, %out_2: i8):
    %s = arith.constant 6 : i64
    %lo = arith.constant -128 : i64
    %hi = arith.constant 127 : i64
    %0 = arith.shrsi %in_2, %s : i64
    %1 = arith.maxsi %0, %lo : i64
    %2 = arith.minsi %1, %hi : i64
    %3 = arith.trunci %2 : i64 to i8
    linalg.yield %3 : i8
  }
  func.return
}
