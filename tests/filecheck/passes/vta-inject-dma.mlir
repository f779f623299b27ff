// vta-inject-dma (its pattern InjectDmaCopy) turns copies between DRAM views and SRAM buffers into
// vta.dma_copy: positions in tensor elements (an affine.apply of the host values plus a constant),
// the 2-D pattern (y rows of x elements, DRAM pitch stride) from the views' strides, several DMAs
// when one cannot express the copy (written out, or a host loop beyond unroll-limit). Loads come
// from memref.copy (INP, WGT, ACC), a broadcasting linalg.generic (a repeated row: stride 0) or an
// arith.extsi one (ACC_8BIT); the arith.trunci output is a store. The DRAM subviews go.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-inject-dma | filecheck %s
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p 'vta-inject-dma{unroll-limit=1}' | filecheck %s --check-prefix=LOOP
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-inject-dma --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-inject-dma,vta-tensorize,vta-fold-uop-loops | filecheck %s --check-prefix=FOLD
// RUN: not vta-opt %s --split-input-file -p 'vta-inject-dma{unroll-limit=-1}' 2>&1 | filecheck %s --check-prefix=OPTS

// OPTS: error: 'builtin.module' op vta-inject-dma: unroll-limit = -1 is negative

// The tile of docs/pipeline.md (matrix_multiply_opt, default configuration) at stage 2: the
// three DMAs of docs/pipeline.md §3.

// CHECK-LABEL: func.func @dense(
// CHECK-SAME:      %[[X:.*]]: memref<1x64x1x16xi8>, %[[W:.*]]: memref<64x64x16x16xi8>, %[[Y:.*]]: memref<1x64x1x16xi8>)
// CHECK:         %[[INP:.*]] = memref.alloc() : memref<1x16x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %[[WGT:.*]] = memref.alloc() : memref<16x16x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<1x16x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    affine.for %[[OC:.*]] = 0 to 4 {
// CHECK-NEXT:      linalg.fill
// CHECK-NEXT:      affine.for %[[IC:.*]] = 0 to 4 {
// CHECK-NEXT:        %[[XO:.*]] = affine.apply affine_map<(d0) -> ((d0 * 16))> (%[[IC]])
// CHECK-NEXT:        vta.dma_copy %[[X]][%[[XO]]] -> %[[INP]][0] y 1 x 16 stride 16 : memref<1x64x1x16xi8> -> memref<1x16x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:        %[[WO:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 1024) + (d1 * 16)))> (%[[OC]], %[[IC]])
// CHECK-NEXT:        vta.dma_copy %[[W]][%[[WO]]] -> %[[WGT]][0] y 16 x 16 stride 64 : memref<64x64x16x16xi8> -> memref<16x16x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:        linalg.generic
// CHECK:               linalg.yield
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      linalg.generic
// CHECK:         %[[YO:.*]] = affine.apply affine_map<(d0) -> ((d0 * 16))> (%[[OC]])
// CHECK-NEXT:    vta.dma_copy %[[ACC]][0] -> %[[Y]][%[[YO]]] y 1 x 16 stride 16 : memref<1x16x1x16xi32, #vta.sram<acc>> -> memref<1x64x1x16xi8>
// CHECK-NEXT:  }
// CHECK-NOT:   memref.subview
// CHECK-NOT:   memref.copy

// Each DMA keeps the location of its copy.
// LOC-LABEL: func.func @dense(
// LOC:         vta.dma_copy {{.*}} loc("{{.*}}vta-inject-dma.mlir":[[# @LINE + 25]]:7)
// LOC:         vta.dma_copy {{.*}} loc("{{.*}}vta-inject-dma.mlir":[[# @LINE + 26]]:7)
// LOC:         vta.dma_copy {{.*}} loc("{{.*}}vta-inject-dma.mlir":[[# @LINE + 44]]:5)

#x = affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>
#w = affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>
#a = affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>
#id = affine_map<(b, o, bb, oo) -> (b, o, bb, oo)>
!inp = memref<1x16x1x16xi8, #vta.sram<inp>>
!wgt = memref<16x16x16x16xi8, #vta.sram<wgt>>
!acc = memref<1x16x1x16xi32, #vta.sram<acc>>
!xs = memref<1x16x1x16xi8, strided<[1024, 16, 16, 1], offset: ?>>
!ws = memref<16x16x16x16xi8, strided<[16384, 256, 16, 1], offset: ?>>
func.func @dense(%x: memref<1x64x1x16xi8>, %w: memref<64x64x16x16xi8>, %y: memref<1x64x1x16xi8>) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %inp = memref.alloc() : !inp
  %wgt = memref.alloc() : !wgt
  %acc = memref.alloc() : !acc
  affine.for %oc = 0 to 4 {
    linalg.fill ins(%c0 : i32) outs(%acc : !acc)
    affine.for %ic = 0 to 4 {
      %i = affine.apply affine_map<(d0) -> (d0 * 16)>(%ic)
      %o = affine.apply affine_map<(d0) -> (d0 * 16)>(%oc)
      %xs = memref.subview %x[0, %i, 0, 0] [1, 16, 1, 16] [1, 1, 1, 1] : memref<1x64x1x16xi8> to !xs
      memref.copy %xs, %inp : !xs to !inp
      %ws = memref.subview %w[%o, %i, 0, 0] [16, 16, 16, 16] [1, 1, 1, 1] : memref<64x64x16x16xi8> to !ws
      memref.copy %ws, %wgt : !ws to !wgt
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
    %yo = affine.apply affine_map<(d0) -> (d0 * 16)>(%oc)
    %ys = memref.subview %y[0, %yo, 0, 0] [1, 16, 1, 16] [1, 1, 1, 1] : memref<1x64x1x16xi8> to !xs
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%acc : !acc) outs(%ys : !xs) {
    ^bb0(%in: i32, %out: i8):
      %0 = arith.trunci %in : i32 to i8
      linalg.yield %0 : i8
    }
  }
  return
}

// -----

// Double buffering: two copies of each tile in one SRAM buffer, the copy of iteration %ic at
// parity %ic mod 2, through a rank-reducing subview. The DMA writes the buffer itself at the
// copy's first element; the subviews stay for the contraction (vta-tensorize folds them into
// the micro-op positions, and vta-fold-uop-loops keeps them as the kernel's base position).

// CHECK-LABEL: func.func @double_buffer(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x8x1x16xi8>, %[[W:[^:]*]]: memref<4x8x16x16xi8>
// CHECK:         %[[INP:.*]] = memref.alloc() : memref<2x1x2x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %[[WGT:.*]] = memref.alloc() : memref<2x2x2x16x16xi8, #vta.sram<wgt>>
// CHECK:         affine.for %[[OC:.*]] = 0 to 2 {
// CHECK:           affine.for %[[IC:.*]] = 0 to 4 {
// CHECK-NEXT:        %[[P:.*]] = affine.apply affine_map<(d0) -> ((d0 mod 2))> (%[[IC]])
// CHECK-NEXT:        %[[IB:.*]] = memref.subview %[[INP]][%[[P]], 0, 0, 0, 0]
// CHECK-NEXT:        %[[XO:.*]] = affine.apply affine_map<(d0) -> ((d0 * 2))> (%[[IC]])
// CHECK-NEXT:        %[[IP:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 2))> (%[[IC]])
// CHECK-NEXT:        vta.dma_copy %[[X]][%[[XO]]] -> %[[INP]][%[[IP]]] y 1 x 2 stride 2 : memref<1x8x1x16xi8> -> memref<2x1x2x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:        %[[WB:.*]] = memref.subview %[[WGT]][%[[P]], 0, 0, 0, 0]
// CHECK-NEXT:        %[[WO:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 16) + (d1 * 2)))> (%[[OC]], %[[IC]])
// CHECK-NEXT:        %[[WP:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 4))> (%[[IC]])
// CHECK-NEXT:        vta.dma_copy %[[W]][%[[WO]]] -> %[[WGT]][%[[WP]]] y 2 x 2 stride 8 : memref<4x8x16x16xi8> -> memref<2x2x2x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:        linalg.generic {{.*}} ins(%[[IB]], %[[WB]] :

// FOLD-LABEL: func.func @double_buffer(
// FOLD:         affine.for %[[IC:.*]] = 0 to 4 {
// FOLD:           vta.dma_copy
// FOLD:           vta.dma_copy
// FOLD-NEXT:      %[[IP:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 2))> (%[[IC]])
// FOLD-NEXT:      %[[WP:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 4))> (%[[IC]])
// FOLD-NEXT:      vta.uop_loop 2 dst 1 wgt 2 {
// FOLD-NEXT:        vta.uop_loop 2 src 1 wgt 1 {
// FOLD-NEXT:          vta.gemm %{{.*}}[0] += %{{.*}}[%[[IP]]] * %{{.*}}[%[[WP]]]
// FOLD-NEXT:        }
// FOLD-NEXT:      }
// FOLD-NEXT:    }
// FOLD-NOT:     memref.subview
!x = memref<1x8x1x16xi8>
!w = memref<4x8x16x16xi8>
!xs = memref<1x2x1x16xi8, strided<[128, 16, 16, 1], offset: ?>>
!ws = memref<2x2x16x16xi8, strided<[2048, 256, 16, 1], offset: ?>>
!inp2 = memref<2x1x2x1x16xi8, #vta.sram<inp>>
!wgt2 = memref<2x2x2x16x16xi8, #vta.sram<wgt>>
!ib = memref<1x2x1x16xi8, strided<[32, 16, 16, 1], offset: ?>, #vta.sram<inp>>
!wb = memref<2x2x16x16xi8, strided<[1024, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
!acc = memref<1x2x1x16xi32, #vta.sram<acc>>
func.func @double_buffer(%x: !x, %w: !w) {
  %inp = memref.alloc() : !inp2
  %wgt = memref.alloc() : !wgt2
  %acc = memref.alloc() : !acc
  affine.for %oc = 0 to 2 {
    affine.for %ic = 0 to 4 {
      %p = affine.apply affine_map<(d0) -> (d0 mod 2)>(%ic)
      %i = affine.apply affine_map<(d0) -> (d0 * 2)>(%ic)
      %o = affine.apply affine_map<(d0) -> (d0 * 2)>(%oc)
      %xs = memref.subview %x[0, %i, 0, 0] [1, 2, 1, 16] [1, 1, 1, 1] : !x to !xs
      %ib = memref.subview %inp[%p, 0, 0, 0, 0] [1, 1, 2, 1, 16] [1, 1, 1, 1, 1] : !inp2 to !ib
      memref.copy %xs, %ib : !xs to !ib
      %ws = memref.subview %w[%o, %i, 0, 0] [2, 2, 16, 16] [1, 1, 1, 1] : !w to !ws
      %wb = memref.subview %wgt[%p, 0, 0, 0, 0] [1, 2, 2, 16, 16] [1, 1, 1, 1, 1] : !wgt2 to !wb
      memref.copy %ws, %wb : !ws to !wb
      linalg.generic {indexing_maps = [affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>, affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>, affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
          ins(%ib, %wb : !ib, !wb) outs(%acc : !acc) {
      ^bb0(%xv: i8, %wv: i8, %av: i32):
        %0 = arith.extsi %xv : i8 to i32
        %1 = arith.extsi %wv : i8 to i32
        %2 = arith.muli %0, %1 : i32
        %3 = arith.addi %av, %2 : i32
        linalg.yield %3 : i32
      }
    }
  } {vta.double_buffer}
  return
}

// -----

// A per-channel bias broadcast over the row blocks: one DRAM row read 4 times (stride 0).

// CHECK-LABEL: func.func @bias(
// CHECK-SAME:      %[[B:.*]]: memref<1x8x1x16xi32>)
// CHECK:         affine.for %[[OC:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[O:.*]] = affine.apply affine_map<(d0) -> ((d0 * 4))> (%[[OC]])
// CHECK-NEXT:      vta.dma_copy %[[B]][%[[O]]] -> %{{.*}}[0] y 4 x 4 stride 0 : memref<1x8x1x16xi32> -> memref<4x4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    }
!b = memref<1x8x1x16xi32>
!bs = memref<1x4x1x16xi32, strided<[128, 16, 16, 1], offset: ?>>
!acc = memref<4x4x1x16xi32, #vta.sram<acc>>
func.func @bias(%b: !b) {
  %acc = memref.alloc() : !acc
  affine.for %oc = 0 to 2 {
    %o = affine.apply affine_map<(d0) -> (d0 * 4)>(%oc)
    %bs = memref.subview %b[0, %o, 0, 0] [1, 4, 1, 16] [1, 1, 1, 1] : !b to !bs
    linalg.generic {indexing_maps = [affine_map<(b, o, bb, oo) -> (0, o, 0, oo)>, affine_map<(b, o, bb, oo) -> (b, o, bb, oo)>],
                    iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%bs : !bs) outs(%acc : !acc) {
    ^bb0(%in: i32, %out: i32):
      linalg.yield %in : i32
    }
  }
  return
}

// -----

// Whole buffers at constant positions: an i8 matrix sign-extended into the accumulator
// (ACC_8BIT), an i32 one copied (ACC), the result truncated into i8 DRAM (a store). Full rows
// are contiguous: one row of 8 elements each.

// CHECK-LABEL: func.func @acc_types(
// CHECK-SAME:      %[[A8:[^:]*]]: memref<2x4x1x16xi8>, %[[A32:[^:]*]]: memref<2x4x1x16xi32>, %[[Y:[^:]*]]: memref<2x4x1x16xi8>)
// CHECK:         vta.dma_copy %[[A8]][0] -> %[[ACC:.*]][0] y 1 x 8 stride 8 : memref<2x4x1x16xi8> -> memref<2x4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    vta.dma_copy %[[A32]][0] -> %{{.*}}[0] y 1 x 8 stride 8 : memref<2x4x1x16xi32> -> memref<2x4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    vta.dma_copy %[[ACC]][0] -> %[[Y]][0] y 1 x 8 stride 8 : memref<2x4x1x16xi32, #vta.sram<acc>> -> memref<2x4x1x16xi8>
// CHECK-NEXT:    func.return
!a8 = memref<2x4x1x16xi8>
!a32 = memref<2x4x1x16xi32>
!acc = memref<2x4x1x16xi32, #vta.sram<acc>>
#id = affine_map<(b, o, bb, oo) -> (b, o, bb, oo)>
func.func @acc_types(%a8: !a8, %a32: !a32, %y: !a8) {
  %acc = memref.alloc() : !acc
  %acc2 = memref.alloc() : !acc
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a8 : !a8) outs(%acc : !acc) {
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    linalg.yield %e : i32
  }
  memref.copy %a32, %acc2 : !a32 to !acc
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : !acc) outs(%y : !a8) {
  ^bb0(%in: i32, %out: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// linalg.copy converts like its hidden body: i8 into the accumulator sign-extends (ACC_8BIT),
// the accumulator into i8 truncates (a store).

// CHECK-LABEL: func.func @linalg_copy(
// CHECK-SAME:      %[[X:[^:]*]]: memref<4x1x16xi8>, %[[Y:[^:]*]]: memref<4x1x16xi8>)
// CHECK:         vta.dma_copy %[[X]][0] -> %[[INP:.*]][0] y 1 x 4 stride 4 : memref<4x1x16xi8> -> memref<4x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    vta.dma_copy %[[X]][0] -> %[[ACC:.*]][0] y 1 x 4 stride 4 : memref<4x1x16xi8> -> memref<4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    vta.dma_copy %[[ACC]][0] -> %[[Y]][0] y 1 x 4 stride 4 : memref<4x1x16xi32, #vta.sram<acc>> -> memref<4x1x16xi8>
func.func @linalg_copy(%x: memref<4x1x16xi8>, %y: memref<4x1x16xi8>) {
  %inp = memref.alloc() : memref<4x1x16xi8, #vta.sram<inp>>
  %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  linalg.copy ins(%x : memref<4x1x16xi8>) outs(%inp : memref<4x1x16xi8, #vta.sram<inp>>)
  linalg.copy ins(%x : memref<4x1x16xi8>) outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>)
  linalg.copy ins(%acc : memref<4x1x16xi32, #vta.sram<acc>>) outs(%y : memref<4x1x16xi8>)
  return
}

// -----

// A 2x2x3 tile of a (1, C, H, W, 1, 16) tensor: channel blocks 24 elements apart, rows 6
// apart, 3 contiguous columns. Rows and columns make one 2-D DMA; each channel block needs its
// own (written out, sharing the position value; a host loop with unroll-limit=1).

// CHECK-LABEL: func.func @split(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x4x4x6x1x16xi8>, %[[Y:[^:]*]]: memref<1x4x4x6x1x16xi8>)
// CHECK:         affine.for %[[CI:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[HI:.*]] = 0 to 2 {
// CHECK-NEXT:        %[[P:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 48) + (d1 * 12)))> (%[[CI]], %[[HI]])
// CHECK-NEXT:        vta.dma_copy %[[X]][%[[P]] + 3] -> %[[ACC:.*]][0] y 2 x 3 stride 6
// CHECK-NEXT:        vta.dma_copy %[[X]][%[[P]] + 27] -> %[[ACC]][6] y 2 x 3 stride 6
// CHECK-NEXT:        %[[Q:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 48) + (d1 * 12)))> (%[[CI]], %[[HI]])
// CHECK-NEXT:        vta.dma_copy %[[ACC]][0] -> %[[Y]][%[[Q]] + 3] y 2 x 3 stride 6
// CHECK-NEXT:        vta.dma_copy %[[ACC]][6] -> %[[Y]][%[[Q]] + 27] y 2 x 3 stride 6
// CHECK-NEXT:      }
// CHECK-NEXT:    }

// LOOP-LABEL: func.func @split(
// LOOP:         affine.for %[[CI:.*]] = 0 to 2 {
// LOOP-NEXT:      affine.for %[[HI:.*]] = 0 to 2 {
// LOOP-NEXT:        affine.for %[[K:.*]] = 0 to 2 {
// LOOP-NEXT:          %[[P:.*]] = affine.apply affine_map<(d0, d1, d2) -> ((((d0 * 48) + (d1 * 12)) + (d2 * 24)))> (%[[CI]], %[[HI]], %[[K]])
// LOOP-NEXT:          %[[S:.*]] = affine.apply affine_map<(d0) -> ((d0 * 6))> (%[[K]])
// LOOP-NEXT:          vta.dma_copy %{{.*}}[%[[P]] + 3] -> %{{.*}}[%[[S]]] y 2 x 3 stride 6
// LOOP-NEXT:        }
// LOOP-NEXT:        affine.for %[[K:.*]] = 0 to 2 {
// LOOP:               vta.dma_copy %{{.*}}[%{{.*}}] -> %{{.*}}[%{{.*}} + 3] y 2 x 3 stride 6
// LOOP-NEXT:        }
!t = memref<1x4x4x6x1x16xi8>
!ts = memref<1x2x2x3x1x16xi8, strided<[6144, 384, 96, 16, 16, 1], offset: ?>>
!tacc = memref<1x2x2x3x1x16xi32, #vta.sram<acc>>
#id6 = affine_map<(n, c, h, w, bb, oo) -> (n, c, h, w, bb, oo)>
func.func @split(%x: !t, %y: !t) {
  %acc = memref.alloc() : !tacc
  affine.for %ci = 0 to 2 {
    affine.for %hi = 0 to 2 {
      %c = affine.apply affine_map<(d0) -> (d0 * 2)>(%ci)
      %h = affine.apply affine_map<(d0) -> (d0 * 2)>(%hi)
      %xs = memref.subview %x[0, %c, %h, 3, 0, 0] [1, 2, 2, 3, 1, 16] [1, 1, 1, 1, 1, 1] : !t to !ts
      linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
          ins(%xs : !ts) outs(%acc : !tacc) {
      ^bb0(%in: i8, %out: i32):
        %e = arith.extsi %in : i8 to i32
        linalg.yield %e : i32
      }
      %ys = memref.subview %y[0, %c, %h, 3, 0, 0] [1, 2, 2, 3, 1, 16] [1, 1, 1, 1, 1, 1] : !t to !ts
      linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
          ins(%acc : !tacc) outs(%ys : !ts) {
      ^bb0(%in: i32, %out: i8):
        %t = arith.trunci %in : i32 to i8
        linalg.yield %t : i8
      }
    }
  }
  return
}

// -----

// A window of a wider accumulator buffer: its rows are not adjacent in SRAM, so each of the 8
// rows is a DMA of its own, in a host loop (more than unroll-limit of them). The DRAM and SRAM
// positions are the same value here.

// CHECK-LABEL: func.func @window(
// CHECK-SAME:      %[[M:.*]]: memref<8x8x1x16xi32>)
// CHECK:         affine.for %[[J:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[R:.*]] = 0 to 8 {
// CHECK-NEXT:        %[[P:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 4) + (d1 * 8)))> (%[[J]], %[[R]])
// CHECK-NEXT:        vta.dma_copy %[[M]][%[[P]]] -> %{{.*}}[%[[P]]] y 1 x 4 stride 4 : memref<8x8x1x16xi32> -> memref<8x8x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
!m = memref<8x8x1x16xi32>
!ms = memref<8x4x1x16xi32, strided<[128, 16, 16, 1], offset: ?>>
!wide = memref<8x8x1x16xi32, #vta.sram<acc>>
!win = memref<8x4x1x16xi32, strided<[128, 16, 16, 1], offset: ?>, #vta.sram<acc>>
func.func @window(%m: !m) {
  %acc = memref.alloc() : !wide
  affine.for %j = 0 to 2 {
    %o = affine.apply affine_map<(d0) -> (d0 * 4)>(%j)
    %ms = memref.subview %m[0, %o, 0, 0] [8, 4, 1, 16] [1, 1, 1, 1] : !m to !ms
    %win = memref.subview %acc[0, %o, 0, 0] [8, 4, 1, 16] [1, 1, 1, 1] : !wide to !win
    memref.copy %ms, %win : !ms to !win
  }
  return
}

// -----

// BATCH 2 (the batch2 configuration): a 2x16 element. A DRAM pitch of 3 elements between the
// row blocks of a matrix tile.

// CHECK-LABEL: func.func @batch2(
// CHECK:         vta.dma_copy %{{.*}}[%{{.*}}] -> %{{.*}}[0] y 2 x 2 stride 3 : memref<2x3x2x16xi8> -> memref<2x2x2x16xi8, #vta.sram<inp>>
builtin.module attributes {vta.config = #vta.config<target = "sim", hw_ver = "0.0.2", log_inp_width = 3, log_wgt_width = 3, log_acc_width = 5, log_batch = 1, log_block = 4, log_uop_buff_size = 15, log_inp_buff_size = 15, log_wgt_buff_size = 18, log_acc_buff_size = 18>} {
  func.func @batch2(%x: memref<2x3x2x16xi8>, %i: index) {
    %inp = memref.alloc() : memref<2x2x2x16xi8, #vta.sram<inp>>
    %xs = memref.subview %x[0, %i, 0, 0] [2, 2, 2, 16] [1, 1, 1, 1] : memref<2x3x2x16xi8> to memref<2x2x2x16xi8, strided<[96, 32, 16, 1], offset: ?>>
    memref.copy %xs, %inp : memref<2x2x2x16xi8, strided<[96, 32, 16, 1], offset: ?>> to memref<2x2x2x16xi8, #vta.sram<inp>>
    return
  }
}

// -----

// With BATCH 2 a per-channel bias would have to repeat within each 2x16 element.
builtin.module attributes {vta.config = #vta.config<target = "sim", hw_ver = "0.0.2", log_inp_width = 3, log_wgt_width = 3, log_acc_width = 5, log_batch = 1, log_block = 4, log_uop_buff_size = 15, log_inp_buff_size = 15, log_wgt_buff_size = 18, log_acc_buff_size = 18>} {
  func.func @bias_batch2(%b: memref<1x4x1x16xi32>) {
    %acc = memref.alloc() : memref<1x4x2x16xi32, #vta.sram<acc>>
    // expected-error@+1 {{the DRAM side repeats one value over lane dimension d2 (extent 2) of the 2x16 tensor element: a DMA moves whole elements, so a broadcast within an element (such as a per-channel bias over BATCH > 1 rows) cannot be loaded}}
    linalg.generic {indexing_maps = [affine_map<(b, o, bb, oo) -> (0, o, 0, oo)>, affine_map<(b, o, bb, oo) -> (b, o, bb, oo)>],
                    iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%b : memref<1x4x1x16xi32>) outs(%acc : memref<1x4x2x16xi32, #vta.sram<acc>>) {
    ^bb0(%in: i32, %out: i32):
      linalg.yield %in : i32
    }
    return
  }
}

// -----

func.func @sram_to_sram(%a: memref<4x1x16xi32, #vta.sram<acc>>, %b: memref<4x1x16xi32, #vta.sram<acc>>) {
  // expected-error@+1 {{'memref.copy' op cannot be lowered to VTA DMA copies: both sides are in SRAM: VTA moves data only between DRAM and SRAM}}
  memref.copy %a, %b : memref<4x1x16xi32, #vta.sram<acc>> to memref<4x1x16xi32, #vta.sram<acc>>
  return
}

// -----

func.func @dram_to_dram(%a: memref<4x1x16xi32>, %b: memref<4x1x16xi32>) {
  // expected-error@+1 {{neither side is in a #vta.sram memory space}}
  memref.copy %a, %b : memref<4x1x16xi32> to memref<4x1x16xi32>
  return
}

// -----

func.func @i32_store(%a: memref<4x1x16xi32, #vta.sram<acc>>, %y: memref<4x1x16xi32>) {
  // expected-error@+1 {{a store truncates the accumulator to i8 DRAM: write it with a linalg.generic whose body is arith.trunci to i8 (got i32 DRAM)}}
  memref.copy %a, %y : memref<4x1x16xi32, #vta.sram<acc>> to memref<4x1x16xi32>
  return
}

// -----

func.func @store_from_inp(%a: memref<4x1x16xi8, #vta.sram<inp>>, %y: memref<4x1x16xi8>) {
  // expected-error@+1 {{VTA stores only from the accumulator (#vta.sram<acc>), not from #vta.sram<inp>}}
  memref.copy %a, %y : memref<4x1x16xi8, #vta.sram<inp>> to memref<4x1x16xi8>
  return
}

// -----

func.func @i32_into_inp(%x: memref<4x1x16xi32>, %inp: memref<4x1x16xi8, #vta.sram<inp>>) {
  // expected-error@+1 {{a load into #vta.sram<inp> copies i8 DRAM unchanged (got i32 DRAM, conversion 'trunci')}}
  linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<4x1x16xi32>) outs(%inp : memref<4x1x16xi8, #vta.sram<inp>>) {
  ^bb0(%in: i32, %out: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @not_a_copy(%x: memref<4x1x16xi32>, %acc: memref<4x1x16xi32, #vta.sram<acc>>) {
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{the body of a copy between DRAM and SRAM must yield its input, arith.extsi of it (i8 into the accumulator) or arith.trunci of it (the accumulator into i8 DRAM); got arith.addi}}
  linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<4x1x16xi32>) outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%in: i32, %out: i32):
    %r = arith.addi %in, %c1 : i32
    linalg.yield %r : i32
  }
  return
}

// -----

// A contraction must read SRAM tiles: vta-tile copies its operands first.
func.func @contraction_on_dram(%x: memref<1x4x1x16xi8>, %w: memref<4x4x16x16xi8>, %acc: memref<1x4x1x16xi32, #vta.sram<acc>>) {
  // expected-error@+1 {{a linalg.generic between DRAM and SRAM must be a copy: one input and one output buffer, got 2 input(s) and 1 output(s)}}
  linalg.generic {indexing_maps = [affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>, affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>, affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x4x1x16xi8>, memref<4x4x16x16xi8>) outs(%acc : memref<1x4x1x16xi32, #vta.sram<acc>>) {
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

// Half a tensor element: the view starts at lane 8.
func.func @inside_element(%x: memref<4x1x32xi8>, %inp: memref<4x1x16xi8, #vta.sram<inp>>) {
  %xs = memref.subview %x[0, 0, 8] [4, 1, 16] [1, 1, 1] : memref<4x1x32xi8> to memref<4x1x16xi8, strided<[32, 32, 1], offset: 8>>
  // expected-error@+1 {{the DRAM side starts inside a tensor element (16 scalars; offset 8)}}
  memref.copy %xs, %inp : memref<4x1x16xi8, strided<[32, 32, 1], offset: 8>> to memref<4x1x16xi8, #vta.sram<inp>>
  return
}

// -----

// The lanes of an element must be contiguous in DRAM: here they are 2 scalars apart.
func.func @strided_lanes(%x: memref<4x1x32xi8>, %inp: memref<4x1x16xi8, #vta.sram<inp>>) {
  %xs = memref.subview %x[0, 0, 0] [4, 1, 16] [1, 1, 2] : memref<4x1x32xi8> to memref<4x1x16xi8, strided<[32, 32, 2]>>
  // expected-error@+1 {{the DRAM side does not hold whole tensor elements laid out as the SRAM's (lane dimension d2 steps 2 scalars in DRAM, 1 in SRAM)}}
  memref.copy %xs, %inp : memref<4x1x16xi8, strided<[32, 32, 2]>> to memref<4x1x16xi8, #vta.sram<inp>>
  return
}

// -----

// A tile that reaches past the edge of the tensor (a halo, which needs padding): the verifier
// refuses the view itself.
func.func @halo(%x: memref<1x4x1x16xi8>, %inp: memref<1x3x1x16xi8, #vta.sram<inp>>) {
  // expected-error@+1 {{the view runs out of its source along dimension 1: offset 2, size 3 and stride 1 reach element 4 of 4}}
  %xs = memref.subview %x[0, 2, 0, 0] [1, 3, 1, 16] [1, 1, 1, 1] : memref<1x4x1x16xi8> to memref<1x3x1x16xi8, strided<[64, 16, 16, 1], offset: 32>>
  memref.copy %xs, %inp : memref<1x3x1x16xi8, strided<[64, 16, 16, 1], offset: 32>> to memref<1x3x1x16xi8, #vta.sram<inp>>
  return
}

// -----

func.func @dynamic_stride(%x: memref<8x1x16xi8>, %inp: memref<4x1x16xi8, #vta.sram<inp>>, %s: index) {
  %xs = memref.subview %x[0, 0, 0] [4, 1, 16] [%s, 1, 1] : memref<8x1x16xi8> to memref<4x1x16xi8, strided<[?, 16, 1]>>
  // expected-error@+1 {{a subview with dynamic sizes or strides is not supported (VTA copies and micro-ops have static shapes)}}
  memref.copy %xs, %inp : memref<4x1x16xi8, strided<[?, 16, 1]>> to memref<4x1x16xi8, #vta.sram<inp>>
  return
}

// -----

func.func @into_uop(%x: memref<4xi32>, %u: memref<4xi32, #vta.sram<uop>>) {
  // expected-error@+1 {{micro-ops are loaded by micro-kernels, not by copies}}
  memref.copy %x, %u : memref<4xi32> to memref<4xi32, #vta.sram<uop>>
  return
}
