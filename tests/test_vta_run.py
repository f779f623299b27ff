"""``vta-run``: binding .npy files in signature order, outputs against numpy, ``--stats`` JSON,
``--export-case`` cases that the conformance replay accepts, ``--trace``, random inputs, the
examples end to end, and one-line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from vta_mlir.binary import BinaryModule, from_bytes
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.program import COUNTER_NAMES
from vta_mlir.sim import conformance
from vta_mlir.tools import vta_run, vta_translate

from .test_vta_translate import EXAMPLES, add_module, bias_module, mlir_of, run_tool

STATS_KEYS = {
    "counters",
    "instructions",
    "by_opcode",
    "uop_words_loaded",
    "runs",
    "cycles",
    "busy",
    "layers",
    "temporaries_bytes",
    "host_steps",
    "vta_mac_fraction",
    "requant",
}


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = vta_run.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def save(path: Path, array: np.ndarray) -> str:
    np.save(path, array)
    return str(path)


def replay(case: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``python -m vta_mlir.sim.conformance CASE``, in this process: its status and output."""
    status = conformance.main([str(case)])
    out, err = capsys.readouterr()
    return status, out + err


def unpack_expected(case: Path, binary: BinaryModule, name: str) -> np.ndarray:
    """An argument's logical value from a case's ``expected_<name>`` buffer."""
    spec = next(a for a in binary.args if a.name == name)
    with np.load(case) as z:
        return spec.unpack(z[f"expected_{name}"])


# --------------------------------------------------------------------------------------------
# Running .vtab files


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_outputs_equal_numpy(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = VTAConfig.shipped(name)
    binary = add_module(cfg, (3, 40))
    vtab = tmp_path / "add.vtab"
    vtab.write_bytes(binary.to_bytes())
    rng = np.random.default_rng(5)
    a = rng.integers(-300, 300, (3, 40), dtype=np.int32)
    b = rng.integers(-300, 300, (3, 40), dtype=np.int32)
    y = tmp_path / "y.npy"
    argv = [str(vtab), "--input", save(tmp_path / "a.npy", a), "--input"]
    argv += [save(tmp_path / "b.npy", b), "--output", str(y), "--config", name]
    status, out, err = run(argv, capsys)
    assert (status, out, err) == (0, "", "")
    np.testing.assert_array_equal(np.load(y), (a + b).astype(np.int8))
    # Without --config the module's own configuration applies.
    status, _, err = run(argv[:-2], capsys)
    assert status == 0, err
    np.testing.assert_array_equal(np.load(y), (a + b).astype(np.int8))


def test_output_path_is_used_as_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vtab = tmp_path / "add.vtab"
    vtab.write_bytes(add_module(VTAConfig.shipped("default")).to_bytes())
    out = tmp_path / "result.bin"
    status, _, err = run([str(vtab), "--random-inputs", "--output", str(out)], capsys)
    assert status == 0, err
    assert out.exists() and not Path(str(out) + ".npy").exists()
    assert np.load(out).dtype == np.int8


@pytest.mark.parametrize("bad", ["folder", "missing"])
def test_an_unwritable_output_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             bad: str) -> None:
    """Every output path is checked before the run: a failure writes none of the files."""
    vtab = tmp_path / "add.vtab"
    vtab.write_bytes(add_module(VTAConfig.shipped("default")).to_bytes())
    (tmp_path / "folder").mkdir()
    target = tmp_path / "folder" if bad == "folder" else tmp_path / "none" / "stats.json"
    out = tmp_path / "result.npy"
    status, _, err = run([str(vtab), "--random-inputs", "--output", str(out),
                          "--stats", str(target)], capsys)
    assert status == 1
    assert err.count("\n") == 1 and "cannot write output file" in err, err
    assert not out.exists()


def test_an_output_over_the_program_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    vtab = tmp_path / "add.vtab"
    data = add_module(VTAConfig.shipped("default")).to_bytes()
    vtab.write_bytes(data)
    status, _, err = run([str(vtab), "--random-inputs", "--output", str(vtab)], capsys)
    assert status == 1 and "is the input file" in err, err
    assert vtab.read_bytes() == data


def test_stats_has_exactly_the_documented_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], default_cfg: VTAConfig
) -> None:
    binary = bias_module(default_cfg, np.arange(40).reshape(1, 40))
    vtab = tmp_path / "m.vtab"
    vtab.write_bytes(binary.to_bytes())
    status, out, err = run([str(vtab), "--random-inputs", "--stats", "-"], capsys)
    assert status == 0, err
    stats = json.loads(out)  # stdout holds the JSON alone: the summary went to stderr
    assert set(stats) == STATS_KEYS
    assert list(stats["counters"]) == list(COUNTER_NAMES)
    assert set(stats["busy"]) == {"load", "compute", "store"}
    assert stats["runs"] == 2
    assert stats["instructions"] == binary.program.num_insns == sum(stats["by_opcode"].values())
    assert stats["uop_words_loaded"] == 2
    assert stats["cycles"] > 0 and all(isinstance(v, int) for v in stats["busy"].values())
    assert stats["counters"]["alu_counter"] == 2 * 3
    assert err.startswith("y: 1x40xint8 [")
    # The same object in a file.
    path = tmp_path / "stats.json"
    status, out, err = run([str(vtab), "--random-inputs", "--stats", str(path)], capsys)
    assert status == 0, err
    assert json.loads(path.read_text()) == stats
    assert out.startswith("y: 1x40xint8 [")


def test_summary_without_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], default_cfg: VTAConfig
) -> None:
    vtab = tmp_path / "add.vtab"
    vtab.write_bytes(add_module(default_cfg, (1, 20)).to_bytes())
    a = np.arange(20, dtype=np.int32).reshape(1, 20)
    argv = [str(vtab), "--input", save(tmp_path / "a.npy", a)]
    argv += ["--input", save(tmp_path / "b.npy", a * 10)]
    status, out, err = run(argv, capsys)
    assert (status, err) == (0, "")
    assert out == "y: 1x20xint8 [0, 11, 22, 33, 44, 55, 66, 77, ...] min -124 max 121\n"


def test_random_inputs_are_deterministic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], default_cfg: VTAConfig
) -> None:
    vtab = tmp_path / "add.vtab"
    vtab.write_bytes(add_module(default_cfg).to_bytes())
    outputs = {}
    for seed in ("1", "1", "2"):
        status, out, err = run([str(vtab), "--random-inputs", "--seed", seed], capsys)
        assert status == 0, err
        outputs.setdefault(seed, []).append(out)
    assert outputs["1"][0] == outputs["1"][1] != outputs["2"][0]
    specs = add_module(default_cfg, (64, 64)).inputs
    for array, spec in zip(vta_run.random_inputs(specs, 0), specs, strict=True):
        assert array.dtype == np.dtype(spec.dtype) and array.shape == spec.shape
        assert array.min() == -128 and array.max() == 127


def test_trace_has_one_slice_per_instruction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], default_cfg: VTAConfig
) -> None:
    binary = bias_module(default_cfg, np.ones((1, 16), dtype=np.int32))
    vtab = tmp_path / "m.vtab"
    vtab.write_bytes(binary.to_bytes())
    trace = tmp_path / "trace.json"
    stats = tmp_path / "stats.json"
    argv = [str(vtab), "--random-inputs", "--trace", str(trace), "--stats", str(stats)]
    status, _, err = run(argv, capsys)
    assert status == 0, err
    data = json.loads(trace.read_text())
    slices = [e for e in data["traceEvents"] if e["ph"] == "X"]
    assert len(slices) == binary.program.num_insns
    assert data["otherData"]["cycles"] == json.loads(stats.read_text())["cycles"]


# --------------------------------------------------------------------------------------------
# Conformance cases


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_exported_case_replays_and_holds_the_run(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = VTAConfig.shipped(name)
    bias = np.arange(-40, 40, dtype=np.int32).reshape(2, 40) * 3
    binary = bias_module(cfg, bias)
    vtab = tmp_path / "m.vtab"
    vtab.write_bytes(binary.to_bytes())
    a = np.random.default_rng(9).integers(-128, 128, (2, 40), dtype=np.int32)
    case = tmp_path / "case.npz"
    y = tmp_path / "y.npy"
    argv = [str(vtab), "--input", save(tmp_path / "a.npy", a), "--output", str(y)]
    status, _, err = run([*argv, "--export-case", str(case)], capsys)
    assert status == 0, err

    status, report = replay(case, capsys)
    assert status == 0, report
    assert report.strip().endswith("1 passed, 0 failed")

    with np.load(case) as z:
        assert z["buf_names"].tolist() == ["a", "const0", "y", "tmp0"]
        assert z["insns"].dtype == np.uint8 and z["insns"].size == 16 * binary.program.num_insns
        assert z["run_insn_count"].tolist() == [len(r.insns) for r in binary.program.runs]
        assert z["run_insn_phys"].tolist() == [0, 0]
        assert z["run_uop_nbytes"].tolist() == [4, 4]
        assert VTAConfig.from_json(str(z["config_json"])) == cfg
        counters = json.loads(str(z["counters_json"]))
        meta = json.loads(str(z["meta_json"]))
        assert [b["kind"] for b in meta["buffers"]] == [
            "argument",
            "constant",
            "argument",
            "scratch",
        ]
        assert len(meta["runs"][0]["insns_decoded"]) == len(binary.program.runs[0].insns)
        spill = binary.args[1].unpack(z["expected_tmp0"])
        np.testing.assert_array_equal(z["dram_in_const0"], binary.segment("bias").data)
    assert list(counters) == list(COUNTER_NAMES)
    want = (a + bias).astype(np.int8)
    np.testing.assert_array_equal(np.load(y), want)
    np.testing.assert_array_equal(unpack_expected(case, binary, "y"), want)
    np.testing.assert_array_equal(spill, want)
    np.testing.assert_array_equal(unpack_expected(case, binary, "a"), a)


def test_tampered_case_fails_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], default_cfg: VTAConfig
) -> None:
    """The replay really compares: a case whose expected output is off by one fails."""
    vtab = tmp_path / "add.vtab"
    vtab.write_bytes(add_module(default_cfg).to_bytes())
    case = tmp_path / "case.npz"
    status, _, err = run([str(vtab), "--random-inputs", "--export-case", str(case)], capsys)
    assert status == 0, err
    with np.load(case) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["expected_y"] = arrays["expected_y"].copy()
    arrays["expected_y"][0] ^= 1
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    status, report = replay(bad, capsys)
    assert status == 1 and "0 passed, 1 failed" in report


# --------------------------------------------------------------------------------------------
# From IR, and .vtab files made by vta-translate


def test_vtab_from_vta_translate_runs_like_its_ir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], default_cfg: VTAConfig
) -> None:
    mlir = tmp_path / "add.mlir"
    mlir.write_text(mlir_of(add_module(default_cfg)))
    vtab = tmp_path / "add.vtab"
    assert vta_translate.main(["--emit=bin", str(mlir), "-o", str(vtab)]) == 0
    capsys.readouterr()
    results = []
    for path in (mlir, vtab):
        status, out, err = run([str(path), "--random-inputs", "--seed", "11", "--stats", "-"],
                               capsys)
        assert status == 0, err
        results.append((out, err))
    assert results[0] == results[1]
    assert set(json.loads(results[0][0])) == STATS_KEYS


def _example_binary(name: str, tmp_path: Path) -> tuple[Path, BinaryModule]:
    source = EXAMPLES / name
    if not source.exists():
        pytest.skip(f"{source} does not exist")
    vtab = tmp_path / f"{source.stem}.vtab"
    assert vta_translate.main(["--emit=bin", str(source), "-o", str(vtab)]) == 0
    return source, from_bytes(vtab.read_bytes())


def _run_example(
    source: Path, binary: BinaryModule, inputs: list[np.ndarray], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> tuple[list[np.ndarray], Path]:
    """Run ``source`` with ``inputs``; return its outputs and an exported case that replays."""
    argv = [str(source)]
    for i, array in enumerate(inputs):
        argv += ["--input", save(tmp_path / f"in{i}.npy", array)]
    outs = [tmp_path / f"out{i}.npy" for i in range(len(binary.outputs))]
    for path in outs:
        argv += ["--output", str(path)]
    case = tmp_path / "case.npz"
    status, _, err = run([*argv, "--export-case", str(case)], capsys)
    assert status == 0, err
    status, report = replay(case, capsys)
    assert status == 0, report
    assert report.strip().endswith("1 passed, 0 failed")
    return [np.load(p) for p in outs], case


def test_vector_add_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, binary = _example_binary("vector_add.mlir", tmp_path)
    assert [a.dtype for a in binary.inputs] == ["int32", "int32"]
    assert [a.shape for a in binary.inputs] == [(1, 64, 1, 16)] * 2
    rng = np.random.default_rng(2024)
    a, b = (rng.integers(-(2**20), 2**20, (1, 64, 1, 16), dtype=np.int32) for _ in range(2))
    (c,), case = _run_example(source, binary, [a, b], tmp_path, capsys)
    want = (a.astype(np.int64) + b).astype(np.int8)
    np.testing.assert_array_equal(c, want)
    out = binary.outputs[0]
    np.testing.assert_array_equal(unpack_expected(case, binary, out.name), want)


def _logical_matrix(array: np.ndarray) -> np.ndarray:
    """A matrix given logically (2-D) or in a packed layout ``[n/B][c/BI][B][BI]``
    (docs/isa.md §1.6) as a logical 2-D matrix."""
    if array.ndim == 2:
        return array
    outer, blocks, rows, cols = array.shape
    return array.transpose(0, 2, 1, 3).reshape(outer * rows, blocks * cols)


def test_matrix_multiply_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, binary = _example_binary("matrix_multiply.mlir", tmp_path)
    assert len(binary.inputs) == 2 and len(binary.outputs) == 1
    x_spec, w_spec = binary.inputs
    rng = np.random.default_rng(77)
    x = rng.integers(-128, 128, x_spec.shape, dtype=x_spec.dtype)
    w = rng.integers(-128, 128, w_spec.shape, dtype=w_spec.dtype)
    (y,), case = _run_example(source, binary, [x, w], tmp_path, capsys)
    # y = int8(x · wᵀ), accumulated in int32 (exact here: |sum| < 2^31), truncated to 8 bits.
    xm = _logical_matrix(x).astype(np.int64)
    wm = _logical_matrix(w).astype(np.int64)
    want = (xm @ wm.T).astype(np.int8)
    np.testing.assert_array_equal(_logical_matrix(y), want)
    got = unpack_expected(case, binary, binary.outputs[0].name)
    np.testing.assert_array_equal(_logical_matrix(got), want)


# --------------------------------------------------------------------------------------------
# Errors


@pytest.fixture
def files(tmp_path: Path, default_cfg: VTAConfig) -> dict[str, str]:
    vtab = tmp_path / "add.vtab"
    data = add_module(default_cfg, (1, 20)).to_bytes()
    vtab.write_bytes(data)
    (tmp_path / "trunc.vtab").write_bytes(data[:-1])
    (tmp_path / "junk.npy").write_text("not an array")
    (tmp_path / "bad.json").write_text('{"LOG_BLOCK": 4}')
    (tmp_path / "input.mlir").write_text("func.func @f(%a: memref<16xi8>) {\n  func.return\n}\n")
    return {
        "dir": str(tmp_path),
        "vtab": str(vtab),
        "a": save(tmp_path / "a.npy", np.zeros((1, 20), np.int32)),
        "a8": save(tmp_path / "a8.npy", np.zeros((1, 20), np.int8)),
        "a2": save(tmp_path / "a2.npy", np.zeros((2, 20), np.int32)),
        "npz": str(tmp_path / "two.npz"),
    }


ERRORS = [
    (["{vtab}"], "the program reads 2 argument(s) but 0 --input file(s) were given"),
    (["{vtab}", "--input", "{a}"], "it takes (a: 1x20xint32, b: 1x20xint32) -> (y: 1x20xint8)"),
    (["{vtab}", *["--input", "{a}"] * 3], "but 3 --input file(s) were given"),
    (
        ["{vtab}", "--random-inputs", "--output", "{dir}/1.npy", "--output", "{dir}/2.npy"],
        "the program writes 1 argument(s) but 2 --output file(s) were given",
    ),
    (["{vtab}", "--input", "{a}", "--input", "{a8}"], "a8.npy: argument 'b': expected dtype int32"),
    (
        ["{vtab}", "--input", "{a2}", "--input", "{a}"],
        "a2.npy: argument 'a': expected shape (1, 20), got (2, 20)",
    ),
    (["{vtab}", "--input", "{a}", "--input", "{dir}/junk.npy"], "as a .npy array: not a .npy"),
    (["{vtab}", "--input", "{a}", "--input", "{npz}"], "two.npz' holds several arrays"),
    (["{vtab}", "--input", "{a}", "--input", "{dir}/no.npy"], "cannot open input file"),
    (["{dir}/none.vtab"], "cannot open input file '{dir}/none.vtab': No such file"),
    (["{vtab}", "--random-inputs", "--input", "{a}"], "either --input files or --random-inputs"),
    (["{vtab}", "--seed", "3"], "--seed applies only with --random-inputs"),
    (["{vtab}", "--random-inputs", "--config", "{dir}/bad.json"], "bad.json: missing key(s)"),
    (["{vtab}", "--random-inputs", "--check"], "--check: nothing to check against"),
    (
        ["{vtab}", "--random-inputs", "--stats", "{dir}/no/dir.json"],
        "cannot write output file '{dir}/no/dir.json'",
    ),
    (
        ["{vtab}", "--random-inputs", "--output", "{dir}/no/dir.npy"],
        "cannot write output file '{dir}/no/dir.npy': No such file or directory",
    ),
    (
        ["{vtab}", "--random-inputs", "--output", "{dir}"],
        "cannot write output file '{dir}': Is a directory",
    ),
    (["{vtab}", "--random-inputs", "--stats", "-", "--trace", "-"], "cannot both write to stdout"),
    (["{vtab}", "--random-inputs", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
    # numpy's generators refuse negative seeds: an argument error, not an internal one.
    (["{vtab}", "--random-inputs", "--seed", "-1"], "argument --seed: must be a non-negative"),
    (["{vtab}", "--random-inputs", "--seed=-7"], "argument --seed: must be a non-negative"),
    ([], "the following arguments are required: input_file"),
]


@pytest.mark.parametrize(("argv", "message"), ERRORS)
def test_errors_are_one_line(
    argv: list[str], message: str, files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    np.savez(files["npz"], a=np.zeros(2), b=np.zeros(3))
    status, out, err = run([a.format(**files) for a in argv], capsys)
    assert status == 1 and out == ""
    assert err.startswith("vta-run: error: ") and err.count("\n") == 1, err
    assert message.format(**files) in err


def test_check_on_vta_level_ir_has_nothing_to_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host = tmp_path / "host.mlir"
    host.write_text("func.func @f() {\n  vta.dep_push load -> compute\n  func.return\n}\n")
    status, _, err = run([str(host), "--random-inputs", "--check"], capsys)
    assert status == 1
    assert err == (
        "vta-run: error: --check: nothing to check against: vta-level IR has no reference "
        "semantics (--check needs input-level IR)\n"
    )


def test_malformed_programs(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    trunc = files["dir"] + "/trunc.vtab"
    status, _, err = run([trunc, "--random-inputs"], capsys)
    assert status == 1
    assert re.fullmatch(re.escape(trunc) + r": error: truncated module: .*\n", err), err
    bad = Path(files["dir"]) / "bad.mlir"
    bad.write_text("vtaisa.program base 0x100000 {\n  vtaisa.bogus\n}\n")
    status, _, err = run([str(bad), "--random-inputs"], capsys)
    assert status == 1
    assert err.startswith(f"{bad}:") and "Operation vtaisa.bogus is not registered" in err
    assert "Traceback" not in err


def test_installed_script(files: dict[str, str]) -> None:
    proc = run_tool("vta-run", files["vtab"], "--input", files["a"])
    assert proc.returncode == 1
    assert proc.stderr.decode().startswith("vta-run: error: the program reads 2 argument(s)")
    proc = run_tool("vta-run", files["vtab"], "--random-inputs")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().startswith("y: 1x20xint8 [")


def test_check_of_a_float_requantizing_program_says_why_not(
        capsys: pytest.CaptureFixture[str]) -> None:
    """torch-mlir's float requantization computed in fixed point agrees within a step, so a
    bit-for-bit --check says so instead of comparing."""
    source = Path(__file__).parent / "data" / "torch_mlir" / "dense.mlir"
    status, _, err = run([str(source), "--random-inputs", "--check", "--requant",
                          "fixed-point"], capsys)
    assert status == 1 and err.count("\n") == 1, err
    assert "requantizes in float and the compiled module in fixed point" in err
