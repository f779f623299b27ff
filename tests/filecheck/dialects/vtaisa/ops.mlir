// RUN: vta-opt %s | vta-opt | filecheck %s
// RUN: vta-opt %s --print-op-generic | vta-opt | filecheck %s

// A linked program in vtaisa form (default configuration): segments, arguments, two runs, and
// every instruction form with every field (docs/isa.md §2).

// CHECK: builtin.module attributes {vta.config = #vta.config<target = "sim", hw_ver = "0.0.2", log_inp_width = 3, log_wgt_width = 3, log_acc_width = 5, log_batch = 0, log_block = 4, log_uop_buff_size = 15, log_inp_buff_size = 15, log_wgt_buff_size = 18, log_acc_buff_size = 17, dma_latency = 40>} {
builtin.module attributes {vta.config = #vta.config<target = "sim", hw_ver = "0.0.2", log_inp_width = 3, log_wgt_width = 3, log_acc_width = 5, log_batch = 0, log_block = 4, log_uop_buff_size = 15, log_inp_buff_size = 15, log_wgt_buff_size = 18, log_acc_buff_size = 17, dma_latency = 40>} {
  // CHECK-NEXT: vtaisa.program base 0x40000 {
  // CHECK-NEXT:   vtaisa.segment "x" phys 0x40000 size 1024
  // CHECK-NEXT:   vtaisa.segment "w" phys 0x41000 size 1024
  // CHECK-NEXT:   vtaisa.segment "bias" phys 0x42000 size 64 data "0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F"
  // CHECK-NEXT:   vtaisa.segment "y" phys 0x43000 size 1024
  // CHECK-NEXT:   vtaisa.segment "uops" phys 0x44000 size 8
  // CHECK-NEXT:   vtaisa.arg "x" in int8 [1, 1024] padded [1, 1024] split [1, 1, 64, 16] perm [0, 2, 1, 3] packed int8 segment "x" phys 0x40000
  // CHECK-NEXT:   vtaisa.arg "w" in int8 [16, 64] padded [16, 64] split [1, 16, 4, 16] perm [0, 2, 1, 3] packed int8 segment "w" phys 0x41000
  // CHECK-NEXT:   vtaisa.arg "y" out int8 [1, 1024] padded [1, 1024] split [1, 1, 64, 16] perm [0, 2, 1, 3] packed int8 segment "y" phys 0x43000
  vtaisa.program base 0x40000 {
    vtaisa.segment "x" phys 0x40000 size 1024
    vtaisa.segment "w" phys 0x41000 size 1024
    vtaisa.segment "bias" phys 0x42000 size 64 data "0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F"
    vtaisa.segment "y" phys 0x43000 size 1024
    vtaisa.segment "uops" phys 0x44000 size 8
    vtaisa.arg "x" in int8 [1, 1024] padded [1, 1024] split [1, 1, 64, 16] perm [0, 2, 1, 3] packed int8 segment "x" phys 0x40000
    vtaisa.arg "w" in int8 [16, 64] padded [16, 64] split [1, 16, 4, 16] perm [0, 2, 1, 3] packed int8 segment "w" phys 0x41000
    vtaisa.arg "y" out int8 [1, 1024] padded [1, 1024] split [1, 1, 64, 16] perm [0, 2, 1, 3] packed int8 segment "y" phys 0x43000

    // CHECK-NEXT: vtaisa.run uop_base 0x44000 {
    // CHECK-NEXT:   vtaisa.uops [(0, 0, 0), (1, 64, 3)]
    // CHECK-NEXT:   vtaisa.load uop sram 0 dram 0x11000 y 1 x 2 stride 2
    // CHECK-NEXT:   vtaisa.load inp sram 0 dram 0x4000 y 1 x 4 stride 4 pad [1, 1, 0, 0] deps [pop_next]
    // CHECK-NEXT:   vtaisa.load wgt sram 0 dram 0x410 y 1 x 4 stride 4 deps [push_next]
    // CHECK-NEXT:   vtaisa.load acc sram 8 dram 0x1080 y 1 x 1 stride 1
    // CHECK-NEXT:   vtaisa.load acc_8bit sram 9 dram 0x4200 y 1 x 4 stride 4
    // CHECK-NEXT:   vtaisa.gemm reset uop 0 to 1 iter [4, 1] dst [1, 0] src [0, 0] wgt [0, 0]
    // CHECK-NEXT:   vtaisa.gemm uop 0 to 2 iter [4, 1] dst [1, 0] src [1, 0] wgt [1, 0] deps [pop_prev, push_prev]
    // CHECK-NEXT:   vtaisa.alu shr uop 0 to 1 iter [1, 4] dst [0, 1] src [0, 1] imm -3
    // CHECK-NEXT:   vtaisa.alu add uop 0 to 1 iter [1, 4] dst [0, 1] src [0, 0]
    // CHECK-NEXT:   vtaisa.alu max reset uop 0 to 1 iter [1, 4] dst [0, 1] src [0, 1] imm_unused 7
    // CHECK-NEXT:   vtaisa.alu min uop 0 to 1 iter [1, 4] dst [0, 1] src [0, 1] imm 127
    // CHECK-NEXT:   vtaisa.alu mul uop 0 to 1 iter [2, 2] dst [2, 1] src [2, 1] imm 2 deps [push_next]
    // CHECK-NEXT:   vtaisa.store out sram 0 dram 0x4300 y 1 x 4 stride 4 deps [pop_prev, push_prev]
    // CHECK-NEXT:   vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_next]
    // CHECK-NEXT:   vtaisa.store uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_prev]
    // CHECK-NEXT:   vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_prev, pop_next]
    // CHECK-NEXT:   vtaisa.finish
    // CHECK-NEXT: }
    vtaisa.run uop_base 0x44000 {
      vtaisa.uops [(0, 0, 0), (1, 64, 3)]
      vtaisa.load uop sram 0 dram 0x11000 y 1 x 2 stride 2
      vtaisa.load inp sram 0 dram 0x4000 y 1 x 4 stride 4 pad [1, 1, 0, 0] deps [pop_next]
      vtaisa.load wgt sram 0 dram 0x410 y 1 x 4 stride 4 deps [push_next]
      vtaisa.load acc sram 8 dram 0x1080 y 1 x 1 stride 1
      vtaisa.load acc_8bit sram 9 dram 0x4200 y 1 x 4 stride 4
      vtaisa.gemm reset uop 0 to 1 iter [4, 1] dst [1, 0] src [0, 0] wgt [0, 0]
      vtaisa.gemm uop 0 to 2 iter [4, 1] dst [1, 0] src [1, 0] wgt [1, 0] deps [pop_prev, push_prev]
      vtaisa.alu shr uop 0 to 1 iter [1, 4] dst [0, 1] src [0, 1] imm -3
      vtaisa.alu add uop 0 to 1 iter [1, 4] dst [0, 1] src [0, 0]
      vtaisa.alu max reset uop 0 to 1 iter [1, 4] dst [0, 1] src [0, 1] imm_unused 7
      vtaisa.alu min uop 0 to 1 iter [1, 4] dst [0, 1] src [0, 1] imm 127
      vtaisa.alu mul uop 0 to 1 iter [2, 2] dst [2, 1] src [2, 1] imm 2 deps [push_next]
      vtaisa.store out sram 0 dram 0x4300 y 1 x 4 stride 4 deps [pop_prev, push_prev]
      vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_next]
      vtaisa.store uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_prev]
      vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_prev, pop_next]
      vtaisa.finish
    }
    // CHECK-NEXT: vtaisa.run {
    // CHECK-NEXT:   vtaisa.finish deps [pop_prev, push_next]
    // CHECK-NEXT: }
    // CHECK-NEXT: }
    vtaisa.run {
      vtaisa.finish deps [pop_prev, push_next]
    }
  }
}
