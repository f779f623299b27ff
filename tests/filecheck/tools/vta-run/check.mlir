// vta-run --check runs an input-level program through vta-to-isa on the simulator and through
// the numpy reference evaluator (vta_mlir.reference) on the same inputs, and compares every
// output bit for bit: `check: PASS`, or one line with how many elements differ and the first
// of them, and exit status 1.  The line goes where the output summary goes: stdout, or stderr
// when stdout carries --stats -.

// RUN: vta-run %s --random-inputs --check | filecheck %s --check-prefix=PASS
// RUN: vta-run %s --random-inputs --seed 5 --check --config block32 | filecheck %s --check-prefix=PASS
// RUN: vta-run %s --random-inputs --seed 6 --check --config batch2 | filecheck %s --check-prefix=PASS
// RUN: vta-run %s --random-inputs --check --stats - 2>&1 >/dev/null | filecheck %s --check-prefix=PASS
// RUN: vta-run %s --random-inputs --check --stats - 2>/dev/null | filecheck %s --check-prefix=STATS

// Inputs from files, wide enough that the int32 sums wrap before the shift.
// RUN: python -c "import sys, numpy as np; r = np.random.default_rng(3); np.save(sys.argv[1], r.integers(-128, 128, (3, 40)).astype(np.int8)); np.save(sys.argv[2], r.integers(-128, 128, (40, 24)).astype(np.int8))" %t.x.npy %t.w.npy
// RUN: vta-run %s --input %t.x.npy --input %t.w.npy --output %t.y.npy --check | filecheck %s --check-prefix=FILES
// RUN: python -c "import sys, numpy as np; x, w, y = (np.load(p) for p in sys.argv[1:]); want = np.clip(((x.astype(np.int64) @ w - 64) >> 4), -128, 127).astype(np.int8); print('numpy agrees' if np.array_equal(y, want) else 'numpy differs')" %t.x.npy %t.w.npy %t.y.npy | filecheck %s --check-prefix=NUMPY

// A reference that disagrees (the plugin adds one to element 5 of y) fails the check.
// RUN: env VTA_MLIR_PASS_PLUGINS=%S/Inputs/skew_reference.py not vta-run %s --random-inputs --check > %t.fail.txt
// RUN: filecheck %s --check-prefix=FAIL < %t.fail.txt
// RUN: env VTA_MLIR_PASS_PLUGINS=%S/Inputs/skew_reference.py not vta-run %s --random-inputs --check --output %t.y2.npy | filecheck %s --check-prefix=FAIL
// RUN: python -c "import sys, numpy as np; print(np.load(sys.argv[1]).shape)" %t.y2.npy | filecheck %s --check-prefix=WRITTEN

// PASS:      y: 3x24xint8 [{{.*}}]
// PASS-NEXT: check: PASS
// PASS-NOT:  {{.}}
// STATS:     "counters": {
// STATS-NOT: check:
// FILES:     check: PASS
// FILES-NOT: {{.}}
// NUMPY:     numpy agrees
// FAIL:      check: FAIL: 1 of 72 elements of 'y' differ, first at [0, 5]: expected {{-?[0-9]+}}, got {{-?[0-9]+}}
// WRITTEN:   (3, 24)

func.func @dense(%x: memref<3x40xi8>, %w: memref<40x24xi8>, %y: memref<3x24xi8>) {
  %acc = memref.alloc() : memref<3x24xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<3x24xi32>)
  linalg.matmul ins(%x, %w : memref<3x40xi8>, memref<40x24xi8>) outs(%acc : memref<3x24xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%acc : memref<3x24xi32>) outs(%y : memref<3x24xi8>) {
  ^bb0(%a: i32, %out: i8):
    %c64 = arith.constant 64 : i32
    %c4 = arith.constant 4 : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %d = arith.subi %a, %c64 : i32
    %s = arith.shrsi %d, %c4 : i32
    %p = arith.maxsi %s, %lo : i32
    %q = arith.minsi %p, %hi : i32
    %t = arith.trunci %q : i32 to i8
    linalg.yield %t : i8
  }
  memref.dealloc %acc : memref<3x24xi32>
  return
}
