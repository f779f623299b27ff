// Per-layer figures: a function of two VTA regions is two layers, one named by the loc("add1")
// the input gives its op, the other after its op's kind and line.  --stats lists them under
// "layers" (DRAM bytes per buffer: each 1x32 int32 input is 128 packed bytes, read once, each
// int8 output 32 bytes, written once); --trace has one slice per layer on a "layers" track; the
// layers survive vta-translate to a .vtab (format version 2) and vta-lower-to-isa.

// RUN: vta-run %s --random-inputs --check --stats - | filecheck %s --check-prefix=STATS
// RUN: vta-run %s --random-inputs --trace %t.trace.json --output %t.y.npy --output %t.z.npy
// RUN: python -c "import sys, json; t = json.load(open(sys.argv[1])); print([e['name'] for e in t['traceEvents'] if e.get('cat') == 'layer'])" %t.trace.json | filecheck %s --check-prefix=TRACE
// RUN: vta-translate --emit=bin %s -o %t.vtab
// RUN: vta-run %t.vtab --random-inputs --stats - | filecheck %s --check-prefix=STATS
// RUN: vta-opt %s -p vta-to-isa | filecheck %s --check-prefix=ISA

// STATS:      "layers": [
// STATS-NEXT:   {
// STATS-NEXT:     "name": "add1",
// STATS:          "cycles": {{[1-9][0-9]*}},
// STATS:          "bound_by": "{{load|compute|store}}",
// STATS-NEXT:     "dram_bytes": {
// STATS-NEXT:       "a": {
// STATS-NEXT:         "read": 128,
// STATS-NEXT:         "written": 0
// STATS-NEXT:       },
// STATS-NEXT:       "b": {
// STATS-NEXT:         "read": 128,
// STATS-NEXT:         "written": 0
// STATS-NEXT:       },
// STATS:            "y": {
// STATS-NEXT:         "read": 0,
// STATS-NEXT:         "written": 32
// STATS-NEXT:       }
// STATS-NEXT:     },
// STATS-NEXT:     "compute_work": {
// STATS-NEXT:       "gemm": 0,
// STATS-NEXT:       "reset": 0,
// STATS-NEXT:       "alu": {{[1-9][0-9]*}},
// STATS-NEXT:       "loads": {{[1-9][0-9]*}}
// STATS-NEXT:     }
// STATS-NEXT:   },
// STATS-NEXT:   {
// STATS-NEXT:     "name": "elementwise@72",
// STATS:            "c": {
// STATS-NEXT:         "read": 128,
// STATS:            "z": {
// STATS-NEXT:         "read": 0,
// STATS-NEXT:         "written": 32
// STATS:        ],
// STATS-NEXT:   "temporaries_bytes": 0,
// STATS-NEXT:   "host_steps": [],
// STATS-NEXT:   "vta_mac_fraction": 1.0,
// STATS-NEXT:   "requant": null

// TRACE: ['add1', 'elementwise@72']

// ISA:      vtaisa.run
// ISA:        vtaisa.layer "add1"
// ISA:        vtaisa.layer "elementwise@72"
// ISA-NOT:    vtaisa.layer
// ISA:        vtaisa.finish

func.func @two_adds(%a: memref<1x32xi32>, %b: memref<1x32xi32>, %y: memref<1x32xi8>,
                    %c: memref<1x32xi32>, %d: memref<1x32xi32>, %z: memref<1x32xi8>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<1x32xi32>, memref<1x32xi32>) outs(%y : memref<1x32xi8>) {
  ^bb0(%p: i32, %q: i32, %out: i8):
    %s = arith.addi %p, %q : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  } loc("add1")
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c, %d : memref<1x32xi32>, memref<1x32xi32>) outs(%z : memref<1x32xi8>) {
  ^bb0(%p: i32, %q: i32, %out: i8):
    %s = arith.addi %p, %q : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}
