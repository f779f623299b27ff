// RUN: vta-opt %s --split-input-file --verify-diagnostics

// One case per rule of the vtaisa dialect's verifiers and parsers (default configuration:
// ACC/INP depth 2048 → 11-bit factors, WGT depth 1024, UOP depth 8192 → uop_end 14 bits).

// ---- field widths ----

// expected-error @+1 {{sram_base = 65536 does not fit its 16-bit field (0..65535)}}
vtaisa.load inp sram 65536 dram 0x0 y 0 x 0 stride 0

// -----

// expected-error @+1 {{dram_base = 4294967296 does not fit its 32-bit field (0..4294967295)}}
vtaisa.load inp sram 0 dram 0x100000000 y 1 x 1 stride 1

// -----

// expected-error @+1 {{y_pad_1 = 16 does not fit its 4-bit field (0..15)}}
vtaisa.load inp sram 0 dram 0x0 y 1 x 1 stride 1 pad [0, 16, 0, 0]

// -----

// expected-error @+1 {{iter_in = 16384 does not fit its 14-bit field (0..16383)}}
vtaisa.gemm uop 0 to 1 iter [1, 16384] dst [0, 0] src [0, 0] wgt [0, 0]

// -----

// expected-error @+1 {{wgt_factor_out = 1024 does not fit its 10-bit field (0..1023)}}
vtaisa.gemm uop 0 to 1 iter [1, 1] dst [0, 0] src [0, 0] wgt [1024, 0]

// -----

// expected-error @+1 {{src_factor_in = 2048 does not fit its 11-bit field (0..2047)}}
vtaisa.alu add uop 0 to 1 iter [1, 1] dst [0, 0] src [0, 2048]

// -----

// expected-error @+1 {{uop_bgn = 8192 does not fit its 13-bit field (0..8191)}}
vtaisa.gemm uop 8192 to 8192 iter [1, 1] dst [0, 0] src [0, 0] wgt [0, 0]

// -----

// expected-error @+1 {{push_next_dep = 2 does not fit its 1-bit field (0..1)}}
"vtaisa.finish"() <{pop_prev_dep = 0 : i64, pop_next_dep = 0 : i64, push_prev_dep = 0 : i64, push_next_dep = 2 : i64}> : () -> ()

// -----

// expected-error @+1 {{imm = 32768 does not fit its signed 16-bit field (-32768..32767)}}
vtaisa.alu add uop 0 to 1 iter [1, 1] dst [0, 0] src [0, 0] imm 32768

// -----

// ---- memory types and SRAM ranges ----

// expected-error @+1 {{6 : i64 should be of base attribute vtaisa.memory_type}}
"vtaisa.load"() <{memory_type = 6 : i64, x_size = 1 : i64, y_size = 1 : i64, x_stride = 1 : i64}> : () -> ()

// -----

// expected-error @+1 {{Expected `uop`, `wgt`, `inp`, `acc`, `out`, or `acc_8bit`.}}
vtaisa.load bias sram 0 dram 0x0 y 1 x 1 stride 1

// -----

// expected-error @+1 {{memory_type out cannot be loaded (out is only stored)}}
vtaisa.load out sram 0 dram 0x0 y 1 x 1 stride 1

// -----

// expected-error @+1 {{the load writes INP SRAM elements [2040, 2052) beyond its depth 2048}}
vtaisa.load inp sram 2040 dram 0x0 y 1 x 2 stride 2 pad [1, 1, 1, 1]

// -----

// expected-error @+1 {{the load writes ACC SRAM elements [2047, 2049) beyond its depth 2048}}
vtaisa.load acc_8bit sram 2047 dram 0x0 y 1 x 2 stride 2

// -----

// expected-error @+1 {{a store has memory_type out, got acc}}
vtaisa.store acc sram 0 dram 0x0 y 1 x 1 stride 1

// -----

// expected-error @+1 {{a store has no padding: every pad field must be 0}}
vtaisa.store out sram 0 dram 0x0 y 1 x 1 stride 1 pad [0, 0, 1, 0]

// -----

// expected-error @+1 {{the store reads ACC SRAM elements [2000, 2100) beyond its depth 2048}}
vtaisa.store out sram 2000 dram 0x0 y 10 x 10 stride 10

// -----

// ---- dependency flags per module ----

// expected-error @+1 {{pop_prev is set but the load module has no such dependency queue}}
vtaisa.load wgt sram 0 dram 0x0 y 1 x 1 stride 1 deps [pop_prev]

// -----

// expected-error @+1 {{push_prev is set but the load module has no such dependency queue}}
vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_prev]

// -----

// expected-error @+1 {{push_next is set but the store module has no such dependency queue}}
vtaisa.store out sram 0 dram 0x0 y 1 x 1 stride 1 deps [push_next]

// -----

// expected-error @+1 {{pop_next is set but the store module has no such dependency queue}}
vtaisa.store uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_next]

// -----

// expected-error @+1 {{Expected one of 'pop_next', 'pop_prev', 'push_next', 'push_prev'}}
vtaisa.finish deps [push_up]

// -----

// ---- GEMM / ALU ----

// expected-error @+1 {{uop_bgn 2 is after uop_end 1}}
vtaisa.gemm uop 2 to 1 iter [1, 1] dst [0, 0] src [0, 0] wgt [0, 0]

// -----

// expected-error @+1 {{uop_end 8193 is beyond the UOP SRAM depth 8192}}
vtaisa.alu min uop 0 to 8193 iter [1, 1] dst [0, 0] src [0, 0] imm 0

// -----

// expected-error @+1 {{5 : i64 should be of base attribute vta.alu_op}}
"vtaisa.alu"() <{alu_opcode = 5 : i64, uop_bgn = 0 : i64, uop_end = 1 : i64, iter_out = 1 : i64, iter_in = 1 : i64}> : () -> ()

// -----

// ---- micro-op table ----

vtaisa.program base 0x40000 {
  vtaisa.run {
    // expected-error @+1 {{micro-op 1: wgt_idx = 1024 does not fit its 10-bit field (0..1023)}}
    vtaisa.uops [(0, 0, 0), (0, 0, 1024)]
    vtaisa.finish
  }
}

// -----

vtaisa.program base 0x40000 {
  vtaisa.run {
    // expected-error @+1 {{the table holds 4 values, not (dst, src, wgt) triples}}
    "vtaisa.uops"() <{table = array<i32: 0, 0, 0, 1>}> : () -> ()
    vtaisa.finish
  }
}

// -----

// expected-error @+1 {{'vtaisa.uops' expects parent op 'vtaisa.run'}}
vtaisa.uops [(0, 0, 0)]

// -----

// ---- runs ----

vtaisa.program base 0x40000 {
  // expected-error @+1 {{vtaisa.uops must be the first op of its vtaisa.run}}
  vtaisa.run uop_base 0x40000 {
    vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0
    vtaisa.uops [(0, 0, 0)]
    vtaisa.finish
  }
}

// -----

vtaisa.program base 0x40000 {
  // expected-error @+1 {{a vtaisa.run holds a vtaisa.uops table, instructions and vtaisa.layer markers, not arith.constant}}
  vtaisa.run {
    %c = arith.constant 0 : i32
    vtaisa.finish
  }
}

// -----

vtaisa.program base 0x40000 {
  // expected-error @+1 {{a vtaisa.layer marker must be followed by an instruction of its run}}
  vtaisa.run {
    vtaisa.layer "conv1"
    vtaisa.finish
    vtaisa.layer "conv2"
  }
}

// -----

vtaisa.program base 0x40000 {
  vtaisa.run {
    // expected-error @+1 {{layer name must be a non-empty string, got ''}}
    vtaisa.layer ""
    vtaisa.finish
  }
}

// -----

// expected-error @+1 {{'vtaisa.layer' expects parent op 'vtaisa.run'}}
vtaisa.layer "conv1"

// -----

vtaisa.program base 0x40000 {
  // expected-error @+1 {{a vtaisa.run must end with vtaisa.finish}}
  vtaisa.run {
    vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0
  }
}

// -----

vtaisa.program base 0x40000 {
  // expected-error @+1 {{vtaisa.finish must be the last instruction of its run}}
  vtaisa.run {
    vtaisa.finish
    vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0
    vtaisa.finish
  }
}

// -----

// expected-error @+1 {{'vtaisa.run' expects parent op 'vtaisa.program'}}
vtaisa.run {
  vtaisa.finish
}

// -----

// ---- segments and arguments ----

vtaisa.program base 0x40000 {
  // expected-error @+1 {{segment 'x' has size 0, must be >= 1}}
  vtaisa.segment "x" phys 0x40000 size 0
}

// -----

vtaisa.program base 0x40000 {
  // expected-error @+1 {{segment 'c' has 2 bytes of contents for size 4}}
  vtaisa.segment "c" phys 0x40000 size 4 data "0x0102"
}

// -----

vtaisa.program base 0x40000 {
  // expected-error @+1 {{segment contents must be a hex string "0x..."}}
  vtaisa.segment "c" phys 0x40000 size 4 data "01020304"
}

// -----

vtaisa.program base 0x40000 {
  vtaisa.segment "x" phys 0x40000 size 64
  // expected-error @+1 {{argument 'x': (0, 2, 2) is not a permutation of the 3 split axes}}
  vtaisa.arg "x" in int8 [64] padded [64] split [1, 4, 16] perm [0, 2, 2] packed int8 segment "x" phys 0x40000
}

// -----

vtaisa.program base 0x40000 {
  vtaisa.segment "x" phys 0x40000 size 64
  // expected-error @+1 {{Expected one of 'in', 'inout', 'out'}}
  vtaisa.arg "x" input int8 [64] padded [64] split [64] perm [0] packed int8 segment "x" phys 0x40000
}

// -----

vtaisa.program base 0x40000 {
  vtaisa.segment "x" phys 0x40000 size 64
  // expected-error @+1 {{quantization scale 0.0 is not a positive finite number}}
  vtaisa.arg "x" in int8 [64] quant scale 0.0 zero_point 0 padded [64] split [64] perm [0] packed int8 segment "x" phys 0x40000
}

// -----

vtaisa.program base 0x40000 {
  vtaisa.segment "x" phys 0x40000 size 64
  // expected-error @+1 {{quantization zero point 128 is not an integer in [-128, 127]}}
  vtaisa.arg "x" in int8 [64] quant scale 0.5 zero_point 128 padded [64] split [64] perm [0] packed int8 segment "x" phys 0x40000
}

// -----

vtaisa.program base 0x40000 {
  vtaisa.segment "x" phys 0x40000 size 256
  // expected-error @+1 {{argument 'x': only an int8 argument can be quantized, not int32}}
  vtaisa.arg "x" in int32 [64] quant scale 0.5 zero_point 0 padded [64] split [64] perm [0] packed int32 segment "x" phys 0x40000
}

// -----

// expected-error @+1 {{'vtaisa.segment' expects parent op 'vtaisa.program'}}
vtaisa.segment "x" phys 0x40000 size 64

// -----

// ---- the program as a whole (the .vtab consistency checks) ----

// expected-error @+1 {{a vtaisa.program holds vtaisa.segment, vtaisa.arg, vtaisa.run and vtaisa.host_step ops, not vtaisa.finish}}
vtaisa.program base 0x40000 {
  vtaisa.finish
}

// -----

// expected-error @+1 {{base address 262145 is not a non-zero, 4 KiB-aligned 32-bit address}}
vtaisa.program base 0x40001 {
}

// -----

// expected-error @+1 {{segments 'a' and 'b' overlap}}
vtaisa.program base 0x40000 {
  vtaisa.segment "a" phys 0x40000 size 8192
  vtaisa.segment "b" phys 0x41000 size 16
}

// -----

// expected-error @+1 {{argument 'x': packed size 64 differs from the size 128 of its segment 'x'}}
vtaisa.program base 0x40000 {
  vtaisa.segment "x" phys 0x40000 size 128
  vtaisa.arg "x" in int8 [64] padded [64] split [64] perm [0] packed int8 segment "x" phys 0x40000
}

// -----

// expected-error @+1 {{run 0 instruction 0: LOAD INP touches DRAM [0x40000, 0x40040) outside every segment}}
vtaisa.program base 0x40000 {
  vtaisa.run {
    vtaisa.load inp sram 0 dram 0x4000 y 1 x 4 stride 4
    vtaisa.finish
  }
}

// -----

// expected-error @+1 {{run 0 instruction 0: LOAD UOP reads [0x41000, 0x41008) outside the run's micro-op staging region}}
vtaisa.program base 0x40000 {
  vtaisa.segment "uops" phys 0x40000 size 4
  vtaisa.run uop_base 0x40000 {
    vtaisa.uops [(0, 0, 0)]
    vtaisa.load uop sram 0 dram 0x10400 y 1 x 2 stride 2
    vtaisa.finish
  }
}

// -----

vtaisa.program base 0x40000 {
  // expected-error @+1 {{segment 'a': address 0x40040 is not 4 KiB-aligned}}
  vtaisa.segment "a" phys 0x40040 size 16
}

// -----

// expected-error @+1 {{segment 'a' is defined twice}}
vtaisa.program base 0x40000 {
  vtaisa.segment "a" phys 0x40000 size 16
  vtaisa.segment "a" phys 0x41000 size 16
}

// -----

// expected-error @+1 {{segment 'a': address 0x3f000 is below the module base 0x40000}}
vtaisa.program base 0x40000 {
  vtaisa.segment "a" phys 0x3f000 size 16
}

// -----

// expected-error @+1 {{argument 'x' is declared twice}}
vtaisa.program base 0x40000 {
  vtaisa.segment "x" phys 0x40000 size 64
  vtaisa.segment "y" phys 0x41000 size 64
  vtaisa.arg "x" in int8 [64] padded [64] split [64] perm [0] packed int8 segment "x" phys 0x40000
  vtaisa.arg "x" in int8 [64] padded [64] split [64] perm [0] packed int8 segment "y" phys 0x41000
}

// -----

// expected-error @+1 {{argument 'x': its segment 'x' has constant contents}}
vtaisa.program base 0x40000 {
  vtaisa.segment "x" phys 0x40000 size 1 data "0x07"
  vtaisa.arg "x" in int8 [1] padded [1] split [1] perm [0] packed int8 segment "x" phys 0x40000
}

// -----

// expected-error @+1 {{run 0: micro-op staging region [0x41000, 0x41004) is not inside a segment}}
vtaisa.program base 0x40000 {
  vtaisa.segment "uops" phys 0x40000 size 4
  vtaisa.run uop_base 0x41000 {
    vtaisa.uops [(0, 0, 0)]
    vtaisa.finish
  }
}

// -----

// expected-error @+1 {{run 0: micro-op staging region lies in segment 'x', which holds constants or an argument}}
vtaisa.program base 0x40000 {
  vtaisa.segment "x" phys 0x40000 size 64
  vtaisa.arg "x" in int8 [64] padded [64] split [64] perm [0] packed int8 segment "x" phys 0x40000
  vtaisa.run uop_base 0x40000 {
    vtaisa.uops [(0, 0, 0)]
    vtaisa.finish
  }
}

// -----

vtaisa.program base 0x40000 {
  // expected-error @+1 {{micro-op staging address 0x40000 given without micro-op words}}
  vtaisa.run uop_base 0x40000 {
    vtaisa.finish
  }
}

// -----

vtaisa.program base 0x40000 {
  // expected-error @+1 {{the run has no instructions (a vtaisa.run must end with vtaisa.finish)}}
  vtaisa.run {
  }
}

// -----

vtaisa.program base 0x40000 {
  vtaisa.run {
    // expected-error @+1 {{a store has memory_type out, got acc (only OUT can be stored)}}
    vtaisa.store acc sram 0 dram 0x10 y 1 x 1 stride 1
    vtaisa.finish
  }
}
