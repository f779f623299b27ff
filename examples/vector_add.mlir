// Vector add (TVM's vta_get_started tutorial): two int32 vectors loaded into the accumulator,
// one ALU ADD, stored as int8 (wrapping): C = int8(A + B).
// Lower with: vta-opt examples/vector_add.mlir -p vta-pack

func.func @vector_add(%a: memref<1x1024xi32>, %b: memref<1x1024xi32>, %c: memref<1x1024xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<1x1024xi32>, memref<1x1024xi32>) outs(%c : memref<1x1024xi8>) {
  ^bb0(%x: i32, %y: i32, %out: i8):
    %s = arith.addi %x, %y : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}
