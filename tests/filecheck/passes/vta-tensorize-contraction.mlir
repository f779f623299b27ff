// The TensorizeContraction pattern of vta-tensorize: a GEMM contraction linalg.generic (the
// tensor intrinsic Acc(.., bb, oo) += X(.., bb, ii) * W(.., oo, ii) innermost, body extsi, extsi,
// muli, addi) becomes loops in iteration order, one per element dimension of extent > 1,
// around `vta.gemm` at the linearised element positions. An operand that is a subview (the
// double-buffer copy `%ic mod 2` of the input) is addressed in its buffer: the view's offset is
// computed once before the loops; the subview and its index arithmetic go. Convolutions are
// TensorizeConv's (vta-tensorize-conv.mlir).

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-tensorize | filecheck %s

// CHECK-LABEL: func.func @gemm(
// CHECK-SAME:      %[[INP:[^:]*]]: memref<1x4x1x16xi8, #vta.sram<inp>>, %[[WGT:[^:]*]]: memref<2x4x16x16xi8, #vta.sram<wgt>>, %[[ACC:[^:]*]]: memref<1x2x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:    affine.for %[[O:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:        %[[W:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 4) + d1))> (%[[O]], %[[I]])
// CHECK-NEXT:        vta.gemm %[[ACC]][%[[O]]] += %[[INP]][%[[I]]] * %[[WGT]][%[[W]]] : memref<1x2x1x16xi32, #vta.sram<acc>>, memref<1x4x1x16xi8, #vta.sram<inp>>, memref<2x4x16x16xi8, #vta.sram<wgt>>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// CHECK-LABEL: func.func @gemm_view(
// CHECK-SAME:      %[[INP2:[^:]*]]: memref<2x1x4x1x16xi8, #vta.sram<inp>>, %[[WGT:[^:]*]]: memref<4x4x16x16xi8, #vta.sram<wgt>>, %[[ACC:[^:]*]]: memref<1x4x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:    affine.for %[[IC:.*]] = 0 to 4 {
// CHECK-NEXT:      %[[P:.*]] = affine.apply affine_map<(d0) -> (((d0 mod 2) * 4))> (%[[IC]])
// CHECK-NEXT:      affine.for %[[O:.*]] = 0 to 4 {
// CHECK-NEXT:        affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:          %[[S:.*]] = affine.apply affine_map<(d0, d1) -> ((d0 + d1))> (%[[I]], %[[P]])
// CHECK-NEXT:          %[[W:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 4) + d1))> (%[[O]], %[[I]])
// CHECK-NEXT:          vta.gemm %[[ACC]][%[[O]]] += %[[INP2]][%[[S]]] * %[[WGT]][%[[W]]]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

#x = affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>
#w = affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>
#a = affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>
func.func @gemm(%inp: memref<1x4x1x16xi8, #vta.sram<inp>>, %wgt: memref<2x4x16x16xi8, #vta.sram<wgt>>, %acc: memref<1x2x1x16xi32, #vta.sram<acc>>) {
  linalg.generic {indexing_maps = [#x, #w, #a], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
      ins(%inp, %wgt : memref<1x4x1x16xi8, #vta.sram<inp>>, memref<2x4x16x16xi8, #vta.sram<wgt>>)
      outs(%acc : memref<1x2x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%xv: i8, %wv: i8, %av: i32):
    %0 = arith.extsi %xv : i8 to i32
    %1 = arith.extsi %wv : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %av, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

#x = affine_map<(b, o, i, bb, oo, ii) -> (b, i, bb, ii)>
#w = affine_map<(b, o, i, bb, oo, ii) -> (o, i, oo, ii)>
#a = affine_map<(b, o, i, bb, oo, ii) -> (b, o, bb, oo)>
!inp2 = memref<2x1x4x1x16xi8, #vta.sram<inp>>
!inp = memref<1x4x1x16xi8, strided<[64, 16, 16, 1], offset: ?>, #vta.sram<inp>>
!wgt = memref<4x4x16x16xi8, #vta.sram<wgt>>
!acc = memref<1x4x1x16xi32, #vta.sram<acc>>
func.func @gemm_view(%inp2: !inp2, %wgt: !wgt, %acc: !acc) {
  affine.for %ic = 0 to 4 {
    %p = affine.apply affine_map<(d0) -> (d0 mod 2)>(%ic)
    %inp = memref.subview %inp2[%p, 0, 0, 0, 0] [1, 1, 4, 1, 16] [1, 1, 1, 1, 1] : !inp2 to !inp
    linalg.generic {indexing_maps = [#x, #w, #a], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
        ins(%inp, %wgt : !inp, !wgt) outs(%acc : !acc) {
    ^bb0(%xv: i8, %wv: i8, %av: i32):
      %0 = arith.extsi %xv : i8 to i32
      %1 = arith.extsi %wv : i8 to i32
      %2 = arith.muli %0, %1 : i32
      %3 = arith.addi %av, %2 : i32
      linalg.yield %3 : i32
    }
  }
  return
}
