// vta-tile: VTA regions of stage 1 (packed normal form) become host tile loops over SRAM buffers
// (stage 2 of docs/pipeline.md), default configuration (BATCH 1, BLOCK 16).
// Prefixes: CHECK the cost model's choice, T16 `tile=1,16,16`, SB `double-buffer=false`,
// REM `tile=1,5` (64 output elements: 12 tiles of 5 and a peeled last tile of 4).

// RUN: vta-opt %s --split-input-file -p vta-tile | filecheck %s
// RUN: vta-opt %s --split-input-file -p 'vta-tile{tile=1,16,16}' | filecheck %s --check-prefix=T16
// RUN: vta-opt %s --split-input-file -p 'vta-tile{double-buffer=false}' | filecheck %s --check-prefix=SB
// RUN: vta-opt %s --split-input-file -p 'vta-tile{tile=1,5}' | filecheck %s --check-prefix=REM
// RUN: vta-opt %s --split-input-file -p vta-tile,vta-tile | filecheck %s
// RUN: vta-opt %s --split-input-file -p 'vta-tile{verbose=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// matrix_multiply_opt: 1x1024 . 1024x1024, >> 8.  The whole input is loaded once; the weights,
// used once each, are loaded once, in double-buffered tiles of 4x64 elements alternating on the
// parity of the o loop, which carries vta.double_buffer.

// CHECK-LABEL: func.func @dense(
// CHECK-SAME:      %[[X:.*]]: memref<1x64x1x16xi8>, %[[W:.*]]: memref<64x64x16x16xi8>, %[[Y:.*]]: memref<1x64x1x16xi8>)
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[INP:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x64x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %[[WGT:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<2x4x64x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    %[[XT:.*]] = memref.subview %[[X]][0, 0, 0, 0] [1, 64, 1, 16] [1, 1, 1, 1] : memref<1x64x1x16xi8> to memref<1x64x1x16xi8, strided<[1024, 16, 16, 1]>>
// CHECK-NEXT:    memref.copy %[[XT]], %[[INP]] : memref<1x64x1x16xi8, strided<[1024, 16, 16, 1]>> to memref<1x64x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    affine.for %[[O:.*]] = 0 to 16 {
// CHECK-NEXT:      %[[O0:.*]] = affine.apply affine_map<(d0) -> ((d0 * 4))> (%[[O]])
// CHECK-NEXT:      %[[WT:.*]] = memref.subview %[[W]][%[[O0]], 0, 0, 0] [4, 64, 16, 16] [1, 1, 1, 1] : memref<64x64x16x16xi8> to memref<4x64x16x16xi8, strided<[16384, 256, 16, 1], offset: ?>>
// CHECK-NEXT:      %[[P:.*]] = affine.apply affine_map<(d0) -> ((d0 mod 2))> (%[[O]])
// CHECK-NEXT:      %[[WV:.*]] = memref.subview %[[WGT]][%[[P]], 0, 0, 0, 0] [1, 4, 64, 16, 16] [1, 1, 1, 1, 1] : memref<2x4x64x16x16xi8, #vta.sram<wgt>> to memref<4x64x16x16xi8, strided<[16384, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
// CHECK-NEXT:      memref.copy %[[WT]], %[[WV]] : memref<4x64x16x16xi8, strided<[16384, 256, 16, 1], offset: ?>> to memref<4x64x16x16xi8, strided<[16384, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
// CHECK-NEXT:      linalg.fill ins(%[[C0]] : i32) outs(%[[ACC]] : memref<1x4x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]} ins(%[[INP]], %[[WV]] : memref<1x64x1x16xi8, #vta.sram<inp>>, memref<4x64x16x16xi8, strided<[16384, 256, 16, 1], offset: ?>, #vta.sram<wgt>>) outs(%[[ACC]] : memref<1x4x1x16xi32, #vta.sram<acc>>) {
// CHECK:             arith.muli
// CHECK:           linalg.generic {{.*}} ins(%[[ACC]] : memref<1x4x1x16xi32, #vta.sram<acc>>) outs(%[[ACC]] : memref<1x4x1x16xi32, #vta.sram<acc>>) {
// CHECK:             arith.shrsi
// CHECK:           %[[YT:.*]] = memref.subview %[[Y]][0, %[[O0]], 0, 0] [1, 4, 1, 16] [1, 1, 1, 1] : memref<1x64x1x16xi8> to memref<1x4x1x16xi8, strided<[1024, 16, 16, 1], offset: ?>>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[ACC]] : memref<1x4x1x16xi32, #vta.sram<acc>>) outs(%[[YT]] : memref<1x4x1x16xi8, strided<[1024, 16, 16, 1], offset: ?>>) {
// CHECK-NEXT:      ^{{.*}}(%[[V:.*]]: i32, %{{.*}}: i8):
// CHECK-NEXT:        %[[T:.*]] = arith.trunci %[[V]] : i32 to i8
// CHECK-NEXT:        linalg.yield %[[T]] : i8
// CHECK-NEXT:      }
// CHECK-NEXT:    } {vta.double_buffer}
// CHECK-NEXT:    func.return
// CHECK-NOT:     memref<1x64x1x16xi32>

// The tiles of docs/pipeline.md (16x16 blocks): the input still fits whole, so the GEMM reads
// its 16-element sub-tile; the weight tile is loaded in the i loop, whose parity picks the copy.

// T16-LABEL: func.func @dense(
// T16:         %[[INP:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x64x1x16xi8, #vta.sram<inp>>
// T16-NEXT:    %[[WGT:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<2x16x16x16x16xi8, #vta.sram<wgt>>
// T16-NEXT:    %[[ACC:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x16x1x16xi32, #vta.sram<acc>>
// T16:         memref.copy %{{.*}}, %[[INP]]
// T16-NEXT:    affine.for %[[O:.*]] = 0 to 4 {
// T16-NEXT:      %[[O0:.*]] = affine.apply affine_map<(d0) -> ((d0 * 16))> (%[[O]])
// T16-NEXT:      linalg.fill ins(%{{.*}} : i32) outs(%[[ACC]] : memref<1x16x1x16xi32, #vta.sram<acc>>)
// T16-NEXT:      affine.for %[[I:.*]] = 0 to 4 {
// T16-NEXT:        %[[I0:.*]] = affine.apply affine_map<(d0) -> ((d0 * 16))> (%[[I]])
// T16-NEXT:        %[[IV:.*]] = memref.subview %[[INP]][0, %[[I0]], 0, 0] [1, 16, 1, 16] [1, 1, 1, 1] : memref<1x64x1x16xi8, #vta.sram<inp>> to memref<1x16x1x16xi8, strided<[1024, 16, 16, 1], offset: ?>, #vta.sram<inp>>
// T16-NEXT:        %[[WT:.*]] = memref.subview %{{.*}}[%[[O0]], %[[I0]], 0, 0] [16, 16, 16, 16] [1, 1, 1, 1] : memref<64x64x16x16xi8> to memref<16x16x16x16xi8, strided<[16384, 256, 16, 1], offset: ?>>
// T16-NEXT:        %[[P:.*]] = affine.apply affine_map<(d0) -> ((d0 mod 2))> (%[[I]])
// T16-NEXT:        %[[WV:.*]] = memref.subview %[[WGT]][%[[P]], 0, 0, 0, 0] [1, 16, 16, 16, 16] [1, 1, 1, 1, 1] : memref<2x16x16x16x16xi8, #vta.sram<wgt>> to memref<16x16x16x16xi8, strided<[4096, 256, 16, 1], offset: ?>, #vta.sram<wgt>>
// T16-NEXT:        memref.copy %[[WT]], %[[WV]]
// T16-NEXT:        linalg.generic {{.*}} ins(%[[IV]], %[[WV]] : {{.*}}) outs(%[[ACC]] : memref<1x16x1x16xi32, #vta.sram<acc>>)
// T16:           arith.muli
// T16:           linalg.generic {{.*}} ins(%[[ACC]] : {{.*}}) outs(%[[ACC]] : {{.*}})
// T16:         } {vta.double_buffer}

// Single buffering: the weight buffer holds one tile, of twice the size.

// SB-LABEL: func.func @dense(
// SB:         memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x64x1x16xi8, #vta.sram<inp>>
// SB-NEXT:    %[[WGT:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<16x64x16x16xi8, #vta.sram<wgt>>
// SB-NEXT:    memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x16x1x16xi32, #vta.sram<acc>>
// SB:         affine.for %{{.*}} = 0 to 4 {
// SB:           memref.copy %{{.*}}, %[[WGT]] : memref<16x64x16x16xi8, strided<[16384, 256, 16, 1], offset: ?>> to memref<16x64x16x16xi8, #vta.sram<wgt>>
// SB-NOT:     vta.double_buffer
// SB:         func.return

// A tile of 5 output elements: 12 tiles in the loop, then the last 4 with the same ops on
// contiguous prefixes of the buffers (its weights in copy 12 mod 2 = 0).

// REM-LABEL: func.func @dense(
// REM:         %[[WGT:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<2x5x64x16x16xi8, #vta.sram<wgt>>
// REM-NEXT:    %[[ACC:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x5x1x16xi32, #vta.sram<acc>>
// REM:         affine.for %[[O:.*]] = 0 to 12 {
// REM-NEXT:      affine.apply affine_map<(d0) -> ((d0 * 5))> (%[[O]])
// REM:         } {vta.double_buffer}
// REM-NEXT:    %[[WT:.*]] = memref.subview %{{.*}}[60, 0, 0, 0] [4, 64, 16, 16] [1, 1, 1, 1] : memref<64x64x16x16xi8> to memref<4x64x16x16xi8, strided<[16384, 256, 16, 1], offset: 983040>>
// REM-NEXT:    %[[WV:.*]] = memref.subview %[[WGT]][0, 0, 0, 0, 0] [1, 4, 64, 16, 16] [1, 1, 1, 1, 1] : memref<2x5x64x16x16xi8, #vta.sram<wgt>> to memref<4x64x16x16xi8, strided<[16384, 256, 16, 1]>, #vta.sram<wgt>>
// REM-NEXT:    memref.copy %[[WT]], %[[WV]]
// REM-NEXT:    %[[AV:.*]] = memref.subview %[[ACC]][0, 0, 0, 0] [1, 4, 1, 16] [1, 1, 1, 1] : memref<1x5x1x16xi32, #vta.sram<acc>> to memref<1x4x1x16xi32, strided<[80, 16, 16, 1]>, #vta.sram<acc>>
// REM-NEXT:    linalg.fill ins(%{{.*}} : i32) outs(%[[AV]] : {{.*}})
// REM-NEXT:    linalg.generic {{.*}} ins(%{{.*}}, %[[WV]] : {{.*}}) outs(%[[AV]] : {{.*}})
// REM:         %[[YT:.*]] = memref.subview %{{.*}}[0, 60, 0, 0] [1, 4, 1, 16]
// REM-NEXT:    linalg.generic {{.*}} ins(%[[AV]] : {{.*}}) outs(%[[YT]] : {{.*}})

// REMARK: remark: 'linalg.generic' op vta-tile: tile 1x4x64 (b x o x i elements), loops b, o, i, input all, weights row, double-buffered; estimated {{[0-9]+}} cycles, DRAM bytes inp 1024, wgt 1048576, acc 0, out 1024

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>
#w = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
#acc = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>

func.func @dense(%x: memref<1x64x1x16xi8>, %w: memref<64x64x16x16xi8>, %y: memref<1x64x1x16xi8>) {
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
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x64x1x16xi32>) outs(%acc : memref<1x64x1x16xi32>) {
  ^bb0(%v: i32, %o: i32):
    %c8 = arith.constant 8 : i32
    %r = arith.shrsi %v, %c8 : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x64x1x16xi32>) outs(%y : memref<1x64x1x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<1x64x1x16xi32>
  func.return
}

// -----

// A bias broadcast over the rows initialises the accumulator: per output tile, a
// linalg.generic with the broadcasting map reads the tile's slice of the bias row.  All the
// input fits; the weights for one output element are loaded per o tile.

// CHECK-LABEL: func.func @dense_bias(
// CHECK-SAME:      %[[X:.*]]: memref<8x4x1x16xi8>, %[[W:.*]]: memref<3x4x16x16xi8>, %[[BIAS:.*]]: memref<1x3x1x16xi32>, %[[Y:.*]]: memref<8x3x1x16xi8>)
// CHECK-NEXT:    %[[INP:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<8x4x1x16xi8, #vta.sram<inp>>
// CHECK-NEXT:    %[[WGT:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x4x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<8x1x1x16xi32, #vta.sram<acc>>
// CHECK:         memref.copy %{{.*}}, %[[INP]]
// CHECK-NEXT:    affine.for %[[O:.*]] = 0 to 3 {
// CHECK-NEXT:      %[[WT:.*]] = memref.subview %[[W]][%[[O]], 0, 0, 0] [1, 4, 16, 16] [1, 1, 1, 1]
// CHECK-NEXT:      memref.copy %[[WT]], %[[WGT]]
// CHECK-NEXT:      %[[BT:.*]] = memref.subview %[[BIAS]][0, %[[O]], 0, 0] [1, 1, 1, 16] [1, 1, 1, 1] : memref<1x3x1x16xi32> to memref<1x1x1x16xi32, strided<[48, 16, 16, 1], offset: ?>>
// CHECK-NEXT:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[BT]] : memref<1x1x1x16xi32, strided<[48, 16, 16, 1], offset: ?>>) outs(%[[ACC]] : memref<8x1x1x16xi32, #vta.sram<acc>>) {
// CHECK-NEXT:      ^{{.*}}(%[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:        linalg.yield %[[B]] : i32
// CHECK-NEXT:      }
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[INP]], %[[WGT]] : memref<8x4x1x16xi8, #vta.sram<inp>>, memref<1x4x16x16xi8, #vta.sram<wgt>>) outs(%[[ACC]] : memref<8x1x1x16xi32, #vta.sram<acc>>)
// CHECK:           arith.maxsi
// CHECK:           %[[YT:.*]] = memref.subview %[[Y]][0, %[[O]], 0, 0] [8, 1, 1, 16] [1, 1, 1, 1]
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[ACC]] : {{.*}}) outs(%[[YT]] : {{.*}})
// CHECK:         }
// CHECK-NOT:     vta.double_buffer
// CHECK:         func.return

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>
func.func @dense_bias(%x: memref<8x4x1x16xi8>, %w: memref<3x4x16x16xi8>,
                      %bias: memref<1x3x1x16xi32>, %y: memref<8x3x1x16xi8>) {
  %acc = memref.alloc() : memref<8x3x1x16xi32>
  linalg.generic {indexing_maps = [#bias, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<1x3x1x16xi32>) outs(%acc : memref<8x3x1x16xi32>) {
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>],
                  iterator_types = ["parallel", "parallel", "reduction",
                                    "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x4x1x16xi8>, memref<3x4x16x16xi8>) outs(%acc : memref<8x3x1x16xi32>) {
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<8x3x1x16xi32>) outs(%acc : memref<8x3x1x16xi32>) {
  ^bb0(%v: i32, %o: i32):
    %c0 = arith.constant 0 : i32
    %r = arith.maxsi %v, %c0 : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<8x3x1x16xi32>) outs(%y : memref<8x3x1x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// -----

// Vector add (no contraction): the tensor operand of the ALU op has its own accumulator tile,
// loaded like the accumulator's initial value (a plain i32 copy becomes memref.copy).

// CHECK-LABEL: func.func @vector_add(
// CHECK-SAME:      %[[A:.*]]: memref<1x64x1x16xi32>, %[[B:.*]]: memref<1x64x1x16xi32>, %[[C:.*]]: memref<1x64x1x16xi8>)
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x64x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    %[[ACC2:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x64x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    %[[AT:.*]] = memref.subview %[[A]][0, 0, 0, 0] [1, 64, 1, 16] [1, 1, 1, 1]
// CHECK-NEXT:    memref.copy %[[AT]], %[[ACC]]
// CHECK-NEXT:    %[[BT:.*]] = memref.subview %[[B]][0, 0, 0, 0] [1, 64, 1, 16] [1, 1, 1, 1]
// CHECK-NEXT:    memref.copy %[[BT]], %[[ACC2]]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]], %[[ACC2]] : memref<1x64x1x16xi32, #vta.sram<acc>>, memref<1x64x1x16xi32, #vta.sram<acc>>) outs(%[[ACC]] : memref<1x64x1x16xi32, #vta.sram<acc>>) {
// CHECK-NEXT:    ^{{.*}}(%[[L:.*]]: i32, %[[R:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[L]], %[[R]] : i32
// CHECK-NEXT:      linalg.yield %[[S]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[CT:.*]] = memref.subview %[[C]][0, 0, 0, 0] [1, 64, 1, 16] [1, 1, 1, 1]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[ACC]] : {{.*}}) outs(%[[CT]] : {{.*}})
// CHECK-NOT:     affine.for
// CHECK:         func.return

// T16-LABEL: func.func @vector_add(
// T16:         %[[ACC:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x16x1x16xi32, #vta.sram<acc>>
// T16-NEXT:    %[[ACC2:.*]] = memref.alloc() {vta.sram_offset = {{[0-9]+}} : i64} : memref<1x16x1x16xi32, #vta.sram<acc>>
// T16-NEXT:    affine.for %[[O:.*]] = 0 to 4 {
// T16-NEXT:      %[[O0:.*]] = affine.apply affine_map<(d0) -> ((d0 * 16))> (%[[O]])
// T16-NEXT:      %[[AT:.*]] = memref.subview %{{.*}}[0, %[[O0]], 0, 0] [1, 16, 1, 16]
// T16-NEXT:      memref.copy %[[AT]], %[[ACC]]
// T16-NEXT:      %[[BT:.*]] = memref.subview %{{.*}}[0, %[[O0]], 0, 0] [1, 16, 1, 16]
// T16-NEXT:      memref.copy %[[BT]], %[[ACC2]]
// T16-NOT:     vta.double_buffer
// T16:         func.return

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @vector_add(%a: memref<1x64x1x16xi32>, %b: memref<1x64x1x16xi32>,
                      %c: memref<1x64x1x16xi8>) {
  %acc = memref.alloc() : memref<1x64x1x16xi32>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : memref<1x64x1x16xi32>) outs(%acc : memref<1x64x1x16xi32>) {
  ^bb0(%v: i32, %o: i32):
    linalg.yield %v : i32
  }
  %b_acc = memref.alloc() : memref<1x64x1x16xi32>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : memref<1x64x1x16xi32>) outs(%b_acc : memref<1x64x1x16xi32>) {
  ^bb0(%v: i32, %o: i32):
    linalg.yield %v : i32
  }
  linalg.generic {indexing_maps = [#id, #id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %b_acc : memref<1x64x1x16xi32>, memref<1x64x1x16xi32>)
      outs(%acc : memref<1x64x1x16xi32>) {
  ^bb0(%l: i32, %r: i32, %o: i32):
    %s = arith.addi %l, %r : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x64x1x16xi32>) outs(%c : memref<1x64x1x16xi8>) {
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// -----

// Two layers in one function (docs/pipeline.md, "Layers"): each may plan with the whole of every
// SRAM; the second layer's buffers follow the first's (vta.sram_offset) since they fit there.
// The second layer reads the first one's result %h from device DRAM.

// CHECK-LABEL: func.func @two_layers(
// CHECK:         %inp = memref.alloc() {vta.sram_offset = 0 : i64} : memref<2x2x1x16xi8, #vta.sram<inp>>
// CHECK:         %acc = memref.alloc() {vta.sram_offset = 0 : i64} : memref<2x1x1x16xi32, #vta.sram<acc>>
// CHECK:         %inp_1 = memref.alloc() {vta.sram_offset = 4 : i64} : memref<4x1x1x16xi8, #vta.sram<inp>>
// CHECK:         %acc_1 = memref.alloc() {vta.sram_offset = 2 : i64} : memref<4x1x1x16xi32, #vta.sram<acc>>
  func.func @two_layers(%x: memref<4x2x1x16xi8> {vta.arg = {shape = array<i64: 4, 32>, dtype = "int8", padded_shape = array<i64: 4, 32>, split_shape = array<i64: 4, 1, 2, 16>, perm = array<i64: 0, 2, 1, 3>}}, %w1: memref<1x2x16x16xi8> {vta.arg = {shape = array<i64: 32, 16>, dtype = "int8", padded_shape = array<i64: 32, 16>, split_shape = array<i64: 2, 16, 1, 16>, perm = array<i64: 2, 0, 3, 1>}}, %w2: memref<1x1x16x16xi8> {vta.arg = {shape = array<i64: 16, 16>, dtype = "int8", padded_shape = array<i64: 16, 16>, split_shape = array<i64: 1, 16, 1, 16>, perm = array<i64: 2, 0, 3, 1>}}, %y: memref<4x1x1x16xi8> {vta.arg = {shape = array<i64: 4, 16>, dtype = "int8", padded_shape = array<i64: 4, 16>, split_shape = array<i64: 4, 1, 1, 16>, perm = array<i64: 0, 2, 1, 3>}}) {
    %c0 = arith.constant 0 : i32
    %h = memref.alloc() : memref<4x1x1x16xi8>
    %acc = memref.alloc() : memref<4x1x1x16xi32>
    linalg.fill ins(%c0 : i32) outs(%acc : memref<4x1x1x16xi32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]} ins(%x, %w1 : memref<4x2x1x16xi8>, memref<1x2x16x16xi8>) outs(%acc : memref<4x1x1x16xi32>) {
    ^bb0(%0: i8, %1: i8, %2: i32):
      %3 = arith.extsi %0 : i8 to i32
      %4 = arith.extsi %1 : i8 to i32
      %5 = arith.muli %3, %4 : i32
      %6 = arith.addi %2, %5 : i32
      linalg.yield %6 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<4x1x1x16xi32>) outs(%acc : memref<4x1x1x16xi32>) {
    ^bb0(%7: i32, %8: i32):
      %9 = arith.constant 7 : i32
      %10 = arith.shrsi %7, %9 : i32
      linalg.yield %10 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<4x1x1x16xi32>) outs(%h : memref<4x1x1x16xi8>) {
    ^bb0(%11: i32, %12: i8):
      %13 = arith.trunci %11 : i32 to i8
      linalg.yield %13 : i8
    }
    %acc_1 = memref.alloc() : memref<4x1x1x16xi32>
    linalg.fill ins(%c0 : i32) outs(%acc_1 : memref<4x1x1x16xi32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]} ins(%h, %w2 : memref<4x1x1x16xi8>, memref<1x1x16x16xi8>) outs(%acc_1 : memref<4x1x1x16xi32>) {
    ^bb0(%14: i8, %15: i8, %16: i32):
      %17 = arith.extsi %14 : i8 to i32
      %18 = arith.extsi %15 : i8 to i32
      %19 = arith.muli %17, %18 : i32
      %20 = arith.addi %16, %19 : i32
      linalg.yield %20 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc_1 : memref<4x1x1x16xi32>) outs(%acc_1 : memref<4x1x1x16xi32>) {
    ^bb0(%21: i32, %22: i32):
      %23 = arith.constant 6 : i32
      %24 = arith.shrsi %21, %23 : i32
      linalg.yield %24 : i32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc_1 : memref<4x1x1x16xi32>) outs(%y : memref<4x1x1x16xi8>) {
    ^bb0(%25: i32, %26: i8):
      %27 = arith.trunci %25 : i32 to i8
      linalg.yield %27 : i8
    }
    func.return
  }
