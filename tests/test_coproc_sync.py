"""``vta-coproc-sync``: stages and dependency tokens, checked by running the result.

* TVM's tutorials, written without stages and tokens, get back exactly the protocol TVM
  generated: their lowered instruction streams equal those of ``examples/vta/``;
* the blocked matrix multiply of ``docs/pipeline.md`` (at stage 5, sized for each shipped
  configuration) runs against numpy on every configuration, with the configuration given as
  the ``vta.config`` attribute or through ``vta-opt --config``;
* random programs (loads, GEMMs, ALU ops and stores over a few buffers inside one or two loops,
  with positions that vary with the loop variables) give, after the pass, the result of running
  the same commands strictly one after the other, whatever order the modules' instructions are
  interleaved in (a simulator that picks the next module at random), with no deadlock and no
  token left over;
* the random interleaving does find the races of a program without tokens (so the check above
  can fail);
* the examples taken to stage 5 by the passes before this one run like their serial version.

Double buffering and the precision of the analysis are in ``test_coproc_sync_tokens.py``,
unsupported input in ``test_coproc_sync_errors.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.host import lower_to_binary
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.passes.coproc_sync import CoprocSyncPass
from vta_mlir.runtime import Device
from vta_mlir.tools import vta_opt

from .coproc_sync_helpers import (
    EXAMPLES,
    ROOT,
    WALKTHROUGH,
    blocked_matmul,
    check_blocked_matmul,
    parse,
    random_program,
    run,
    serial_reference,
    stage_ops,
    strip_sync,
    sync,
)
from .numerics import random_args, within

# ---------------------------------------------------------------------------------------------
# Property: the synchronised program computes what the serial one does


def _random_cases() -> list[object]:
    """(configuration, seed): seeds 0–19 on the default configuration and 0–5 on the others
    run by default; the rest up to 39 are the long form."""
    return [pytest.param(VTAConfig.shipped(config), seed, id=f"{config}-{seed}",
                         marks=[] if seed < (20 if config == "default" else 6)
                         else [pytest.mark.slow])
            for config in SHIPPED_CONFIGS for seed in range(40)]


@pytest.mark.parametrize(("cfg", "seed"), _random_cases())
def test_random_programs_match_serial_execution(cfg: VTAConfig, seed: int) -> None:
    text = random_program(cfg, seed)
    synced = sync(text, cfg, double_buffer=seed % 3 != 0)
    binary = lower_to_binary(synced)
    inputs = random_args(binary.args, seed, within(100))
    want = serial_reference(text, cfg, inputs)
    for order in range(3):
        got, stats = run(binary, cfg, inputs, seed=1000 * seed + order)
        assert not stats.warnings, f"{stats.warnings}\n{print_module(synced)}"
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value, err_msg=f"{name}\n{text}")


@pytest.mark.parametrize("cfg", [
    pytest.param(VTAConfig.shipped(config), id=config,
                 marks=[] if config == "default" else [pytest.mark.slow])
    for config in SHIPPED_CONFIGS])
def test_random_order_finds_races_without_tokens(cfg: VTAConfig) -> None:
    """The same check on programs left without tokens fails: the random interleaving is a
    real test of the protocol (on the other configurations, the long form)."""
    failures = 0
    for seed in range(12):
        text = random_program(cfg, seed)
        module = sync(text, cfg)
        strip_sync(module)
        binary = lower_to_binary(module)
        inputs = random_args(binary.args, seed, within(100))
        want = serial_reference(text, cfg, inputs)
        for order in range(3):
            got, _ = run(binary, cfg, inputs, seed=order)
            if any(not np.array_equal(got[k], v) for k, v in want.items()):
                failures += 1
                break
    assert failures >= 3


# ---------------------------------------------------------------------------------------------
# TVM's tutorials and the running example


def _without_flags(stream: bytes) -> bytes:
    """An instruction stream with the four dependency flags of every header cleared (bits 3
    to 6 of each 16-byte instruction, docs/isa.md §2.2)."""
    out = bytearray(stream)
    for k in range(0, len(out), 16):
        out[k] &= 0x87
    return bytes(out)


@pytest.mark.parametrize("name", ["matrix_multiply", "vector_add"])
def test_tutorials_get_tvm_protocol_back(name: str) -> None:
    """The tutorials of examples/vta without their stages and tokens: the pass puts back a
    protocol that lowers to TVM's instruction streams — exactly for vector_add; for
    matrix_multiply the same instructions with the loop's primed token pushed by a NOP before
    the reset GEMM instead of after it (the first load need not wait for the reset), which is
    faster."""
    text = (EXAMPLES / f"{name}.mlir").read_text()
    bare = parse(text)
    strip_sync(bare)
    CoprocSyncPass().apply(make_context(), bare)
    verify_op(bare)
    got = lower_to_binary(bare, base=0x1000)
    want = lower_to_binary(parse(text), base=0x1000)
    if name == "vector_add":
        assert got.run_streams() == want.run_streams()
        return
    (ours,), (theirs,) = got.run_streams(), want.run_streams()
    # One more instruction: a NOP at the start that pushes the prime.
    assert len(ours) == len(theirs) + 16 and ours[:16].hex() == "20" + "00" * 15
    assert _without_flags(ours[16:]) == _without_flags(theirs)
    cycles = []
    for binary in (got, want):
        module = Device().load_module(binary)
        module(*[np.zeros(a.shape, a.dtype) for a in module.inputs])
        cycles.append(module.last_run.cycles)
    assert cycles[0] < cycles[1]


def test_running_example_gets_the_walkthrough_protocol(default_cfg: VTAConfig) -> None:
    module = sync(blocked_matmul(default_cfg, oc=4, ic=4, tile=16), default_cfg)
    assert stage_ops(module) == WALKTHROUGH


def test_blocked_matmul_on_every_configuration(cfg: VTAConfig) -> None:
    """The configuration comes from the module's vta.config attribute."""
    text = blocked_matmul(cfg)
    module = sync(text, cfg)
    assert stage_ops(module) == WALKTHROUGH
    check_blocked_matmul(text, cfg, module)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_blocked_matmul_through_vta_opt_config(name: str, tmp_path: Path) -> None:
    """The configuration comes from `vta-opt --config`."""
    cfg = VTAConfig.shipped(name)
    src = tmp_path / "in.mlir"
    src.write_text(blocked_matmul(cfg, double_buffer=True))
    out = tmp_path / "out.mlir"
    assert vta_opt.main([str(src), "--config", name, "-p", "vta-coproc-sync", "-o", str(out)]) == 0
    module = parse_module(out.read_text(), filename="out.mlir")
    assert lower_to_binary(module).config == cfg
    check_blocked_matmul("", cfg, module)


@pytest.mark.parametrize(("oc", "ic"), [(1, 1), (1, 3), (3, 1), (2, 2)])
@pytest.mark.parametrize("double_buffer", [False, True])
def test_trip_counts(default_cfg: VTAConfig, oc: int, ic: int, double_buffer: bool) -> None:
    """Any trip count, 1 included: tokens balance and the result is right."""
    text = blocked_matmul(default_cfg, oc=oc, ic=ic, double_buffer=double_buffer)
    module = sync(text, default_cfg)
    ops = stage_ops(module)
    check_blocked_matmul(text, default_cfg, module)
    if ic == 1:
        # No iteration follows another: the inner loop has no carried token.
        inner = ops[ops.index("for", ops.index("for") + 1):]
        assert inner[:3] == ["for", "stage load", "push load->compute"]


# ---------------------------------------------------------------------------------------------
# The whole pipeline

STAGE5 = "vta-pack,vta-tile,vta-inject-dma,vta-tensorize,vta-fold-uop-loops"


@pytest.mark.parametrize(("example", "config"), [
    pytest.param(example, config, id=f"{config}-{example}",
                 # One example on every configuration; the others there are the long form.
                 marks=[pytest.mark.slow] if config != "default"
                 and example != "matrix_multiply_opt" else [])
    for config in SHIPPED_CONFIGS
    for example in ("matrix_multiply_opt", "dense_bias_relu", "vector_add")])
def test_pipeline_output_matches_serial_execution(example: str, config: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The examples taken to stage 5 by the passes before this one (skipped where those cannot
    handle them yet), then synchronised: the serial result under random interleavings."""
    cfg = VTAConfig.shipped(config)
    out = tmp_path / "stage5.mlir"
    if vta_opt.main([str(ROOT / "examples" / f"{example}.mlir"), "--config", config, "-p",
                     STAGE5, "-o", str(out)]):
        pytest.skip(f"stage 5 not reached: {capsys.readouterr().err.strip().splitlines()[0]}")
    stage5 = out.read_text()
    module = parse_module(stage5, filename="stage5.mlir")
    CoprocSyncPass().apply(make_context(), module)
    verify_op(module)
    binary = lower_to_binary(module)
    inputs = random_args(binary.args, 3, within(100))
    want = serial_reference(stage5, cfg, inputs)
    for seed in (None, 11, 12):
        got, stats = run(binary, cfg, inputs, seed)
        assert not stats.warnings
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value)
