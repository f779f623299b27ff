// vta-coproc-sync on a function of two device runs separated by a host step (vta.host;
// docs/pipeline.md stage 6, passes/coproc_sync/model.py build_segments): the host program ends
// the device run before the step and waits for every module there, so each run is
// synchronised on its own. Run 1 is matrix_multiply_opt's loop nest (writing %y); the step
// widens %y into %z on the host; run 2 loads the first 16 vectors of %z into the accumulator
// buffer run 1 stored from, takes max 0 and stores them to %out. Run 1's store -> compute
// token is primed before its loop and drained before the step, although run 2's load into
// %acc is the next command to overwrite what run 1's last store reads: the step orders the
// two, and a drain after the step would wait for a token of the previous run. Run 2 has only
// its own compute -> store token, and no vta.stage spans the step. Lowered, each run is a
// vtaisa.run ending with its own FINISH, the step between them; simulated, no run leaves a
// token to the next and no SRAM access goes unordered.

// RUN: vta-opt %s -p vta-coproc-sync | filecheck %s
// RUN: vta-opt %s -p vta-coproc-sync | vta-opt -p vta-coproc-sync | filecheck %s
// RUN: vta-opt %s -p vta-coproc-sync,vta-lower-to-isa | filecheck %s --check-prefix=ISA
// RUN: vta-opt %s -p vta-coproc-sync -o %t.mlir
// RUN: vta-run %t.mlir --random-inputs --check-hazards --stats %t.json 2>&1 | filecheck %s --check-prefix=SIM
// RUN: filecheck %s --check-prefix=STATS < %t.json

// CHECK-LABEL: func.func @two_runs(
// CHECK-NEXT:    %inp = memref.alloc() : memref<1x16x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %wgt = memref.alloc() : memref<16x16x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:    %acc = memref.alloc() : memref<1x16x1x16xi32, #vta.sram<acc>>
// Run 1.
// CHECK-NEXT:    vta.dep_push compute -> load
// CHECK-NEXT:    vta.dep_push store -> compute
// CHECK-NEXT:    affine.for %oc = 0 to 4 {
// CHECK-NEXT:      vta.stage compute {
// CHECK-NEXT:        vta.dep_pop store -> compute
// CHECK-NEXT:        vta.uop_loop 16 dst 1 {
// CHECK-NEXT:          vta.gemm_reset %acc[0]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      affine.for %ic = 0 to 4 {
// CHECK-NEXT:        vta.stage load {
// CHECK-NEXT:          vta.dep_pop compute -> load
// CHECK-NEXT:          %xo = affine.apply
// CHECK-NEXT:          vta.dma_copy %x[%xo] -> %inp[0]
// CHECK-NEXT:          %wo = affine.apply
// CHECK-NEXT:          vta.dma_copy %w[%wo] -> %wgt[0]
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
// CHECK-NEXT:        vta.dep_push compute -> store
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.stage store {
// CHECK-NEXT:        vta.dep_pop compute -> store
// CHECK-NEXT:        %yo = affine.apply
// CHECK-NEXT:        vta.dma_copy %acc[0] -> %y[%yo]
// CHECK-NEXT:        vta.dep_push store -> compute
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// Run 1 drains its tokens before the step: nothing crosses it.
// CHECK-NEXT:    vta.dep_pop compute -> load
// CHECK-NEXT:    vta.dep_pop store -> compute
// CHECK-NEXT:    vta.host "widen" ins(%y : memref<1x64x1x16xi8>) outs(%z : memref<1x64x1x16xi32>)
// CHECK-NEXT:    ^bb0(%a: memref<1x1024xi8>, %b: memref<1x1024xi32>):
// CHECK-NEXT:      linalg.generic
// CHECK-NEXT:      ^bb0(%v: i8, %o: i32):
// CHECK-NEXT:        arith.extsi
// CHECK-NEXT:        linalg.yield
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// Run 2: its own forward token, nothing from run 1.
// CHECK-NEXT:    vta.stage compute {
// CHECK-NEXT:      vta.dma_copy %z[0] -> %acc[0]
// CHECK-NEXT:      vta.uop_loop 16 dst 1 src 1 {
// CHECK-NEXT:        vta.alu max %acc[0], 0
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.dep_push compute -> store
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.stage store {
// CHECK-NEXT:      vta.dep_pop compute -> store
// CHECK-NEXT:      vta.dma_copy %acc[0] -> %out[0]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// ISA:       vtaisa.run
// ISA-NOT:   vtaisa.host_step
// ISA:       vtaisa.finish
// ISA-NEXT:  }
// ISA-NEXT:  vtaisa.host_step "widen"
// ISA:       vtaisa.run
// ISA:       vtaisa.finish
// ISA-NEXT:  }
// ISA-NOT:   vtaisa.run

// SIM-NOT:   tokens left
// SIM:       hazards: 0 found

// STATS:     "FINISH": 2
// STATS:     "runs": 2

func.func @two_runs(%x: memref<1x64x1x16xi8>, %w: memref<64x64x16x16xi8>,
                    %y: memref<1x64x1x16xi8>, %z: memref<1x64x1x16xi32>,
                    %out: memref<1x64x1x16xi8>) {
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
    %yo = affine.apply affine_map<(d0) -> (d0 * 16)> (%oc)
    vta.dma_copy %acc[0] -> %y[%yo] y 1 x 16 stride 16
        : memref<1x16x1x16xi32, #vta.sram<acc>> -> memref<1x64x1x16xi8>
  }
  vta.host "widen" ins(%y : memref<1x64x1x16xi8>) outs(%z : memref<1x64x1x16xi32>) packings [{shape = array<i64: 1, 1024>, dtype = "int8", padded_shape = array<i64: 1, 1024>, split_shape = array<i64: 1, 1, 64, 16>, perm = array<i64: 0, 2, 1, 3>}, {shape = array<i64: 1, 1024>, dtype = "int32", padded_shape = array<i64: 1, 1024>, split_shape = array<i64: 1, 1, 64, 16>, perm = array<i64: 0, 2, 1, 3>}] {
  ^bb0(%a: memref<1x1024xi8>, %b: memref<1x1024xi32>):
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<1x1024xi8>) outs(%b : memref<1x1024xi32>) {
    ^bb0(%v: i8, %o: i32):
      %e = arith.extsi %v : i8 to i32
      linalg.yield %e : i32
    }
  }
  vta.dma_copy %z[0] -> %acc[0] y 1 x 16 stride 16
      : memref<1x64x1x16xi32> -> memref<1x16x1x16xi32, #vta.sram<acc>>
  vta.uop_loop 16 dst 1 src 1 {
    vta.alu max %acc[0], 0 : memref<1x16x1x16xi32, #vta.sram<acc>>
  }
  vta.dma_copy %acc[0] -> %out[0] y 1 x 16 stride 16
      : memref<1x16x1x16xi32, #vta.sram<acc>> -> memref<1x64x1x16xi8>
  func.return
}
