// vta-pack on a dense layer reading a flattened N×C×H×W intermediate with H·W > 1 (a VGG or
// LeNet head, passes/pack/flattened_act.py): the dense layer reads the convolution's packed
// tensor (1x2x3x3x1x16) through a memref.collapse_shape merging its channel blocks, rows and
// columns (1x18x1x16), and its K×N weights are permuted to that column order by the host
// transform (padded_shape 288x16: 24 channels padded to 32, times 3·3; split (cb, cc, h, w, nb,
// nn), perm (4, 0, 2, 3, 5, 1)). Nothing is copied on the device.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack | filecheck %s

// CHECK-LABEL: func.func @conv_flatten_fc(
// CHECK-SAME:    %w2: memref<1x18x16x16xi8> {vta.arg = {shape = array<i64: 216, 10>, dtype = "int8", padded_shape = array<i64: 288, 16>, split_shape = array<i64: 2, 16, 3, 3, 1, 16>, perm = array<i64: 4, 0, 2, 3, 5, 1>}}
// CHECK:         %[[H:.*]] = memref.alloc() : memref<1x2x3x3x1x16xi8>
// CHECK-NEXT:    %[[F:.*]] = memref.collapse_shape %[[H]] {{\[}}[0], [1, 2, 3], [4], [5]] : memref<1x2x3x3x1x16xi8> into memref<1x18x1x16xi8>
// CHECK:         linalg.generic {{.*}} outs(%[[H]] : memref<1x2x3x3x1x16xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[F]], %w2 : memref<1x18x1x16xi8>, memref<1x18x16x16xi8>)
func.func @conv_flatten_fc(%x: memref<1x16x3x3xi8>, %w1: memref<24x16x1x1xi8>,
                           %w2: memref<216x10xi8>, %y: memref<1x10xi8>) {
  %c0 = arith.constant 0 : i32
  %h = memref.alloc() : memref<1x24x3x3xi8>
  %acc = memref.alloc() : memref<1x24x3x3xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x24x3x3xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : memref<1x16x3x3xi8>, memref<24x16x1x1xi8>) outs(%acc : memref<1x24x3x3xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x24x3x3xi32>) outs(%h : memref<1x24x3x3xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c5 = arith.constant 5 : i32
    %s = arith.shrsi %v, %c5 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  %f = memref.collapse_shape %h [[0], [1, 2, 3]] : memref<1x24x3x3xi8> into memref<1x216xi8>
  %acc2 = memref.alloc() : memref<1x10xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<1x10xi32>)
  linalg.matmul ins(%f, %w2 : memref<1x216xi8>, memref<216x10xi8>) outs(%acc2 : memref<1x10xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<1x10xi32>) outs(%y : memref<1x10xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c6 = arith.constant 6 : i32
    %s = arith.shrsi %v, %c6 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %h : memref<1x24x3x3xi8>
  return
}

// -----

// An element-wise layer reads the flattened view: its matrix layout is not the tensor's.

func.func @flatten_read_elementwise(%x: memref<1x16x3x3xi8>, %w1: memref<24x16x1x1xi8>,
                                    %y: memref<1x216xi8>) {
  %c0 = arith.constant 0 : i32
  %h = memref.alloc() : memref<1x24x3x3xi8>
  %acc = memref.alloc() : memref<1x24x3x3xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x24x3x3xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : memref<1x16x3x3xi8>, memref<24x16x1x1xi8>) outs(%acc : memref<1x24x3x3xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x24x3x3xi32>) outs(%h : memref<1x24x3x3xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  // expected-note @+1 {{collapsed here}}
  %f = memref.collapse_shape %h [[0], [1, 2, 3]] : memref<1x24x3x3xi8> into memref<1x216xi8>
  // expected-error @+1 {{reads %f, a collapsed view of %h, whose packed layout is not that of the buffer: a layer reads a collapsed intermediate only where the collapsed dimensions are units (N×C×1×1 → N×C), or as the activations of a dense layer (N×C×H×W → N×(C·H·W))}}
  memref.copy %f, %y : memref<1x216xi8> to memref<1x216xi8>
  return
}
