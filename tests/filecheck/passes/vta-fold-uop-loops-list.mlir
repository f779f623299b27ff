// Loops marked `vta.uop_list` (by vta-tensorize) enumerate a micro-kernel's micro-op list: they
// stay affine.for loops inside the innermost vta.uop_loop, the loops around them fold into
// levels, and the write-hazard rule is checked over the enumerated list and across level
// iterations. A marked list that breaks the rule is folded as ordinary host loops.

// RUN: vta-opt %s -p vta-fold-uop-loops | filecheck %s

// CHECK-LABEL: func.func @listed(
// CHECK-NEXT:    vta.uop_loop 4 dst 1 src 1 {
// CHECK-NEXT:      affine.for %[[KH:.*]] = 0 to 3 {
// CHECK-NEXT:        affine.for %[[O:.*]] = 0 to 4 {
// CHECK-NEXT:          %[[D:.*]] = affine.apply affine_map<(d0) -> ((d0 * 4))> (%[[O]])
// CHECK-NEXT:          %[[W:.*]] = affine.apply affine_map<(d0, d1) -> ((d0 + (d1 * 3)))> (%[[KH]], %[[O]])
// CHECK-NEXT:          vta.gemm %{{.*}}[%[[D]]] += %{{.*}}[%[[KH]]] * %{{.*}}[%[[W]]]
// CHECK-NEXT:        }{{$}}
// CHECK-NEXT:      }{{$}}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// With two output channels outermost in the list, every other micro-op writes the same element.
// CHECK-LABEL: func.func @hazard(
// CHECK-NEXT:    affine.for %[[H:.*]] = 0 to 4 {
// CHECK-NEXT:      vta.uop_loop 2 dst 4 wgt 3 {
// CHECK-NEXT:        vta.uop_loop 3 src 1 wgt 1 {
// CHECK-NEXT:          vta.gemm %{{.*}}[%[[H]]] += %{{.*}}[%[[H]]] * %{{.*}}[0]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }{{$}}

!acc = memref<16x1x16xi32, #vta.sram<acc>>
!inp = memref<24x1x16xi8, #vta.sram<inp>>
!wgt = memref<12x16x16xi8, #vta.sram<wgt>>
func.func @listed(%acc: !acc, %inp: !inp, %wgt: !wgt) {
  affine.for %h = 0 to 4 {
    affine.for %kh = 0 to 3 {
      affine.for %o = 0 to 4 {
        %d = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)> (%o, %h)
        %s = affine.apply affine_map<(d0, d1) -> (d0 + d1)> (%h, %kh)
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 3 + d1)> (%o, %kh)
        vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : !acc, !inp, !wgt
      } {vta.uop_list}
    } {vta.uop_list}
  }
  return
}
func.func @hazard(%acc: !acc, %inp: !inp, %wgt: !wgt) {
  affine.for %h = 0 to 4 {
    affine.for %o = 0 to 2 {
      affine.for %kh = 0 to 3 {
        %d = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)> (%o, %h)
        %s = affine.apply affine_map<(d0, d1) -> (d0 + d1)> (%h, %kh)
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 3 + d1)> (%o, %kh)
        vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : !acc, !inp, !wgt
      } {vta.uop_list}
    } {vta.uop_list}
  }
  return
}
