// vta-run binds --input/--output .npy files in signature order, runs the program on the
// simulator and writes the outputs; without --output it prints a summary of each output.  A
// .vtab from vta-translate runs the same way as the IR it came from.

// RUN: python -c "import sys, numpy as np; np.save(sys.argv[1], np.arange(32, dtype=np.int32).reshape(1, 32) * 5 - 60); np.save(sys.argv[2], np.full((1, 32), 100, dtype=np.int32))" %t.a.npy %t.b.npy
// RUN: vta-run %s --input %t.a.npy --input %t.b.npy --output %t.y.npy
// RUN: python -c "import sys, numpy as np; y = np.load(sys.argv[1]); print(y.dtype, y.shape, y.reshape(-1).tolist())" %t.y.npy | filecheck %s --check-prefix=Y
// RUN: vta-run %s --input %t.a.npy --input %t.b.npy | filecheck %s --check-prefix=SUMMARY
// RUN: vta-translate --emit=bin %s -o %t.vtab
// RUN: vta-run %t.vtab --input %t.a.npy --input %t.b.npy | filecheck %s --check-prefix=SUMMARY
// RUN: vta-run %s --random-inputs --seed 7 > %t.from-ir.txt
// RUN: vta-run %t.vtab --random-inputs --seed 7 > %t.from-vtab.txt
// RUN: diff %t.from-ir.txt %t.from-vtab.txt

// int8(a + b): 40, 45, ..., 125, then 130 - 256 = -126, ...
// Y: int8 (1, 32) [40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100, 105, 110, 115, 120, 125, -126, -121, -116, -111, -106, -101, -96, -91, -86, -81, -76, -71, -66, -61]
// SUMMARY:      y: 1x32xint8 [40, 45, 50, 55, 60, 65, 70, 75, ...] min -126 max 125
// SUMMARY-NOT:  {{.}}

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
