// TVM's `matrix_multiply.py` tutorial (docs/isa.md §5.4 (b), §5.7) as a `vta`-level host program,
// on the default configuration (BATCH 1, BLOCK 16): C = int8(A · Bᵀ) for A 1×256 and B 256×256
// (output channels × input channels), no clipping.
//
// The arguments are the packed DRAM tensors of docs/isa.md §1.6 — A (1, 16, 1, 16),
// B (16, 16, 16, 16), C (1, 16, 1, 16) — and each carries a `vta.arg` attribute with its
// logical shape and packing, so a caller passes and receives the logical arrays.
//
// The reset kernel clears the 16 accumulator elements; for each of the 16 input-channel blocks
// `ko` the load module brings one input element and the 16 weight elements of column `ko`, and
// one GEMM of 16 iterations accumulates them; the store module then writes the accumulator out
// truncated to int8.  The tokens are those TVM's CoProcSync inserted: compute -> load primed by
// the reset and drained after the loop, load -> compute per tile, compute -> store for the
// result.
//
//   vta-opt examples/vta/matrix_multiply.mlir -p 'vta-lower-to-isa{base=4096}'
//
// lowers it to the 56 instructions of TVM's stream (tests/data/conformance/tvm_matrix_multiply.npz)
// with A, B, C and the micro-op staging buffer on the pages TVM used.

builtin.module attributes {vta.config = #vta.config<target = "sim", hw_ver = "0.0.2",
    log_inp_width = 3, log_wgt_width = 3, log_acc_width = 5, log_batch = 0, log_block = 4,
    log_uop_buff_size = 15, log_inp_buff_size = 15, log_wgt_buff_size = 18,
    log_acc_buff_size = 17>} {
  func.func @matrix_multiply(
      %A: memref<1x16x1x16xi8> {vta.arg = {shape = [1, 256], dtype = "int8",
                                          split_shape = [1, 1, 16, 16], perm = [0, 2, 1, 3]}},
      %B: memref<16x16x16x16xi8> {vta.arg = {shape = [256, 256], dtype = "int8",
                                            split_shape = [16, 16, 16, 16], perm = [0, 2, 1, 3]}},
      %C: memref<1x16x1x16xi8> {vta.arg = {shape = [1, 256], dtype = "int8",
                                          split_shape = [1, 1, 16, 16], perm = [0, 2, 1, 3]}}) {
    %inp = memref.alloc() : memref<1x1x16xi8, #vta.sram<inp>>
    %wgt = memref.alloc() : memref<16x16x16xi8, #vta.sram<wgt>>
    %acc = memref.alloc() : memref<16x1x16xi32, #vta.sram<acc>>
    vta.stage compute {
      vta.uop_loop 16 dst 1 {
        vta.gemm_reset %acc[0] : memref<16x1x16xi32, #vta.sram<acc>>
      }
      vta.dep_push compute -> load
    }
    affine.for %ko = 0 to 16 {
      vta.stage load {
        vta.dep_pop compute -> load
        vta.dma_copy %A[%ko] -> %inp[0] y 1 x 1 stride 1
            : memref<1x16x1x16xi8> -> memref<1x1x16xi8, #vta.sram<inp>>
        vta.dma_copy %B[%ko] -> %wgt[0] y 16 x 1 stride 16
            : memref<16x16x16x16xi8> -> memref<16x16x16xi8, #vta.sram<wgt>>
        vta.dep_push load -> compute
      }
      vta.stage compute {
        vta.dep_pop load -> compute
        vta.uop_loop 16 dst 1 wgt 1 {
          vta.gemm %acc[0] += %inp[0] * %wgt[0]
              : memref<16x1x16xi32, #vta.sram<acc>>, memref<1x1x16xi8, #vta.sram<inp>>,
                memref<16x16x16xi8, #vta.sram<wgt>>
        }
        vta.dep_push compute -> load
      }
    }
    vta.dep_push compute -> store
    vta.dep_pop compute -> load
    vta.stage store {
      vta.dep_pop compute -> store
      vta.dma_copy %acc[0] -> %C[0] y 1 x 16 stride 16
          : memref<16x1x16xi32, #vta.sram<acc>> -> memref<1x16x1x16xi8>
    }
    func.return
  }
}
