// vta-tensorize rewrites the linalg ops on SRAM buffers into affine.for loops (constant bounds,
// one per element dimension of extent > 1, innermost = last) around one micro-op at the
// linearised element positions: linalg.fill -> vta.gemm_reset (+ vta.alu add for a nonzero
// value), a GEMM contraction -> vta.gemm, an element-wise op on accumulators -> vta.alu.
// DMA copies and host ops are left alone; anything else on SRAM is an error at the op, reported
// before anything changes. Each pattern has a file of its own: vta-tensorize-fill.mlir,
// -contraction.mlir, -conv.mlir and -elementwise.mlir.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-tensorize | filecheck %s
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-tensorize --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-tensorize,vta-fold-uop-loops | filecheck %s --check-prefix=FOLD

// The tile of docs/pipeline.md (matrix_multiply_opt, default configuration).

// CHECK-LABEL: func.func @dense(
// CHECK-SAME:      %[[X:.*]]: memref<1x64x1x16xi8>, %[[W:.*]]: memref<64x64x16x16xi8>, %[[Y:.*]]: memref<1x64x1x16xi8>)
// CHECK:         %[[INP:.*]] = memref.alloc() : memref<1x16x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %[[WGT:.*]] = memref.alloc() : memref<16x16x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<1x16x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    affine.for %[[OC:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %[[R:.*]] = 0 to 16 {
// CHECK-NEXT:        vta.gemm_reset %[[ACC]][%[[R]]] : memref<1x16x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:      }
// CHECK-NEXT:      affine.for %[[IC:.*]] = 0 to 4 {
// CHECK-NEXT:        %[[XO:.*]] = affine.apply
// CHECK-NEXT:        vta.dma_copy %[[X]][%[[XO]]] -> %[[INP]][0] y 1 x 16 stride 16
// CHECK-NEXT:        %[[WO:.*]] = affine.apply
// CHECK-NEXT:        vta.dma_copy %[[W]][%[[WO]]] -> %[[WGT]][0] y 16 x 16 stride 64
// CHECK-NEXT:        affine.for %[[O:.*]] = 0 to 16 {
// CHECK-NEXT:          affine.for %[[I:.*]] = 0 to 16 {
// CHECK-NEXT:            %[[WP:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 16) + d1))> (%[[O]], %[[I]])
// CHECK-NEXT:            vta.gemm %[[ACC]][%[[O]]] += %[[INP]][%[[I]]] * %[[WGT]][%[[WP]]] : memref<1x16x1x16xi32, #vta.sram<acc>>, memref<1x16x1x16xi8, #vta.sram<inp>>, memref<16x16x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      affine.for %[[E:.*]] = 0 to 16 {
// CHECK-NEXT:        vta.alu shr %[[ACC]][%[[E]]], 8 : memref<1x16x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:      }
// CHECK-NEXT:      affine.for %[[E:.*]] = 0 to 16 {
// CHECK-NEXT:        vta.alu max %[[ACC]][%[[E]]], 0 : memref<1x16x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:      }
// CHECK-NEXT:      affine.for %[[E:.*]] = 0 to 16 {
// CHECK-NEXT:        vta.alu min %[[ACC]][%[[E]]], 127 : memref<1x16x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[YO:.*]] = affine.apply
// CHECK-NEXT:      vta.dma_copy %[[ACC]][0] -> %[[Y]][%[[YO]]] y 1 x 16 stride 16
// CHECK-NEXT:    }
// CHECK-NOT:     linalg.

// Followed by vta-fold-uop-loops (stage 5): the micro-kernels of TVM's matrix_multiply_opt.
// FOLD-LABEL: func.func @dense(
// FOLD:         affine.for %{{.*}} = 0 to 4 {
// FOLD-NEXT:      vta.uop_loop 16 dst 1 {
// FOLD-NEXT:        vta.gemm_reset %{{.*}}[0]
// FOLD-NEXT:      }
// FOLD-NEXT:      affine.for %{{.*}} = 0 to 4 {
// FOLD:             vta.dma_copy
// FOLD:             vta.dma_copy
// FOLD-NEXT:        vta.uop_loop 16 dst 1 wgt 16 {
// FOLD-NEXT:          vta.uop_loop 16 src 1 wgt 1 {
// FOLD-NEXT:            vta.gemm %{{.*}}[0] += %{{.*}}[0] * %{{.*}}[0]
// FOLD-NEXT:          }
// FOLD-NEXT:        }
// FOLD-NEXT:      }
// FOLD-NEXT:      vta.uop_loop 16 dst 1 src 1 {
// FOLD-NEXT:        vta.alu shr %{{.*}}[0], 8
// FOLD-NEXT:      }
// FOLD-NEXT:      vta.uop_loop 16 dst 1 src 1 {
// FOLD-NEXT:        vta.alu max %{{.*}}[0], 0
// FOLD-NEXT:      }
// FOLD-NEXT:      vta.uop_loop 16 dst 1 src 1 {
// FOLD-NEXT:        vta.alu min %{{.*}}[0], 127
// FOLD-NEXT:      }

// The new ops keep the location of the linalg op they come from.
// LOC-LABEL: func.func @dense(
// LOC:         vta.gemm_reset {{.*}} loc("{{.*}}vta-tensorize.mlir":[[# @LINE + 19]]:5)
// LOC:         vta.gemm {{.*}} loc("{{.*}}vta-tensorize.mlir":[[# @LINE + 24]]:7)
// LOC-NEXT:    } loc("{{.*}}vta-tensorize.mlir":[[# @LINE + 23]]:7)

#x = affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>
#w = affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>
#a = affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>
#id = affine_map<(b, o, bb, oo) -> (b, o, bb, oo)>
!inp = memref<1x16x1x16xi8, #vta.sram<inp>>
!wgt = memref<16x16x16x16xi8, #vta.sram<wgt>>
!acc = memref<1x16x1x16xi32, #vta.sram<acc>>
func.func @dense(%x: memref<1x64x1x16xi8>, %w: memref<64x64x16x16xi8>, %y: memref<1x64x1x16xi8>) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c127 = arith.constant 127 : i32
  %inp = memref.alloc() : !inp
  %wgt = memref.alloc() : !wgt
  %acc = memref.alloc() : !acc
  affine.for %oc = 0 to 4 {
    linalg.fill ins(%c0 : i32) outs(%acc : !acc)
    affine.for %ic = 0 to 4 {
      %xo = affine.apply affine_map<(d0) -> (d0 * 16)>(%ic)
      vta.dma_copy %x[%xo] -> %inp[0] y 1 x 16 stride 16 : memref<1x64x1x16xi8> -> !inp
      %wo = affine.apply affine_map<(d0, d1) -> (d0 * 1024 + d1 * 16)>(%oc, %ic)
      vta.dma_copy %w[%wo] -> %wgt[0] y 16 x 16 stride 64 : memref<64x64x16x16xi8> -> !wgt
      linalg.generic {indexing_maps = [#x, #w, #a], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
          ins(%inp, %wgt : !inp, !wgt) outs(%acc : !acc) {
      ^bb0(%xv: i8, %wv: i8, %av: i32):
        %0 = arith.extsi %xv : i8 to i32
        %1 = arith.extsi %wv : i8 to i32
        %2 = arith.muli %0, %1 : i32
        %3 = arith.addi %av, %2 : i32
        linalg.yield %3 : i32
      }
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%acc : !acc) outs(%acc : !acc) {
    ^bb0(%in: i32, %out: i32):
      %0 = arith.shrsi %in, %c8 : i32
      linalg.yield %0 : i32
    }
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        outs(%acc : !acc) {
    ^bb0(%out: i32):
      %zero = arith.constant 0 : i32
      %0 = arith.maxsi %out, %zero : i32
      linalg.yield %0 : i32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%acc : !acc) outs(%acc : !acc) {
    ^bb0(%in: i32, %out: i32):
      %0 = arith.minsi %c127, %in : i32
      linalg.yield %0 : i32
    }
    %yo = affine.apply affine_map<(d0) -> (d0 * 16)>(%oc)
    vta.dma_copy %acc[0] -> %y[%yo] y 1 x 16 stride 16 : !acc -> memref<1x64x1x16xi8>
  }
  return
}

// -----

// BATCH 2 (the batch2 configuration): elements are 2x16, several rows of elements; every
// position is linearised over its buffer's leading dimensions.

// CHECK-LABEL: func.func @batch2(
// CHECK-SAME:      %[[INP:.*]]: memref<2x4x2x16xi8, #vta.sram<inp>>, %[[WGT:.*]]: memref<4x4x16x16xi8, #vta.sram<wgt>>, %[[ACC:.*]]: memref<2x4x2x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:    affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[O:.*]] = 0 to 4 {
// CHECK-NEXT:        affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:          %[[D:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 4) + d1))> (%[[B]], %[[O]])
// CHECK-NEXT:          %[[S:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 4) + d1))> (%[[B]], %[[I]])
// CHECK-NEXT:          %[[WP:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 4) + d1))> (%[[O]], %[[I]])
// CHECK-NEXT:          vta.gemm %[[ACC]][%[[D]]] += %[[INP]][%[[S]]] * %[[WGT]][%[[WP]]]
builtin.module attributes {vta.config = #vta.config<target = "sim", hw_ver = "0.0.2", log_inp_width = 3, log_wgt_width = 3, log_acc_width = 5, log_batch = 1, log_block = 4, log_uop_buff_size = 15, log_inp_buff_size = 15, log_wgt_buff_size = 18, log_acc_buff_size = 18>} {
  func.func @batch2(%inp: memref<2x4x2x16xi8, #vta.sram<inp>>, %wgt: memref<4x4x16x16xi8, #vta.sram<wgt>>, %acc: memref<2x4x2x16xi32, #vta.sram<acc>>) {
    // The weight is read first: the body's arguments follow the operand order.
    linalg.generic {indexing_maps = [affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>, affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>, affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
        ins(%wgt, %inp : memref<4x4x16x16xi8, #vta.sram<wgt>>, memref<2x4x2x16xi8, #vta.sram<inp>>) outs(%acc : memref<2x4x2x16xi32, #vta.sram<acc>>) {
    ^bb0(%w: i8, %x: i8, %a: i32):
      %0 = arith.extsi %w : i8 to i32
      %1 = arith.extsi %x : i8 to i32
      %2 = arith.muli %0, %1 : i32
      %3 = arith.addi %2, %a : i32
      linalg.yield %3 : i32
    }
    return
  }
}

// -----

// A conv-like contraction (input row h + kh): general affine subscripts; constant parts of a
// position go to its offset.

// CHECK-LABEL: func.func @conv(
// CHECK-SAME:      %[[INP:.*]]: memref<7x1x16xi8, #vta.sram<inp>>, %[[WGT:.*]]: memref<2x3x16x16xi8, #vta.sram<wgt>>, %[[ACC:.*]]: memref<4x2x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:    affine.for %[[H:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %[[O:.*]] = 0 to 2 {
// CHECK-NEXT:        affine.for %[[KH:.*]] = 0 to 3 {
// CHECK-NEXT:          %[[D:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 2) + d1))> (%[[H]], %[[O]])
// CHECK-NEXT:          %[[S:.*]] = affine.apply affine_map<(d0, d1) -> ((d0 + d1))> (%[[H]], %[[KH]])
// CHECK-NEXT:          %[[WP:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 3) + d1))> (%[[O]], %[[KH]])
// CHECK-NEXT:          vta.gemm %[[ACC]][%[[D]]] += %[[INP]][%[[S]] + 1] * %[[WGT]][%[[WP]]]
func.func @conv(%inp: memref<7x1x16xi8, #vta.sram<inp>>, %wgt: memref<2x3x16x16xi8, #vta.sram<wgt>>,
                %acc: memref<4x2x1x16xi32, #vta.sram<acc>>) {
  linalg.generic {indexing_maps = [affine_map<(h, o, kh, bb, oo, ii) -> (h + kh + 1, bb, ii)>,
                                   affine_map<(h, o, kh, bb, oo, ii) -> (o, kh, oo, ii)>,
                                   affine_map<(h, o, kh, bb, oo, ii) -> (h, o, bb, oo)>],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
      ins(%inp, %wgt : memref<7x1x16xi8, #vta.sram<inp>>, memref<2x3x16x16xi8, #vta.sram<wgt>>)
      outs(%acc : memref<4x2x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%xv: i8, %wv: i8, %av: i32):
    %0 = arith.extsi %xv : i8 to i32
    %1 = arith.extsi %wv : i8 to i32
    %2 = arith.muli %1, %0 : i32
    %3 = arith.addi %av, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// Fills: zero is a reset GEMM; another constant a reset then an ALU add (the immediate is the
// only way VTA writes a constant). Dimensions of extent 1 get no loop.

// CHECK-LABEL: func.func @fill(
// CHECK-SAME:      %[[A:.*]]: memref<2x1x4x1x16xi32, #vta.sram<acc>>, %[[B:.*]]: memref<1x1x16xi32, #vta.sram<acc>>)
// CHECK:         affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:        %[[D:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 4) + d1))> (%[[I]], %[[J]])
// CHECK-NEXT:        vta.gemm_reset %[[A]][%[[D]]] : memref<2x1x4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.gemm_reset %[[B]][0] : memref<1x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    vta.alu add %[[B]][0], -5 : memref<1x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    func.return
func.func @fill(%a: memref<2x1x4x1x16xi32, #vta.sram<acc>>, %b: memref<1x1x16xi32, #vta.sram<acc>>) {
  %c0 = arith.constant 0 : i32
  %c5 = arith.constant -5 : i32
  linalg.fill ins(%c0 : i32) outs(%a : memref<2x1x4x1x16xi32, #vta.sram<acc>>)
  linalg.fill ins(%c5 : i32) outs(%b : memref<1x1x16xi32, #vta.sram<acc>>)
  return
}

// -----

// Element-wise ops: a tensor operand (here read transposed), subi / shli by a constant as
// add / shr of the negated constant, a constant on either side of a commutative op, x op x.

// CHECK-LABEL: func.func @alu(
// CHECK-SAME:      %[[A:.*]]: memref<4x4x1x16xi32, #vta.sram<acc>>, %[[B:.*]]: memref<4x4x1x16xi32, #vta.sram<acc>>)
// CHECK:         affine.for %[[P:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %[[Q:.*]] = 0 to 4 {
// CHECK-NEXT:        %[[D:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 4) + d1))> (%[[P]], %[[Q]])
// CHECK-NEXT:        %[[S:.*]] = affine.apply affine_map<(d0, d1) -> ((d0 + (d1 * 4)))> (%[[P]], %[[Q]])
// CHECK-NEXT:        vta.alu add %[[A]][%[[D]]], %[[B]][%[[S]]] : memref<4x4x1x16xi32, #vta.sram<acc>>, memref<4x4x1x16xi32, #vta.sram<acc>>
// CHECK:           vta.alu add %[[A]][%{{.*}}], -3 : memref<4x4x1x16xi32, #vta.sram<acc>>
// CHECK:           vta.alu shr %[[A]][%{{.*}}], -3 : memref<4x4x1x16xi32, #vta.sram<acc>>
// CHECK:           vta.alu min %[[A]][%{{.*}}], 100 : memref<4x4x1x16xi32, #vta.sram<acc>>
// CHECK:           %[[E:.*]] = affine.apply
// CHECK-NEXT:      vta.alu mul %[[A]][%[[E]]], %[[A]][%[[E]]] : memref<4x4x1x16xi32, #vta.sram<acc>>, memref<4x4x1x16xi32, #vta.sram<acc>>
#id = affine_map<(p, q, bb, oo) -> (p, q, bb, oo)>
#tr = affine_map<(p, q, bb, oo) -> (q, p, bb, oo)>
!acc = memref<4x4x1x16xi32, #vta.sram<acc>>
func.func @alu(%a: !acc, %b: !acc) {
  %c3 = arith.constant 3 : i32
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : !acc) outs(%a : !acc) {
  ^bb0(%x: i32, %o: i32):
    %r = arith.addi %x, %o : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%a : !acc) {
  ^bb0(%o: i32):
    %r = arith.subi %o, %c3 : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%a : !acc) {
  ^bb0(%o: i32):
    %r = arith.shli %o, %c3 : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : !acc) outs(%a : !acc) {
  ^bb0(%x: i32, %o: i32):
    %c = arith.constant 100 : i32
    %r = arith.minsi %c, %x : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : !acc) outs(%a : !acc) {
  ^bb0(%x: i32, %o: i32):
    %r = arith.muli %x, %o : i32
    linalg.yield %r : i32
  }
  return
}

// -----

// Not the pass's business: linalg on DRAM, DMA copies, host loops.

// CHECK-LABEL: func.func @untouched(
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : i32
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : memref<4x1x16xi32>)
// CHECK-NEXT:    affine.for
// CHECK-NEXT:      vta.dma_copy
func.func @untouched(%x: memref<4x1x16xi32>, %acc: memref<4x1x16xi32, #vta.sram<acc>>) {
  %c1 = arith.constant 1 : i32
  linalg.fill ins(%c1 : i32) outs(%x : memref<4x1x16xi32>)
  affine.for %i = 0 to 4 {
    vta.dma_copy %x[0] -> %acc[0] y 1 x 4 stride 4 : memref<4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
  }
  return
}

// -----

func.func @fill_inp(%inp: memref<4x1x16xi8, #vta.sram<inp>>) {
  %c0 = arith.constant 0 : i8
  // expected-error@+1 {{'linalg.fill' op cannot be tensorized for VTA: fills a #vta.sram<inp> buffer: VTA initialises only accumulator (#vta.sram<acc>) buffers}}
  linalg.fill ins(%c0 : i8) outs(%inp : memref<4x1x16xi8, #vta.sram<inp>>)
  return
}

// -----

func.func @fill_value(%acc: memref<4x1x16xi32, #vta.sram<acc>>, %v: i32) {
  // expected-error@+1 {{the fill value must be an integer arith.constant}}
  linalg.fill ins(%v : i32) outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>)
  return
}

// -----

func.func @fill_big(%acc: memref<4x1x16xi32, #vta.sram<acc>>) {
  %c = arith.constant 40000 : i32
  // expected-error@+1 {{fill value 40000 does not fit the signed 16-bit ALU immediate (-32768..32767)}}
  linalg.fill ins(%c : i32) outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>)
  return
}

// -----

#m = affine_map<(a, bb, oo) -> (a, bb, oo)>
func.func @divsi(%acc: memref<4x1x16xi32, #vta.sram<acc>>) {
  %c = arith.constant 3 : i32
  // expected-error@+1 {{'arith.divsi' is not an ALU operation (supported: arith.minsi, arith.maxsi, arith.addi, arith.muli, arith.shrsi, or arith.subi / arith.shli by a constant)}}
  linalg.generic {indexing_maps = [#m], iterator_types = ["parallel", "parallel", "parallel"]} outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%o: i32):
    %0 = arith.divsi %o, %c : i32
    linalg.yield %0 : i32
  }
  return
}

// -----

#m = affine_map<(a, bb, oo) -> (a, bb, oo)>
func.func @two_ops(%acc: memref<4x1x16xi32, #vta.sram<acc>>) {
  %c = arith.constant 3 : i32
  // expected-error@+1 {{the body of an element-wise op must be exactly one ALU operation}}
  linalg.generic {indexing_maps = [#m], iterator_types = ["parallel", "parallel", "parallel"]} outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%o: i32):
    %0 = arith.addi %o, %c : i32
    %1 = arith.maxsi %0, %c : i32
    linalg.yield %1 : i32
  }
  return
}

// -----

#m = affine_map<(a, bb, oo) -> (a, bb, oo)>
func.func @not_in_place(%acc: memref<4x1x16xi32, #vta.sram<acc>>, %b: memref<4x1x16xi32, #vta.sram<acc>>) {
  %c = arith.constant 3 : i32
  // expected-error@+1 {{'arith.addi' must update the output element in place}}
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : memref<4x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%i: i32, %o: i32):
    %0 = arith.addi %i, %c : i32
    linalg.yield %0 : i32
  }
  return
}

// -----

#m = affine_map<(a, bb, oo) -> (a, bb, oo)>
func.func @sub_tensor(%acc: memref<4x1x16xi32, #vta.sram<acc>>, %b: memref<4x1x16xi32, #vta.sram<acc>>) {
  // expected-error@+1 {{a subtraction of a tensor operand is unsupported}}
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : memref<4x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%i: i32, %o: i32):
    %0 = arith.subi %o, %i : i32
    linalg.yield %0 : i32
  }
  return
}

// -----

#m = affine_map<(a, bb, oo) -> (a, bb, oo)>
func.func @imm_range(%acc: memref<4x1x16xi32, #vta.sram<acc>>) {
  %c = arith.constant -32768 : i32
  // expected-error@+1 {{immediate 32768 of 'arith.subi' does not fit the signed 16-bit ALU immediate (-32768..32767)}}
  linalg.generic {indexing_maps = [#m], iterator_types = ["parallel", "parallel", "parallel"]} outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%o: i32):
    %0 = arith.subi %o, %c : i32
    linalg.yield %0 : i32
  }
  return
}

// -----

// A sum over r: a reduction, not an element-wise ALU operation.
#in = affine_map<(a, r, bb, oo) -> (r, bb, oo)>
#out = affine_map<(a, r, bb, oo) -> (a, bb, oo)>
func.func @reduction(%acc: memref<4x1x16xi32, #vta.sram<acc>>, %b: memref<4x1x16xi32, #vta.sram<acc>>) {
  // expected-error@+1 {{an element-wise op has only parallel iterators, got 'reduction' (a reduction over accumulator elements is not an ALU operation)}}
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%b : memref<4x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%i: i32, %o: i32):
    %0 = arith.addi %o, %i : i32
    linalg.yield %0 : i32
  }
  return
}

// -----

#m = affine_map<(a, bb, oo) -> (a, bb, oo)>
func.func @dram_operand(%acc: memref<4x1x16xi32, #vta.sram<acc>>, %y: memref<4x1x16xi8>) {
  // expected-error@+1 {{an element-wise op reads and writes #vta.sram<acc> buffers only, got a DRAM operand (memref<4x1x16xi8>)}}
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel", "parallel"]} ins(%acc : memref<4x1x16xi32, #vta.sram<acc>>) outs(%y : memref<4x1x16xi8>) {
  ^bb0(%i: i32, %o: i8):
    %0 = arith.trunci %i : i32 to i8
    linalg.yield %0 : i8
  }
  return
}

// -----

#m = affine_map<(a, bb, oo) -> (a, bb, oo)>
func.func @element_shape(%acc: memref<4x1x8xi32, #vta.sram<acc>>) {
  %c = arith.constant 3 : i32
  // expected-error@+1 {{element-wise operand must be shaped [elements...]x1x16 (one acc tensor element per row), got memref<4x1x8xi32, #vta.sram<acc>>}}
  linalg.generic {indexing_maps = [#m], iterator_types = ["parallel", "parallel", "parallel"]} outs(%acc : memref<4x1x8xi32, #vta.sram<acc>>) {
  ^bb0(%o: i32):
    %0 = arith.addi %o, %c : i32
    linalg.yield %0 : i32
  }
  return
}

// -----

#x = affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>
#w = affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>
#a = affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>
func.func @contraction_body(%inp: memref<1x4x1x16xi8, #vta.sram<inp>>, %wgt: memref<4x4x16x16xi8, #vta.sram<wgt>>, %acc: memref<1x4x1x16xi32, #vta.sram<acc>>) {
  // expected-error@+1 {{the contraction body must compute acc + extsi(x) * extsi(w) (arith.extsi, arith.extsi, arith.muli, arith.addi), got arith.extsi, arith.extsi, arith.muli, arith.subi}}
  linalg.generic {indexing_maps = [#x, #w, #a], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
      ins(%inp, %wgt : memref<1x4x1x16xi8, #vta.sram<inp>>, memref<4x4x16x16xi8, #vta.sram<wgt>>) outs(%acc : memref<1x4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%xv: i8, %wv: i8, %av: i32):
    %0 = arith.extsi %xv : i8 to i32
    %1 = arith.extsi %wv : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.subi %av, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// The weight's innermost subscripts transposed (W(o, i, ii, oo)): not the GEMM intrinsic.
#x = affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>
#w = affine_map<(b, o, i, bb, oo, ii) -> (o, i, ii, oo)>
#a = affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>
func.func @intrinsic(%inp: memref<1x4x1x16xi8, #vta.sram<inp>>, %wgt: memref<4x4x16x16xi8, #vta.sram<wgt>>, %acc: memref<1x4x1x16xi32, #vta.sram<acc>>) {
  // expected-error@+1 {{the innermost subscripts are not the tensor intrinsic Acc(..., bb, oo) += X(..., bb, ii) * W(..., oo, ii) over 1x16x16 (BATCH x BLOCK_IN x BLOCK_OUT)}}
  linalg.generic {indexing_maps = [#x, #w, #a], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
      ins(%inp, %wgt : memref<1x4x1x16xi8, #vta.sram<inp>>, memref<4x4x16x16xi8, #vta.sram<wgt>>) outs(%acc : memref<1x4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%xv: i8, %wv: i8, %av: i32):
    %0 = arith.extsi %xv : i8 to i32
    %1 = arith.extsi %wv : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %av, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

func.func @copy(%a: memref<4x1x16xi32, #vta.sram<acc>>, %b: memref<4x1x16xi32, #vta.sram<acc>>) {
  // expected-error@+1 {{'linalg.copy' op cannot be tensorized for VTA: this linalg op is not supported on VTA SRAM buffers}}
  linalg.copy ins(%a : memref<4x1x16xi32, #vta.sram<acc>>) outs(%b : memref<4x1x16xi32, #vta.sram<acc>>)
  return
}

// -----

// SRAM subviews: the double-buffer copy (a rank-reducing subview at the loop parity), a static
// window and windows at a host offset. The micro-ops address the buffers themselves: a view's
// offset is computed once before the loops (CHECK) and stays the kernel's base position when
// vta-fold-uop-loops folds the loops around it (FOLD); the subviews go.

// CHECK-LABEL: func.func @subviews(
// CHECK-SAME:      %[[INP:[^:]*]]: memref<2x1x4x1x16xi8, #vta.sram<inp>>, %[[WGT:[^:]*]]: memref<2x4x4x16x16xi8, #vta.sram<wgt>>, %[[ACC:[^:]*]]: memref<2x4x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    affine.for %[[IC:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %[[R:.*]] = 0 to 4 {
// CHECK-NEXT:        vta.gemm_reset %[[ACC]][%[[R]] + 4] : memref<2x4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[IP:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 4))> (%[[IC]])
// CHECK-NEXT:      %[[WP:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 16))> (%[[IC]])
// CHECK-NEXT:      affine.for %[[O:.*]] = 0 to 4 {
// CHECK-NEXT:        affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:          %[[S:.*]] = affine.apply affine_map<(d0, d1) -> ((d0 + d1))> (%[[I]], %[[IP]])
// CHECK-NEXT:          %[[W:.*]] = affine.apply affine_map<(d0, d1, d2) -> ((((d0 * 4) + d1) + d2))> (%[[O]], %[[I]], %[[WP]])
// CHECK-NEXT:          vta.gemm %[[ACC]][%[[O]] + 4] += %[[INP]][%[[S]]] * %[[WGT]][%[[W]]] : memref<2x4x1x16xi32, #vta.sram<acc>>, memref<2x1x4x1x16xi8, #vta.sram<inp>>, memref<2x4x4x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[K:.*]] = affine.apply affine_map<(d0) -> ((d0 * 2))> (%[[J]])
// CHECK-NEXT:      affine.for %[[E:.*]] = 0 to 2 {
// CHECK-NEXT:        %[[D:.*]] = affine.apply affine_map<(d0, d1) -> ((d0 + d1))> (%[[E]], %[[K]])
// CHECK-NEXT:        vta.alu add %[[ACC]][%[[D]]], %[[ACC]][%[[D]] + 4] : memref<2x4x1x16xi32, #vta.sram<acc>>, memref<2x4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// FOLD-LABEL: func.func @subviews(
// FOLD:         affine.for %[[IC:.*]] = 0 to 4 {
// FOLD-NEXT:      vta.uop_loop 4 dst 1 {
// FOLD-NEXT:        vta.gemm_reset %{{.*}}[4]
// FOLD-NEXT:      }
// FOLD-NEXT:      %[[IP:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 4))> (%[[IC]])
// FOLD-NEXT:      %[[WP:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 16))> (%[[IC]])
// FOLD-NEXT:      vta.uop_loop 4 dst 1 wgt 4 {
// FOLD-NEXT:        vta.uop_loop 4 src 1 wgt 1 {
// FOLD-NEXT:          vta.gemm %{{.*}}[4] += %{{.*}}[%[[IP]]] * %{{.*}}[%[[WP]]]
// FOLD-NEXT:        }
// FOLD-NEXT:      }
// FOLD-NEXT:    }
// The host offset 2 * %j is linear: that loop folds too (two contiguous halves, one level).
// FOLD-NEXT:    vta.uop_loop 4 dst 1 src 1 {
// FOLD-NEXT:      vta.alu add %{{.*}}[0], %{{.*}}[4]
// FOLD-NEXT:    }
// FOLD-NEXT:    func.return
#x = affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>
#w = affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>
#a = affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>
#id = affine_map<(b, o, bb, oo) -> (b, o, bb, oo)>
!inp2 = memref<2x1x4x1x16xi8, #vta.sram<inp>>
!wgt2 = memref<2x4x4x16x16xi8, #vta.sram<wgt>>
!accb = memref<2x4x1x16xi32, #vta.sram<acc>>
!inp = memref<1x4x1x16xi8, strided<[64, 16, 16, 1], offset: ?>, #vta.sram<inp>>
!wgt = memref<4x4x16x16xi8, strided<[1024, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
!acc = memref<1x4x1x16xi32, strided<[64, 16, 16, 1], offset: 64>, #vta.sram<acc>>
!half = memref<1x2x1x16xi32, strided<[64, 16, 16, 1], offset: ?>, #vta.sram<acc>>
func.func @subviews(%inp2: !inp2, %wgt2: !wgt2, %accb: !accb) {
  %c0 = arith.constant 0 : i32
  %acc = memref.subview %accb[1, 0, 0, 0] [1, 4, 1, 16] [1, 1, 1, 1] : !accb to !acc
  affine.for %ic = 0 to 4 {
    %p = affine.apply affine_map<(d0) -> (d0 mod 2)>(%ic)
    %inp = memref.subview %inp2[%p, 0, 0, 0, 0] [1, 1, 4, 1, 16] [1, 1, 1, 1, 1] : !inp2 to !inp
    %wgt = memref.subview %wgt2[%p, 0, 0, 0, 0] [1, 4, 4, 16, 16] [1, 1, 1, 1, 1] : !wgt2 to !wgt
    linalg.fill ins(%c0 : i32) outs(%acc : !acc)
    linalg.generic {indexing_maps = [#x, #w, #a], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
        ins(%inp, %wgt : !inp, !wgt) outs(%acc : !acc) {
    ^bb0(%xv: i8, %wv: i8, %av: i32):
      %0 = arith.extsi %xv : i8 to i32
      %1 = arith.extsi %wv : i8 to i32
      %2 = arith.muli %0, %1 : i32
      %3 = arith.addi %av, %2 : i32
      linalg.yield %3 : i32
    }
  }
  affine.for %j = 0 to 2 {
    %k = affine.apply affine_map<(d0) -> (d0 * 2)>(%j)
    %lo = memref.subview %accb[0, %k, 0, 0] [1, 2, 1, 16] [1, 1, 1, 1] : !accb to !half
    %hi = memref.subview %accb[1, %k, 0, 0] [1, 2, 1, 16] [1, 1, 1, 1] : !accb to !half
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%hi : !half) outs(%lo : !half) {
    ^bb0(%in: i32, %out: i32):
      %0 = arith.addi %out, %in : i32
      linalg.yield %0 : i32
    }
  }
  return
}

// -----

// A view that cuts tensor elements apart (half of each element's lanes).
func.func @half_elements(%acc: memref<4x1x16xi32, #vta.sram<acc>>) {
  %c0 = arith.constant 0 : i32
  %v = memref.subview %acc[0, 0, 8] [4, 1, 8] [1, 1, 1] : memref<4x1x16xi32, #vta.sram<acc>> to memref<4x1x8xi32, strided<[16, 16, 1], offset: 8>, #vta.sram<acc>>
  // expected-error@+1 {{cannot be tensorized for VTA: fill output must be shaped [elements...]x1x16 (one acc tensor element per row), got memref<4x1x8xi32, strided<[16, 16, 1], offset: 8>, #vta.sram<acc>>}}
  linalg.fill ins(%c0 : i32) outs(%v : memref<4x1x8xi32, strided<[16, 16, 1], offset: 8>, #vta.sram<acc>>)
  return
}

// -----

func.func @dynamic_stride(%acc: memref<8x1x16xi32, #vta.sram<acc>>, %s: index) {
  %c0 = arith.constant 0 : i32
  %v = memref.subview %acc[0, 0, 0] [4, 1, 16] [%s, 1, 1] : memref<8x1x16xi32, #vta.sram<acc>> to memref<4x1x16xi32, strided<[?, 16, 1]>, #vta.sram<acc>>
  // expected-error@+1 {{'linalg.fill' op cannot be tensorized for VTA: a subview with dynamic sizes or strides is not supported (VTA copies and micro-ops have static shapes)}}
  linalg.fill ins(%c0 : i32) outs(%v : memref<4x1x16xi32, strided<[?, 16, 1]>, #vta.sram<acc>>)
  return
}
