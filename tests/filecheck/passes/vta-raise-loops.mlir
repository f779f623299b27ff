// vta-raise-loops: each recognised form of loop nest and the structured op it becomes (the
// input forms of docs/pipeline.md), in the affine form (affine.for, affine.load/store through
// maps) and the scf form (scf.for, memref.load/store on index arithmetic).

// RUN: vta-opt %s --split-input-file -p vta-raise-loops | filecheck %s
// RUN: vta-opt %s --split-input-file -p vta-raise-loops,vta-raise-loops | filecheck %s

// A store of a constant over the whole buffer: a fill; the bounds' constants go with the loops.
// CHECK-LABEL: func.func @fill
// CHECK-NEXT:    %z = arith.constant 0 : i32
// CHECK-NEXT:    linalg.fill ins(%z : i32) outs(%acc : memref<4x32xi32>)
// CHECK-NEXT:    func.return
func.func @fill(%acc: memref<4x32xi32>) {
  %z = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c32 step %c1 {
      memref.store %z, %acc[%i, %j] : memref<4x32xi32>
    }
  }
  return
}

// -----

// Element-wise, with a broadcast operand: the same body ops, maps from the accesses, the
// dimensions in the order of the stored buffer's indices.
// CHECK-LABEL: func.func @elementwise
// CHECK-NEXT:    %c6 = arith.constant 6 : i32
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %bias : memref<8x48xi32>, memref<48xi32>) outs(%y : memref<8x48xi8>) {
// CHECK-NEXT:    ^bb0(%0: i32, %1: i32, %2: i8):
// CHECK-NEXT:      %s = arith.addi %0, %1 : i32
// CHECK-NEXT:      %r = arith.shrsi %s, %c6 : i32
// CHECK-NEXT:      %t = arith.trunci %r : i32 to i8
// CHECK-NEXT:      linalg.yield %t : i8
func.func @elementwise(%acc: memref<8x48xi32>, %bias: memref<48xi32>, %y: memref<8x48xi8>) {
  %c6 = arith.constant 6 : i32
  affine.for %m = 0 to 8 {
    affine.for %n = 0 to 48 {
      %v = affine.load %acc[%m, %n] : memref<8x48xi32>
      %b = affine.load %bias[%n] : memref<48xi32>
      %s = arith.addi %v, %b : i32
      %r = arith.shrsi %s, %c6 : i32
      %t = arith.trunci %r : i32 to i8
      affine.store %t, %y[%m, %n] : memref<8x48xi8>
    }
  }
  return
}

// -----

// A contraction in the order (k, n, m), the accumulator initialised before the nest: the
// parallel dimensions in the accumulator's order, then the reduction.
// CHECK-LABEL: func.func @matmul_knm
// CHECK:         linalg.fill ins(%z : i32) outs(%acc : memref<4x32xi32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<4x64xi8>, memref<64x32xi8>) outs(%acc : memref<4x32xi32>) {
// CHECK-NEXT:    ^bb0(%{{.*}}: i8, %{{.*}}: i8, %[[SUM:.*]]: i32):
// CHECK:           %s = arith.addi %[[SUM]], %p : i32
func.func @matmul_knm(%x: memref<4x64xi8>, %w: memref<64x32xi8>, %acc: memref<4x32xi32>) {
  %z = arith.constant 0 : i32
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 32 {
      affine.store %z, %acc[%i, %j] : memref<4x32xi32>
    }
  }
  affine.for %k = 0 to 64 {
    affine.for %n = 0 to 32 {
      affine.for %m = 0 to 4 {
        %a = affine.load %x[%m, %k] : memref<4x64xi8>
        %b = affine.load %w[%k, %n] : memref<64x32xi8>
        %c = affine.load %acc[%m, %n] : memref<4x32xi32>
        %ae = arith.extsi %a : i8 to i32
        %be = arith.extsi %b : i8 to i32
        %p = arith.muli %ae, %be : i32
        %s = arith.addi %c, %p : i32
        affine.store %s, %acc[%m, %n] : memref<4x32xi32>
      }
    }
  }
  return
}

// -----

// The accumulator initialised inside the nest, by a store of 0 at the start of the reduction
// loop: a fill of the whole accumulator, then the contraction.
// CHECK-LABEL: func.func @matmul_init_inside
// CHECK-NEXT:    %z = arith.constant 0 : i32
// CHECK-NEXT:    linalg.fill ins(%z : i32) outs(%acc : memref<4x32xi32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-NOT:     scf.for
func.func @matmul_init_inside(%x: memref<4x64xi8>, %w: memref<32x64xi8>, %acc: memref<4x32xi32>) {
  %z = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.for %m = %c0 to %c4 step %c1 {
    scf.for %n = %c0 to %c32 step %c1 {
      memref.store %z, %acc[%m, %n] : memref<4x32xi32>
      scf.for %k = %c0 to %c64 step %c1 {
        %a = memref.load %x[%m, %k] : memref<4x64xi8>
        %b = memref.load %w[%n, %k] : memref<32x64xi8>
        %c = memref.load %acc[%m, %n] : memref<4x32xi32>
        %ae = arith.extsi %a : i8 to i32
        %be = arith.extsi %b : i8 to i32
        %p = arith.muli %ae, %be : i32
        %s = arith.addi %c, %p : i32
        memref.store %s, %acc[%m, %n] : memref<4x32xi32>
      }
    }
  }
  return
}

// -----

// A stride-2 convolution, loops (f, kh, kw, c, n, oh, ow), spatial indices as index
// arithmetic: the convolution generic over (n, f, oh, ow, kh, kw, c).
// CHECK-LABEL: func.func @conv
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d6, ((d2 * 2) + d4), ((d3 * 2) + d5))>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d6, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x16x9x9xi8>, memref<16x16x3x3xi8>) outs(%acc : memref<1x16x4x4xi32>)
func.func @conv(%x: memref<1x16x9x9xi8>, %w: memref<16x16x3x3xi8>, %acc: memref<1x16x4x4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %f = %c0 to %c16 step %c1 {
    scf.for %kh = %c0 to %c3 step %c1 {
      scf.for %kw = %c0 to %c3 step %c1 {
        scf.for %c = %c0 to %c16 step %c1 {
          scf.for %n = %c0 to %c1 step %c1 {
            scf.for %oh = %c0 to %c4 step %c1 {
              scf.for %ow = %c0 to %c4 step %c1 {
                %h0 = arith.muli %oh, %c2 : index
                %h = arith.addi %h0, %kh : index
                %w0 = arith.muli %ow, %c2 : index
                %ww = arith.addi %w0, %kw : index
                %a = memref.load %x[%n, %c, %h, %ww] : memref<1x16x9x9xi8>
                %b = memref.load %w[%f, %c, %kh, %kw] : memref<16x16x3x3xi8>
                %s0 = memref.load %acc[%n, %f, %oh, %ow] : memref<1x16x4x4xi32>
                %ae = arith.extsi %a : i8 to i32
                %be = arith.extsi %b : i8 to i32
                %p = arith.muli %ae, %be : i32
                %s = arith.addi %s0, %p : i32
                memref.store %s, %acc[%n, %f, %oh, %ow] : memref<1x16x4x4xi32>
              }
            }
          }
        }
      }
    }
  }
  return
}

// -----

// A copy into the interior of a padded buffer: the padding idiom (subview, memref.copy).
// CHECK-LABEL: func.func @padded_copy
// CHECK:         linalg.fill ins(%z8 : i8) outs(%xp : memref<1x16x10x10xi8>)
// CHECK-NEXT:    %{{.*}} = memref.subview %xp[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
// CHECK-NEXT:    memref.copy %x, %{{.*}} : memref<1x16x8x8xi8> to memref<1x16x8x8xi8, strided<[1600, 100, 10, 1], offset: 11>>
func.func @padded_copy(%x: memref<1x16x8x8xi8>, %xp: memref<1x16x10x10xi8>) {
  %z8 = arith.constant 0 : i8
  affine.for %n = 0 to 1 {
    affine.for %c = 0 to 16 {
      affine.for %h = 0 to 10 {
        affine.for %w = 0 to 10 {
          affine.store %z8, %xp[%n, %c, %h, %w] : memref<1x16x10x10xi8>
        }
      }
    }
  }
  affine.for %n = 0 to 1 {
    affine.for %c = 0 to 16 {
      affine.for %h = 0 to 8 {
        affine.for %w = 0 to 8 {
          %v = affine.load %x[%n, %c, %h, %w] : memref<1x16x8x8xi8>
          affine.store %v, %xp[%n, %c, %h + 1, %w + 1] : memref<1x16x10x10xi8>
        }
      }
    }
  }
  return
}
