// Malformed tensor-level input — the new linalg ops with wrong operands, dynamic shapes,
// dense_resource constants without a valid blob — is one MLIR-style error at the op (or at the
// blob), never a traceback.

// RUN: vta-opt %s --split-input-file --verify-diagnostics
// RUN: not vta-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=NOTRACE

// NOTRACE-NOT: Traceback
// NOTRACE-NOT: internal error

func.func @conv_q_three_inputs(%x: tensor<1x3x12x12xi8>, %w: tensor<16x3x3x3xi8>, %acc: tensor<1x16x5x5xi32>, %zp: i32) -> tensor<1x16x5x5xi32> {
  // expected-error@+1 {{'linalg.conv_2d_nchw_fchw_q' op expected 4 inputs (data, filter, data zero point, filter zero point) and 1 output, got 3 and 1}}
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w, %zp : tensor<1x3x12x12xi8>, tensor<16x3x3x3xi8>, i32) outs(%acc : tensor<1x16x5x5xi32>) -> tensor<1x16x5x5xi32>
  return %0 : tensor<1x16x5x5xi32>
}

// -----

func.func @conv_q_tensor_zero_point(%x: tensor<1x3x12x12xi8>, %w: tensor<16x3x3x3xi8>, %acc: tensor<1x16x5x5xi32>, %zp: tensor<1xi32>) -> tensor<1x16x5x5xi32> {
  // expected-error@+1 {{'linalg.conv_2d_nchw_fchw_q' op operand #2 (a zero point) must be a scalar, got tensor<1xi32>}}
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w, %zp, %zp : tensor<1x3x12x12xi8>, tensor<16x3x3x3xi8>, tensor<1xi32>, tensor<1xi32>) outs(%acc : tensor<1x16x5x5xi32>) -> tensor<1x16x5x5xi32>
  return %0 : tensor<1x16x5x5xi32>
}

// -----

func.func @conv_q_float(%x: tensor<1x3x12x12xf32>, %w: tensor<16x3x3x3xi8>, %acc: tensor<1x16x5x5xi32>, %zp: i32) -> tensor<1x16x5x5xi32> {
  // expected-error@+1 {{'linalg.conv_2d_nchw_fchw_q' op operand #0 must have integer elements, got tensor<1x3x12x12xf32>}}
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w, %zp, %zp : tensor<1x3x12x12xf32>, tensor<16x3x3x3xi8>, i32, i32) outs(%acc : tensor<1x16x5x5xi32>) -> tensor<1x16x5x5xi32>
  return %0 : tensor<1x16x5x5xi32>
}

// -----

func.func @conv_q_index_zero_point(%x: tensor<1x3x12x12xi8>, %w: tensor<16x3x3x3xi8>, %acc: tensor<1x16x5x5xi32>, %zp: index) -> tensor<1x16x5x5xi32> {
  // expected-error@+1 {{'linalg.conv_2d_nchw_fchw_q' op operand #2 must have integer elements, got index}}
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w, %zp, %zp : tensor<1x3x12x12xi8>, tensor<16x3x3x3xi8>, index, index) outs(%acc : tensor<1x16x5x5xi32>) -> tensor<1x16x5x5xi32>
  return %0 : tensor<1x16x5x5xi32>
}

// -----

func.func @conv_q_dynamic(%x: tensor<?x3x12x12xi8>, %w: tensor<16x3x3x3xi8>, %acc: tensor<?x16x5x5xi32>, %zp: i32) -> tensor<?x16x5x5xi32> {
  // expected-error@+1 {{'linalg.conv_2d_nchw_fchw_q' op operand #0 has a dynamic shape (tensor<?x3x12x12xi8>); only static shapes are supported}}
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w, %zp, %zp : tensor<?x3x12x12xi8>, tensor<16x3x3x3xi8>, i32, i32) outs(%acc : tensor<?x16x5x5xi32>) -> tensor<?x16x5x5xi32>
  return %0 : tensor<?x16x5x5xi32>
}

// -----

func.func @conv_q_output_too_large(%x: tensor<1x3x12x12xi8>, %w: tensor<16x3x3x3xi8>, %acc: tensor<1x16x6x6xi32>, %zp: i32) -> tensor<1x16x6x6xi32> {
  // expected-error@+1 {{'linalg.conv_2d_nchw_fchw_q' op inferred input/output operand #0 has shape's dimension #2 to be greater than or equal to 13, but found 12}}
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w, %zp, %zp : tensor<1x3x12x12xi8>, tensor<16x3x3x3xi8>, i32, i32) outs(%acc : tensor<1x16x6x6xi32>) -> tensor<1x16x6x6xi32>
  return %0 : tensor<1x16x6x6xi32>
}

// -----

func.func @conv_q_three_strides(%x: tensor<1x3x12x12xi8>, %w: tensor<16x3x3x3xi8>, %acc: tensor<1x16x5x5xi32>, %zp: i32) -> tensor<1x16x5x5xi32> {
  // expected-error@+1 {{'linalg.conv_2d_nchw_fchw_q' op expected 2 strides, got 3}}
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<3xi64>} ins(%x, %w, %zp, %zp : tensor<1x3x12x12xi8>, tensor<16x3x3x3xi8>, i32, i32) outs(%acc : tensor<1x16x5x5xi32>) -> tensor<1x16x5x5xi32>
  return %0 : tensor<1x16x5x5xi32>
}

// -----

func.func @map_arity(%a: tensor<4xi32>, %init: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{'linalg.map' op expected the body to take one argument per input and one for the init, of their element types (i32, i32), got (i32)}}
  %0 = linalg.map ins(%a : tensor<4xi32>) outs(%init : tensor<4xi32>)
    (%x: i32) {
      linalg.yield %x : i32
    }
  return %0 : tensor<4xi32>
}

// -----

func.func @map_shape(%a: tensor<5xi32>, %init: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{'linalg.map' op expected input #0 of the shape of the init, (4,), got (5,)}}
  %0 = linalg.map { arith.addi } ins(%a, %a : tensor<5xi32>, tensor<5xi32>) outs(%init : tensor<4xi32>)
  return %0 : tensor<4xi32>
}

// -----

func.func @map_dynamic(%a: tensor<?xi32>, %init: tensor<?xi32>) -> tensor<?xi32> {
  // expected-error@+1 {{'linalg.map' op operand #0 has a dynamic shape (tensor<?xi32>); only static shapes are supported}}
  %0 = linalg.map { arith.addi } ins(%a, %a : tensor<?xi32>, tensor<?xi32>) outs(%init : tensor<?xi32>)
  return %0 : tensor<?xi32>
}

// -----

func.func @map_unknown_payload(%a: tensor<4xi32>, %init: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{unknown operation 'arith.frobnicate'}}
  %0 = linalg.map { arith.frobnicate } ins(%a, %a : tensor<4xi32>, tensor<4xi32>) outs(%init : tensor<4xi32>)
  return %0 : tensor<4xi32>
}

// -----

func.func @map_two_inits(%a: tensor<4xi32>, %init: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{expected one init operand in outs(...), got 2}}
  %0 = linalg.map { arith.addi } ins(%a, %a : tensor<4xi32>, tensor<4xi32>) outs(%init, %init : tensor<4xi32>, tensor<4xi32>)
  return %0 : tensor<4xi32>
}

// -----

func.func @map_result_on_memref(%a: memref<4xi32>, %init: memref<4xi32>) {
  // expected-error@+1 {{'linalg.map' op expected the result type to be the init type on tensors and no result on memrefs, got (tensor<4xi32>) for memref<4xi32>}}
  %0 = "linalg.map"(%a, %init) ({
  ^bb0(%x: i32, %y: i32):
    linalg.yield %x : i32
  }) : (memref<4xi32>, memref<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @unknown_resource() -> tensor<4xi8> {
  // expected-error@+1 {{'arith.constant' op unknown resource 'missing': the file's {-# dialect_resources #-} section has no blob for it}}
  %0 = arith.constant dense_resource<missing> : tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @resource_of_another_size() -> tensor<4xi32> {
  // expected-error@+1 {{'arith.constant' op resource 'short' holds 4 bytes, but tensor<4xi32> needs 16}}
  %0 = arith.constant dense_resource<short> : tensor<4xi32>
  return %0 : tensor<4xi32>
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x0400000001020304"
    }
  }
#-}

// -----

func.func @dynamic_resource() -> tensor<?xi8> {
  // expected-error@+1 {{'arith.constant' op dense_resource<dyn> has a dynamic shape (tensor<?xi8>); expected a static shape}}
  %0 = arith.constant dense_resource<dyn> : tensor<?xi8>
  return %0 : tensor<?xi8>
}

{-#
  dialect_resources: {
    builtin: {
      dyn: "0x0400000001020304"
    }
  }
#-}

// -----

func.func @not_hex() -> tensor<4xi8> {
  %0 = arith.constant dense_resource<blob> : tensor<4xi8>
  return %0 : tensor<4xi8>
}

{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{malformed blob of resource 'blob': the hex string has a character that is not a hex digit}}
      blob: "0x0400000001020G04"
    }
  }
#-}

// -----

func.func @no_alignment() -> tensor<1xi8> {
  %0 = arith.constant dense_resource<blob> : tensor<1xi8>
  return %0 : tensor<1xi8>
}

{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{malformed blob of resource 'blob': expected at least 4 bytes (the alignment), got 1}}
      blob: "0x01"
    }
  }
#-}

// -----

func.func @alignment_not_a_power_of_two() -> tensor<1xi8> {
  %0 = arith.constant dense_resource<blob> : tensor<1xi8>
  return %0 : tensor<1xi8>
}

{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{malformed blob of resource 'blob': expected the first 4 bytes to encode an alignment that is a power of 2, got 6}}
      blob: "0x0600000001"
    }
  }
#-}

// -----

func.func @odd_digits() -> tensor<1xi8> {
  %0 = arith.constant dense_resource<blob> : tensor<1xi8>
  return %0 : tensor<1xi8>
}

{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{malformed blob of resource 'blob': the hex string has an odd number of digits}}
      blob: "0x040000000"
    }
  }
#-}

// -----

func.func @pad_i8_with_i32(%x: tensor<1x1x4x4xi8>) -> tensor<1x1x6x6xi8> {
  %c = arith.constant 7 : i32
  // expected-error@+1 {{'tensor.pad' op the padding value must have the result's element type i8, but the region yields i32}}
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %c : i32
  } : tensor<1x1x4x4xi8> to tensor<1x1x6x6xi8>
  return %p : tensor<1x1x6x6xi8>
}

// -----

func.func @pad_result_shape(%x: tensor<1x1x4x4xi8>) -> tensor<1x1x6x7xi8> {
  %c = arith.constant 0 : i8
  // expected-error@+1 {{'tensor.pad' op result dimension 3 has size 7, but the source's 4 padded by 1 and 1 is 6}}
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %c : i8
  } : tensor<1x1x4x4xi8> to tensor<1x1x6x7xi8>
  return %p : tensor<1x1x6x7xi8>
}

// -----

func.func @pad_result_element_type(%x: tensor<4xi8>) -> tensor<6xi32> {
  %c = arith.constant 0 : i32
  // expected-error@+1 {{'tensor.pad' op result element type i32 does not match the source's i8}}
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c : i32
  } : tensor<4xi8> to tensor<6xi32>
  return %p : tensor<6xi32>
}

// -----

func.func @slice_past_the_end(%x: tensor<4x16xi8>) -> tensor<2x8xi8> {
  // expected-error@+1 {{'tensor.extract_slice' op slice along dimension 0 runs past the end of the dimension: offset 3, size 2 and stride 1 reach index 4, but the dimension has size 4}}
  %0 = tensor.extract_slice %x[3, 0] [2, 8] [1, 1] : tensor<4x16xi8> to tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}

// -----

func.func @strided_slice_past_the_end(%x: tensor<4x16xi8>) -> tensor<2x8xi8> {
  // expected-error@+1 {{'tensor.extract_slice' op slice along dimension 1 runs past the end of the dimension: offset 2, size 8 and stride 2 reach index 16}}
  %0 = tensor.extract_slice %x[0, 2] [2, 8] [1, 2] : tensor<4x16xi8> to tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}
