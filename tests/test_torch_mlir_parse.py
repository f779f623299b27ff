"""The linalg-on-tensors files torch-mlir produced from the ONNX models (``tests/data/torch_mlir``)
parse, verify and print back to text that parses to the same print; the ``dense_resource``
variants hold the bytes of the literal constants; the folder's README lists every op the files
use.  (The comparison with ``torch-mlir-opt`` itself, which CI does not install, is
``tests/data/torch_mlir/check_roundtrip.py``.)"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, DenseResourceAttr, ModuleOp

import vta_mlir
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.ir.context import make_context, parse_module, print_module, resource_blobs
from vta_mlir.ir.dense import dense_resource_array
from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.ir.upstream_fixes.resources import module_resources
from vta_mlir.tools import vta_opt

DATA = Path(__file__).resolve().parent / "data" / "torch_mlir"
FILES = sorted(DATA.glob("*.mlir"))
RESOURCE_FILES = sorted(DATA.glob("*.resources.mlir"))


@functools.cache
def parse_file(path: Path) -> ModuleOp:
    """The verified module of ``path``, parsed once for the tests that only read it."""
    module = parse_module(path.read_text(), filename=str(path))
    verify_op(module)
    return module


def test_the_folder_has_the_models() -> None:
    stems = {path.name.split(".")[0] for path in FILES}
    for model in ("dense", "conv_relu", "small_cnn", "residual", "gap_fc"):
        assert {model, f"{model}_asym"} <= stems
        assert (DATA / f"{model}.onnx").is_file() and (DATA / f"{model}_asym.onnx").is_file()
    assert RESOURCE_FILES
    # Small models only: the ResNet-18 file is generated on demand, never committed.
    assert sum(path.stat().st_size for path in DATA.iterdir()) < 1_500_000


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_file_prints_back_to_itself(path: Path) -> None:
    ctx = make_context()
    text = path.read_text()
    module = parse_module(text, filename=str(path), ctx=ctx)
    verify_op(module)
    printed = print_module(module, ctx=ctx)
    # Parsed again in a fresh context and printed from the module's own store.
    again = parse_module(printed)
    verify_op(again)
    assert print_module(again) == printed
    assert ("dialect_resources" in printed) == ("dialect_resources" in text)
    assert printed.count("dense_resource<") == text.count("dense_resource<")


@pytest.mark.parametrize("path", [
    # The files with resource blobs and one plain file by default (the in-process round trip
    # above covers every file); the others are the long form.
    pytest.param(path, id=path.name,
                 marks=[] if ".resources." in path.name or path.name == "small_cnn.mlir"
                 else [pytest.mark.slow])
    for path in FILES])
def test_vta_opt_prints_the_file(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.mlir"
    assert vta_opt.main([str(path), "-o", str(out)]) == 0
    assert capsys.readouterr().err == ""
    assert vta_opt.main([str(out), "-o", str(tmp_path / "again.mlir")]) == 0
    assert (tmp_path / "again.mlir").read_text() == out.read_text()


@pytest.mark.parametrize("config", sorted(SHIPPED_CONFIGS))
def test_files_parse_with_each_configuration(config: str) -> None:
    # Attaching a configuration (what `vta-opt --config` and the API do first) changes nothing
    # else in the printed module.
    for path in (DATA / "conv_relu.mlir", RESOURCE_FILES[0]):
        plain = print_module(parse_module(path.read_text()))
        module = vta_mlir.parse(path.read_text(), filename=str(path), config=config)
        printed = vta_mlir.print_ir(module)
        assert "vta.config" in printed
        body = printed[printed.index("func.func"):]
        assert body == plain[plain.index("func.func"):]


def test_api_parses_and_prints_the_resources() -> None:
    path = RESOURCE_FILES[0]
    module = vta_mlir.parse(path.read_text(), filename=str(path))
    printed = vta_mlir.print_ir(module)
    assert "dialect_resources" in printed
    assert print_module(parse_module(printed)) == printed


#: numpy dtypes of the element types of the hex literals of the files.
DTYPES = {"i8": np.int8, "i32": np.int32, "f32": np.float32}
HEX_LITERAL = re.compile(r'dense<"0x([0-9A-F]+)"> : tensor<([0-9x]+)x(i8|i32|f32)>')


@pytest.mark.parametrize("path", RESOURCE_FILES, ids=lambda p: p.name)
def test_resource_blobs_are_the_literal_bytes(path: Path) -> None:
    # The hex literals of the plain file, read with a regular expression, in order.
    plain = (DATA / path.name.replace(".resources", "")).read_text()
    expected = [
        np.frombuffer(bytes.fromhex(digits), dtype=DTYPES[element]).reshape(
            [int(d) for d in shape.split("x")])
        for digits, shape, element in HEX_LITERAL.findall(plain)
    ]
    ctx = make_context()
    module = parse_module(path.read_text(), filename=str(path), ctx=ctx)
    constants = [
        op for op in module.walk()
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseResourceAttr)
    ]
    assert len(constants) == len(expected) > 0
    for op, want in zip(constants, expected, strict=True):
        assert isinstance(op.value, DenseResourceAttr)
        got = dense_resource_array(op.value, module_resources(op))
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want)
        # The same through the context's store; the array views the blob, read-only.
        assert np.array_equal(dense_resource_array(op.value, resource_blobs(ctx)), want)
        assert not got.flags.writeable


def test_the_plain_files_keep_their_literals() -> None:
    for path in FILES:
        if path in RESOURCE_FILES:
            continue
        module = parse_file(path)
        assert not any(
            isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseResourceAttr)
            for op in module.walk()
        )
        assert any(
            isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr)
            for op in module.walk()
        )


def test_the_readme_lists_every_op_of_the_files() -> None:
    readme = (DATA / "README.md").read_text()
    # Every op of the modules, the bodies vta-mlir builds for the named ops included.
    names = {op.name for path in FILES for op in parse_file(path).walk()} - {"builtin.module"}
    assert "linalg.conv_2d_nchw_fchw_q" in names
    missing = sorted(name for name in names if f"`{name}`" not in readme)
    assert missing == [], f"ops the README does not list: {missing}"
