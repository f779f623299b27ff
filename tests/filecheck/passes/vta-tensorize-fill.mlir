// The TensorizeFill pattern of vta-tensorize: linalg.fill of an accumulator buffer becomes a nest
// of `vta.gemm_reset` over the buffer's element dimensions of extent > 1; a nonzero value that
// fits the ALU immediate adds a second nest of `vta.alu add`. A fill of a subview addresses the
// buffer itself (the view's offset computed once before the loops); the subview and the index
// arithmetic only it used go, the fill value stays.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-tensorize | filecheck %s

// CHECK-LABEL: func.func @fill_zero(
// CHECK-SAME:      %[[A:.*]]: memref<2x1x4x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:        %[[D:.*]] = affine.apply affine_map<(d0, d1) -> (((d0 * 4) + d1))> (%[[I]], %[[J]])
// CHECK-NEXT:        vta.gemm_reset %[[A]][%[[D]]] : memref<2x1x4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @fill_zero(%a: memref<2x1x4x1x16xi32, #vta.sram<acc>>) {
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%a : memref<2x1x4x1x16xi32, #vta.sram<acc>>)
  return
}

// -----

// CHECK-LABEL: func.func @fill_value(
// CHECK-SAME:      %[[B:.*]]: memref<3x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:    %{{.*}} = arith.constant 7 : i32
// CHECK-NEXT:    affine.for %[[R:.*]] = 0 to 3 {
// CHECK-NEXT:      vta.gemm_reset %[[B]][%[[R]]] : memref<3x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    }
// CHECK-NEXT:    affine.for %[[S:.*]] = 0 to 3 {
// CHECK-NEXT:      vta.alu add %[[B]][%[[S]]], 7 : memref<3x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @fill_value(%b: memref<3x1x16xi32, #vta.sram<acc>>) {
  %c = arith.constant 7 : i32
  linalg.fill ins(%c : i32) outs(%b : memref<3x1x16xi32, #vta.sram<acc>>)
  return
}

// -----

// CHECK-LABEL: func.func @fill_view(
// CHECK-SAME:      %[[ACC:.*]]: memref<2x4x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    affine.for %[[J:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[K:.*]] = affine.apply affine_map<(d0) -> ((d0 * 2))> (%[[J]])
// CHECK-NEXT:      affine.for %[[E:.*]] = 0 to 2 {
// CHECK-NEXT:        %[[D:.*]] = affine.apply affine_map<(d0, d1) -> ((d0 + d1))> (%[[E]], %[[K]])
// CHECK-NEXT:        vta.gemm_reset %[[ACC]][%[[D]] + 4] : memref<2x4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
!accb = memref<2x4x1x16xi32, #vta.sram<acc>>
!half = memref<1x2x1x16xi32, strided<[64, 16, 16, 1], offset: ?>, #vta.sram<acc>>
func.func @fill_view(%accb: !accb) {
  %c0 = arith.constant 0 : i32
  affine.for %j = 0 to 2 {
    %k = affine.apply affine_map<(d0) -> (d0 * 2)>(%j)
    %v = memref.subview %accb[1, %k, 0, 0] [1, 2, 1, 16] [1, 1, 1, 1] : !accb to !half
    linalg.fill ins(%c0 : i32) outs(%v : !half)
  }
  return
}
