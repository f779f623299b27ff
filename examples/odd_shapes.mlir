// Shapes that are not whole blocks: 3×40 activations, 40×24 weights (K×N), a bias of 24
// broadcast into the accumulator before the contraction accumulates onto it (TVM's style),
// y = int8(clip((bias + x @ w) >> 3, 0, 127)).  The host zero-pads every dimension to whole
// blocks and crops the result.
// Lower with: vta-opt examples/odd_shapes.mlir -p vta-pack

func.func @odd_shapes(%x: memref<3x40xi8>, %w: memref<40x24xi8>, %bias: memref<24xi32>,
                      %y: memref<3x24xi8>) {
  %acc = memref.alloc() : memref<3x24xi32>
  linalg.broadcast ins(%bias : memref<24xi32>) outs(%acc : memref<3x24xi32>) dimensions = [0]
  linalg.matmul ins(%x, %w : memref<3x40xi8>, memref<40x24xi8>) outs(%acc : memref<3x24xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<3x24xi32>) outs(%y : memref<3x24xi8>) {
  ^bb0(%a: i32, %out: i8):
    %c3 = arith.constant 3 : i32
    %c0 = arith.constant 0 : i32
    %c127 = arith.constant 127 : i32
    %s = arith.shrsi %a, %c3 : i32
    %p = arith.maxsi %s, %c0 : i32
    %q = arith.minsi %p, %c127 : i32
    %t = arith.trunci %q : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<3x24xi32>
  return
}
