"""``vta-translate``: level detection, ``.vtab`` ⇄ ``vtaisa`` IR byte-identical round trips, the
disassembly, vta-level IR lowered straight to words (equal to ``vta-lower-to-isa``), the
``vta-to-isa`` pipeline for input-level IR, and MLIR-style errors without tracebacks."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from vta_mlir import driver
from vta_mlir.abi import ArgSpec
from vta_mlir.binary import BinaryModule, Linker, from_bytes
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects.vtaisa_program import program_to_module
from vta_mlir.driver import Level, detect_level, is_vtab
from vta_mlir.ir.context import parse_module
from vta_mlir.isa import (
    AluInsn,
    AluKind,
    FinishInsn,
    Insn,
    MemInsn,
    MemType,
    Uop,
    encode_uops,
    parse_asm,
)
from vta_mlir.program import Program, Run
from vta_mlir.tools import vta_opt, vta_translate
from vta_mlir.tools._cli import print_diagnostic

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "vta"
BIN = Path(sys.executable).parent
BASE = 0x10_0000


# --------------------------------------------------------------------------------------------
# Hand-written programs (shared with test_vta_run)


def _closing(insns: list[Insn]) -> list[Insn]:
    """The runtime's closing handshake and FINISH, after a last STORE carrying push_prev."""
    return insns + [
        MemInsn(memory_type=MemType.INP, push_next_dep=1),
        MemInsn(memory_type=MemType.UOP, pop_prev_dep=1, pop_next_dep=1),
        FinishInsn(),
    ]


def _load_acc(cfg: VTAConfig, sram: int, phys: int, n: int) -> MemInsn:
    return MemInsn(
        memory_type=MemType.ACC,
        sram_base=sram,
        dram_base=phys // cfg.acc_elem_bytes,
        y_size=1,
        x_size=n,
        x_stride=n,
    )


def _load_uop(phys: int) -> MemInsn:
    return MemInsn(memory_type=MemType.UOP, dram_base=phys // 4, y_size=1, x_size=1, x_stride=1)


def _alu_add(n: int) -> AluInsn:
    return AluInsn(
        alu_opcode=AluKind.ADD.opcode,
        uop_bgn=0,
        uop_end=1,
        iter_out=1,
        iter_in=n,
        dst_factor_in=1,
        src_factor_in=1,
        push_next_dep=1,
    )


def _store(cfg: VTAConfig, phys: int, n: int, *, last: bool = True) -> MemInsn:
    return MemInsn(
        is_store=1,
        memory_type=MemType.OUT,
        dram_base=phys // cfg.out_elem_bytes,
        y_size=1,
        x_size=n,
        x_stride=n,
        pop_prev_dep=1,
        push_prev_dep=int(last),
    )


def add_module(cfg: VTAConfig, shape: tuple[int, int] = (2, 40)) -> BinaryModule:
    """``y = int8(a + b)`` for int32 ``a``, ``b`` in the ``NC`` layout, one run."""
    link = Linker(BASE)
    a = link.argument(ArgSpec.for_layout("a", "in", "int32", shape, "NC", cfg))
    b = link.argument(ArgSpec.for_layout("b", "in", "int32", shape, "NC", cfg))
    y = link.argument(ArgSpec.for_layout("y", "out", "int8", shape, "NC", cfg))
    staging = link.segment("uops", 4)
    n = a.packed_nbytes // cfg.acc_elem_bytes
    insns = _closing(
        [
            _load_acc(cfg, 0, a.phys, n),
            _load_acc(cfg, n, b.phys, n),
            _load_uop(staging.phys),
            _alu_add(n),
            _store(cfg, y.phys, n),
        ]
    )
    run = Run(insns, encode_uops([Uop(0, n, 0)], cfg), staging.phys)
    return BinaryModule(cfg, Program([run], link.segments), [a, b, y], BASE)


def bias_module(cfg: VTAConfig, bias: np.ndarray) -> BinaryModule:
    """``y = int8(a + bias)`` with a constant ``bias`` segment, in two runs; the result is also
    stored to a scratch segment ``spill``."""
    shape = bias.shape
    link = Linker(BASE)
    a = link.argument(ArgSpec.for_layout("a", "in", "int32", shape, "NC", cfg))
    spec = ArgSpec.for_layout("bias", "in", "int32", shape, "NC", cfg)
    packed = spec.pack(np.asarray(bias, dtype=np.int32))
    const = link.segment("bias", len(packed), np.frombuffer(packed, dtype=np.uint8))
    y = link.argument(ArgSpec.for_layout("y", "out", "int8", shape, "NC", cfg))
    spill = link.segment("spill", y.packed_nbytes)
    staging = link.segment("uops", 4)
    n = a.packed_nbytes // cfg.acc_elem_bytes
    words = encode_uops([Uop(0, n, 0)], cfg)
    first = _closing(
        [
            _load_acc(cfg, 0, a.phys, n),
            _load_acc(cfg, n, const.phys, n),
            _load_uop(staging.phys),
            _alu_add(n),
            _store(cfg, y.phys, n),
        ]
    )
    second = _closing(
        [
            _load_acc(cfg, 0, a.phys, n),
            _load_acc(cfg, n, const.phys, n),
            _load_uop(staging.phys),
            _alu_add(n),
            _store(cfg, spill.phys, n),
        ]
    )
    runs = [Run(first, words, staging.phys), Run(second, words.copy(), staging.phys)]
    return BinaryModule(cfg, Program(runs, link.segments), [a, y], BASE)


def mlir_of(binary: BinaryModule) -> str:
    return vta_translate.emit_mlir(program_to_module(binary))


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str | bytes], str]:
    def put(name: str, content: str | bytes) -> str:
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        return str(path)

    return put


def translate(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = vta_translate.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def run_tool(
    tool: str, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(BIN / tool), *args], input=stdin, capture_output=True, timeout=600, check=False
    )


# --------------------------------------------------------------------------------------------
# Level detection


def test_levels_are_detected_from_the_ops(default_cfg: VTAConfig) -> None:
    isa = parse_module(mlir_of(add_module(default_cfg)))
    assert detect_level(isa) == Level.VTAISA
    host = parse_module("func.func @f() {\n  vta.dep_push load -> compute\n  func.return\n}")
    assert detect_level(host) == Level.VTA
    plain = parse_module("func.func @f(%a: memref<4xi8>) {\n  func.return\n}")
    assert detect_level(plain) == Level.INPUT
    # The configuration attribute alone does not make a module vta-level.
    configured = parse_module(mlir_of(add_module(default_cfg)).split("{\n", 1)[0] + "{\n}\n")
    assert detect_level(configured) == Level.INPUT


def test_vtab_detected_by_magic(default_cfg: VTAConfig) -> None:
    data = add_module(default_cfg).to_bytes()
    assert is_vtab(data)
    assert is_vtab(data[:3])  # cut inside the magic: still reported as a truncated module
    assert not is_vtab(b"")
    assert not is_vtab(b"func.func @f() {}")
    assert not is_vtab(mlir_of(add_module(default_cfg)).encode())


# --------------------------------------------------------------------------------------------
# .vtab <-> vtaisa


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_vtab_mlir_vtab_is_byte_identical(
    name: str, write: Callable[..., str], capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = VTAConfig.shipped(name)
    for binary in (add_module(cfg, (3, 40)), bias_module(cfg, np.arange(80).reshape(2, 40))):
        data = binary.to_bytes()
        vtab = write("in.vtab", data)
        status, text, err = translate(["--emit=mlir", vtab], capsys)
        assert status == 0, err
        assert "vtaisa.program" in text
        mlir = write("back.mlir", text)
        out = str(Path(mlir).with_suffix(".vtab"))
        status, _, err = translate(["--emit=bin", mlir, "-o", out, "--config", name], capsys)
        assert status == 0, err
        assert Path(out).read_bytes() == data
        # A .vtab in, a .vtab out: the same bytes.
        status, _, err = translate(["--emit=bin", vtab, "-o", out], capsys)
        assert status == 0, err
        assert Path(out).read_bytes() == data


def test_emit_mlir_to_file(
    write: Callable[..., str], capsys: pytest.CaptureFixture[str], default_cfg: VTAConfig
) -> None:
    vtab = write("in.vtab", add_module(default_cfg).to_bytes())
    out = str(Path(vtab).with_name("out.mlir"))
    status, text, err = translate(["--emit=mlir", vtab, "-o", out], capsys)
    assert (status, text, err) == (0, "", "")
    assert Path(out).read_text() == mlir_of(add_module(default_cfg))


def test_emit_asm_lists_every_instruction_per_run(
    write: Callable[..., str], capsys: pytest.CaptureFixture[str], default_cfg: VTAConfig
) -> None:
    binary = bias_module(default_cfg, np.ones((1, 40), dtype=np.int64))
    for path in (write("m.vtab", binary.to_bytes()), write("m.mlir", mlir_of(binary))):
        status, listing, err = translate(["--emit=asm", path], capsys)
        assert status == 0, err
        lines = listing.splitlines()
        comments = [line for line in lines if line.startswith("#")]
        body = [line for line in lines if not line.startswith("#")]
        insns = [insn for run in binary.program.runs for insn in run.insns]
        assert len(body) == len(insns)
        assert parse_asm(listing) == insns
        for r, run in enumerate(binary.program.runs):
            assert f"# run {r}: {len(run.insns)} instruction(s)" in "\n".join(comments)
        # Numbered within each run.
        assert body[0].startswith("0: ") and body[len(binary.program.runs[0].insns)].startswith(
            "0: "
        )


def test_emit_bin_refuses_a_terminal(
    write: Callable[..., str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    default_cfg: VTAConfig,
) -> None:
    vtab = write("in.vtab", add_module(default_cfg).to_bytes())
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    status, out, err = translate(["--emit=bin", vtab], capsys)
    assert status == 1 and out == ""
    assert err == (
        "vta-translate: error: refusing to write a binary module to a terminal; give -o FILE "
        "or redirect stdout\n"
    )
    # With -o the terminal does not matter.
    status, _, err = translate(["--emit=bin", vtab, "-o", vtab + ".copy"], capsys)
    assert status == 0, err


def test_stdin_and_stdout_carry_bytes(default_cfg: VTAConfig) -> None:
    data = add_module(default_cfg).to_bytes()
    proc = run_tool("vta-translate", "--emit=bin", stdin=data)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == data
    proc = run_tool(
        "vta-translate", "--emit=bin", "-", stdin=mlir_of(add_module(default_cfg)).encode()
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == data


# --------------------------------------------------------------------------------------------
# Input-level IR and the vta-to-isa pipeline


INPUT_LEVEL = """\
func.func @add(%a: memref<2x40xi32>, %b: memref<2x40xi32>, %y: memref<2x40xi8>) {
  func.return
}
"""


def test_input_level_runs_the_registered_pipeline(
    write: Callable[..., str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    default_cfg: VTAConfig,
) -> None:
    """Whatever ``vta-to-isa`` is registered is looked up by name and applied; its vtaisa
    output is serialized."""
    import vta_mlir.passes
    from vta_mlir.dialects.vtaisa_program import program_op

    expected = add_module(default_cfg)

    @dataclass(frozen=True)
    class FakeToIsa(ModulePass):
        name = "vta-to-isa"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            for child in list(op.body.block.ops):
                child.detach()
                child.erase()
            op.body.block.add_op(program_op(expected))

    monkeypatch.setattr(
        vta_mlir.passes, "get_all_passes", lambda: {"vta-to-isa": lambda: FakeToIsa}
    )
    out = write("out.vtab", b"")
    status, _, err = translate(["--emit=bin", write("in.mlir", INPUT_LEVEL), "-o", out], capsys)
    assert status == 0, err
    assert Path(out).read_bytes() == expected.to_bytes()


# --------------------------------------------------------------------------------------------
# vta-level IR: straight to words, equal to vta-lower-to-isa


def _examples() -> list[Path]:
    return sorted(EXAMPLES.glob("*.mlir")) if EXAMPLES.is_dir() else []


def _needs_lowering() -> None:
    import vta_mlir.passes

    if "vta-lower-to-isa" not in vta_mlir.passes.get_all_passes():
        pytest.skip("vta-lower-to-isa is not registered")


@pytest.mark.parametrize(
    "example", ["vector_add.mlir", "matrix_multiply.mlir"], ids=["vector_add", "matrix_multiply"]
)
def test_vta_level_bytes_equal_those_through_vta_lower_to_isa(example: str, tmp_path: Path) -> None:
    _needs_lowering()
    source = EXAMPLES / example
    if not source.exists():
        pytest.skip(f"{source} does not exist")
    direct = tmp_path / "direct.vtab"
    assert vta_translate.main(["--emit=bin", str(source), "-o", str(direct)]) == 0
    lowered = tmp_path / "lowered.mlir"
    assert vta_opt.main(["-p", "vta-lower-to-isa", str(source), "-o", str(lowered)]) == 0
    assert "vtaisa.program" in lowered.read_text()
    via_isa = tmp_path / "via_isa.vtab"
    assert vta_translate.main(["--emit=bin", str(lowered), "-o", str(via_isa)]) == 0
    assert direct.read_bytes() == via_isa.read_bytes()
    # And the words decode back to the same program.
    binary = from_bytes(direct.read_bytes())
    assert binary.program.num_insns > 0


def test_vta_level_in_process_equals_the_pass() -> None:
    """``lower_to_binary`` against the module the ``vta-lower-to-isa`` pass produces, for every
    example, compared as binary modules."""
    _needs_lowering()
    from vta_mlir.dialects.vtaisa_program import module_to_program
    from vta_mlir.host.lowering import lower_to_binary
    from vta_mlir.ir.context import make_context
    from vta_mlir.passes import get_all_passes

    examples = _examples()
    if not examples:
        pytest.skip("no examples/vta/*.mlir")
    for path in examples:
        ctx = make_context()
        module = parse_module(path.read_text(), filename=str(path), ctx=ctx)
        if detect_level(module) != Level.VTA:
            continue
        direct = lower_to_binary(module.clone())
        get_all_passes()["vta-lower-to-isa"]()().apply(ctx, module)
        assert direct.to_bytes() == module_to_program(module).to_bytes(), path.name


# --------------------------------------------------------------------------------------------
# Errors


def _corrupt(data: bytes) -> bytes:
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x10
    return bytes(flipped)


ERROR_CASES: dict[str, tuple[Callable[[bytes, str], tuple[str | bytes, list[str]]], str]] = {
    "truncated": (
        lambda vtab, mlir: (vtab[:-7], ["--emit=asm"]),
        r"^{path}: error: truncated module",
    ),
    "truncated-in-magic": (
        lambda vtab, mlir: (vtab[:4], ["--emit=asm"]),
        r"^{path}: error: truncated module",
    ),
    "corrupt": (
        lambda vtab, mlir: (_corrupt(vtab), ["--emit=mlir"]),
        r"^{path}: error: checksum mismatch .*: the module is corrupt",
    ),
    "bad-magic": (
        lambda vtab, mlir: (b"\x89VTAX" + vtab[5:], ["--emit=asm"]),
        r"^{path}: error: .*magic",
    ),
    "syntax": (
        lambda vtab, mlir: (mlir.replace("vtaisa.program base", "vtaisa.program bas", 1), []),
        r"^{path}:2:\d+: error: ",
    ),
    "unknown-op": (
        lambda vtab, mlir: (mlir.replace("vtaisa.finish", "vtaisa.finnish", 1), []),
        r"^{path}:\d+:\d+: error: Operation vtaisa.finnish is not registered",
    ),
    "verifier": (
        lambda vtab, mlir: (mlir.replace("size 4\n", "size 0\n", 1), []),
        r"^{path}:\d+:\d+: error: 'vtaisa.segment' op",
    ),
    "not-utf8": (
        lambda vtab, mlir: (b"func.func \xff", []),
        r"^vta-translate: error: {path}: input is neither MLIR text .* nor a \.vtab module$",
    ),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_malformed_inputs(
    case: str,
    write: Callable[..., str],
    capsys: pytest.CaptureFixture[str],
    default_cfg: VTAConfig,
) -> None:
    import re

    make, pattern = ERROR_CASES[case]
    binary = add_module(default_cfg)
    content, flags = make(binary.to_bytes(), mlir_of(binary))
    path = write(f"{case}.input", content)
    flags = flags or ["--emit=bin", "-o", path + ".out"]
    status, out, err = translate([*flags, path], capsys)
    assert status == 1 and out == ""
    assert re.search(pattern.format(path=re.escape(path)), err, re.M), err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--emit=asm", "{dir}/missing.mlir"], "cannot open input file '{dir}/missing.mlir': "),
        (["--emit=asm", "{vtab}", "--config", "{dir}/none.json"], "none.json: cannot read"),
        (["--emit=asm", "{vtab}", "--config", "{badcfg}"], "bad.json: missing key(s)"),
        (["--emit=asm", "{vtab}", "--config", "nonsense"], "nonsense: cannot read configuration"),
        (["{vtab}"], "the following arguments are required: --emit"),
        (["--emit=elf", "{vtab}"], "argument --emit: invalid choice: 'elf'"),
        (["--emit=asm", "{vtab}", "--function", "f"],
         "--function applies to input-level and vta-level IR"),
        (["--emit=bin", "{vtab}", "-o", "{dir}/no/such/dir.vtab"], "cannot write output file"),
    ],
)
def test_command_line_errors(
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    default_cfg: VTAConfig,
) -> None:
    vtab = tmp_path / "m.vtab"
    vtab.write_bytes(add_module(default_cfg).to_bytes())
    badcfg = tmp_path / "bad.json"
    badcfg.write_text('{"LOG_BLOCK": 4}')
    fill = {"dir": str(tmp_path), "vtab": str(vtab), "badcfg": str(badcfg)}
    status, out, err = translate([a.format(**fill) for a in argv], capsys)
    assert status == 1 and out == ""
    assert err.startswith("vta-translate: error: ") and err.count("\n") == 1, err
    assert message.format(**fill) in err


def test_configuration_mismatch(
    write: Callable[..., str], capsys: pytest.CaptureFixture[str]
) -> None:
    block32 = add_module(VTAConfig.shipped("block32"))
    vtab = write("m.vtab", block32.to_bytes())
    status, _, err = translate(["--emit=asm", vtab, "--config", "default"], capsys)
    assert status == 1
    assert err.startswith(f"{vtab}: error: module was built for 1x32_")
    mlir = write("m.mlir", mlir_of(block32))
    status, _, err = translate(["--emit=asm", mlir, "--config", "default"], capsys)
    assert status == 1
    assert err.startswith(f"{mlir}:1:1: error: the module was built for configuration")
    # The configuration it was built for is accepted, by name or by file.
    status, _, err = translate(["--emit=asm", mlir, "--config", "block32"], capsys)
    assert status == 0, err


def test_mixed_levels_are_an_error(
    write: Callable[..., str], capsys: pytest.CaptureFixture[str], default_cfg: VTAConfig
) -> None:
    text = mlir_of(add_module(default_cfg)).replace(
        "vtaisa.program", "vta.dep_push load -> compute\n  vtaisa.program", 1
    )
    status, _, err = translate(["--emit=bin", write("m.mlir", text), "-o", "-"], capsys)
    assert status == 1
    assert "error: 'vtaisa.program' op vtaisa ops cannot be mixed with vta ops" in err


def test_no_traceback_from_the_installed_script(tmp_path: Path) -> None:
    bad = tmp_path / "bad.vtab"
    bad.write_bytes(b"\x89VTAB\r\n\x1a" + b"\x00" * 40)
    proc = run_tool("vta-translate", "--emit=asm", str(bad))
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert err.startswith(f"{bad}: error: ") and "Traceback" not in err


def test_levels_module_reports_through_print_diagnostic(
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = driver.Source("x.mlir", b"func.func @f( {", "func.func @f( {")
    with pytest.raises(driver.DiagnosticError) as info:
        driver.parse_source(source)
    print_diagnostic(info.value, source)
    err = capsys.readouterr().err
    assert err.splitlines()[1:] == ["func.func @f( {", "              ^"]


@pytest.mark.parametrize("example", ["vector_add.mlir", "matrix_multiply.mlir"])
def test_emit_mlir_of_mlir_input_prints_the_lowered_program_without_an_image(
    example: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """MLIR input is lowered to ``vtaisa`` ops and printed: no image is serialised and read
    back, and the text is the same as that of the image's ``.vtab`` read back."""
    source = EXAMPLES / example
    parsed = driver.parse_source(driver.Source.from_bytes(source.read_bytes(), source.name), None)
    via_vtab = mlir_of(from_bytes(driver.to_binary(parsed).to_bytes()))

    from vta_mlir.dialects import vtaisa_serialize

    def no_image(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("--emit=mlir serialised the program")

    monkeypatch.setattr(vtaisa_serialize, "unchecked_image", no_image)
    status, text, err = translate(["--emit=mlir", str(source)], capsys)
    assert (status, err) == (0, "")
    assert text == via_vtab
