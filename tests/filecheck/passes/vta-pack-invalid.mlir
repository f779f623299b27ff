// vta-pack reports what VTA cannot run with an error at the op responsible (and a note where
// another op is involved).

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack
// RUN: not vta-opt %s --split-input-file -p vta-pack 2>&1 | filecheck %s

// CHECK: vta-pack-invalid.mlir:[[# @LINE + 4]]:3: error: 'linalg.matmul' op %x: floating-point element type f32 is not supported: VTA computes on integers (i8 operands, i32 accumulators)

func.func @float(%x: memref<4x16xf32>, %w: memref<16x16xf32>, %y: memref<4x16xf32>) {
  // expected-error@+1 {{floating-point element type f32 is not supported}}
  linalg.matmul ins(%x, %w : memref<4x16xf32>, memref<16x16xf32>) outs(%y : memref<4x16xf32>)
  return
}

// -----

func.func @i16(%a: memref<4x16xi16>, %y: memref<4x16xi8>) {
  // expected-error@+1 {{%a: element type i16 is not supported: VTA's buffers hold i8 or i32}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi16>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i16, %o: i8):
    %t = arith.trunci %v : i16 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @i32_output_initial(%x: memref<4x16xi8>, %w: memref<16x16xi8>, %y: memref<4x16xi32>) {
  // expected-error@+2 {{writes %y, an i32 result, after reading what it held before: VTA never loads the caller's contents of a result; initialise it first (linalg.fill)}}
  // expected-note@+1 {{read here}}
  linalg.matmul ins(%x, %w : memref<4x16xi8>, memref<16x16xi8>) outs(%y : memref<4x16xi32>)
  return
}

// -----

func.func @divsi(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c3 = arith.constant 3 : i32
    // expected-error@+1 {{'arith.divsi' op is not supported: VTA's ALU runs arith.addi, arith.subi by a constant}}
    %r = arith.divsi %v, %c3 : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @dynamic(%x: memref<?x16xi8>, %w: memref<16x16xi8>, %y: memref<?x16xi32>) {
  // expected-error@+1 {{%x (memref<?x16xi8>) has a dynamic shape: VTA buffers have static shapes}}
  linalg.matmul ins(%x, %w : memref<?x16xi8>, memref<16x16xi8>) outs(%y : memref<?x16xi32>)
  return
}

// -----

func.func @row_sum(%a: memref<4x16xi8>, %y: memref<4xi32>) {
  // expected-error@+1 {{is a reduction that is not a matrix contraction: VTA reduces only sums of products of two int8 matrices (loops m, n parallel, k reduced); here 2 loops, 1 reduced, 1 inputs}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x16xi8>) outs(%y : memref<4xi32>) {
  ^bb0(%v: i8, %s: i32):
    %e = arith.extsi %v : i8 to i32
    %r = arith.addi %s, %e : i32
    linalg.yield %r : i32
  }
  return
}

// -----

func.func @contraction_i32(%x: memref<4x16xi32>, %w: memref<16x16xi32>, %y: memref<4x16xi8>) {
  %acc = memref.alloc() : memref<4x16xi32>
  // expected-error@+1 {{is a contraction of i32 operands: VTA's GEMM core multiplies int8 operands into int32 accumulators (i8 × i8 → i32)}}
  linalg.matmul ins(%x, %w : memref<4x16xi32>, memref<16x16xi32>) outs(%acc : memref<4x16xi32>)
  return
}

// -----

func.func @contraction_body(%x: memref<4x16xi8>, %w: memref<16x16xi8>, %y: memref<4x16xi8>) {
  %acc = memref.alloc() : memref<4x16xi32>
  // expected-error@+1 {{is a reduction that is not an int8 matrix contraction: VTA accumulates only `acc + extsi(a) * extsi(b)`}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x16xi8>, memref<16x16xi8>) outs(%acc : memref<4x16xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.maxsi %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  return
}

// -----

func.func @select_body(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c0 = arith.constant 0 : i32
    // expected-error@+1 {{'arith.cmpi' op is not supported}}
    %p = arith.cmpi sgt, %v, %c0 : i32
    %r = arith.select %p, %v, %c0 : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @shift_by_tensor(%a: memref<4x16xi32>, %s: memref<4x16xi32>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %s : memref<4x16xi32>, memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %n: i32, %o: i8):
    // expected-error@+1 {{shifts by an amount that is not a constant: VTA's ALU shifts by an immediate}}
    %r = arith.shrsi %v, %n : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @shift_by_argument(%a: memref<4x16xi32>, %n: i32, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    // expected-error@+1 {{uses %n defined outside the op that is not a constant}}
    %r = arith.shli %v, %n : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @shift_out_of_range(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c40 = arith.constant 40 : i32
    // expected-error@+1 {{shifts by 40, outside 0…31}}
    %r = arith.shrsi %v, %c40 : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @immediate_too_wide(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %big = arith.constant 70000 : i32
    // expected-error@+1 {{has the immediate 70000, which does not fit VTA's signed 16-bit ALU immediate (-32768…32767)}}
    %r = arith.addi %v, %big : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @sub_too_wide(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c = arith.constant -32768 : i32
    // expected-error@+1 {{has the immediate 32768, which does not fit}}
    %r = arith.subi %v, %c : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @fill_too_wide(%x: memref<4x16xi8>, %w: memref<16x16xi8>, %y: memref<4x16xi8>) {
  %acc = memref.alloc() : memref<4x16xi32>
  %c = arith.constant 100000 : i32
  // expected-error@+1 {{needs the immediate 100000, which does not fit VTA's signed 16-bit ALU immediate}}
  linalg.fill ins(%c : i32) outs(%acc : memref<4x16xi32>)
  linalg.matmul ins(%x, %w : memref<4x16xi8>, memref<16x16xi8>) outs(%acc : memref<4x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @read_before_write(%a: memref<4x16xi32>, %z: memref<4x16xi8>) {
  %h = memref.alloc() : memref<4x16xi8>
  // expected-error@+1 {{reads %h before anything was written to it: an intermediate buffer is read by the layers after the one writing it}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%h : memref<4x16xi8>) outs(%z : memref<4x16xi8>) {
  ^bb0(%v: i8, %o: i8):
    %e = arith.extsi %v : i8 to i32
    %t = arith.trunci %e : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%h : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @two_writers(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  // expected-note@+1 {{first written here}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  %c1 = arith.constant 1 : i8
  // expected-error@+1 {{writes %y a second time: VTA stores every int8 result once, so an output has a single writer}}
  linalg.fill ins(%c1 : i8) outs(%y : memref<4x16xi8>)
  return
}

// -----

func.func @tensors(%x: tensor<4x16xi8>, %w: tensor<16x16xi8>, %c: tensor<4x16xi32>) -> tensor<4x16xi32> {
  // expected-error@+1 {{operates on tensors: vta-pack works on memrefs; bufferize the program first}}
  %r = linalg.matmul ins(%x, %w : tensor<4x16xi8>, tensor<16x16xi8>) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %r : tensor<4x16xi32>
}

// -----

func.func @subtract_tensor(%a: memref<4x16xi32>, %b: memref<4x16xi32>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<4x16xi32>, memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%u: i32, %v: i32, %o: i8):
    // expected-error@+1 {{subtracts a tensor: VTA's ALU has no subtraction, only the addition of a negated constant}}
    %r = arith.subi %u, %v : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// A per-row operand is fine in an element-wise program (vta-pack.mlir), not after a contraction,
// whose accumulator keeps the matrix layout.
func.func @per_row_bias(%x: memref<4x16xi8>, %w: memref<16x16xi8>, %b: memref<4xi32>,
                        %y: memref<4x16xi8>) {
  %acc = memref.alloc() : memref<4x16xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x16xi32>)
  linalg.matmul ins(%x, %w : memref<4x16xi8>, memref<16x16xi8>) outs(%acc : memref<4x16xi32>)
  // expected-error@+1 {{broadcasts %b along the columns (a per-row operand): VTA adds per-column biases only, broadcast over the rows}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %b : memref<4x16xi32>, memref<4xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%u: i32, %v: i32, %o: i8):
    %r = arith.addi %u, %v : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @transposed_elementwise(%a: memref<16x16xi32>, %y: memref<16x16xi8>) {
  // expected-error@+1 {{reads %a transposed: VTA's element-wise ops work in the accumulator's layout (identity indexing maps)}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<16x16xi32>) outs(%y : memref<16x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @two_computed_tensors(%x: memref<4x16xi8>, %w: memref<16x16xi8>, %a: memref<4x16xi32>,
                                %y: memref<4x16xi8>) {
  %acc = memref.alloc() : memref<4x16xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x16xi32>)
  linalg.matmul ins(%x, %w : memref<4x16xi8>, memref<16x16xi8>) outs(%acc : memref<4x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %a : memref<4x16xi32>, memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%u: i32, %v: i32, %o: i8):
    %p = arith.maxsi %u, %v : i32
    %q = arith.minsi %u, %v : i32
    // expected-error@+1 {{combines two computed tensors: VTA's ALU takes its second tensor operand from an accumulator buffer, loaded from a function argument or copied from the value both operands are computed from by immediate ALU ops}}
    %r = arith.addi %p, %q : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @accumulate_onto_computed(%x: memref<4x16xi8>, %w: memref<16x16xi8>, %y: memref<4x16xi8>) {
  %acc = memref.alloc() : memref<4x16xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x16xi32>)
  // expected-note@+1 {{the value is computed here}}
  linalg.matmul ins(%x, %w : memref<4x16xi8>, memref<16x16xi8>) outs(%acc : memref<4x16xi32>)
  // expected-error@+1 {{accumulates onto a computed value: a VTA contraction starts from 0, a copy of a function argument or a broadcast bias}}
  linalg.matmul ins(%x, %w : memref<4x16xi8>, memref<16x16xi8>) outs(%acc : memref<4x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @uninitialised(%x: memref<4x16xi8>, %w: memref<16x16xi8>) {
  %acc = memref.alloc() : memref<4x16xi32>
  // expected-error@+1 {{reads %acc before anything was written to it}}
  linalg.matmul ins(%x, %w : memref<4x16xi8>, memref<16x16xi8>) outs(%acc : memref<4x16xi32>)
  return
}

// -----

func.func @loop(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  // expected-error@+1 {{'affine.for' op is not supported by vta-pack: loops and other region ops cannot be packed}}
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 16 {
      %v = affine.load %a[%i, %j] : memref<4x16xi32>
      %t = arith.trunci %v : i32 to i8
      affine.store %t, %y[%i, %j] : memref<4x16xi8>
    }
  }
  return
}

// -----

func.func @conv(%x: memref<1x16x8x8xi8>, %w: memref<16x16x3x3xi8>, %y: memref<1x16x6x6xi32>) {
  // expected-error@+2 {{'linalg.conv_2d_nchw_fchw' op writes %y, an i32 result, after reading what it held before}}
  // expected-note@+1 {{read here}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x16x8x8xi8>, memref<16x16x3x3xi8>) outs(%y : memref<1x16x6x6xi32>)
  return
}

// -----

func.func @batched(%x: memref<2x4x16xi8>, %w: memref<16x16xi8>, %y: memref<2x4x16xi32>) {
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<2x4x16xi32>)
  // expected-error@+1 {{writes %y, an i32 result, with one right operand for every batch: byte planes are stored batch by batch}}
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>,
                                   affine_map<(b, m, n, k) -> (b, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x4x16xi8>, memref<16x16xi8>) outs(%y : memref<2x4x16xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  return
}

// -----

func.func @returns_value(%a: memref<4x16xi32>) -> i32 {
  %c = arith.constant 1 : i32
  // expected-error@+1 {{returns values: VTA functions write their results into memref arguments}}
  return %c : i32
}

// -----

func.func @unsigned_extension(%p: memref<4x16xi8>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<4x16xi8>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i8, %o: i8):
    // expected-error@+1 {{'arith.extui' op is not supported}}
    %e = arith.extui %v : i8 to i32
    %t = arith.trunci %e : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @truncate_early(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    // expected-error@+1 {{sign-extends a value truncated to i8 earlier: VTA truncates only when storing, so arith.trunci must be the last op}}
    %e = arith.extsi %t : i8 to i32
    %c1 = arith.constant 1 : i32
    %r = arith.addi %e, %c1 : i32
    %t2 = arith.trunci %r : i32 to i8
    linalg.yield %t2 : i8
  }
  return
}

// -----

func.func @int8_arithmetic(%p: memref<4x16xi8>, %y: memref<4x16xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<4x16xi8>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i8, %o: i8):
    // expected-error@+1 {{computes on i8 values: VTA's ALU computes on i32; extend the inputs with arith.extsi and truncate the result}}
    %r = arith.addi %v, %v : i8
    linalg.yield %r : i8
  }
  return
}

// -----

// A buffer a layer writes lives on the device in that layer's layout: read in another one
// (here as a matrix and as K×N weights, transposed), it is refused.  An argument only read is packed once
// per layout instead (vta-pack-copies.mlir).
func.func @intermediate_in_two_layouts(%x: memref<16x16xi8>, %y: memref<16x16xi8>) {
  %c0 = arith.constant 0 : i32
  %h = memref.alloc() : memref<16x16xi8>
  // expected-note@+1 {{first used here}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x16xi8>) outs(%h : memref<16x16xi8>) {
  ^bb0(%v: i8, %o: i8):
    %e = arith.extsi %v : i8 to i32
    %c1 = arith.constant 1 : i32
    %s = arith.shrsi %e, %c1 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  %acc = memref.alloc() : memref<16x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<16x16xi32>)
  // expected-error@+1 {{uses %h as the activations of a contraction, which is packed differently from the weights of a contraction: %h is an intermediate buffer, which the device holds in one packed layout (VTA has no copy from one layout into another)}}
  linalg.matmul ins(%h, %h : memref<16x16xi8>, memref<16x16xi8>) outs(%acc : memref<16x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<16x16xi32>) outs(%y : memref<16x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @written_argument_in_two_layouts(%x: memref<16x16xi8>, %y: memref<16x16xi8>,
                                           %z: memref<16x16xi8>) {
  %c0 = arith.constant 0 : i32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x16xi8>) outs(%y : memref<16x16xi8>) {
  ^bb0(%v: i8, %o: i8):
    %e = arith.extsi %v : i8 to i32
    %c1 = arith.constant 1 : i32
    %s = arith.shrsi %e, %c1 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  %acc = memref.alloc() : memref<16x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<16x16xi32>)
  // expected-error@+1 {{reads %y, which an earlier layer computes, as K×N weights: a layer cannot store its output vectors transposed into weight tiles}}
  linalg.matmul ins(%x, %y : memref<16x16xi8>, memref<16x16xi8>) outs(%acc : memref<16x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<16x16xi32>) outs(%z : memref<16x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @output_read_by_another_region(%a: memref<4x16xi32>, %y: memref<4x16xi8>,
                                         %z: memref<4x16xi8>) {
  %t = memref.alloc() : memref<4x16xi32>
  // expected-error@+1 {{reads %y before the op writing it, in a layer that ends after that op: VTA runs the layers one after the other}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<4x16xi8>) outs(%t : memref<4x16xi32>) {
  ^bb0(%v: i8, %o: i32):
    %e = arith.extsi %v : i8 to i32
    linalg.yield %e : i32
  }
  // expected-note@+1 {{%y is written here}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %tr = arith.trunci %v : i32 to i8
    linalg.yield %tr : i8
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x16xi32>) outs(%z : memref<4x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %tr = arith.trunci %v : i32 to i8
    linalg.yield %tr : i8
  }
  return
}

// -----

memref.global "private" @bias : memref<16xi32> = dense<1>

func.func @mutable_global(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  // expected-error@+1 {{reads @bias, which is not constant: vta-pack packs constant globals}}
  %b = memref.get_global @bias : memref<16xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<4x16xi32>, memref<16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%u: i32, %v: i32, %o: i8):
    %r = arith.addi %u, %v : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

memref.global "private" constant @bias : memref<16xi32> = uninitialized

func.func @uninitialized_global(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  // expected-error@+1 {{reads @bias, a constant without a value (uninitialized)}}
  %b = memref.get_global @bias : memref<16xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<4x16xi32>, memref<16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%u: i32, %v: i32, %o: i8):
    %r = arith.addi %u, %v : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @unknown_global(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  // expected-error@+1 {{reads the global @bias, which the module does not define}}
  %b = memref.get_global @bias : memref<16xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<4x16xi32>, memref<16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%u: i32, %v: i32, %o: i8):
    %r = arith.addi %u, %v : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

memref.global "private" constant @bias : memref<8xi32> = dense<1>

func.func @global_type(%a: memref<4x16xi32>, %y: memref<4x16xi8>) {
  // expected-error@+1 {{reads @bias as memref<16xi32>, but the global is memref<8xi32>}}
  %b = memref.get_global @bias : memref<16xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<4x16xi32>, memref<16xi32>) outs(%y : memref<4x16xi8>) {
  ^bb0(%u: i32, %v: i32, %o: i8):
    %r = arith.addi %u, %v : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

memref.global "private" constant @bias : memref<4x16xi8> = dense<1>

func.func @constant_output(%a: memref<4x16xi32>) {
  %b = memref.get_global @bias : memref<4x16xi8>
  // expected-error@+1 {{writes the constant @bias: constants are packed into the binary once and read only}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xi32>) outs(%b : memref<4x16xi8>) {
  ^bb0(%u: i32, %o: i8):
    %t = arith.trunci %u : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

func.func @float_constant() {
  // expected-error@+1 {{defines a constant of type f32: VTA computes on integers}}
  %c = arith.constant 1.0 : f32
  return
}

// -----

// A transpose of a constant: vta-pack looked for the output under the name of
// linalg.broadcast's (an internal error).
memref.global "private" constant @transposed : memref<2x2xi8> = dense<[[1, 2], [3, 4]]>
func.func @transpose_of_a_constant(%y: memref<2x2xi8>) {
  %w = memref.get_global @transposed : memref<2x2xi8>
  // expected-error@+1 {{reads %w transposed: VTA's element-wise ops work in the accumulator's layout}}
  linalg.transpose ins(%w : memref<2x2xi8>) outs(%y : memref<2x2xi8>) permutation = [1, 0]
  return
}
