// vta-raise-loops refuses a nest it cannot prove equal to a structured op, with one error at
// the loop saying what it found and why (the module is left unchanged).

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-raise-loops
// RUN: not vta-opt %s --split-input-file -p vta-raise-loops 2>&1 | filecheck %s

// CHECK: vta-raise-loops-invalid.mlir:[[# @LINE + 7]]:3: error: 'affine.for' op loop-carried dependence: the statement reads the buffer it writes at another element
// CHECK: vta-raise-loops-invalid.mlir:[[# @LINE + 6]]:3: note: written at %s[d0 + 1], read at %s[d0]
// CHECK-NOT: Traceback

func.func @prefix_sum(%x: memref<16xi32>, %s: memref<17xi32>) {
  // expected-error@+2 {{loop-carried dependence: the statement reads the buffer it writes at another element (a recurrence such as a prefix sum)}}
  // expected-note@+1 {{written at %s[d0 + 1], read at %s[d0]}}
  affine.for %i = 0 to 16 {
    %p = affine.load %s[%i] : memref<17xi32>
    %v = affine.load %x[%i] : memref<16xi32>
    %n = arith.addi %p, %v : i32
    affine.store %n, %s[%i + 1] : memref<17xi32>
  }
  return
}

// -----

func.func @non_affine(%x: memref<16xi32>, %p: memref<16xindex>, %y: memref<16xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %j = memref.load %p[%i] : memref<16xindex>
    // expected-error@+1 {{non-affine index: an index of this access is not an affine function of the loop variables}}
    %v = memref.load %x[%j] : memref<16xi32>
    memref.store %v, %y[%i] : memref<16xi32>
  }
  return
}

// -----

func.func @max_reduction(%x: memref<4x16xi32>, %m: memref<4xi32>) {
  affine.for %i = 0 to 4 {
    // expected-error@+1 {{a reduction by 'arith.maxsi': only sums (arith.addi of the stored element}}
    affine.for %k = 0 to 16 {
      %a = affine.load %m[%i] : memref<4xi32>
      %v = affine.load %x[%i, %k] : memref<4x16xi32>
      %r = arith.maxsi %a, %v : i32
      affine.store %r, %m[%i] : memref<4xi32>
    }
  }
  return
}

// -----

func.func @two_nests(%x: memref<16xi32>, %t: memref<16xi32>, %y: memref<16xi32>) {
  // expected-error@+2 {{loop-carried dependence between two nests in this loop}}
  // expected-note@+1 {{accesses %t[d0], %t[-1 * d0 + 15]}}
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 1 {
      %v = affine.load %x[%i] : memref<16xi32>
      affine.store %v, %t[%i] : memref<16xi32>
    }
    affine.for %j = 0 to 1 {
      %w = affine.load %t[15 - %i] : memref<16xi32>
      affine.store %w, %y[%i] : memref<16xi32>
    }
  }
  return
}

// -----

func.func @partial(%x: memref<16xi32>, %y: memref<16xi32>) {
  // expected-error@+1 {{loop from 2 with step 1: only loops from 0 with step 1 over whole dimensions are raised}}
  affine.for %i = 2 to 16 {
    %v = affine.load %x[%i] : memref<16xi32>
    affine.store %v, %y[%i] : memref<16xi32>
  }
  return
}

// -----

func.func @overwrite(%x: memref<4x16xi32>, %y: memref<4xi32>) {
  affine.for %i = 0 to 4 {
    // expected-error@+1 {{the stored element does not depend on the loops around the store that do not index it}}
    affine.for %k = 0 to 16 {
      %v = affine.load %x[%i, %k] : memref<4x16xi32>
      affine.store %v, %y[%i] : memref<4xi32>
    }
  }
  return
}

// -----

func.func @scalar_reduction(%x: memref<16xi32>, %y: memref<1xi32>) {
  %c0 = arith.constant 0 : i32
  // expected-error@+1 {{loop-carried values (iter_args) are not raised}}
  %s = affine.for %i = 0 to 16 iter_args(%acc = %c0) -> (i32) {
    %v = affine.load %x[%i] : memref<16xi32>
    %n = arith.addi %acc, %v : i32
    affine.yield %n : i32
  }
  return
}

// -----

func.func @part_of_a_dimension(%x: memref<16xi32>, %y: memref<16xi32>) {
  // expected-error@+2 {{a loop of 8 iterations indexes dimension 0 of size 16: only loops over whole dimensions are raised}}
  // expected-note@+1 {{access %y[d0]}}
  affine.for %i = 0 to 8 {
    %v = affine.load %x[%i] : memref<16xi32>
    %w = arith.addi %v, %v : i32
    affine.store %w, %y[%i] : memref<16xi32>
  }
  return
}

// -----

func.func @branch(%x: memref<16xi32>, %y: memref<16xi32>, %b: i1) {
  affine.for %i = 0 to 16 {
    // expected-error@+1 {{'scf.if' inside a loop nest is not raised: only loops, loads, stores and arithmetic can be}}
    scf.if %b {
      %v = affine.load %x[%i] : memref<16xi32>
      affine.store %v, %y[%i] : memref<16xi32>
    }
  }
  return
}

// -----

// An index past the end of its dimension is an error at the access itself.
func.func @load_past_the_end(%a: memref<16xi32>, %b: memref<16xi32>) {
  affine.for %i = 0 to 16 {
    // expected-error@+1 {{'affine.load' op out-of-bounds load: index 0 of %a[d0 + 1] ranges over [1, 16] in the loops, outside the dimension of size 16}}
    %v = affine.load %a[%i + 1] : memref<16xi32>
    affine.store %v, %b[%i] : memref<16xi32>
  }
  return
}

// -----

func.func @store_before_the_start(%a: memref<4x8xi32>, %b: memref<4x8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %a[%i, %j] : memref<4x8xi32>
      %k = arith.subi %j, %c1 : index
      // expected-error@+1 {{'memref.store' op out-of-bounds store: index 1 of %b[d0, d1 - 1] ranges over [-1, 6] in the loops, outside the dimension of size 8}}
      memref.store %v, %b[%i, %k] : memref<4x8xi32>
    }
  }
  return
}

// -----

func.func @zero_step(%x: memref<16xi32>, %y: memref<16xi32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // expected-error@+1 {{the loop's step must be positive, not 0}}
  scf.for %i = %c0 to %c16 step %c0 {
    %v = memref.load %x[%i] : memref<16xi32>
    memref.store %v, %y[%i] : memref<16xi32>
  }
  return
}
