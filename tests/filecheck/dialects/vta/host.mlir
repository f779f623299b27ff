// RUN: vta-opt %s | vta-opt | filecheck %s
// RUN: vta-opt %s --print-op-generic | vta-opt | filecheck %s

// vta.host in its custom syntax, printed back unchanged: inputs, outputs, both, neither, and
// the packings vta-pack records on the operands.

// CHECK-LABEL: func.func @steps(
func.func @steps(%x: memref<4x16xi8>, %y: memref<4x16xi8>, %p: memref<4x1x1x16xi8>) {
  // CHECK:      vta.host "copy" ins(%x : memref<4x16xi8>) outs(%y : memref<4x16xi8>) {
  // CHECK-NEXT: ^bb0(%a: memref<4x16xi8>, %b: memref<4x16xi8>):
  // CHECK-NEXT:   memref.copy %a, %b : memref<4x16xi8> to memref<4x16xi8>
  // CHECK-NEXT: }
  vta.host "copy" ins(%x : memref<4x16xi8>) outs(%y : memref<4x16xi8>) {
  ^bb0(%a: memref<4x16xi8>, %b: memref<4x16xi8>):
    memref.copy %a, %b : memref<4x16xi8> to memref<4x16xi8>
  }
  // CHECK:      vta.host "in place" outs(%y : memref<4x16xi8>) {
  vta.host "in place" outs(%y : memref<4x16xi8>) {
  ^bb0(%b: memref<4x16xi8>):
    %c = arith.constant 1 : i8
    linalg.fill ins(%c : i8) outs(%b : memref<4x16xi8>)
  }
  // CHECK:      vta.host "packed" ins(%p : memref<4x1x1x16xi8>) packings [{shape = array<i64: 4, 16>, dtype = "int8", padded_shape = array<i64: 4, 16>, split_shape = array<i64: 4, 1, 1, 16>, perm = array<i64: 0, 2, 1, 3>}] {
  // CHECK-NEXT: ^bb0(%q: memref<4x16xi8>):
  vta.host "packed" ins(%p : memref<4x1x1x16xi8>) packings [{shape = array<i64: 4, 16>, dtype = "int8", padded_shape = array<i64: 4, 16>, split_shape = array<i64: 4, 1, 1, 16>, perm = array<i64: 0, 2, 1, 3>}] {
  ^bb0(%q: memref<4x16xi8>):
  }
  return
}
