// vta-tile: what it reports, at the op concerned: a tile= that does not fit an SRAM (or does
// not divide the reduction), and input that is not the normal form of stage 1.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p 'vta-tile{tile=1,64,64}'
// RUN: not vta-opt %s --split-input-file -p 'vta-tile{tile=1,16,64 double-buffer=true}' 2>&1 | filecheck %s --check-prefix=DB
// RUN: not vta-opt %s --split-input-file -p 'vta-tile{tile=1,2,3,4}' 2>&1 | filecheck %s --check-prefix=OPT

// DB: error: 'linalg.generic' op vta-tile: cannot tile this region: the weight tile of 16x64 elements in two copies (double buffering) needs 2048 elements of the WGT SRAM (#vta.sram<wgt>), which has 1024 available
// OPT: error: 'builtin.module' op vta-tile: tile= takes up to three non-negative sizes (b, o, i), got (1, 2, 3, 4)

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
#acc = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>

func.func @too_big(%x: memref<1x64x1x16xi8>, %w: memref<64x64x16x16xi8>, %y: memref<1x64x1x16xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x64x1x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x64x1x16xi32>)
  linalg.generic {indexing_maps = [#x, #w, #acc],
                  iterator_types = ["parallel", "parallel", "reduction",
                                    "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x64x1x16xi8>, memref<64x64x16x16xi8>)
      outs(%acc : memref<1x64x1x16xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  // expected-error @+1 {{'linalg.generic' op vta-tile: cannot tile this region: the weight tile of 64x64 elements needs 4096 elements of the WGT SRAM (#vta.sram<wgt>), which has 1024 available}}
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x64x1x16xi32>) outs(%y : memref<1x64x1x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
#acc = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>

func.func @i_tile_does_not_divide(%x: memref<1x96x1x16xi8>, %w: memref<2x96x16x16xi8>,
                                  %y: memref<1x2x1x16xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x2x1x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x2x1x16xi32>)
  linalg.generic {indexing_maps = [#x, #w, #acc],
                  iterator_types = ["parallel", "parallel", "reduction",
                                    "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x96x1x16xi8>, memref<2x96x16x16xi8>)
      outs(%acc : memref<1x2x1x16xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  // expected-error @+1 {{vta-tile: cannot tile this region: the i tile of 64 elements does not divide the 96 elements of the reduction (only the b and o tiles may leave a remainder)}}
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x2x1x16xi32>) outs(%y : memref<1x2x1x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// -----

// The accumulator is also read by an op of no VTA region.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @foreign_use(%a: memref<1x4x1x16xi32>, %y: memref<1x4x1x16xi8>,
                       %z: memref<1x4x1x16xi32>) {
  %acc = memref.alloc() : memref<1x4x1x16xi32>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : memref<1x4x1x16xi32>) outs(%acc : memref<1x4x1x16xi32>) {
  ^bb0(%v: i32, %o: i32):
    linalg.yield %v : i32
  }
  // expected-error @+1 {{'memref.copy' op vta-tile: this op uses a VTA accumulator but is not part of the normal form of vta-pack}}
  memref.copy %acc, %z : memref<1x4x1x16xi32> to memref<1x4x1x16xi32>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x4x1x16xi32>) outs(%y : memref<1x4x1x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// -----

// An element-wise op after the output.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @after_output(%a: memref<1x4x1x16xi32>, %y: memref<1x4x1x16xi8>) {
  %acc = memref.alloc() : memref<1x4x1x16xi32>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : memref<1x4x1x16xi32>) outs(%acc : memref<1x4x1x16xi32>) {
  ^bb0(%v: i32, %o: i32):
    linalg.yield %v : i32
  }
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x4x1x16xi32>) outs(%y : memref<1x4x1x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  // expected-error @+1 {{vta-tile: an op on the accumulator of a VTA region must come before the region's output, in its block}}
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x4x1x16xi32>) outs(%acc : memref<1x4x1x16xi32>) {
  ^bb0(%v: i32, %o: i32):
    %c1 = arith.constant 1 : i32
    %r = arith.addi %v, %c1 : i32
    linalg.yield %r : i32
  }
  func.return
}

// -----

// An accumulator packed for another block size.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @wrong_layout(%a: memref<1x4x1x8xi32>, %y: memref<1x4x1x8xi8>) {
  %acc = memref.alloc() : memref<1x4x1x8xi32>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : memref<1x4x1x8xi32>) outs(%acc : memref<1x4x1x8xi32>) {
  ^bb0(%v: i32, %o: i32):
    linalg.yield %v : i32
  }
  // expected-error @+1 {{vta-tile: the accumulator has type memref<1x4x1x8xi32>, expected the packed shape ?x?x1x16 (the trailing dimensions one tensor element of this configuration)}}
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x4x1x8xi32>) outs(%y : memref<1x4x1x8xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// -----

// A contraction whose weights are not indexed (o, i, oo, ii).

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>
#wt = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d1, d4, d5)>
#acc = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>

func.func @transposed_weights(%x: memref<1x2x1x16xi8>, %w: memref<2x2x16x16xi8>,
                              %y: memref<1x2x1x16xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x2x1x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x2x1x16xi32>)
  // expected-error @+1 {{'linalg.generic' op vta-tile: a contraction of a VTA region iterates over (b, o, i, bb, oo, ii) with maps X(b, i, bb, ii), W(o, i, oo, ii), Acc(b, o, bb, oo)}}
  linalg.generic {indexing_maps = [#x, #wt, #acc],
                  iterator_types = ["parallel", "parallel", "reduction",
                                    "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x2x1x16xi8>, memref<2x2x16x16xi8>)
      outs(%acc : memref<1x2x1x16xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x2x1x16xi32>) outs(%y : memref<1x2x1x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// -----

// The rank-6 layout is a convolution's: an element-wise region in it is not tiled as one
// (vta-pack packs element-wise programs of every rank as matrices).

#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

func.func @elementwise_in_the_conv_layout(%a: memref<1x4x1x16x1x16xi32>,
                                          %y: memref<1x4x1x16x1x16xi8>) {
  %acc = memref.alloc() : memref<1x4x1x16x1x16xi32>
  linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%a : memref<1x4x1x16x1x16xi32>) outs(%acc : memref<1x4x1x16x1x16xi32>) {
  ^bb0(%v: i32, %o: i32):
    linalg.yield %v : i32
  }
  // expected-error @+1 {{'linalg.generic' op vta-tile: this region has the rank-6 layout of a convolution but no convolution: vta-pack packs element-wise programs of any rank as matrices (rank-4 layout, docs/pipeline.md)}}
  linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x4x1x16x1x16xi32>) outs(%y : memref<1x4x1x16x1x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// -----

// An output stored in weight tiles (passes/tile/weight_store.py) fills whole tiles of rows:
// 8 row blocks are not the 16 of a weight tile.

func.func @weight_store_part_of_a_tile(%x: memref<8x1x1x16xi8>, %w: memref<1x1x16x16xi8>, %k: memref<1x1x16x16xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<8x1x1x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<8x1x1x16xi32>)
  // expected-error@+1 {{vta-tile: an output stored in the weight layout has whole weight tiles of rows, 16 row blocks each; this one has 8}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 16), d1, ((d0 mod 16) + d2), d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<8x1x1x16xi32>) outs(%k : memref<1x1x16x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}
