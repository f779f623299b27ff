// examples/vta/matrix_multiply.mlir (TVM's matrix_multiply tutorial, docs/isa.md §5.7) lowered
// with the buffers where TVM placed them (base 0x1000: A, B, C, then the micro-op staging page):
// exactly the 56 instructions of tests/data/conformance/tvm_matrix_multiply.npz, one by one.
// Both pipeline syntaxes give the same output.

// RUN: vta-opt %S/../../../examples/vta/matrix_multiply.mlir -p 'vta-lower-to-isa{base=4096}' > %t.p.mlir
// RUN: vta-opt %S/../../../examples/vta/matrix_multiply.mlir --pass-pipeline='builtin.module(vta-lower-to-isa{base=4096})' > %t.pp.mlir
// RUN: diff %t.p.mlir %t.pp.mlir
// RUN: filecheck %s < %t.p.mlir
// RUN: vta-opt %S/../../../examples/vta/matrix_multiply.mlir -p vta-lower-to-isa > %t.default.mlir
// RUN: vta-opt %S/../../../examples/vta/matrix_multiply.mlir --pass-pipeline='builtin.module(vta-lower-to-isa)' | diff %t.default.mlir -
// The printed program parses back and prints identically.
// RUN: vta-opt %t.p.mlir | diff %t.p.mlir -

// CHECK:      builtin.module attributes {vta.config = #vta.config<{{.*}}log_batch = 0, log_block = 4{{.*}}>} {
// CHECK-NEXT:   vtaisa.program base 0x1000 {
// CHECK-NEXT:     vtaisa.segment "A" phys 0x1000 size 256
// CHECK-NEXT:     vtaisa.segment "B" phys 0x2000 size 65536
// CHECK-NEXT:     vtaisa.segment "C" phys 0x12000 size 256
// CHECK-NEXT:     vtaisa.segment "uops" phys 0x13000 size 8
// CHECK-NEXT:     vtaisa.arg "A" in int8 [1, 256] padded [1, 256] split [1, 1, 16, 16] perm [0, 2, 1, 3] packed int8 segment "A" phys 0x1000
// CHECK-NEXT:     vtaisa.arg "B" in int8 [256, 256] padded [256, 256] split [16, 16, 16, 16] perm [0, 2, 1, 3] packed int8 segment "B" phys 0x2000
// CHECK-NEXT:     vtaisa.arg "C" out int8 [1, 256] padded [1, 256] split [1, 1, 16, 16] perm [0, 2, 1, 3] packed int8 segment "C" phys 0x12000
// CHECK-NEXT:     vtaisa.run uop_base 0x13000 {
// CHECK-NEXT:       vtaisa.uops [(0, 0, 0), (0, 0, 0)]
// CHECK-NEXT:       vtaisa.load uop sram 0 dram 0x4c00 y 1 x 1 stride 1
// CHECK-NEXT:       vtaisa.gemm reset uop 0 to 1 iter [16, 1] dst [1, 0] src [0, 0] wgt [0, 0] deps [push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x100 y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x20 y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.load uop sram 1 dram 0x4c01 y 1 x 1 stride 1 deps [pop_prev]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x101 y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x21 y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x102 y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x22 y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x103 y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x23 y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x104 y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x24 y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x105 y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x25 y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x106 y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x26 y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x107 y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x27 y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x108 y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x28 y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x109 y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x29 y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x10a y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x2a y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x10b y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x2b y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x10c y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x2c y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x10d y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x2d y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x10e y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x2e y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x10f y 1 x 1 stride 1 deps [pop_next]
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x2f y 16 x 1 stride 16 deps [push_next]
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] deps [pop_prev, push_prev, push_next]
// CHECK-NEXT:       vtaisa.store out sram 0 dram 0x1200 y 1 x 16 stride 16 deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_next]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_next]
// CHECK-NEXT:       vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_prev, pop_next]
// CHECK-NEXT:       vtaisa.finish
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
