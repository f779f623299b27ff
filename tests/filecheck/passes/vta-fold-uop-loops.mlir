// vta-fold-uop-loops (its pattern FoldUopLoops) folds the (at most two) innermost host loops around
// micro-ops of one kernel into vta.uop_loop levels: factors = the loop variable's coefficients in
// the positions, new bases = the positions without it. Contiguous loops merge into one level, a
// short innermost loop may be unrolled into several micro-ops when that saves instructions, and
// loops that break a rule (bounds, step, non-affine positions, the write-hazard rule, mixed
// kernels) stay on the host.

// RUN: vta-opt %s --split-input-file -p vta-fold-uop-loops | filecheck %s
// RUN: vta-opt %s --split-input-file -p 'vta-fold-uop-loops{max-levels=1 unroll-limit=0}' | filecheck %s --check-prefix=ONE
// RUN: vta-opt %s --split-input-file -p vta-fold-uop-loops --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: vta-opt %s --split-input-file -p vta-fold-uop-loops | vta-opt --split-input-file -p vta-fold-uop-loops | filecheck %s
// RUN: not vta-opt %s --split-input-file -p 'vta-fold-uop-loops{max-levels=3}' 2>&1 | filecheck %s --check-prefix=OPTS

// OPTS: error: 'builtin.module' op vta-fold-uop-loops: max-levels = 3 is out of range (0..2: a micro-kernel has at most 2 loop levels)

// The output of vta-tensorize for the tile of docs/pipeline.md: a reset kernel, a two-level GEMM
// kernel (o outer, i inner) and three ALU kernels. An immediate ALU micro-op's source index
// follows its destination, as in TVM.

// CHECK-LABEL: func.func @dense(
// CHECK-SAME:      %[[ACC:[^:]*]]: memref<1x16x1x16xi32, #vta.sram<acc>>, %[[INP:[^:]*]]: memref<1x16x1x16xi8, #vta.sram<inp>>, %[[WGT:[^:]*]]: memref<16x16x16x16xi8, #vta.sram<wgt>>)
// CHECK-NEXT:    vta.uop_loop 16 dst 1 {
// CHECK-NEXT:      vta.gemm_reset %[[ACC]][0] : memref<1x16x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.uop_loop 16 dst 1 wgt 16 {
// CHECK-NEXT:      vta.uop_loop 16 src 1 wgt 1 {
// CHECK-NEXT:        vta.gemm %[[ACC]][0] += %[[INP]][0] * %[[WGT]][0] : memref<1x16x1x16xi32, #vta.sram<acc>>, memref<1x16x1x16xi8, #vta.sram<inp>>, memref<16x16x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.uop_loop 16 dst 1 src 1 {
// CHECK-NEXT:      vta.alu shr %[[ACC]][0], 8 : memref<1x16x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.uop_loop 16 dst 1 src 1 {
// CHECK-NEXT:      vta.alu max %[[ACC]][0], 0 : memref<1x16x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// With one level the GEMM's outer loop stays on the host, its variable in the positions.
// ONE-LABEL: func.func @dense(
// ONE:         vta.uop_loop 16 dst 1 {
// ONE:         affine.for %[[O:.*]] = 0 to 16 {
// ONE-NEXT:      %[[W:.*]] = affine.apply affine_map<(d0) -> ((d0 * 16))> (%[[O]])
// ONE-NEXT:      vta.uop_loop 16 src 1 wgt 1 {
// ONE-NEXT:        vta.gemm %{{.*}}[%[[O]]] += %{{.*}}[0] * %{{.*}}[%[[W]]]
// ONE-NEXT:      }
// ONE-NEXT:    }

// A kernel level takes the location of the loop it replaces.
// LOC-LABEL: func.func @dense(
// LOC:         vta.gemm_reset {{.*}} loc("{{.*}}vta-fold-uop-loops.mlir":[[# @LINE + 7]]:5)
// LOC-NEXT:    } loc("{{.*}}vta-fold-uop-loops.mlir":[[# @LINE + 5]]:3)
!acc = memref<1x16x1x16xi32, #vta.sram<acc>>
!inp = memref<1x16x1x16xi8, #vta.sram<inp>>
!wgt = memref<16x16x16x16xi8, #vta.sram<wgt>>
func.func @dense(%acc: !acc, %inp: !inp, %wgt: !wgt) {
  affine.for %o = 0 to 16 {
    vta.gemm_reset %acc[%o] : !acc
  }
  affine.for %o = 0 to 16 {
    affine.for %i = 0 to 16 {
      %w = affine.apply affine_map<(d0, d1) -> (d0 * 16 + d1)>(%o, %i)
      vta.gemm %acc[%o] += %inp[%i] * %wgt[%w] : !acc, !inp, !wgt
    }
  }
  affine.for %o = 0 to 16 {
    vta.alu shr %acc[%o], 8 : !acc
  }
  affine.for %o = 0 to 16 {
    vta.alu max %acc[%o], 0 : !acc
  }
  return
}

// -----

// Loops over contiguous elements (factors = inner factors x inner extent) merge into one level.

// CHECK-LABEL: func.func @merge(
// CHECK-NEXT:    vta.uop_loop 64 dst 1 src 1 {
// CHECK-NEXT:      vta.alu add %{{.*}}[0], %{{.*}}[0]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// ONE-LABEL: func.func @merge(
// ONE-NEXT:    vta.uop_loop 64 dst 1 src 1 {
!acc = memref<2x4x8x1x16xi32, #vta.sram<acc>>
func.func @merge(%a: !acc, %b: !acc) {
  affine.for %i = 0 to 2 {
    affine.for %j = 0 to 4 {
      affine.for %k = 0 to 8 {
        %d = affine.apply affine_map<(d0, d1, d2) -> (d0 * 32 + d1 * 8 + d2)>(%i, %j, %k)
        vta.alu add %a[%d], %b[%d] : !acc, !acc
      }
    }
  }
  return
}

// -----

// A third loop stays on the host; what is left of the positions is rebuilt before the kernel
// (one affine.apply per distinct position) and no longer uses the folded loop variables.

// CHECK-LABEL: func.func @host_loop(
// CHECK-SAME:      %[[ACC:[^:]*]]: memref<{{.*}}>, %[[INP:[^:]*]]: memref<{{.*}}>, %[[WGT:[^:]*]]: memref<{{.*}}>)
// CHECK-NEXT:    affine.for %[[OC:.*]] = 0 to 4 {
// CHECK-NEXT:      %[[BASE:.*]] = affine.apply affine_map<(d0) -> ((d0 * 16))> (%[[OC]])
// CHECK-NEXT:      vta.uop_loop 16 dst 1 wgt 16 {
// CHECK-NEXT:        vta.uop_loop 16 src 1 wgt 1 {
// CHECK-NEXT:          vta.gemm %[[ACC]][%[[BASE]]] += %[[INP]][%[[BASE]] + 3] * %[[WGT]][0]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
func.func @host_loop(%acc: memref<64x1x16xi32, #vta.sram<acc>>, %inp: memref<67x1x16xi8, #vta.sram<inp>>,
                     %wgt: memref<256x16x16xi8, #vta.sram<wgt>>) {
  affine.for %oc = 0 to 4 {
    affine.for %o = 0 to 16 {
      affine.for %i = 0 to 16 {
        %d = affine.apply affine_map<(d0, d1) -> (d0 * 16 + d1)>(%oc, %o)
        %s = affine.apply affine_map<(d0, d1) -> (d0 * 16 + d1 + 3)>(%oc, %i)
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 16 + d1)>(%o, %i)
        vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : memref<64x1x16xi32, #vta.sram<acc>>, memref<67x1x16xi8, #vta.sram<inp>>, memref<256x16x16xi8, #vta.sram<wgt>>
      }
    }
  }
  return
}

// -----

// Several micro-ops of one kernel in a loop body fold together, in order; a vta.uop_loop
// already in a loop gets the loop as its outer level.

// CHECK-LABEL: func.func @several(
// CHECK-NEXT:    vta.uop_loop 8 dst 1 src 1 {
// CHECK-NEXT:      vta.alu min %[[A:.*]][0], %[[B:.*]][8]
// CHECK-NEXT:      vta.alu min %[[A]][8], %[[B]][0]
// CHECK-NEXT:    }
// CHECK-NEXT:    vta.uop_loop 2 dst 1 wgt 2 {
// CHECK-NEXT:      vta.uop_loop 2 src 1 wgt 1 {
// CHECK-NEXT:        vta.gemm %{{.*}}[0] += %{{.*}}[0] * %{{.*}}[0]
!acc = memref<16x1x16xi32, #vta.sram<acc>>
func.func @several(%a: !acc, %b: !acc, %inp: memref<2x1x16xi8, #vta.sram<inp>>, %wgt: memref<4x16x16xi8, #vta.sram<wgt>>) {
  affine.for %i = 0 to 8 {
    %j = affine.apply affine_map<(d0) -> (d0 + 8)>(%i)
    vta.alu min %a[%i], %b[%j] : !acc, !acc
    vta.alu min %a[%j], %b[%i] : !acc, !acc
  }
  affine.for %o = 0 to 2 {
    %wo = affine.apply affine_map<(d0) -> (d0 * 2)>(%o)
    vta.uop_loop 2 src 1 wgt 1 {
      vta.gemm %a[%o] += %inp[0] * %wgt[%wo] : !acc, memref<2x1x16xi8, #vta.sram<inp>>, memref<4x16x16xi8, #vta.sram<wgt>>
    }
  }
  return
}

// -----

// Unrolling: the innermost loop (2 iterations, writing 2b and 2b + 1) becomes two micro-ops,
// so both outer loops fold and the kernel is one instruction instead of two. A reduction
// loop (all iterations write one element) is never unrolled: the write-hazard rule.

// CHECK-LABEL: func.func @unroll(
// CHECK-NEXT:    vta.uop_loop 2 dst 16 src 8 {
// CHECK-NEXT:      vta.uop_loop 8 dst 2 src 1 wgt 2 {
// CHECK-NEXT:        vta.gemm %{{.*}}[0] += %{{.*}}[0] * %{{.*}}[0]
// CHECK-NEXT:        vta.gemm %{{.*}}[1] += %{{.*}}[0] * %{{.*}}[1]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    affine.for %{{.*}} = 0 to 2 {
// CHECK-NEXT:      %{{.*}} = affine.apply
// CHECK-NEXT:      vta.uop_loop 4 dst 1 wgt 2 {
// CHECK-NEXT:        vta.uop_loop 2 src 1 wgt 1 {

// ONE-LABEL: func.func @unroll(
// ONE-NEXT:    affine.for %{{.*}} = 0 to 2 {
// ONE-NEXT:      affine.for %{{.*}} = 0 to 8 {
// ONE-NEXT:        %{{.*}} = affine.apply
// ONE-NEXT:        %{{.*}} = affine.apply
// ONE-NEXT:        %{{.*}} = affine.apply
// ONE-NEXT:        vta.uop_loop 2 dst 1 wgt 1 {
!acc = memref<32x1x16xi32, #vta.sram<acc>>
!inp = memref<16x1x16xi8, #vta.sram<inp>>
!wgt = memref<16x16x16xi8, #vta.sram<wgt>>
func.func @unroll(%acc: !acc, %inp: !inp, %wgt: !wgt) {
  affine.for %a = 0 to 2 {
    affine.for %b = 0 to 8 {
      affine.for %c = 0 to 2 {
        %d = affine.apply affine_map<(d0, d1, d2) -> (d0 * 16 + d1 * 2 + d2)>(%a, %b, %c)
        %s = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1)>(%a, %b)
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)>(%b, %c)
        vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : !acc, !inp, !wgt
      }
    }
  }
  affine.for %a = 0 to 2 {
    affine.for %o = 0 to 4 {
      affine.for %i = 0 to 2 {
        %d = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%a, %o)
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)>(%o, %i)
        vta.gemm %acc[%d] += %inp[%i] * %wgt[%w] : !acc, !inp, !wgt
      }
    }
  }
  return
}

// -----

// A short loop that cannot be a level (step 2) is unrolled into the micro-ops of one kernel
// of a single iteration.

// CHECK-LABEL: func.func @step(
// CHECK-NEXT:    vta.uop_loop 1 {
// CHECK-NEXT:      vta.alu max %[[A:.*]][2], 0
// CHECK-NEXT:      vta.alu max %[[A]][4], 0
// CHECK-NEXT:      vta.alu max %[[A]][6], 0
// CHECK-NEXT:      vta.alu max %[[A]][8], 0
// CHECK-NEXT:    }
// ONE-LABEL: func.func @step(
// ONE-NEXT:    affine.for %{{.*}} = 2 to 10 step 2 {
!acc = memref<16x1x16xi32, #vta.sram<acc>>
func.func @step(%a: !acc) {
  affine.for %i = 2 to 10 step 2 {
    vta.alu max %a[%i], 0 : !acc
  }
  return
}

// -----

// Loops that stay on the host: the write-hazard rule (the second micro-op may write what the
// first wrote), a dynamic bound, a lower bound other than 0 and a step other than 1 (too long
// to unroll), a position that is not affine in the loop variable, two kinds of ALU micro-op,
// attributes meant for a later pass.

// CHECK-LABEL: func.func @host(
// CHECK-NOT:     vta.uop_loop
// CHECK-COUNT-7: affine.for
// CHECK-NOT:     vta.uop_loop
// CHECK:         func.return
!acc = memref<40x1x16xi32, #vta.sram<acc>>
func.func @host(%a: !acc, %b: !acc, %n: index) {
  affine.for %i = 0 to 16 {
    vta.alu add %a[%i], %b[%i] : !acc, !acc
    vta.alu add %a[0], %b[0] : !acc, !acc
  }
  affine.for %i = 0 to %n {
    vta.alu max %a[%i], 0 : !acc
  }
  affine.for %i = 1 to 18 {
    vta.alu max %a[%i], 0 : !acc
  }
  affine.for %i = 0 to 34 step 2 {
    vta.alu max %a[%i], 0 : !acc
  }
  affine.for %i = 0 to 16 {
    %d = affine.apply affine_map<(d0) -> (d0 mod 4)>(%i)
    vta.alu max %a[%d], 0 : !acc
  }
  affine.for %i = 0 to 16 {
    vta.alu shr %a[%i], 8 : !acc
    vta.alu max %a[%i], 0 : !acc
  }
  affine.for %i = 0 to 16 {
    vta.alu max %a[%i], 0 : !acc
  } {vta.double_buffer}
  return
}

// -----

// Positions that vta-tensorize makes for SRAM subviews: the view's offset (here the copy
// %ic mod 2 of a double-buffered tile, not affine in %ic) is a value defined before the loops,
// plus the loop variables. The loops fold around it and it becomes the kernel's base; the
// host loop whose parity it is stays.

// CHECK-LABEL: func.func @subview_base(
// CHECK:         affine.for %[[IC:.*]] = 0 to 4 {
// CHECK-NEXT:      %[[B:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 16))> (%[[IC]])
// CHECK-NEXT:      vta.uop_loop 16 dst 1 src 1 {
// CHECK-NEXT:        vta.alu add %{{.*}}[0], %{{.*}}[%[[B]] + 32]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
!acc = memref<64x1x16xi32, #vta.sram<acc>>
func.func @subview_base(%a: !acc) {
  affine.for %ic = 0 to 4 {
    %b = affine.apply affine_map<(d0) -> ((d0 mod 2) * 16)>(%ic)
    affine.for %o = 0 to 4 {
      affine.for %i = 0 to 4 {
        %d = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%o, %i)
        %s = affine.apply affine_map<(d0, d1, d2) -> (d0 * 4 + d1 + d2)>(%o, %i, %b)
        vta.alu add %a[%d], %a[%s + 32] : !acc, !acc
      }
    }
  }
  return
}
