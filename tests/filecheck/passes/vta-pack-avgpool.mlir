// vta-pack on average pooling (docs/pipeline.md, "Pooling"; docs/onnx.md §4.7): a sum pool of
// data padded with a value other than 0 (the input's zero point; vta-tile adds it per padded
// tap), an epilogue operand varying per position, (n, c, h, w) -> (h, w), packed as a whole
// tensor repeated over N and C (repeat [1, 16]) and loaded into a second accumulator; a global
// sum pool into N×C, computed as N×C×1×1 and stored through a memref.expand_shape of the
// output.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack | filecheck %s

// CHECK-LABEL: func.func @avg(
// CHECK-SAME:    %m: memref<1x1x4x4x1x16xi32> {vta.arg = {shape = array<i64: 4, 4>, dtype = "int32", repeat = array<i64: 1, 16>, padded_shape = array<i64: 4, 4>, split_shape = array<i64: 1, 1, 1, 16, 4, 4>, perm = array<i64: 0, 2, 4, 5, 1, 3>}}
// CHECK:         %[[V:.*]] = arith.constant -7 : i8
// CHECK:         %[[XP:.*]] = memref.alloc() : memref<1x1x6x6x1x16xi8>
// CHECK-NEXT:    linalg.fill ins(%[[V]] : i8) outs(%[[XP]] : memref<1x1x6x6x1x16xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[XP]], %window : memref<1x1x6x6x1x16xi8>, memref<3x3xi8>) outs(%acc : memref<1x1x4x4x1x16xi32>)
// CHECK:         %[[MACC:.*]] = memref.alloc() : memref<1x1x4x4x1x16xi32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%m : memref<1x1x4x4x1x16xi32>) outs(%[[MACC]] : memref<1x1x4x4x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%acc, %[[MACC]] : memref<1x1x4x4x1x16xi32>, memref<1x1x4x4x1x16xi32>) outs(%acc : memref<1x1x4x4x1x16xi32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32):
// CHECK-NEXT:      arith.muli
func.func @avg(%x: memref<1x16x4x4xi8>, %m: memref<4x4xi32>, %y: memref<1x16x4x4xi8>) {
  %v = arith.constant -7 : i8
  %c0 = arith.constant 0 : i32
  %xp = memref.alloc() : memref<1x16x6x6xi8>
  linalg.fill ins(%v : i8) outs(%xp : memref<1x16x6x6xi8>)
  %xi = memref.subview %xp[0, 0, 1, 1] [1, 16, 4, 4] [1, 1, 1, 1]
      : memref<1x16x6x6xi8> to memref<1x16x4x4xi8, strided<[576, 36, 6, 1], offset: 7>>
  memref.copy %x, %xi : memref<1x16x4x4xi8> to memref<1x16x4x4xi8, strided<[576, 36, 6, 1], offset: 7>>
  %win = memref.alloc() : memref<3x3xi8>
  %acc = memref.alloc() : memref<1x16x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x4x4xi32>)
  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>,
                           strides = dense<1> : tensor<2xi64>}
      ins(%xp, %win : memref<1x16x6x6xi8>, memref<3x3xi8>) outs(%acc : memref<1x16x4x4xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %m : memref<1x16x4x4xi32>, memref<4x4xi32>) outs(%y : memref<1x16x4x4xi8>) {
  ^bb0(%a: i32, %mm: i32, %o: i8):
    %ca = arith.constant 63 : i32
    %b = arith.addi %a, %ca : i32
    %cs1 = arith.constant 1 : i32
    %t = arith.shrsi %b, %cs1 : i32
    %chi = arith.constant 20000 : i32
    %clo = arith.constant -20000 : i32
    %ch = arith.minsi %t, %chi : i32
    %cl = arith.maxsi %ch, %clo : i32
    %u = arith.muli %cl, %mm : i32
    %cs2 = arith.constant 8 : i32
    %r1 = arith.shrsi %u, %cs2 : i32
    %cz = arith.constant 7 : i32
    %r2 = arith.addi %r1, %cz : i32
    %c1 = arith.constant 1 : i32
    %r3 = arith.shrsi %r2, %c1 : i32
    %c127 = arith.constant 127 : i32
    %cm128 = arith.constant -128 : i32
    %r4 = arith.minsi %r3, %c127 : i32
    %r5 = arith.maxsi %r4, %cm128 : i32
    %tr = arith.trunci %r5 : i32 to i8
    linalg.yield %tr : i8
  }
  memref.dealloc %xp : memref<1x16x6x6xi8>
  return
}


// -----

// CHECK-LABEL: func.func @gap_nc(
// CHECK-SAME:    %y: memref<1x2x1x16xi8> {vta.arg = {shape = array<i64: 1, 32>, dtype = "int8", padded_shape = array<i64: 1, 32>, split_shape = array<i64: 1, 1, 2, 16>, perm = array<i64: 0, 2, 1, 3>}}
// CHECK:         %[[Y:.*]] = memref.expand_shape %y {{\[}}[0], [1], [2], [3, 4, 5]] output_shape [1, 2, 1, 1, 1, 16] : memref<1x2x1x16xi8> into memref<1x2x1x1x1x16xi8>
// CHECK:         linalg.generic {{.*}} ins(%x, %window : memref<1x2x4x4x1x16xi8>, memref<4x4xi8>) outs(%acc : memref<1x2x1x1x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%acc : memref<1x2x1x1x1x16xi32>) outs(%[[Y]] : memref<1x2x1x1x1x16xi8>)
func.func @gap_nc(%x: memref<1x32x4x4xi8>, %b: memref<32xi32>, %y: memref<1x32xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x32xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x32xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<1x32x4x4xi8>) outs(%acc : memref<1x32xi32>) {
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    %s = arith.addi %out, %e : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %b : memref<1x32xi32>, memref<32xi32>) outs(%y : memref<1x32xi8>) {
  ^bb0(%v: i32, %bb: i32, %o: i8):
    %a = arith.addi %v, %bb : i32
    %c4 = arith.constant 4 : i32
    %s = arith.shrsi %a, %c4 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// An operand varying along the channels and the rows: neither per channel nor per position.

func.func @avg_bad_operand(%x: memref<1x16x4x4xi8>, %m: memref<16x2xi32>, %y: memref<1x16x2x2xi8>) {
  %c0 = arith.constant 0 : i32
  %win = memref.alloc() : memref<3x3xi8>
  %acc = memref.alloc() : memref<1x16x2x2xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x2x2xi32>)
  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %win : memref<1x16x4x4xi8>, memref<3x3xi8>) outs(%acc : memref<1x16x2x2xi32>)
  // expected-error @+1 {{broadcasts %m along the result dimensions [1, 2]: an NCHW region reads broadcast operands per channel, (n, c, h, w) -> (c), or per position, (n, c, h, w) -> (h, w)}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %m : memref<1x16x2x2xi32>, memref<16x2xi32>) outs(%y : memref<1x16x2x2xi8>) {
  ^bb0(%a: i32, %mm: i32, %o: i8):
    %u = arith.muli %a, %mm : i32
    %t = arith.trunci %u : i32 to i8
    linalg.yield %t : i8
  }
  return
}
