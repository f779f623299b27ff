// vta-pack on 2-D convolutions: NCHW data, an FCHW (OIHW) kernel and a per-channel bias are
// rewritten onto the packed layouts of the configuration (docs/isa.md §1.6), with one packed
// convolution over (b, o, oh, ow, i, kh, kw, bb, oo, ii) (stage 1 of docs/pipeline.md).
// Prefixes: the plain one for the default configuration (BATCH 1, BLOCK 16), B32 for block32
// (BATCH 1, BLOCK 32), B2 for batch2 (BATCH 2, BLOCK 16).  The last splits are diagnosed.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file --verify-diagnostics --config block32 -p vta-pack | filecheck %s --check-prefix=B32
// RUN: vta-opt %s --split-input-file --verify-diagnostics --config batch2 -p vta-pack | filecheck %s --check-prefix=B2
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack,vta-pack | filecheck %s

// linalg.conv_2d_nchw_fchw, strides (2, 1), 15 input and 20 output channels (zero-padded to
// whole blocks), the bias added before the shift: the accumulator starts from 0 and the bias,
// loaded into a second accumulator with the broadcasting map, is added after the convolution
// (the same i32 sum; one bias row in SRAM instead of a bias load into every accumulator element).

// CHECK-LABEL: func.func @conv(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<2x1x6x6x1x16xi8> {vta.arg = {shape = array<i64: 2, 15, 6, 6>, dtype = "int8", padded_shape = array<i64: 2, 16, 6, 6>, split_shape = array<i64: 2, 1, 1, 16, 6, 6>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// CHECK-SAME:    %[[W:[a-z0-9_]+]]: memref<2x1x3x3x16x16xi8> {vta.arg = {shape = array<i64: 20, 15, 3, 3>, dtype = "int8", padded_shape = array<i64: 32, 16, 3, 3>, split_shape = array<i64: 2, 16, 1, 16, 3, 3>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// CHECK-SAME:    %[[BIAS:[a-z0-9_]+]]: memref<1x2x1x1x1x16xi32> {vta.arg = {shape = array<i64: 20>, dtype = "int32", repeat = array<i64: 1>, padded_shape = array<i64: 32>, split_shape = array<i64: 1, 1, 1, 1, 2, 16>, perm = array<i64: 0, 4, 1, 2, 3, 5>}},
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<2x2x2x4x1x16xi8> {vta.arg = {shape = array<i64: 2, 20, 2, 4>, dtype = "int8", padded_shape = array<i64: 2, 32, 2, 4>, split_shape = array<i64: 2, 1, 2, 16, 2, 4>, perm = array<i64: 0, 2, 4, 5, 1, 3>}}) {
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<2x2x2x4x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : i32) outs(%[[ACC]] : memref<2x2x2x4x1x16xi32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d4, ((d2 * 2) + d5), (d3 + d6), d7, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : memref<2x1x6x6x1x16xi8>, memref<2x1x3x3x16x16xi8>) outs(%[[ACC]] : memref<2x2x2x4x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: i8, %[[K:.*]]: i8, %[[S:.*]]: i32):
// CHECK-NEXT:      %[[AE:.*]] = arith.extsi %[[A]] : i8 to i32
// CHECK-NEXT:      %[[KE:.*]] = arith.extsi %[[K]] : i8 to i32
// CHECK-NEXT:      %[[P:.*]] = arith.muli %[[AE]], %[[KE]] : i32
// CHECK-NEXT:      %[[R:.*]] = arith.addi %[[S]], %[[P]] : i32
// CHECK-NEXT:      linalg.yield %[[R]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[BACC:.*]] = memref.alloc() : memref<2x2x2x4x1x16xi32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (0, d1, 0, 0, 0, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[BIAS]] : memref<1x2x1x1x1x16xi32>) outs(%[[BACC]] : memref<2x2x2x4x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      linalg.yield %[[B]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]], %[[BACC]] : memref<2x2x2x4x1x16xi32>, memref<2x2x2x4x1x16xi32>) outs(%[[ACC]] : memref<2x2x2x4x1x16xi32>) {
// CHECK:           arith.addi
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[ACC]] : memref<2x2x2x4x1x16xi32>) outs(%[[ACC]] : memref<2x2x2x4x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[V:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:      %{{.*}} = arith.shrsi %[[V]], %[[C8]] : i32
// CHECK:         arith.minsi
// CHECK:         arith.maxsi
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : memref<2x2x2x4x1x16xi32>) outs(%[[Y]] : memref<2x2x2x4x1x16xi8>) {
// CHECK:           arith.trunci
// CHECK:         func.return

// B32-LABEL: func.func @conv(
// B32-SAME:    memref<2x1x6x6x1x32xi8> {vta.arg = {shape = array<i64: 2, 15, 6, 6>, dtype = "int8", padded_shape = array<i64: 2, 32, 6, 6>, split_shape = array<i64: 2, 1, 1, 32, 6, 6>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// B32-SAME:    memref<1x1x3x3x32x32xi8> {vta.arg = {shape = array<i64: 20, 15, 3, 3>, dtype = "int8", padded_shape = array<i64: 32, 32, 3, 3>, split_shape = array<i64: 1, 32, 1, 32, 3, 3>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// B32-SAME:    memref<1x1x1x1x1x32xi32> {vta.arg = {shape = array<i64: 20>, dtype = "int32", repeat = array<i64: 1>, padded_shape = array<i64: 32>, split_shape = array<i64: 1, 1, 1, 1, 1, 32>, perm = array<i64: 0, 4, 1, 2, 3, 5>}},
// B32-SAME:    memref<2x1x2x4x1x32xi8> {vta.arg = {shape = array<i64: 2, 20, 2, 4>, dtype = "int8", padded_shape = array<i64: 2, 32, 2, 4>, split_shape = array<i64: 2, 1, 1, 32, 2, 4>, perm = array<i64: 0, 2, 4, 5, 1, 3>}}) {
// B32:         memref.alloc() : memref<2x1x2x4x1x32xi32>
// B32:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d4, ((d2 * 2) + d5), (d3 + d6), d7, d9)>
// B32:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (0, d1, 0, 0, 0, d5)>

// The batch lanes of the bias are replicated by the host and read one to one.
// B2-LABEL: func.func @conv(
// B2-SAME:    memref<1x1x6x6x2x16xi8> {vta.arg = {shape = array<i64: 2, 15, 6, 6>, dtype = "int8", padded_shape = array<i64: 2, 16, 6, 6>, split_shape = array<i64: 1, 2, 1, 16, 6, 6>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// B2-SAME:    memref<2x1x3x3x16x16xi8>
// B2-SAME:    memref<1x2x1x1x2x16xi32> {vta.arg = {shape = array<i64: 20>, dtype = "int32", repeat = array<i64: 2>, padded_shape = array<i64: 32>, split_shape = array<i64: 1, 1, 1, 2, 2, 16>, perm = array<i64: 0, 4, 1, 2, 3, 5>}},
// B2-SAME:    memref<1x2x2x4x2x16xi8>
// B2:         memref.alloc() : memref<1x2x2x4x2x16xi32>
// B2:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (0, d1, 0, 0, d4, d5)>

func.func @conv(%x: memref<2x15x6x6xi8>, %w: memref<20x15x3x3xi8>, %bias: memref<20xi32>,
                %y: memref<2x20x2x4xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<2x20x2x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<2x20x2x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%x, %w : memref<2x15x6x6xi8>, memref<20x15x3x3xi8>) outs(%acc : memref<2x20x2x4xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<2x20x2x4xi32>, memref<20xi32>) outs(%y : memref<2x20x2x4xi8>) {
  ^bb0(%v: i32, %b: i32, %out: i8):
    %c8 = arith.constant 8 : i32
    %zero = arith.constant 0 : i32
    %c127 = arith.constant 127 : i32
    %a = arith.addi %v, %b : i32
    %s = arith.shrsi %a, %c8 : i32
    %hi = arith.minsi %s, %c127 : i32
    %lo = arith.maxsi %hi, %zero : i32
    %t = arith.trunci %lo : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// 3 input channels, a 3x3 kernel, stride 2, padding 1: folding the window into the channels
// needs ceil(27/BLOCK_IN) blocks instead of 9, so the host packs the data as its patches (the
// window, zero padding included) and the kernel as its own patches, and the region is a 1x1
// convolution of stride 1 without the padding idiom (passes/pack/fold_window.py).

// CHECK-LABEL: func.func @stem(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: memref<1x2x4x4x1x16xi8> {vta.arg = {shape = array<i64: 1, 3, 8, 8>, dtype = "int8", window = array<i64: 3, 3, 2, 2, 1, 1, 1, 1>, padded_shape = array<i64: 1, 32, 4, 4>, split_shape = array<i64: 1, 1, 2, 16, 4, 4>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// CHECK-SAME:    %[[W:[a-z0-9_]+]]: memref<2x2x1x1x16x16xi8> {vta.arg = {shape = array<i64: 20, 3, 3, 3>, dtype = "int8", window = array<i64: 3, 3, 1, 1, 0, 0, 0, 0>, padded_shape = array<i64: 32, 32, 1, 1>, split_shape = array<i64: 2, 16, 2, 16, 1, 1>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// CHECK-SAME:    %{{.*}}: memref<1x2x1x1x1x16xi32>
// CHECK-SAME:    %[[Y:[a-z0-9_]+]]: memref<1x2x4x4x1x16xi8> {vta.arg = {shape = array<i64: 1, 20, 4, 4>, dtype = "int8", padded_shape = array<i64: 1, 32, 4, 4>, split_shape = array<i64: 1, 1, 2, 16, 4, 4>, perm = array<i64: 0, 2, 4, 5, 1, 3>}}) {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<1x2x4x4x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%[[C0]] : i32) outs(%[[ACC]] : memref<1x2x4x4x1x16xi32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d4, (d2 + d5), (d3 + d6), d7, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>], {{.*}} ins(%[[X]], %[[W]] : memref<1x2x4x4x1x16xi8>, memref<2x2x1x1x16x16xi8>) outs(%[[ACC]] : memref<1x2x4x4x1x16xi32>) {
// CHECK-NOT:     memref.dealloc
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : memref<1x2x4x4x1x16xi32>) outs(%[[Y]] : memref<1x2x4x4x1x16xi8>) {

// B32-LABEL: func.func @stem(
// B32-SAME:    memref<1x1x4x4x1x32xi8> {vta.arg = {shape = array<i64: 1, 3, 8, 8>, dtype = "int8", window = array<i64: 3, 3, 2, 2, 1, 1, 1, 1>, padded_shape = array<i64: 1, 32, 4, 4>, split_shape = array<i64: 1, 1, 1, 32, 4, 4>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// B32-SAME:    memref<1x1x1x1x32x32xi8> {vta.arg = {shape = array<i64: 20, 3, 3, 3>, dtype = "int8", window = array<i64: 3, 3, 1, 1, 0, 0, 0, 0>, padded_shape = array<i64: 32, 32, 1, 1>

// B2-LABEL: func.func @stem(
// B2-SAME:    memref<1x2x4x4x2x16xi8> {vta.arg = {shape = array<i64: 1, 3, 8, 8>, dtype = "int8", window = array<i64: 3, 3, 2, 2, 1, 1, 1, 1>, padded_shape = array<i64: 2, 32, 4, 4>, split_shape = array<i64: 1, 2, 2, 16, 4, 4>, perm = array<i64: 0, 2, 4, 5, 1, 3>}},
// B2-SAME:    memref<2x2x1x1x16x16xi8>

func.func @stem(%x: memref<1x3x8x8xi8>, %w: memref<20x3x3x3xi8>, %bias: memref<20xi32>,
                %y: memref<1x20x4x4xi8>) {
  %z8 = arith.constant 0 : i8
  %c0 = arith.constant 0 : i32
  %xp = memref.alloc() : memref<1x3x10x10xi8>
  linalg.fill ins(%z8 : i8) outs(%xp : memref<1x3x10x10xi8>)
  %xi = memref.subview %xp[0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : memref<1x3x10x10xi8> to memref<1x3x8x8xi8, strided<[300, 100, 10, 1], offset: 11>>
  memref.copy %x, %xi : memref<1x3x8x8xi8> to memref<1x3x8x8xi8, strided<[300, 100, 10, 1], offset: 11>>
  %acc = memref.alloc() : memref<1x20x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x20x4x4xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%xp, %w : memref<1x3x10x10xi8>, memref<20x3x3x3xi8>) outs(%acc : memref<1x20x4x4xi32>)
  memref.dealloc %xp : memref<1x3x10x10xi8>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<1x20x4x4xi32>, memref<20xi32>) outs(%y : memref<1x20x4x4xi8>) {
  ^bb0(%v: i32, %b: i32, %out: i8):
    %c8 = arith.constant 8 : i32
    %s = arith.shrsi %v, %c8 : i32
    %a = arith.addi %s, %b : i32
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// The equivalent linalg.generic, loops in another order, stride 2, no bias.

// CHECK-LABEL: func.func @generic_conv(
// CHECK-SAME:    memref<1x2x7x7x1x16xi8>
// CHECK-SAME:    memref<1x2x3x3x16x16xi8>
// CHECK-SAME:    memref<1x1x3x3x1x16xi8>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<1x1x3x3x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%[[C0]] : i32) outs(%[[ACC]] : memref<1x1x3x3x1x16xi32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d4, ((d2 * 2) + d5), ((d3 * 2) + d6), d7, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>]
// CHECK:         arith.trunci

func.func @generic_conv(%x: memref<1x20x7x7xi8>, %w: memref<8x20x3x3xi8>, %y: memref<1x8x3x3xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x8x3x3xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x8x3x3xi32>)
  linalg.generic {indexing_maps = [affine_map<(c, kh, kw, n, f, oh, ow) -> (n, c, kh + oh * 2, kw + 2 * ow)>,
                                   affine_map<(c, kh, kw, n, f, oh, ow) -> (f, c, kh, kw)>,
                                   affine_map<(c, kh, kw, n, f, oh, ow) -> (n, f, oh, ow)>],
                  iterator_types = ["reduction", "reduction", "reduction",
                                    "parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %w : memref<1x20x7x7xi8>, memref<8x20x3x3xi8>) outs(%acc : memref<1x8x3x3xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x8x3x3xi32>) outs(%y : memref<1x8x3x3xi8>) {
  ^bb0(%v: i32, %out: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @generic_dilated(%x: memref<1x16x8x8xi8>, %w: memref<16x16x3x3xi8>, %y: memref<1x16x4x4xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x16x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x4x4xi32>)
  // expected-error@+1 {{has dilation 2: VTA convolutions are packed with dilation 1}}
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh * 2, ow + kw)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x16x8x8xi8>, memref<16x16x3x3xi8>) outs(%acc : memref<1x16x4x4xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  return
}

// -----

func.func @not_a_conv(%x: memref<1x16x8x8xi8>, %w: memref<16x16x3x3xi8>, %y: memref<1x16x6x6xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x16x6x6xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x6x6xi32>)
  // expected-error@+1 {{has indexing maps that are not those of a 2-D convolution of NCHW data with an FCHW kernel}}
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kw, ow + kh)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x16x8x8xi8>, memref<16x16x3x3xi8>) outs(%acc : memref<1x16x6x6xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  return
}

// -----

func.func @i16_kernel(%x: memref<1x16x8x8xi8>, %w: memref<16x16x3x3xi16>, %y: memref<1x16x6x6xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x16x6x6xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x6x6xi32>)
  // expected-error@+1 {{%w: element type i16 is not supported: VTA's buffers hold i8 or i32}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x16x8x8xi8>, memref<16x16x3x3xi16>) outs(%acc : memref<1x16x6x6xi32>)
  return
}

// -----

func.func @dilated(%x: memref<1x16x8x8xi8>, %w: memref<16x16x3x3xi8>, %y: memref<1x16x4x4xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x16x4x4xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x4x4xi32>)
  // expected-error@+1 {{has dilation 2: VTA convolutions are packed with dilation 1}}
  linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x16x8x8xi8>, memref<16x16x3x3xi8>) outs(%acc : memref<1x16x4x4xi32>)
  return
}

// -----

func.func @i32_data(%x: memref<1x16x8x8xi32>, %w: memref<16x16x3x3xi8>, %y: memref<1x16x6x6xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x16x6x6xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x6x6xi32>)
  // expected-error@+1 {{is a contraction of i32 × i8 into i32: VTA computes i8 × i8 → i32}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x16x8x8xi32>, memref<16x16x3x3xi8>) outs(%acc : memref<1x16x6x6xi32>)
  return
}

// -----

func.func @grouped(%x: memref<1x2x16x8x8xi8>, %w: memref<16x2x16x3x3xi8>, %y: memref<1x2x16x6x6xi32>) {
  // expected-error@+1 {{is a grouped convolution: VTA runs dense convolutions (one group)}}
  linalg.conv_2d_ngchw_fgchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x2x16x8x8xi8>, memref<16x2x16x3x3xi8>) outs(%y : memref<1x2x16x6x6xi32>)
  return
}
