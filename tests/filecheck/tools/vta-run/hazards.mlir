// vta-run --check-hazards reports every pair of instructions of different modules that access
// common SRAM elements, at least one writing them, with no dependency token ordering them: one
// `hazard:` line per pair and a count line, exit status 1 when there is any.  @racy stores the
// accumulator with no token from the compute module; @synced is the same program with it.

// RUN: not vta-run %s --function racy --random-inputs --check-hazards 2>&1 | filecheck %s --check-prefix=RACY
// RUN: vta-run %s --function synced --random-inputs --check-hazards 2>&1 | filecheck %s --check-prefix=SYNCED
// RUN: vta-run %s --function synced --random-inputs --check-hazards --stats - 2>&1 >/dev/null | filecheck %s --check-prefix=SYNCED

// RACY:      hazard: ACC elements [0, 4) written by instruction 0 (compute LOAD.ACC) and read by instruction 4 (store STORE.OUT) with no dependency token ordering them
// RACY-NEXT: hazard: ACC elements [0, 4) written by instruction 3 (compute ALU.ADD) and read by instruction 4 (store STORE.OUT) with no dependency token ordering them
// RACY-NEXT: hazards: 2 found
// RACY-NOT:  {{.}}
// SYNCED:     hazards: 0 found
// SYNCED-NOT: hazard:

func.func @racy(%A: memref<1x4x1x16xi32>, %B: memref<1x4x1x16xi32>, %C: memref<1x4x1x16xi8>) {
  %a = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  %b = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  vta.stage compute {
    vta.dma_copy %A[0] -> %a[0] y 1 x 4 stride 4
        : memref<1x4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
    vta.dma_copy %B[0] -> %b[0] y 1 x 4 stride 4
        : memref<1x4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
    vta.uop_loop 4 dst 1 src 1 {
      vta.alu add %a[0], %b[0]
          : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi32, #vta.sram<acc>>
    }
  }
  vta.stage store {
    vta.dma_copy %a[0] -> %C[0] y 1 x 4 stride 4
        : memref<4x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
  }
  func.return
}

func.func @synced(%A: memref<1x4x1x16xi32>, %B: memref<1x4x1x16xi32>, %C: memref<1x4x1x16xi8>) {
  %a = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  %b = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
  vta.stage compute {
    vta.dma_copy %A[0] -> %a[0] y 1 x 4 stride 4
        : memref<1x4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
    vta.dma_copy %B[0] -> %b[0] y 1 x 4 stride 4
        : memref<1x4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
    vta.uop_loop 4 dst 1 src 1 {
      vta.alu add %a[0], %b[0]
          : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi32, #vta.sram<acc>>
    }
    vta.dep_push compute -> store
  }
  vta.stage store {
    vta.dep_pop compute -> store
    vta.dma_copy %a[0] -> %C[0] y 1 x 4 stride 4
        : memref<4x1x16xi32, #vta.sram<acc>> -> memref<1x4x1x16xi8>
  }
  func.return
}
