// The linalg-on-tensors forms torch-mlir prints (tests/data/torch_mlir) parse, verify and print
// back in MLIR's syntax: linalg.conv_2d_nchw_fchw_q, linalg.map (short and region forms),
// linalg.pooling_nchw_sum on tensors, and dense_resource constants with their blobs.

// RUN: vta-opt %s --split-input-file | filecheck %s
// RUN: vta-opt %s --split-input-file | vta-opt --split-input-file | filecheck %s
// RUN: vta-opt %s --split-input-file --print-op-generic | vta-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @conv_q(
// CHECK:         %{{.*}} = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x3x12x12xi8>, tensor<16x3x3x3xi8>, i32, i32) outs(%{{.*}} : tensor<1x16x5x5xi32>) -> tensor<1x16x5x5xi32>
func.func @conv_q(%x: tensor<1x3x12x12xi8>, %w: tensor<16x3x3x3xi8>, %acc: tensor<1x16x5x5xi32>) -> tensor<1x16x5x5xi32> {
  %zp = arith.constant 17 : i32
  %c0 = arith.constant 0 : i32
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w, %zp, %c0 : tensor<1x3x12x12xi8>, tensor<16x3x3x3xi8>, i32, i32) outs(%acc : tensor<1x16x5x5xi32>) -> tensor<1x16x5x5xi32>
  return %0 : tensor<1x16x5x5xi32>
}

// -----

// CHECK-LABEL: func.func @conv_q_memref(
// CHECK:         linalg.conv_2d_nchw_fchw_q {dilations = dense<[2, 1]> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<1x2x6x6xi8>, memref<4x2x2x2xi8>, i32, i32) outs(%{{.*}} : memref<1x4x4x5xi32>)
// CHECK-NEXT:    func.return
func.func @conv_q_memref(%x: memref<1x2x6x6xi8>, %w: memref<4x2x2x2xi8>, %acc: memref<1x4x4x5xi32>, %zp: i32) {
  linalg.conv_2d_nchw_fchw_q {dilations = dense<[2, 1]> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w, %zp, %zp : memref<1x2x6x6xi8>, memref<4x2x2x2xi8>, i32, i32) outs(%acc : memref<1x4x4x5xi32>)
  return
}

// -----

// The payload op prints its properties but `fastmath<none>`, as MLIR does (arith.addi gets
// MLIR's default `overflowFlags`).
// CHECK-LABEL: func.func @map_short(
// CHECK:         %{{.*}} = linalg.map { arith.addi {overflowFlags = #arith.overflow<none>} } ins(%{{.*}}, %{{.*}} : tensor<4x8xi32>, tensor<4x8xi32>) outs(%{{.*}} : tensor<4x8xi32>)
// CHECK-NEXT:    %{{.*}} = linalg.map { arith.maxsi } ins(%{{.*}}, %{{.*}} : tensor<4x8xi32>, tensor<4x8xi32>) outs(%{{.*}} : tensor<4x8xi32>) {tag = 1 : i32}
// CHECK-NEXT:    linalg.map { arith.addf {fastmath = #arith.fastmath<fast>} } ins(%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) outs(%{{.*}} : memref<4xf32>)
// CHECK-NEXT:    linalg.map { math.absf } ins(%{{.*}} : memref<4xf32>) outs(%{{.*}} : memref<4xf32>)
func.func @map_short(%a: tensor<4x8xi32>, %b: tensor<4x8xi32>, %init: tensor<4x8xi32>, %f: memref<4xf32>, %g: memref<4xf32>) -> tensor<4x8xi32> {
  %0 = linalg.map { arith.addi } ins(%a, %b : tensor<4x8xi32>, tensor<4x8xi32>) outs(%init : tensor<4x8xi32>)
  %1 = linalg.map { arith.maxsi } ins(%0, %b : tensor<4x8xi32>, tensor<4x8xi32>) outs(%init : tensor<4x8xi32>) {tag = 1 : i32}
  linalg.map { arith.addf {fastmath = #arith.fastmath<fast>} } ins(%f, %f : memref<4xf32>, memref<4xf32>) outs(%g : memref<4xf32>)
  // A fastmath<none> attribute is elided, as MLIR does.
  linalg.map { math.absf {fastmath = #arith.fastmath<none>} } ins(%f : memref<4xf32>) outs(%g : memref<4xf32>)
  return %1 : tensor<4x8xi32>
}

// -----

// The body in region form: one argument per input and one for the init element.
// CHECK-LABEL: func.func @map_region(
// CHECK:         %{{.*}} = linalg.map ins(%{{.*}} : tensor<4xi8>) outs(%{{.*}} : tensor<4xi32>)
// CHECK-NEXT:      (%[[IN:.*]]: i8, %[[OUT:.*]]: i32) {
// CHECK-NEXT:        %[[EXT:.*]] = arith.extsi %[[IN]] : i8 to i32
// CHECK-NEXT:        %[[SUM:.*]] = arith.addi %[[EXT]], %[[OUT]] : i32
// CHECK-NEXT:        linalg.yield %[[SUM]] : i32
// CHECK-NEXT:      }
// CHECK-NEXT:    %{{.*}} = linalg.map outs(%{{.*}} : tensor<4xi32>)
// CHECK-NEXT:      (%{{.*}}: i32) {
func.func @map_region(%a: tensor<4xi8>, %init: tensor<4xi32>) -> tensor<4xi32> {
  %0 = linalg.map ins(%a : tensor<4xi8>) outs(%init : tensor<4xi32>)
    (%in: i8, %out: i32) {
      %e = arith.extsi %in : i8 to i32
      %s = arith.addi %e, %out : i32
      linalg.yield %s : i32
    }
  %1 = linalg.map outs(%0 : tensor<4xi32>)
    (%out: i32) {
      %c = arith.constant 3 : i32
      linalg.yield %c : i32
    }
  return %1 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @pool_sum(
// CHECK:         %{{.*}} = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x8x4x4xi32>, tensor<4x4xi32>) outs(%{{.*}} : tensor<1x8x1x1xi32>) -> tensor<1x8x1x1xi32>
func.func @pool_sum(%x: tensor<1x8x4x4xi32>, %acc: tensor<1x8x1x1xi32>) -> tensor<1x8x1x1xi32> {
  %window = tensor.empty() : tensor<4x4xi32>
  %0 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %window : tensor<1x8x4x4xi32>, tensor<4x4xi32>) outs(%acc : tensor<1x8x1x1xi32>) -> tensor<1x8x1x1xi32>
  return %0 : tensor<1x8x1x1xi32>
}

// -----

// The blobs print after the module, in MLIR's syntax (uppercase hex, 4-byte alignment first);
// a key used twice names one blob.
// CHECK-LABEL: func.func @resources(
// CHECK:         %{{.*}} = arith.constant dense_resource<weights> : tensor<2x3xi8>
// CHECK-NEXT:    %{{.*}} = arith.constant dense_resource<bias> : tensor<2xi32>
// CHECK-NEXT:    %{{.*}} = arith.constant dense_resource<weights> : tensor<2x3xi8>
// CHECK:       {-#
// CHECK-NEXT:    dialect_resources: {
// CHECK-NEXT:      builtin: {
// CHECK-DAG:         weights: "0x08000000010203FDFEFF"
// CHECK-DAG:         bias: "0x0800000010000000F0FFFFFF"
// CHECK:           }
// CHECK-NEXT:    }
// CHECK-NEXT:  #-}
func.func @resources() -> (tensor<2x3xi8>, tensor<2xi32>, tensor<2x3xi8>) {
  %w = arith.constant dense_resource<weights> : tensor<2x3xi8>
  %b = arith.constant dense_resource<bias> : tensor<2xi32>
  %w2 = arith.constant dense_resource<weights> : tensor<2x3xi8>
  return %w, %b, %w2 : tensor<2x3xi8>, tensor<2xi32>, tensor<2x3xi8>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x08000000010203fdfeff",
      bias: "0x0800000010000000F0FFFFFF"
    }
  }
#-}
