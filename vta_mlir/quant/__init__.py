"""Quantized integer programs: fixed-point requantization with the ALU's immediates
(:mod:`~vta_mlir.quant.requant`), the layer model of a quantized network
(:mod:`~vta_mlir.quant.program`) and its MLIR text (:mod:`~vta_mlir.quant.emit`); the semantics
are ``docs/onnx.md`` §3–§4. The ONNX frontend and ``vta-integerize`` build on it; it needs no
``onnx`` package.
"""
