// vta-coproc-sync: every command goes into a vta.stage of its module, and dependency tokens
// order every cross-module dependence on SRAM (and DRAM) ranges, loop-carried ones with a
// token primed before the loop and drained after it. Chunk 1 is matrix_multiply_opt at stage 5
// and gets the protocol of docs/pipeline.md §6: the input loop's prime is pushed one
// iteration ahead, right after the previous tile's input loop. The last chunks are errors.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-coproc-sync | filecheck %s
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p 'vta-coproc-sync{double-buffer=false}' | filecheck %s --check-prefix=ONE
// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-coproc-sync | vta-opt --split-input-file -p vta-coproc-sync | filecheck %s

// CHECK-LABEL: func.func @matrix_multiply_opt(
// CHECK-NEXT:    %inp = memref.alloc() : memref<1x16x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %wgt = memref.alloc() : memref<16x16x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:    %acc = memref.alloc() : memref<1x16x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    vta.dep_push compute -> load
// CHECK-NEXT:    vta.dep_push store -> compute
// CHECK-NEXT:    affine.for %oc = 0 to 4 {
// CHECK-NEXT:      vta.stage compute {
// CHECK-NEXT:        vta.dep_pop store -> compute
// CHECK-NEXT:        vta.uop_loop 16 dst 1 {
// CHECK-NEXT:          vta.gemm_reset %acc[0] : memref<1x16x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      affine.for %ic = 0 to 4 {
// CHECK-NEXT:        vta.stage load {
// CHECK-NEXT:          vta.dep_pop compute -> load
// CHECK-NEXT:          %xo = affine.apply
// CHECK-NEXT:          vta.dma_copy %x[%xo] -> %inp[0] y 1 x 16 stride 64
// CHECK-NEXT:          %wo = affine.apply
// CHECK-NEXT:          vta.dma_copy %w[%wo] -> %wgt[0] y 16 x 16 stride 64
// CHECK-NEXT:          vta.dep_push load -> compute
// CHECK-NEXT:        }
// CHECK-NEXT:        vta.stage compute {
// CHECK-NEXT:          vta.dep_pop load -> compute
// CHECK-NEXT:          vta.uop_loop 16 dst 1 wgt 16 {
// CHECK-NEXT:            vta.uop_loop 16 src 1 wgt 1 {
// CHECK-NEXT:              vta.gemm %acc[0] += %inp[0] * %wgt[0]
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:          vta.dep_push compute -> load
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.dep_pop compute -> load
// CHECK-NEXT:      vta.stage compute {
// CHECK-NEXT:        vta.dep_push compute -> load
// CHECK-NEXT:        vta.uop_loop 16 dst 1 src 1 {
// CHECK-NEXT:          vta.alu shr %acc[0], 8
// CHECK-NEXT:        }
// CHECK-NEXT:        vta.uop_loop 16 dst 1 src 1 {
// CHECK-NEXT:          vta.alu max %acc[0], 0
// CHECK-NEXT:        }
// CHECK-NEXT:        vta.uop_loop 16 dst 1 src 1 {
// CHECK-NEXT:          vta.alu min %acc[0], 127
// CHECK-NEXT:        }
// CHECK-NEXT:        vta.dep_push compute -> store
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.stage store {
// CHECK-NEXT:        vta.dep_pop compute -> store
// CHECK-NEXT:        %yo = affine.apply
// CHECK-NEXT:        vta.dma_copy %acc[0] -> %y[%yo] y 1 x 16 stride 16
// CHECK-NEXT:        vta.dep_push store -> compute
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.dep_pop compute -> load
// CHECK-NEXT:    vta.dep_pop store -> compute
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @matrix_multiply_opt(%x: memref<1x64x1x16xi8>, %w: memref<64x64x16x16xi8>,
                               %y: memref<1x64x1x16xi8>) {
  %inp = memref.alloc() : memref<1x16x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<16x16x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() : memref<1x16x1x16xi32, #vta.sram<acc>>
  affine.for %oc = 0 to 4 {
    vta.uop_loop 16 dst 1 {
      vta.gemm_reset %acc[0] : memref<1x16x1x16xi32, #vta.sram<acc>>
    }
    affine.for %ic = 0 to 4 {
      %xo = affine.apply affine_map<(d0) -> (d0 * 16)> (%ic)
      vta.dma_copy %x[%xo] -> %inp[0] y 1 x 16 stride 64
          : memref<1x64x1x16xi8> -> memref<1x16x1x16xi8, #vta.sram<inp>>
      %wo = affine.apply affine_map<(d0, d1) -> (d0 * 1024 + d1 * 16)> (%oc, %ic)
      vta.dma_copy %w[%wo] -> %wgt[0] y 16 x 16 stride 64
          : memref<64x64x16x16xi8> -> memref<16x16x16x16xi8, #vta.sram<wgt>>
      vta.uop_loop 16 dst 1 wgt 16 {
        vta.uop_loop 16 src 1 wgt 1 {
          vta.gemm %acc[0] += %inp[0] * %wgt[0] : memref<1x16x1x16xi32, #vta.sram<acc>>,
              memref<1x16x1x16xi8, #vta.sram<inp>>, memref<16x16x16x16xi8, #vta.sram<wgt>>
        }
      }
    }
    vta.uop_loop 16 dst 1 src 1 {
      vta.alu shr %acc[0], 8 : memref<1x16x1x16xi32, #vta.sram<acc>>
    }
    vta.uop_loop 16 dst 1 src 1 {
      vta.alu max %acc[0], 0 : memref<1x16x1x16xi32, #vta.sram<acc>>
    }
    vta.uop_loop 16 dst 1 src 1 {
      vta.alu min %acc[0], 127 : memref<1x16x1x16xi32, #vta.sram<acc>>
    }
    %yo = affine.apply affine_map<(d0) -> (d0 * 16)> (%oc)
    vta.dma_copy %acc[0] -> %y[%yo] y 1 x 16 stride 16
        : memref<1x16x1x16xi32, #vta.sram<acc>> -> memref<1x64x1x16xi8>
  }
  func.return
}

// -----

// Vector add (TVM's vta_get_started): both operands loaded into the accumulator by the compute
// module, no load module at all; the store waits for the ALU.

// CHECK-LABEL: func.func @vector_add(
// CHECK:         vta.stage compute {
// CHECK-NEXT:      vta.dma_copy %A[0] -> %a[0]
// CHECK-NEXT:      vta.dma_copy %B[0] -> %b[0]
// CHECK-NEXT:      vta.uop_loop 64 dst 1 src 1 {
// CHECK-NEXT:        vta.alu add %a[0], %b[0]
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.dep_push compute -> store
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.stage store {
// CHECK-NEXT:      vta.dep_pop compute -> store
// CHECK-NEXT:      vta.dma_copy %a[0] -> %C[0]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @vector_add(%A: memref<1x64x1x16xi32>, %B: memref<1x64x1x16xi32>,
                      %C: memref<1x64x1x16xi8>) {
  %a = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
  %b = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
  vta.dma_copy %A[0] -> %a[0] y 1 x 64 stride 64
      : memref<1x64x1x16xi32> -> memref<64x1x16xi32, #vta.sram<acc>>
  vta.dma_copy %B[0] -> %b[0] y 1 x 64 stride 64
      : memref<1x64x1x16xi32> -> memref<64x1x16xi32, #vta.sram<acc>>
  vta.uop_loop 64 dst 1 src 1 {
    vta.alu add %a[0], %b[0]
        : memref<64x1x16xi32, #vta.sram<acc>>, memref<64x1x16xi32, #vta.sram<acc>>
  }
  vta.dma_copy %a[0] -> %C[0] y 1 x 64 stride 64
      : memref<64x1x16xi32, #vta.sram<acc>> -> memref<1x64x1x16xi8>
  func.return
}

// -----

// Three nested loops (output tiles, rows, columns): the innermost loop's compute -> load token
// is primed one row ahead (right after the row before's column loop, its first for the first
// row of each tile pushed likewise one tile ahead, and the very first before the tile loop)
// and drained once per row; its drain also orders the next row's weight load after the last
// GEMM of the row, so the row loop needs no token of its own.

// CHECK-LABEL: func.func @nest(
// CHECK:         vta.dep_push compute -> load
// CHECK-NEXT:    vta.dep_push store -> compute
// CHECK-NEXT:    affine.for %o = 0 to 2 {
// CHECK-NEXT:      vta.stage compute {
// CHECK-NEXT:        vta.dep_pop store -> compute
// CHECK-NEXT:        vta.gemm_reset %acc[0]
// CHECK-NEXT:      }
// CHECK-NEXT:      affine.for %h = 0 to 2 {
// CHECK-NEXT:        vta.stage load {
// CHECK-NEXT:          vta.dma_copy %w[0] -> %wgt[0]
// CHECK-NEXT:        }
// CHECK-NEXT:        affine.for %c = 0 to 2 {
// CHECK-NEXT:          vta.stage load {
// CHECK-NEXT:            vta.dep_pop compute -> load
// CHECK-NEXT:            %xo = affine.apply
// CHECK-NEXT:            vta.dma_copy %x[%xo] -> %inp[0]
// CHECK-NEXT:            vta.dep_push load -> compute
// CHECK-NEXT:          }
// CHECK-NEXT:          vta.stage compute {
// CHECK-NEXT:            vta.dep_pop load -> compute
// CHECK-NEXT:            vta.gemm %acc[0] += %inp[0] * %wgt[0]
// CHECK-NEXT:            vta.dep_push compute -> load
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        vta.dep_pop compute -> load
// CHECK-NEXT:        vta.dep_push compute -> load
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.dep_pop compute -> load
// CHECK-NEXT:      vta.dep_push compute -> store
// CHECK-NEXT:      vta.dep_push compute -> load
// CHECK-NEXT:      vta.stage store {
// CHECK-NEXT:        vta.dep_pop compute -> store
// CHECK-NEXT:        vta.dma_copy %acc[0] -> %y[%o]
// CHECK-NEXT:        vta.dep_push store -> compute
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.dep_pop compute -> load
// CHECK-NEXT:    vta.dep_pop store -> compute
// CHECK-NEXT:    func.return
func.func @nest(%x: memref<1x4x1x16xi8>, %w: memref<1x1x16x16xi8>, %y: memref<1x4x1x16xi8>) {
  %inp = memref.alloc() : memref<1x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<1x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() : memref<1x1x16xi32, #vta.sram<acc>>
  affine.for %o = 0 to 2 {
    vta.gemm_reset %acc[0] : memref<1x1x16xi32, #vta.sram<acc>>
    affine.for %h = 0 to 2 {
      vta.dma_copy %w[0] -> %wgt[0] y 1 x 1 stride 1
          : memref<1x1x16x16xi8> -> memref<1x16x16xi8, #vta.sram<wgt>>
      affine.for %c = 0 to 2 {
        %xo = affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)> (%h, %c)
        vta.dma_copy %x[%xo] -> %inp[0] y 1 x 1 stride 1
            : memref<1x4x1x16xi8> -> memref<1x1x16xi8, #vta.sram<inp>>
        vta.gemm %acc[0] += %inp[0] * %wgt[0] : memref<1x1x16xi32, #vta.sram<acc>>,
            memref<1x1x16xi8, #vta.sram<inp>>, memref<1x16x16xi8, #vta.sram<wgt>>
      }
    }
    vta.dma_copy %acc[0] -> %y[%o] y 1 x 1 stride 1
        : memref<1x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
  }
  func.return
}

// -----

// A loop of one iteration carries nothing: no token is primed for it. The outer loop then
// orders the next tile's loads after this tile's GEMM itself (popped before the inner loop,
// pushed after it, primed before the loop and drained after it).

// CHECK-LABEL: func.func @trip_count_one(
// CHECK:         vta.dep_push compute -> load
// CHECK-NEXT:    vta.dep_push store -> compute
// CHECK-NEXT:    affine.for %oc = 0 to 2 {
// CHECK-NEXT:      vta.stage compute {
// CHECK-NEXT:        vta.dep_pop store -> compute
// CHECK-NEXT:        vta.gemm_reset %acc[0]
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.dep_pop compute -> load
// CHECK-NEXT:      affine.for %ic = 0 to 1 {
// CHECK-NEXT:        vta.stage load {
// CHECK-NEXT:          vta.dma_copy %x[%ic] -> %inp[0]
// CHECK-NEXT:          vta.dma_copy %w[%oc] -> %wgt[0]
// CHECK-NEXT:          vta.dep_push load -> compute
// CHECK-NEXT:        }
// CHECK-NEXT:        vta.stage compute {
// CHECK-NEXT:          vta.dep_pop load -> compute
// CHECK-NEXT:          vta.gemm %acc[0] += %inp[0] * %wgt[0]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.dep_push compute -> store
// CHECK-NEXT:      vta.dep_push compute -> load
// CHECK-NEXT:      vta.stage store {
// CHECK-NEXT:        vta.dep_pop compute -> store
// CHECK-NEXT:        vta.dma_copy %acc[0] -> %y[%oc]
// CHECK-NEXT:        vta.dep_push store -> compute
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.dep_pop compute -> load
// CHECK-NEXT:    vta.dep_pop store -> compute
func.func @trip_count_one(%x: memref<1x1x1x16xi8>, %w: memref<2x1x16x16xi8>,
                          %y: memref<1x2x1x16xi8>) {
  %inp = memref.alloc() : memref<1x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<1x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() : memref<1x1x16xi32, #vta.sram<acc>>
  affine.for %oc = 0 to 2 {
    vta.gemm_reset %acc[0] : memref<1x1x16xi32, #vta.sram<acc>>
    affine.for %ic = 0 to 1 {
      vta.dma_copy %x[%ic] -> %inp[0] y 1 x 1 stride 1
          : memref<1x1x1x16xi8> -> memref<1x1x16xi8, #vta.sram<inp>>
      vta.dma_copy %w[%oc] -> %wgt[0] y 1 x 1 stride 1
          : memref<2x1x16x16xi8> -> memref<1x16x16xi8, #vta.sram<wgt>>
      vta.gemm %acc[0] += %inp[0] * %wgt[0] : memref<1x1x16xi32, #vta.sram<acc>>,
          memref<1x1x16xi8, #vta.sram<inp>>, memref<1x16x16xi8, #vta.sram<wgt>>
    }
    vta.dma_copy %acc[0] -> %y[%oc] y 1 x 1 stride 1
        : memref<1x1x16xi32, #vta.sram<acc>> -> memref<1x2x1x16xi8>
  }
  func.return
}

// -----

// Double buffering: the inner loop loads each tile into the half of %inp / %wgt its parity
// selects, under a loop marked vta.double_buffer. The GEMM of tile k and the load of tile
// k + 2 touch the same half, the load of tile k + 1 the other one: two compute -> load tokens
// are primed and drained, so the load of tile k + 1 overlaps the GEMM of tile k. The primes
// of each output tile's inner loop are pushed one output tile ahead (after the inner loop of
// the tile before; the first tile's before the outer loop). With double-buffer=false the
// tokens stay one deep.

// CHECK-LABEL: func.func @double_buffer(
// CHECK:         vta.dep_push compute -> load
// CHECK-NEXT:    vta.dep_push compute -> load
// CHECK-NEXT:    vta.dep_push store -> compute
// CHECK-NEXT:    affine.for %oc = 0 to 2 {
// CHECK-NEXT:      vta.stage compute {
// CHECK-NEXT:        vta.dep_pop store -> compute
// CHECK-NEXT:        vta.uop_loop 2 dst 1 {
// CHECK-NEXT:          vta.gemm_reset %acc[0]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    affine.for %ic = 0 to 3 {
// CHECK:           vta.stage load {
// CHECK-NEXT:        vta.dep_pop compute -> load
// CHECK:             vta.dep_push load -> compute
// CHECK:           vta.stage compute {
// CHECK-NEXT:        vta.dep_pop load -> compute
// CHECK:             vta.dep_push compute -> load
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.dep_pop compute -> load
// CHECK-NEXT:    vta.dep_pop compute -> load
// CHECK-NEXT:    vta.dep_push compute -> store
// CHECK-NEXT:    vta.dep_push compute -> load
// CHECK-NEXT:    vta.dep_push compute -> load
// CHECK:       } {vta.double_buffer}
// CHECK-NEXT:  vta.dep_pop compute -> load
// CHECK-NEXT:  vta.dep_pop compute -> load
// CHECK-NEXT:  vta.dep_pop store -> compute

// ONE-LABEL:   func.func @double_buffer(
// ONE:           vta.dep_push compute -> load
// ONE-NEXT:      vta.dep_push store -> compute
// ONE-NEXT:      affine.for %oc = 0 to 2 {
// ONE-NEXT:        vta.stage compute {
// ONE-NEXT:          vta.dep_pop store -> compute
// ONE-NEXT:          vta.uop_loop 2 dst 1 {
// ONE-NEXT:            vta.gemm_reset %acc[0]
// ONE-NEXT:          }
// ONE-NEXT:        }
// ONE-NEXT:      affine.for %ic = 0 to 3 {
// ONE:                 vta.dep_push compute -> load
// ONE-NEXT:          }
// ONE-NEXT:        }
// ONE-NEXT:        vta.dep_pop compute -> load
// ONE-NEXT:        vta.dep_push compute -> store
// ONE-NEXT:        vta.dep_push compute -> load
func.func @double_buffer(%x: memref<1x12x1x16xi8>, %w: memref<4x12x16x16xi8>,
                         %y: memref<1x4x1x16xi8>) {
  %inp = memref.alloc() : memref<4x1x16xi8, #vta.sram<inp>>
  %wgt = memref.alloc() : memref<8x16x16xi8, #vta.sram<wgt>>
  %acc = memref.alloc() : memref<2x1x16xi32, #vta.sram<acc>>
  affine.for %oc = 0 to 2 {
    vta.uop_loop 2 dst 1 {
      vta.gemm_reset %acc[0] : memref<2x1x16xi32, #vta.sram<acc>>
    }
    affine.for %ic = 0 to 3 {
      %p = affine.apply affine_map<(d0) -> ((d0 mod 2) * 2)> (%ic)
      %q = affine.apply affine_map<(d0) -> ((d0 mod 2) * 4)> (%ic)
      %xo = affine.apply affine_map<(d0) -> (d0 * 2)> (%ic)
      vta.dma_copy %x[%xo] -> %inp[%p] y 1 x 2 stride 12
          : memref<1x12x1x16xi8> -> memref<4x1x16xi8, #vta.sram<inp>>
      %wo = affine.apply affine_map<(d0, d1) -> (d0 * 24 + d1 * 2)> (%oc, %ic)
      vta.dma_copy %w[%wo] -> %wgt[%q] y 2 x 2 stride 12
          : memref<4x12x16x16xi8> -> memref<8x16x16xi8, #vta.sram<wgt>>
      vta.uop_loop 2 dst 1 wgt 2 {
        vta.uop_loop 2 src 1 wgt 1 {
          vta.gemm %acc[0] += %inp[%p] * %wgt[%q] : memref<2x1x16xi32, #vta.sram<acc>>,
              memref<4x1x16xi8, #vta.sram<inp>>, memref<8x16x16xi8, #vta.sram<wgt>>
        }
      }
    }
    %yo = affine.apply affine_map<(d0) -> (d0 * 2)> (%oc)
    vta.dma_copy %acc[0] -> %y[%yo] y 1 x 2 stride 2
        : memref<2x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
  } {vta.double_buffer}
  func.return
}

// -----

// Element ranges: the store reads accumulator elements 0..1, the ALU ops then rewrite 2 and 3,
// so they need not wait for it. The store writes the DRAM buffer %t that the load reads back:
// load and store have no queue, so the compute module relays the token, right before the load.

// CHECK-LABEL: func.func @ranges_and_relay(
// CHECK:         vta.stage compute {
// CHECK-NEXT:      vta.dma_copy %a[0] -> %acc[0]
// CHECK-NEXT:      vta.dep_push compute -> store
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.stage store {
// CHECK-NEXT:      vta.dep_pop compute -> store
// CHECK-NEXT:      vta.dma_copy %acc[0] -> %t[0]
// CHECK-NEXT:      vta.dep_push store -> compute
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.stage compute {
// CHECK-NEXT:      vta.alu add %acc[2], 1
// CHECK-NEXT:      vta.alu add %acc[3], 1
// CHECK-NEXT:      vta.dep_pop store -> compute
// CHECK-NEXT:      vta.dep_push compute -> load
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.stage load {
// CHECK-NEXT:      vta.dep_pop compute -> load
// CHECK-NEXT:      vta.dma_copy %t[0] -> %inp[0]
// CHECK-NEXT:    }
func.func @ranges_and_relay(%a: memref<4x1x16xi32>, %t: memref<4x1x16xi8>) {
  %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  %inp = memref.alloc() : memref<4x1x16xi8, #vta.sram<inp>>
  vta.dma_copy %a[0] -> %acc[0] y 1 x 4 stride 4
      : memref<4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
  vta.dma_copy %acc[0] -> %t[0] y 1 x 2 stride 2
      : memref<4x1x16xi32, #vta.sram<acc>> -> memref<4x1x16xi8>
  vta.alu add %acc[2], 1 : memref<4x1x16xi32, #vta.sram<acc>>
  vta.alu add %acc[3], 1 : memref<4x1x16xi32, #vta.sram<acc>>
  vta.dma_copy %t[0] -> %inp[0] y 1 x 2 stride 2
      : memref<4x1x16xi8> -> memref<4x1x16xi8, #vta.sram<inp>>
  func.return
}

// -----

// Input that is already synchronised is left as it is.

// CHECK-LABEL: func.func @synchronised(
// CHECK-NEXT:    %acc = memref.alloc()
// CHECK-NEXT:    vta.stage compute {
// CHECK-NEXT:      vta.alu add %acc[0], 1
// CHECK-NEXT:      vta.dep_push compute -> store
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.stage store {
// CHECK-NEXT:      vta.dep_pop compute -> store
// CHECK-NEXT:      vta.dma_copy %acc[0] -> %y[0]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @synchronised(%y: memref<4x1x16xi8>) {
  %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  vta.stage compute {
    vta.alu add %acc[0], 1 : memref<4x1x16xi32, #vta.sram<acc>>
    vta.dep_push compute -> store
  }
  vta.stage store {
    vta.dep_pop compute -> store
    vta.dma_copy %acc[0] -> %y[0] y 1 x 4 stride 4
        : memref<4x1x16xi32, #vta.sram<acc>> -> memref<4x1x16xi8>
  }
  func.return
}

// -----

// A command outside any stage in a function that already has stages or tokens.
func.func @partly_synchronised(%y: memref<4x1x16xi8>) {
  %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  vta.stage compute {
    vta.alu add %acc[0], 1 : memref<4x1x16xi32, #vta.sram<acc>>
  }
  // expected-error @+1 {{'vta.dma_copy' op vta-coproc-sync: this command is outside any vta.stage in a function that is already synchronised}}
  vta.dma_copy %acc[0] -> %y[0] y 1 x 4 stride 4
      : memref<4x1x16xi32, #vta.sram<acc>> -> memref<4x1x16xi8>
  func.return
}

// -----

// Commands under host control flow other than constant-bound loops.
func.func @conditional(%c: i1) {
  %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  // expected-error @+1 {{'scf.if' op vta-coproc-sync: VTA commands inside 'scf.if' are not supported (host control flow around commands is affine.for or scf.for with constant bounds)}}
  scf.if %c {
    vta.alu add %acc[0], 1 : memref<4x1x16xi32, #vta.sram<acc>>
  }
  func.return
}

// -----

func.func @dynamic_bound(%n: index) {
  %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  // expected-error @+1 {{'affine.for' op vta-coproc-sync: a host loop around VTA commands needs constant bounds; this one depends on values known only at run time}}
  affine.for %i = 0 to %n {
    vta.alu add %acc[0], 1 : memref<4x1x16xi32, #vta.sram<acc>>
  }
  func.return
}
