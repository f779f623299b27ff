"""Golden vectors of the reference functional simulator, replayed from raw words."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vta_mlir.config import VTAConfig
from vta_mlir.sim.conformance import main, replay_case

CONFORMANCE = Path(__file__).parent / "data" / "conformance"
CASES = sorted(CONFORMANCE.rglob("*.npz"))
SMALL = CONFORMANCE / "00_acc_roundtrip.npz"


def folder_config(case: Path) -> VTAConfig | None:
    path = case.parent / "config.json"
    return VTAConfig.from_file(path) if path.is_file() else None


def test_every_folder_has_cases() -> None:
    folders = {c.parent.name for c in CASES}
    assert {"conformance", "cfg_block32", "cfg_batch2"} <= folders
    assert (CONFORMANCE / "README.md").is_file()


@pytest.mark.parametrize("case", CASES, ids=[str(c.relative_to(CONFORMANCE)) for c in CASES])
def test_case_replays_exactly(case: Path) -> None:
    replay_case(case, folder_config(case))  # raises CaseError with the reason on mismatch


def test_cli_over_the_whole_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(CONFORMANCE)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == f"{len(CASES)} passed, 0 failed"
    assert all(line.startswith("PASS ") for line in lines[:-1])
    assert len(lines) == len(CASES) + 1


def test_module_entry_point_runs() -> None:
    proc = subprocess.run([sys.executable, "-m", "vta_mlir.sim.conformance", str(SMALL)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [f"PASS {SMALL}", "1 passed, 0 failed"]


def test_no_arguments_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage" in capsys.readouterr().err


def test_a_bad_configuration_is_one_line(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.json"
    config.write_text('{"LOG_BATCH": ' + "9" * 5000 + "}")
    assert main(["--config", str(config), str(SMALL)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vta-conformance: error: ") and err.count("\n") == 1, err
    assert "not valid JSON" in err


def _variant(tmp_path: Path, name: str, **changes: object) -> Path:
    data = dict(np.load(SMALL))
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value  # type: ignore[assignment]
    path = tmp_path / f"{name}.npz"
    np.savez(path, **data)
    return path


def _fail_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1].endswith("1 failed")
    assert "Traceback" not in "\n".join(out)
    return out[0]


def test_corrupt_file_is_a_fail_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "corrupt.npz"
    bad.write_bytes(SMALL.read_bytes()[:300])
    line = _fail_line(capsys, [str(bad)])
    assert line.startswith(f"FAIL {bad}: cannot read the case file")
    missing = tmp_path / "missing.npz"
    assert _fail_line(capsys, [str(missing)]) == f"FAIL {missing}: file not found"


def test_missing_key_is_a_fail_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _variant(tmp_path, "nokey", counters_json=None, expected_out=None)
    line = _fail_line(capsys, [str(path)])
    assert line == f"FAIL {path}: missing key(s): counters_json, expected_out"


def test_wrong_output_and_counters_are_reported(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    data = np.load(SMALL)
    expected = data["expected_out"].copy()
    expected[5] ^= 0xFF
    counters = json.loads(str(data["counters_json"]))
    counters["acc_load_nbytes"] += 1
    path = _variant(tmp_path, "wrong", expected_out=expected,
                    counters_json=np.array(json.dumps(counters)))
    line = _fail_line(capsys, [str(path)])
    assert "buffer out: 1 of 128 bytes differ (first at byte 5" in line
    assert "counters differ: acc_load_nbytes 512 != 513" in line


def test_config_selection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    block32 = CONFORMANCE / "cfg_block32"
    case = block32 / "12_gemm_tiled.npz"
    assert main(["--config", str(block32 / "config.json"), str(case)]) == 0
    capsys.readouterr()
    default = tmp_path / "default.json"
    default.write_text(VTAConfig.shipped("default").to_json())
    assert main(["--config", str(default), str(case)]) == 1  # wrong hardware for this case
    capsys.readouterr()
    # an embedded config_json must agree with the outside configuration
    embedded = _variant(tmp_path, "embedded", config_json=np.array(
        VTAConfig.shipped("block32").to_json()))
    line = _fail_line(capsys, ["--config", str(default), str(embedded)])
    assert "config_json of the case (1x32_i8w8a32_15_16_19_18) differs from --config" in line
    same = _variant(tmp_path, "same", config_json=np.array(VTAConfig.shipped().to_json()))
    assert main([str(same)]) == 0


def test_bad_config_file_is_a_usage_error(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["--config", str(bad), str(SMALL)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
