// vta-pack refuses a computed right operand of a matrix product it cannot store in the weight
// layout, with one error at the op (passes/pack/match_matmul_operands.py).

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack

#id = affine_map<(i, j) -> (i, j)>
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>

// 24 columns are not whole blocks of 16: the padding of %k would hold computed values, which
// the product would add to its sums.

func.func @partial_blocks(%x: memref<32x16xi8>, %wk: memref<16x24xi8>, %q: memref<32x24xi8>, %p: memref<32x32xi8>) {
  %c0 = arith.constant 0 : i32
  %k = memref.alloc() : memref<32x24xi8>
  %acc1 = memref.alloc() : memref<32x24xi32>
  linalg.fill ins(%c0 : i32) outs(%acc1 : memref<32x24xi32>)
  linalg.matmul ins(%x, %wk : memref<32x16xi8>, memref<16x24xi8>) outs(%acc1 : memref<32x24xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc1 : memref<32x24xi32>) outs(%k : memref<32x24xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %acc2 = memref.alloc() : memref<32x32xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<32x32xi32>)
  // expected-error@+1 {{reads %k (memref<32x24xi8>), which an earlier layer computes, as its weights: its rows must be whole blocks of BLOCK_OUT (16) and its columns whole blocks of BLOCK_IN (16), since the padding of a computed operand holds computed values, not zeros}}
  linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%q, %k : memref<32x24xi8>, memref<32x24xi8>) outs(%acc2 : memref<32x32xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<32x32xi32>) outs(%p : memref<32x32xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>

// %k is stored in the weight layout for q · kᵀ, and also read as the activations of another
// product, which need the accumulator's layout: the device holds one layout.

func.func @two_layouts(%x: memref<32x16xi8>, %wk: memref<16x16xi8>, %w2: memref<16x16xi8>, %p: memref<32x32xi8>, %z: memref<32x16xi8>) {
  %c0 = arith.constant 0 : i32
  %k = memref.alloc() : memref<32x16xi8>
  %acc1 = memref.alloc() : memref<32x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc1 : memref<32x16xi32>)
  linalg.matmul ins(%x, %wk : memref<32x16xi8>, memref<16x16xi8>) outs(%acc1 : memref<32x16xi32>)
  // expected-note@+1 {{first used here}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc1 : memref<32x16xi32>) outs(%k : memref<32x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %acc2 = memref.alloc() : memref<32x32xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<32x32xi32>)
  linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %k : memref<32x16xi8>, memref<32x16xi8>) outs(%acc2 : memref<32x32xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<32x32xi32>) outs(%p : memref<32x32xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %acc3 = memref.alloc() : memref<32x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc3 : memref<32x16xi32>)
  // expected-error@+1 {{uses %k as the activations of a contraction, which is packed differently from the weights of a contraction: %k is an intermediate buffer}}
  linalg.matmul ins(%k, %w2 : memref<32x16xi8>, memref<16x16xi8>) outs(%acc3 : memref<32x16xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc3 : memref<32x16xi32>) outs(%z : memref<32x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// %v is an argument a layer writes, read as K×N weights by a later product: a store cannot
// transpose, and only a buffer the function allocates gets a transposing layer.

func.func @written_argument(%x: memref<32x16xi8>, %wv: memref<16x16xi8>, %v: memref<32x16xi8>, %p: memref<16x32xi8>, %y: memref<16x16xi8>) {
  %c0 = arith.constant 0 : i32
  %acc1 = memref.alloc() : memref<32x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc1 : memref<32x16xi32>)
  linalg.matmul ins(%x, %wv : memref<32x16xi8>, memref<16x16xi8>) outs(%acc1 : memref<32x16xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc1 : memref<32x16xi32>) outs(%v : memref<32x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %acc2 = memref.alloc() : memref<16x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<16x16xi32>)
  // expected-error@+1 {{reads %v, which an earlier layer computes, as K×N weights: a layer cannot store its output vectors transposed into weight tiles, and vta-pack transposes on the device only an int8 matrix the function allocates}}
  linalg.matmul ins(%p, %v : memref<16x32xi8>, memref<32x16xi8>) outs(%acc2 : memref<16x16xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<16x16xi32>) outs(%y : memref<16x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  return
}
