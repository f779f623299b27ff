// vta-merge-alu-immediates: in-place immediate ALU generics of the normal form, of one kind,
// in a row on one buffer through one map, become one when a single immediate is exact: min and
// max of the bounds, the sum of adds, the product of muls (both wrap modulo 2^32), the sum of
// shifts the same way shorter than 32 bits; the merged immediate must fit the signed 16-bit
// field.  Everything else is left as it is.

// RUN: vta-opt %s -p vta-merge-alu-immediates --split-input-file | filecheck %s
// RUN: vta-opt %s -p vta-merge-alu-immediates,vta-merge-alu-immediates --split-input-file | filecheck %s

#id = affine_map<(i, j) -> (i, j)>

// A ReLU before the lower end of an int8 clip: max of the two; the min stays.
// CHECK-LABEL: func.func @relu_clip
// CHECK:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    %{{.*}} = arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 127 : i32
// CHECK-NEXT:    %{{.*}} = arith.minsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @relu_clip(%acc: memref<4x16xi32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 0 : i32
    %r = arith.maxsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant -128 : i32
    %r = arith.maxsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 127 : i32
    %r = arith.minsi %a, %c : i32
    linalg.yield %r : i32
  }
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// Three in a row merge into one, of every kind.
// CHECK-LABEL: func.func @runs
// CHECK:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 50 : i32
// CHECK-NEXT:    %{{.*}} = arith.minsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant -8 : i32
// CHECK-NEXT:    %{{.*}} = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant -15 : i32
// CHECK-NEXT:    %{{.*}} = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @runs(%acc: memref<4x16xi32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 100 : i32
    %r = arith.minsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 50 : i32
    %r = arith.minsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 70 : i32
    %r = arith.minsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 5 : i32
    %r = arith.addi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 7 : i32
    %r = arith.addi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant -20 : i32
    %r = arith.addi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 3 : i32
    %r = arith.muli %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant -5 : i32
    %r = arith.muli %a, %c : i32
    linalg.yield %r : i32
  }
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// Right shifts add up below 32; left shifts (negative amounts) too.
// CHECK-LABEL: func.func @shifts
// CHECK:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 5 : i32
// CHECK-NEXT:    %{{.*}} = arith.shrsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    %{{.*}} = arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant -10 : i32
// CHECK-NEXT:    %{{.*}} = arith.shrsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @shifts(%acc: memref<4x16xi32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 3 : i32
    %r = arith.shrsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 2 : i32
    %r = arith.shrsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 0 : i32
    %r = arith.maxsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant -4 : i32
    %r = arith.shrsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant -6 : i32
    %r = arith.shrsi %a, %c : i32
    linalg.yield %r : i32
  }
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// Left alone: a right then a left shift (the low bits are lost), a sum of 32, a
// merged immediate outside the 16-bit field.
// CHECK-LABEL: func.func @kept
// CHECK:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 3 : i32
// CHECK-NEXT:    %{{.*}} = arith.shrsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant -3 : i32
// CHECK-NEXT:    %{{.*}} = arith.shrsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    %{{.*}} = arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 20 : i32
// CHECK-NEXT:    %{{.*}} = arith.shrsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 12 : i32
// CHECK-NEXT:    %{{.*}} = arith.shrsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    %{{.*}} = arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 30000 : i32
// CHECK-NEXT:    %{{.*}} = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 30000 : i32
// CHECK-NEXT:    %{{.*}} = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    %{{.*}} = arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 300 : i32
// CHECK-NEXT:    %{{.*}} = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  linalg.generic {{.*}} ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %{{.*}} = arith.constant 300 : i32
// CHECK-NEXT:    %{{.*}} = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    linalg.yield %{{.*}} : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @kept(%acc: memref<4x16xi32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 3 : i32
    %r = arith.shrsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant -3 : i32
    %r = arith.shrsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 0 : i32
    %r = arith.maxsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 20 : i32
    %r = arith.shrsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 12 : i32
    %r = arith.shrsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 0 : i32
    %r = arith.maxsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 30000 : i32
    %r = arith.addi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 30000 : i32
    %r = arith.addi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 0 : i32
    %r = arith.maxsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 300 : i32
    %r = arith.muli %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 300 : i32
    %r = arith.muli %a, %c : i32
    linalg.yield %r : i32
  }
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#t = affine_map<(i, j) -> (j, i)>

// Left alone: the same kind on another buffer, through another map, or with a copy of the
// buffer between them.
// CHECK-LABEL: func.func @apart
// CHECK-COUNT-5: arith.maxsi
func.func @apart(%acc: memref<16x16xi32>, %other: memref<16x16xi32>, %y: memref<16x16xi32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<16x16xi32>) outs(%acc : memref<16x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 1 : i32
    %r = arith.maxsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%other : memref<16x16xi32>) outs(%other : memref<16x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 2 : i32
    %r = arith.maxsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#t, #t], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<16x16xi32>) outs(%acc : memref<16x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 3 : i32
    %r = arith.maxsi %a, %c : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<16x16xi32>) outs(%acc : memref<16x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 4 : i32
    %r = arith.maxsi %a, %c : i32
    linalg.yield %r : i32
  }
  memref.copy %acc, %y : memref<16x16xi32> to memref<16x16xi32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<16x16xi32>) outs(%acc : memref<16x16xi32>) {
  ^bb0(%a: i32, %o: i32):
    %c = arith.constant 5 : i32
    %r = arith.maxsi %a, %c : i32
    linalg.yield %r : i32
  }
  return
}
