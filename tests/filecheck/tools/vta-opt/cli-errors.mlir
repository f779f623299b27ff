// Command-line mistakes are one `vta-opt: error: ...` line and exit status 1.

// RUN: not vta-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not vta-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not vta-opt %s -p 'canonicalize{bogus=1}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not vta-opt %s -p 'canonicalize{' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not vta-opt %s --pass-pipeline='builtin.module(canonicalize' 2>&1 | filecheck %s --check-prefix=UNBALANCED
// RUN: not vta-opt %s -p cse --pass-pipeline='builtin.module(cse)' 2>&1 | filecheck %s --check-prefix=BOTH
// RUN: not vta-opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not vta-opt %s --no-such-flag 2>&1 | filecheck %s --check-prefix=FLAG
// RUN: not vta-opt %s --config no-such-config 2>&1 | filecheck %s --check-prefix=CONFIG
// RUN: vta-opt --list-passes | filecheck %s --check-prefix=LIST

// PASS:       vta-opt: error: unknown pass 'no-such-pass'
// OPTION:     vta-opt: error: invalid options for pass 'canonicalize': Provided arguments ["bogus"] not found
// SYNTAX:     vta-opt: error: invalid pass pipeline
// UNBALANCED: vta-opt: error: invalid pass pipeline 'builtin.module(canonicalize': missing ')'
// BOTH:       vta-opt: error: use either -p/--passes or --pass-pipeline, not both
// MISSING:    vta-opt: error: cannot open input file '{{.*}}cli-errors.mlir.missing': No such file or directory
// FLAG:       vta-opt: error: unrecognized arguments: --no-such-flag
// CONFIG:     vta-opt: error: no-such-config: cannot read configuration
// LIST-DAG:   canonicalize
// LIST-DAG:   convert-linalg-to-loops
// LIST-DAG:   lower-affine

// PASS-NOT: Traceback
func.func @f() {
  return
}
