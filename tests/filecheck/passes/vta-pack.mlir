// vta-pack: every recognised form, rewritten onto the packed layouts of the configuration
// (stage 1 of docs/pipeline.md).  Prefixes: the plain one for the default configuration
// (BATCH 1, BLOCK 16), B32 for block32 (BATCH 1, BLOCK 32), B2 for batch2 (BATCH 2, BLOCK 16).

// RUN: vta-opt %s --split-input-file -p vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file --pass-pipeline='builtin.module(vta-pack)' | vta-opt --split-input-file | filecheck %s
// RUN: vta-opt %s --split-input-file --config block32 -p vta-pack | filecheck %s --check-prefix=B32
// RUN: vta-opt %s --split-input-file --config batch2 -p vta-pack | filecheck %s --check-prefix=B2
// RUN: vta-opt %s --split-input-file -p vta-pack,vta-pack | filecheck %s

// linalg.matmul with K×N weights: the weights are packed transposed (N-blocks, K-blocks,
// BLOCK_OUT, BLOCK_IN); one packed contraction over (b, o, i, bb, oo, ii).

// CHECK-LABEL: func.func @matmul_kn(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x2x1x16xi8> {vta.arg = {shape = array<i64: 2, 32>, dtype = "int8", padded_shape = array<i64: 2, 32>, split_shape = array<i64: 2, 1, 2, 16>, perm = array<i64: 0, 2, 1, 3>}},
// CHECK-SAME:    %[[W:[a-z0-9_]+]]: memref<3x2x16x16xi8> {vta.arg = {shape = array<i64: 32, 48>, dtype = "int8", padded_shape = array<i64: 32, 48>, split_shape = array<i64: 2, 16, 3, 16>, perm = array<i64: 2, 0, 3, 1>}},
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<2x3x1x16xi8> {vta.arg = {shape = array<i64: 2, 48>, dtype = "int8", padded_shape = array<i64: 2, 48>, split_shape = array<i64: 2, 1, 3, 16>, perm = array<i64: 0, 2, 1, 3>}}) {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<2x3x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%[[C0]] : i32) outs(%[[ACC]] : memref<2x3x1x16xi32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : memref<2x2x1x16xi8>, memref<3x2x16x16xi8>) outs(%[[ACC]] : memref<2x3x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: i8, %[[B:.*]]: i8, %[[S:.*]]: i32):
// CHECK-NEXT:      %[[AE:.*]] = arith.extsi %[[A]] : i8 to i32
// CHECK-NEXT:      %[[BE:.*]] = arith.extsi %[[B]] : i8 to i32
// CHECK-NEXT:      %[[P:.*]] = arith.muli %[[AE]], %[[BE]] : i32
// CHECK-NEXT:      %[[R:.*]] = arith.addi %[[S]], %[[P]] : i32
// CHECK-NEXT:      linalg.yield %[[R]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[ACC]] : memref<2x3x1x16xi32>) outs(%[[Y]] : memref<2x3x1x16xi8>) {
// CHECK-NEXT:    ^{{.*}}(%[[V:.*]]: i32, %{{.*}}: i8):
// CHECK-NEXT:      %[[T:.*]] = arith.trunci %[[V]] : i32 to i8
// CHECK-NEXT:      linalg.yield %[[T]] : i8
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// B32-LABEL: func.func @matmul_kn(
// B32-SAME:    memref<2x1x1x32xi8> {vta.arg = {shape = array<i64: 2, 32>, dtype = "int8", padded_shape = array<i64: 2, 32>, split_shape = array<i64: 2, 1, 1, 32>, perm = array<i64: 0, 2, 1, 3>}},
// B32-SAME:    memref<2x1x32x32xi8> {vta.arg = {shape = array<i64: 32, 48>, dtype = "int8", padded_shape = array<i64: 32, 64>, split_shape = array<i64: 1, 32, 2, 32>, perm = array<i64: 2, 0, 3, 1>}},
// B32-SAME:    memref<2x2x1x32xi8> {vta.arg = {shape = array<i64: 2, 48>, dtype = "int8", padded_shape = array<i64: 2, 64>, split_shape = array<i64: 2, 1, 2, 32>, perm = array<i64: 0, 2, 1, 3>}}) {
// B32:         memref.alloc() : memref<2x2x1x32xi32>
// B32:         ins(%{{.*}}, %{{.*}} : memref<2x1x1x32xi8>, memref<2x1x32x32xi8>) outs(%{{.*}} : memref<2x2x1x32xi32>)

// B2-LABEL: func.func @matmul_kn(
// B2-SAME:    memref<1x2x2x16xi8> {vta.arg = {shape = array<i64: 2, 32>, dtype = "int8", padded_shape = array<i64: 2, 32>, split_shape = array<i64: 1, 2, 2, 16>, perm = array<i64: 0, 2, 1, 3>}},
// B2-SAME:    memref<3x2x16x16xi8> {vta.arg = {shape = array<i64: 32, 48>, dtype = "int8", padded_shape = array<i64: 32, 48>, split_shape = array<i64: 2, 16, 3, 16>, perm = array<i64: 2, 0, 3, 1>}},
// B2-SAME:    memref<1x3x2x16xi8> {vta.arg = {shape = array<i64: 2, 48>, dtype = "int8", padded_shape = array<i64: 2, 48>, split_shape = array<i64: 1, 2, 3, 16>, perm = array<i64: 0, 2, 1, 3>}}) {
// B2:         memref.alloc() : memref<1x3x2x16xi32>
// B2:         ins(%{{.*}}, %{{.*}} : memref<1x2x2x16xi8>, memref<3x2x16x16xi8>) outs(%{{.*}} : memref<1x3x2x16xi32>)

func.func @matmul_kn(%x: memref<2x32xi8>, %w: memref<32x48xi8>, %y: memref<2x48xi8>) {
  %acc = memref.alloc() : memref<2x48xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<2x48xi32>)
  linalg.matmul ins(%x, %w : memref<2x32xi8>, memref<32x48xi8>) outs(%acc : memref<2x48xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<2x48xi32>) outs(%y : memref<2x48xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<2x48xi32>
  return
}
// -----

// A contraction given as linalg.generic with N×K weights (VTA's orientation), a bias added
// by the epilogue (folded into the accumulator's initial value) and the chain
// `((acc + bias) >> 8) max 0 min 127` split into one ALU op per generic.  The host replicates
// the bias over the BATCH lanes (`repeat`): one whole accumulator element per column block,
// read for every row block at (0, o, bb, oo) (with one lane, (0, o, 0, oo)).

// CHECK-LABEL: func.func @generic_nk_bias(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<4x2x1x16xi8> {vta.arg = {shape = array<i64: 4, 32>, dtype = "int8", padded_shape = array<i64: 4, 32>, split_shape = array<i64: 4, 1, 2, 16>, perm = array<i64: 0, 2, 1, 3>}},
// CHECK-SAME:    %[[W:[a-z0-9_]+]]: memref<1x2x16x16xi8> {vta.arg = {shape = array<i64: 16, 32>, dtype = "int8", padded_shape = array<i64: 16, 32>, split_shape = array<i64: 1, 16, 2, 16>, perm = array<i64: 0, 2, 1, 3>}},
// CHECK-SAME:    %[[BIAS:[a-z0-9_]+]]: memref<1x1x1x16xi32> {vta.arg = {shape = array<i64: 16>, dtype = "int32", repeat = array<i64: 1>, padded_shape = array<i64: 16>, split_shape = array<i64: 1, 1, 1, 16>, perm = array<i64: 0, 2, 1, 3>}},
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<4x1x1x16xi8> {vta.arg = {shape = array<i64: 4, 16>, dtype = "int8", padded_shape = array<i64: 4, 16>, split_shape = array<i64: 4, 1, 1, 16>, perm = array<i64: 0, 2, 1, 3>}}) {
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<4x1x1x16xi32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[BIAS]] : memref<1x1x1x16xi32>) outs(%[[ACC]] : memref<4x1x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      linalg.yield %[[B]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[X]], %[[W]] : memref<4x2x1x16xi8>, memref<1x2x16x16xi8>) outs(%[[ACC]] : memref<4x1x1x16xi32>) {
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[ACC]] : memref<4x1x1x16xi32>) outs(%[[ACC]] : memref<4x1x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[V1:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:      %[[R1:.*]] = arith.shrsi %[[V1]], %[[C8]] : i32
// CHECK-NEXT:      linalg.yield %[[R1]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]] : memref<4x1x1x16xi32>) outs(%[[ACC]] : memref<4x1x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[V2:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[R2:.*]] = arith.maxsi %[[V2]], %[[C0]] : i32
// CHECK-NEXT:      linalg.yield %[[R2]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]] : memref<4x1x1x16xi32>) outs(%[[ACC]] : memref<4x1x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[V3:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[C127:.*]] = arith.constant 127 : i32
// CHECK-NEXT:      %[[R3:.*]] = arith.minsi %[[V3]], %[[C127]] : i32
// CHECK-NEXT:      linalg.yield %[[R3]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]] : memref<4x1x1x16xi32>) outs(%[[Y]] : memref<4x1x1x16xi8>) {
// CHECK:         func.return

// B32-LABEL: func.func @generic_nk_bias(
// B32-SAME:    memref<4x1x1x32xi8> {vta.arg
// B32-SAME:    memref<1x1x32x32xi8> {vta.arg = {shape = array<i64: 16, 32>, dtype = "int8", padded_shape = array<i64: 32, 32>, split_shape = array<i64: 1, 32, 1, 32>, perm = array<i64: 0, 2, 1, 3>}},
// B32-SAME:    memref<1x1x1x32xi32> {vta.arg = {shape = array<i64: 16>, dtype = "int32", repeat = array<i64: 1>, padded_shape = array<i64: 32>, split_shape = array<i64: 1, 1, 1, 32>, perm = array<i64: 0, 2, 1, 3>}},
// B32-SAME:    memref<4x1x1x32xi8> {vta.arg

// B2-LABEL: func.func @generic_nk_bias(
// B2-SAME:    memref<2x2x2x16xi8> {vta.arg
// B2-SAME:    memref<1x2x16x16xi8> {vta.arg
// B2-SAME:    %[[BIAS:[a-z0-9_]+]]: memref<1x1x2x16xi32> {vta.arg = {shape = array<i64: 16>, dtype = "int32", repeat = array<i64: 2>, padded_shape = array<i64: 16>, split_shape = array<i64: 1, 2, 1, 16>, perm = array<i64: 0, 2, 1, 3>}},
// B2-SAME:    memref<2x1x2x16xi8> {vta.arg
// B2-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<2x1x2x16xi32>
// B2-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[BIAS]] : memref<1x1x2x16xi32>) outs(%[[ACC]] : memref<2x1x2x16xi32>)

func.func @generic_nk_bias(%x: memref<4x32xi8>, %w: memref<16x32xi8>, %bias: memref<16xi32>,
                           %y: memref<4x16xi8>) {
  %acc = memref.alloc() : memref<4x16xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x32xi8>, memref<16x32xi8>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<4x16xi32>, memref<16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %b: i32, %o: i8):
    %c8 = arith.constant 8 : i32
    %c127 = arith.constant 127 : i32
    %s = arith.addi %v, %b : i32
    %r = arith.shrsi %s, %c8 : i32
    %p = arith.maxsi %r, %c0 : i32
    %q = arith.minsi %p, %c127 : i32
    %t = arith.trunci %q : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// A fill with a non-zero value: VTA resets the accumulator to 0, so the value is added after
// the contraction.

// CHECK-LABEL: func.func @fill_nonzero(
// CHECK:         %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<1x1x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%[[C0]] : i32) outs(%[[ACC]] : memref<1x1x1x16xi32>)
// CHECK-NEXT:    linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]} ins(
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : memref<1x1x1x16xi32>) outs(%[[ACC]] : memref<1x1x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[V:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[C5:.*]] = arith.constant 5 : i32
// CHECK-NEXT:      %{{.*}} = arith.addi %[[V]], %[[C5]] : i32
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : memref<1x1x1x16xi32>) outs(%{{.*}} : memref<1x1x1x16xi8>)
// CHECK-NOT:     linalg.generic
// CHECK:         func.return

func.func @fill_nonzero(%x: memref<1x16xi8>, %w: memref<16x16xi8>, %y: memref<1x16xi8>) {
  %acc = memref.alloc() : memref<1x16xi32>
  %c5 = arith.constant 5 : i32
  linalg.fill ins(%c5 : i32) outs(%acc : memref<1x16xi32>)
  linalg.matmul ins(%x, %w : memref<1x16xi8>, memref<16x16xi8>) outs(%acc : memref<1x16xi32>)
  linalg.copy ins(%acc : memref<1x16xi32>) outs(%acc : memref<1x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<1x16xi32>) outs(%y : memref<1x16xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// Vector add: both int32 inputs go into accumulators; one tensor ADD.

// CHECK-LABEL: func.func @vector_add(
// CHECK-SAME:    %[[A:[a-z0-9_]+]]: memref<1x4x1x16xi32> {vta.arg = {shape = array<i64: 1, 64>, dtype = "int32", padded_shape = array<i64: 1, 64>, split_shape = array<i64: 1, 1, 4, 16>, perm = array<i64: 0, 2, 1, 3>}},
// CHECK-SAME:    %[[B:[a-z0-9_]+]]: memref<1x4x1x16xi32> {vta.arg
// CHECK-SAME:    %[[C:[a-z0-9_]+]]: memref<1x4x1x16xi8> {vta.arg
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<1x4x1x16xi32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[A]] : memref<1x4x1x16xi32>) outs(%[[ACC]] : memref<1x4x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[VA:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      linalg.yield %[[VA]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[ACC2:.*]] = memref.alloc() : memref<1x4x1x16xi32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[B]] : memref<1x4x1x16xi32>) outs(%[[ACC2]] : memref<1x4x1x16xi32>) {
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[ACC]], %[[ACC2]] : memref<1x4x1x16xi32>, memref<1x4x1x16xi32>) outs(%[[ACC]] : memref<1x4x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[L:.*]]: i32, %[[R:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[L]], %[[R]] : i32
// CHECK-NEXT:      linalg.yield %[[S]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]] : memref<1x4x1x16xi32>) outs(%[[C]] : memref<1x4x1x16xi8>) {

// B2-LABEL: func.func @vector_add(
// B2-SAME:    memref<1x4x2x16xi32> {vta.arg = {shape = array<i64: 1, 64>, dtype = "int32", padded_shape = array<i64: 2, 64>, split_shape = array<i64: 1, 2, 4, 16>, perm = array<i64: 0, 2, 1, 3>}},

func.func @vector_add(%a: memref<1x64xi32>, %b: memref<1x64xi32>, %c: memref<1x64xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<1x64xi32>, memref<1x64xi32>) outs(%c : memref<1x64xi8>) {
  ^bb0(%x: i32, %y: i32, %o: i8):
    %s = arith.addi %x, %y : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// Shapes that are not whole blocks (3×40 · 40×24) are zero-padded by the host.

// CHECK-LABEL: func.func @odd_shapes(
// CHECK-SAME:    memref<3x3x1x16xi8> {vta.arg = {shape = array<i64: 3, 40>, dtype = "int8", padded_shape = array<i64: 3, 48>, split_shape = array<i64: 3, 1, 3, 16>, perm = array<i64: 0, 2, 1, 3>}},
// CHECK-SAME:    memref<2x3x16x16xi8> {vta.arg = {shape = array<i64: 40, 24>, dtype = "int8", padded_shape = array<i64: 48, 32>, split_shape = array<i64: 3, 16, 2, 16>, perm = array<i64: 2, 0, 3, 1>}},
// CHECK-SAME:    memref<3x2x1x16xi8> {vta.arg = {shape = array<i64: 3, 24>, dtype = "int8", padded_shape = array<i64: 3, 32>, split_shape = array<i64: 3, 1, 2, 16>, perm = array<i64: 0, 2, 1, 3>}}) {
// CHECK:         memref.alloc() : memref<3x2x1x16xi32>

// B32-LABEL: func.func @odd_shapes(
// B32-SAME:    memref<3x2x1x32xi8> {vta.arg = {shape = array<i64: 3, 40>, dtype = "int8", padded_shape = array<i64: 3, 64>, split_shape = array<i64: 3, 1, 2, 32>, perm = array<i64: 0, 2, 1, 3>}},
// B32-SAME:    memref<1x2x32x32xi8> {vta.arg = {shape = array<i64: 40, 24>, dtype = "int8", padded_shape = array<i64: 64, 32>, split_shape = array<i64: 2, 32, 1, 32>, perm = array<i64: 2, 0, 3, 1>}},
// B32-SAME:    memref<3x1x1x32xi8> {vta.arg = {shape = array<i64: 3, 24>, dtype = "int8", padded_shape = array<i64: 3, 32>, split_shape = array<i64: 3, 1, 1, 32>, perm = array<i64: 0, 2, 1, 3>}}) {

// B2-LABEL: func.func @odd_shapes(
// B2-SAME:    memref<2x3x2x16xi8> {vta.arg = {shape = array<i64: 3, 40>, dtype = "int8", padded_shape = array<i64: 4, 48>, split_shape = array<i64: 2, 2, 3, 16>, perm = array<i64: 0, 2, 1, 3>}},
// B2-SAME:    memref<2x3x16x16xi8> {vta.arg
// B2-SAME:    memref<2x2x2x16xi8> {vta.arg = {shape = array<i64: 3, 24>, dtype = "int8", padded_shape = array<i64: 4, 32>, split_shape = array<i64: 2, 2, 2, 16>, perm = array<i64: 0, 2, 1, 3>}}) {
// B2:         memref.alloc() : memref<2x2x2x16xi32>

func.func @odd_shapes(%x: memref<3x40xi8>, %w: memref<40x24xi8>, %y: memref<3x24xi8>) {
  %acc = memref.alloc() : memref<3x24xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<3x24xi32>)
  linalg.matmul ins(%x, %w : memref<3x40xi8>, memref<40x24xi8>) outs(%acc : memref<3x24xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<3x24xi32>) outs(%y : memref<3x24xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// `subi` of a constant is an ADD of its negation, `shli` a SHR by a negative amount; chains
// split across generics and an i32 temporary are followed through.

// CHECK-LABEL: func.func @sub_shl(
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : memref<2x1x1x16xi32>) outs(%[[ACC:.*]] : memref<2x1x1x16xi32>)
// CHECK:           arith.constant -3 : i32
// CHECK-NEXT:      arith.addi
// CHECK:           arith.constant -2 : i32
// CHECK-NEXT:      arith.shrsi
// CHECK:           arith.constant 9 : i32
// CHECK-NEXT:      arith.muli
// CHECK:           arith.trunci
// CHECK-NOT:     arith.subi
// CHECK-NOT:     arith.shli
// CHECK:         func.return

func.func @sub_shl(%a: memref<2x16xi32>, %y: memref<2x16xi8>) {
  %t = memref.alloc() : memref<2x16xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<2x16xi32>) outs(%t : memref<2x16xi32>) {
  ^bb0(%v: i32, %o: i32):
    %c3 = arith.constant 3 : i32
    %r = arith.subi %v, %c3 : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<2x16xi32>) outs(%y : memref<2x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c2 = arith.constant 2 : i32
    %c9 = arith.constant 9 : i32
    %r = arith.shli %v, %c2 : i32
    %m = arith.muli %c9, %r : i32
    %tr = arith.trunci %m : i32 to i8
    linalg.yield %tr : i8
  }
  return
}

// -----

// int8 inputs of an element-wise op are loaded sign-extended (ACC_8BIT style); the second
// operand of the tensor MAX gets its own accumulator.

// CHECK-LABEL: func.func @int8_inputs(
// CHECK-SAME:    %[[P:[a-z0-9_]+]]: memref<2x1x1x16xi8> {vta.arg
// CHECK-SAME:    %[[Q:[a-z0-9_]+]]: memref<2x1x1x16xi8> {vta.arg
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<2x1x1x16xi32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[P]] : memref<2x1x1x16xi8>) outs(%[[ACC]] : memref<2x1x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[VP:.*]]: i8, %{{.*}}: i32):
// CHECK-NEXT:      %[[E:.*]] = arith.extsi %[[VP]] : i8 to i32
// CHECK-NEXT:      linalg.yield %[[E]] : i32
// CHECK:         %[[ACC2:.*]] = memref.alloc() : memref<2x1x1x16xi32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[Q]] : memref<2x1x1x16xi8>) outs(%[[ACC2]] : memref<2x1x1x16xi32>) {
// CHECK:           arith.extsi
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]], %[[ACC2]] : {{.*}}) outs(%[[ACC]] : memref<2x1x1x16xi32>) {
// CHECK:           arith.maxsi

func.func @int8_inputs(%p: memref<2x16xi8>, %q: memref<2x16xi8>, %y: memref<2x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%p, %q : memref<2x16xi8>, memref<2x16xi8>) outs(%y : memref<2x16xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %m = arith.maxsi %ae, %be : i32
    %t = arith.trunci %m : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// Activations given K×N (transposed) and the inputs of the contraction swapped: the host
// transposes, the packed contraction is the same.

// CHECK-LABEL: func.func @transposed_act(
// CHECK-SAME:    %[[XT:[a-z0-9_]+]]: memref<2x2x1x16xi8> {vta.arg = {shape = array<i64: 32, 2>, dtype = "int8", padded_shape = array<i64: 32, 2>, split_shape = array<i64: 2, 16, 2, 1>, perm = array<i64: 2, 0, 3, 1>}},
// CHECK-SAME:    %[[W:[a-z0-9_]+]]: memref<1x2x16x16xi8> {vta.arg = {shape = array<i64: 16, 32>, dtype = "int8", padded_shape = array<i64: 16, 32>, split_shape = array<i64: 1, 16, 2, 16>, perm = array<i64: 0, 2, 1, 3>}},
// CHECK:         linalg.generic {{.*}} ins(%[[XT]], %[[W]] : memref<2x2x1x16xi8>, memref<1x2x16x16xi8>)

// B2-LABEL: func.func @transposed_act(
// B2-SAME:    memref<1x2x2x16xi8> {vta.arg = {shape = array<i64: 32, 2>, dtype = "int8", padded_shape = array<i64: 32, 2>, split_shape = array<i64: 2, 16, 1, 2>, perm = array<i64: 2, 0, 3, 1>}},

func.func @transposed_act(%xt: memref<32x2xi8>, %w: memref<16x32xi8>, %y: memref<2x16xi8>) {
  %acc = memref.alloc() : memref<2x16xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<2x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (k, m)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%w, %xt : memref<16x32xi8>, memref<32x2xi8>) outs(%acc : memref<2x16xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %be, %ae : i32
    %r = arith.addi %p, %s : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<2x16xi32>) outs(%y : memref<2x16xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// A bias broadcast into the accumulator (linalg.broadcast), then the contraction accumulates
// onto it, as TVM initialises the accumulator; two outputs are two VTA regions.

// CHECK-LABEL: func.func @broadcast_two_outputs(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x1x1x16xi8> {vta.arg
// CHECK-SAME:    %[[W:[a-z0-9_]+]]: memref<1x1x16x16xi8> {vta.arg
// CHECK-SAME:    %[[BIAS:[a-z0-9_]+]]: memref<1x1x1x16xi32> {vta.arg
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<2x1x1x16xi8> {vta.arg
// CHECK-SAME:    %[[Z:[a-z0-9_]+]]: memref<2x1x1x16xi8> {vta.arg
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<2x1x1x16xi32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[BIAS]] : memref<1x1x1x16xi32>) outs(%[[ACC]] : memref<2x1x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[W]] : {{.*}}) outs(%[[ACC]] : memref<2x1x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : memref<2x1x1x16xi32>) outs(%[[Y]] : memref<2x1x1x16xi8>)
// CHECK:         %[[ACC1:.*]] = memref.alloc() : memref<2x1x1x16xi32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[BIAS]] : memref<1x1x1x16xi32>) outs(%[[ACC1]] : memref<2x1x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[W]] : {{.*}}) outs(%[[ACC1]] : memref<2x1x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[ACC1]] : memref<2x1x1x16xi32>) outs(%[[ACC1]] : memref<2x1x1x16xi32>)
// CHECK:           arith.constant 4 : i32
// CHECK:         linalg.generic {{.*}} ins(%[[ACC1]] : memref<2x1x1x16xi32>) outs(%[[Z]] : memref<2x1x1x16xi8>)

// B2-LABEL: func.func @broadcast_two_outputs(
// B2-SAME:    memref<1x1x2x16xi8> {vta.arg
// B2-SAME:    memref<1x1x16x16xi8> {vta.arg
// B2-SAME:    %[[BIAS:[a-z0-9_]+]]: memref<1x1x2x16xi32> {vta.arg = {shape = array<i64: 16>, dtype = "int32", repeat = array<i64: 2>, padded_shape = array<i64: 16>, split_shape = array<i64: 1, 2, 1, 16>, perm = array<i64: 0, 2, 1, 3>}},
// B2-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<1x1x2x16xi32>
// B2-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[BIAS]] : memref<1x1x2x16xi32>) outs(%[[ACC]] : memref<1x1x2x16xi32>)
// B2:         %[[ACC1:.*]] = memref.alloc() : memref<1x1x2x16xi32>
// B2-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[BIAS]] : memref<1x1x2x16xi32>) outs(%[[ACC1]] : memref<1x1x2x16xi32>)

func.func @broadcast_two_outputs(%x: memref<2x16xi8>, %w: memref<16x16xi8>,
                                 %bias: memref<16xi32>, %y: memref<2x16xi8>,
                                 %z: memref<2x16xi8>) {
  %acc = memref.alloc() : memref<2x16xi32>
  linalg.broadcast ins(%bias : memref<16xi32>) outs(%acc : memref<2x16xi32>) dimensions = [0]
  linalg.matmul ins(%x, %w : memref<2x16xi8>, memref<16x16xi8>) outs(%acc : memref<2x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<2x16xi32>) outs(%y : memref<2x16xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<2x16xi32>) outs(%z : memref<2x16xi8>) {
  ^bb0(%a: i32, %o: i8):
    %c4 = arith.constant 4 : i32
    %s = arith.shrsi %a, %c4 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}
