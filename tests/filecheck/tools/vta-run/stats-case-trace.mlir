// --stats (JSON, to a file or stdout), --export-case (a conformance case the replay tool
// accepts) and --trace (a Chrome trace: one slice per instruction).  A program without layers
// has an empty "layers" list (stats-layers.mlir has one with layers).

// RUN: vta-run %s --random-inputs --stats - | filecheck %s --check-prefix=STATS
// RUN: vta-run %s --random-inputs --stats %t.stats.json --output %t.y.npy
// RUN: filecheck %s --check-prefix=STATS < %t.stats.json
// RUN: vta-run %s --random-inputs --seed 3 --export-case %t.case.npz --output %t.y.npy
// RUN: python -m vta_mlir.sim.conformance %t.case.npz | filecheck %s --check-prefix=CASE
// RUN: python -c "import sys, numpy as np; z = np.load(sys.argv[1]); print(sorted(z.files)); print(z['buf_names'].tolist())" %t.case.npz | filecheck %s --check-prefix=KEYS
// RUN: vta-run %s --random-inputs --trace %t.trace.json --output %t.y.npy
// RUN: python -c "import sys, json; t = json.load(open(sys.argv[1])); print(sum(e['ph'] == 'X' for e in t['traceEvents']), 'slices')" %t.trace.json | filecheck %s --check-prefix=TRACE

// STATS:      {
// STATS-NEXT:   "counters": {
// STATS-NEXT:     "inp_load_nbytes": 0,
// STATS-NEXT:     "wgt_load_nbytes": 0,
// STATS-NEXT:     "acc_load_nbytes": 256,
// STATS-NEXT:     "uop_load_nbytes": 4,
// STATS-NEXT:     "out_store_nbytes": 32,
// STATS-NEXT:     "gemm_counter": 0,
// STATS-NEXT:     "alu_counter": 2
// STATS-NEXT:   },
// STATS-NEXT:   "instructions": 8,
// STATS-NEXT:   "by_opcode": {
// STATS:        },
// STATS-NEXT:   "uop_words_loaded": 1,
// STATS-NEXT:   "runs": 1,
// STATS-NEXT:   "cycles": {{[0-9]+}},
// STATS-NEXT:   "busy": {
// STATS-NEXT:     "load": {{[0-9]+}},
// STATS-NEXT:     "compute": {{[0-9]+}},
// STATS-NEXT:     "store": {{[0-9]+}}
// STATS-NEXT:   },
// STATS-NEXT:   "layers": [],
// STATS-NEXT:   "temporaries_bytes": 0,
// STATS-NEXT:   "host_steps": [],
// STATS-NEXT:   "vta_mac_fraction": 1.0,
// STATS-NEXT:   "requant": null
// STATS-NEXT: }
// STATS-NOT:  {{.}}

// CASE: PASS {{.*}}case.npz
// CASE: 1 passed, 0 failed

// KEYS: ['buf_names', 'buf_phys', 'config_json', 'counters_json', 'dram_in_a', 'dram_in_b', 'dram_in_y', 'expected_a', 'expected_b', 'expected_y', 'insns', 'meta_json', 'run_insn_count', 'run_insn_phys', 'run_uop_base', 'run_uop_nbytes', 'uops']
// KEYS: ['a', 'b', 'y']

// TRACE: 8 slices

vtaisa.program base 0x100000 {
  vtaisa.segment "a" phys 0x100000 size 128
  vtaisa.segment "b" phys 0x101000 size 128
  vtaisa.segment "y" phys 0x102000 size 32
  vtaisa.segment "uops" phys 0x103000 size 4
  vtaisa.arg "a" in int32 [1, 32] padded [1, 32] split [1, 1, 2, 16] perm [0, 2, 1, 3] packed int32 segment "a" phys 0x100000
  vtaisa.arg "b" in int32 [1, 32] padded [1, 32] split [1, 1, 2, 16] perm [0, 2, 1, 3] packed int32 segment "b" phys 0x101000
  vtaisa.arg "y" out int8 [1, 32] padded [1, 32] split [1, 1, 2, 16] perm [0, 2, 1, 3] packed int8 segment "y" phys 0x102000
  vtaisa.run uop_base 0x103000 {
    vtaisa.uops [(0, 2, 0)]
    vtaisa.load acc sram 0 dram 0x4000 y 1 x 2 stride 2
    vtaisa.load acc sram 2 dram 0x4040 y 1 x 2 stride 2
    vtaisa.load uop sram 0 dram 0x40c00 y 1 x 1 stride 1
    vtaisa.alu add uop 0 to 1 iter [1, 2] dst [0, 1] src [0, 1] deps [push_next]
    vtaisa.store out sram 0 dram 0x10200 y 1 x 2 stride 2 deps [pop_prev, push_prev]
    vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_next]
    vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_prev, pop_next]
    vtaisa.finish
  }
}
