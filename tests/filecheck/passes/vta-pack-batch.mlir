// vta-pack on batched matrix products (passes/pack/match_batch.py, plan_batch.py), default
// configuration (BATCH 1, BLOCK 16).
//
// One weight for every batch (MLIR's indexing maps, or torch's linalg.broadcast of the weight,
// folded): one 2-D product on the collapsed rows. The 2×32×16 activations and the 2×32×32
// output are packed as matrices of 64 rows (their vta.arg keeps the logical shape, split as
// 64 rows), the bias as any per-column bias.
//
// Weights per batch: a host loop over the batches (affine.for %batch) around the region of one
// batch, whose batched operands are rank-reducing views of buffers packed batch by batch
// (2 × the matrix layout).

// RUN: vta-opt %s --split-input-file -p vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file -p vta-pack,vta-pack | filecheck %s

#id3 = affine_map<(h, i, j) -> (h, i, j)>

// CHECK-LABEL: func.func @shared(
// CHECK-SAME:      %[[X:[a-z0-9_]+]]: memref<64x1x1x16xi8> {vta.arg = {shape = array<i64: 2, 32, 16>, dtype = "int8", padded_shape = array<i64: 2, 32, 16>, split_shape = array<i64: 64, 1, 1, 16>, perm = array<i64: 0, 2, 1, 3>}},
// CHECK-SAME:      %[[W:[a-z0-9_]+]]: memref<2x1x16x16xi8> {vta.arg = {shape = array<i64: 16, 32>,
// CHECK-SAME:      %[[BIAS:[a-z0-9_]+]]: memref<1x2x1x16xi32>
// CHECK-SAME:      %[[Y:[a-z0-9_]+]]: memref<64x2x1x16xi8> {vta.arg = {shape = array<i64: 2, 32, 32>, dtype = "int8", padded_shape = array<i64: 2, 32, 32>, split_shape = array<i64: 64, 1, 2, 16>, perm = array<i64: 0, 2, 1, 3>}})
// CHECK-NOT:     affine.for
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<64x2x1x16xi32>
// CHECK:         linalg.generic {{.*}} ins(%[[BIAS]] : memref<1x2x1x16xi32>) outs(%[[ACC]] : memref<64x2x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[W]] : memref<64x1x1x16xi8>, memref<2x1x16x16xi8>) outs(%[[ACC]] : memref<64x2x1x16xi32>)
// CHECK:         outs(%[[Y]] : memref<64x2x1x16xi8>)

func.func @shared(%x: memref<2x32x16xi8>, %w: memref<16x32xi8>, %bias: memref<32xi32>, %y: memref<2x32x32xi8>) {
  %acc = memref.alloc() : memref<2x32x32xi32>
  %wb = memref.alloc() : memref<2x16x32xi8>
  linalg.broadcast ins(%bias : memref<32xi32>) outs(%acc : memref<2x32x32xi32>) dimensions = [0, 1]
  linalg.broadcast ins(%w : memref<16x32xi8>) outs(%wb : memref<2x16x32xi8>) dimensions = [0]
  linalg.batch_matmul ins(%x, %wb : memref<2x32x16xi8>, memref<2x16x32xi8>) outs(%acc : memref<2x32x32xi32>)
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%acc : memref<2x32x32xi32>) outs(%y : memref<2x32x32xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

#id3 = affine_map<(h, i, j) -> (h, i, j)>

// CHECK-LABEL: func.func @per_batch(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<2x32x1x1x16xi8> {vta.arg = {shape = array<i64: 2, 32, 16>, dtype = "int8", padded_shape = array<i64: 2, 32, 16>, split_shape = array<i64: 2, 32, 1, 1, 16>, perm = array<i64: 0, 1, 3, 2, 4>}},
// CHECK-SAME:      %[[B:[a-z0-9_]+]]: memref<2x2x1x16x16xi8>
// CHECK-SAME:      %[[Y:[a-z0-9_]+]]: memref<2x32x2x1x16xi8>
// CHECK:         affine.for %[[H:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[ACC:.*]] = memref.alloc() : memref<32x2x1x16xi32>
// CHECK-NEXT:      linalg.fill ins(%{{.*}} : i32) outs(%[[ACC]] : memref<32x2x1x16xi32>)
// CHECK-NEXT:      %[[AH:.*]] = memref.subview %[[A]][%[[H]], 0, 0, 0, 0] [1, 32, 1, 1, 16] [1, 1, 1, 1, 1] : memref<2x32x1x1x16xi8> to memref<32x1x1x16xi8, strided<[16, 16, 16, 1], offset: ?>>
// CHECK-NEXT:      %[[BH:.*]] = memref.subview %[[B]][%[[H]], 0, 0, 0, 0] [1, 2, 1, 16, 16] [1, 1, 1, 1, 1] : memref<2x2x1x16x16xi8> to memref<2x1x16x16xi8, strided<[256, 256, 16, 1], offset: ?>>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[AH]], %[[BH]] : {{.*}}) outs(%[[ACC]] : memref<32x2x1x16xi32>)
// CHECK:           %[[YH:.*]] = memref.subview %[[Y]][%[[H]], 0, 0, 0, 0] [1, 32, 2, 1, 16] [1, 1, 1, 1, 1]
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[ACC]] : memref<32x2x1x16xi32>) outs(%[[YH]] : {{.*}})

func.func @per_batch(%a: memref<2x32x16xi8>, %b: memref<2x16x32xi8>, %y: memref<2x32x32xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<2x32x32xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<2x32x32xi32>)
  linalg.batch_matmul ins(%a, %b : memref<2x32x16xi8>, memref<2x16x32xi8>) outs(%acc : memref<2x32x32xi32>)
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%acc : memref<2x32x32xi32>) outs(%y : memref<2x32x32xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  return
}
