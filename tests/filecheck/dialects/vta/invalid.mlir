// RUN: vta-opt %s --split-input-file --verify-diagnostics

// One case per rule of the vta dialect's verifiers and parsers (default configuration:
// BATCH 1, BLOCK 16, INP 2048 / WGT 1024 / ACC 2048 elements).

// expected-error @+1 {{Expected `inp`, `wgt`, `acc`, or `uop`}}
%0 = "test.op"() : () -> memref<4x1x16xi8, #vta.sram<out>>

// -----

// expected-error @+1 {{#vta.config is missing key(s) log_acc_buff_size}}
builtin.module attributes {vta.config = #vta.config<target = "sim", hw_ver = "0.0.2", log_inp_width = 3, log_wgt_width = 3, log_acc_width = 5, log_batch = 0, log_block = 4, log_uop_buff_size = 15, log_inp_buff_size = 15, log_wgt_buff_size = 18>} {
}

// -----

// expected-error @+1 {{unknown #vta.config key 'log_block_in'}}
builtin.module attributes {vta.config = #vta.config<target = "sim", log_block_in = 4>} {
}

// -----

// expected-error @+1 {{#vta.config key 'target' is given twice}}
builtin.module attributes {vta.config = #vta.config<target = "sim", target = "sim">} {
}

// -----

// expected-error @+1 {{LOG_BLOCK = 9 is out of range [3, 6]}}
builtin.module attributes {vta.config = #vta.config<target = "sim", hw_ver = "0.0.2", log_inp_width = 3, log_wgt_width = 3, log_acc_width = 5, log_batch = 0, log_block = 9, log_uop_buff_size = 15, log_inp_buff_size = 15, log_wgt_buff_size = 18, log_acc_buff_size = 17>} {
}

// -----

// ---- vta.dma_copy ----

%a, %b = "test.op"() : () -> (memref<4x1x16xi8, #vta.sram<inp>>, memref<4x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{vta.dma_copy moves data between DRAM and SRAM, but both operands are in SRAM}}
vta.dma_copy %a[0] -> %b[0] y 1 x 4 stride 4 : memref<4x1x16xi8, #vta.sram<inp>> -> memref<4x1x16xi8, #vta.sram<inp>>

// -----

%a, %b = "test.op"() : () -> (memref<4x1x16xi8>, memref<4x1x16xi8>)
// expected-error @+1 {{neither operand is in a #vta.sram memory space}}
vta.dma_copy %a[0] -> %b[0] y 1 x 4 stride 4 : memref<4x1x16xi8> -> memref<4x1x16xi8>

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<64x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{x_pad_0 = 16 does not fit its 4-bit field (0..15)}}
vta.dma_copy %x[0] -> %inp[0] y 1 x 1 stride 1 pad [0, 0, 16, 0] : memref<64x1x16xi8> -> memref<64x1x16xi8, #vta.sram<inp>>

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<64x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{x_stride = 65536 does not fit its 16-bit field (0..65535)}}
vta.dma_copy %x[0] -> %inp[0] y 1 x 1 stride 65536 : memref<64x1x16xi8> -> memref<64x1x16xi8, #vta.sram<inp>>

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<64x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{y_size must be at least 1 (a copy moves data)}}
vta.dma_copy %x[0] -> %inp[0] y 0 x 1 stride 1 : memref<64x1x16xi8> -> memref<64x1x16xi8, #vta.sram<inp>>

// -----

%inp, %y = "test.op"() : () -> (memref<4x1x16xi8, #vta.sram<inp>>, memref<4x1x16xi8>)
// expected-error @+1 {{a store reads the accumulator: source must be in #vta.sram<acc>, got #vta.sram<inp>}}
vta.dma_copy %inp[0] -> %y[0] y 1 x 4 stride 4 : memref<4x1x16xi8, #vta.sram<inp>> -> memref<4x1x16xi8>

// -----

%acc, %y = "test.op"() : () -> (memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi8>)
// expected-error @+1 {{a store (SRAM -> DRAM) has no padding}}
vta.dma_copy %acc[0] -> %y[0] y 1 x 2 stride 2 pad [0, 0, 1, 1] : memref<4x1x16xi32, #vta.sram<acc>> -> memref<4x1x16xi8>

// -----

%acc, %y = "test.op"() : () -> (memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi32>)
// expected-error @+1 {{store destination in DRAM must have element type i8, got i32}}
vta.dma_copy %acc[0] -> %y[0] y 1 x 4 stride 4 : memref<4x1x16xi32, #vta.sram<acc>> -> memref<4x1x16xi32>

// -----

%b, %acc = "test.op"() : () -> (memref<4x1x16xi16>, memref<4x1x16xi32, #vta.sram<acc>>)
// expected-error @+1 {{a load into #vta.sram<acc> reads i32 DRAM (ACC) or i8 DRAM (ACC_8BIT), got i16}}
vta.dma_copy %b[0] -> %acc[0] y 1 x 4 stride 4 : memref<4x1x16xi16> -> memref<4x1x16xi32, #vta.sram<acc>>

// -----

%x, %inp = "test.op"() : () -> (memref<4x1x16xi32>, memref<4x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{load source in DRAM must have element type i8, got i32}}
vta.dma_copy %x[0] -> %inp[0] y 1 x 4 stride 4 : memref<4x1x16xi32> -> memref<4x1x16xi8, #vta.sram<inp>>

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<16x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{the copy covers 36 SRAM elements but the buffer holds 16}}
vta.dma_copy %x[0] -> %inp[0] y 4 x 4 stride 8 pad [1, 1, 1, 1] : memref<64x1x16xi8> -> memref<16x1x16xi8, #vta.sram<inp>>

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<16x1x16xi8, #vta.sram<inp>>)
%c14 = arith.constant 14 : index
// expected-error @+1 {{the copy covers SRAM elements [14, 18) but the buffer holds 16}}
vta.dma_copy %x[0] -> %inp[%c14] y 1 x 4 stride 4 : memref<64x1x16xi8> -> memref<16x1x16xi8, #vta.sram<inp>>

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<16x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{SRAM offset -1 is negative}}
vta.dma_copy %x[0] -> %inp[-1] y 1 x 4 stride 4 : memref<64x1x16xi8> -> memref<16x1x16xi8, #vta.sram<inp>>

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<16x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{the copy reaches DRAM elements [60, 66) but the buffer holds 64}}
vta.dma_copy %x[60] -> %inp[0] y 2 x 2 stride 4 : memref<64x1x16xi8> -> memref<16x1x16xi8, #vta.sram<inp>>

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<16x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{DRAM offset -4 is negative}}
vta.dma_copy %x[-4] -> %inp[0] y 1 x 4 stride 4 : memref<64x1x16xi8> -> memref<16x1x16xi8, #vta.sram<inp>>

// -----

%x, %inp = "test.op"() : () -> (memref<100xi8>, memref<16x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{load source holds 100 scalars, not a whole number of 16-scalar tensor elements}}
vta.dma_copy %x[0] -> %inp[0] y 1 x 4 stride 4 : memref<100xi8> -> memref<16x1x16xi8, #vta.sram<inp>>

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<16x1x16xi32, #vta.sram<inp>>)
// expected-error @+1 {{load destination in #vta.sram<inp> must have element type i8, got i32}}
vta.dma_copy %x[0] -> %inp[0] y 1 x 4 stride 4 : memref<64x1x16xi8> -> memref<16x1x16xi32, #vta.sram<inp>>

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<16x2x8xi8, #vta.sram<inp>>)
// expected-error @+1 {{load destination must be shaped [elements...]x1x16 (one inp tensor element per row)}}
vta.dma_copy %x[0] -> %inp[0] y 1 x 4 stride 4 : memref<64x1x16xi8> -> memref<16x2x8xi8, #vta.sram<inp>>

// -----

%w, %wgt = "test.op"() : () -> (memref<2048x16x16xi8>, memref<2048x16x16xi8, #vta.sram<wgt>>)
// expected-error @+1 {{load destination holds 2048 elements, more than the WGT SRAM depth 1024}}
vta.dma_copy %w[0] -> %wgt[0] y 1 x 4 stride 4 : memref<2048x16x16xi8> -> memref<2048x16x16xi8, #vta.sram<wgt>>

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<?x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{load destination must have a static shape}}
vta.dma_copy %x[0] -> %inp[0] y 1 x 4 stride 4 : memref<64x1x16xi8> -> memref<?x1x16xi8, #vta.sram<inp>>

// -----

// ---- vta.gemm ----

%acc, %wgt = "test.op"() : () -> (memref<4x1x16xi32, #vta.sram<acc>>, memref<4x16x16xi8, #vta.sram<wgt>>)
// expected-error @+1 {{expected 1 value for inp, but got 0}}
"vta.gemm"(%acc, %wgt) <{acc_offset = 0 : i64, inp_offset = 0 : i64, wgt_offset = 0 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 1, 0>}> : (memref<4x1x16xi32, #vta.sram<acc>>, memref<4x16x16xi8, #vta.sram<wgt>>) -> ()

// -----

%acc, %inp, %wgt = "test.op"() : () -> (memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi8, #vta.sram<inp>>, memref<4x16x16xi8, #vta.sram<wgt>>)
// expected-error @+1 {{gemm inp must be a memref in #vta.sram<inp>, got memref<4x16x16xi8, #vta.sram<wgt>>}}
vta.gemm %acc[0] += %wgt[0] * %wgt[0] : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x16x16xi8, #vta.sram<wgt>>, memref<4x16x16xi8, #vta.sram<wgt>>

// -----

%acc, %inp, %wgt = "test.op"() : () -> (memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi8, #vta.sram<inp>>, memref<4x16x16xi8, #vta.sram<wgt>>)
// expected-error @+1 {{wgt index 4 is out of bounds of its 4 elements}}
vta.gemm %acc[0] += %inp[0] * %wgt[4] : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi8, #vta.sram<inp>>, memref<4x16x16xi8, #vta.sram<wgt>>

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{accumulator index -1 is negative}}
vta.gemm_reset %acc[-1] : memref<4x1x16xi32, #vta.sram<acc>>

// -----

// ---- vta.gemm_reset ----

%inp = "test.op"() : () -> memref<4x1x16xi8, #vta.sram<inp>>
// expected-error @+1 {{gemm accumulator must be a memref in #vta.sram<acc>, got memref<4x1x16xi8, #vta.sram<inp>>}}
vta.gemm_reset %inp[0] : memref<4x1x16xi8, #vta.sram<inp>>

// -----

// A reset zeroes the accumulator: it reads no inp or wgt.
%acc, %inp, %wgt = "test.op"() : () -> (memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi8, #vta.sram<inp>>, memref<4x16x16xi8, #vta.sram<wgt>>)
// expected-error @+1 {{Expected ':'}}
vta.gemm_reset %acc[0] += %inp[0] * %wgt[0] : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi8, #vta.sram<inp>>, memref<4x16x16xi8, #vta.sram<wgt>>

// -----

// ---- vta.alu ----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{immediate 40000 does not fit a signed 16-bit field (-32768..32767)}}
vta.alu add %acc[0], 40000 : memref<4x1x16xi32, #vta.sram<acc>>

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{vta.alu takes an immediate or a source tensor, not both}}
"vta.alu"(%acc, %acc) <{op = #vta<alu_op add>, dst_offset = 0 : i64, src_offset = 0 : i64, imm = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi32, #vta.sram<acc>>) -> ()

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{vta.alu needs an immediate or a source tensor}}
"vta.alu"(%acc) <{op = #vta<alu_op add>, dst_offset = 0 : i64, src_offset = 0 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<4x1x16xi32, #vta.sram<acc>>) -> ()

// -----

%acc, %inp = "test.op"() : () -> (memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{alu source must be a memref in #vta.sram<acc>, got memref<4x1x16xi8, #vta.sram<inp>>}}
vta.alu max %acc[0], %inp[0] : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi8, #vta.sram<inp>>

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{Expected `min`, `max`, `add`, `shr`, or `mul`}}
vta.alu sub %acc[0], 1 : memref<4x1x16xi32, #vta.sram<acc>>

// -----

// ---- vta.uop_loop ----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{extent 0 does not fit the 14-bit iteration field (1..16383)}}
vta.uop_loop 0 {
  vta.gemm_reset %acc[0] : memref<4x1x16xi32, #vta.sram<acc>>
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{extent 16384 does not fit the 14-bit iteration field (1..16383)}}
vta.uop_loop 16384 {
  vta.gemm_reset %acc[0] : memref<4x1x16xi32, #vta.sram<acc>>
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{dst_factor -1 is negative}}
vta.uop_loop 2 dst -1 {
  vta.gemm_reset %acc[1] : memref<4x1x16xi32, #vta.sram<acc>>
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{a vta.uop_loop body holds vta.gemm / vta.alu micro-ops, micro-op list loops (affine.for), one nested vta.uop_loop and index arithmetic, not vta.dep_push}}
vta.uop_loop 2 dst 1 {
  vta.gemm_reset %acc[0] : memref<4x1x16xi32, #vta.sram<acc>>
  vta.dep_push compute -> load
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{a vta.uop_loop body holds either micro-ops or exactly one nested vta.uop_loop}}
vta.uop_loop 2 dst 1 {
  vta.gemm_reset %acc[0] : memref<4x1x16xi32, #vta.sram<acc>>
  vta.uop_loop 2 {
    vta.gemm_reset %acc[1] : memref<4x1x16xi32, #vta.sram<acc>>
  }
}

// -----

// expected-error @+1 {{a vta.uop_loop body needs at least one vta.gemm or vta.alu}}
vta.uop_loop 2 dst 1 {
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
vta.uop_loop 2 {
  // expected-error @+1 {{vta.uop_loop nests more than 2 levels}}
  vta.uop_loop 2 {
    vta.uop_loop 2 {
      vta.gemm_reset %acc[0] : memref<4x1x16xi32, #vta.sram<acc>>
    }
  }
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{a micro-kernel holds one kind of micro-op: vta.gemm_reset and vta.alu are mixed}}
vta.uop_loop 2 dst 2 {
  vta.gemm_reset %acc[0] : memref<4x1x16xi32, #vta.sram<acc>>
  vta.alu add %acc[1], 1 : memref<4x1x16xi32, #vta.sram<acc>>
}

// -----

%acc, %inp, %wgt = "test.op"() : () -> (memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi8, #vta.sram<inp>>, memref<4x16x16xi8, #vta.sram<wgt>>)
// expected-error @+1 {{a micro-kernel holds one kind of micro-op: vta.gemm_reset and vta.gemm are mixed}}
vta.uop_loop 2 dst 2 {
  vta.gemm_reset %acc[0] : memref<4x1x16xi32, #vta.sram<acc>>
  vta.gemm %acc[1] += %inp[0] * %wgt[0] : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi8, #vta.sram<inp>>, memref<4x16x16xi8, #vta.sram<wgt>>
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{all vta.alu micro-ops of a kernel must share the operation and the immediate (or all use a source tensor)}}
vta.uop_loop 2 dst 2 {
  vta.alu max %acc[0], 0 : memref<4x1x16xi32, #vta.sram<acc>>
  vta.alu max %acc[1], 1 : memref<4x1x16xi32, #vta.sram<acc>>
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{wgt_factor 1 is meaningless in an ALU kernel (must be 0)}}
vta.uop_loop 2 dst 1 wgt 1 {
  vta.alu max %acc[0], 0 : memref<4x1x16xi32, #vta.sram<acc>>
}

// -----

%acc = "test.op"() : () -> memref<2048x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{dst_factor = 2048 does not fit its 11-bit field (0..2047)}}
vta.uop_loop 1 dst 2048 {
  vta.alu max %acc[0], 0 : memref<2048x1x16xi32, #vta.sram<acc>>
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{write hazard: micro-op 2 writes the same accumulator element as one of the 2 micro-ops before it}}
vta.uop_loop 2 {
  vta.alu add %acc[0], 1 : memref<4x1x16xi32, #vta.sram<acc>>
  vta.alu add %acc[1], 1 : memref<4x1x16xi32, #vta.sram<acc>>
  vta.alu add %acc[0], 1 : memref<4x1x16xi32, #vta.sram<acc>>
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{the kernel reaches acc element 4 (micro-op 0, dst) but the buffer holds 4}}
vta.uop_loop 2 dst 2 {
  vta.uop_loop 2 dst 1 {
    vta.gemm_reset %acc[1] : memref<4x1x16xi32, #vta.sram<acc>>
  }
}

// -----

// ---- micro-op list loops (affine.for inside a vta.uop_loop) ----

%acc, %n = "test.op"() : () -> (memref<4x1x16xi32, #vta.sram<acc>>, index)
// expected-error @+1 {{a micro-op list loop (affine.for in a vta.uop_loop) has constant bounds and step 1}}
vta.uop_loop 2 {
  affine.for %j = 0 to %n {
    vta.gemm_reset %acc[%j] : memref<4x1x16xi32, #vta.sram<acc>>
  }
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{a micro-op list loop (affine.for in a vta.uop_loop) has constant bounds and step 1}}
vta.uop_loop 2 {
  affine.for %j = 0 to 4 step 2 {
    vta.gemm_reset %acc[%j] : memref<4x1x16xi32, #vta.sram<acc>>
  }
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{a micro-op list loop (affine.for in a vta.uop_loop) runs at least once}}
vta.uop_loop 2 {
  affine.for %j = 2 to 2 {
    vta.gemm_reset %acc[%j] : memref<4x1x16xi32, #vta.sram<acc>>
  }
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{a micro-op list loop (affine.for in a vta.uop_loop) holds vta.gemm / vta.alu micro-ops, nested list loops and index arithmetic, not vta.dep_push}}
vta.uop_loop 2 {
  affine.for %j = 0 to 2 {
    vta.gemm_reset %acc[%j] : memref<4x1x16xi32, #vta.sram<acc>>
    vta.dep_push compute -> load
  }
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{a vta.uop_loop body holds either micro-ops or exactly one nested vta.uop_loop}}
vta.uop_loop 2 {
  affine.for %j = 0 to 2 {
    vta.gemm_reset %acc[%j] : memref<4x1x16xi32, #vta.sram<acc>>
  }
  vta.uop_loop 2 {
    vta.gemm_reset %acc[0] : memref<4x1x16xi32, #vta.sram<acc>>
  }
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{the micro-kernel has 10000 micro-ops, more than the UOP SRAM depth 8192}}
vta.uop_loop 2 {
  affine.for %j = 0 to 100 {
    affine.for %k = 0 to 100 {
      vta.alu add %acc[0], 1 : memref<4x1x16xi32, #vta.sram<acc>>
    }
  }
}

// -----

%acc, %p = "test.op"() : () -> (memref<4x1x16xi32, #vta.sram<acc>>, index)
// The inner loop repeats the destination %p + j: the list is p, p, p+1, p+1.
// expected-error @+1 {{write hazard: micro-op 1 writes the same accumulator element as one of the 2 micro-ops before it}}
vta.uop_loop 2 {
  affine.for %j = 0 to 2 {
    affine.for %k = 0 to 2 {
      %d = affine.apply affine_map<(d0)[s0] -> (d0 + s0)> (%j)[%p]
      vta.alu add %acc[%d], 1 : memref<4x1x16xi32, #vta.sram<acc>>
    }
  }
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{write hazard: micro-op 2 writes the same accumulator element as one of the 2 micro-ops before it}}
vta.uop_loop 2 {
  vta.alu add %acc[2], 1 : memref<4x1x16xi32, #vta.sram<acc>>
  affine.for %j = 0 to 3 {
    %d = affine.apply affine_map<(d0) -> (d0 * 2)> (%j)
    vta.alu add %acc[%d], 1 : memref<4x1x16xi32, #vta.sram<acc>>
  }
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{the kernel reaches acc element 4 (micro-op 4, dst) but the buffer holds 4}}
vta.uop_loop 1 {
  affine.for %j = 0 to 5 {
    vta.gemm_reset %acc[%j] : memref<4x1x16xi32, #vta.sram<acc>>
  }
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{the kernel reaches acc element 4 (micro-op 1, src) but the buffer holds 4}}
vta.uop_loop 2 dst 1 src 1 {
  affine.for %j = 0 to 2 {
    %s = affine.apply affine_map<(d0) -> (d0 * 2 + 1)> (%j)
    vta.alu add %acc[%j], %acc[%s] : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi32, #vta.sram<acc>>
  }
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{the kernel reaches acc element -1 (micro-op 0, dst), before the start of the buffer}}
vta.uop_loop 1 {
  affine.for %j = 0 to 2 {
    %d = affine.apply affine_map<(d0) -> (d0 - 1)> (%j)
    vta.gemm_reset %acc[%d] : memref<4x1x16xi32, #vta.sram<acc>>
  }
}

// -----

// ---- vta.dep_push / vta.dep_pop ----

// expected-error @+1 {{a dependency token goes between two modules, got compute -> compute}}
vta.dep_push compute -> compute

// -----

// expected-error @+1 {{no dependency queue connects load and store (only load <-> compute and compute <-> store)}}
vta.dep_pop load -> store

// -----

// expected-error @+1 {{Expected `load`, `compute`, or `store`}}
vta.dep_pop fetch -> compute

// -----

// ---- vta.stage ----

// expected-error @+1 {{vta.stage scopes do not nest}}
vta.stage compute {
  vta.stage load {
  }
}

// -----

// expected-error @+1 {{vta.dep_push compute -> load executes on the compute module, not in a load stage}}
vta.stage load {
  vta.dep_push compute -> load
}

// -----

// expected-error @+1 {{vta.dep_pop load -> compute executes on the compute module, not in a store stage}}
vta.stage store {
  vta.dep_pop load -> compute
}

// -----

%acc = "test.op"() : () -> memref<4x1x16xi32, #vta.sram<acc>>
// expected-error @+1 {{a load stage holds DMA loads into inp/wgt, not a vta.uop_loop (executed by the compute module)}}
vta.stage load {
  vta.uop_loop 4 dst 1 {
    vta.gemm_reset %acc[0] : memref<4x1x16xi32, #vta.sram<acc>>
  }
}

// -----

%x, %inp = "test.op"() : () -> (memref<64x1x16xi8>, memref<16x1x16xi8, #vta.sram<inp>>)
// expected-error @+1 {{a store stage holds DMA stores, not a DMA load into inp (executed by the load module)}}
vta.stage store {
  affine.for %i = 0 to 4 {
    vta.dma_copy %x[%i] -> %inp[0] y 1 x 4 stride 4 : memref<64x1x16xi8> -> memref<16x1x16xi8, #vta.sram<inp>>
  }
}

// -----

%b, %acc = "test.op"() : () -> (memref<4x1x16xi32>, memref<4x1x16xi32, #vta.sram<acc>>)
// expected-error @+1 {{a load stage holds DMA loads into inp/wgt, not a DMA load into acc (executed by the compute module)}}
vta.stage load {
  vta.dma_copy %b[0] -> %acc[0] y 1 x 4 stride 4 : memref<4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
}

// -----

%acc, %y = "test.op"() : () -> (memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi8>)
// expected-error @+1 {{a compute stage holds gemm, alu, uop_loop and DMA loads into acc/uop, not a DMA store (executed by the store module)}}
vta.stage compute {
  vta.dma_copy %acc[0] -> %y[0] y 1 x 4 stride 4 : memref<4x1x16xi32, #vta.sram<acc>> -> memref<4x1x16xi8>
}

// -----

func.func @host_arity(%x: memref<4x16xi8>) {
  // expected-error @+1 {{vta.host has 1 operand(s) but its body takes 0 argument(s): one per operand, inputs then outputs}}
  vta.host "h" ins(%x : memref<4x16xi8>) {
  ^bb0:
  }
  return
}

// -----

func.func @host_types(%x: memref<4x16xi8>) {
  // expected-error @+1 {{argument 0 of the vta.host body has type memref<4x16xi32>, its operand memref<4x16xi8>: before vta-pack they are the same}}
  vta.host "h" ins(%x : memref<4x16xi8>) {
  ^bb0(%a: memref<4x16xi32>):
  }
  return
}

// -----

func.func @host_commands(%x: memref<4x16xi8>) {
  // expected-error @+1 {{'vta.dep_push' inside vta.host: the body of a host step is host code on its operands, without device commands or returns}}
  vta.host "h" outs(%x : memref<4x16xi8>) {
  ^bb0(%a: memref<4x16xi8>):
    vta.dep_push load -> compute
  }
  return
}
