// A matrix multiply written as affine loops, the accumulator initialised inside the nest (a
// store of 0 at the start of the reduction loop), weights N×K, then a requantising epilogue
// nest: y = int8(clip(x · wᵀ >> 6, 0, 127)).  vta-raise-loops turns the nests into
// linalg.fill, the contraction linalg.generic and the element-wise one.
// Run with: vta-run examples/affine/matmul_init_inside.mlir --random-inputs --check

func.func @matmul_init_inside(%x: memref<4x64xi8>, %w: memref<32x64xi8>, %y: memref<4x32xi8>) {
  %zero = arith.constant 0 : i32
  %c6 = arith.constant 6 : i32
  %c127 = arith.constant 127 : i32
  %acc = memref.alloc() : memref<4x32xi32>
  affine.for %m = 0 to 4 {
    affine.for %n = 0 to 32 {
      affine.store %zero, %acc[%m, %n] : memref<4x32xi32>
      affine.for %k = 0 to 64 {
        %a = affine.load %x[%m, %k] : memref<4x64xi8>
        %b = affine.load %w[%n, %k] : memref<32x64xi8>
        %s0 = affine.load %acc[%m, %n] : memref<4x32xi32>
        %ae = arith.extsi %a : i8 to i32
        %be = arith.extsi %b : i8 to i32
        %p = arith.muli %ae, %be : i32
        %s = arith.addi %s0, %p : i32
        affine.store %s, %acc[%m, %n] : memref<4x32xi32>
      }
    }
  }
  affine.for %m = 0 to 4 {
    affine.for %n = 0 to 32 {
      %v = affine.load %acc[%m, %n] : memref<4x32xi32>
      %r = arith.shrsi %v, %c6 : i32
      %lo = arith.maxsi %r, %zero : i32
      %hi = arith.minsi %lo, %c127 : i32
      %t = arith.trunci %hi : i32 to i8
      affine.store %t, %y[%m, %n] : memref<4x32xi8>
    }
  }
  memref.dealloc %acc : memref<4x32xi32>
  return
}
