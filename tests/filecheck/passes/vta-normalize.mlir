// vta-normalize: the clamp and negation forms frontends write, rewritten into the ops
// vta-pack takes.  A select of a signed comparison of its two operands is maxsi or minsi
// (the comparison goes when nothing else reads it); a constant minus a value is the value
// times -1, plus the constant unless it is 0.  Anything else is left as it is.

// RUN: vta-opt %s -p vta-normalize --split-input-file | filecheck %s
// RUN: vta-opt %s -p vta-normalize,vta-normalize --split-input-file | filecheck %s

// torch-mlir's clamp of an i32 to [-128, 127]: the lower bound, then the upper one.
// CHECK-LABEL: func.func @clamp
// CHECK:         ^bb0(%v: i32, %o: i8):
// CHECK-NEXT:      %lo = arith.constant -128 : i32
// CHECK-NEXT:      %hi = arith.constant 127 : i32
// CHECK-NEXT:      %m = arith.maxsi %v, %lo : i32
// CHECK-NEXT:      %k = arith.minsi %m, %hi : i32
// CHECK-NEXT:      %t = arith.trunci %k : i32 to i8
// CHECK-NEXT:      linalg.yield %t : i8
func.func @clamp(%x: memref<4x16xi32>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %below = arith.cmpi slt, %v, %lo : i32
    %m = arith.select %below, %lo, %v : i32
    %above = arith.cmpi sgt, %m, %hi : i32
    %k = arith.select %above, %hi, %m : i32
    %t = arith.trunci %k : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// Each predicate and operand order: select(a > b, a, b) and select(a < b, b, a) are max,
// select(a < b, a, b) and select(a > b, b, a) min; sge and sle as sgt and slt.  A comparison
// another op reads stays.
// CHECK-LABEL: func.func @orders
// CHECK-NEXT:    %0 = arith.maxsi %a, %b : i32
// CHECK-NEXT:    %1 = arith.maxsi %a, %b : i32
// CHECK-NEXT:    %2 = arith.minsi %a, %b : i32
// CHECK-NEXT:    %3 = arith.minsi %a, %b : i32
// CHECK-NEXT:    %4 = arith.maxsi %a, %b : i32
// CHECK-NEXT:    %5 = arith.minsi %a, %b : i32
// CHECK-NEXT:    %c6 = arith.cmpi sle, %a, %b : i32
// CHECK-NEXT:    %6 = arith.minsi %a, %b : i32
// CHECK-NEXT:    func.return %0, %1, %2, %3, %4, %5, %6, %c6 : i32, i32, i32, i32, i32, i32, i32, i1
func.func @orders(%a: i32, %b: i32) -> (i32, i32, i32, i32, i32, i32, i32, i1) {
  %c0 = arith.cmpi sgt, %a, %b : i32
  %0 = arith.select %c0, %a, %b : i32
  %c1 = arith.cmpi slt, %a, %b : i32
  %1 = arith.select %c1, %b, %a : i32
  %c2 = arith.cmpi slt, %a, %b : i32
  %2 = arith.select %c2, %a, %b : i32
  %c3 = arith.cmpi sgt, %a, %b : i32
  %3 = arith.select %c3, %b, %a : i32
  %c4 = arith.cmpi sge, %a, %b : i32
  %4 = arith.select %c4, %a, %b : i32
  %c5 = arith.cmpi sle, %a, %b : i32
  %5 = arith.select %c5, %a, %b : i32
  %c6 = arith.cmpi sle, %a, %b : i32
  %6 = arith.select %c6, %a, %b : i32
  func.return %0, %1, %2, %3, %4, %5, %6, %c6 : i32, i32, i32, i32, i32, i32, i32, i1
}

// -----

// Not clamps: unsigned and equality comparisons, a select of other values than those
// compared, index operands (loop arithmetic): all stay.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %c0 = arith.cmpi ugt, %a, %b : i32
// CHECK-NEXT:    %0 = arith.select %c0, %a, %b : i32
// CHECK-NEXT:    %c1 = arith.cmpi eq, %a, %b : i32
// CHECK-NEXT:    %1 = arith.select %c1, %a, %b : i32
// CHECK-NEXT:    %c2 = arith.cmpi sgt, %a, %b : i32
// CHECK-NEXT:    %2 = arith.select %c2, %a, %d : i32
// CHECK-NEXT:    %c3 = arith.cmpi sgt, %i, %j : index
// CHECK-NEXT:    %3 = arith.select %c3, %i, %j : index
// CHECK-NEXT:    func.return
func.func @kept(%a: i32, %b: i32, %d: i32, %i: index, %j: index) -> (i32, i32, i32, index) {
  %c0 = arith.cmpi ugt, %a, %b : i32
  %0 = arith.select %c0, %a, %b : i32
  %c1 = arith.cmpi eq, %a, %b : i32
  %1 = arith.select %c1, %a, %b : i32
  %c2 = arith.cmpi sgt, %a, %b : i32
  %2 = arith.select %c2, %a, %d : i32
  %c3 = arith.cmpi sgt, %i, %j : index
  %3 = arith.select %c3, %i, %j : index
  func.return %0, %1, %2, %3 : i32, i32, i32, index
}

// -----

// 0 - x is x * -1; 5 - x is x * -1 + 5.  A subtraction of a constant (vta-pack's add of the
// negation), of two values, of two constants, or on index, stays.
// CHECK-LABEL: func.func @negations
// CHECK-NEXT:    %c0 = arith.constant 0 : i32
// CHECK-NEXT:    %c5 = arith.constant 5 : i32
// CHECK-NEXT:    %minus_one = arith.constant -1 : i32
// CHECK-NEXT:    %n = arith.muli %a, %minus_one : i32
// CHECK-NEXT:    %minus_one_1 = arith.constant -1 : i32
// CHECK-NEXT:    %[[P:.*]] = arith.muli %a, %minus_one_1 : i32
// CHECK-NEXT:    %[[M:.*]] = arith.addi %[[P]], %c5 : i32
// CHECK-NEXT:    %s = arith.subi %a, %c5 : i32
// CHECK-NEXT:    %d = arith.subi %a, %b : i32
// CHECK-NEXT:    %k = arith.subi %c5, %c0 : i32
// CHECK-NEXT:    %c0_i = arith.constant 0 : index
// CHECK-NEXT:    %ni = arith.subi %c0_i, %i : index
// CHECK-NEXT:    func.return %n, %[[M]], %s, %d, %k, %ni
func.func @negations(%a: i32, %b: i32, %i: index) -> (i32, i32, i32, i32, i32, index) {
  %c0 = arith.constant 0 : i32
  %c5 = arith.constant 5 : i32
  %n = arith.subi %c0, %a : i32
  %m = arith.subi %c5, %a : i32
  %s = arith.subi %a, %c5 : i32
  %d = arith.subi %a, %b : i32
  %k = arith.subi %c5, %c0 : i32
  %c0_i = arith.constant 0 : index
  %ni = arith.subi %c0_i, %i : index
  func.return %n, %m, %s, %d, %k, %ni : i32, i32, i32, i32, i32, index
}
