"""The ``vta`` dialect: a host program that drives the VTA accelerator.

This is the mid level of vta-mlir (``docs/architecture.md`` §1).  Loops and index arithmetic run
on the CPU; every ``vta`` op is one command the host pushes to the accelerator, exactly as TVM's
VTA runtime calls do (``docs/isa.md`` §4.4–§4.7):

==========================  ===================================================================
op                          runtime call / meaning
==========================  ===================================================================
``vta.dma_copy``            ``VTALoadBuffer2D`` / ``VTAStoreBuffer2D``: one 2-D strided copy
                            between a DRAM buffer and an SRAM buffer (§2.3, §3.3–§3.5, §4.7)
``vta.gemm``                ``VTAUopPush`` of one GEMM micro-op (§2.7, §3.6, §4.4)
``vta.gemm_reset``          ``VTAUopPush`` of one GEMM micro-op of a reset kernel: zeroes an
                            accumulator element (§2.7, §3.6, §4.4)
``vta.alu``                 ``VTAUopPush`` of one ALU micro-op (§3.7, §4.4)
``vta.uop_loop``            ``VTAUopLoopBegin`` / ``VTAUopLoopEnd``: a micro-kernel loop (§4.4)
``vta.dep_push``            ``VTADepPush(from, to)`` (§3.2, §4.6)
``vta.dep_pop``             ``VTADepPop(from, to)`` (§3.2, §4.6)
``vta.stage``               the ops one module (load / compute / store) executes (§3.2)
==========================  ===================================================================

SRAM buffers are memrefs in the ``#vta.sram<inp|wgt|acc|uop>`` memory space whose trailing
dimensions are one tensor element (``docs/isa.md`` §1.6) and whose leading dimensions count
elements, e.g. ``memref<64x1x16xi8, #vta.sram<inp>>``.  DRAM buffers are ordinary memrefs.  A
position in a buffer is an element offset written ``%buf[%i]``, ``%buf[%i + 4]`` or ``%buf[4]``:
an optional ``index`` SSA value plus a constant.

The hardware configuration is the module attribute ``vta.config`` (:class:`VTAConfigAttr`);
verifiers read it with :func:`get_config` and check every size, factor and index against it.

This module holds the ops and the dialect :data:`VTA`.  The ``#vta.config`` attribute and its
helpers live in :mod:`vta_mlir.dialects.vta_config_attr`; the ``#vta.sram`` memory space, the
buffer and position helpers and the micro-op list-loop analysis in
:mod:`vta_mlir.dialects.vta_positions`.  Both are re-exported here.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from .vta_attrs import (
    EXTENT_MAX,
    IMM_MAX,
    IMM_MIN,
    MAX_UOP_LOOP_DEPTH,
    WRITE_HAZARD_WINDOW,
    AluKind,
    AluKindAttr,
    Module,
    ModuleAttr,
)
from .vta_compute import AluOp, GemmOp, GemmResetOp, MicroOp
from .vta_config_attr import CONFIG_ATTR_NAME, VTAConfigAttr, get_config, set_module_config
from .vta_dma import DmaCopyOp
from .vta_host import HostOp, device_walk
from .vta_kernels import AluKernel, UopLoopOp, enclosing_list_loops, kernel_uops, linear_position
from .vta_positions import (
    LinearPosition,
    Sram,
    SramAttr,
    constant_index,
    list_loop_bounds,
    list_loop_trip,
    sram_element_shape,
    sram_element_type,
    sram_space,
)
from .vta_sync import DepPopOp, DepPushOp, StageOp, module_of

__all__ = [
    "CONFIG_ATTR_NAME",
    "EXTENT_MAX",
    "IMM_MAX",
    "IMM_MIN",
    "MAX_UOP_LOOP_DEPTH",
    "VTA",
    "WRITE_HAZARD_WINDOW",
    "AluKernel",
    "AluKind",
    "AluKindAttr",
    "AluOp",
    "DepPopOp",
    "DepPushOp",
    "DmaCopyOp",
    "GemmOp",
    "GemmResetOp",
    "HostOp",
    "LinearPosition",
    "MicroOp",
    "Module",
    "ModuleAttr",
    "Sram",
    "SramAttr",
    "StageOp",
    "UopLoopOp",
    "VTAConfigAttr",
    "constant_index",
    "device_walk",
    "enclosing_list_loops",
    "get_config",
    "kernel_uops",
    "linear_position",
    "list_loop_bounds",
    "list_loop_trip",
    "module_of",
    "set_module_config",
    "sram_element_shape",
    "sram_element_type",
    "sram_space",
]


VTA = Dialect(
    "vta",
    [DmaCopyOp, GemmOp, GemmResetOp, AluOp, UopLoopOp, DepPushOp, DepPopOp, StageOp, HostOp],
    [SramAttr, ModuleAttr, AluKindAttr, VTAConfigAttr],
)
