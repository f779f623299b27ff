// --mlir-print-ir-after-all prints the module to stderr after every pass, under MLIR's
// banner; stdout has only the final module.

// RUN: vta-opt %s -p linalg-generalize-named-ops,convert-linalg-to-loops --mlir-print-ir-after-all 2>%t.err | filecheck %s --check-prefix=OUT
// RUN: filecheck %s --check-prefix=ERR < %t.err
// RUN: vta-opt %s --pass-pipeline='builtin.module(linalg-generalize-named-ops,convert-linalg-to-loops)' --mlir-print-ir-after-all 2>&1 >/dev/null | diff %t.err -

// OUT-NOT:  IR Dump
// OUT:      scf.for

// ERR:      // -----// IR Dump After linalg-generalize-named-ops //----- //
// ERR-NEXT: builtin.module {
// ERR:        linalg.generic
// ERR:      // -----// IR Dump After convert-linalg-to-loops //----- //
// ERR-NEXT: builtin.module {
// ERR-NOT:    linalg.
// ERR:        scf.for
func.func @mm(%a: memref<2x3xi8>, %b: memref<3x2xi8>, %c: memref<2x2xi32>) {
  linalg.matmul ins(%a, %b : memref<2x3xi8>, memref<3x2xi8>) outs(%c : memref<2x2xi32>)
  return
}
