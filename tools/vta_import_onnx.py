"""``vta-import-onnx``: a quantized ONNX model to the input IR of ``vta-opt`` / ``vta-run``.

Usage::

    vta-import-onnx model.onnx -o model.mlir           # then: vta-run model.mlir ...
    vta-import-onnx model.onnx --requant=pow2          # power-of-two requantization, to stdout

The model is one quantized by ``onnxruntime.quantization.quantize_static`` in the QDQ or the
QOperator format, with int8 or uint8 activations (``docs/onnx.md``). The output is checked by
parsing it before anything is written, so a failed import leaves no file (a module that does
not parse is an import error); every error is one line on stderr with exit status 1. Needs the
``onnx`` package (``pip install 'vta-mlir[onnx]'``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from vta_mlir import __version__
from vta_mlir.errors import VTAError

from ._cli import (
    CLIArgumentParser,
    check_outputs_spare_inputs,
    describe_exception,
    run_guarded,
    write_output,
)

__all__ = ["main"]

PROG = "vta-import-onnx"


def _arg_parser() -> argparse.ArgumentParser:
    p = CLIArgumentParser(prog=PROG, description="Import a quantized ONNX model (QDQ or "
                                                 "QOperator, int8 or uint8) as MLIR.")
    p.add_argument("model", help="the .onnx file")
    p.add_argument("-o", "--output", default=None, help="output file (default: stdout)")
    p.add_argument("--requant", default="fixed", choices=("fixed", "pow2"),
                   help="requantization: 16-bit fixed point (default) or power-of-two shifts")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return p


def _run(argv: Sequence[str] | None) -> int:
    args = _arg_parser().parse_args(argv)
    check_outputs_spare_inputs([args.model], [args.output])
    try:
        from vta_mlir.frontend import onnx as frontend
    except ImportError as exc:
        raise VTAError(f"the ONNX frontend needs the onnx package ({exc}); install it with "
                       "pip install 'vta-mlir[onnx]'") from None
    from vta_mlir.api import parse

    text = frontend.import_text(args.model, requant=args.requant)
    # Fail before writing anything. The text exists in no file yet, so a failure is reported
    # as an import error, without a position in it.
    try:
        parse(text, filename="<imported module>")
    except Exception as exc:
        report = describe_exception(exc)
        raise frontend.OnnxImportError(f"'{args.model}': the imported module does not "
                                       f"verify ({report.message})") from None
    write_output(args.output, text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``vta-import-onnx`` with ``argv`` (``sys.argv[1:]`` when ``None``); returns the exit
    status."""
    return run_guarded(PROG, _run, argv)


if __name__ == "__main__":
    sys.exit(main())
