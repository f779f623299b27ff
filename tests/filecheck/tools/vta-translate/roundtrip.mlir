// vtaisa IR is serialized as it is; a .vtab translates back to vtaisa IR that serializes to the
// same bytes; the input is recognized by its contents (a .vtab under any name, on stdin too).

// RUN: vta-translate --emit=bin %s -o %t.vtab
// RUN: vta-translate --emit=mlir %t.vtab | filecheck %s
// RUN: vta-translate --emit=mlir %t.vtab -o %t.again.mlir
// RUN: vta-translate --emit=bin %t.again.mlir -o %t.again.vtab
// RUN: cmp %t.vtab %t.again.vtab
// RUN: vta-translate --emit=bin < %s > %t.stdin.vtab
// RUN: cmp %t.vtab %t.stdin.vtab
// RUN: vta-translate --emit=mlir - < %t.vtab | filecheck %s
// RUN: cp %t.vtab %t.named-like-text.mlir
// RUN: vta-translate --emit=mlir %t.named-like-text.mlir | filecheck %s

// CHECK:      builtin.module attributes {vta.config = #vta.config<{{.*}}log_block = 4{{.*}}>} {
// CHECK-NEXT:   vtaisa.program base 0x100000 {
// CHECK-NEXT:     vtaisa.segment "a" phys 0x100000 size 128
// CHECK-NEXT:     vtaisa.segment "b" phys 0x101000 size 128
// CHECK-NEXT:     vtaisa.segment "y" phys 0x102000 size 32
// CHECK-NEXT:     vtaisa.segment "uops" phys 0x103000 size 4
// CHECK-NEXT:     vtaisa.arg "a" in int32 [1, 32] padded [1, 32] split [1, 1, 2, 16] perm [0, 2, 1, 3] packed int32 segment "a" phys 0x100000
// CHECK-NEXT:     vtaisa.arg "b" in int32 [1, 32] padded [1, 32] split [1, 1, 2, 16] perm [0, 2, 1, 3] packed int32 segment "b" phys 0x101000
// CHECK-NEXT:     vtaisa.arg "y" out int8 [1, 32] padded [1, 32] split [1, 1, 2, 16] perm [0, 2, 1, 3] packed int8 segment "y" phys 0x102000
// CHECK-NEXT:     vtaisa.run uop_base 0x103000 {
// CHECK-NEXT:       vtaisa.uops [(0, 2, 0)]
// CHECK-NEXT:       vtaisa.load acc sram 0 dram 0x4000 y 1 x 2 stride 2
// CHECK-NEXT:       vtaisa.load acc sram 2 dram 0x4040 y 1 x 2 stride 2
// CHECK-NEXT:       vtaisa.load uop sram 0 dram 0x40c00 y 1 x 1 stride 1
// CHECK-NEXT:       vtaisa.alu add uop 0 to 1 iter [1, 2] dst [0, 1] src [0, 1] deps [push_next]
// CHECK-NEXT:       vtaisa.store out sram 0 dram 0x10200 y 1 x 2 stride 2 deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_next]
// CHECK-NEXT:       vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_prev, pop_next]
// CHECK-NEXT:       vtaisa.finish
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }

// y = int8(a + b) on 1x32 int32 vectors, one run (default configuration).
vtaisa.program base 0x100000 {
  vtaisa.segment "a" phys 0x100000 size 128
  vtaisa.segment "b" phys 0x101000 size 128
  vtaisa.segment "y" phys 0x102000 size 32
  vtaisa.segment "uops" phys 0x103000 size 4
  vtaisa.arg "a" in int32 [1, 32] padded [1, 32] split [1, 1, 2, 16] perm [0, 2, 1, 3] packed int32 segment "a" phys 0x100000
  vtaisa.arg "b" in int32 [1, 32] padded [1, 32] split [1, 1, 2, 16] perm [0, 2, 1, 3] packed int32 segment "b" phys 0x101000
  vtaisa.arg "y" out int8 [1, 32] padded [1, 32] split [1, 1, 2, 16] perm [0, 2, 1, 3] packed int8 segment "y" phys 0x102000
  vtaisa.run uop_base 0x103000 {
    vtaisa.uops [(0, 2, 0)]
    vtaisa.load acc sram 0 dram 0x4000 y 1 x 2 stride 2
    vtaisa.load acc sram 2 dram 0x4040 y 1 x 2 stride 2
    vtaisa.load uop sram 0 dram 0x40c00 y 1 x 1 stride 1
    vtaisa.alu add uop 0 to 1 iter [1, 2] dst [0, 1] src [0, 1] deps [push_next]
    vtaisa.store out sram 0 dram 0x10200 y 1 x 2 stride 2 deps [pop_prev, push_prev]
    vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_next]
    vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_prev, pop_next]
    vtaisa.finish
  }
}
