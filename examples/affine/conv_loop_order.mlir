// A padded 3×3 convolution (stride 1, pad 1) with a per-channel bias, written as affine loops
// in the order (f, c, kh, kw, n, oh, ow): the zero-filled padded buffer, the copy into its
// interior, the accumulator filled with 0, the convolution, and the epilogue
// y = int8(clip((conv + bias[f]) >> 5, 0, 127)).  vta-raise-loops gives the padding idiom and
// the convolution linalg.generic.
// Run with: vta-run examples/affine/conv_loop_order.mlir --random-inputs --check

func.func @conv_loop_order(%x: memref<1x16x8x8xi8>, %w: memref<16x16x3x3xi8>,
                           %bias: memref<16xi32>, %y: memref<1x16x8x8xi8>) {
  %z8 = arith.constant 0 : i8
  %zero = arith.constant 0 : i32
  %c5 = arith.constant 5 : i32
  %c127 = arith.constant 127 : i32
  %xp = memref.alloc() : memref<1x16x10x10xi8>
  affine.for %n = 0 to 1 {
    affine.for %c = 0 to 16 {
      affine.for %h = 0 to 10 {
        affine.for %v = 0 to 10 {
          affine.store %z8, %xp[%n, %c, %h, %v] : memref<1x16x10x10xi8>
        }
      }
    }
  }
  affine.for %n = 0 to 1 {
    affine.for %c = 0 to 16 {
      affine.for %h = 0 to 8 {
        affine.for %v = 0 to 8 {
          %e = affine.load %x[%n, %c, %h, %v] : memref<1x16x8x8xi8>
          affine.store %e, %xp[%n, %c, %h + 1, %v + 1] : memref<1x16x10x10xi8>
        }
      }
    }
  }
  %acc = memref.alloc() : memref<1x16x8x8xi32>
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 16 {
      affine.for %h = 0 to 8 {
        affine.for %v = 0 to 8 {
          affine.store %zero, %acc[%n, %f, %h, %v] : memref<1x16x8x8xi32>
        }
      }
    }
  }
  affine.for %f = 0 to 16 {
    affine.for %c = 0 to 16 {
      affine.for %kh = 0 to 3 {
        affine.for %kw = 0 to 3 {
          affine.for %n = 0 to 1 {
            affine.for %oh = 0 to 8 {
              affine.for %ow = 0 to 8 {
                %a = affine.load %xp[%n, %c, %oh + %kh, %ow + %kw] : memref<1x16x10x10xi8>
                %b = affine.load %w[%f, %c, %kh, %kw] : memref<16x16x3x3xi8>
                %s0 = affine.load %acc[%n, %f, %oh, %ow] : memref<1x16x8x8xi32>
                %ae = arith.extsi %a : i8 to i32
                %be = arith.extsi %b : i8 to i32
                %p = arith.muli %ae, %be : i32
                %s = arith.addi %s0, %p : i32
                affine.store %s, %acc[%n, %f, %oh, %ow] : memref<1x16x8x8xi32>
              }
            }
          }
        }
      }
    }
  }
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 16 {
      affine.for %h = 0 to 8 {
        affine.for %v = 0 to 8 {
          %r0 = affine.load %acc[%n, %f, %h, %v] : memref<1x16x8x8xi32>
          %b = affine.load %bias[%f] : memref<16xi32>
          %s = arith.addi %r0, %b : i32
          %r = arith.shrsi %s, %c5 : i32
          %lo = arith.maxsi %r, %zero : i32
          %hi = arith.minsi %lo, %c127 : i32
          %t = arith.trunci %hi : i32 to i8
          affine.store %t, %y[%n, %f, %h, %v] : memref<1x16x8x8xi8>
        }
      }
    }
  }
  memref.dealloc %acc : memref<1x16x8x8xi32>
  memref.dealloc %xp : memref<1x16x10x10xi8>
  return
}
