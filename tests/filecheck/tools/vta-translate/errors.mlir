// Malformed inputs: one MLIR-style error on stderr, exit status 1, never a traceback.

// RUN: vta-translate --emit=bin %s -o %t.vtab
// RUN: python -c "import sys; d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(d[:100])" %t.vtab %t.truncated.vtab
// RUN: not vta-translate --emit=asm %t.truncated.vtab 2>&1 | filecheck %s --check-prefix=TRUNCATED
// RUN: python -c "import sys; d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(d[:5])" %t.vtab %t.stub.vtab
// RUN: not vta-translate --emit=asm %t.stub.vtab 2>&1 | filecheck %s --check-prefix=STUB
// RUN: python -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[200] ^= 4; open(sys.argv[2], 'wb').write(d)" %t.vtab %t.corrupt.vtab
// RUN: not vta-translate --emit=mlir %t.corrupt.vtab 2>&1 | filecheck %s --check-prefix=CORRUPT
// RUN: echo 'vtaisa.program base 0x100000 {' | not vta-translate --emit=bin -o %t.out 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: echo 'vtaisa.bogus' | not vta-translate --emit=bin -o %t.out 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: echo '{"LOG_BLOCK": 4}' > %t.bad-config.json
// RUN: not vta-translate --emit=asm %s --config %t.bad-config.json 2>&1 | filecheck %s --check-prefix=CONFIG
// RUN: not vta-translate --emit=asm %s --config %t.no-such-config.json 2>&1 | filecheck %s --check-prefix=NOCONFIG
// RUN: not vta-translate --emit=asm %t.vtab --config block32 2>&1 | filecheck %s --check-prefix=OTHERCONFIG
// RUN: not vta-translate --emit=asm %s --config block32 2>&1 | filecheck %s --check-prefix=OTHERCONFIGIR
// RUN: not vta-translate --emit=asm %s.missing 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not vta-translate %s 2>&1 | filecheck %s --check-prefix=NOEMIT
// RUN: not vta-translate --emit=obj %s 2>&1 | filecheck %s --check-prefix=BADEMIT
// RUN: not vta-translate --emit=asm %s --function f 2>&1 | filecheck %s --check-prefix=FUNCTION
// RUN: not vta-translate --emit=bin %s -o %t.missing-dir/out.vtab 2>&1 | filecheck %s --check-prefix=WRITE
// RUN: echo 'vta.dep_push load -> compute' > %t.mixed.mlir
// RUN: echo 'vtaisa.program base 0x100000 {}' >> %t.mixed.mlir
// RUN: not vta-translate --emit=bin %t.mixed.mlir -o %t.out 2>&1 | filecheck %s --check-prefix=MIXED
// RUN: echo 'vtaisa.finish' > %t.no-program.mlir
// RUN: not vta-translate --emit=bin %t.no-program.mlir -o %t.out 2>&1 | filecheck %s --check-prefix=NOPROGRAM

// TRUNCATED:   truncated.vtab: error: truncated module: header says {{[0-9]+}} bytes, got 100
// STUB:        stub.vtab: error: truncated module: 5 bytes, the header alone is 32
// CORRUPT:     corrupt.vtab: error: checksum mismatch {{.*}}: the module is corrupt
// SYNTAX:      <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: {{.+}}
// UNKNOWN:     <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: Operation vtaisa.bogus is not registered
// CONFIG:      vta-translate: error: {{.*}}bad-config.json: missing key(s) TARGET
// NOCONFIG:    vta-translate: error: {{.*}}no-such-config.json: cannot read configuration
// OTHERCONFIG: errors.mlir.tmp.vtab: error: module was built for 1x16_i8w8a32_15_15_18_17, expected 1x32_i8w8a32_15_16_19_18
// OTHERCONFIGIR: errors.mlir:{{[0-9]+}}:1: error: 'vtaisa.program' op run 0 instruction 0: LOAD ACC_8BIT touches DRAM {{.*}} outside every segment
// MISSING:     vta-translate: error: cannot open input file '{{.*}}errors.mlir.missing': No such file or directory
// NOEMIT:      vta-translate: error: the following arguments are required: --emit
// BADEMIT:     vta-translate: error: argument --emit: invalid choice: 'obj'
// FUNCTION:    vta-translate: error: --function applies to input-level and vta-level IR, not to vtaisa-level IR
// WRITE:       vta-translate: error: cannot write output file '{{.*}}out.vtab': No such file or directory
// MIXED:       mixed.mlir:2:1: error: 'vtaisa.program' op vtaisa ops cannot be mixed with vta ops (such as 'vta.dep_push') in one module
// NOPROGRAM:   no-program.mlir:1:1: error: expected exactly one vtaisa.program, found 0

// TRUNCATED-NOT: Traceback
// CORRUPT-NOT:   Traceback
// MIXED-NOT:     Traceback

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
