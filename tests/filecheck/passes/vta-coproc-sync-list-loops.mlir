// vta-coproc-sync on micro-kernels with micro-op list loops (affine.for inside a vta.uop_loop,
// docs/isa.md §4.4): a kernel touches the hull of all its enumerated micro-ops over its list
// loops and loop levels, computed from the positions' coefficients.

// RUN: vta-opt %s --split-input-file -p vta-coproc-sync | filecheck %s

// The reset kernel writes acc elements {0, 16, 32, 48} + {0, 1}: [0, 49]. The store of
// element 49 waits for it.

// CHECK-LABEL: func.func @ordered(
// CHECK:         vta.stage compute {
// CHECK-NEXT:      vta.uop_loop 2 dst 1 {
// CHECK-NEXT:        affine.for %{{.*}} = 0 to 4 {
// CHECK-NEXT:          %{{.*}} = affine.apply
// CHECK-NEXT:          vta.gemm_reset
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.dep_push compute -> store
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.stage store {
// CHECK-NEXT:      vta.dep_pop compute -> store
// CHECK-NEXT:      vta.dma_copy %acc[49] -> %y[0]
func.func @ordered(%y: memref<1x1x1x16xi8>) {
  %acc = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
  vta.uop_loop 2 dst 1 {
    affine.for %j = 0 to 4 {
      %d = affine.apply affine_map<(d0) -> (d0 * 16)> (%j)
      vta.gemm_reset %acc[%d] : memref<64x1x16xi32, #vta.sram<acc>>
    }
  }
  vta.dma_copy %acc[49] -> %y[0] y 1 x 1 stride 1 : memref<64x1x16xi32, #vta.sram<acc>> -> memref<1x1x1x16xi8>
  func.return
}

// -----

// Element 50 is outside the kernel's range: no token.

// CHECK-LABEL: func.func @disjoint(
// CHECK-NOT:     vta.dep_
// CHECK:         func.return
func.func @disjoint(%y: memref<1x1x1x16xi8>) {
  %acc = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
  vta.uop_loop 2 dst 1 {
    affine.for %j = 0 to 4 {
      %d = affine.apply affine_map<(d0) -> (d0 * 16)> (%j)
      vta.gemm_reset %acc[%d] : memref<64x1x16xi32, #vta.sram<acc>>
    }
  }
  vta.dma_copy %acc[50] -> %y[0] y 1 x 1 stride 1 : memref<64x1x16xi32, #vta.sram<acc>> -> memref<1x1x1x16xi8>
  func.return
}

// -----

// A descending list loop (positions 60 - 16 j: 60, 44, 28, 12): the ALU kernel touches
// [12, 60]; the store of [8, 11] is independent of it, the one of [56, 59] waits for it.

// CHECK-LABEL: func.func @descending(
// CHECK:         vta.stage compute {
// CHECK-NEXT:      vta.uop_loop 1 {
// CHECK:           vta.dep_push compute -> store
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.stage store {
// CHECK-NEXT:      vta.dma_copy %acc[8] -> %y[0] y 1 x 4 stride 4
// CHECK-NEXT:      vta.dep_pop compute -> store
// CHECK-NEXT:      vta.dma_copy %acc[56] -> %y[0] y 1 x 4 stride 4
func.func @descending(%y: memref<1x4x1x16xi8>) {
  %acc = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
  vta.uop_loop 1 {
    affine.for %j = 0 to 4 {
      %d = affine.apply affine_map<(d0) -> (60 - d0 * 16)> (%j)
      vta.alu max %acc[%d], 0 : memref<64x1x16xi32, #vta.sram<acc>>
    }
  }
  vta.dma_copy %acc[8] -> %y[0] y 1 x 4 stride 4 : memref<64x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
  vta.dma_copy %acc[56] -> %y[0] y 1 x 4 stride 4 : memref<64x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
  func.return
}

// -----

// A double-buffered convolution step: the kernel reads input copy %p over its list loops
// (elements %p + [0, 31] of a 2 x 100 buffer).  The load of tile n + 1 writes the other copy,
// so the load -> compute and compute -> load tokens of the loop are two deep.

// CHECK-LABEL: func.func @double_buffered(
// CHECK:         vta.dep_push compute -> load
// CHECK-NEXT:    vta.dep_push compute -> load
// CHECK-NEXT:    affine.for %n = 0 to 4 {
// CHECK:           vta.stage load {
// CHECK-NEXT:        vta.dep_pop compute -> load
// CHECK:             vta.dma_copy %x[%{{.*}}] -> %inp[%p]
// CHECK-NEXT:        vta.dep_push load -> compute
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.stage compute {
// CHECK-NEXT:        vta.dep_pop load -> compute
// CHECK-NEXT:        vta.uop_loop 2 dst 2 src 10 {
// CHECK:             vta.dep_push compute -> load
// CHECK-NEXT:      }
// CHECK-NEXT:    } {vta.double_buffer}
// CHECK-NEXT:    vta.dep_pop compute -> load
// CHECK-NEXT:    vta.dep_pop compute -> load
func.func @double_buffered(%x: memref<4x1x10x10x1x16xi8>) {
  %inp = memref.alloc() : memref<200x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<9x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() : memref<12x1x16xi32, #vta.sram<acc>>
  affine.for %n = 0 to 4 {
    %p = affine.apply affine_map<(d0) -> ((d0 mod 2) * 100)> (%n)
    %xo = affine.apply affine_map<(d0) -> (d0 * 100)> (%n)
    vta.dma_copy %x[%xo] -> %inp[%p] y 10 x 10 stride 10 : memref<4x1x10x10x1x16xi8> -> memref<200x1x16xi8, #vta.sram<inp>>
    vta.uop_loop 2 dst 2 src 10 {
      vta.uop_loop 2 dst 1 src 1 {
        affine.for %kh = 0 to 3 {
          affine.for %o = 0 to 3 {
            %d = affine.apply affine_map<(d0) -> (d0 * 4)> (%o)
            %s = affine.apply affine_map<(d0)[s0] -> (d0 * 10 + s0)> (%kh)[%p]
            %w = affine.apply affine_map<(d0, d1) -> (d0 * 3 + d1)> (%o, %kh)
            vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : memref<12x1x16xi32, #vta.sram<acc>>, memref<200x1x16xi8, #vta.sram<inp>>, memref<9x16x16xi8, #vta.sram<wgt>>
          }
        }
      }
    }
  } {vta.double_buffer}
  func.return
}
