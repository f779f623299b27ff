// --load-pass-plugin imports a user's Python file (or module) whose passes register
// themselves; they are then listed and usable in both pipeline syntaxes, like the built-in
// ones.  VTA_MLIR_PASS_PLUGINS does the same from the environment.  The plugin here is
// examples/plugins/custom_pass.py: vta-drop-noop-alu removes ALU micro-ops that leave the
// accumulator as it is (add 0, shr 0, mul 1) and the micro-op loops they empty.

// RUN: vta-opt --load-pass-plugin %S/../../../../examples/plugins/custom_pass.py -p vta-drop-noop-alu %s --split-input-file 2>/dev/null | filecheck %s
// RUN: vta-opt --load-pass-plugin %S/../../../../examples/plugins/custom_pass.py --pass-pipeline='builtin.module(vta-drop-noop-alu)' %s --split-input-file 2>/dev/null | filecheck %s
// RUN: env VTA_MLIR_PASS_PLUGINS=%S/../../../../examples/plugins/custom_pass.py vta-opt -p vta-drop-noop-alu %s --split-input-file 2>/dev/null | filecheck %s
// RUN: vta-opt --load-pass-plugin %S/../../../../examples/plugins/custom_pass.py -p vta-drop-noop-alu %s --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: vta-opt --load-pass-plugin %S/../../../../examples/plugins/custom_pass.py --list-passes | filecheck %s --check-prefix=LIST
// RUN: vta-opt --load-pass-plugin %S/../../../../examples/plugins/custom_pass.py -p 'vta-drop-noop-alu,vta-lower-to-isa' %s --split-input-file 2>/dev/null | filecheck %s --check-prefix=ISA
// RUN: not vta-opt -p vta-drop-noop-alu %s 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not vta-opt --load-pass-plugin %S/no-such-plugin.py %s 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not vta-opt --load-pass-plugin no_such_plugin_module %s 2>&1 | filecheck %s --check-prefix=NOMODULE

// LIST:     vta-drop-noop-alu
// LIST:     vta-lower-to-isa
// UNKNOWN:  vta-opt: error: unknown pass 'vta-drop-noop-alu'
// MISSING:  vta-opt: error: cannot load pass plugin '{{.*}}no-such-plugin.py': No such file or directory
// NOMODULE: vta-opt: error: cannot load pass plugin 'no_such_plugin_module': No module named 'no_such_plugin_module'

// The no-op kernels go (a lone micro-op, a one-level and a two-level loop), with the index
// arithmetic only they used; the others stay.
// CHECK-LABEL: func.func @requantize
// CHECK:         %[[X:.*]] = memref.alloc() : memref<16x1x16xi32, #vta.sram<acc>>
// CHECK-NOT:     arith.
// CHECK:         vta.stage compute {
// CHECK-NEXT:      vta.dma_copy
// CHECK-NEXT:      vta.dma_copy
// CHECK-NEXT:      vta.uop_loop 16 dst 1 src 1 {
// CHECK-NEXT:        vta.alu add %[[X]][0], %{{.*}}[0]
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.uop_loop 16 dst 1 {
// CHECK-NEXT:        vta.alu mul %[[X]][0], 2
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.uop_loop 16 dst 1 {
// CHECK-NEXT:        vta.alu shr %[[X]][0], 3
// CHECK-NEXT:      }
// CHECK-NEXT:      affine.for %{{.*}} = 0 to 2 {
// CHECK-NEXT:        affine.apply
// CHECK-NEXT:        vta.alu max %[[X]][%{{.*}}], 0
// CHECK-NEXT:      }
// CHECK-NEXT:      vta.dep_push compute -> store
// CHECK-NEXT:    }

// 10 ALU instructions become 5: one per kept kernel, the host loop's twice.
// ISA-LABEL:   vtaisa.program
// ISA-COUNT-5: vtaisa.alu
// ISA-NOT:     vtaisa.alu
// ISA:         vtaisa.finish

func.func @requantize(%X: memref<1x16x1x16xi32>, %B: memref<1x16x1x16xi32>,
                      %Y: memref<1x16x1x16xi8>) {
  %x = memref.alloc() : memref<16x1x16xi32, #vta.sram<acc>>
  %b = memref.alloc() : memref<16x1x16xi32, #vta.sram<acc>>
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  vta.stage compute {
    vta.dma_copy %X[0] -> %x[0] y 1 x 16 stride 16
        : memref<1x16x1x16xi32> -> memref<16x1x16xi32, #vta.sram<acc>>
    vta.dma_copy %B[0] -> %b[0] y 1 x 16 stride 16
        : memref<1x16x1x16xi32> -> memref<16x1x16xi32, #vta.sram<acc>>
    vta.uop_loop 16 dst 1 src 1 {
      vta.alu add %x[0], %b[0]
          : memref<16x1x16xi32, #vta.sram<acc>>, memref<16x1x16xi32, #vta.sram<acc>>
    }
    vta.alu add %x[0], 0 : memref<16x1x16xi32, #vta.sram<acc>>
    vta.uop_loop 16 dst 1 {
      vta.alu mul %x[0], 1 : memref<16x1x16xi32, #vta.sram<acc>>
    }
    vta.uop_loop 16 dst 1 {
      vta.alu mul %x[0], 2 : memref<16x1x16xi32, #vta.sram<acc>>
    }
    vta.uop_loop 16 dst 1 {
      vta.alu shr %x[0], 3 : memref<16x1x16xi32, #vta.sram<acc>>
    }
    affine.for %i = 0 to 2 {
      %p = arith.muli %i, %c8 : index
      vta.uop_loop 8 dst 1 {
        %r = arith.addi %p, %c0 : index
        vta.alu add %x[%r], 0 : memref<16x1x16xi32, #vta.sram<acc>>
      }
      %q = affine.apply affine_map<(d0) -> (d0 * 8)>(%i)
      vta.alu max %x[%q], 0 : memref<16x1x16xi32, #vta.sram<acc>>
    }
    vta.uop_loop 4 dst 4 {
      vta.uop_loop 4 dst 1 {
        vta.alu shr %x[0], 0 : memref<16x1x16xi32, #vta.sram<acc>>
      }
    }
    vta.dep_push compute -> store
  }
  vta.stage store {
    vta.dep_pop compute -> store
    vta.dma_copy %x[0] -> %Y[0] y 1 x 16 stride 16
        : memref<16x1x16xi32, #vta.sram<acc>> -> memref<1x16x1x16xi8>
  }
  func.return
}

// -----

// On hardware targets a store copies the OUT buffer, which only GEMM and ALU write: the
// `shr 0` before the store is what makes the loaded values reach it, so it stays.
// REMARK:        pass-plugin.mlir:[[# @LINE + 15]]:9: remark: 'vta.alu' op 1 no-op ALU micro-op(s) kept: on target 'pynq'
// REMARK-NOT:    remark
// CHECK-LABEL: func.func @save_load_out
// CHECK:         vta.alu shr %{{.*}}[0], 0

builtin.module attributes {vta.config = #vta.config<target = "pynq", hw_ver = "0.0.2",
    log_inp_width = 3, log_wgt_width = 3, log_acc_width = 5, log_batch = 0, log_block = 4,
    log_uop_buff_size = 15, log_inp_buff_size = 15, log_wgt_buff_size = 18,
    log_acc_buff_size = 17>} {
  func.func @save_load_out(%X: memref<1x4x1x16xi32>, %Y: memref<1x4x1x16xi8>) {
    %x = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
    vta.stage compute {
      vta.dma_copy %X[0] -> %x[0] y 1 x 4 stride 4
          : memref<1x4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
      vta.uop_loop 4 dst 1 {
        vta.alu shr %x[0], 0 : memref<4x1x16xi32, #vta.sram<acc>>
      }
      vta.dep_push compute -> store
    }
    vta.stage store {
      vta.dep_pop compute -> store
      vta.dma_copy %x[0] -> %Y[0] y 1 x 4 stride 4
          : memref<4x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
    }
    func.return
  }
}
