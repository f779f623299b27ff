// vta-pack: element-wise programs of ranks other than 2 and operands broadcast along any
// dimensions, flattened into the packed matrix layout by the host transform of each argument
// (passes/pack/flatten.py); an epilogue combining a value with a chain of immediate ops on it
// (a leaky ReLU) through a copy in a second accumulator.  Prefixes: the plain one for the
// default configuration (BATCH 1, BLOCK 16), B2 for batch2 (BATCH 2, BLOCK 16).

// RUN: vta-opt %s --split-input-file -p vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file --config batch2 -p vta-pack | filecheck %s --check-prefix=B2
// RUN: vta-opt %s --split-input-file -p vta-to-isa | filecheck %s --check-prefix=ISA

// A vector: one column block of whole tensor elements, the vector zero-padded to 1008 (1024
// on batch2, two lanes per element); the packed memref is a plain reshape.

// CHECK-LABEL: func.func @vector_add(
// CHECK-SAME:    %[[A:[a-z0-9_]+]]: memref<63x1x1x16xi32> {vta.arg = {shape = array<i64: 1000>, dtype = "int32", padded_shape = array<i64: 1008>, split_shape = array<i64: 63, 1, 1, 16>, perm = array<i64: 0, 1, 2, 3>}},
// CHECK-SAME:    %[[B:[a-z0-9_]+]]: memref<63x1x1x16xi32> {vta.arg = {{.*}}},
// CHECK-SAME:    %[[C:[a-z0-9_]+]]: memref<63x1x1x16xi8> {vta.arg = {shape = array<i64: 1000>, dtype = "int8", padded_shape = array<i64: 1008>, split_shape = array<i64: 63, 1, 1, 16>, perm = array<i64: 0, 1, 2, 3>}}) {
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<63x1x1x16xi32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[A]] : memref<63x1x1x16xi32>) outs(%[[ACC]] : memref<63x1x1x16xi32>)
// CHECK:         %[[BACC:.*]] = memref.alloc() : memref<63x1x1x16xi32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[B]] : memref<63x1x1x16xi32>) outs(%[[BACC]] : memref<63x1x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]], %[[BACC]] : memref<63x1x1x16xi32>, memref<63x1x1x16xi32>) outs(%[[ACC]] : memref<63x1x1x16xi32>)
// CHECK:         arith.addi
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : memref<63x1x1x16xi32>) outs(%[[C]] : memref<63x1x1x16xi8>)
// CHECK:         arith.trunci

// B2-LABEL: func.func @vector_add(
// B2-SAME:    memref<32x1x2x16xi32> {vta.arg = {shape = array<i64: 1000>, dtype = "int32", padded_shape = array<i64: 1024>, split_shape = array<i64: 32, 1, 2, 16>, perm = array<i64: 0, 1, 2, 3>}},

// ISA-LABEL: vtaisa.program

func.func @vector_add(%a: memref<1000xi32>, %b: memref<1000xi32>, %c: memref<1000xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a, %b : memref<1000xi32>, memref<1000xi32>) outs(%c : memref<1000xi8>) {
  ^bb0(%x: i32, %y: i32, %o: i8):
    %s = arith.addi %x, %y : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// Rank 4 without a convolution: the matrix layout, not the convolution's tensor layout.
// Unit dimensions anywhere: the dimension padded is the one that pads least (3x1x5x1 pads
// dimension 2 to 16 elements: 48 in all; on batch2 to 32: 96).

// CHECK-LABEL: func.func @rank4(
// CHECK-SAME:    memref<64x1x1x16xi8> {vta.arg = {shape = array<i64: 1, 64, 1, 16>, dtype = "int8", padded_shape = array<i64: 1, 64, 1, 16>, split_shape = array<i64: 64, 1, 1, 16>, perm = array<i64: 0, 1, 2, 3>}},
// CHECK-SAME:    memref<3x1x1x16xi32> {vta.arg = {shape = array<i64: 3, 1, 5, 1>, dtype = "int32", padded_shape = array<i64: 3, 1, 16, 1>, split_shape = array<i64: 3, 1, 1, 16>, perm = array<i64: 0, 1, 2, 3>}},
// CHECK:         memref.alloc() : memref<64x1x1x16xi32>
// CHECK:         arith.extsi
// CHECK:         memref.alloc() : memref<3x1x1x16xi32>

// B2-LABEL: func.func @rank4(
// B2-SAME:    memref<32x1x2x16xi8> {vta.arg = {shape = array<i64: 1, 64, 1, 16>, dtype = "int8", padded_shape = array<i64: 1, 64, 1, 16>, split_shape = array<i64: 32, 1, 2, 16>, perm = array<i64: 0, 1, 2, 3>}},
// B2-SAME:    memref<3x1x2x16xi32> {vta.arg = {shape = array<i64: 3, 1, 5, 1>, dtype = "int32", padded_shape = array<i64: 3, 1, 32, 1>, split_shape = array<i64: 3, 1, 2, 16>, perm = array<i64: 0, 1, 2, 3>}},

func.func @rank4(%a: memref<1x64x1x16xi8>, %b: memref<3x1x5x1xi32>, %y: memref<1x64x1x16xi8>,
                 %z: memref<3x1x5x1xi8>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : memref<1x64x1x16xi8>) outs(%y : memref<1x64x1x16xi8>) {
  ^bb0(%x: i8, %o: i8):
    %e = arith.extsi %x : i8 to i32
    %c3 = arith.constant 3 : i32
    %s = arith.muli %e, %c3 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : memref<3x1x5x1xi32>) outs(%z : memref<3x1x5x1xi8>) {
  ^bb0(%x: i32, %o: i8):
    %c1 = arith.constant 1 : i32
    %s = arith.shrsi %x, %c1 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// A bias along the last dimension of a rank-3 tensor, then a leaky ReLU: the columns are that
// dimension, the rows the others; the host transform splits the row dimension that pads least
// into BATCH lanes (on batch2, dimension 1: 5 -> 6) and the column dimension into BLOCK_OUT
// lanes, and perm gathers rows, columns, lanes.  The bias is one row, repeated over the lanes.
// max(x, x >> 2) copies x into a second accumulator (reset, add), shifts it, takes the max.

// CHECK-LABEL: func.func @bias_leaky(
// CHECK-SAME:    %[[A:[a-z0-9_]+]]: memref<15x1x1x16xi8> {vta.arg = {shape = array<i64: 3, 5, 7>, dtype = "int8", padded_shape = array<i64: 3, 5, 16>, split_shape = array<i64: 3, 5, 1, 1, 16>, perm = array<i64: 0, 1, 3, 2, 4>}},
// CHECK-SAME:    %[[BIAS:[a-z0-9_]+]]: memref<1x1x1x16xi32> {vta.arg = {shape = array<i64: 7>, dtype = "int32", repeat = array<i64: 1>, padded_shape = array<i64: 16>, split_shape = array<i64: 1, 1, 16>, perm = array<i64: 1, 0, 2>}},
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<15x1x1x16xi8> {vta.arg = {{.*}}}) {
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<15x1x1x16xi32>
// CHECK:         %[[BACC:.*]] = memref.alloc() : memref<15x1x1x16xi32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>, {{.*}} ins(%[[BIAS]] : memref<1x1x1x16xi32>) outs(%[[BACC]] : memref<15x1x1x16xi32>)
// CHECK:         ins(%[[ACC]], %[[BACC]] : {{.*}}) outs(%[[ACC]] : memref<15x1x1x16xi32>)
// CHECK-NEXT:    ^{{.*}}
// CHECK-NEXT:      arith.addi
// CHECK:         %[[COPY:.*]] = memref.alloc() : memref<15x1x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : i32) outs(%[[COPY]] : memref<15x1x1x16xi32>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[COPY]], %[[ACC]] : {{.*}}) outs(%[[COPY]] : memref<15x1x1x16xi32>)
// CHECK-NEXT:    ^{{.*}}
// CHECK-NEXT:      arith.addi
// CHECK:         linalg.generic {{.*}} ins(%[[COPY]] : memref<15x1x1x16xi32>) outs(%[[COPY]] : memref<15x1x1x16xi32>)
// CHECK-NEXT:    ^{{.*}}
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:      arith.shrsi %{{.*}}, %[[C2]] : i32
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]], %[[COPY]] : {{.*}}) outs(%[[ACC]] : memref<15x1x1x16xi32>)
// CHECK-NEXT:    ^{{.*}}
// CHECK-NEXT:      arith.maxsi
// CHECK:         ins(%[[ACC]] : memref<15x1x1x16xi32>) outs(%[[Y]] : memref<15x1x1x16xi8>)

// B2-LABEL: func.func @bias_leaky(
// B2-SAME:    memref<9x1x2x16xi8> {vta.arg = {shape = array<i64: 3, 5, 7>, dtype = "int8", padded_shape = array<i64: 3, 6, 16>, split_shape = array<i64: 3, 3, 2, 1, 16>, perm = array<i64: 0, 1, 3, 2, 4>}},
// B2-SAME:    memref<1x1x2x16xi32> {vta.arg = {shape = array<i64: 7>, dtype = "int32", repeat = array<i64: 2>, padded_shape = array<i64: 16>, split_shape = array<i64: 2, 1, 16>, perm = array<i64: 1, 0, 2>}},
// B2:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>, {{.*}} outs(%{{.*}} : memref<9x1x2x16xi32>)

func.func @bias_leaky(%a: memref<3x5x7xi8>, %bias: memref<7xi32>, %y: memref<3x5x7xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %bias : memref<3x5x7xi8>, memref<7xi32>) outs(%y : memref<3x5x7xi8>) {
  ^bb0(%x: i8, %b: i32, %o: i8):
    %e = arith.extsi %x : i8 to i32
    %s = arith.addi %e, %b : i32
    %c2 = arith.constant 2 : i32
    %l = arith.shrsi %s, %c2 : i32
    %m = arith.maxsi %s, %l : i32
    %t = arith.trunci %m : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// A per-row operand of a matrix: the columns are the rows' dimension, the transform
// transposes the matrix (perm (2, 0, 3, 1) on the default configuration).

// CHECK-LABEL: func.func @per_row(
// CHECK-SAME:    memref<16x1x1x16xi32> {vta.arg = {shape = array<i64: 4, 16>, dtype = "int32", padded_shape = array<i64: 16, 16>, split_shape = array<i64: 1, 16, 16, 1>, perm = array<i64: 2, 0, 3, 1>}},
// CHECK-SAME:    memref<1x1x1x16xi32> {vta.arg = {shape = array<i64: 4>, dtype = "int32", repeat = array<i64: 1>, padded_shape = array<i64: 16>, split_shape = array<i64: 1, 1, 16>, perm = array<i64: 1, 0, 2>}},

func.func @per_row(%a: memref<4x16xi32>, %b: memref<4xi32>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<4x16xi32>, memref<4xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%u: i32, %v: i32, %o: i8):
    %r = arith.addi %u, %v : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}
