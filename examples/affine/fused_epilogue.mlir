// A dense layer with bias and ReLU written as one affine nest, weights K×N: for each output
// element the accumulator is set to 0, the reduction loop sums the products, and the epilogue
// y = int8(clip((acc + bias[n]) >> 7, 0, 127)) follows in the same loop body.
// vta-raise-loops distributes the nest (no loop carries a dependence between its statements)
// into linalg.fill, the contraction and the element-wise linalg.generic.
// Run with: vta-run examples/affine/fused_epilogue.mlir --random-inputs --check

func.func @fused_epilogue(%x: memref<8x64xi8>, %w: memref<64x48xi8>, %bias: memref<48xi32>,
                          %y: memref<8x48xi8>) {
  %zero = arith.constant 0 : i32
  %c7 = arith.constant 7 : i32
  %c127 = arith.constant 127 : i32
  %acc = memref.alloc() : memref<8x48xi32>
  affine.for %m = 0 to 8 {
    affine.for %n = 0 to 48 {
      affine.store %zero, %acc[%m, %n] : memref<8x48xi32>
      affine.for %k = 0 to 64 {
        %a = affine.load %x[%m, %k] : memref<8x64xi8>
        %b = affine.load %w[%k, %n] : memref<64x48xi8>
        %s0 = affine.load %acc[%m, %n] : memref<8x48xi32>
        %ae = arith.extsi %a : i8 to i32
        %be = arith.extsi %b : i8 to i32
        %p = arith.muli %ae, %be : i32
        %s = arith.addi %s0, %p : i32
        affine.store %s, %acc[%m, %n] : memref<8x48xi32>
      }
      %v = affine.load %acc[%m, %n] : memref<8x48xi32>
      %bn = affine.load %bias[%n] : memref<48xi32>
      %vb = arith.addi %v, %bn : i32
      %r = arith.shrsi %vb, %c7 : i32
      %lo = arith.maxsi %r, %zero : i32
      %hi = arith.minsi %lo, %c127 : i32
      %t = arith.trunci %hi : i32 to i8
      affine.store %t, %y[%m, %n] : memref<8x48xi8>
    }
  }
  memref.dealloc %acc : memref<8x48xi32>
  return
}
