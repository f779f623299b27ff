// TVM's `vta_get_started.py` tutorial (docs/isa.md §5.7) as a `vta`-level host program, on the
// default configuration (BATCH 1, BLOCK 16): C = int8(A + B) for two 1024-element int32 vectors
// in the packed layout (1, 64, 1, 16), computed in the accumulator.
//
// Both operands are loaded into the accumulator SRAM (A at element 0, B at element 64, where
// TVM's storage rewrite placed them), one ALU micro-kernel of 64 iterations adds B to A in
// place, and the store module writes A back truncated to int8 once the compute module hands it
// a token.
//
//   vta-opt examples/vta/vector_add.mlir -p 'vta-lower-to-isa{base=4096}'
//
// lowers it to the 8 instructions of TVM's stream (tests/data/conformance/tvm_vta_get_started.npz)
// with A, B, C and the micro-op staging buffer on the pages TVM used.

func.func @vector_add(%A: memref<1x64x1x16xi32>, %B: memref<1x64x1x16xi32>,
                      %C: memref<1x64x1x16xi8>) {
  %a = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
  %b = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
  vta.stage compute {
    vta.dma_copy %A[0] -> %a[0] y 1 x 64 stride 64
        : memref<1x64x1x16xi32> -> memref<64x1x16xi32, #vta.sram<acc>>
    vta.dma_copy %B[0] -> %b[0] y 1 x 64 stride 64
        : memref<1x64x1x16xi32> -> memref<64x1x16xi32, #vta.sram<acc>>
    vta.uop_loop 64 dst 1 src 1 {
      vta.alu add %a[0], %b[0]
          : memref<64x1x16xi32, #vta.sram<acc>>, memref<64x1x16xi32, #vta.sram<acc>>
    }
    vta.dep_push compute -> store
  }
  vta.stage store {
    vta.dep_pop compute -> store
    vta.dma_copy %a[0] -> %C[0] y 1 x 64 stride 64
        : memref<64x1x16xi32, #vta.sram<acc>> -> memref<1x64x1x16xi8>
  }
  func.return
}
