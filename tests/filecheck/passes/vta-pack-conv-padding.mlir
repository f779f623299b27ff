// vta-pack on zero-padded convolutions and a residual add (stage 1 of docs/pipeline.md,
// "Convolutions").  The padding idiom (a buffer of the padded shape filled with 0, the data
// copied into its interior subview) is kept in the packed layout right before the packed
// convolution, which reads the padded buffer; the dealloc keeps its place.  Channels are padded
// to whole blocks by the host.  A residual i8 tensor is packed like the output, loaded by an
// extsi copy into a second accumulator and added in place, after the immediate operations
// that rescale it, if any.  The last splits are diagnosed.
// Prefixes: the plain one for the default configuration (BATCH 1, BLOCK 16), B2 for batch2.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file --verify-diagnostics --config batch2 -p vta-pack | filecheck %s --check-prefix=B2
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack,vta-pack | filecheck %s

// 15 input channels, padding (top 1, bottom 1, left 2, right 1), stride 2, linalg.copy.

// CHECK-LABEL: func.func @padded(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x1x5x5x1x16xi8> {vta.arg = {shape = array<i64: 1, 15, 5, 5>, dtype = "int8", padded_shape = array<i64: 1, 16, 5, 5>, split_shape = array<i64: 1, 1, 1, 16, 5, 5>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// CHECK-SAME:    %[[W:[a-z0-9_]+]]: memref<1x1x3x3x16x16xi8> {vta.arg = {shape = array<i64: 16, 15, 3, 3>, dtype = "int8", padded_shape = array<i64: 16, 16, 3, 3>, split_shape = array<i64: 1, 16, 1, 16, 3, 3>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<1x1x3x3x1x16xi8> {vta.arg = {shape = array<i64: 1, 16, 3, 3>, dtype = "int8", padded_shape = array<i64: 1, 16, 3, 3>, split_shape = array<i64: 1, 1, 1, 16, 3, 3>, perm = array<i64: 0, 2, 4, 5, 1, 3>}}) {
// CHECK-NEXT:    %[[Z8:.*]] = arith.constant 0 : i8
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<1x1x3x3x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%[[C0]] : i32) outs(%[[ACC]] : memref<1x1x3x3x1x16xi32>)
// CHECK-NEXT:    %[[XP:.*]] = memref.alloc() : memref<1x1x7x8x1x16xi8>
// CHECK-NEXT:    linalg.fill ins(%[[Z8]] : i8) outs(%[[XP]] : memref<1x1x7x8x1x16xi8>)
// CHECK-NEXT:    %[[XI:.*]] = memref.subview %[[XP]][0, 0, 1, 2, 0, 0] [1, 1, 5, 5, 1, 16] [1, 1, 1, 1, 1, 1] : memref<1x1x7x8x1x16xi8> to memref<1x1x5x5x1x16xi8, strided<[896, 896, 128, 16, 16, 1], offset: 160>>
// CHECK-NEXT:    memref.copy %[[X]], %[[XI]] : memref<1x1x5x5x1x16xi8> to memref<1x1x5x5x1x16xi8, strided<[896, 896, 128, 16, 16, 1], offset: 160>>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d4, ((d2 * 2) + d5), ((d3 * 2) + d6), d7, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel", "reduction"]} ins(%[[XP]], %[[W]] : memref<1x1x7x8x1x16xi8>, memref<1x1x3x3x16x16xi8>) outs(%[[ACC]] : memref<1x1x3x3x1x16xi32>) {
// CHECK:         memref.dealloc %[[XP]] : memref<1x1x7x8x1x16xi8>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]] : memref<1x1x3x3x1x16xi32>) outs(%[[ACC]] : memref<1x1x3x3x1x16xi32>) {
// CHECK:           arith.shrsi
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : memref<1x1x3x3x1x16xi32>) outs(%[[Y]] : memref<1x1x3x3x1x16xi8>) {
// CHECK:           arith.trunci
// CHECK:         func.return

// B2-LABEL: func.func @padded(
// B2-SAME:    memref<1x1x5x5x2x16xi8>
// B2:         %[[XP:.*]] = memref.alloc() : memref<1x1x7x8x2x16xi8>
// B2-NEXT:    linalg.fill ins(%{{.*}} : i8) outs(%[[XP]] : memref<1x1x7x8x2x16xi8>)
// B2-NEXT:    %[[XI:.*]] = memref.subview %[[XP]][0, 0, 1, 2, 0, 0] [1, 1, 5, 5, 2, 16] [1, 1, 1, 1, 1, 1] : memref<1x1x7x8x2x16xi8> to memref<1x1x5x5x2x16xi8, strided<[1792, 1792, 256, 32, 16, 1], offset: 320>>
// B2-NEXT:    memref.copy %{{.*}}, %[[XI]]
// B2-NEXT:    linalg.generic {{.*}} ins(%[[XP]], %{{.*}} : memref<1x1x7x8x2x16xi8>, memref<1x1x3x3x16x16xi8>)

func.func @padded(%x: memref<1x15x5x5xi8>, %w: memref<16x15x3x3xi8>, %y: memref<1x16x3x3xi8>) {
  %z8 = arith.constant 0 : i8
  %c0 = arith.constant 0 : i32
  %xp = memref.alloc() : memref<1x15x7x8xi8>
  linalg.fill ins(%z8 : i8) outs(%xp : memref<1x15x7x8xi8>)
  %xi = memref.subview %xp[0, 0, 1, 2] [1, 15, 5, 5] [1, 1, 1, 1] : memref<1x15x7x8xi8> to memref<1x15x5x5xi8, strided<[840, 56, 8, 1], offset: 10>>
  linalg.copy ins(%x : memref<1x15x5x5xi8>) outs(%xi : memref<1x15x5x5xi8, strided<[840, 56, 8, 1], offset: 10>>)
  %acc = memref.alloc() : memref<1x16x3x3xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x3x3xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%xp, %w : memref<1x15x7x8xi8>, memref<16x15x3x3xi8>) outs(%acc : memref<1x16x3x3xi32>)
  memref.dealloc %xp : memref<1x15x7x8xi8>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x16x3x3xi32>) outs(%y : memref<1x16x3x3xi8>) {
  ^bb0(%v: i32, %out: i8):
    %c4 = arith.constant 4 : i32
    %s = arith.shrsi %v, %c4 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// A residual: 1×1 convolution, bias, shift, + residual, clip.

// CHECK-LABEL: func.func @residual(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x1x2x2x1x16xi8>
// CHECK-SAME:    %[[BIAS:[a-z0-9_]+]]: memref<1x1x1x1x1x16xi32>
// CHECK-SAME:    %[[R:[a-z0-9_]+]]: memref<1x1x2x2x1x16xi8> {vta.arg = {shape = array<i64: 1, 16, 2, 2>, dtype = "int8", padded_shape = array<i64: 1, 16, 2, 2>, split_shape = array<i64: 1, 1, 1, 16, 2, 2>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<1x1x2x2x1x16xi8>
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<1x1x2x2x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : i32) outs(%[[ACC]] : memref<1x1x2x2x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %{{.*}} : memref<1x1x2x2x1x16xi8>, memref<1x1x1x1x16x16xi8>) outs(%[[ACC]] : memref<1x1x2x2x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[BIAS]] : memref<1x1x1x1x1x16xi32>) outs(%[[BACC:.*]] : memref<1x1x2x2x1x16xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]], %[[BACC]] : memref<1x1x2x2x1x16xi32>, memref<1x1x2x2x1x16xi32>) outs(%[[ACC]] : memref<1x1x2x2x1x16xi32>)
// CHECK:         arith.shrsi
// CHECK:         %[[RACC:.*]] = memref.alloc() : memref<1x1x2x2x1x16xi32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[R]] : memref<1x1x2x2x1x16xi8>) outs(%[[RACC]] : memref<1x1x2x2x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[E:.*]]: i8, %{{.*}}: i32):
// CHECK-NEXT:      %[[EE:.*]] = arith.extsi %[[E]] : i8 to i32
// CHECK-NEXT:      linalg.yield %[[EE]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]], %[[RACC]] : memref<1x1x2x2x1x16xi32>, memref<1x1x2x2x1x16xi32>) outs(%[[ACC]] : memref<1x1x2x2x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT:      linalg.yield %[[S]] : i32
// CHECK-NEXT:    }
// CHECK:         arith.minsi
// CHECK:         arith.maxsi
// CHECK:         outs(%[[Y]] : memref<1x1x2x2x1x16xi8>)

func.func @residual(%x: memref<1x16x2x2xi8>, %w: memref<16x16x1x1xi8>, %bias: memref<16xi32>,
                    %r: memref<1x16x2x2xi8>, %y: memref<1x16x2x2xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x16x2x2xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x2x2xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x16x2x2xi8>, memref<16x16x1x1xi8>) outs(%acc : memref<1x16x2x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias, %r : memref<1x16x2x2xi32>, memref<16xi32>, memref<1x16x2x2xi8>)
      outs(%y : memref<1x16x2x2xi8>) {
  ^bb0(%v: i32, %b: i32, %res: i8, %out: i8):
    %c8 = arith.constant 8 : i32
    %zero = arith.constant 0 : i32
    %c127 = arith.constant 127 : i32
    %a = arith.addi %v, %b : i32
    %s = arith.shrsi %a, %c8 : i32
    %re = arith.extsi %res : i8 to i32
    %sum = arith.addi %s, %re : i32
    %hi = arith.minsi %sum, %c127 : i32
    %lo = arith.maxsi %hi, %zero : i32
    %t = arith.trunci %lo : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// A residual rescaled before the add (the epilogue of a convolution with a residual Add fused
// into it, docs/onnx.md §4.5): the convolution's clipped code times 3, plus (r + 7)·5.  The
// residual is loaded into its own accumulator and its chain of immediate operations applied
// there; the convolution's chain runs in place, then the two are added.

// CHECK-LABEL: func.func @rescaled_residual(
// CHECK-SAME:    %{{[a-z0-9_]+}}: memref<1x1x2x2x1x16xi8>
// CHECK-SAME:    %{{[a-z0-9_]+}}: memref<1x1x1x1x16x16xi8>
// CHECK-SAME:    %{{[a-z0-9_]+}}: memref<1x1x1x1x1x16xi32>
// CHECK-SAME:    %[[R:[a-z0-9_]+]]: memref<1x1x2x2x1x16xi8>
// CHECK:         linalg.generic {{.*}} ins(%[[R]] : memref<1x1x2x2x1x16xi8>) outs(%[[RACC:[^ ]*]] : memref<1x1x2x2x1x16xi32>) {
// CHECK:           arith.extsi
// CHECK:         linalg.generic {{.*}} ins(%[[RACC]] : {{.*}}) outs(%[[RACC]] : {{.*}}) {
// CHECK-NEXT:    ^{{.*}}(%[[E1:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[C7:.*]] = arith.constant 7 : i32
// CHECK-NEXT:      arith.addi %[[E1]], %[[C7]] : i32
// CHECK:         linalg.generic {{.*}} ins(%[[RACC]] : {{.*}}) outs(%[[RACC]] : {{.*}}) {
// CHECK-NEXT:    ^{{.*}}(%[[E2:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[C5:.*]] = arith.constant 5 : i32
// CHECK-NEXT:      arith.muli %[[E2]], %[[C5]] : i32
// CHECK:         linalg.generic {{.*}} ins(%[[ACC:.*]] : {{.*}}) outs(%[[ACC]] : {{.*}}) {
// CHECK:           arith.shrsi
// CHECK:           arith.minsi
// CHECK:           arith.maxsi
// CHECK:           %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:      arith.muli %{{.*}}, %[[C3]] : i32
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]], %[[RACC]] : memref<1x1x2x2x1x16xi32>, memref<1x1x2x2x1x16xi32>) outs(%[[ACC]] : memref<1x1x2x2x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      arith.addi %[[A]], %[[B]] : i32
// CHECK:           arith.shrsi
// CHECK:           arith.minsi
// CHECK:           arith.maxsi
// CHECK:         outs(%{{.*}} : memref<1x1x2x2x1x16xi8>)

func.func @rescaled_residual(%x: memref<1x16x2x2xi8>, %w: memref<16x16x1x1xi8>,
                             %bias: memref<16xi32>, %r: memref<1x16x2x2xi8>,
                             %y: memref<1x16x2x2xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x16x2x2xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x2x2xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x16x2x2xi8>, memref<16x16x1x1xi8>) outs(%acc : memref<1x16x2x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias, %r : memref<1x16x2x2xi32>, memref<16xi32>, memref<1x16x2x2xi8>)
      outs(%y : memref<1x16x2x2xi8>) {
  ^bb0(%v: i32, %b: i32, %res: i8, %out: i8):
    %c8 = arith.constant 8 : i32
    %c3 = arith.constant 3 : i32
    %c5 = arith.constant 5 : i32
    %c7 = arith.constant 7 : i32
    %cm128 = arith.constant -128 : i32
    %c127 = arith.constant 127 : i32
    %a = arith.addi %v, %b : i32
    %s = arith.shrsi %a, %c8 : i32
    %s_hi = arith.minsi %s, %c127 : i32
    %code = arith.maxsi %s_hi, %cm128 : i32
    %pa = arith.muli %code, %c3 : i32
    %re = arith.extsi %res : i8 to i32
    %rz = arith.addi %re, %c7 : i32
    %pb = arith.muli %rz, %c5 : i32
    %sum = arith.addi %pa, %pb : i32
    %q = arith.shrsi %sum, %c3 : i32
    %hi = arith.minsi %q, %c127 : i32
    %lo = arith.maxsi %hi, %cm128 : i32
    %t = arith.trunci %lo : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @nonzero_fill(%x: memref<1x16x4x4xi8>, %w: memref<16x16x3x3xi8>, %y: memref<1x16x4x4xi8>) {
  %z8 = arith.constant 1 : i8
  %c0 = arith.constant 0 : i32
  %xp = memref.alloc() : memref<1x16x6x6xi8>
  // expected-error@+1 {{fills the zero-padded buffer %xp with 1: VTA pads convolution data with zeros only}}
  linalg.fill ins(%z8 : i8) outs(%xp : memref<1x16x6x6xi8>)
  %xi = memref.subview %xp[0, 0, 1, 1] [1, 16, 4, 4] [1, 1, 1, 1] : memref<1x16x6x6xi8> to memref<1x16x4x4xi8, strided<[576, 36, 6, 1], offset: 7>>
  memref.copy %x, %xi : memref<1x16x4x4xi8> to memref<1x16x4x4xi8, strided<[576, 36, 6, 1], offset: 7>>
  %acc = memref.alloc() : memref<1x16x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : memref<1x16x6x6xi8>, memref<16x16x3x3xi8>) outs(%acc : memref<1x16x4x4xi32>)
  linalg.copy ins(%acc : memref<1x16x4x4xi32>) outs(%y : memref<1x16x4x4xi8>)
  return
}

// -----

func.func @pad_over_15(%x: memref<1x16x2x2xi8>, %w: memref<16x16x1x1xi8>, %y: memref<1x16x2x18xi8>) {
  %z8 = arith.constant 0 : i8
  %c0 = arith.constant 0 : i32
  %xp = memref.alloc() : memref<1x16x2x18xi8>
  linalg.fill ins(%z8 : i8) outs(%xp : memref<1x16x2x18xi8>)
  // expected-error@+1 {{pads %xp by 16 on the left: a VTA load pads each side by at most 15 (4-bit pad fields)}}
  %xi = memref.subview %xp[0, 0, 0, 16] [1, 16, 2, 2] [1, 1, 1, 1] : memref<1x16x2x18xi8> to memref<1x16x2x2xi8, strided<[576, 36, 18, 1], offset: 16>>
  memref.copy %x, %xi : memref<1x16x2x2xi8> to memref<1x16x2x2xi8, strided<[576, 36, 18, 1], offset: 16>>
  %acc = memref.alloc() : memref<1x16x2x18xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x2x18xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : memref<1x16x2x18xi8>, memref<16x16x1x1xi8>) outs(%acc : memref<1x16x2x18xi32>)
  linalg.copy ins(%acc : memref<1x16x2x18xi32>) outs(%y : memref<1x16x2x18xi8>)
  return
}

// -----

func.func @channel_padding(%x: memref<1x16x4x4xi8>, %w: memref<16x18x3x3xi8>, %y: memref<1x16x4x4xi8>) {
  %z8 = arith.constant 0 : i8
  %c0 = arith.constant 0 : i32
  %xp = memref.alloc() : memref<1x18x6x6xi8>
  linalg.fill ins(%z8 : i8) outs(%xp : memref<1x18x6x6xi8>)
  // expected-error@+1 {{pads the batch or channel dimension of %xp}}
  %xi = memref.subview %xp[0, 1, 1, 1] [1, 16, 4, 4] [1, 1, 1, 1] : memref<1x18x6x6xi8> to memref<1x16x4x4xi8, strided<[648, 36, 6, 1], offset: 43>>
  memref.copy %x, %xi : memref<1x16x4x4xi8> to memref<1x16x4x4xi8, strided<[648, 36, 6, 1], offset: 43>>
  %acc = memref.alloc() : memref<1x16x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : memref<1x18x6x6xi8>, memref<16x18x3x3xi8>) outs(%acc : memref<1x16x4x4xi32>)
  linalg.copy ins(%acc : memref<1x16x4x4xi32>) outs(%y : memref<1x16x4x4xi8>)
  return
}

// -----

func.func @extra_reader(%x: memref<1x16x4x4xi8>, %w: memref<16x16x3x3xi8>, %y: memref<1x16x4x4xi8>,
                        %z: memref<1x16x6x6xi8>) {
  %z8 = arith.constant 0 : i8
  %c0 = arith.constant 0 : i32
  %xp = memref.alloc() : memref<1x16x6x6xi8>
  linalg.fill ins(%z8 : i8) outs(%xp : memref<1x16x6x6xi8>)
  %xi = memref.subview %xp[0, 0, 1, 1] [1, 16, 4, 4] [1, 1, 1, 1] : memref<1x16x6x6xi8> to memref<1x16x4x4xi8, strided<[576, 36, 6, 1], offset: 7>>
  // expected-note@+1 {{its data is copied here}}
  memref.copy %x, %xi : memref<1x16x4x4xi8> to memref<1x16x4x4xi8, strided<[576, 36, 6, 1], offset: 7>>
  // expected-error@+1 {{reads the zero-padded buffer %xp: only the data operand of one convolution may read it}}
  memref.copy %xp, %z : memref<1x16x6x6xi8> to memref<1x16x6x6xi8>
  %acc = memref.alloc() : memref<1x16x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : memref<1x16x6x6xi8>, memref<16x16x3x3xi8>) outs(%acc : memref<1x16x4x4xi32>)
  linalg.copy ins(%acc : memref<1x16x4x4xi32>) outs(%y : memref<1x16x4x4xi8>)
  return
}
