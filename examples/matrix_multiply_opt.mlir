// Blocked matrix multiply (TVM's matrix_multiply_opt tutorial, the running example of
// docs/pipeline.md): 1×1024 activations times 1024×1024 weights given K×N (x @ w), then
// y = int8(clip(acc >> 8, 0, 127)).
// Lower with: vta-opt examples/matrix_multiply_opt.mlir -p vta-pack

func.func @dense(%x: memref<1x1024xi8>, %w: memref<1024x1024xi8>, %y: memref<1x1024xi8>) {
  %acc = memref.alloc() : memref<1x1024xi32>
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c127 = arith.constant 127 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x1024xi32>)
  linalg.matmul ins(%x, %w : memref<1x1024xi8>, memref<1024x1024xi8>)
      outs(%acc : memref<1x1024xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<1x1024xi32>) outs(%y : memref<1x1024xi8>) {
  ^bb0(%a: i32, %out: i8):
    %s = arith.shrsi %a, %c8 : i32
    %p = arith.maxsi %s, %c0 : i32
    %q = arith.minsi %p, %c127 : i32
    %t = arith.trunci %q : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<1x1024xi32>
  return
}
