// affine.load/affine.store: SSA ids in the subscripts are map dimensions, as in MLIR, and
// `symbol(%x)` marks a symbol.  The project's lower-affine (passes/lower_affine.py) lowers them.

// RUN: vta-opt %s | filecheck %s
// RUN: vta-opt %s | vta-opt | filecheck %s
// RUN: vta-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: vta-opt %s -p lower-affine | filecheck %s --check-prefix=LOWER

// CHECK-LABEL: func.func @shift(
// CHECK:         affine.for %[[I:.*]] = 0 to 16 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to %[[N:.*]] {
// CHECK-NEXT:        %[[V:.*]] = affine.load %[[A:.*]][%[[I]], %[[J]] + 1] : memref<16x32xi8>
// CHECK-NEXT:        affine.store %[[V]], %[[A]][%[[I]] * 2 - 1, symbol(%[[N]])] : memref<16x32xi8>

// GENERIC:       "affine.load"(%{{.*}}, %{{.*}}, %{{.*}}) <{map = affine_map<(d0, d1) -> (d0, (d1 + 1))>}>
// GENERIC:       "affine.store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{map = affine_map<(d0)[s0] -> (((d0 * 2) + -1), s0)>}>

// LOWER-LABEL: func.func @shift(
// LOWER-SAME:    %[[A:.*]]: memref<16x32xi8>, %[[N:.*]]: index)
// LOWER:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// LOWER:           scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// LOWER:             %[[J1:.*]] = arith.addi %[[J]], %{{.*}} : index
// LOWER-NEXT:        %[[V:.*]] = memref.load %[[A]][%[[I]], %[[J1]]] : memref<16x32xi8>
// LOWER:             memref.store %[[V]], %[[A]][%{{.*}}, %[[N]]] : memref<16x32xi8>
func.func @shift(%a: memref<16x32xi8>, %n: index) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to %n {
      %v = affine.load %a[%i, %j + 1] : memref<16x32xi8>
      affine.store %v, %a[%i * 2 - 1, symbol(%n)] : memref<16x32xi8>
    }
  }
  return
}
