// vta-pack on an argument the program reads in two packed layouts (passes/pack/layouts.py).
// When the element orders differ, the host packs the caller's one array twice: the function
// gets one more argument at the end of its signature, %x_1, whose vta.arg names the argument
// it copies (copy_of, its index) and holds the second packing; the ops of that layout read it.
// vta-lower-to-isa lists it in the argument table as a copy (`vtaisa.arg "x_1" copy of "x"`).
// When one layout is the other's bytes with fewer axes (an element-wise layer reading a
// convolution's data as a matrix), one buffer serves both, read through a
// memref.collapse_shape.

// RUN: vta-opt %s --split-input-file -p vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file -p vta-pack,vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file -p vta-to-isa | filecheck %s --check-prefix=ISA
// RUN: vta-opt %s --split-input-file -p vta-to-isa | vta-opt --split-input-file | filecheck %s --check-prefix=ISA

// %x as the activations and as the (N×K) weights of one contraction, x · xᵀ.

// CHECK-LABEL: func.func @act_and_weights(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<16x1x1x16xi8> {vta.arg = {shape = array<i64: 16, 16>, dtype = "int8", padded_shape = array<i64: 16, 16>, split_shape = array<i64: 16, 1, 1, 16>, perm = array<i64: 0, 2, 1, 3>}},
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<16x1x1x16xi8> {vta.arg = {{{.*}}}},
// CHECK-SAME:    %[[XW:[a-z0-9_]+]]: memref<1x1x16x16xi8> {vta.arg = {copy_of = 0 : i64, shape = array<i64: 16, 16>, dtype = "int8", padded_shape = array<i64: 16, 16>, split_shape = array<i64: 1, 16, 1, 16>, perm = array<i64: 0, 2, 1, 3>}}) {
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[XW]] : memref<16x1x1x16xi8>, memref<1x1x16x16xi8>)
// CHECK:         outs(%[[Y]] : memref<16x1x1x16xi8>)

// ISA:      vtaisa.arg "x" in int8 [16, 16] padded [16, 16] split [16, 1, 1, 16] perm [0, 2, 1, 3] packed int8 segment "x"
// ISA-NEXT: vtaisa.arg "y" out int8 [16, 16]
// ISA-NEXT: vtaisa.arg "x_1" copy of "x" in int8 [16, 16] padded [16, 16] split [1, 16, 1, 16] perm [0, 2, 1, 3] packed int8 segment "x_1"

func.func @act_and_weights(%x: memref<16x16xi8>, %y: memref<16x16xi8>) {
  %acc = memref.alloc() : memref<16x16xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<16x16xi32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %x : memref<16x16xi8>, memref<16x16xi8>) outs(%acc : memref<16x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<16x16xi32>) outs(%y : memref<16x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// %x as the data of a padded convolution (the tensor layout) and as the operand of an
// element-wise layer of its own, flattened in C order: two buffers.

// CHECK-LABEL: func.func @conv_and_elementwise(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x1x8x8x1x16xi8> {vta.arg = {shape = array<i64: 1, 16, 8, 8>, dtype = "int8", padded_shape = array<i64: 1, 16, 8, 8>, split_shape = array<i64: 1, 1, 1, 16, 8, 8>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// CHECK-SAME:    %[[XF:[a-z0-9_]+]]: memref<64x1x1x16xi8> {vta.arg = {copy_of = 0 : i64, shape = array<i64: 1, 16, 8, 8>, dtype = "int8", padded_shape = array<i64: 1, 16, 8, 8>, split_shape = array<i64: 64, 1, 1, 16>, perm = array<i64: 0, 1, 2, 3>}}) {
// CHECK:         memref.copy %[[X]], %{{.*}} : memref<1x1x8x8x1x16xi8> to
// CHECK:         ins(%[[XF]] : memref<64x1x1x16xi8>) outs(%{{.*}} : memref<64x1x1x16xi32>)

// ISA-LABEL: vtaisa.arg "x" in int8 [1, 16, 8, 8] padded [1, 16, 8, 8] split [1, 1, 1, 16, 8, 8]
// ISA:       vtaisa.arg "x_1" copy of "x" in int8 [1, 16, 8, 8] padded [1, 16, 8, 8] split [64, 1, 1, 16] perm [0, 1, 2, 3]

func.func @conv_and_elementwise(%x: memref<1x16x8x8xi8>, %a_w: memref<16x16x3x3xi8>, %a_b: memref<16xi32>, %y1: memref<1x16x8x8xi8>, %y2: memref<1x16x8x8xi8>) {
  %c0 = arith.constant 0 : i32
  %c0_i8 = arith.constant 0 : i8
  %a_xp = memref.alloc() : memref<1x16x10x10xi8>
  linalg.fill ins(%c0_i8 : i8) outs(%a_xp : memref<1x16x10x10xi8>)
  %a_xi = memref.subview %a_xp[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  memref.copy %x, %a_xi : memref<1x16x8x8xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  %a_acc = memref.alloc() : memref<1x16x8x8xi32>
  linalg.fill ins(%c0 : i32) outs(%a_acc : memref<1x16x8x8xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a_xp, %a_w : memref<1x16x10x10xi8>, memref<16x16x3x3xi8>) outs(%a_acc : memref<1x16x8x8xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a_acc, %a_b : memref<1x16x8x8xi32>, memref<16xi32>) outs(%y1 : memref<1x16x8x8xi8>) {
  ^bb0(%v: i32, %b: i32, %o: i8):
    %s = arith.addi %v, %b : i32
    %sh = arith.constant 6 : i32
    %r = arith.shrsi %s, %sh : i32
    %z = arith.constant 0 : i32
    %m = arith.constant 127 : i32
    %lo = arith.maxsi %r, %z : i32
    %hi = arith.minsi %lo, %m : i32
    %t = arith.trunci %hi : i32 to i8
    linalg.yield %t : i8
  }

  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x16x8x8xi8>) outs(%y2 : memref<1x16x8x8xi8>) {
  ^bb0(%in0: i8, %o: i8):
%e = arith.extsi %in0 : i8 to i32
    %c = arith.constant 3 : i32
    %r = arith.addi %e, %c : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}


// -----

// y = min(x + conv(x), 127), the add a layer of its own: it reads %x in the tensor layout of
// the intermediate it adds, the convolution's data layout viewed as a matrix — one buffer.

// CHECK-LABEL: func.func @x_plus_conv_x(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x1x8x8x1x16xi8> {vta.arg = {shape = array<i64: 1, 16, 8, 8>
// CHECK-NOT:     copy_of
// CHECK:         %[[XV:.*]] = memref.collapse_shape %[[X]] {{\[}}[0], [1, 2, 3], [4], [5]] : memref<1x1x8x8x1x16xi8> into memref<1x64x1x16xi8>
// CHECK:         memref.copy %[[X]], %{{.*}} : memref<1x1x8x8x1x16xi8> to
// CHECK:         ins(%[[XV]] : memref<1x64x1x16xi8>)

// ISA-LABEL: vtaisa.arg "x" in int8 [1, 16, 8, 8]
// ISA-NOT:   copy of

func.func @x_plus_conv_x(%x: memref<1x16x8x8xi8>, %a_w: memref<16x16x3x3xi8>, %a_b: memref<16xi32>, %y: memref<1x16x8x8xi8>) {
  %c0 = arith.constant 0 : i32
  %c0_i8 = arith.constant 0 : i8
  %h = memref.alloc() : memref<1x16x8x8xi8>
  %a_xp = memref.alloc() : memref<1x16x10x10xi8>
  linalg.fill ins(%c0_i8 : i8) outs(%a_xp : memref<1x16x10x10xi8>)
  %a_xi = memref.subview %a_xp[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  memref.copy %x, %a_xi : memref<1x16x8x8xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
  %a_acc = memref.alloc() : memref<1x16x8x8xi32>
  linalg.fill ins(%c0 : i32) outs(%a_acc : memref<1x16x8x8xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a_xp, %a_w : memref<1x16x10x10xi8>, memref<16x16x3x3xi8>) outs(%a_acc : memref<1x16x8x8xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a_acc, %a_b : memref<1x16x8x8xi32>, memref<16xi32>) outs(%h : memref<1x16x8x8xi8>) {
  ^bb0(%v: i32, %b: i32, %o: i8):
    %s = arith.addi %v, %b : i32
    %sh = arith.constant 6 : i32
    %r = arith.shrsi %s, %sh : i32
    %z = arith.constant 0 : i32
    %m = arith.constant 127 : i32
    %lo = arith.maxsi %r, %z : i32
    %hi = arith.minsi %lo, %m : i32
    %t = arith.trunci %hi : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %h : memref<1x16x8x8xi8>, memref<1x16x8x8xi8>) outs(%y : memref<1x16x8x8xi8>) {
  ^bb0(%p: i8, %q: i8, %o: i8):
    %pe = arith.extsi %p : i8 to i32
    %qe = arith.extsi %q : i8 to i32
    %s = arith.addi %pe, %qe : i32
    %m = arith.constant 127 : i32
    %r = arith.minsi %s, %m : i32
    %tr = arith.trunci %r : i32 to i8
    linalg.yield %tr : i8
  }
  return
}

