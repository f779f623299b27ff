// vta-pack on networks: an int8 buffer one layer writes is read by a later one (docs/pipeline.md,
// "Layers: networks in one function").  The buffer becomes a memref.alloc of the writer's
// packed layout at the start of the function (no vta.arg: the host never sees it), its
// memref.dealloc is dropped, and the second contraction reads it as its packed activation.
// A collapsed buffer (N×C×1×1 → N×C) is read through a memref.collapse_shape of the packed
// tensor.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack,vta-pack | filecheck %s

// CHECK-LABEL: func.func @two_layers(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<4x2x1x16xi8> {vta.arg = {shape = array<i64: 4, 32>
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<4x1x1x16xi8> {vta.arg = {shape = array<i64: 4, 16>
// CHECK-NOT:     vta.arg
// CHECK:         %[[H:.*]] = memref.alloc() : memref<4x1x1x16xi8>
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %{{.*}} : memref<4x2x1x16xi8>, memref<1x2x16x16xi8>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : memref<4x1x1x16xi32>) outs(%[[H]] : memref<4x1x1x16xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[H]], %{{.*}} : memref<4x1x1x16xi8>, memref<1x1x16x16xi8>)
// CHECK:         linalg.generic {{.*}} outs(%[[Y]] : memref<4x1x1x16xi8>)
// CHECK-NOT:     memref.dealloc %[[H]]
// CHECK:         func.return
func.func @two_layers(%x: memref<4x32xi8>, %w1: memref<32x16xi8>, %w2: memref<16x16xi8>,
                      %y: memref<4x16xi8>) {
  %c0 = arith.constant 0 : i32
  %h = memref.alloc() : memref<4x16xi8>
  %acc = memref.alloc() : memref<4x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x16xi32>)
  linalg.matmul ins(%x, %w1 : memref<4x32xi8>, memref<32x16xi8>) outs(%acc : memref<4x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%h : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c7 = arith.constant 7 : i32
    %s = arith.shrsi %v, %c7 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  %acc2 = memref.alloc() : memref<4x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<4x16xi32>)
  linalg.matmul ins(%h, %w2 : memref<4x16xi8>, memref<16x16xi8>) outs(%acc2 : memref<4x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c6 = arith.constant 6 : i32
    %s = arith.shrsi %v, %c6 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %h : memref<4x16xi8>
  return
}

// -----

// CHECK-LABEL: func.func @conv_then_fc(
// CHECK:         %[[H:.*]] = memref.alloc() : memref<1x2x1x1x1x16xi8>
// CHECK-NEXT:    %[[F:.*]] = memref.collapse_shape %[[H]] {{\[}}[0], [1], [2], [3, 4, 5]] : memref<1x2x1x1x1x16xi8> into memref<1x2x1x16xi8>
// CHECK:         linalg.generic {{.*}} outs(%[[H]] : memref<1x2x1x1x1x16xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[F]], %{{.*}} : memref<1x2x1x16xi8>, memref<1x2x16x16xi8>)
func.func @conv_then_fc(%x: memref<1x16x3x3xi8>, %w: memref<32x16x3x3xi8>,
                        %fw: memref<32x10xi8>, %y: memref<1x10xi8>) {
  %c0 = arith.constant 0 : i32
  %h = memref.alloc() : memref<1x32x1x1xi8>
  %acc = memref.alloc() : memref<1x32x1x1xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x32x1x1xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x16x3x3xi8>, memref<32x16x3x3xi8>) outs(%acc : memref<1x32x1x1xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x32x1x1xi32>) outs(%h : memref<1x32x1x1xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c8 = arith.constant 8 : i32
    %s = arith.shrsi %v, %c8 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  %f = memref.collapse_shape %h [[0], [1, 2, 3]] : memref<1x32x1x1xi8> into memref<1x32xi8>
  %facc = memref.alloc() : memref<1x10xi32>
  linalg.fill ins(%c0 : i32) outs(%facc : memref<1x10xi32>)
  linalg.matmul ins(%f, %fw : memref<1x32xi8>, memref<32x10xi8>) outs(%facc : memref<1x10xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%facc : memref<1x10xi32>) outs(%y : memref<1x10xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c5 = arith.constant 5 : i32
    %s = arith.shrsi %v, %c5 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}
