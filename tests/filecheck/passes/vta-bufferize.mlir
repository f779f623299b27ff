// vta-bufferize: each tensor op and the memref form it becomes (docs/pipeline.md, "Input
// forms: linalg on tensors"); a second run changes nothing.

// RUN: vta-opt %s --split-input-file -p vta-bufferize | filecheck %s
// RUN: vta-opt %s --split-input-file -p vta-bufferize,vta-bufferize | filecheck %s

// tensor.empty destinations become allocations; the result is an out-parameter the last op
// writes; the fill and the matmul accumulate in one buffer, in place.
// CHECK-LABEL: func.func @matmul(%x: memref<1x64xi8>, %w: memref<64x32xi8>, %result0: memref<1x32xi8> {vta.result = 0 : i64}) {
// CHECK-NEXT:    %c0 = arith.constant 0 : i32
// CHECK-NEXT:    %0 = memref.alloc() : memref<1x32xi32>
// CHECK-NEXT:    linalg.fill ins(%c0 : i32) outs(%0 : memref<1x32xi32>)
// CHECK-NEXT:    linalg.matmul ins(%x, %w : memref<1x64xi8>, memref<64x32xi8>) outs(%0 : memref<1x32xi32>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%0 : memref<1x32xi32>) outs(%result0 : memref<1x32xi8>) {
// CHECK:         func.return
func.func @matmul(%x: tensor<1x64xi8>, %w: tensor<64x32xi8>) -> tensor<1x32xi8> {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<1x32xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<1x32xi32>) -> tensor<1x32xi32>
  %2 = linalg.matmul ins(%x, %w : tensor<1x64xi8>, tensor<64x32xi8>) outs(%1 : tensor<1x32xi32>) -> tensor<1x32xi32>
  %3 = tensor.empty() : tensor<1x32xi8>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<1x32xi32>) outs(%3 : tensor<1x32xi8>) {
  ^bb0(%in: i32, %out: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x32xi8>
  return %4 : tensor<1x32xi8>
}

// -----

// tensor.pad is the padding idiom (alloc, fill with the pad value, interior subview, copy);
// a constant the pad's region yields is taken out of it.
// CHECK-LABEL: func.func @conv(%x: memref<1x16x8x8xi8>, %w: memref<16x16x3x3xi8>, %result0: memref<1x16x8x8xi32> {vta.result = 0 : i64}) {
// CHECK-NEXT:    %c0 = arith.constant 0 : i32
// CHECK-NEXT:    %cm128 = arith.constant -128 : i8
// CHECK-NEXT:    %p = memref.alloc() : memref<1x16x10x10xi8>
// CHECK-NEXT:    linalg.fill ins(%cm128 : i8) outs(%p : memref<1x16x10x10xi8>)
// CHECK-NEXT:    %p_interior = memref.subview %p[0, 0, 1, 2] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 12>>
// CHECK-NEXT:    memref.copy %x, %p_interior : memref<1x16x8x8xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 12>>
// CHECK-NEXT:    linalg.fill ins(%c0 : i32) outs(%result0 : memref<1x16x8x8xi32>)
// CHECK-NEXT:    linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%p, %w : memref<1x16x10x10xi8>, memref<16x16x3x3xi8>) outs(%result0 : memref<1x16x8x8xi32>)
// CHECK-NEXT:    func.return
func.func @conv(%x: tensor<1x16x8x8xi8>, %w: tensor<16x16x3x3xi8>) -> tensor<1x16x8x8xi32> {
  %c0 = arith.constant 0 : i32
  %p = tensor.pad %x low[0, 0, 1, 2] high[0, 0, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %cm128 = arith.constant -128 : i8
    tensor.yield %cm128 : i8
  } : tensor<1x16x8x8xi8> to tensor<1x16x10x10xi8>
  %0 = tensor.empty() : tensor<1x16x8x8xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<1x16x8x8xi32>) -> tensor<1x16x8x8xi32>
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%p, %w : tensor<1x16x10x10xi8>, tensor<16x16x3x3xi8>) outs(%1 : tensor<1x16x8x8xi32>) -> tensor<1x16x8x8xi32>
  return %2 : tensor<1x16x8x8xi32>
}

// -----

// A dense tensor constant is a constant global (one per distinct value) read by
// memref.get_global; returning it copies it into the out-parameter (constants are never
// written).
// CHECK:       memref.global "private" constant @__constant_16xi32 : memref<16xi32> = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]>
// CHECK-NOT:   memref.global
// CHECK-LABEL: func.func @constants(%x: memref<4x16xi32>, %result0: memref<4x16xi32> {vta.result = 0 : i64}, %result1: memref<16xi32> {vta.result = 1 : i64}) {
// CHECK-NEXT:    %b = memref.get_global @__constant_16xi32 : memref<16xi32>
// CHECK-NEXT:    %b2 = memref.get_global @__constant_16xi32 : memref<16xi32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x, %b : memref<4x16xi32>, memref<16xi32>) outs(%result0 : memref<4x16xi32>) {
// CHECK:         memref.copy %b2, %result1 : memref<16xi32> to memref<16xi32>
// CHECK-NEXT:    func.return
func.func @constants(%x: tensor<4x16xi32>) -> (tensor<4x16xi32>, tensor<16xi32>) {
  %b = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : tensor<16xi32>
  %b2 = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : tensor<16xi32>
  %0 = tensor.empty() : tensor<4x16xi32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<4x16xi32>, tensor<16xi32>) outs(%0 : tensor<4x16xi32>) {
  ^bb0(%a: i32, %c: i32, %out: i32):
    %s = arith.addi %a, %c : i32
    linalg.yield %s : i32
  } -> tensor<4x16xi32>
  return %1, %b2 : tensor<4x16xi32>, tensor<16xi32>
}

// -----

// Reshapes are views of the source buffer.
// CHECK-LABEL: func.func @reshapes(%x: memref<1x32x1x1xi8>, %result0: memref<2x16xi8> {vta.result = 0 : i64}) {
// CHECK-NEXT:    %0 = memref.collapse_shape %x {{\[}}[0], [1, 2, 3]] : memref<1x32x1x1xi8> into memref<1x32xi8>
// CHECK-NEXT:    %1 = memref.expand_shape %0 {{\[}}[0], [1, 2]] output_shape [1, 2, 16] : memref<1x32xi8> into memref<1x2x16xi8>
// CHECK-NEXT:    %2 = memref.collapse_shape %1 {{\[}}[0, 1], [2]] : memref<1x2x16xi8> into memref<2x16xi8>
// CHECK-NEXT:    linalg.copy ins(%2 : memref<2x16xi8>) outs(%result0 : memref<2x16xi8>)
// CHECK-NEXT:    func.return
func.func @reshapes(%x: tensor<1x32x1x1xi8>) -> tensor<2x16xi8> {
  %0 = tensor.collapse_shape %x [[0], [1, 2, 3]] : tensor<1x32x1x1xi8> into tensor<1x32xi8>
  %1 = tensor.expand_shape %0 [[0], [1, 2]] output_shape [1, 2, 16] : tensor<1x32xi8> into tensor<1x2x16xi8>
  %2 = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<1x2x16xi8> into tensor<2x16xi8>
  %3 = tensor.empty() : tensor<2x16xi8>
  %4 = linalg.copy ins(%2 : tensor<2x16xi8>) outs(%3 : tensor<2x16xi8>) -> tensor<2x16xi8>
  return %4 : tensor<2x16xi8>
}

// -----

// Any linalg op in destination-passing style, named or generic.
// CHECK-LABEL: func.func @broadcast_transpose(%b: memref<16xi32>, %m: memref<4x16xi32>, %result0: memref<4x16xi32> {vta.result = 0 : i64}, %result1: memref<16x4xi32> {vta.result = 1 : i64}) {
// CHECK-NEXT:    linalg.broadcast ins(%b : memref<16xi32>) outs(%result0 : memref<4x16xi32>) dimensions = [0]
// CHECK-NEXT:    linalg.transpose ins(%m : memref<4x16xi32>) outs(%result1 : memref<16x4xi32>) permutation = [1, 0]
// CHECK-NEXT:    func.return
func.func @broadcast_transpose(%b: tensor<16xi32>, %m: tensor<4x16xi32>) -> (tensor<4x16xi32>, tensor<16x4xi32>) {
  %0 = tensor.empty() : tensor<4x16xi32>
  %1 = linalg.broadcast ins(%b : tensor<16xi32>) outs(%0 : tensor<4x16xi32>) dimensions = [0]
  %2 = tensor.empty() : tensor<16x4xi32>
  %3 = linalg.transpose ins(%m : tensor<4x16xi32>) outs(%2 : tensor<16x4xi32>) permutation = [1, 0]
  return %1, %3 : tensor<4x16xi32>, tensor<16x4xi32>
}

// -----

// %1 is read after the second generic overwrites its outs: that generic writes a copy of it.
// CHECK-LABEL: func.func @copy_before_overwrite(
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<4x16xi32>) outs(%result0 : memref<4x16xi32>) {
// CHECK:         memref.copy %result0, %result1 : memref<4x16xi32> to memref<4x16xi32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<4x16xi32>) outs(%result1 : memref<4x16xi32>) {
func.func @copy_before_overwrite(%x: tensor<4x16xi32>) -> (tensor<4x16xi32>, tensor<4x16xi32>) {
  %0 = tensor.empty() : tensor<4x16xi32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x16xi32>) outs(%0 : tensor<4x16xi32>) {
  ^bb0(%a: i32, %out: i32):
    %s = arith.addi %a, %a : i32
    linalg.yield %s : i32
  } -> tensor<4x16xi32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x16xi32>) outs(%1 : tensor<4x16xi32>) {
  ^bb0(%a: i32, %out: i32):
    %s = arith.addi %a, %out : i32
    linalg.yield %s : i32
  } -> tensor<4x16xi32>
  return %1, %2 : tensor<4x16xi32>, tensor<4x16xi32>
}

// -----

// One fill read by two accumulating ops (a CSE'd initialisation): the first writes a buffer
// filled again, the second the fill's own buffer.
// CHECK-LABEL: func.func @fill_again(
// CHECK-NEXT:    %c0 = arith.constant 0 : i32
// CHECK-NEXT:    linalg.fill ins(%c0 : i32) outs(%result1 : memref<4x16xi32>)
// CHECK-NEXT:    linalg.fill ins(%c0 : i32) outs(%result0 : memref<4x16xi32>)
// CHECK-NEXT:    linalg.matmul ins(%x, %w1 : memref<4x8xi8>, memref<8x16xi8>) outs(%result0 : memref<4x16xi32>)
// CHECK-NEXT:    linalg.matmul ins(%x, %w2 : memref<4x8xi8>, memref<8x16xi8>) outs(%result1 : memref<4x16xi32>)
// CHECK-NEXT:    func.return
func.func @fill_again(%x: tensor<4x8xi8>, %w1: tensor<8x16xi8>, %w2: tensor<8x16xi8>) -> (tensor<4x16xi32>, tensor<4x16xi32>) {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<4x16xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<4x16xi32>) -> tensor<4x16xi32>
  %2 = linalg.matmul ins(%x, %w1 : tensor<4x8xi8>, tensor<8x16xi8>) outs(%1 : tensor<4x16xi32>) -> tensor<4x16xi32>
  %3 = linalg.matmul ins(%x, %w2 : tensor<4x8xi8>, tensor<8x16xi8>) outs(%1 : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %2, %3 : tensor<4x16xi32>, tensor<4x16xi32>
}

// -----

// An argument is never written: an op whose outs is one writes a copy.
// CHECK-LABEL: func.func @never_write_arguments(%x: memref<4x16xi32>, %acc: memref<4x16xi32>, %result0: memref<4x16xi32> {vta.result = 0 : i64}) {
// CHECK-NEXT:    memref.copy %acc, %result0 : memref<4x16xi32> to memref<4x16xi32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<4x16xi32>) outs(%result0 : memref<4x16xi32>) {
func.func @never_write_arguments(%x: tensor<4x16xi32>, %acc: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x16xi32>) outs(%acc : tensor<4x16xi32>) {
  ^bb0(%a: i32, %out: i32):
    %s = arith.addi %a, %out : i32
    linalg.yield %s : i32
  } -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// A tensor.empty written by two ops: two buffers.
// CHECK-LABEL: func.func @one_empty_two_writers(
// CHECK:         linalg.fill ins(%c1 : i32) outs(%result0 : memref<4x16xi32>)
// CHECK-NEXT:    linalg.fill ins(%c2 : i32) outs(%result1 : memref<4x16xi32>)
// CHECK-NEXT:    func.return
func.func @one_empty_two_writers(%x: tensor<4x16xi32>) -> (tensor<4x16xi32>, tensor<4x16xi32>) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %0 = tensor.empty() : tensor<4x16xi32>
  %1 = linalg.fill ins(%c1 : i32) outs(%0 : tensor<4x16xi32>) -> tensor<4x16xi32>
  %2 = linalg.fill ins(%c2 : i32) outs(%0 : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %1, %2 : tensor<4x16xi32>, tensor<4x16xi32>
}

// -----

// extract_slice is a subview; insert_slice a copy into a subview of the destination, in
// place; bufferization.to_tensor reads its memref.
// CHECK-LABEL: func.func @slices(%x: memref<4x16xi8>, %m: memref<2x8xi8>, %result0: memref<4x16xi8> {vta.result = 0 : i64}) {
// CHECK-NEXT:    %0 = memref.subview %x[1, 0] [2, 8] [1, 2] : memref<4x16xi8> to memref<2x8xi8, strided<[16, 2], offset: 16>>
// CHECK-NEXT:    %c0 = arith.constant 0 : i8
// CHECK-NEXT:    linalg.fill ins(%c0 : i8) outs(%result0 : memref<4x16xi8>)
// CHECK-NEXT:    %1 = memref.subview %result0[0, 0] [2, 8] [1, 1] : memref<4x16xi8> to memref<2x8xi8, strided<[16, 1]>>
// CHECK-NEXT:    memref.copy %0, %1 : memref<2x8xi8, strided<[16, 2], offset: 16>> to memref<2x8xi8, strided<[16, 1]>>
// CHECK-NEXT:    %2 = memref.subview %result0[2, 8] [2, 8] [1, 1] : memref<4x16xi8> to memref<2x8xi8, strided<[16, 1], offset: 40>>
// CHECK-NEXT:    memref.copy %m, %2 : memref<2x8xi8> to memref<2x8xi8, strided<[16, 1], offset: 40>>
// CHECK-NEXT:    func.return
func.func @slices(%x: tensor<4x16xi8>, %m: memref<2x8xi8>) -> tensor<4x16xi8> {
  %0 = tensor.extract_slice %x[1, 0] [2, 8] [1, 2] : tensor<4x16xi8> to tensor<2x8xi8>
  %t = bufferization.to_tensor %m : memref<2x8xi8> to tensor<2x8xi8>
  %c0 = arith.constant 0 : i8
  %1 = tensor.empty() : tensor<4x16xi8>
  %2 = linalg.fill ins(%c0 : i8) outs(%1 : tensor<4x16xi8>) -> tensor<4x16xi8>
  %3 = tensor.insert_slice %0 into %2[0, 0] [2, 8] [1, 1] : tensor<2x8xi8> into tensor<4x16xi8>
  %4 = tensor.insert_slice %t into %3[2, 8] [2, 8] [1, 1] : tensor<2x8xi8> into tensor<4x16xi8>
  return %4 : tensor<4x16xi8>
}

// -----

// A function without tensors is left as it is.
// CHECK-LABEL: func.func @memrefs_untouched(%x: memref<4xi32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : i32
// CHECK-NEXT:    linalg.fill ins(%c0 : i32) outs(%x : memref<4xi32>)
// CHECK-NEXT:    func.return
func.func @memrefs_untouched(%x: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%x : memref<4xi32>)
  return
}

// -----

// The attributes of a result move onto its out-parameter.
// CHECK-LABEL: func.func @result_attributes(%x: memref<2x16xi8>, %result0: memref<2x16xi8> {vta.quant = {scale = 5.000000e-02 : f64, zero_point = 12 : i64}, vta.result = 0 : i64}) {
// CHECK-NEXT:    linalg.copy ins(%x : memref<2x16xi8>) outs(%result0 : memref<2x16xi8>)
// CHECK-NEXT:    func.return
func.func @result_attributes(%x: tensor<2x16xi8>) -> (tensor<2x16xi8> {vta.quant = {scale = 5.000000e-02 : f64, zero_point = 12 : i64}}) {
  %0 = tensor.empty() : tensor<2x16xi8>
  %1 = linalg.copy ins(%x : tensor<2x16xi8>) outs(%0 : tensor<2x16xi8>) -> tensor<2x16xi8>
  return %1 : tensor<2x16xi8>
}

// -----

// A tensor.extract in the body of a linalg op, of a tensor defined outside it (a gather:
// torch-mlir's nearest Resize), reads that tensor's buffer with memref.load (the load counts
// as a read of that buffer by the op when deciding what the op may overwrite).
// CHECK-LABEL: func.func @gather(%x: memref<1x4xf32>, %result0: memref<1x8xf32> {vta.result = 0 : i64}) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%result0 : memref<1x8xf32>) {
// CHECK-NEXT:    ^bb0(%out: f32):
// CHECK-NEXT:      %i = linalg.index 1 : index
// CHECK-NEXT:      %j = arith.divui %i, %c2 : index
// CHECK-NEXT:      %e = memref.load %x[%c0, %j] : memref<1x4xf32>
// CHECK-NEXT:      linalg.yield %e : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @gather(%x: tensor<1x4xf32>) -> tensor<1x8xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %0 = tensor.empty() : tensor<1x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<1x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 1 : index
    %j = arith.divui %i, %c2 : index
    %e = tensor.extract %x[%c0, %j] : tensor<1x4xf32>
    linalg.yield %e : f32
  } -> tensor<1x8xf32>
  return %1 : tensor<1x8xf32>
}
