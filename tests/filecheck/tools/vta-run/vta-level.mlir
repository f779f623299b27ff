// vta-level IR runs directly (lowered through the command builder); its exported case replays
// on the conformance tool, and a .vtab made from it by vta-translate gives the same results.

// RUN: python -c "import sys, numpy as np; np.save(sys.argv[1], (np.arange(64, dtype=np.int32) * 1000).reshape(1, 4, 1, 16)); np.save(sys.argv[2], np.full((1, 4, 1, 16), 7, dtype=np.int32))" %t.a.npy %t.b.npy
// RUN: vta-run %s --input %t.a.npy --input %t.b.npy --output %t.c.npy --export-case %t.case.npz --stats %t.stats.json
// RUN: python -c "import sys, numpy as np; c = np.load(sys.argv[1]); print(c.dtype, c.shape, c.reshape(-1)[:6].tolist())" %t.c.npy | filecheck %s --check-prefix=RESULT
// RUN: python -m vta_mlir.sim.conformance %t.case.npz | filecheck %s --check-prefix=CASE
// RUN: filecheck %s --check-prefix=STATS < %t.stats.json
// RUN: vta-translate --emit=bin %s -o %t.vtab
// RUN: vta-run %t.vtab --input %t.a.npy --input %t.b.npy | filecheck %s --check-prefix=SUMMARY
// RUN: vta-run %s --input %t.a.npy --input %t.b.npy | filecheck %s --check-prefix=SUMMARY
// RUN: not vta-run %s --input %t.a.npy --input %t.b.npy --check 2>&1 | filecheck %s --check-prefix=CHECK-FLAG

// int8(1000 i + 7): 7, 1007 = 0x3ef -> -17, 2007 = 0x7d7 -> -41, ...
// RESULT:   int8 (1, 4, 1, 16) [7, -17, -41, -65, -89, -113]
// CASE:     1 passed, 0 failed
// STATS:    "alu_counter": 4
// STATS:    "instructions": 8
// STATS:    "runs": 1
// SUMMARY:  C: 1x4x1x16xint8 [7, -17, -41, -65, -89, -113, 119, 95, ...]
// CHECK-FLAG: vta-run: error: --check: nothing to check against: vta-level IR has no reference semantics

func.func @add(%A: memref<1x4x1x16xi32>, %B: memref<1x4x1x16xi32>, %C: memref<1x4x1x16xi8>) {
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
