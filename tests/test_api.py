"""The Python API (``vta_mlir.compile``, ``parse``, ``print_ir``, ``run_pipeline``, ``lower``):
the vta-level examples compiled and called on a device against independent numpy, every
input kind of ``lower``, both pipeline syntaxes, clean errors, the lazy top-level imports, and
every code block of ``docs/python-api.md`` executed as it is."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.canonicalize import CanonicalizePass

import vta_mlir
import vta_mlir.passes
from vta_mlir import (
    Device,
    DiagnosticError,
    VTAConfig,
    VTAError,
    compile,
    lower,
    parse,
    print_ir,
    run_pipeline,
)
from vta_mlir.binary import BinaryModule
from vta_mlir.dialects.vta import AluOp
from vta_mlir.errors import BinaryFormatError
from vta_mlir.passes import scoped_registry
from vta_mlir.passes.lower_to_isa import LowerToIsaPass

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "vta"
VECTOR_ADD = EXAMPLES / "vector_add.mlir"
MATRIX_MULTIPLY = EXAMPLES / "matrix_multiply.mlir"
DOC = ROOT / "docs" / "python-api.md"

EMPTY_FUNC = "func.func @f() {\n  func.return\n}\n"


@pytest.fixture(autouse=True)
def _isolated_registry() -> Iterator[None]:
    """Passes registered by a test (the doc registers one) are forgotten afterwards."""
    with scoped_registry():
        yield


def _vector_add_inputs(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    shape = (1, 64, 1, 16)
    # Large enough that the sums wrap when truncated to int8.
    return (
        rng.integers(-100_000, 100_000, size=shape, dtype=np.int32),
        rng.integers(-100_000, 100_000, size=shape, dtype=np.int32),
    )


def _matrix_multiply_inputs(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (
        rng.integers(-128, 128, size=(1, 256), dtype=np.int8),
        rng.integers(-128, 128, size=(256, 256), dtype=np.int8),
    )


def _matrix_multiply_reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C = int8(A · Bᵀ), B given as output × input channels; the sum wraps in int32."""
    return (a.astype(np.int32) @ b.T.astype(np.int32)).astype(np.int8)


# --------------------------------------------------------------------------------------------
# compile + call on the examples


def test_compile_vector_add_matches_numpy() -> None:
    mod = compile(VECTOR_ADD.read_text())
    assert mod.signature() == (
        "(A: 1x64x1x16xint32, B: 1x64x1x16xint32) -> (C: 1x64x1x16xint8)"
    )
    a, b = _vector_add_inputs()
    (c,) = mod(a, b)
    assert c.dtype == np.int8 and c.shape == (1, 64, 1, 16)
    assert np.array_equal(c, (a.astype(np.int64) + b).astype(np.int8))
    stats = mod.last_run
    assert stats is not None
    assert stats.counters["alu_counter"] == 64
    assert stats.counters["acc_load_nbytes"] == 2 * 1024 * 4
    assert stats.counters["out_store_nbytes"] == 1024
    assert stats.cycles is not None and stats.cycles > 0
    assert set(stats.busy) == {"load", "compute", "store"}


def test_compile_matrix_multiply_matches_numpy() -> None:
    mod = compile(MATRIX_MULTIPLY.read_text())
    assert [(s.name, s.shape, s.dtype) for s in mod.inputs] == [
        ("A", (1, 256), "int8"),
        ("B", (256, 256), "int8"),
    ]
    for seed in range(3):
        a, b = _matrix_multiply_inputs(seed)
        (c,) = mod(a, b)
        assert np.array_equal(c, _matrix_multiply_reference(a, b))
    assert mod.last_run is not None
    assert mod.last_run.counters["gemm_counter"] == 256
    assert mod.last_run.counters["wgt_load_nbytes"] == 256 * 256


def test_inputs_by_name_and_a_device_of_ones_own() -> None:
    device = Device(VTAConfig.load("default"))
    with compile(MATRIX_MULTIPLY, device=device) as mm:
        assert mm.device is device
        a, b = _matrix_multiply_inputs()
        (c,) = mm(B=b, A=a)
        assert np.array_equal(c, _matrix_multiply_reference(a, b))
        assert device.last_run is mm.last_run
        # Both programs are linked at the same addresses: one at a time on a device.
        with pytest.raises(VTAError, match="cannot load module: segment 'A'"):
            compile(VECTOR_ADD, device=device)
    add = compile(VECTOR_ADD, device=device)
    x, y = _vector_add_inputs(1)
    (z,) = add(x, y)
    assert np.array_equal(z, (x.astype(np.int64) + y).astype(np.int8))


@pytest.mark.parametrize(
    "kind", ["text", "path", "bytes-mlir", "vtab-bytes", "module", "binary", "vtaisa-module"]
)
def test_every_input_kind_gives_the_same_program(kind: str) -> None:
    text = MATRIX_MULTIPLY.read_text()
    reference = lower(text).to_bytes()
    source: object = {
        "text": text,
        "path": MATRIX_MULTIPLY,
        "bytes-mlir": text.encode(),
        "vtab-bytes": reference,
        "module": parse(text),
        "binary": lower(text),
        "vtaisa-module": run_pipeline(parse(text), "vta-lower-to-isa"),
    }[kind]
    binary = lower(source)  # type: ignore[arg-type]
    assert isinstance(binary, BinaryModule)
    assert binary.to_bytes() == reference
    mod = compile(source)  # type: ignore[arg-type]
    a, b = _matrix_multiply_inputs(7)
    (c,) = mod(a, b)
    assert np.array_equal(c, _matrix_multiply_reference(a, b))


def test_lower_leaves_a_module_unchanged() -> None:
    module = parse(VECTOR_ADD.read_text())
    before = print_ir(module)
    lower(module, config="default")
    assert print_ir(module) == before


def test_lower_verifies_a_module_changed_in_python() -> None:
    module = parse(VECTOR_ADD.read_text())
    alu = next(op for op in module.walk() if isinstance(op, AluOp))
    alu.detach()
    alu.erase()
    with pytest.raises(DiagnosticError, match="'vta.uop_loop' op .*needs at least one"):
        lower(module)


def test_config_of_a_device_and_of_the_program() -> None:
    block32 = VTAConfig.load("block32")
    # The matrix_multiply example carries the default configuration.
    with pytest.raises(DiagnosticError, match="was built for configuration"):
        compile(MATRIX_MULTIPLY.read_text(), device=Device(block32))
    with pytest.raises(DiagnosticError, match="was built for configuration"):
        lower(MATRIX_MULTIPLY.read_text(), config=block32)
    # vector_add carries none: the device's applies.
    mod = compile(VECTOR_ADD.read_text(), config="default", device=Device())
    assert mod.module.config.same_hardware(VTAConfig.load("default"))
    with pytest.raises(BinaryFormatError, match="built for"):
        lower(lower(VECTOR_ADD), config=block32)


def test_function_selects_a_host_program() -> None:
    two = VECTOR_ADD.read_text() + VECTOR_ADD.read_text().replace("@vector_add", "@other")
    with pytest.raises(DiagnosticError, match="name the one to lower"):
        lower(two)
    assert lower(two, function="other").to_bytes() == lower(VECTOR_ADD).to_bytes()
    with pytest.raises(VTAError, match=r"function= applies to input-level and vta-level IR, "
                                       r"not to vtaisa"):
        lower(run_pipeline(parse(VECTOR_ADD.read_text()), "vta-lower-to-isa"), function="f")
    with pytest.raises(VTAError, match=r"function= applies to input-level and vta-level IR, "
                                       r"not to a \.vtab"):
        lower(lower(VECTOR_ADD), function="f")


# --------------------------------------------------------------------------------------------
# parse / print


def test_parse_print_round_trip() -> None:
    for path in (VECTOR_ADD, MATRIX_MULTIPLY):
        module = parse(path.read_text(), filename=path.name)
        custom = print_ir(module)
        generic = print_ir(module, generic=True)
        assert '"vta.stage"' in generic and "vta.stage compute" in custom
        assert print_ir(parse(custom)) == custom
        assert print_ir(parse(generic)) == custom
        assert print_ir(parse(custom), generic=True) == generic
        assert f'loc("{path.name}":' in print_ir(module, debuginfo=True)


def test_parse_attaches_the_configuration() -> None:
    module = parse(EMPTY_FUNC, config="block32")
    assert "log_block = 5" in print_ir(module)
    with pytest.raises(DiagnosticError, match="was built for configuration"):
        parse(print_ir(module), config=VTAConfig.load("default"))


def test_parse_errors_are_diagnostics_with_positions() -> None:
    text = "func.func @f(%a: i32) {\n  %b = arith.addi %a, %a : i64\n  func.return\n}\n"
    with pytest.raises(DiagnosticError) as info:
        parse(text, filename="bad.mlir")
    assert str(info.value).startswith("bad.mlir:2:19: error: ")
    lines = info.value.diagnostic.format(sources={"bad.mlir": text}).splitlines()
    assert lines[1:3] == ["  %b = arith.addi %a, %a : i64", "                  ^"]
    # A verifier error is placed at the op too.
    bad_alu = VECTOR_ADD.read_text().replace("alu add %a[0], %b[0]", "alu add %a[99], %b[0]")
    with pytest.raises(DiagnosticError, match=r"vector_add.mlir:\d+:\d+: error: 'vta.alu' op"):
        parse(bad_alu, filename="vector_add.mlir")


def test_argument_types_are_checked() -> None:
    with pytest.raises(TypeError, match="MLIR text"):
        parse(VECTOR_ADD.read_bytes())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="operation"):
        print_ir("func.func @f()")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="lower takes"):
        lower(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="config"):
        lower(VECTOR_ADD, config=16)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Device"):
        compile(VECTOR_ADD, device="sim")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="builtin.module"):
        run_pipeline("func.func @f()", "cse")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# run_pipeline


@pytest.mark.parametrize(
    "pipeline",
    [
        "builtin.module(canonicalize, vta-lower-to-isa{base=4096})",
        "builtin.module(func.func(canonicalize), vta-lower-to-isa{base=4096})",
        "canonicalize,vta-lower-to-isa{base=4096}",
        " canonicalize , vta-lower-to-isa{base=4096} ",
    ],
)
def test_run_pipeline_syntaxes_agree(pipeline: str) -> None:
    text = MATRIX_MULTIPLY.read_text()
    expected = print_ir(run_pipeline(parse(text), [CanonicalizePass(), LowerToIsaPass(base=4096)]))
    module = parse(text)
    assert run_pipeline(module, pipeline) is module
    assert print_ir(module) == expected
    assert "vtaisa.program base 0x1000" in expected


def test_run_pipeline_with_one_pass_instance() -> None:
    module = run_pipeline(parse(VECTOR_ADD.read_text()), LowerToIsaPass())
    assert "vtaisa.program" in print_ir(module)


def test_run_pipeline_rejects_bad_pipelines() -> None:
    module = parse(EMPTY_FUNC)
    with pytest.raises(VTAError, match="unknown pass 'no-such-pass'"):
        run_pipeline(module, "builtin.module(no-such-pass)")
    with pytest.raises(VTAError, match="invalid options for pass 'canonicalize'"):
        run_pipeline(module, "canonicalize{bogus=1}")
    with pytest.raises(VTAError, match="invalid pass pipeline .*missing '\\)'"):
        run_pipeline(module, "builtin.module(cse")
    with pytest.raises(TypeError, match="not the class CanonicalizePass"):
        run_pipeline(module, [CanonicalizePass])  # type: ignore[list-item]


@dataclass(frozen=True)
class _EraseReturns(ModulePass):
    """Leaves invalid IR behind: a function body without its terminator."""

    name = "test-erase-returns"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in list(op.walk()):
            if inner.name == "func.return":
                inner.detach()
                inner.erase()


class _Unsupported(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AluOp, rewriter: PatternRewriter) -> None:
        raise NotImplementedError("ALU ops are beyond this pass")


@dataclass(frozen=True)
class _RejectAlu(ModulePass):
    name = "test-reject-alu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(_Unsupported()).rewrite_module(op)


@dataclass(frozen=True)
class _Buggy(ModulePass):
    name = "test-buggy"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise KeyError("boom")


def test_verify_each() -> None:
    with pytest.raises(DiagnosticError, match="'func.func' op"):
        run_pipeline(parse(EMPTY_FUNC), [_EraseReturns()])
    # Without verification the broken IR comes back as it is.
    module = run_pipeline(parse(EMPTY_FUNC), [_EraseReturns()], verify_each=False)
    assert "func.return" not in print_ir(module)


def test_pass_failures_are_placed_at_the_op() -> None:
    with pytest.raises(DiagnosticError) as info:
        run_pipeline(parse(VECTOR_ADD.read_text(), filename="va.mlir"), [_RejectAlu()])
    message = str(info.value)
    assert re.match(r"va\.mlir:\d+:\d+: error: 'vta.alu' op not supported: ALU ops", message)


def test_internal_errors_keep_their_traceback() -> None:
    with pytest.raises(KeyError, match="boom"):
        run_pipeline(parse(EMPTY_FUNC), [_Buggy()])


def test_registered_passes_are_usable_by_name() -> None:
    vta_mlir.passes.register_pass(_EraseReturns)
    module = parse(EMPTY_FUNC)
    run_pipeline(module, "builtin.module(test-erase-returns)", verify_each=False)
    assert "func.return" not in print_ir(module)


# --------------------------------------------------------------------------------------------
# lower: errors


def test_lower_errors_are_clean() -> None:
    with pytest.raises(VTAError, match="a str is MLIR text, not a file name"):
        lower(str(VECTOR_ADD))
    with pytest.raises(VTAError, match="cannot open input file"):
        lower(Path("no/such/file.mlir"))
    with pytest.raises(BinaryFormatError, match="truncated module"):
        lower(b"\x89VTAB\r\n\x1a\n")
    with pytest.raises(VTAError, match="neither MLIR text"):
        lower(b"\xff\xfe not utf-8")
    mixed = run_pipeline(parse(VECTOR_ADD.read_text()), "vta-lower-to-isa")
    push = "vta.dep_push compute -> store\n  "
    text = print_ir(mixed).replace("vtaisa.program", push + "vtaisa.program", 1)
    with pytest.raises(DiagnosticError, match="cannot be mixed"):
        lower(text)


# --------------------------------------------------------------------------------------------
# The package


def test_import_is_lazy() -> None:
    code = (
        "import sys, vta_mlir\n"
        "heavy = [m for m in ('xdsl', 'numpy', 'vta_mlir.api', 'vta_mlir.runtime') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "from vta_mlir import compile, parse, print_ir, run_pipeline, lower, Device, VTAConfig\n"
        "assert compile.__module__ == 'vta_mlir.api'\n"
        "assert run_pipeline.__module__ == 'vta_mlir.ir.pipeline'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0, proc.stderr


def test_public_names() -> None:
    for name in ("compile", "lower", "parse", "print_ir", "run_pipeline", "Device", "VTAConfig"):
        assert name in vta_mlir.__all__ and name in dir(vta_mlir)
        assert getattr(vta_mlir, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        vta_mlir.nope  # noqa: B018 - the attribute access is the test


def test_core_does_not_import_the_tools() -> None:
    core = ROOT / "vta_mlir"
    offenders = [
        str(path.relative_to(ROOT))
        for path in core.rglob("*.py")
        if re.search(r"^\s*(from|import)\s+(vta_mlir\.)?tools\b", path.read_text(), re.M)
    ]
    assert not offenders


# --------------------------------------------------------------------------------------------
# docs/python-api.md: every ```python block runs


def _doc_blocks() -> Iterator[tuple[str, str]]:
    heading = "intro"
    text = DOC.read_text()
    for match in re.finditer(r"^(#+ [^\n]*)$|^```python\n(.*?)^```", text, re.M | re.S):
        if match.group(1):
            heading = re.sub(r"\W+", "-", match.group(1).lstrip("# ").lower()).strip("-")
        else:
            yield heading, match.group(2)


DOC_BLOCKS = list(_doc_blocks())


def test_the_doc_has_examples() -> None:
    assert len(DOC_BLOCKS) >= 6


@pytest.mark.parametrize(
    "code",
    [code for _, code in DOC_BLOCKS],
    ids=[f"{i}-{heading}" for i, (heading, _) in enumerate(DOC_BLOCKS)],
)
def test_doc_example_runs(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    exec(compile_source(code), {"__name__": "python_api_doc"})


def compile_source(code: str) -> object:
    import builtins

    return builtins.compile(code, str(DOC), "exec")
