// vta-bufferize refuses what it cannot bufferize exactly with one error at the op (the module
// is left unchanged): tensor ops other than those it knows, dynamic shapes, a pad value
// computed from the indices, bufferization.to_buffer, tensors inside loops, results other
// than tensors, reshapes of strided slices.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-bufferize
// RUN: not vta-opt %s --split-input-file -p vta-bufferize 2>&1 | filecheck %s

// CHECK: vta-bufferize-invalid.mlir:[[# @LINE + 5]]:3: error: 'tensor.splat' op is not supported by vta-bufferize: it takes tensor.empty, linalg ops in destination-passing style, tensor.pad, tensor.collapse_shape / expand_shape / extract_slice / insert_slice / concat, tensor constants and bufferization.to_tensor
// CHECK-NOT: Traceback

func.func @unsupported_op(%c: i8) -> tensor<4x16xi8> {
  // expected-error@+1 {{'tensor.splat' op is not supported by vta-bufferize}}
  %0 = tensor.splat %c : tensor<4x16xi8>
  return %0 : tensor<4x16xi8>
}

// -----

// expected-error@+1 {{argument 0 has type tensor<?x16xi8>: vta-bufferize needs static shapes}}
func.func @dynamic_argument(%x: tensor<?x16xi8>) {
  return
}

// -----

func.func @dynamic_empty(%n: index) {
  // expected-error@+1 {{result 0 has a dynamic shape (tensor<?x16xi8>): vta-bufferize needs static shapes}}
  %0 = tensor.empty(%n) : tensor<?x16xi8>
  return
}

// -----

func.func @pad_value_from_indices(%x: tensor<1x1x4x4xi8>) -> tensor<1x1x6x6xi8> {
  // expected-error@+1 {{pads with a value computed in its region}}
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %v = arith.index_cast %k : index to i8
    tensor.yield %v : i8
  } : tensor<1x1x4x4xi8> to tensor<1x1x6x6xi8>
  return %p : tensor<1x1x6x6xi8>
}

// -----

func.func @dynamic_pad(%x: tensor<1x1x4x4xi8>, %h: index) {
  %c0_i8 = arith.constant 0 : i8
  // expected-error@+1 {{result 0 has a dynamic shape}}
  %p = tensor.pad %x low[0, 0, %h, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %c0_i8 : i8
  } : tensor<1x1x4x4xi8> to tensor<1x1x?x6xi8>
  return
}

// -----

func.func @to_buffer(%x: tensor<4xi32>) {
  %c0 = arith.constant 0 : i32
  // expected-error@+1 {{exposes a tensor's buffer as a memref that later ops may write behind the tensor's back}}
  %m = bufferization.to_buffer %x : tensor<4xi32> to memref<4xi32>
  linalg.fill ins(%c0 : i32) outs(%m : memref<4xi32>)
  return
}

// -----

func.func @tensor_in_loop(%x: tensor<4xi32>, %y: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-note@+1 {{inside this op}}
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error@+1 {{uses a tensor inside the region of another op}}
    %v = tensor.extract %x[%i] : tensor<4xi32>
    memref.store %v, %y[%i] : memref<4xi32>
  }
  return
}

// -----

// expected-error@+1 {{result 1 has type i32: vta-bufferize turns tensor results into out-parameters, and takes no other results}}
func.func @scalar_result(%x: tensor<4xi32>) -> (tensor<4xi32>, i32) {
  %c0 = arith.constant 0 : i32
  return %x, %c0 : tensor<4xi32>, i32
}

// -----

func.func @reshape_of_slice(%x: tensor<4x16xi8>) -> tensor<16xi8> {
  %0 = tensor.extract_slice %x[0, 0] [2, 8] [1, 2] : tensor<4x16xi8> to tensor<2x8xi8>
  // expected-error@+1 {{reshapes a strided view}}
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<2x8xi8> into tensor<16xi8>
  return %1 : tensor<16xi8>
}
