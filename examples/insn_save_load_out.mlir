// TVM's test_vta_insn.py test_save_load_out (docs/performance.md §4.3) at the input level: int32
// values loaded into the accumulator and stored back as int8, y = int8(x) (wrapping).
// Lower with: vta-opt examples/insn_save_load_out.mlir -p vta-pack

func.func @insn_save_load_out(%x: memref<6x96xi32>, %y: memref<6x96xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<6x96xi32>) outs(%y : memref<6x96xi8>) {
  ^bb0(%a: i32, %out: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  return
}
