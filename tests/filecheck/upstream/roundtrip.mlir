// Typical upstream forms of linalg, memref, affine and arith parse, verify and print back
// unchanged (printing the output again gives the same text).

// RUN: vta-opt %s --split-input-file | filecheck %s
// RUN: vta-opt %s --split-input-file | vta-opt --split-input-file | filecheck %s
// RUN: vta-opt %s --split-input-file --print-op-generic | vta-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @generic(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32>) {
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      %{{.*}} = arith.addf
// CHECK-NEXT:      linalg.yield
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @fill_and_transpose(
// CHECK:         linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : memref<4x8xi32>)
// CHECK-NEXT:    linalg.transpose ins(%{{.*}} : memref<4x8xi32>) outs(%{{.*}} : memref<8x4xi32>) permutation = [1, 0]
// CHECK-NEXT:    linalg.broadcast ins(%{{.*}} : memref<8xi32>) outs(%{{.*}} : memref<8x4xi32>) dimensions = [1]
func.func @fill_and_transpose(%a: memref<4x8xi32>, %b: memref<8x4xi32>, %v: memref<8xi32>) {
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%a : memref<4x8xi32>)
  linalg.transpose ins(%a : memref<4x8xi32>) outs(%b : memref<8x4xi32>) permutation = [1, 0]
  linalg.broadcast ins(%v : memref<8xi32>) outs(%b : memref<8x4xi32>) dimensions = [1]
  return
}

// -----

// CHECK-LABEL: func.func @views(
// CHECK:         %{{.*}} = memref.alloc() {alignment = 64 : i64} : memref<16x16xi8, 1>
// CHECK:         %{{.*}} = memref.subview %{{.*}}[2, 4] [4, 8] [1, 2] : memref<16x32xi8> to memref<4x8xi8, strided<[32, 2], offset: 68>>
// CHECK:         %{{.*}} = memref.subview %{{.*}}[%{{.*}}, 0] [4, 8] [1, 1] : memref<16x32xi8> to memref<4x8xi8, strided<[32, 1], offset: ?>>
// CHECK:         memref.dealloc %{{.*}} : memref<16x16xi8, 1>
func.func @views(%a: memref<16x32xi8>, %i: index) {
  %buf = memref.alloc() {alignment = 64 : i64} : memref<16x16xi8, 1>
  %0 = memref.subview %a[2, 4] [4, 8] [1, 2] : memref<16x32xi8> to memref<4x8xi8, strided<[32, 2], offset: 68>>
  %1 = memref.subview %a[%i, 0] [4, 8] [1, 1] : memref<16x32xi8> to memref<4x8xi8, strided<[32, 1], offset: ?>>
  memref.dealloc %buf : memref<16x16xi8, 1>
  return
}

// -----

// CHECK-LABEL: func.func @loops(
// CHECK:         affine.for %{{.*}} = 0 to 10 step 2 {
// CHECK:         %{{.*}} = affine.for %{{.*}} = 0 to 10 iter_args(%{{.*}} = %{{.*}}) -> (index) {
func.func @loops(%n: index) -> index {
  affine.for %i = 0 to 10 step 2 {
  }
  %r = affine.for %i = 0 to 10 iter_args(%acc = %n) -> (index) {
    %m = affine.min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%i)[%acc]
    affine.yield %m : index
  }
  return %r : index
}

// -----

// CHECK-LABEL: func.func @contractions(
// CHECK:         linalg.quantized_matmul ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<4x8xi8>, memref<8x4xi8>, i32, i32) outs(%{{.*}} : memref<4x4xi32>)
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(
// CHECK:         %{{.*}} = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x4xf16>) outs(%{{.*}} : tensor<4x4xf32>) -> tensor<4x4xf32>
func.func @contractions(%a: memref<4x8xi8>, %b: memref<8x4xi8>, %c: memref<4x4xi32>,
                        %i: memref<1x4x8x8xi8>, %f: memref<3x4x3x3xi8>, %o: memref<1x3x6x6xi32>,
                        %x: tensor<4x8xf16>, %y: tensor<8x4xf16>, %z: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zp = arith.constant 0 : i32
  linalg.quantized_matmul ins(%a, %b, %zp, %zp : memref<4x8xi8>, memref<8x4xi8>, i32, i32) outs(%c : memref<4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %f : memref<1x4x8x8xi8>, memref<3x4x3x3xi8>) outs(%o : memref<1x3x6x6xi32>)
  %r = linalg.matmul ins(%x, %y : tensor<4x8xf16>, tensor<8x4xf16>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func.func @conditions(
// CHECK:         affine.if affine_set<(d0)[s0] : ({{.*}})>(%{{.*}})[%{{.*}}] {
// CHECK-NEXT:      affine.store
// CHECK-NEXT:    } else {
// CHECK-NEXT:      affine.store
// CHECK-NEXT:    }
// CHECK:         %{{.*}} = affine.if affine_set<() : (0 == 0)>() -> (i32) {
// CHECK-NEXT:      affine.yield %{{.*}} : i32
// CHECK-NEXT:    } else {
#set = affine_set<(d0)[s0] : (d0 - 2 >= 0, s0 - d0 - 1 >= 0)>
func.func @conditions(%n: index, %a: memref<4xi32>) -> i32 {
  %c = arith.constant 1 : i32
  affine.for %i = 0 to 4 {
    affine.if #set(%i)[%n] {
      affine.store %c, %a[%i] : memref<4xi32>
    } else {
      affine.store %c, %a[%i + symbol(%n)] : memref<4xi32>
    }
  }
  %r = affine.if affine_set<() : (0 == 0)>() -> i32 {
    affine.yield %c : i32
  } else {
    affine.yield %c : i32
  }
  return %r : i32
}
