// Errors raised by a pass are reported at the op it failed on: here xDSL's
// convert-linalg-to-loops, which does not lower tensors.

// RUN: vta-opt %s --verify-diagnostics -p convert-linalg-to-loops
// RUN: not vta-opt %s -p convert-linalg-to-loops 2>&1 | filecheck %s

// CHECK: verify-diagnostics-pass.mlir:[[# @LINE + 4]]:3: error: 'linalg.matmul' op not supported: lowering for linalg.matmul with tensor results not yet supported

func.func @tensor(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>, %z: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{lowering for linalg.matmul with tensor results not yet supported}}
  %r = linalg.matmul ins(%x, %y : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
