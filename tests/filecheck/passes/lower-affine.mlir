// lower-affine (passes/lower_affine.py, MLIR's pass of that name in place of xDSL's): maps with
// dims and symbols are evaluated on their operands, `affine.min` is a chain of `arith.minsi`, a
// multi-result lower bound the maximum of its results, an upper bound the minimum.

// RUN: vta-opt %s -p lower-affine | filecheck %s
// RUN: vta-opt %s --pass-pipeline='builtin.module(lower-affine)' | filecheck %s

// CHECK-LABEL: func.func @tiles(
// CHECK-SAME:      %[[A:.*]]: memref<10xi32>, %[[N:.*]]: index)
// CHECK-NOT:     affine.
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[T4:.*]] = arith.addi %[[T]], %{{.*}} : index
// CHECK-NEXT:      %[[HI:.*]] = arith.minsi %[[T4]], %[[N]] : index
// CHECK:           %[[LO:.*]] = arith.maxsi %[[T]], %{{.*}} : index
// CHECK:           scf.for %[[I:.*]] = %[[LO]] to %[[HI]] step %{{.*}} {
// CHECK:             %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[A]][%[[I1]]] : memref<10xi32>
// CHECK:             %[[H:.*]] = arith.floordivsi %[[I]], %{{.*}} : index
// CHECK-NEXT:        memref.store %[[V]], %[[A]][%[[H]]] : memref<10xi32>
// CHECK-NOT:     affine.
func.func @tiles(%a: memref<10xi32>, %n: index) {
  affine.for %t = 0 to 10 step 4 {
    %hi = affine.min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%t)[%n]
    affine.for %i = max affine_map<(d0) -> (d0, 1)>(%t) to %hi {
      %v = affine.load %a[%i + 1] : memref<10xi32>
      %p = affine.apply affine_map<(d0) -> (d0 floordiv 2)>(%i)
      affine.store %v, %a[%p] : memref<10xi32>
    }
  }
  return
}
