// vta-pack on matrix products whose right operand a layer of the function computes
// (passes/pack/match_matmul_operands.py, passes/pack/transpose_operand.py), default
// configuration (BATCH 1, BLOCK 16). A product reading a computed buffer %k as N×K weights
// (Q·Kᵀ) makes the layer writing %k store it in the weight layout, (S/16, D/16, 16, 16),
// through the map (r, c, b, o) -> (r floordiv 16, c, r mod 16 + b, o); the product reads that
// buffer as any weights. A linalg.transpose into a buffer only products read folds into their
// maps. A product reading a computed buffer %v as K×N weights (P·V) reads its transpose
// instead, computed by one more layer: a product with a constant identity.

// RUN: vta-opt %s --split-input-file -p vta-pack | filecheck %s
// RUN: vta-opt %s --split-input-file -p vta-pack,vta-pack | filecheck %s

#id = affine_map<(i, j) -> (i, j)>
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @scores(
// CHECK-SAME:      %[[X:[a-z0-9_]+]]: memref<32x1x1x16xi8>
// CHECK:         %[[Q:.*]] = memref.alloc() : memref<32x1x1x16xi8>
// CHECK-NEXT:    %[[K:.*]] = memref.alloc() : memref<2x1x16x16xi8>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], {{.*}} outs(%[[Q]] : memref<32x1x1x16xi8>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 16), d1, ((d0 mod 16) + d2), d3)>], {{.*}} ins(%{{.*}} : memref<32x1x1x16xi32>) outs(%[[K]] : memref<2x1x16x16xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[Q]], %[[K]] : memref<32x1x1x16xi8>, memref<2x1x16x16xi8>) outs(%{{.*}} : memref<32x2x1x16xi32>)

func.func @scores(%x: memref<32x16xi8>, %wq: memref<16x16xi8>, %wk: memref<16x16xi8>, %p: memref<32x32xi8>) {
  %c0 = arith.constant 0 : i32
  %q = memref.alloc() : memref<32x16xi8>
  %k = memref.alloc() : memref<32x16xi8>
  %acc0 = memref.alloc() : memref<32x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc0 : memref<32x16xi32>)
  linalg.matmul ins(%x, %wq : memref<32x16xi8>, memref<16x16xi8>) outs(%acc0 : memref<32x16xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc0 : memref<32x16xi32>) outs(%q : memref<32x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %acc1 = memref.alloc() : memref<32x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc1 : memref<32x16xi32>)
  linalg.matmul ins(%x, %wk : memref<32x16xi8>, memref<16x16xi8>) outs(%acc1 : memref<32x16xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc1 : memref<32x16xi32>) outs(%k : memref<32x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %acc2 = memref.alloc() : memref<32x32xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<32x32xi32>)
  linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%q, %k : memref<32x16xi8>, memref<32x16xi8>) outs(%acc2 : memref<32x32xi32>)
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

// The transpose of %k into %kt folds into the product's map: %kt is gone, and %k is stored in
// the weight layout.

// CHECK-LABEL: func.func @transposed(
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[K:.*]] = memref.alloc() : memref<2x1x16x16xi8>
// CHECK-NOT:     memref.alloc() : memref<{{.*}}xi8>
// CHECK:         outs(%[[K]] : memref<2x1x16x16xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[X:[a-z0-9_]+]], %[[K]] : memref<32x1x1x16xi8>, memref<2x1x16x16xi8>)

func.func @transposed(%x: memref<32x16xi8>, %wk: memref<16x16xi8>, %p: memref<32x32xi8>) {
  %c0 = arith.constant 0 : i32
  %k = memref.alloc() : memref<32x16xi8>
  %kt = memref.alloc() : memref<16x32xi8>
  %acc1 = memref.alloc() : memref<32x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc1 : memref<32x16xi32>)
  linalg.matmul ins(%x, %wk : memref<32x16xi8>, memref<16x16xi8>) outs(%acc1 : memref<32x16xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc1 : memref<32x16xi32>) outs(%k : memref<32x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  linalg.transpose ins(%k : memref<32x16xi8>) outs(%kt : memref<16x32xi8>) permutation = [1, 0]
  %acc2 = memref.alloc() : memref<32x32xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<32x32xi32>)
  linalg.matmul ins(%x, %kt : memref<32x16xi8>, memref<16x32xi8>) outs(%acc2 : memref<32x32xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<32x32xi32>) outs(%p : memref<32x32xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %kt : memref<16x32xi8>
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>

// P·V: %v (32×16) is read as K×N weights. One more layer computes vᵀ (16×32) = I · vᵀ, reading
// %v as N×K weights (so %v's layer stores it in the weight layout, (2, 1, 16, 16)), and stores
// it in the weight layout of P·V, (1, 2, 16, 16). The identity is a packed constant.

// CHECK:       memref.global "private" constant @identity_16_packed : memref<16x1x1x16xi8> = dense<"0x0100
// CHECK-LABEL: func.func @values(
// CHECK-SAME:      %[[P:[a-z0-9_]+]]: memref<32x2x1x16xi8>
// CHECK:         %[[V:.*]] = memref.alloc() : memref<2x1x16x16xi8>
// CHECK-NEXT:    %[[VT:.*]] = memref.alloc() : memref<1x2x16x16xi8>
// CHECK-NEXT:    %[[EYE:.*]] = memref.get_global @identity_16_packed : memref<16x1x1x16xi8>
// CHECK:         outs(%[[V]] : memref<2x1x16x16xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[EYE]], %[[V]] : memref<16x1x1x16xi8>, memref<2x1x16x16xi8>) outs(%[[TACC:.*]] : memref<16x2x1x16xi32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 16), d1, ((d0 mod 16) + d2), d3)>], {{.*}} ins(%[[TACC]] : memref<16x2x1x16xi32>) outs(%[[VT]] : memref<1x2x16x16xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %[[VT]] : memref<32x2x1x16xi8>, memref<1x2x16x16xi8>)

func.func @values(%p: memref<32x32xi8>, %x: memref<32x16xi8>, %wv: memref<16x16xi8>, %y: memref<32x16xi8>) {
  %c0 = arith.constant 0 : i32
  %v = memref.alloc() : memref<32x16xi8>
  %acc1 = memref.alloc() : memref<32x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc1 : memref<32x16xi32>)
  linalg.matmul ins(%x, %wv : memref<32x16xi8>, memref<16x16xi8>) outs(%acc1 : memref<32x16xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc1 : memref<32x16xi32>) outs(%v : memref<32x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %acc2 = memref.alloc() : memref<32x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<32x16xi32>)
  linalg.matmul ins(%p, %v : memref<32x32xi8>, memref<32x16xi8>) outs(%acc2 : memref<32x16xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<32x16xi32>) outs(%y : memref<32x16xi8>) {
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

// Heads as column slices: head h is columns 16·h..16·h + 15 of %q and %k (32×32). Its scores
// %p_h = %q_h · %k_hᵀ read them in place: a view of %q's column block h, and of %k's weight
// tiles at K-block h (%k is stored in the weight layout as a whole); %p_h · %wo writes head h's
// columns of the merged output, built in %y_cat and copied into %y by one more layer (the
// host's layout of an argument is the standard one). Shown for head 1.

// CHECK-LABEL: func.func @heads(
// CHECK:         %[[Q:.*]] = memref.alloc() : memref<32x2x1x16xi8>
// CHECK-NEXT:    %[[K:.*]] = memref.alloc() : memref<2x2x16x16xi8>
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<32x2x1x16xi8>
// CHECK-DAG:     %[[Q1:.*]] = memref.subview %[[Q]][0, 1, 0, 0] [32, 1, 1, 16] [1, 1, 1, 1] : memref<32x2x1x16xi8> to memref<32x1x1x16xi8, strided<[32, 16, 16, 1], offset: 16>>
// CHECK-DAG:     %[[K1:.*]] = memref.subview %[[K]][0, 1, 0, 0] [2, 1, 16, 16] [1, 1, 1, 1] : memref<2x2x16x16xi8> to memref<2x1x16x16xi8, strided<[512, 256, 16, 1], offset: 256>>
// CHECK-DAG:     %[[Y1:.*]] = memref.subview %[[Y]][0, 1, 0, 0] [32, 1, 1, 16] [1, 1, 1, 1] : memref<32x2x1x16xi8> to memref<32x1x1x16xi8, strided<[32, 16, 16, 1], offset: 16>>
// CHECK:         outs(%[[K]] : memref<2x2x16x16xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[Q1]], %[[K1]] : {{.*}}) outs(%{{.*}} : memref<32x2x1x16xi32>)
// CHECK:         outs(%[[Y1]] : memref<32x1x1x16xi8, strided<[32, 16, 16, 1], offset: 16>>)
// CHECK:         linalg.generic {{.*}} ins(%[[Y]] : memref<32x2x1x16xi8>) outs(%{{.*}} : memref<32x2x1x16xi32>)

func.func @heads(%x: memref<32x16xi8>, %wq: memref<16x32xi8>, %wk: memref<16x32xi8>, %wo: memref<32x16xi8>, %y: memref<32x32xi8>) {
  %c0 = arith.constant 0 : i32
  %q = memref.alloc() : memref<32x32xi8>
  %k = memref.alloc() : memref<32x32xi8>
  %acc1 = memref.alloc() : memref<32x32xi32>
  linalg.fill ins(%c0 : i32) outs(%acc1 : memref<32x32xi32>)
  linalg.matmul ins(%x, %wq : memref<32x16xi8>, memref<16x32xi8>) outs(%acc1 : memref<32x32xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc1 : memref<32x32xi32>) outs(%q : memref<32x32xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %acc2 = memref.alloc() : memref<32x32xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<32x32xi32>)
  linalg.matmul ins(%x, %wk : memref<32x16xi8>, memref<16x32xi8>) outs(%acc2 : memref<32x32xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc2 : memref<32x32xi32>) outs(%k : memref<32x32xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %q0 = memref.subview %q[0, 0] [32, 16] [1, 1] : memref<32x32xi8> to memref<32x16xi8, strided<[32, 1]>>
  %k0 = memref.subview %k[0, 0] [32, 16] [1, 1] : memref<32x32xi8> to memref<32x16xi8, strided<[32, 1]>>
  %y0 = memref.subview %y[0, 0] [32, 16] [1, 1] : memref<32x32xi8> to memref<32x16xi8, strided<[32, 1]>>
  %p0 = memref.alloc() : memref<32x32xi8>
  %sacc0 = memref.alloc() : memref<32x32xi32>
  linalg.fill ins(%c0 : i32) outs(%sacc0 : memref<32x32xi32>)
  linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%q0, %k0 : memref<32x16xi8, strided<[32, 1]>>, memref<32x16xi8, strided<[32, 1]>>) outs(%sacc0 : memref<32x32xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sacc0 : memref<32x32xi32>) outs(%p0 : memref<32x32xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %yacc0 = memref.alloc() : memref<32x16xi32>
  linalg.fill ins(%c0 : i32) outs(%yacc0 : memref<32x16xi32>)
  linalg.matmul ins(%p0, %wo : memref<32x32xi8>, memref<32x16xi8>) outs(%yacc0 : memref<32x16xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%yacc0 : memref<32x16xi32>) outs(%y0 : memref<32x16xi8, strided<[32, 1]>>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %q1 = memref.subview %q[0, 16] [32, 16] [1, 1] : memref<32x32xi8> to memref<32x16xi8, strided<[32, 1], offset: 16>>
  %k1 = memref.subview %k[0, 16] [32, 16] [1, 1] : memref<32x32xi8> to memref<32x16xi8, strided<[32, 1], offset: 16>>
  %y1 = memref.subview %y[0, 16] [32, 16] [1, 1] : memref<32x32xi8> to memref<32x16xi8, strided<[32, 1], offset: 16>>
  %p1 = memref.alloc() : memref<32x32xi8>
  %sacc1 = memref.alloc() : memref<32x32xi32>
  linalg.fill ins(%c0 : i32) outs(%sacc1 : memref<32x32xi32>)
  linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%q1, %k1 : memref<32x16xi8, strided<[32, 1], offset: 16>>, memref<32x16xi8, strided<[32, 1], offset: 16>>) outs(%sacc1 : memref<32x32xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sacc1 : memref<32x32xi32>) outs(%p1 : memref<32x32xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  %yacc1 = memref.alloc() : memref<32x16xi32>
  linalg.fill ins(%c0 : i32) outs(%yacc1 : memref<32x16xi32>)
  linalg.matmul ins(%p1, %wo : memref<32x32xi8>, memref<32x16xi8>) outs(%yacc1 : memref<32x16xi32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%yacc1 : memref<32x16xi32>) outs(%y1 : memref<32x16xi8, strided<[32, 1], offset: 16>>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  return
}
