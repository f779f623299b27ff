// vta-pack on nearest upsampling by integer factors (passes/pack/match_resize.py): the input map
// (n, c, h floordiv fh, w floordiv fw) becomes the same map on the packed tensor layout, reading
// the data in the accumulator's layout (like a pooling), sign-extended into the accumulator;
// an epilogue follows as immediate ALU ops. A body computing on the value is diagnosed.

// RUN: vta-opt %s --split-input-file --verify-diagnostics -p vta-pack | filecheck %s

// CHECK-LABEL: func.func @upsample_epilogue(
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<1x1x8x6x1x16xi32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, (d2 floordiv 2), (d3 floordiv 2), d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x4x3x1x16xi8>) outs(%[[ACC]] : memref<1x1x8x6x1x16xi32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: i8, %{{.*}}: i32):
// CHECK-NEXT:      arith.extsi
// CHECK:         arith.shrsi
// CHECK:         arith.addi
// CHECK:         arith.minsi
// CHECK:         outs(%y : memref<1x1x8x6x1x16xi8>)
func.func @upsample_epilogue(%x: memref<1x16x4x3xi8>, %y: memref<1x16x8x6xi8>) {
  %acc = memref.alloc() : memref<1x16x8x6xi32>
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h floordiv 2, w floordiv 2)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x16x4x3xi8>) outs(%acc : memref<1x16x8x6xi32>) {
  ^bb0(%a: i8, %o: i32):
    %e = arith.extsi %a : i8 to i32
    linalg.yield %e : i32
  }
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x16x8x6xi32>) outs(%y : memref<1x16x8x6xi8>) {
  ^bb0(%v: i32, %o: i8):
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %c50 = arith.constant 50 : i32
    %s = arith.shrsi %v, %c1 : i32
    %a = arith.addi %s, %c3 : i32
    %m = arith.minsi %a, %c50 : i32
    %t = arith.trunci %m : i32 to i8
    linalg.yield %t : i8
  }
  return
}


// -----

func.func @upsample_computes(%x: memref<1x16x4x4xi8>, %y: memref<1x16x8x8xi8>) {
  // expected-error @+1 {{reads its input through a nearest upsampling's map but computes on it: VTA upsamples a copy of the data (arith.extsi into an i32 buffer, or the i8 value itself); an epilogue follows as its own linalg.generic}}
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h floordiv 2, w floordiv 2)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x16x4x4xi8>) outs(%y : memref<1x16x8x8xi8>) {
  ^bb0(%a: i8, %o: i8):
    %d = arith.addi %a, %a : i8
    linalg.yield %d : i8
  }
  return
}
