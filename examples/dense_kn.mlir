// A dense layer with weights given K×N (x @ w, linalg.matmul) and a signed int8 saturation:
// y = int8(clip((x @ w - 64) >> 5, -128, 127)).
// Lower with: vta-opt examples/dense_kn.mlir -p vta-pack

func.func @dense_kn(%x: memref<8x96xi8>, %w: memref<96x80xi8>, %y: memref<8x80xi8>) {
  %acc = memref.alloc() : memref<8x80xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<8x80xi32>)
  linalg.matmul ins(%x, %w : memref<8x96xi8>, memref<96x80xi8>) outs(%acc : memref<8x80xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<8x80xi32>) outs(%y : memref<8x80xi8>) {
  ^bb0(%a: i32, %out: i8):
    %c64 = arith.constant 64 : i32
    %c5 = arith.constant 5 : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %d = arith.subi %a, %c64 : i32
    %s = arith.shrsi %d, %c5 : i32
    %p = arith.maxsi %s, %lo : i32
    %q = arith.minsi %p, %hi : i32
    %t = arith.trunci %q : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<8x80xi32>
  return
}
