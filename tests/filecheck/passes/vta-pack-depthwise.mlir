// vta-pack on depthwise convolutions (passes/pack/match_depthwise.py, passes/pack/depthwise.py):
// the constant C×KH×KW (or C×1×KH×KW) kernel becomes block-diagonal GEMM weights packed at
// compile time, (C/BO, 1, KH, KW, BO, BI) with only w[c] at row and column c mod BLOCK of its
// block, and the convolution the packed one over (b, o, oh, ow, i, kh, kw, bb, oo, ii) reading
// the input channel block o + i (i has extent 1: the output block's own channels), so no GEMM
// multiplies a zero block.  Prefixes: the plain one for the default configuration (BATCH 1,
// BLOCK 16), B32 for block32, B2 for batch2.  The last splits are diagnosed.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file --verify-diagnostics --config block32 -p vta-pack | filecheck %s --check-prefix=B32
// RUN: vta-opt %s --split-input-file --verify-diagnostics --config batch2 -p vta-pack | filecheck %s --check-prefix=B2
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack,vta-pack | filecheck %s

// linalg.depthwise_conv_2d_nchw_chw, 24 channels (zero-padded to two blocks of 16), padded by 1,
// a per-channel bias, >> 6 and the clip of a ReLU6.  Channel c of the kernel is at row and
// column c mod 16 of block c / 16: with the value 3 everywhere, each packed 16×16 element is
// 3·I (its first rows: 03, fifteen zeros, 00, 03, ...); the second block has eight channels.

// CHECK-LABEL: memref.global "private" constant @w_packed : memref<2x1x3x3x16x16xi8> = dense<"0x0300000000000000000000000000000000030000000000000000000000000000000003
// CHECK:       func.func @dw(%[[X:[a-z0-9_]+]]: memref<1x2x8x8x1x16xi8> {vta.arg = {shape = array<i64: 1, 24, 8, 8>, dtype = "int8", padded_shape = array<i64: 1, 32, 8, 8>, split_shape = array<i64: 1, 1, 2, 16, 8, 8>, perm = array<i64: 0, 2, 4, 5, 1, 3>}}, %[[Y:[a-z0-9_]+]]: memref<1x2x8x8x1x16xi8> {vta.arg = {{.*}}}) {
// CHECK:         %[[W:.*]] = memref.get_global @w_packed : memref<2x1x3x3x16x16xi8>
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<1x2x8x8x1x16xi32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : i32) outs(%[[ACC]] : memref<1x2x8x8x1x16xi32>)
// CHECK-NEXT:    %[[XP:.*]] = memref.alloc() : memref<1x2x10x10x1x16xi8>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : i8) outs(%[[XP]] : memref<1x2x10x10x1x16xi8>)
// CHECK-NEXT:    %[[XI:.*]] = memref.subview %[[XP]][0, 0, 1, 1, 0, 0] [1, 2, 8, 8, 1, 16] [1, 1, 1, 1, 1, 1]
// CHECK-NEXT:    memref.copy %[[X]], %[[XI]]
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, (d1 + d4), (d2 + d5), (d3 + d6), d7, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel", "reduction"]} ins(%[[XP]], %[[W]] : memref<1x2x10x10x1x16xi8>, memref<2x1x3x3x16x16xi8>) outs(%[[ACC]] : memref<1x2x8x8x1x16xi32>) {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: i8, %[[K:.*]]: i8, %[[S:.*]]: i32):
// CHECK-NEXT:      %[[AE:.*]] = arith.extsi %[[A]] : i8 to i32
// CHECK-NEXT:      %[[KE:.*]] = arith.extsi %[[K]] : i8 to i32
// CHECK-NEXT:      %[[P:.*]] = arith.muli %[[AE]], %[[KE]] : i32
// CHECK-NEXT:      %{{.*}} = arith.addi %[[S]], %[[P]] : i32
// CHECK:         arith.addi
// CHECK:         arith.shrsi
// CHECK:         arith.maxsi
// CHECK:         arith.minsi
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : memref<1x2x8x8x1x16xi32>) outs(%[[Y]] : memref<1x2x8x8x1x16xi8>) {
// CHECK:           arith.trunci

// B32-LABEL: memref.global "private" constant @w_packed : memref<1x1x3x3x32x32xi8>
// B32:         func.func @dw(%{{.*}}: memref<1x1x8x8x1x32xi8> {vta.arg = {shape = array<i64: 1, 24, 8, 8>, dtype = "int8", padded_shape = array<i64: 1, 32, 8, 8>,
// B32:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, (d1 + d4), (d2 + d5), (d3 + d6), d7, d9)>
// B32-SAME:    memref<1x1x10x10x1x32xi8>, memref<1x1x3x3x32x32xi8>

// B2-LABEL: memref.global "private" constant @w_packed : memref<2x1x3x3x16x16xi8>
// B2:         func.func @dw(%{{.*}}: memref<1x2x8x8x2x16xi8> {vta.arg = {shape = array<i64: 1, 24, 8, 8>, dtype = "int8", padded_shape = array<i64: 2, 32, 8, 8>,
// B2:         memref<1x2x10x10x2x16xi8>, memref<2x1x3x3x16x16xi8>

memref.global "private" constant @w : memref<24x3x3xi8> = dense<3>
memref.global "private" constant @bias : memref<24xi32> = dense<100>
func.func @dw(%x: memref<1x24x8x8xi8>, %y: memref<1x24x8x8xi8>) {
  %c0 = arith.constant 0 : i32
  %c0_i8 = arith.constant 0 : i8
  %w = memref.get_global @w : memref<24x3x3xi8>
  %bias = memref.get_global @bias : memref<24xi32>
  %xp = memref.alloc() : memref<1x24x10x10xi8>
  linalg.fill ins(%c0_i8 : i8) outs(%xp : memref<1x24x10x10xi8>)
  %xi = memref.subview %xp[0, 0, 1, 1] [1, 24, 8, 8] [1, 1, 1, 1] : memref<1x24x10x10xi8> to memref<1x24x8x8xi8, strided<[2400, 100, 10, 1], offset: 11>>
  memref.copy %x, %xi : memref<1x24x8x8xi8> to memref<1x24x8x8xi8, strided<[2400, 100, 10, 1], offset: 11>>
  %acc = memref.alloc() : memref<1x24x8x8xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x24x8x8xi32>)
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%xp, %w : memref<1x24x10x10xi8>, memref<24x3x3xi8>) outs(%acc : memref<1x24x8x8xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<1x24x8x8xi32>, memref<24xi32>) outs(%y : memref<1x24x8x8xi8>) {
  ^bb0(%a: i32, %b: i32, %o: i8):
    %s = arith.addi %a, %b : i32
    %c6 = arith.constant 6 : i32
    %q = arith.shrsi %s, %c6 : i32
    %zero = arith.constant 0 : i32
    %six = arith.constant 6 : i32
    %m = arith.maxsi %q, %zero : i32
    %n = arith.minsi %m, %six : i32
    %t = arith.trunci %n : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// The equivalent linalg.generic with ONNX's C×1×KH×KW kernel (W(c, 0, kh, kw)), its loops in
// another order, stride 2, no padding: the same packed form.  Two channels and a 1×1 window
// show the diagonal: 5 at row and column 0, -3 (FD) at row and column 1 of the one block.

// CHECK-LABEL: memref.global "private" constant @k_packed : memref<1x1x1x1x16x16xi8> = dense<"0x0500000000000000000000000000000000FD{{0+}}">
// CHECK:       func.func @dw_generic(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, (d1 + d4), ((d2 * 2) + d5), ((d3 * 2) + d6), d7, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d4, d5, d6, d8, d9)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d7, d8)>]
// CHECK-SAME:    ins(%{{.*}}, %{{.*}} : memref<1x1x5x5x1x16xi8>, memref<1x1x1x1x16x16xi8>) outs(%{{.*}} : memref<1x1x3x3x1x16xi32>)

// B32-LABEL: memref.global "private" constant @k_packed : memref<1x1x1x1x32x32xi8>
// B2-LABEL: memref.global "private" constant @k_packed : memref<1x1x1x1x16x16xi8>

memref.global "private" constant @k : memref<2x1x1x1xi8> = dense<[[[[5]]], [[[-3]]]]>
func.func @dw_generic(%x: memref<1x2x5x5xi8>, %y: memref<1x2x3x3xi8>) {
  %c0 = arith.constant 0 : i32
  %k = memref.get_global @k : memref<2x1x1x1xi8>
  %acc = memref.alloc() : memref<1x2x3x3xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x2x3x3xi32>)
  linalg.generic {indexing_maps = [affine_map<(kh, n, c, oh, kw, ow) -> (n, c, oh * 2 + kh, ow * 2 + kw)>,
                                   affine_map<(kh, n, c, oh, kw, ow) -> (c, 0, kh, kw)>,
                                   affine_map<(kh, n, c, oh, kw, ow) -> (n, c, oh, ow)>],
                  iterator_types = ["reduction", "parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %k : memref<1x2x5x5xi8>, memref<2x1x1x1xi8>) outs(%acc : memref<1x2x3x3xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x2x3x3xi32>) outs(%y : memref<1x2x3x3xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// The kernel of a depthwise convolution is a constant: vta-pack builds its block-diagonal
// weights at compile time.

func.func @kernel_argument(%x: memref<1x16x4x4xi8>, %w: memref<16x3x3xi8>, %y: memref<1x16x2x2xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x16x2x2xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x2x2xi32>)
  // expected-error@+1 {{reads the kernel %w from a function argument: VTA runs a depthwise convolution as GEMMs on block-diagonal weights, which vta-pack builds at compile time from a constant kernel (a memref.global read by memref.get_global)}}
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x16x4x4xi8>, memref<16x3x3xi8>) outs(%acc : memref<1x16x2x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x16x2x2xi32>) outs(%y : memref<1x16x2x2xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

memref.global "private" constant @w : memref<16x3x3xi8> = dense<1>
func.func @dilated(%x: memref<1x16x6x6xi8>, %y: memref<1x16x2x2xi8>) {
  %c0 = arith.constant 0 : i32
  %w = memref.get_global @w : memref<16x3x3xi8>
  %acc = memref.alloc() : memref<1x16x2x2xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x2x2xi32>)
  // expected-error@+1 {{has dilation 2: VTA convolutions are packed with dilation 1}}
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x16x6x6xi8>, memref<16x3x3xi8>) outs(%acc : memref<1x16x2x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x16x2x2xi32>) outs(%y : memref<1x16x2x2xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// A channel multiplier: output channel c·2 + m of input channel c.

memref.global "private" constant @w : memref<8x2x3x3xi8> = dense<1>
func.func @multiplier(%x: memref<1x8x4x4xi8>, %y: memref<1x16x2x2xi8>) {
  %c0 = arith.constant 0 : i32
  %w = memref.get_global @w : memref<8x2x3x3xi8>
  %acc = memref.alloc() : memref<1x16x2x2xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x2x2xi32>)
  // expected-error@+1 {{computes output channel c*2 + m from input channel c (a channel multiplier of 2): VTA runs depthwise convolutions with one output channel per input channel}}
  linalg.generic {indexing_maps = [affine_map<(n, c, m, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>,
                                   affine_map<(n, c, m, oh, ow, kh, kw) -> (c, m, kh, kw)>,
                                   affine_map<(n, c, m, oh, ow, kh, kw) -> (n, c * 2 + m, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : memref<1x8x4x4xi8>, memref<8x2x3x3xi8>) outs(%acc : memref<1x16x2x2xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x16x2x2xi32>) outs(%y : memref<1x16x2x2xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// Groups that are neither 1 nor one per channel.

func.func @grouped(%x: memref<1x2x8x4x4xi8>, %w: memref<2x8x8x3x3xi8>, %acc: memref<1x2x8x2x2xi32>) {
  // expected-error@+1 {{is a grouped convolution: VTA runs dense convolutions (one group) and depthwise ones (one group per channel, linalg.depthwise_conv_2d_nchw_chw); split it into one linalg.conv_2d_nchw_fchw per group}}
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x2x8x4x4xi8>, memref<2x8x8x3x3xi8>) outs(%acc : memref<1x2x8x2x2xi32>)
  return
}

// -----

// linalg.depthwise_conv_2d_nhwc_hwc in an NHWC function (passes/pack/nhwc.py): read in NCHW,
// the HWC kernel packed block-diagonal, the bias per channel (n, h, w, c) -> (c); the NHWC
// arguments keep their logical shape, their transpose folded into split_shape and perm.

// CHECK-LABEL: memref.global "private" constant @w_packed : memref<1x1x3x3x16x16xi8>
// CHECK:       func.func @nhwc(%[[X:[a-z0-9_]+]]: memref<1x1x4x4x1x16xi8> {vta.arg = {shape = array<i64: 1, 4, 4, 16>, dtype = "int8", padded_shape = array<i64: 1, 4, 4, 16>, split_shape = array<i64: 1, 1, 4, 4, 1, 16>, perm = array<i64: 0, 4, 2, 3, 1, 5>}}, %[[Y:[a-z0-9_]+]]: memref<1x1x2x2x1x16xi8> {vta.arg = {shape = array<i64: 1, 2, 2, 16>, dtype = "int8", padded_shape = array<i64: 1, 2, 2, 16>, split_shape = array<i64: 1, 1, 2, 2, 1, 16>, perm = array<i64: 0, 4, 2, 3, 1, 5>}}) {
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, (d1 + d4), (d2 + d5), (d3 + d6), d7, d9)>
// CHECK-SAME:    ins(%[[X]], %{{.*}} : memref<1x1x4x4x1x16xi8>, memref<1x1x3x3x16x16xi8>)
// CHECK:         affine_map<(d0, d1, d2, d3, d4, d5) -> (0, d1, 0, 0, 0, d5)>
// CHECK:         linalg.generic {{.*}} outs(%[[Y]] : memref<1x1x2x2x1x16xi8>)

// B32-LABEL: func.func @nhwc(%{{.*}}: memref<1x1x4x4x1x32xi8> {vta.arg = {shape = array<i64: 1, 4, 4, 16>, dtype = "int8", padded_shape = array<i64: 1, 4, 4, 32>, split_shape = array<i64: 1, 1, 4, 4, 1, 32>, perm = array<i64: 0, 4, 2, 3, 1, 5>}}
// B2-LABEL: func.func @nhwc(%{{.*}}: memref<1x1x4x4x2x16xi8> {vta.arg = {shape = array<i64: 1, 4, 4, 16>, dtype = "int8", padded_shape = array<i64: 2, 4, 4, 16>, split_shape = array<i64: 1, 2, 4, 4, 1, 16>, perm = array<i64: 0, 4, 2, 3, 1, 5>}}

memref.global "private" constant @w : memref<3x3x16xi8> = dense<2>
memref.global "private" constant @b : memref<16xi32> = dense<7>
func.func @nhwc(%x: memref<1x4x4x16xi8>, %y: memref<1x2x2x16xi8>) {
  %c0 = arith.constant 0 : i32
  %w = memref.get_global @w : memref<3x3x16xi8>
  %b = memref.get_global @b : memref<16xi32>
  %acc = memref.alloc() : memref<1x2x2x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x2x2x16xi32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x4x4x16xi8>, memref<3x3x16xi8>) outs(%acc : memref<1x2x2x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %b : memref<1x2x2x16xi32>, memref<16xi32>) outs(%y : memref<1x2x2x16xi8>) {
  ^bb0(%a: i32, %bias: i32, %o: i8):
    %s = arith.addi %a, %bias : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// In an NHWC function only depthwise convolutions, element-wise ops, fills, copies and the
// padding idiom are read in NCHW.

memref.global "private" constant @w : memref<3x3x16xi8> = dense<2>
func.func @nhwc_pool(%x: memref<1x4x4x16xi8>, %acc: memref<1x2x2x16xi32>, %p: memref<1x4x2x8xi8>) {
  %w = memref.get_global @w : memref<3x3x16xi8>
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x4x4x16xi8>, memref<3x3x16xi8>) outs(%acc : memref<1x2x2x16xi32>)
  %win = memref.alloc() : memref<2x2xi8>
  // expected-error@+1 {{is in a function holding linalg.depthwise_conv_2d_nhwc_hwc, which vta-pack reads in NCHW: on its NHWC buffers it takes depthwise convolutions, element-wise linalg.generic ops, fills, copies and the padding idiom}}
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %win : memref<1x4x4x16xi8>, memref<2x2xi8>) outs(%p : memref<1x4x2x8xi8>)
  return
}

// -----

// The quantized form (zero points) is vta-integerize's, as torch-mlir writes it.

func.func @nhwc_q(%x: memref<1x4x4x16xi8>, %w: memref<3x3x16xi8>, %acc: memref<1x2x2x16xi32>, %z: i32) {
  // expected-error@+1 {{is not supported by vta-pack: convolutions are packed in the NCHW × FCHW form (linalg.conv_2d_nchw_fchw or the equivalent linalg.generic), depthwise ones in the NCHW × CHW form (linalg.depthwise_conv_2d_nchw_chw or the equivalent linalg.generic)}}
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w, %z, %z : memref<1x4x4x16xi8>, memref<3x3x16xi8>, i32, i32) outs(%acc : memref<1x2x2x16xi32>)
  return
}
