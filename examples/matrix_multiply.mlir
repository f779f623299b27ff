// Matrix multiply (TVM's matrix_multiply tutorial): 1×256 activations times 256×256 weights
// stored N×K (output channel major, VTA's own orientation): C = int8(A · Bᵀ).
// Lower with: vta-opt examples/matrix_multiply.mlir -p vta-pack

func.func @matrix_multiply(%a: memref<1x256xi8>, %b: memref<256x256xi8>, %c: memref<1x256xi8>) {
  %acc = memref.alloc() : memref<1x256xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x256xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<1x256xi8>, memref<256x256xi8>) outs(%acc : memref<1x256xi32>) {
  ^bb0(%x: i8, %w: i8, %sum: i32):
    %xe = arith.extsi %x : i8 to i32
    %we = arith.extsi %w : i8 to i32
    %p = arith.muli %xe, %we : i32
    %s = arith.addi %sum, %p : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<1x256xi32>) outs(%c : memref<1x256xi8>) {
  ^bb0(%v: i32, %out: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<1x256xi32>
  return
}
