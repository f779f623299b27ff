// vta-outline-host-steps: each run of top-level ops computing on floats becomes one vta.host;
// constants and views between them stay, and a step that uses one gets a copy (the original
// goes when nothing else uses it); an
// allocation only the step uses moves into it with its deallocation.  Buffers the step writes
// are outputs, the others inputs.  A program without float ops is left as it is.

// RUN: vta-opt %s -p vta-outline-host-steps --split-input-file | filecheck %s
// RUN: vta-opt %s -p vta-outline-host-steps,vta-outline-host-steps --split-input-file | filecheck %s

#id = affine_map<(i, j) -> (i, j)>

// CHECK-LABEL: func.func @dequantize_requantize(
// CHECK-SAME:      %x: memref<2x8xi8>, %y: memref<2x8xi8>)
// CHECK-NEXT:    vta.host "host@{{[0-9]+}}" ins(%x : memref<2x8xi8>) outs(%y : memref<2x8xi8>) {
// CHECK-NEXT:    ^bb0(%x_1: memref<2x8xi8>, %y_1: memref<2x8xi8>):
// CHECK-NEXT:      %scale = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %f = memref.alloc() : memref<2x8xf32>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%x_1 : memref<2x8xi8>) outs(%f : memref<2x8xf32>)
// CHECK:           linalg.generic {{.*}} ins(%f : memref<2x8xf32>) outs(%y_1 : memref<2x8xi8>)
// CHECK:           memref.dealloc %f : memref<2x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @dequantize_requantize(%x: memref<2x8xi8>, %y: memref<2x8xi8>) {
  %scale = arith.constant 0.5 : f32
  %f = memref.alloc() : memref<2x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x8xi8>) outs(%f : memref<2x8xf32>) {
  ^bb0(%a: i8, %o: f32):
    %v = arith.sitofp %a : i8 to f32
    %m = arith.mulf %v, %scale : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%f : memref<2x8xf32>) outs(%y : memref<2x8xi8>) {
  ^bb0(%a: f32, %o: i8):
    %r = math.roundeven %a : f32
    %q = arith.fptosi %r : f32 to i8
    linalg.yield %q : i8
  }
  memref.dealloc %f : memref<2x8xf32>
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// Two runs of float ops with an integer op between them: two steps.  The integer op stays
// (vta-pack takes or refuses it).
// CHECK-LABEL: func.func @two_steps(
// CHECK:         vta.host "host@{{[0-9]+}}" ins(%x : memref<2x8xi8>) outs(%h : memref<2x8xi8>)
// CHECK:         linalg.generic {{.*}} ins(%h : memref<2x8xi8>) outs(%g : memref<2x8xi8>)
// CHECK:         vta.host "host@{{[0-9]+}}" ins(%g : memref<2x8xi8>) outs(%y : memref<2x8xi8>)
// CHECK-NOT:     vta.host
func.func @two_steps(%x: memref<2x8xi8>, %h: memref<2x8xi8>, %g: memref<2x8xi8>,
                     %y: memref<2x8xi8>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x8xi8>) outs(%h : memref<2x8xi8>) {
  ^bb0(%a: i8, %o: i8):
    %v = arith.sitofp %a : i8 to f32
    %q = arith.fptosi %v : f32 to i8
    linalg.yield %q : i8
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : memref<2x8xi8>) outs(%g : memref<2x8xi8>) {
  ^bb0(%a: i8, %o: i8):
    linalg.yield %a : i8
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : memref<2x8xi8>) outs(%y : memref<2x8xi8>) {
  ^bb0(%a: i8, %o: i8):
    %v = arith.sitofp %a : i8 to f32
    %n = arith.negf %v : f32
    %q = arith.fptosi %n : f32 to i8
    linalg.yield %q : i8
  }
  return
}

// -----

// No float op: nothing changes.
// CHECK-LABEL: func.func @integers(
// CHECK-NEXT:    %c = arith.constant 3 : i8
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    func.return
func.func @integers(%y: memref<2x8xi8>) {
  %c = arith.constant 3 : i8
  linalg.fill ins(%c : i8) outs(%y : memref<2x8xi8>)
  return
}

// -----

// A float buffer two steps use stays in the function: the first step writes it, the second
// reads it (a scale computed at run time, kept across a device run); a float buffer only one
// step uses moves into it.  Each step runs where its first op ran.

// CHECK-LABEL: func.func @scale_across_runs(
// CHECK-NEXT:      %scale = memref.alloc() : memref<1xf32>
// CHECK-NEXT:      %q = memref.alloc() : memref<4x16xi8>
// CHECK-NEXT:      %acc = memref.alloc() : memref<4x16xi32>
// CHECK-NEXT:      vta.host "host@{{[0-9]+}}" ins(%x : memref<4x16xf32>) outs(%scale, %q : memref<1xf32>, memref<4x16xi8>) {
// CHECK:           linalg.matmul
// CHECK-NEXT:      vta.host "host@{{[0-9]+}}" ins(%acc, %scale : memref<4x16xi32>, memref<1xf32>) outs(%y : memref<4x16xf32>) {
func.func @scale_across_runs(%x: memref<4x16xf32>, %w: memref<16x16xi8>, %y: memref<4x16xf32>) attributes {vta.host_float} {
  %scale = memref.alloc() : memref<1xf32>
  %q = memref.alloc() : memref<4x16xi8>
  %acc = memref.alloc() : memref<4x16xi32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0)>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<4x16xf32>) outs(%scale : memref<1xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %scale : memref<4x16xf32>, memref<1xf32>) outs(%q : memref<4x16xi8>) {
  ^bb0(%a: f32, %s: f32, %o: i8):
    %d = arith.divf %a, %s : f32
    %c = arith.fptosi %d : f32 to i8
    linalg.yield %c : i8
  }
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x16xi32>)
  linalg.matmul ins(%q, %w : memref<4x16xi8>, memref<16x16xi8>) outs(%acc : memref<4x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc, %scale : memref<4x16xi32>, memref<1xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%a: i32, %s: f32, %o: f32):
    %f = arith.sitofp %a : i32 to f32
    %m = arith.mulf %f, %s : f32
    linalg.yield %m : f32
  }
  return
}
