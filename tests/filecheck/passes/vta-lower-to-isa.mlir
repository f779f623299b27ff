// vta-lower-to-isa runs the host program against the command builder and replaces the module
// body with the linked vtaisa.program (keeping vta.config). Chunk 1 shows the result on a small
// GEMM + ReLU program: arguments, then constants, then the micro-op staging segment get pages
// from the default base; SRAM buffers are placed from element 0 of their SRAM; the GEMM kernel
// depends on the host loop variable %o, so each value of %o gets its own kernel (loaded once).
// The other chunks are the errors, each at the op concerned.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-lower-to-isa | filecheck %s
// RUN: vta-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(vta-lower-to-isa)' | filecheck %s

// The pass options: `config` must agree with the module's configuration (like --config),
// `function` names the function to lower.
// RUN: not vta-opt %S/../../../examples/vta/matrix_multiply.mlir -p 'vta-lower-to-isa{config=block32}' 2>&1 | filecheck %s --check-prefix=CLASH
// RUN: not vta-opt %S/../../../examples/vta/matrix_multiply.mlir --config block32 -p vta-lower-to-isa 2>&1 | filecheck %s --check-prefix=CLASH
// RUN: not vta-opt %S/../../../examples/vta/vector_add.mlir -p 'vta-lower-to-isa{function=main}' 2>&1 | filecheck %s --check-prefix=NOFUNC
// CLASH:  matrix_multiply.mlir:{{[0-9]+}}:1: error: {{.*}}was built for configuration sim_1x16_i8w8a32_15_15_18_17{{.*}} but configuration sim_1x32_i8w8a32_15_16_19_18{{.*}} was given
// NOFUNC: vector_add.mlir:1:1: error: 'builtin.module' op has no function @main to lower (functions: @vector_add)

// CHECK:      builtin.module attributes {vta.config = #vta.config<target = "sim", {{.*}}log_block = 4{{.*}}>} {
// CHECK-NEXT:   vtaisa.program base 0x1000000 {
// CHECK-NEXT:     vtaisa.segment "x" phys 0x1000000 size 32
// CHECK-NEXT:     vtaisa.segment "w" phys 0x1001000 size 1024
// CHECK-NEXT:     vtaisa.segment "y" phys 0x1002000 size 32
// CHECK-NEXT:     vtaisa.segment "const0" phys 0x1003000 size 128 data "0x{{(05000000)+}}"
// CHECK-NEXT:     vtaisa.segment "uops" phys 0x1004000 size 12
// CHECK-NEXT:     vtaisa.arg "x" in int8 [1, 2, 1, 16] padded [1, 2, 1, 16] split [1, 2, 1, 16] perm [0, 1, 2, 3] packed int8 segment "x" phys 0x1000000
// CHECK-NEXT:     vtaisa.arg "w" in int8 [2, 2, 16, 16] padded [2, 2, 16, 16] split [2, 2, 16, 16] perm [0, 1, 2, 3] packed int8 segment "w" phys 0x1001000
// CHECK-NEXT:     vtaisa.arg "y" out int8 [1, 2, 1, 16] padded [1, 2, 1, 16] split [1, 2, 1, 16] perm [0, 1, 2, 3] packed int8 segment "y" phys 0x1002000
// CHECK-NEXT:     vtaisa.run uop_base 0x1004000 {
// CHECK-NEXT:       vtaisa.uops [(0, 0, 0), (1, 0, 2), (0, 0, 0)]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x100000 y 1 x 2 stride 2
// CHECK-NEXT:       vtaisa.load wgt sram 0 dram 0x10010 y 1 x 4 stride 4 deps [push_next]
// CHECK-NEXT:       vtaisa.load acc sram 0 dram 0x400c0 y 1 x 2 stride 2 deps [pop_prev]
// CHECK-NEXT:       vtaisa.load uop sram 0 dram 0x401000 y 1 x 1 stride 1
// CHECK-NEXT:       vtaisa.gemm uop 0 to 1 iter [2, 1] dst [0, 0] src [1, 0] wgt [1, 0]
// CHECK-NEXT:       vtaisa.load uop sram 1 dram 0x401001 y 1 x 1 stride 1
// CHECK-NEXT:       vtaisa.gemm uop 1 to 2 iter [2, 1] dst [0, 0] src [1, 0] wgt [1, 0]
// CHECK-NEXT:       vtaisa.load uop sram 2 dram 0x401002 y 1 x 1 stride 1
// CHECK-NEXT:       vtaisa.alu max uop 2 to 3 iter [1, 2] dst [0, 1] src [0, 1] imm 0 deps [push_next]
// CHECK-NEXT:       vtaisa.store out sram 0 dram 0x100200 y 1 x 2 stride 2 deps [pop_prev, push_prev]
// CHECK-NEXT:       vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_next]
// CHECK-NEXT:       vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_prev, pop_next]
// CHECK-NEXT:       vtaisa.finish
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
builtin.module {
  memref.global "private" constant @bias : memref<1x2x1x16xi32> = dense<5>
  func.func @gemm_relu(%x: memref<1x2x1x16xi8>, %w: memref<2x2x16x16xi8>,
                       %y: memref<1x2x1x16xi8>) {
    %b = memref.get_global @bias : memref<1x2x1x16xi32>
    %inp = memref.alloc() : memref<2x1x16xi8, #vta.sram<inp>>
    %wgt = memref.alloc() : memref<4x16x16xi8, #vta.sram<wgt>>
    %acc = memref.alloc() : memref<2x1x16xi32, #vta.sram<acc>>
    vta.stage load {
      vta.dma_copy %x[0] -> %inp[0] y 1 x 2 stride 2
          : memref<1x2x1x16xi8> -> memref<2x1x16xi8, #vta.sram<inp>>
      vta.dma_copy %w[0] -> %wgt[0] y 1 x 4 stride 4
          : memref<2x2x16x16xi8> -> memref<4x16x16xi8, #vta.sram<wgt>>
      vta.dep_push load -> compute
    }
    vta.stage compute {
      vta.dep_pop load -> compute
      vta.dma_copy %b[0] -> %acc[0] y 1 x 2 stride 2
          : memref<1x2x1x16xi32> -> memref<2x1x16xi32, #vta.sram<acc>>
      affine.for %o = 0 to 2 {
        %wo = affine.apply affine_map<(d0) -> (d0 * 2)>(%o)
        vta.uop_loop 2 src 1 wgt 1 {
          vta.gemm %acc[%o] += %inp[0] * %wgt[%wo]
              : memref<2x1x16xi32, #vta.sram<acc>>, memref<2x1x16xi8, #vta.sram<inp>>,
                memref<4x16x16xi8, #vta.sram<wgt>>
        }
      }
      vta.uop_loop 2 dst 1 src 1 {
        vta.alu max %acc[0], 0 : memref<2x1x16xi32, #vta.sram<acc>>
      }
      vta.dep_push compute -> store
    }
    vta.stage store {
      vta.dep_pop compute -> store
      vta.dma_copy %acc[0] -> %y[0] y 1 x 2 stride 2
          : memref<2x1x16xi32, #vta.sram<acc>> -> memref<1x2x1x16xi8>
    }
    func.return
  }
}

// -----

func.func @unsupported(%x: memref<1x2x1x16xi8>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' op is not supported in a host program; vta-lower-to-isa handles host loops (affine.for, scf.for), index arithmetic}}
  %v = memref.load %x[%c0, %c0, %c0, %c0] : memref<1x2x1x16xi8>
  func.return
}

// -----

func.func @sram_overflow() {
  %a = memref.alloc() : memref<2000x1x16xi8, #vta.sram<inp>>
  // expected-error @+1 {{'memref.alloc' op inp buffer of 100 elements at element 2000 overflows the INP SRAM: 2100 elements requested, depth 2048}}
  %b = memref.alloc() : memref<100x1x16xi8, #vta.sram<inp>>
  func.return
}

// -----

func.func @bound(%n: index, %y: memref<1x4x1x16xi8>) {
  %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  // expected-error @+1 {{'affine.for' op has a loop bound that depends on %n, a function argument of type index whose value is not known when the program is lowered}}
  affine.for %i = 0 to %n {
    vta.dma_copy %acc[0] -> %y[%i] y 1 x 1 stride 1
        : memref<4x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
  }
  func.return
}

// -----

// expected-error @+1 {{'func.func' op argument 0 (%n) has type index; a host program's arguments are DRAM memrefs}}
func.func @scalar(%n: index) {
  func.return
}

// -----

// expected-error @+1 {{'builtin.module' op has 2 functions (@f, @g); name the one to lower (function=...)}}
builtin.module {
  func.func @f() {
    func.return
  }
  func.func @g() {
    func.return
  }
}

// -----

// A position that varies is checked when the host program runs.
func.func @dram_range(%y: memref<1x4x1x16xi8>) {
  %acc = memref.alloc() : memref<2x1x16xi32, #vta.sram<acc>>
  affine.for %i = 0 to 4 {
    // expected-error @+1 {{'vta.dma_copy' op DRAM position 3 of %y is out of range: the copy spans 2 of its 4 elements (positions 0..2)}}
    vta.dma_copy %acc[0] -> %y[%i] y 1 x 2 stride 2
        : memref<2x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
  }
  func.return
}

// -----

func.func @kernel_range() {
  %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  affine.for %i = 0 to 4 {
    // expected-error @+1 {{'vta.uop_loop' op micro-op 0 addresses elements [3, 4] of %acc in acc, which holds 4}}
    vta.uop_loop 2 dst 1 {
      vta.gemm_reset %acc[%i] : memref<4x1x16xi32, #vta.sram<acc>>
    }
  }
  func.return
}

// -----

// Two micro-ops of one kernel write the same accumulator element once %i reaches 1.
func.func @write_hazard() {
  %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  affine.for %i = 0 to 2 {
    // expected-error @+1 {{'vta.uop_loop' op write hazard: micro-op 1 writes dst 1 like one of the 2 micro-ops before it}}
    vta.uop_loop 2 src 1 {
      vta.alu add %acc[1], %acc[2] : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi32, #vta.sram<acc>>
      vta.alu add %acc[%i], %acc[2] : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi32, #vta.sram<acc>>
    }
  }
  func.return
}

// -----

func.func @division(%y: memref<1x4x1x16xi8>) {
  %acc = memref.alloc() : memref<1x1x16xi32, #vta.sram<acc>>
  %c4 = arith.constant 4 : index
  affine.for %i = 0 to 2 {
    %d = arith.subi %c4, %i : index
    %z = arith.subi %d, %d : index
    // expected-error @+1 {{'arith.divsi' op division by zero}}
    %q = arith.divsi %c4, %z : index
    vta.dma_copy %acc[0] -> %y[%q] y 1 x 1 stride 1
        : memref<1x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
  }
  func.return
}

// -----

builtin.module {
  memref.global "private" constant @table : memref<1x1x1x16xi8> = dense<1>
  func.func @store_constant() {
    %t = memref.get_global @table : memref<1x1x1x16xi8>
    %acc = memref.alloc() : memref<1x1x16xi32, #vta.sram<acc>>
    // expected-error @+1 {{'vta.dma_copy' op stores into @table, a constant}}
    vta.dma_copy %acc[0] -> %t[0] y 1 x 1 stride 1
        : memref<1x1x16xi32, #vta.sram<acc>> -> memref<1x1x1x16xi8>
    func.return
  }
}

// -----

func.func @uop_buffer() {
  // expected-error @+1 {{'memref.alloc' op micro-op SRAM is managed by the command builder's micro-op cache}}
  %u = memref.alloc() : memref<16xi32, #vta.sram<uop>>
  func.return
}

// -----

// expected-error @+1 {{'func.func' op argument 0 (%x): vta.arg packs 2048 bytes but the argument (memref<1x2x1x16xi8>) holds 32}}
func.func @packing(%x: memref<1x2x1x16xi8> {vta.arg = {shape = [1, 2048], dtype = "int8"}}) {
  func.return
}

// -----

// expected-error @+1 {{'func.func' op argument 0 (%x): unknown vta.arg key(s) layout (expected shape, dtype, repeat, window, padded_shape, split_shape, perm, copy_of)}}
func.func @packing_key(%x: memref<1x2x1x16xi8> {vta.arg = {shape = [1, 32], layout = "NC"}}) {
  func.return
}

// -----

// A copy (a second packed image of an argument read in two layouts) names an earlier
// argument that is no copy itself.
// expected-error @+1 {{'func.func' op argument 1 (%xc): vta.arg copy_of must be the index of an earlier memref argument that is no copy, got 1 : i64}}
func.func @copy_of_itself(%x: memref<1x2x1x16xi8>, %xc: memref<1x2x1x16xi8> {vta.arg = {shape = [1, 32], copy_of = 1 : i64}}) {
  func.return
}

// -----

func.func @carried() {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'affine.for' op loop-carried values (iter_args) are not supported on the host}}
  %r = affine.for %i = 0 to 4 iter_args(%s = %c0) -> (index) {
    %n = arith.addi %s, %i : index
    affine.yield %n : index
  }
  func.return
}
