"""A layer whose smallest tile does not fit the SRAMs (``vta-tile``), in a network imported from
ONNX: ``vta-import-onnx`` writes the module (importing does not tile), then ``vta-run`` and
``vta-opt`` stop with one error line naming the layer (the ONNX node), the SRAM and the
elements and bytes needed and available; exit status 1, no traceback, no output file.  The
numbers come from each shipped configuration.  (The same error on MLIR input:
``tests/filecheck/passes/vta-tile-too-large.mlir``.)"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.tools import vta_import_onnx, vta_opt, vta_run

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "onnx"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
from models import Built, float_model, init_tensor, quantize  # noqa: E402

logging.getLogger().setLevel(logging.ERROR)  # quantize_static's pre-processing advice

#: The kernel of the layer too large: one output and one input channel block of a KxK window
#: take K·K elements of the weight SRAM (and of the input SRAM: one output row and column).
K = 40
CHANNELS = 32


def wide_kernel(rng: np.random.Generator) -> Built:
    """A 3×3 stem that fits, then ``wide_conv``, a K×K convolution that does not."""
    side = K + 1
    inits = [init_tensor(rng, "w0", (CHANNELS, 3, 3, 3), 0.3),
             init_tensor(rng, "w", (CHANNELS, CHANNELS, K, K), 0.01),
             init_tensor(rng, "b", (CHANNELS,), 0.1)]
    nodes = [helper.make_node("Conv", ["x", "w0"], ["s"], pads=[1, 1, 1, 1], name="stem"),
             helper.make_node("Relu", ["s"], ["r"], name="relu"),
             helper.make_node("Conv", ["r", "w", "b"], ["y"], name="wide_conv")]
    return nodes, inits, (1, 3, side, side), (1, CHANNELS, side - K + 1, side - K + 1)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("too_large")
    rng = np.random.default_rng(0)
    model = quantize(float_model(wide_kernel, rng), folder / "wide.onnx", True, rng)
    out = folder / "wide.mlir"
    assert vta_import_onnx.main([str(model), "-o", str(out)]) == 0
    assert 'loc("wide_conv")' in out.read_text()
    return out


def expected_overflows(config: str) -> list[str]:
    """What the smallest tile (one output and one input channel block, one output row and
    column) needs of each SRAM too small for it, from the configuration's depths and widths."""
    cfg = VTAConfig.load(config)
    needs = []
    for sram, name, what in (("inp", "input", "input window"), ("wgt", "weight", "kernel")):
        depth = cfg.sram_depth(sram)
        size = int(getattr(cfg, f"{sram}_elem_bytes"))
        if K * K > depth:
            needs.append(f"{K * K} elements ({K * K * size} bytes) of the {name} SRAM "
                         f"(#vta.sram<{sram}>) for its {K}x{K} {what}, which has {depth} "
                         f"({depth * size} bytes) available")
    assert needs, f"a {K}x{K} kernel fits {config}: the test needs a larger one"
    return needs


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    text = out + err
    assert "Traceback" not in text and "internal error" not in text, text
    errors = [line for line in text.splitlines() if "error:" in line]
    assert len(errors) == 1, text
    return errors[0]


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_run_and_opt_name_the_layer(imported: Path, tmp_path: Path, config: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    needs = "; and ".join(expected_overflows(config))
    message = ("vta-tile: layer 'wide_conv': cannot tile this convolution: even its smallest "
               "tile (1 output and 1 input channel block(s), 1 output row of 1 column) needs "
               f"{needs}")
    stats = tmp_path / "stats.json"
    output = tmp_path / "y.npy"
    assert vta_run.main([str(imported), "--config", config, "--random-inputs",
                         "--stats", str(stats), "--output", str(output)]) == 1
    line = _one_error(capsys)
    assert line.startswith(f"{imported}:") and line.endswith(message), line
    assert not stats.exists() and not output.exists()
    lowered = tmp_path / "out.mlir"
    assert vta_opt.main([str(imported), "--config", config, "-p", "vta-to-isa",
                         "-o", str(lowered)]) == 1
    assert _one_error(capsys).endswith(message)
    assert not lowered.exists()


def test_command_line_process(imported: Path, tmp_path: Path) -> None:
    """The installed entry point, as a process: the error line on stderr, nothing on stdout."""
    output = tmp_path / "y.npy"
    proc = subprocess.run([sys.executable, "-m", "vta_mlir.tools.vta_run", str(imported),
                           "--random-inputs", "--output", str(output)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stdout == "", proc.stdout
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and "vta-tile: layer 'wide_conv': cannot tile this convolution: " \
        "even its smallest tile" in errors[0], proc.stderr
    assert not output.exists()
