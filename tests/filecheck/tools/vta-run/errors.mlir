// Wrong arguments and malformed inputs: one error line on stderr, exit status 1.

// RUN: python -c "import sys, numpy as np; np.save(sys.argv[1], np.zeros((1, 20), np.int8)); np.save(sys.argv[2], np.zeros((1, 20), np.int32)); np.save(sys.argv[3], np.zeros((2, 20), np.int8)); open(sys.argv[4], 'w').write('not numpy')" %t.x.npy %t.x32.npy %t.x2.npy %t.junk.npy
// RUN: not vta-run %s 2>&1 | filecheck %s --check-prefix=NOINPUT
// RUN: not vta-run %s --input %t.x.npy --input %t.x.npy 2>&1 | filecheck %s --check-prefix=TWOINPUTS
// RUN: not vta-run %s --input %t.x.npy --output %t.o1.npy --output %t.o2.npy 2>&1 | filecheck %s --check-prefix=OUTPUTS
// RUN: not vta-run %s --input %t.x32.npy 2>&1 | filecheck %s --check-prefix=DTYPE
// RUN: not vta-run %s --input %t.x2.npy 2>&1 | filecheck %s --check-prefix=SHAPE
// RUN: not vta-run %s --input %t.junk.npy 2>&1 | filecheck %s --check-prefix=JUNK
// RUN: not vta-run %s --input %t.missing.npy 2>&1 | filecheck %s --check-prefix=MISSINGNPY
// RUN: not vta-run %s.missing --random-inputs 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not vta-run %s --random-inputs --input %t.x.npy 2>&1 | filecheck %s --check-prefix=BOTH
// RUN: not vta-run %s --seed 1 --input %t.x.npy 2>&1 | filecheck %s --check-prefix=SEED
// RUN: not vta-run %s --random-inputs --check 2>&1 | filecheck %s --check-prefix=CHECK-ISA
// RUN: vta-translate --emit=bin %s -o %t.vtab
// RUN: not vta-run %t.vtab --random-inputs --check 2>&1 | filecheck %s --check-prefix=CHECK-VTAB
// RUN: python -c "import sys; d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(d[:-3])" %t.vtab %t.truncated.vtab
// RUN: not vta-run %t.truncated.vtab --random-inputs 2>&1 | filecheck %s --check-prefix=TRUNCATED
// RUN: echo '{"LOG_BLOCK": 4}' > %t.bad-config.json
// RUN: not vta-run %s --random-inputs --config %t.bad-config.json 2>&1 | filecheck %s --check-prefix=CONFIG
// RUN: not vta-run %s --random-inputs --export-case %t.missing-dir/case.npz 2>&1 | filecheck %s --check-prefix=WRITE

// NOINPUT:     vta-run: error: the program reads 1 argument(s) but 0 --input file(s) were given; it takes (x: 1x20xint8) -> (x: 1x20xint8) (or use --random-inputs)
// TWOINPUTS:   vta-run: error: the program reads 1 argument(s) but 2 --input file(s) were given
// OUTPUTS:     vta-run: error: the program writes 1 argument(s) but 2 --output file(s) were given
// DTYPE:       vta-run: error: {{.*}}x32.npy: argument 'x': expected dtype int8, got int32
// SHAPE:       vta-run: error: {{.*}}x2.npy: argument 'x': expected shape (1, 20), got (2, 20)
// JUNK:        vta-run: error: cannot read '{{.*}}junk.npy' as a .npy array: not a .npy file
// MISSINGNPY:  vta-run: error: cannot open input file '{{.*}}missing.npy': No such file or directory
// MISSING:     vta-run: error: cannot open input file '{{.*}}errors.mlir.missing': No such file or directory
// BOTH:        vta-run: error: give either --input files or --random-inputs, not both
// SEED:        vta-run: error: --seed applies only with --random-inputs
// CHECK-ISA:   vta-run: error: --check: nothing to check against: vtaisa-level IR has no reference semantics
// CHECK-VTAB:  vta-run: error: --check: nothing to check against: a .vtab binary module has no reference semantics
// TRUNCATED:   truncated.vtab: error: truncated module
// CONFIG:      vta-run: error: {{.*}}bad-config.json: missing key(s)
// WRITE:       vta-run: error: cannot write output file '{{.*}}case.npz': No such file or directory

// NOINPUT-NOT: Traceback
// DTYPE-NOT:   Traceback

vtaisa.program base 0x100000 {
  vtaisa.segment "x" phys 0x100000 size 32
  vtaisa.segment "uops" phys 0x101000 size 4
  vtaisa.arg "x" inout int8 [1, 20] padded [1, 32] split [1, 1, 2, 16] perm [0, 2, 1, 3] packed int8 segment "x" phys 0x100000
  vtaisa.run uop_base 0x101000 {
    vtaisa.uops [(0, 0, 0)]
    vtaisa.load acc_8bit sram 0 dram 0x10000 y 1 x 2 stride 2
    vtaisa.load uop sram 0 dram 0x40400 y 1 x 1 stride 1
    vtaisa.alu add uop 0 to 1 iter [1, 2] dst [0, 1] src [0, 1] imm 1 deps [push_next]
    vtaisa.store out sram 0 dram 0x10000 y 1 x 2 stride 2 deps [pop_prev, push_prev]
    vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_next]
    vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_prev, pop_next]
    vtaisa.finish
  }
}
