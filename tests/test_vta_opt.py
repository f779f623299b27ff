"""``vta-opt``: pipelines in MLIR's and xDSL's syntax, printing options, input and output, the
configuration.

Errors are in ``test_vta_opt_errors.py``, split input and diagnostic verification in
``test_vta_opt_diagnostics.py``, the IR infrastructure under the tool in
``test_vta_opt_api.py``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vta_mlir.errors import VTAError
from vta_mlir.ir.pipeline import mlir_pipeline_to_xdsl

from .vta_opt_helpers import GEMM, run

# --------------------------------------------------------------------------------------------
# Pipeline syntax


@pytest.mark.parametrize(
    ("mlir", "xdsl"),
    [
        ("builtin.module(a,b)", "a,b"),
        ("builtin.module(a, b{x=1 y=2})", "a,b{x=1 y=2}"),
        ("builtin.module(func.func(a, b), c)", "a,b,c"),
        ('builtin.module(any(a), func.func(b{s="x,y)"}))', 'a,b{s="x,y)"}'),
        (r'builtin.module(b{s="q\"),("})', r'b{s="q\"),("}'),
        ("builtin.module()", ""),
        ("a,b{x=1,2}", "a,b{x=1,2}"),
        ("  a ,  b  ", "a,b"),
        ("", ""),
        ("cse,mlir-opt[func.func(cse),canonicalize]", "cse,mlir-opt[func.func(cse),canonicalize]"),
    ],
)
def test_mlir_pipeline_to_xdsl(mlir: str, xdsl: str) -> None:
    assert mlir_pipeline_to_xdsl(mlir) == xdsl


@pytest.mark.parametrize("bad", ["builtin.module(a", "builtin.module(a))", "a,,b", "b{x=1"])
def test_mlir_pipeline_errors(bad: str) -> None:
    with pytest.raises(VTAError, match="invalid pass pipeline"):
        mlir_pipeline_to_xdsl(bad)


def test_p_and_pass_pipeline_agree(mlir_file, capsys) -> None:
    path = mlir_file(GEMM)
    nested = "builtin.module(func.func(convert-linalg-to-loops), canonicalize)"
    results = [
        run([path, "-p", "convert-linalg-to-loops,canonicalize"], capsys),
        run([path, "--pass-pipeline=builtin.module(convert-linalg-to-loops,canonicalize)"], capsys),
        run([path, "--pass-pipeline", nested], capsys),
    ]
    assert {r[0] for r in results} == {0}
    assert len({r[1] for r in results}) == 1
    assert "scf.for" in results[0][1] and "arith.extsi" in results[0][1]


def test_project_passes_are_available(extra_passes, mlir_file, capsys) -> None:
    status, out, _ = run(["--list-passes"], capsys)
    assert status == 0
    names = out.split()
    assert "test-reject-matmul" in names and "convert-linalg-to-loops" in names


# --------------------------------------------------------------------------------------------
# Printing options, I/O, config


def test_print_ir_after_and_before_all(mlir_file, capsys) -> None:
    status, out, err = run(
        [
            mlir_file(GEMM),
            "-p",
            "linalg-generalize-named-ops,canonicalize",
            "--mlir-print-ir-after-all",
            "--mlir-print-ir-before-all",
        ],
        capsys,
    )
    assert status == 0 and "IR Dump" not in out
    banners = [line for line in err.splitlines() if line.startswith("// -----//")]
    assert banners == [
        "// -----// IR Dump Before linalg-generalize-named-ops //----- //",
        "// -----// IR Dump After linalg-generalize-named-ops //----- //",
        "// -----// IR Dump Before canonicalize //----- //",
        "// -----// IR Dump After canonicalize //----- //",
    ]


def test_generic_debuginfo_and_output_file(mlir_file, capsys, tmp_path: Path) -> None:
    target = tmp_path / "out.mlir"
    status, out, _ = run(
        [mlir_file(GEMM), "--print-op-generic", "--print-debuginfo", "-o", str(target)], capsys
    )
    assert status == 0 and out == ""
    text = target.read_text()
    assert '"linalg.matmul"(%a, %b, %c)' in text
    assert 'loc("' in text and 'input.mlir":2:3)' in text


def test_stdin(capsys, monkeypatch) -> None:
    import io

    class FakeStdin:
        buffer = io.BytesIO(GEMM.encode())

    monkeypatch.setattr(sys, "stdin", FakeStdin())
    status, out, _ = run(["-"], capsys)
    assert status == 0 and "linalg.matmul" in out


def test_config_file(mlir_file, capsys, tmp_path: Path) -> None:
    from vta_mlir.config import VTAConfig

    cfg = VTAConfig.shipped("batch2").to_dict()
    path = tmp_path / "vta_config.json"
    path.write_text(json.dumps(cfg))
    status, out, err = run([mlir_file(GEMM), "--config", str(path)], capsys)
    assert status == 0, err
    assert "vta.config = #vta.config<" in out and "log_batch = 1" in out
    # Re-running with a different configuration is an error at the module.
    status, _, err = run([mlir_file(out, "configured.mlir"), "--config", "default"], capsys)
    assert status == 1
    assert "configured.mlir:1:1: error: the module was built for configuration" in err


def test_console_script() -> None:
    exe = Path(sys.executable).parent / "vta-opt"
    if not exe.exists():
        pytest.skip("console script not installed in this environment")
    proc = subprocess.run(
        [str(exe), "-p", "canonicalize"], input=GEMM, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and "linalg.matmul" in proc.stdout
    proc = subprocess.run(
        [str(exe), "-p", "bogus"], input=GEMM, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1
    assert proc.stderr == (
        "vta-opt: error: unknown pass 'bogus' (vta-opt --list-passes shows them all)\n"
    )
