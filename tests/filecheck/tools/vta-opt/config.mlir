// --config attaches the VTA configuration (a shipped name or a vta_config.json) to the
// module as `vta.config`; a module built for another configuration is an error.

// RUN: vta-opt %s --config block32 | filecheck %s
// RUN: vta-opt %s --config block32 | vta-opt --config block32 | filecheck %s
// RUN: vta-opt %s --config block32 | not vta-opt --config default 2>&1 | filecheck %s --check-prefix=CLASH

// CHECK: builtin.module attributes {vta.config = #vta.config<{{.*}}log_block = 5{{.*}}>}
// CLASH: <stdin>:1:1: error: the module was built for configuration sim_1x32_i8w8a32_15_16_19_18
func.func @f() {
  return
}
