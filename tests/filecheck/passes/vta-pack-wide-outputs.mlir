// vta-pack: an i32 result leaves VTA as its byte planes (passes/pack/wide_outputs.py): the
// packed buffer is the accumulator's layout with an outermost axis of planes, its vta.arg
// splits each element into them (split_shape ends with the planes, perm moves them first), and
// the region stores the accumulator, shifts it right by OUT_WIDTH in place, stores the next
// plane, ...  As many planes as the result's range needs (passes/pack/plane_range.py), at most
// ACC_WIDTH / OUT_WIDTH: a product of int8 operands of depth K from a zero fill is at most
// K * 128 * 128 in magnitude.  Prefixes: the plain one for the default configuration, B32 for
// block32, B2 for batch2.

// A product of depth 40: |y| <= 40 * 2^14 < 2^20, 21 bits with the sign, three planes.

// RUN: vta-opt %s --split-input-file -p vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file --config block32 -p vta-pack | filecheck %s --check-prefix=B32
// RUN: vta-opt %s --split-input-file --config batch2 -p vta-pack | filecheck %s --check-prefix=B2

// CHECK-LABEL: func.func @matmul_i32(
// CHECK-SAME:    %y: memref<3x3x2x1x16xi8> {vta.arg = {shape = array<i64: 3, 20>, dtype = "int32", padded_shape = array<i64: 3, 32>, split_shape = array<i64: 3, 1, 2, 16, 3>, perm = array<i64: 4, 0, 2, 1, 3>}}
// CHECK:         %y_plane0 = memref.subview %y[0, 0, 0, 0, 0] [1, 3, 2, 1, 16] [1, 1, 1, 1, 1] : memref<3x3x2x1x16xi8> to memref<3x2x1x16xi8, strided<[32, 16, 16, 1]>>
// CHECK:         %y_plane2 = memref.subview %y[2, 0, 0, 0, 0] [1, 3, 2, 1, 16] [1, 1, 1, 1, 1] : memref<3x3x2x1x16xi8> to memref<3x2x1x16xi8, strided<[32, 16, 16, 1], offset: 192>>
// CHECK-NOT:     %y_plane3
// CHECK:         linalg.generic {{.*}} ins(%x, %w : memref<3x3x1x16xi8>, memref<2x3x16x16xi8>) outs(%acc : memref<3x2x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%acc : memref<3x2x1x16xi32>) outs(%y_plane0 : memref<3x2x1x16xi8, strided<[32, 16, 16, 1]>>)
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: i32, %{{.*}}: i8):
// CHECK-NEXT:      arith.trunci
// CHECK:         linalg.generic {{.*}} ins(%acc : memref<3x2x1x16xi32>) outs(%acc : memref<3x2x1x16xi32>)
// CHECK:           %{{.*}} = arith.constant 8 : i32
// CHECK-NEXT:      arith.shrsi
// CHECK:         linalg.generic {{.*}} ins(%acc : memref<3x2x1x16xi32>) outs(%y_plane1 : memref<3x2x1x16xi8, strided<[32, 16, 16, 1], offset: 96>>)
// CHECK:         linalg.generic {{.*}} ins(%acc : memref<3x2x1x16xi32>) outs(%acc : memref<3x2x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%acc : memref<3x2x1x16xi32>) outs(%y_plane2 : memref<3x2x1x16xi8, strided<[32, 16, 16, 1], offset: 192>>)
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: i32, %{{.*}}: i8):
// CHECK-NEXT:      arith.trunci
// CHECK-NEXT:      linalg.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// B32-LABEL: func.func @matmul_i32(
// B32-SAME:    %y: memref<3x3x1x1x32xi8> {vta.arg = {shape = array<i64: 3, 20>, dtype = "int32", padded_shape = array<i64: 3, 32>, split_shape = array<i64: 3, 1, 1, 32, 3>, perm = array<i64: 4, 0, 2, 1, 3>}}
// B2-LABEL:  func.func @matmul_i32(
// B2-SAME:     %y: memref<3x2x2x2x16xi8> {vta.arg = {shape = array<i64: 3, 20>, dtype = "int32", padded_shape = array<i64: 4, 32>, split_shape = array<i64: 2, 2, 2, 16, 3>, perm = array<i64: 4, 0, 2, 1, 3>}}
func.func @matmul_i32(%x: memref<3x40xi8>, %w: memref<40x20xi8>, %y: memref<3x20xi32>) {
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<3x20xi32>)
  linalg.matmul ins(%x, %w : memref<3x40xi8>, memref<40x20xi8>) outs(%y : memref<3x20xi32>)
  return
}

// -----

// An element-wise program into an i32 output: its range is not known, all four planes after
// its ALU operations; the output's region ends at its last write.

// CHECK-LABEL: func.func @elementwise_i32(
// CHECK-SAME:    %y: memref<4x2x3x1x16xi8> {vta.arg = {shape = array<i64: 2, 40>, dtype = "int32", padded_shape = array<i64: 2, 48>, split_shape = array<i64: 2, 1, 3, 16, 4>, perm = array<i64: 4, 0, 2, 1, 3>}}
// CHECK:         linalg.generic {{.*}} ins(%a : memref<2x3x1x16xi32>) outs(%acc : memref<2x3x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%acc : memref<2x3x1x16xi32>) outs(%acc : memref<2x3x1x16xi32>)
// CHECK:           arith.muli
// CHECK:         linalg.generic {{.*}} ins(%acc : memref<2x3x1x16xi32>) outs(%y_plane0 :
// CHECK:         linalg.generic {{.*}} ins(%acc : memref<2x3x1x16xi32>) outs(%y_plane3 :
func.func @elementwise_i32(%a: memref<2x40xi32>, %y: memref<2x40xi32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<2x40xi32>) outs(%y : memref<2x40xi32>) {
  ^bb0(%v: i32, %o: i32):
    %k = arith.constant 30001 : i32
    %m = arith.muli %v, %k : i32
    linalg.yield %m : i32
  }
  return
}

// -----

// An i32 buffer a host step reads: a stand-in like an int8 intermediate, stored as planes by
// its region and packed in the planes' layout for the host (the step's packings); depth 32,
// three planes.

// CHECK-LABEL: func.func @host_reads_i32(
// CHECK:         %acc = memref.alloc() : memref<3x4x3x1x16xi8>
// CHECK:         %acc_plane0 = memref.subview %acc[0, 0, 0, 0, 0] [1, 4, 3, 1, 16]
// CHECK:         %acc_1 = memref.alloc() : memref<4x3x1x16xi32>
// CHECK:         linalg.generic {{.*}} outs(%acc_plane2 :
// CHECK:         vta.host "scale" ins(%acc : memref<3x4x3x1x16xi8>) outs(%y : memref<4x48xf32>) packings [{shape = array<i64: 4, 48>, dtype = "int32", padded_shape = array<i64: 4, 48>, split_shape = array<i64: 4, 1, 3, 16, 3>, perm = array<i64: 4, 0, 2, 1, 3>}, {shape = array<i64: 4, 48>, dtype = "float32", padded_shape = array<i64: 4, 48>, split_shape = array<i64: 4, 48>, perm = array<i64: 0, 1>}]
func.func @host_reads_i32(%x: memref<4x32xi8>, %w: memref<32x48xi8>, %y: memref<4x48xf32>) {
  %acc = memref.alloc() : memref<4x48xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x48xi32>)
  linalg.matmul ins(%x, %w : memref<4x32xi8>, memref<32x48xi8>) outs(%acc : memref<4x48xi32>)
  vta.host "scale" ins(%acc : memref<4x48xi32>) outs(%y : memref<4x48xf32>) {
  ^bb0(%a: memref<4x48xi32>, %b: memref<4x48xf32>):
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x48xi32>) outs(%b : memref<4x48xf32>) {
    ^bb0(%v: i32, %o: f32):
      %f = arith.sitofp %v : i32 to f32
      linalg.yield %f : f32
    }
  }
  return
}

// -----

// A convolution's i32 result: the planes in the tensor layout (N/B, O/BO, OH, OW, B, BO);
// all four of them (only products of matrices bound the range).

// CHECK-LABEL: func.func @conv_i32(
// CHECK-SAME:    %y: memref<4x1x2x6x6x1x16xi8> {vta.arg = {shape = array<i64: 1, 32, 6, 6>, dtype = "int32", padded_shape = array<i64: 1, 32, 6, 6>, split_shape = array<i64: 1, 1, 2, 16, 6, 6, 4>, perm = array<i64: 6, 0, 2, 4, 5, 1, 3>}}
// CHECK:         %y_plane3 = memref.subview %y[3, 0, 0, 0, 0, 0, 0] [1, 1, 2, 6, 6, 1, 16] [1, 1, 1, 1, 1, 1, 1] : memref<4x1x2x6x6x1x16xi8> to memref<1x2x6x6x1x16xi8, strided<[1152, 576, 96, 16, 16, 1], offset: 3456>>
// CHECK:         linalg.generic {{.*}} ins(%acc : memref<1x2x6x6x1x16xi32>) outs(%y_plane3 : memref<1x2x6x6x1x16xi8, strided<[1152, 576, 96, 16, 16, 1], offset: 3456>>)
func.func @conv_i32(%x: memref<1x16x8x8xi8>, %w: memref<32x16x3x3xi8>, %y: memref<1x32x6x6xi32>) {
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<1x32x6x6xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x16x8x8xi8>, memref<32x16x3x3xi8>) outs(%y : memref<1x32x6x6xi32>)
  return
}

// -----

// A batched product with an i32 result and a right operand per batch: the host loop over the
// batches stores each batch's planes; the packed buffer is the batch axis, then the planes,
// then the accumulator's layout (perm keeps the batch first and moves the planes second);
// depth 40, three planes per batch.

// CHECK-LABEL: func.func @batch_i32(
// CHECK-SAME:    %y: memref<2x3x3x2x1x16xi8> {vta.arg = {shape = array<i64: 2, 3, 20>, dtype = "int32", padded_shape = array<i64: 2, 3, 32>, split_shape = array<i64: 2, 3, 1, 2, 16, 3>, perm = array<i64: 0, 5, 1, 3, 2, 4>}}
// CHECK:         affine.for %batch = 0 to 2 {
// CHECK:           %y_batch = memref.subview %y[%batch, 0, 0, 0, 0, 0] [1, 3, 3, 2, 1, 16] [1, 1, 1, 1, 1, 1] : memref<2x3x3x2x1x16xi8> to memref<3x3x2x1x16xi8, strided<[96, 32, 16, 16, 1], offset: ?>>
// CHECK:           %y_batch_plane2 = memref.subview %y_batch[2, 0, 0, 0, 0] [1, 3, 2, 1, 16] [1, 1, 1, 1, 1] : memref<3x3x2x1x16xi8, strided<[96, 32, 16, 16, 1], offset: ?>> to memref<3x2x1x16xi8, strided<[32, 16, 16, 1], offset: ?>>
// CHECK:           linalg.generic {{.*}} ins(%acc : memref<3x2x1x16xi32>) outs(%y_batch_plane0 :
// CHECK:             arith.shrsi
// CHECK:           linalg.generic {{.*}} ins(%acc : memref<3x2x1x16xi32>) outs(%y_batch_plane2 :
// B2-LABEL:  func.func @batch_i32(
// B2-SAME:     %y: memref<2x3x2x2x2x16xi8>
func.func @batch_i32(%x: memref<2x3x40xi8>, %w: memref<2x40x20xi8>, %y: memref<2x3x20xi32>) {
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<2x3x20xi32>)
  linalg.batch_matmul ins(%x, %w : memref<2x3x40xi8>, memref<2x40x20xi8>) outs(%y : memref<2x3x20xi32>)
  return
}

// -----

// Depth 512: |y| <= 2^23 needs 25 bits with the sign, all four planes.

// CHECK-LABEL: func.func @deep_i32(
// CHECK-SAME:    %y: memref<4x1x1x1x16xi8> {vta.arg = {shape = array<i64: 1, 16>, dtype = "int32", padded_shape = array<i64: 1, 16>, split_shape = array<i64: 1, 1, 1, 16, 4>, perm = array<i64: 4, 0, 2, 1, 3>}}
// CHECK:         linalg.generic {{.*}} outs(%y_plane3 :
func.func @deep_i32(%x: memref<1x512xi8>, %w: memref<512x16xi8>, %y: memref<1x16xi32>) {
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<1x16xi32>)
  linalg.matmul ins(%x, %w : memref<1x512xi8>, memref<512x16xi8>) outs(%y : memref<1x16xi32>)
  return
}

// -----

// The same depth with constant weights: their largest column sum of magnitudes, 512 * 3,
// bounds |y| by 128 * 1536 < 2^18, 19 bits with the sign: three planes.

// CHECK-LABEL: func.func @deep_constant_i32(
// CHECK-SAME:    %y: memref<3x1x1x1x16xi8> {vta.arg = {shape = array<i64: 1, 16>, dtype = "int32", padded_shape = array<i64: 1, 16>, split_shape = array<i64: 1, 1, 1, 16, 3>, perm = array<i64: 4, 0, 2, 1, 3>}}
// CHECK:         linalg.generic {{.*}} outs(%y_plane2 :
// CHECK-NOT:     %y_plane3
memref.global "private" constant @w : memref<512x16xi8> = dense<-3>
func.func @deep_constant_i32(%x: memref<1x512xi8>, %y: memref<1x16xi32>) {
  %w = memref.get_global @w : memref<512x16xi8>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<1x16xi32>)
  linalg.matmul ins(%x, %w : memref<1x512xi8>, memref<512x16xi8>) outs(%y : memref<1x16xi32>)
  return
}

// -----

// A product accumulated onto a loaded bias: its range is not known, all four planes.

// CHECK-LABEL: func.func @biased_i32(
// CHECK-SAME:    %y: memref<4x1x1x1x16xi8>
func.func @biased_i32(%x: memref<1x32xi8>, %w: memref<32x16xi8>, %b: memref<1x16xi32>,
                      %y: memref<1x16xi32>) {
  memref.copy %b, %y : memref<1x16xi32> to memref<1x16xi32>
  linalg.matmul ins(%x, %w : memref<1x32xi8>, memref<32x16xi8>) outs(%y : memref<1x16xi32>)
  return
}
