// vta-pack on HardSwish's fixed-point form (docs/onnx.md §4.11): x · h(x), a value times a
// function of itself. The data is read by a 1×1 sum pool (a pooling region in the tensor
// layout); the common value is copied into a second accumulator (%acc_copy: a reset and an
// add, VTA having no copy between accumulators), h's immediate steps run on the copy, x's on
// the accumulator, and one ALU mul of the two tensors combines them before the
// requantization.

// RUN: vta-opt %s --verify-diagnostics -p vta-pack | filecheck %s

// CHECK-LABEL: func.func @hardswish(
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<1x1x4x4x1x16xi32>
// CHECK:         ins(%x, %window : memref<1x1x4x4x1x16xi8>, memref<1x1xi8>) outs(%[[ACC]] : memref<1x1x4x4x1x16xi32>)
// CHECK:         %[[COPY:.*]] = memref.alloc() : memref<1x1x4x4x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : i32) outs(%[[COPY]] : memref<1x1x4x4x1x16xi32>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[COPY]], %[[ACC]] : {{.*}}) outs(%[[COPY]] : {{.*}})
// CHECK:           arith.addi
// CHECK-COUNT-5: ins(%[[COPY]] : memref<1x1x4x4x1x16xi32>) outs(%[[COPY]] : memref<1x1x4x4x1x16xi32>)
// CHECK:         ins(%[[ACC]] : memref<1x1x4x4x1x16xi32>) outs(%[[ACC]] : memref<1x1x4x4x1x16xi32>)
// CHECK:         ins(%[[ACC]], %[[COPY]] : memref<1x1x4x4x1x16xi32>, memref<1x1x4x4x1x16xi32>) outs(%[[ACC]] : memref<1x1x4x4x1x16xi32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32):
// CHECK-NEXT:      arith.muli
func.func @hardswish(%x: memref<1x16x4x4xi8>, %y: memref<1x16x4x4xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x16x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x4x4xi32>)
  %win = memref.alloc() : memref<1x1xi8>
  linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %win : memref<1x16x4x4xi8>, memref<1x1xi8>) outs(%acc : memref<1x16x4x4xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x16x4x4xi32>) outs(%y : memref<1x16x4x4xi8>) {
  ^bb0(%a: i32, %o: i8):
    %zx = arith.constant -3 : i32
    %v = arith.addi %a, %zx : i32
    %ci = arith.constant 57 : i32
    %h0 = arith.addi %a, %ci : i32
    %m = arith.constant 280 : i32
    %h1 = arith.muli %h0, %m : i32
    %cf = arith.constant 120 : i32
    %h2 = arith.addi %h1, %cf : i32
    %lo = arith.constant 0 : i32
    %h3 = arith.maxsi %h2, %lo : i32
    %top = arith.constant 32000 : i32
    %h4 = arith.minsi %h3, %top : i32
    %p = arith.muli %v, %h4 : i32
    %s = arith.constant 16 : i32
    %r = arith.shrsi %p, %s : i32
    %c127 = arith.constant 127 : i32
    %cm128 = arith.constant -128 : i32
    %r1 = arith.minsi %r, %c127 : i32
    %r2 = arith.maxsi %r1, %cm128 : i32
    %t = arith.trunci %r2 : i32 to i8
    linalg.yield %t : i8
  }
  return
}
