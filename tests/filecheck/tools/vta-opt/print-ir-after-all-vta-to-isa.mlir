// With the named pipeline vta-to-isa, --mlir-print-ir-after-all prints the module after each
// of its stages that runs, under the stage's name, then after vta-to-isa itself: here the
// input has tensors, so vta-bufferize runs; it has no i64, no float layer and no loop, so the
// other prepasses do not.  A pass inserted with insert-after=STAGE:PASS is printed too, after
// its stage, even when that stage is a prepass that did not run.

// RUN: vta-opt %s -p vta-to-isa --mlir-print-ir-after-all 2>&1 >/dev/null | filecheck %s
// RUN: vta-opt %s --pass-pipeline='builtin.module(vta-to-isa)' --mlir-print-ir-after-all 2>&1 >/dev/null | filecheck %s
// RUN: vta-opt %s -p 'vta-to-isa{insert-after=vta-raise-loops:cse,vta-fold-uop-loops:canonicalize}' --mlir-print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=INSERTED
// RUN: vta-opt %s -p vta-to-isa --mlir-print-ir-before-all 2>&1 >/dev/null | filecheck %s --check-prefix=BEFORE
// RUN: vta-opt %s -p vta-to-isa 2>&1 >/dev/null | filecheck %s --check-prefix=QUIET --allow-empty

// CHECK-NOT:  IR Dump After vta-narrow-integers
// CHECK-NOT:  IR Dump After vta-integerize
// CHECK-NOT:  IR Dump After vta-raise-loops
// CHECK:      // -----// IR Dump After vta-bufferize //----- //
// CHECK-NEXT: builtin.module {
// CHECK:        func.func @neg_clamp(%x: memref<4x16xi32>, %result0: memref<4x16xi8> {vta.result = 0 : i64})
// CHECK:      // -----// IR Dump After vta-normalize //----- //
// CHECK-NOT:    arith.select
// CHECK:        arith.maxsi
// CHECK:      // -----// IR Dump After vta-pack //----- //
// CHECK:      // -----// IR Dump After vta-tile //----- //
// CHECK:      // -----// IR Dump After vta-inject-dma //----- //
// CHECK:      // -----// IR Dump After vta-tensorize //----- //
// CHECK:      // -----// IR Dump After vta-fold-uop-loops //----- //
// CHECK:      // -----// IR Dump After vta-coproc-sync //----- //
// CHECK:      // -----// IR Dump After vta-lower-to-isa //----- //
// CHECK-NEXT: builtin.module
// CHECK:        vtaisa.program
// CHECK:      // -----// IR Dump After vta-to-isa //----- //
// CHECK-NOT:  IR Dump

// INSERTED:      // -----// IR Dump After vta-bufferize //----- //
// INSERTED-NOT:  IR Dump After vta-raise-loops
// INSERTED:      // -----// IR Dump After cse //----- //
// INSERTED:      // -----// IR Dump After vta-normalize //----- //
// INSERTED:      // -----// IR Dump After vta-fold-uop-loops //----- //
// INSERTED-NEXT: builtin.module
// INSERTED:      // -----// IR Dump After canonicalize //----- //
// INSERTED-NEXT: builtin.module
// INSERTED:      // -----// IR Dump After vta-coproc-sync //----- //
// INSERTED:      // -----// IR Dump After vta-lower-to-isa //----- //
// INSERTED:      // -----// IR Dump After vta-to-isa //----- //

// BEFORE:      // -----// IR Dump Before vta-to-isa //----- //
// BEFORE:      // -----// IR Dump Before vta-bufferize //----- //
// BEFORE-NEXT: builtin.module {
// BEFORE:        tensor.empty
// BEFORE:      // -----// IR Dump Before vta-normalize //----- //
// BEFORE:        arith.select
// BEFORE:      // -----// IR Dump Before vta-pack //----- //
// BEFORE:      // -----// IR Dump Before vta-lower-to-isa //----- //
// BEFORE-NOT:  IR Dump

// QUIET-NOT:  IR Dump

func.func @neg_clamp(%x: tensor<4x16xi32>) -> tensor<4x16xi8> {
  %e = tensor.empty() : tensor<4x16xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x16xi32>) outs(%e : tensor<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c0 = arith.constant 0 : i32
    %n = arith.subi %c0, %v : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %below = arith.cmpi slt, %n, %lo : i32
    %m = arith.select %below, %lo, %n : i32
    %above = arith.cmpi sgt, %m, %hi : i32
    %k = arith.select %above, %hi, %m : i32
    %t = arith.trunci %k : i32 to i8
    linalg.yield %t : i8
  } -> tensor<4x16xi8>
  return %r : tensor<4x16xi8>
}
