// The TensorizeElementwise pattern of vta-tensorize: an element-wise linalg.generic in place on
// an accumulator buffer, its body one ALU operation, becomes a nest of `vta.alu` over the
// element dimensions: `vta.alu <op> %acc[d], imm` for a constant operand (either side of a
// commutative op), `vta.alu <op> %acc[d], %src[s]` for an accumulator operand, read without
// the broadcast dimensions of its map (the bias row `(0, bb, oo)`), or the element itself (x op x).

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-tensorize | filecheck %s

// CHECK-LABEL: func.func @alu_imm(
// CHECK-SAME:      %[[ACC:.*]]: memref<4x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:    %{{.*}} = arith.constant 8 : i32
// CHECK-NEXT:    affine.for %[[R:.*]] = 0 to 4 {
// CHECK-NEXT:      vta.alu shr %[[ACC]][%[[R]]], 8 : memref<4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    }
// CHECK-NEXT:    affine.for %[[S:.*]] = 0 to 4 {
// CHECK-NEXT:      vta.alu min %[[ACC]][%[[S]]], 127 : memref<4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// CHECK-LABEL: func.func @alu_tensor(
// CHECK-SAME:      %[[ACC:[^:]*]]: memref<4x1x16xi32, #vta.sram<acc>>, %[[B:[^:]*]]: memref<1x1x16xi32, #vta.sram<acc>>)
// CHECK-NEXT:    affine.for %[[R:.*]] = 0 to 4 {
// CHECK-NEXT:      vta.alu add %[[ACC]][%[[R]]], %[[B]][0] : memref<4x1x16xi32, #vta.sram<acc>>, memref<1x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    }
// CHECK-NEXT:    affine.for %[[S:.*]] = 0 to 4 {
// CHECK-NEXT:      vta.alu max %[[ACC]][%[[S]]], %[[ACC]][%[[S]]] : memref<4x1x16xi32, #vta.sram<acc>>, memref<4x1x16xi32, #vta.sram<acc>>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

#id = affine_map<(o, bb, oo) -> (o, bb, oo)>
func.func @alu_imm(%acc: memref<4x1x16xi32, #vta.sram<acc>>) {
  %c8 = arith.constant 8 : i32
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%o: i32):
    %r = arith.shrsi %o, %c8 : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%o: i32):
    %c = arith.constant 127 : i32
    %r = arith.minsi %c, %o : i32
    linalg.yield %r : i32
  }
  return
}

// -----

#id = affine_map<(o, bb, oo) -> (o, bb, oo)>
#bias = affine_map<(o, bb, oo) -> (0, bb, oo)>
func.func @alu_tensor(%acc: memref<4x1x16xi32, #vta.sram<acc>>, %b: memref<1x1x16xi32, #vta.sram<acc>>) {
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : memref<1x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%x: i32, %o: i32):
    %r = arith.addi %o, %x : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%acc : memref<4x1x16xi32, #vta.sram<acc>>) outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%x: i32, %o: i32):
    %r = arith.maxsi %x, %o : i32
    linalg.yield %r : i32
  }
  return
}
