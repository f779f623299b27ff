// TVM's test_vta_insn.py test_gemm (docs/performance.md §4.3) at the input level: 4 rows of 16 int8
// inputs times 64 output channels stored N×K (linalg.matmul with upstream indexing_maps),
// y = int8(clip(acc >> 8, 0, 127)) through ALU SHR 8, MAX 0, MIN 127.
// Lower with: vta-opt examples/insn_gemm.mlir -p vta-pack

func.func @insn_gemm(%x: memref<4x16xi8>, %w: memref<64x16xi8>, %y: memref<4x64xi8>) {
  %acc = memref.alloc() : memref<4x64xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x64xi32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : memref<4x16xi8>, memref<64x16xi8>) outs(%acc : memref<4x64xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x64xi32>) outs(%y : memref<4x64xi8>) {
  ^bb0(%a: i32, %out: i8):
    %c8 = arith.constant 8 : i32
    %c127 = arith.constant 127 : i32
    %s = arith.shrsi %a, %c8 : i32
    %p = arith.maxsi %s, %c0 : i32
    %q = arith.minsi %p, %c127 : i32
    %t = arith.trunci %q : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<4x64xi32>
  return
}
