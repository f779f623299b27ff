// --emit=asm: the disassembler's listing, one line per instruction, numbered within its run;
// a summary of the module and a header per run as `#` comments.  The same from IR or .vtab.

// RUN: vta-translate --emit=asm %s | filecheck %s
// RUN: vta-translate --emit=bin %s -o %t.vtab
// RUN: vta-translate --emit=asm %t.vtab -o %t.asm
// RUN: filecheck %s < %t.asm
// RUN: vta-translate --emit=asm %s | filecheck %s --check-prefix=COUNT

// CHECK:      # VTA module for 1x16_i8w8a32_15_15_18_17, linked at 0x100000
// CHECK-NEXT: # 2 run(s), 6 instruction(s), 1 micro-op word(s)
// CHECK-NEXT: # segment x: 0x100000 +32 (scratch)
// CHECK-NEXT: # segment uops: 0x101000 +4 (scratch)
// CHECK-NEXT: # arg inout x: 1x20xint8 -> 1x2x1x16xint8 @ x:0x100000
// CHECK-NEXT: # run 0: 5 instruction(s), 1 micro-op word(s) staged at 0x101000
// CHECK-NEXT: 0: LOAD INP sram=0 dram=0x0 y=0 x=0 stride=0 [push_next]
// CHECK-NEXT: 1: LOAD ACC_8BIT sram=0 dram=0x10000 y=1 x=2 stride=2
// CHECK-NEXT: 2: LOAD UOP sram=0 dram=0x40400 y=1 x=1 stride=1
// CHECK-NEXT: 3: ALU ADD uop=0:1 iter=1x2 dst=0,1 src=0,1 imm=1
// CHECK-NEXT: 4: FINISH [pop_prev]
// CHECK-NEXT: # run 1: 1 instruction(s)
// CHECK-NEXT: 0: FINISH
// CHECK-NOT:  {{.}}

// COUNT-COUNT-6: {{^[0-9]+: }}
// COUNT-NOT:     {{^[0-9]+: }}

// x += 1 on an int8 vector in the accumulator (the store is left out: this is about the
// listing), then an empty second run.
vtaisa.program base 0x100000 {
  vtaisa.segment "x" phys 0x100000 size 32
  vtaisa.segment "uops" phys 0x101000 size 4
  vtaisa.arg "x" inout int8 [1, 20] padded [1, 32] split [1, 1, 2, 16] perm [0, 2, 1, 3] packed int8 segment "x" phys 0x100000
  vtaisa.run uop_base 0x101000 {
    vtaisa.uops [(0, 0, 0)]
    vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_next]
    vtaisa.load acc_8bit sram 0 dram 0x10000 y 1 x 2 stride 2
    vtaisa.load uop sram 0 dram 0x40400 y 1 x 1 stride 1
    vtaisa.alu add uop 0 to 1 iter [1, 2] dst [0, 1] src [0, 1] imm 1
    vtaisa.finish deps [pop_prev]
  }
  vtaisa.run {
    vtaisa.finish
  }
}
