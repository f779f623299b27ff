// A dense layer with bias and ReLU at batch 64, weights K×N (x @ w, linalg.matmul):
// y = int8(clip((x @ w + bias) >> 7, 0, 127)), one int32 bias per output channel.
// Lower with: vta-opt examples/dense_batch64.mlir -p vta-pack

func.func @dense_batch64(%x: memref<64x128xi8>, %w: memref<128x96xi8>, %bias: memref<96xi32>,
                         %y: memref<64x96xi8>) {
  %acc = memref.alloc() : memref<64x96xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<64x96xi32>)
  linalg.matmul ins(%x, %w : memref<64x128xi8>, memref<128x96xi8>)
      outs(%acc : memref<64x96xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>,
                                   affine_map<(m, n) -> (n)>,
                                   affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<64x96xi32>, memref<96xi32>) outs(%y : memref<64x96xi8>) {
  ^bb0(%v: i32, %b: i32, %out: i8):
    %c7 = arith.constant 7 : i32
    %zero = arith.constant 0 : i32
    %c127 = arith.constant 127 : i32
    %s = arith.addi %v, %b : i32
    %r = arith.shrsi %s, %c7 : i32
    %lo = arith.maxsi %r, %zero : i32
    %hi = arith.minsi %lo, %c127 : i32
    %t = arith.trunci %hi : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<64x96xi32>
  return
}
