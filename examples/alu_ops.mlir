// The ALU unit tests of TVM's test_vta_insn.py (docs/performance.md §4.3) as one function: each i8
// output is one VTA region computed from the int32 inputs %a and %b.
//   %shl_imm      int8(a << 3)                 (an ALU SHR by -3)
//   %shr_imm      int8(a >> 2)
//   %max_imm      int8(max(a, 4))
//   %max_tensor   int8(max(a, b))              (b loaded into a second accumulator)
//   %add_imm      int8(a + 3)
//   %add_tensor   int8(a + b)
//   %relu         int8(min(max(a, 0), 127))    (two ALU ops)
//   %shift_scale  int8((a + 5) >> 2)
// Lower with: vta-opt examples/alu_ops.mlir -p vta-pack

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @alu_ops(%a: memref<8x128xi32>, %b: memref<8x128xi32>,
                   %shl_imm: memref<8x128xi8>, %shr_imm: memref<8x128xi8>,
                   %max_imm: memref<8x128xi8>, %max_tensor: memref<8x128xi8>,
                   %add_imm: memref<8x128xi8>, %add_tensor: memref<8x128xi8>,
                   %relu: memref<8x128xi8>, %shift_scale: memref<8x128xi8>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x128xi32>) outs(%shl_imm : memref<8x128xi8>) {
  ^bb0(%x: i32, %o: i8):
    %c3 = arith.constant 3 : i32
    %r = arith.shli %x, %c3 : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x128xi32>) outs(%shr_imm : memref<8x128xi8>) {
  ^bb0(%x: i32, %o: i8):
    %c2 = arith.constant 2 : i32
    %r = arith.shrsi %x, %c2 : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x128xi32>) outs(%max_imm : memref<8x128xi8>) {
  ^bb0(%x: i32, %o: i8):
    %c4 = arith.constant 4 : i32
    %r = arith.maxsi %x, %c4 : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<8x128xi32>, memref<8x128xi32>) outs(%max_tensor : memref<8x128xi8>) {
  ^bb0(%x: i32, %y: i32, %o: i8):
    %r = arith.maxsi %x, %y : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x128xi32>) outs(%add_imm : memref<8x128xi8>) {
  ^bb0(%x: i32, %o: i8):
    %c3 = arith.constant 3 : i32
    %r = arith.addi %x, %c3 : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<8x128xi32>, memref<8x128xi32>) outs(%add_tensor : memref<8x128xi8>) {
  ^bb0(%x: i32, %y: i32, %o: i8):
    %r = arith.addi %x, %y : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x128xi32>) outs(%relu : memref<8x128xi8>) {
  ^bb0(%x: i32, %o: i8):
    %c0 = arith.constant 0 : i32
    %c127 = arith.constant 127 : i32
    %p = arith.maxsi %x, %c0 : i32
    %q = arith.minsi %p, %c127 : i32
    %t = arith.trunci %q : i32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x128xi32>) outs(%shift_scale : memref<8x128xi8>) {
  ^bb0(%x: i32, %o: i8):
    %c5 = arith.constant 5 : i32
    %c2 = arith.constant 2 : i32
    %s = arith.addi %x, %c5 : i32
    %r = arith.shrsi %s, %c2 : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  return
}
