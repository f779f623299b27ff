// vta-pack on pooling ops (stage 1 of docs/pipeline.md, "Pooling").  A max-pool reads a copy of
// its data padded with -128 (any i8 value: VTA never reads a pooling's padding), kept in the
// packed layout; its i8 output's fill (-128) becomes the accumulator's fill and an add.  The
// pooling is a linalg.generic over (b, c, oh, ow, kh, kw, bb, cc) reading the data in the
// accumulator's (tensor) layout and a window alloc that only gives the window its shape.  A
// global average pool (a reduction generic over H and W) has the whole image as its window; a
// sum pooling (linalg.pooling_nchw_sum) combines by addi.  The last splits are diagnosed.
// Prefixes: the plain one for the default configuration (BATCH 1, BLOCK 16), B2 for batch2.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file --verify-diagnostics --config batch2 -p vta-pack | filecheck %s --check-prefix=B2
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack,vta-pack | filecheck %s

// CHECK-LABEL: func.func @maxpool(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x1x8x8x1x16xi8> {vta.arg = {shape = array<i64: 2, 16, 8, 8>, dtype = "int8", padded_shape = array<i64: 2, 16, 8, 8>, split_shape = array<i64: 2, 1, 1, 16, 8, 8>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<2x1x4x4x1x16xi8> {vta.arg = {{.*}}}) {
// CHECK-NEXT:    %[[V:.*]] = arith.constant -128 : i8
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<2x1x4x4x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%[[C0]] : i32) outs(%[[ACC]] : memref<2x1x4x4x1x16xi32>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]] : memref<2x1x4x4x1x16xi32>) outs(%[[ACC]] : memref<2x1x4x4x1x16xi32>) {
// CHECK:           arith.constant -128 : i32
// CHECK-NEXT:      arith.addi
// CHECK:         %[[XP:.*]] = memref.alloc() : memref<2x1x10x10x1x16xi8>
// CHECK-NEXT:    linalg.fill ins(%[[V]] : i8) outs(%[[XP]] : memref<2x1x10x10x1x16xi8>)
// CHECK-NEXT:    %[[XI:.*]] = memref.subview %[[XP]][0, 0, 1, 1, 0, 0] [2, 1, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1] : memref<2x1x10x10x1x16xi8> to memref<2x1x8x8x1x16xi8, strided<[1600, 1600, 160, 16, 16, 1], offset: 176>>
// CHECK-NEXT:    memref.copy %[[X]], %[[XI]] : memref<2x1x8x8x1x16xi8> to memref<2x1x8x8x1x16xi8, strided<[1600, 1600, 160, 16, 16, 1], offset: 176>>
// CHECK-NEXT:    %[[WIN:.*]] = memref.alloc() : memref<3x3xi8>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, ((d2 * 2) + d4), ((d3 * 2) + d5), d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d6, d7)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]} ins(%[[XP]], %[[WIN]] : memref<2x1x10x10x1x16xi8>, memref<3x3xi8>) outs(%[[ACC]] : memref<2x1x4x4x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[IN:.*]]: i8, %{{.*}}: i8, %[[OUT:.*]]: i32):
// CHECK-NEXT:      %[[E:.*]] = arith.extsi %[[IN]] : i8 to i32
// CHECK-NEXT:      %[[M:.*]] = arith.maxsi %[[OUT]], %[[E]] : i32
// CHECK-NEXT:      linalg.yield %[[M]] : i32
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : memref<2x1x4x4x1x16xi32>) outs(%[[Y]] : memref<2x1x4x4x1x16xi8>) {
// CHECK:           arith.trunci
// CHECK:         memref.dealloc %[[XP]] : memref<2x1x10x10x1x16xi8>
// CHECK-NEXT:    func.return

// B2-LABEL: func.func @maxpool(
// B2-SAME:    memref<1x1x8x8x2x16xi8>
// B2:         %[[XP:.*]] = memref.alloc() : memref<1x1x10x10x2x16xi8>
// B2:         linalg.generic {{.*}} ins(%[[XP]], %{{.*}} : memref<1x1x10x10x2x16xi8>, memref<3x3xi8>) outs(%{{.*}} : memref<1x1x4x4x2x16xi32>)

func.func @maxpool(%x: memref<2x16x8x8xi8>, %y: memref<2x16x4x4xi8>) {
  %v = arith.constant -128 : i8
  %xp = memref.alloc() : memref<2x16x10x10xi8>
  linalg.fill ins(%v : i8) outs(%xp : memref<2x16x10x10xi8>)
  %xi = memref.subview %xp[0, 0, 1, 1] [2, 16, 8, 8] [1, 1, 1, 1] : memref<2x16x10x10xi8> to memref<2x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  memref.copy %x, %xi : memref<2x16x8x8xi8> to memref<2x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  %win = memref.alloc() : memref<3x3xi8>
  linalg.fill ins(%v : i8) outs(%y : memref<2x16x4x4xi8>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%xp, %win : memref<2x16x10x10xi8>, memref<3x3xi8>) outs(%y : memref<2x16x4x4xi8>)
  memref.dealloc %xp : memref<2x16x10x10xi8>
  return
}

// -----

// A global average pool: the sum over the 7x7 image, then (sum * 21) >> 10.

// CHECK-LABEL: func.func @gap(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x2x7x7x1x16xi8> {vta.arg = {{.*}}},
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<2x2x1x1x1x16xi8> {vta.arg = {{.*}}}) {
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<2x2x1x1x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : i32) outs(%[[ACC]] : memref<2x2x1x1x1x16xi32>)
// CHECK-NEXT:    %[[WIN:.*]] = memref.alloc() : memref<7x7xi8>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, (d2 + d4), (d3 + d5), d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d6, d7)>], {{.*}}} ins(%[[X]], %[[WIN]] : memref<2x2x7x7x1x16xi8>, memref<7x7xi8>) outs(%[[ACC]] : memref<2x2x1x1x1x16xi32>) {
// CHECK:           arith.extsi
// CHECK-NEXT:      arith.addi
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : {{.*}}) outs(%[[ACC]] : {{.*}}) {
// CHECK:           arith.muli
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : {{.*}}) outs(%[[ACC]] : {{.*}}) {
// CHECK:           arith.shrsi
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : {{.*}}) outs(%[[Y]] : {{.*}}) {
// CHECK:           arith.trunci

// B2-LABEL: func.func @gap(
// B2-SAME:    memref<1x2x7x7x2x16xi8>

func.func @gap(%x: memref<2x32x7x7xi8>, %y: memref<2x32x1x1xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<2x32x1x1xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<2x32x1x1xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, 0, 0)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<2x32x7x7xi8>) outs(%acc : memref<2x32x1x1xi32>) {
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    %s = arith.addi %out, %e : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<2x32x1x1xi32>) outs(%y : memref<2x32x1x1xi8>) {
  ^bb0(%a: i32, %o: i8):
    %m = arith.constant 21 : i32
    %sh = arith.constant 10 : i32
    %p = arith.muli %a, %m : i32
    %q = arith.shrsi %p, %sh : i32
    %u = arith.trunci %q : i32 to i8
    linalg.yield %u : i8
  }
  return
}

// -----

// A 2x2 stride-2 sum pooling straight into an i8 output (MLIR's i8 addi wraps: the trunci of the
// i32 sum).

// CHECK-LABEL: func.func @sum(
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<1x1x4x4x1x16xi32>
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]] : {{.*}}) outs(%[[ACC]] : {{.*}}) {
// CHECK:           arith.constant 5 : i32
// CHECK:         %[[WIN:.*]] = memref.alloc() : memref<2x2xi8>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, ((d2 * 2) + d4), ((d3 * 2) + d5), d6, d7)>, {{.*}}} ins(%{{.*}}, %[[WIN]] : memref<1x1x8x8x1x16xi8>, memref<2x2xi8>) outs(%[[ACC]] : memref<1x1x4x4x1x16xi32>) {
// CHECK:           arith.extsi
// CHECK-NEXT:      arith.addi
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : {{.*}}) outs(%{{.*}} : memref<1x1x4x4x1x16xi8>) {
// CHECK:           arith.trunci

func.func @sum(%x: memref<1x16x8x8xi8>, %y: memref<1x16x4x4xi8>) {
  %f = arith.constant 5 : i8
  %win = memref.alloc() : memref<2x2xi8>
  linalg.fill ins(%f : i8) outs(%y : memref<1x16x4x4xi8>)
  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %win : memref<1x16x8x8xi8>, memref<2x2xi8>) outs(%y : memref<1x16x4x4xi8>)
  return
}

// -----

func.func @dilated(%x: memref<1x16x8x8xi8>, %y: memref<1x16x3x3xi8>) {
  %f = arith.constant -128 : i8
  %win = memref.alloc() : memref<2x2xi8>
  linalg.fill ins(%f : i8) outs(%y : memref<1x16x3x3xi8>)
  // expected-error@+1 {{has dilations [2, 2]: VTA pools with dilation 1}}
  linalg.pooling_nchw_max {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %win : memref<1x16x8x8xi8>, memref<2x2xi8>) outs(%y : memref<1x16x3x3xi8>)
  return
}

// -----

func.func @min_pool(%x: memref<1x16x4x4xi8>, %y: memref<1x16x1x1xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x16x1x1xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x1x1xi32>)
  // expected-error@+1 {{is a reduction that is not a pooling}}
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, 0, 0)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<1x16x4x4xi8>) outs(%acc : memref<1x16x1x1xi32>) {
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    %s = arith.minsi %out, %e : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x16x1x1xi32>) outs(%y : memref<1x16x1x1xi8>) {
  ^bb0(%a: i32, %o: i8):
    %u = arith.trunci %a : i32 to i8
    linalg.yield %u : i8
  }
  return
}
