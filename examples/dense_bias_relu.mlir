// A dense layer with bias and ReLU, batch 32: y = int8(clip((x · wᵀ + bias) >> 6, 0, 127)),
// weights N×K (output channel major) in a linalg.generic, bias one int32 per output channel.
// Lower with: vta-opt examples/dense_bias_relu.mlir -p vta-pack

func.func @dense_bias_relu(%x: memref<32x64xi8>, %w: memref<48x64xi8>, %bias: memref<48xi32>,
                           %y: memref<32x48xi8>) {
  %acc = memref.alloc() : memref<32x48xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<32x48xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xi8>, memref<48x64xi8>) outs(%acc : memref<32x48xi32>) {
  ^bb0(%a: i8, %b: i8, %sum: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %s = arith.addi %sum, %p : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>,
                                   affine_map<(m, n) -> (n)>,
                                   affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<32x48xi32>, memref<48xi32>) outs(%y : memref<32x48xi8>) {
  ^bb0(%v: i32, %b: i32, %out: i8):
    %c6 = arith.constant 6 : i32
    %zero = arith.constant 0 : i32
    %c127 = arith.constant 127 : i32
    %s = arith.addi %v, %b : i32
    %r = arith.shrsi %s, %c6 : i32
    %lo = arith.maxsi %r, %zero : i32
    %hi = arith.minsi %lo, %c127 : i32
    %t = arith.trunci %hi : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<32x48xi32>
  return
}
