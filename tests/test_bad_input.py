"""Inputs that once crashed or hung the tools: each must give exactly one MLIR-style error line
and exit status 1, quickly, with no traceback — input nested too deep for the parser, a scalar
operand of an element-wise named linalg op, dimensions too large for the DRAM address space."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

import vta_mlir
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.errors import VTAError
from vta_mlir.ir.diagnostics import NESTING_TOO_DEEP, DiagnosticError
from vta_mlir.passes.tile.conv_plan import padding_runs
from vta_mlir.passes.tile.search import divisors
from vta_mlir.tools import vta_opt, vta_run, vta_translate

from .mlir_programs import mac_region

Tool = Callable[[Sequence[str] | None], int]

TOOLS: list[tuple[str, Tool, list[str]]] = [
    ("vta-opt", vta_opt.main, []),
    ("vta-opt", vta_opt.main, ["-p", "vta-to-isa"]),
    ("vta-translate", vta_translate.main, ["--emit=asm"]),
    ("vta-run", vta_run.main, ["--random-inputs", "--check"]),
]

DEPTH = 1000

DEEP_INPUTS = {
    "type": "func.func @f(%a: " + "(" * DEPTH + "i32" + ")" * DEPTH + ") {\n  return\n}\n",
    "affine_map": "#m = affine_map<(d0) -> (" + "(" * DEPTH + "d0" + ")" * DEPTH + ")>\n"
    "func.func @f() {\n  return\n}\n",
    "array_attr": "func.func @f() attributes {x = " + "[" * DEPTH + "]" * DEPTH + "} {\n"
    "  return\n}\n",
    "dict_attr": "func.func @f() attributes {x = " + "{a = " * DEPTH + "1" + "}" * DEPTH + "} {\n"
    "  return\n}\n",
    "regions": "func.func @f() {\n"
    + "".join(f"affine.for %i{k} = 0 to 2 {{\n" for k in range(DEPTH))
    + "}\n" * DEPTH
    + "  return\n}\n",
}


def run_tool(main: Tool, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out + err


def error_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "error:" in line]


def check_one_error(status: int, text: str, expected: str) -> str:
    assert status == 1, text
    assert "Traceback" not in text and "internal error" not in text, text
    errors = error_lines(text)
    assert len(errors) == 1, text
    assert expected in errors[0], text
    return errors[0]


# ---- 1. nesting too deep ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(DEEP_INPUTS))
@pytest.mark.parametrize(
    ("name", "main", "flags"), TOOLS, ids=[" ".join([t[0], *t[2]]) for t in TOOLS]
)
def test_nesting_too_deep(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    name: str,
    main: Tool,
    flags: list[str],
) -> None:
    path = tmp_path / "deep.mlir"
    path.write_text(DEEP_INPUTS[kind])
    status, text = run_tool(main, [str(path), *flags], capsys)
    line = check_one_error(status, text, NESTING_TOO_DEEP)
    # At the place the parser gave up: inside the nesting, on its line.
    assert line.startswith(f"{path}:"), line
    row, col = (int(part) for part in line[len(str(path)) + 1 :].split(":")[:2])
    text_line = DEEP_INPUTS[kind].splitlines()[row - 1]
    assert text_line[col - 1] in "([{a" or text_line.startswith("affine.for"), (row, col)


@pytest.mark.parametrize("kind", list(DEEP_INPUTS))
def test_parse_api_raises_the_project_error(kind: str) -> None:
    with pytest.raises(DiagnosticError) as caught:
        vta_mlir.parse(DEEP_INPUTS[kind], filename="deep.mlir")
    assert isinstance(caught.value, VTAError)
    assert caught.value.diagnostic.message == NESTING_TOO_DEEP
    assert str(caught.value).startswith("deep.mlir:")


def test_moderate_nesting_still_parses() -> None:
    text = "func.func @f() attributes {x = " + "[" * 40 + "]" * 40 + "} {\n  return\n}\n"
    module = vta_mlir.parse(text)
    assert "[[[[" in vta_mlir.print_ir(module)


def test_deep_nesting_without_a_traceback_in_a_subprocess() -> None:
    """The installed entry point, with Python's default recursion limit."""
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from vta_mlir.tools import vta_opt; sys.exit(vta_opt.main(sys.argv[1:]))",
            "-",
        ],
        input=DEEP_INPUTS["type"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    check_one_error(proc.returncode, proc.stderr, "<stdin>:1:")
    assert NESTING_TOO_DEEP in proc.stderr


# ---- 2. scalar operands of element-wise named linalg ops ---------------------------------------

SCALAR_COPY = """\
func.func @f(%m: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  linalg.copy ins(%c0 : i32) outs(%m : memref<4xi32>)
  return
}
"""

SCALAR_ADD = """\
func.func @f(%m: memref<4xi32>, %s: i32) {
  linalg.add ins(%m, %s : memref<4xi32>, i32) outs(%m : memref<4xi32>)
  return
}
"""


@pytest.mark.parametrize(
    ("name", "main", "flags"), TOOLS, ids=[" ".join([t[0], *t[2]]) for t in TOOLS]
)
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            SCALAR_COPY,
            "input.mlir:3:3: error: 'linalg.copy' op operand #0 has type i32, but every "
            "operand must be a memref or a tensor (linalg.fill sets a buffer to a "
            "scalar)",
        ),
        (
            SCALAR_ADD,
            "input.mlir:2:3: error: 'linalg.add' op operand #1 has type i32, but every "
            "operand must be a memref or a tensor",
        ),
    ],
    ids=["copy", "add"],
)
def test_scalar_operand_of_an_elementwise_op(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    main: Tool,
    flags: list[str],
    text: str,
    expected: str,
) -> None:
    path = tmp_path / "input.mlir"
    path.write_text(text)
    status, output = run_tool(main, [str(path), *flags], capsys)
    line = check_one_error(status, output, expected)
    assert line == f"{tmp_path}/{expected}"


def test_scalar_copy_api() -> None:
    with pytest.raises(DiagnosticError, match="'linalg.copy' op operand #0 has type i32"):
        vta_mlir.parse(SCALAR_COPY)


def test_shaped_copy_still_verifies() -> None:
    text = SCALAR_COPY.replace("%c0 = arith.constant 0 : i32\n", "").replace(
        "ins(%c0 : i32)", "ins(%m : memref<4xi32>)"
    )
    vta_mlir.parse(text)


# ---- 3. dimensions too large for DRAM ----------------------------------------------------------


def matmul(m: int, n: int, k: int) -> str:
    """``C[m, n] = int8(A[m, k] · B[n, k]ᵀ)``."""
    return f"""\
func.func @mm(%a: memref<{m}x{k}xi8>, %b: memref<{n}x{k}xi8>, %c: memref<{m}x{n}xi8>) {{
  %acc = memref.alloc() : memref<{m}x{n}xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<{m}x{n}xi32>)
  linalg.generic {{indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %b : memref<{m}x{k}xi8>, memref<{n}x{k}xi8>) outs(%acc : memref<{m}x{n}xi32>) {{
{mac_region(x="%x", w="%w")}
  }}
  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%acc : memref<{m}x{n}xi32>) outs(%c : memref<{m}x{n}xi8>) {{
  ^bb0(%v: i32, %o: i8):
    %r = arith.trunci %v : i32 to i8
    linalg.yield %r : i8
  }}
  memref.dealloc %acc : memref<{m}x{n}xi32>
  return
}}
"""


def conv(c: int, h: int, w: int) -> str:
    """A valid 3×3 convolution of a ``1×c×h×w`` image with ``c`` output channels."""
    return f"""\
func.func @conv(%x: memref<1x{c}x{h}x{w}xi8>, %k: memref<{c}x{c}x3x3xi8>,
                %y: memref<1x{c}x{h - 2}x{w - 2}xi8>) {{
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x{c}x{h - 2}x{w - 2}xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x{c}x{h - 2}x{w - 2}xi32>)
  linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>,
                            strides = dense<1> : tensor<2xi64>}}
      ins(%x, %k : memref<1x{c}x{h}x{w}xi8>, memref<{c}x{c}x3x3xi8>)
      outs(%acc : memref<1x{c}x{h - 2}x{w - 2}xi32>)
  linalg.generic {{indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%acc : memref<1x{c}x{h - 2}x{w - 2}xi32>) outs(%y : memref<1x{c}x{h - 2}x{w - 2}xi8>) {{
  ^bb0(%v: i32, %o: i8):
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }}
  memref.dealloc %acc : memref<1x{c}x{h - 2}x{w - 2}xi32>
  return
}}
"""


TOO_LARGE = {
    "1x2^31 by 2^31x16": (matmul(1, 16, 1 << 31), "%b alone"),
    "2^31x16 by 16x16": (matmul(1 << 31, 16, 16), "%a alone"),
    "1x16 by 16x2^31": (matmul(1, 1 << 31, 16), "%b alone"),
    "2^20x16 by 16x2^20": (matmul(1 << 20, 1 << 20, 16), "%c alone"),
    "conv 16x2^28x3": (conv(16, 1 << 28, 3), "%x alone"),
}


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("case", list(TOO_LARGE))
def test_too_large_for_dram_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, case: str
) -> None:
    text, largest = TOO_LARGE[case]
    path = tmp_path / "big.mlir"
    path.write_text(text)
    for main, flags in ((vta_opt.main, ["-p", "vta-to-isa"]), (vta_run.main, ["--random-inputs"])):
        start = time.perf_counter()
        status, output = run_tool(main, [str(path), *flags, "--config", config], capsys)
        elapsed = time.perf_counter() - start
        line = check_one_error(status, output, "vta-tile: the packed arguments need ")
        assert f"bytes of DRAM, more than the 1024 MiB a module may occupy ({largest}: " in line
        assert line.startswith(f"{path}:1:1: error: 'func.func' op ")
        assert elapsed < 1.0, f"{case}: {elapsed:.2f} s"


def test_the_largest_module_that_fits_is_planned_quickly(tmp_path: Path) -> None:
    """2^24 rows of input and output (256 MiB each): planning does not count the rows."""
    path = tmp_path / "tall.mlir"
    path.write_text(matmul((1 << 24) - 1, 16, 16))  # odd, so every divisor search is exercised
    start = time.perf_counter()
    module = vta_mlir.run_pipeline(vta_mlir.parse(path.read_text()), "vta-pack,vta-tile")
    assert time.perf_counter() - start < 5.0
    assert "affine.for" in vta_mlir.print_ir(module)


def test_tall_convolution_is_planned_quickly() -> None:
    start = time.perf_counter()
    module = vta_mlir.run_pipeline(vta_mlir.parse(conv(16, 1 << 20, 3)), "vta-pack,vta-tile")
    assert time.perf_counter() - start < 5.0
    assert "vta.dma_copy" in vta_mlir.print_ir(module)


def test_divisors_by_trial() -> None:
    for n in [*range(1, 3000), 2**31 - 1, 2**31, 3**19, 2**20 * 3 * 5 * 7]:
        found = divisors(n)
        assert found == sorted(found) and len(set(found)) == len(found)
        assert all(n % d == 0 for d in found)
        if n < 3000:
            assert found == [d for d in range(1, n + 1) if n % d == 0]
    assert divisors(2**31 - 1) == [1, 2**31 - 1]  # a prime
    assert len(divisors(2**20 * 3 * 5 * 7)) == 21 * 8


def _runs_one_by_one(
    tiles: int, step: int, pad: int, span: int, extent: int, size: int | None = None
) -> list[tuple[int, int, int, int, int]]:
    """The runs of tiles of equal padding, from every tile (the definition)."""
    out: list[list[int]] = []
    for k in range(tiles):
        start = k * step - pad
        before, after = max(0, -start), max(0, start + span - extent)
        real = span - before - after if size is None else size
        if out and (out[-1][2], out[-1][3]) == (before, after):
            out[-1][1] += 1
            out[-1][4] = real
        else:
            out.append([k, 1, before, after, real])
    return [tuple(run) for run in out]  # type: ignore[misc]


def test_padding_runs_do_not_walk_every_tile() -> None:
    cases = [
        (tiles, step, pad, span, extent, size)
        for tiles in range(0, 12)
        for step in (1, 2, 3, 5)
        for pad in (0, 1, 2, 4)
        for span in (1, 3, 6, 11)
        for extent in (1, 4, 9, 20)
        for size in (None, 2)
    ]
    for case in cases:
        got = [(r.first, r.count, r.before, r.after, r.size) for r in padding_runs(*case)]
        assert got == _runs_one_by_one(*case), case
    start = time.perf_counter()
    runs = padding_runs(1 << 30, 2, 1, 4, (1 << 31) + 1)
    assert time.perf_counter() - start < 0.01
    assert [(r.count, r.before, r.after) for r in runs] == [(1, 1, 0), ((1 << 30) - 1, 0, 0)]


# ---- 4. buffers without elements -----------------------------------------------------------------

EMPTY_FILL = """func.func @f(%y: memref<0x32xi32>) {
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<0x32xi32>)
  return
}
"""


@pytest.mark.parametrize(("name", "main", "flags"), TOOLS[1:2] + TOOLS[3:],
                         ids=["vta-opt -p vta-to-isa", "vta-run"])
def test_a_buffer_of_no_elements(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                                 main: Tool, flags: list[str]) -> None:
    path = tmp_path / "input.mlir"
    path.write_text(EMPTY_FILL)
    status, output = run_tool(main, [str(path), *flags], capsys)
    line = check_one_error(status, output, "input.mlir:3:3: error: 'linalg.fill' op %y "
                                           "(memref<0x32xi32>) has no elements")
    assert line.startswith(f"{tmp_path}/input.mlir:3:3: error:")
