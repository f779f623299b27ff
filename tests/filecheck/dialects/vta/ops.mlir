// RUN: vta-opt %s | vta-opt | filecheck %s
// RUN: vta-opt %s --print-op-generic | vta-opt | filecheck %s

// Every vta op and attribute in its custom syntax, printed back unchanged: TVM's
// matrix_multiply_opt (docs/isa.md §5.4) on the default configuration, plus the forms it does
// not use (padding, ACC / ACC_8BIT / uop loads, tensor ALU operands, left shifts, MUL).

// CHECK:      builtin.module attributes {vta.config = #vta.config<target = "sim", hw_ver = "0.0.2", log_inp_width = 3, log_wgt_width = 3, log_acc_width = 5, log_batch = 0, log_block = 4, log_uop_buff_size = 15, log_inp_buff_size = 15, log_wgt_buff_size = 18, log_acc_buff_size = 17>} {
builtin.module attributes {vta.config = #vta.config<target = "sim", hw_ver = "0.0.2", log_inp_width = 3, log_wgt_width = 3, log_acc_width = 5, log_batch = 0, log_block = 4, log_uop_buff_size = 15, log_inp_buff_size = 15, log_wgt_buff_size = 18, log_acc_buff_size = 17>} {

// CHECK-LABEL: func.func @dense(
// CHECK-SAME:      %[[X:.*]]: memref<1x64x1x16xi8>, %[[W:.*]]: memref<64x64x16x16xi8>, %[[Y:.*]]: memref<1x64x1x16xi8>)
func.func @dense(%x: memref<1x64x1x16xi8>, %w: memref<64x64x16x16xi8>, %y: memref<1x64x1x16xi8>) {
  // CHECK:      %[[INP:.*]] = memref.alloc() : memref<16x1x16xi8, #vta.sram<inp>>
  // CHECK-NEXT: %[[WGT:.*]] = memref.alloc() : memref<256x16x16xi8, #vta.sram<wgt>>
  // CHECK-NEXT: %[[ACC:.*]] = memref.alloc() : memref<16x1x16xi32, #vta.sram<acc>>
  %inp = memref.alloc() : memref<16x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<256x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() : memref<16x1x16xi32, #vta.sram<acc>>
  // CHECK-NEXT: vta.dep_push store -> compute
  vta.dep_push store -> compute
  // CHECK-NEXT: affine.for %[[OC:.*]] = 0 to 4 {
  affine.for %oc = 0 to 4 {
    // CHECK-NEXT: vta.stage compute {
    // CHECK-NEXT:   vta.dep_pop store -> compute
    // CHECK-NEXT:   vta.uop_loop 16 dst 1 {
    // CHECK-NEXT:     vta.gemm_reset %[[ACC]][0] : memref<16x1x16xi32, #vta.sram<acc>>
    // CHECK-NEXT:   }
    // CHECK-NEXT:   vta.dep_push compute -> load
    // CHECK-NEXT: }
    vta.stage compute {
      vta.dep_pop store -> compute
      vta.uop_loop 16 dst 1 {
        vta.gemm_reset %acc[0] : memref<16x1x16xi32, #vta.sram<acc>>
      }
      vta.dep_push compute -> load
    }
    // CHECK-NEXT: affine.for %[[IC:.*]] = 0 to 4 {
    affine.for %ic = 0 to 4 {
      // CHECK-NEXT: %[[XO:.*]] = affine.apply
      // CHECK-NEXT: %[[WO:.*]] = affine.apply
      %xo = affine.apply affine_map<(d0) -> (d0 * 16)>(%ic)
      %wo = affine.apply affine_map<(d0, d1) -> (d0 * 1024 + d1 * 16)>(%oc, %ic)
      // CHECK-NEXT: vta.stage load {
      // CHECK-NEXT:   vta.dep_pop compute -> load
      // CHECK-NEXT:   vta.dma_copy %[[X]][%[[XO]]] -> %[[INP]][0] y 1 x 16 stride 16 : memref<1x64x1x16xi8> -> memref<16x1x16xi8, #vta.sram<inp>>
      // CHECK-NEXT:   vta.dma_copy %[[W]][%[[WO]]] -> %[[WGT]][0] y 16 x 16 stride 64 : memref<64x64x16x16xi8> -> memref<256x16x16xi8, #vta.sram<wgt>>
      // CHECK-NEXT:   vta.dep_push load -> compute
      // CHECK-NEXT: }
      vta.stage load {
        vta.dep_pop compute -> load
        vta.dma_copy %x[%xo] -> %inp[0] y 1 x 16 stride 16 : memref<1x64x1x16xi8> -> memref<16x1x16xi8, #vta.sram<inp>>
        vta.dma_copy %w[%wo] -> %wgt[0] y 16 x 16 stride 64 : memref<64x64x16x16xi8> -> memref<256x16x16xi8, #vta.sram<wgt>>
        vta.dep_push load -> compute
      }
      // CHECK-NEXT: vta.stage compute {
      // CHECK-NEXT:   vta.dep_pop load -> compute
      // CHECK-NEXT:   vta.uop_loop 16 dst 1 wgt 16 {
      // CHECK-NEXT:     vta.uop_loop 16 src 1 wgt 1 {
      // CHECK-NEXT:       vta.gemm %[[ACC]][0] += %[[INP]][0] * %[[WGT]][0] : memref<16x1x16xi32, #vta.sram<acc>>, memref<16x1x16xi8, #vta.sram<inp>>, memref<256x16x16xi8, #vta.sram<wgt>>
      // CHECK-NEXT:     }
      // CHECK-NEXT:   }
      // CHECK-NEXT:   vta.dep_push compute -> load
      // CHECK-NEXT: }
      vta.stage compute {
        vta.dep_pop load -> compute
        vta.uop_loop 16 dst 1 wgt 16 {
          vta.uop_loop 16 src 1 wgt 1 {
            vta.gemm %acc[0] += %inp[0] * %wgt[0] : memref<16x1x16xi32, #vta.sram<acc>>, memref<16x1x16xi8, #vta.sram<inp>>, memref<256x16x16xi8, #vta.sram<wgt>>
          }
        }
        vta.dep_push compute -> load
      }
    }
    // CHECK:      vta.dep_pop compute -> load
    // CHECK-NEXT: vta.stage compute {
    // CHECK-NEXT:   vta.uop_loop 16 dst 1 src 1 {
    // CHECK-NEXT:     vta.alu shr %[[ACC]][0], 8 : memref<16x1x16xi32, #vta.sram<acc>>
    // CHECK-NEXT:   }
    // CHECK-NEXT:   vta.uop_loop 16 dst 1 src 1 {
    // CHECK-NEXT:     vta.alu max %[[ACC]][0], 0 : memref<16x1x16xi32, #vta.sram<acc>>
    // CHECK-NEXT:   }
    // CHECK-NEXT:   vta.uop_loop 16 dst 1 src 1 {
    // CHECK-NEXT:     vta.alu min %[[ACC]][0], 127 : memref<16x1x16xi32, #vta.sram<acc>>
    // CHECK-NEXT:   }
    // CHECK-NEXT:   vta.dep_push compute -> store
    // CHECK-NEXT: }
    vta.dep_pop compute -> load
    vta.stage compute {
      vta.uop_loop 16 dst 1 src 1 {
        vta.alu shr %acc[0], 8 : memref<16x1x16xi32, #vta.sram<acc>>
      }
      vta.uop_loop 16 dst 1 src 1 {
        vta.alu max %acc[0], 0 : memref<16x1x16xi32, #vta.sram<acc>>
      }
      vta.uop_loop 16 dst 1 src 1 {
        vta.alu min %acc[0], 127 : memref<16x1x16xi32, #vta.sram<acc>>
      }
      vta.dep_push compute -> store
    }
    // CHECK-NEXT: %[[YO:.*]] = affine.apply
    // CHECK-NEXT: vta.stage store {
    // CHECK-NEXT:   vta.dep_pop compute -> store
    // CHECK-NEXT:   vta.dma_copy %[[ACC]][0] -> %[[Y]][%[[YO]]] y 1 x 16 stride 16 : memref<16x1x16xi32, #vta.sram<acc>> -> memref<1x64x1x16xi8>
    // CHECK-NEXT:   vta.dep_push store -> compute
    // CHECK-NEXT: }
    %yo = affine.apply affine_map<(d0) -> (d0 * 16)>(%oc)
    vta.stage store {
      vta.dep_pop compute -> store
      vta.dma_copy %acc[0] -> %y[%yo] y 1 x 16 stride 16 : memref<16x1x16xi32, #vta.sram<acc>> -> memref<1x64x1x16xi8>
      vta.dep_push store -> compute
    }
  }
  // CHECK:      vta.dep_pop store -> compute
  // CHECK-NEXT: func.return
  vta.dep_pop store -> compute
  func.return
}

// CHECK-LABEL: func.func @other_forms(
// CHECK-SAME:      %[[D:.*]]: memref<1x4x6x6x1x16xi8>, %[[B:.*]]: memref<4x1x16xi32>, %[[B8:.*]]: memref<4x1x16xi8>, %[[U:.*]]: memref<8xi32>, %[[I:.*]]: index)
func.func @other_forms(%d: memref<1x4x6x6x1x16xi8>, %b: memref<4x1x16xi32>, %b8: memref<4x1x16xi8>, %u: memref<8xi32>, %i: index) {
  %inp = memref.alloc() : memref<64x1x16xi8, #vta.sram<inp>>
  %acc = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
  %uop = memref.alloc() : memref<8xi32, #vta.sram<uop>>
  %wgt = memref.alloc() : memref<4x16x16xi8, #vta.sram<wgt>>
  // A 6x6 tile with a halo of one element on every side (64 SRAM elements).
  // CHECK: vta.dma_copy %[[D]][%[[I]] + 7] -> %{{.*}}[0] y 6 x 6 stride 6 pad [1, 1, 1, 1] : memref<1x4x6x6x1x16xi8> -> memref<64x1x16xi8, #vta.sram<inp>>
  vta.dma_copy %d[%i + 7] -> %inp[0] y 6 x 6 stride 6 pad [1, 1, 1, 1] : memref<1x4x6x6x1x16xi8> -> memref<64x1x16xi8, #vta.sram<inp>>
  // CHECK-NEXT: vta.dma_copy %[[B]][0] -> %[[ACC:.*]][%[[I]] - 2] y 1 x 4 stride 4 : memref<4x1x16xi32> -> memref<64x1x16xi32, #vta.sram<acc>>
  vta.dma_copy %b[0] -> %acc[%i - 2] y 1 x 4 stride 4 : memref<4x1x16xi32> -> memref<64x1x16xi32, #vta.sram<acc>>
  // CHECK-NEXT: vta.dma_copy %[[B8]][0] -> %[[ACC]][4] y 2 x 2 stride 2 : memref<4x1x16xi8> -> memref<64x1x16xi32, #vta.sram<acc>>
  vta.dma_copy %b8[0] -> %acc[4] y 2 x 2 stride 2 : memref<4x1x16xi8> -> memref<64x1x16xi32, #vta.sram<acc>>
  // CHECK-NEXT: vta.dma_copy %[[U]][0] -> %{{.*}}[0] y 1 x 8 stride 8 : memref<8xi32> -> memref<8xi32, #vta.sram<uop>>
  vta.dma_copy %u[0] -> %uop[0] y 1 x 8 stride 8 : memref<8xi32> -> memref<8xi32, #vta.sram<uop>>
  // CHECK-NEXT: vta.alu add %[[ACC]][%[[I]]], %[[ACC]][32] : memref<64x1x16xi32, #vta.sram<acc>>, memref<64x1x16xi32, #vta.sram<acc>>
  vta.alu add %acc[%i], %acc[32] : memref<64x1x16xi32, #vta.sram<acc>>, memref<64x1x16xi32, #vta.sram<acc>>
  // CHECK-NEXT: vta.alu shr %[[ACC]][0], -3 : memref<64x1x16xi32, #vta.sram<acc>>
  vta.alu shr %acc[0], -3 : memref<64x1x16xi32, #vta.sram<acc>>
  // CHECK-NEXT: vta.alu mul %[[ACC]][1], 3 {note = "fsim only"} : memref<64x1x16xi32, #vta.sram<acc>>
  vta.alu mul %acc[1], 3 {note = "fsim only"} : memref<64x1x16xi32, #vta.sram<acc>>
  // CHECK-NEXT: vta.gemm %[[ACC]][%[[I]] + 1] += %{{.*}}[2] * %{{.*}}[%[[I]]] : memref<64x1x16xi32, #vta.sram<acc>>, memref<64x1x16xi8, #vta.sram<inp>>, memref<4x16x16xi8, #vta.sram<wgt>>
  vta.gemm %acc[%i + 1] += %inp[2] * %wgt[%i] : memref<64x1x16xi32, #vta.sram<acc>>, memref<64x1x16xi8, #vta.sram<inp>>, memref<4x16x16xi8, #vta.sram<wgt>>
  // A micro-kernel of two micro-ops in one loop, with its indices computed on the host.
  // CHECK:      vta.uop_loop 4 dst 2 src 2 attributes {kernel = "pairwise min"} {
  // CHECK-NEXT:   %[[C1:.*]] = arith.constant 1 : index
  // CHECK-NEXT:   vta.alu min %[[ACC]][0], %[[ACC]][8] : memref<64x1x16xi32, #vta.sram<acc>>, memref<64x1x16xi32, #vta.sram<acc>>
  // CHECK-NEXT:   vta.alu min %[[ACC]][%[[C1]]], %[[ACC]][9] : memref<64x1x16xi32, #vta.sram<acc>>, memref<64x1x16xi32, #vta.sram<acc>>
  // CHECK-NEXT: }
  vta.uop_loop 4 dst 2 src 2 attributes {kernel = "pairwise min"} {
    %c1 = arith.constant 1 : index
    vta.alu min %acc[0], %acc[8] : memref<64x1x16xi32, #vta.sram<acc>>, memref<64x1x16xi32, #vta.sram<acc>>
    vta.alu min %acc[%c1], %acc[9] : memref<64x1x16xi32, #vta.sram<acc>>, memref<64x1x16xi32, #vta.sram<acc>>
  }
  func.return
}

// A convolution micro-kernel with micro-op list loops (3x3 kernel, two input-channel blocks,
// four output-channel blocks of 8x8 outputs, input tile 10x10 at copy offset %p, weights at
// copy offset %q): 2·3·3·4 = 72 micro-ops.
// CHECK-LABEL: func.func @list_loops(
// CHECK:        vta.uop_loop 8 dst 8 src 10 {
// CHECK-NEXT:     vta.uop_loop 8 dst 1 src 1 {
// CHECK-NEXT:       affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:         affine.for %[[KH:.*]] = 0 to 3 {
// CHECK-NEXT:           affine.for %[[KW:.*]] = 0 to 3 {
// CHECK-NEXT:             affine.for %[[O:.*]] = 0 to 4 {
// CHECK-NEXT:               %[[DST:.*]] = affine.apply
// CHECK-NEXT:               %[[SRC:.*]] = affine.apply
// CHECK-NEXT:               %[[W:.*]] = affine.apply
// CHECK-NEXT:               vta.gemm %{{.*}}[%[[DST]]] += %{{.*}}[%[[SRC]]] * %{{.*}}[%[[W]]] : memref<256x1x16xi32, #vta.sram<acc>>, memref<400x1x16xi8, #vta.sram<inp>>, memref<144x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:             }
func.func @list_loops(%p: index, %q: index) {
  %inp = memref.alloc() : memref<400x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<144x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() : memref<256x1x16xi32, #vta.sram<acc>>
  vta.uop_loop 8 dst 8 src 10 {
    vta.uop_loop 8 dst 1 src 1 {
      affine.for %i = 0 to 2 {
        affine.for %kh = 0 to 3 {
          affine.for %kw = 0 to 3 {
            affine.for %o = 0 to 4 {
              %d = affine.apply affine_map<(d0) -> (d0 * 64)> (%o)
              %s = affine.apply affine_map<(d0, d1, d2)[s0] -> (d0 * 100 + d1 * 10 + d2 + s0)> (%i, %kh, %kw)[%p]
              %w = affine.apply affine_map<(d0, d1, d2, d3)[s0] -> (d0 * 18 + d1 * 9 + d2 * 3 + d3 + s0)> (%o, %i, %kh, %kw)[%q]
              vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : memref<256x1x16xi32, #vta.sram<acc>>, memref<400x1x16xi8, #vta.sram<inp>>, memref<144x16x16xi8, #vta.sram<wgt>>
            }
          }
        }
      }
    }
  }
  // CHECK:      vta.uop_loop 4 dst 1 {
  // CHECK-NEXT:   vta.gemm_reset %{{.*}}[0]
  // CHECK-NEXT:   affine.for %{{.*}} = 1 to 3 {
  // CHECK-NEXT:     %{{.*}} = arith.constant 64 : index
  // CHECK-NEXT:     %{{.*}} = arith.muli
  // CHECK-NEXT:     vta.gemm_reset
  // CHECK-NEXT:   }
  // CHECK-NEXT: }
  vta.uop_loop 4 dst 1 {
    vta.gemm_reset %acc[0] : memref<256x1x16xi32, #vta.sram<acc>>
    affine.for %j = 1 to 3 {
      %c64 = arith.constant 64 : index
      %r = arith.muli %j, %c64 : index
      vta.gemm_reset %acc[%r] : memref<256x1x16xi32, #vta.sram<acc>>
    }
  }
  func.return
}

}
