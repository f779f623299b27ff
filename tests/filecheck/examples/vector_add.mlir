// examples/vta/vector_add.mlir (TVM's vta_get_started, docs/isa.md §5.7) lowered with the
// buffers where TVM placed them (base 0x1000: A, B, C, then the micro-op staging page):
// exactly the 8 instructions of tests/data/conformance/tvm_vta_get_started.npz, one by one.
// Both pipeline syntaxes give the same output.

// RUN: vta-opt %S/../../../examples/vta/vector_add.mlir -p 'vta-lower-to-isa{base=4096}' > %t.p.mlir
// RUN: vta-opt %S/../../../examples/vta/vector_add.mlir --pass-pipeline='builtin.module(vta-lower-to-isa{base=4096})' > %t.pp.mlir
// RUN: diff %t.p.mlir %t.pp.mlir
// RUN: filecheck %s < %t.p.mlir
// RUN: vta-opt %S/../../../examples/vta/vector_add.mlir -p vta-lower-to-isa > %t.default.mlir
// RUN: vta-opt %S/../../../examples/vta/vector_add.mlir --pass-pipeline='builtin.module(vta-lower-to-isa)' | diff %t.default.mlir -
// The printed program parses back and prints identically.
// RUN: vta-opt %t.p.mlir | diff %t.p.mlir -

// CHECK:      builtin.module attributes {vta.config = #vta.config<{{.*}}log_batch = 0, log_block = 4{{.*}}>} {
// CHECK-NEXT:   vtaisa.program base 0x1000 {
// CHECK-NEXT:     vtaisa.segment "A" phys 0x1000 size 4096
// CHECK-NEXT:     vtaisa.segment "B" phys 0x2000 size 4096
// CHECK-NEXT:     vtaisa.segment "C" phys 0x3000 size 1024
// CHECK-NEXT:     vtaisa.segment "uops" phys 0x4000 size 4
// CHECK-NEXT:     vtaisa.arg "A" in int32 [1, 64, 1, 16] padded [1, 64, 1, 16] split [1, 64, 1, 16] perm [0, 1, 2, 3] packed int32 segment "A" phys 0x1000
// CHECK-NEXT:     vtaisa.arg "B" in int32 [1, 64, 1, 16] padded [1, 64, 1, 16] split [1, 64, 1, 16] perm [0, 1, 2, 3] packed int32 segment "B" phys 0x2000
// CHECK-NEXT:     vtaisa.arg "C" out int8 [1, 64, 1, 16] padded [1, 64, 1, 16] split [1, 64, 1, 16] perm [0, 1, 2, 3] packed int8 segment "C" phys 0x3000
// CHECK-NEXT:     vtaisa.run uop_base 0x4000 {
// CHECK-NEXT:       vtaisa.uops [(0, 64, 0)]
// CHECK-NEXT:       vtaisa.load acc sram 0 dram 0x40 y 1 x 64 stride 64
// CHECK-NEXT:       vtaisa.load acc sram 64 dram 0x80 y 1 x 64 stride 64
// CHECK-NEXT:       vtaisa.load uop sram 0 dram 0x1000 y 1 x 1 stride 1
// CHECK-NEXT:       vtaisa.alu add uop 0 to 1 iter [1, 64] dst [0, 1] src [0, 1] deps [push_next]
// CHECK-NEXT:       vtaisa.store out sram 0 dram 0x300 y 1 x 64 stride 64 deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_next]
// CHECK-NEXT:       vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_prev, pop_next]
// CHECK-NEXT:       vtaisa.finish
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
