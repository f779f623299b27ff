// A FileCheck test of the plugin custom_pass.py (vta-drop-noop-alu), run by lit with the
// configuration lit.cfg.py of this folder: `lit -v examples/plugins`.
//
// The program's epilogue multiplies by 1, a micro-op vta-pack keeps and the plugin removes.
// The plugin runs alone on the vta IR vta-to-isa's stages leave (first RUN), and inside
// vta-to-isa, after vta-fold-uop-loops, with the prepasses (vta-bufferize here) kept: then
// the program has no ALU multiplication left, and it still computes what numpy computes.

// RUN: vta-opt %s -p vta-bufferize,vta-pack,vta-tile,vta-inject-dma,vta-tensorize,vta-fold-uop-loops | vta-opt --load-pass-plugin %S/custom_pass.py -p vta-drop-noop-alu | filecheck %s --check-prefix=VTA
// RUN: vta-opt %s -p vta-to-isa | filecheck %s --check-prefix=DEFAULT
// RUN: vta-opt %s --load-pass-plugin %S/custom_pass.py -p 'vta-to-isa{insert-after=vta-fold-uop-loops:vta-drop-noop-alu}' | filecheck %s --check-prefix=DROPPED
// RUN: vta-run %s --load-pass-plugin %S/custom_pass.py -p 'vta-to-isa{insert-after=vta-fold-uop-loops:vta-drop-noop-alu}' --random-inputs --check | filecheck %s --check-prefix=CHECKED

// VTA-LABEL: func.func @scale
// VTA-NOT:     vta.alu mul
// VTA:         vta.alu shr %{{.*}}, 6
// VTA-NOT:     vta.alu mul

// DEFAULT:     vtaisa.alu mul {{.*}} imm 1
// DEFAULT:     vtaisa.alu shr {{.*}} imm 6

// DROPPED-NOT: vtaisa.alu mul
// DROPPED:     vtaisa.alu shr {{.*}} imm 6
// DROPPED-NOT: vtaisa.alu mul

// CHECKED:     check: PASS

func.func @scale(%x: tensor<4x64xi8>, %w: tensor<64x48xi8>) -> tensor<4x48xi8> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x48xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<4x48xi32>) -> tensor<4x48xi32>
  %acc = linalg.matmul ins(%x, %w : tensor<4x64xi8>, tensor<64x48xi8>)
                       outs(%f : tensor<4x48xi32>) -> tensor<4x48xi32>
  %o = tensor.empty() : tensor<4x48xi8>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%acc : tensor<4x48xi32>) outs(%o : tensor<4x48xi8>) {
  ^bb0(%a: i32, %out: i8):
    %c1 = arith.constant 1 : i32
    %c6 = arith.constant 6 : i32
    %m = arith.muli %a, %c1 : i32
    %s = arith.shrsi %m, %c6 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  } -> tensor<4x48xi8>
  return %y : tensor<4x48xi8>
}
