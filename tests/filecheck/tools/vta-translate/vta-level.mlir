// vta-level IR is lowered through the command builder straight to instruction words; the bytes
// equal those of `vta-opt -p vta-lower-to-isa` followed by vta-translate of its vtaisa output.

// RUN: vta-translate --emit=bin %s -o %t.direct.vtab
// RUN: vta-opt -p vta-lower-to-isa %s | vta-translate --emit=bin -o %t.isa.vtab
// RUN: cmp %t.direct.vtab %t.isa.vtab
// RUN: vta-translate --emit=asm %s | filecheck %s
// RUN: vta-translate --emit=asm %t.direct.vtab | filecheck %s
// RUN: vta-translate --emit=bin %S/../../../../examples/vta/vector_add.mlir -o %t.va.direct.vtab
// RUN: vta-opt -p vta-lower-to-isa %S/../../../../examples/vta/vector_add.mlir | vta-translate --emit=bin -o %t.va.isa.vtab
// RUN: cmp %t.va.direct.vtab %t.va.isa.vtab
// RUN: vta-translate --emit=bin %S/../../../../examples/vta/matrix_multiply.mlir -o %t.mm.direct.vtab
// RUN: vta-opt -p vta-lower-to-isa %S/../../../../examples/vta/matrix_multiply.mlir | vta-translate --emit=bin -o %t.mm.isa.vtab
// RUN: cmp %t.mm.direct.vtab %t.mm.isa.vtab
// RUN: not vta-translate --emit=bin %s --function nope -o %t.out 2>&1 | filecheck %s --check-prefix=FUNCTION

// CHECK:      # arg in A: 1x4x1x16xint32
// CHECK-NEXT: # arg in B: 1x4x1x16xint32
// CHECK-NEXT: # arg out C: 1x4x1x16xint8
// CHECK-NEXT: # run 0: 8 instruction(s), 1 micro-op word(s) staged at 0x{{[0-9a-f]+}}
// CHECK-NEXT: 0: LOAD ACC sram=0 dram=0x{{[0-9a-f]+}} y=1 x=4 stride=4
// CHECK-NEXT: 1: LOAD ACC sram=4 dram=0x{{[0-9a-f]+}} y=1 x=4 stride=4
// CHECK-NEXT: 2: LOAD UOP sram=0 dram=0x{{[0-9a-f]+}} y=1 x=1 stride=1
// CHECK-NEXT: 3: ALU ADD uop=0:1 iter=1x4 dst=0,1 src=0,1 [push_next]
// CHECK-NEXT: 4: STORE OUT sram=0 dram=0x{{[0-9a-f]+}} y=1 x=4 stride=4 [pop_prev,push_prev]
// CHECK-NEXT: 5: LOAD INP sram=0 dram=0x0 y=0 x=0 stride=0 [push_next]
// CHECK-NEXT: 6: LOAD UOP sram=0 dram=0x0 y=0 x=0 stride=0 [pop_prev,pop_next]
// CHECK-NEXT: 7: FINISH
// CHECK-NOT:  {{.}}

// FUNCTION: error: {{.*}}nope
// FUNCTION-NOT: Traceback

// C = int8(A + B) on four 16-lane int32 elements, in the accumulator.
func.func @add(%A: memref<1x4x1x16xi32>, %B: memref<1x4x1x16xi32>, %C: memref<1x4x1x16xi8>) {
  %a = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  %b = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  vta.stage compute {
    vta.dma_copy %A[0] -> %a[0] y 1 x 4 stride 4
        : memref<1x4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
    vta.dma_copy %B[0] -> %b[0] y 1 x 4 stride 4
        : memref<1x4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
    vta.uop_loop 4 dst 1 src 1 {
      vta.alu add %a[0], %b[0]
          : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi32, #vta.sram<acc>>
    }
    vta.dep_push compute -> store
  }
  vta.stage store {
    vta.dep_pop compute -> store
    vta.dma_copy %a[0] -> %C[0] y 1 x 4 stride 4
        : memref<4x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
  }
  func.return
}
