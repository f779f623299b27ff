"""The ``#vta.config`` attribute: the hardware configuration of a ``vta`` / ``vtaisa`` module.

:class:`VTAConfigAttr` holds the 11 keys of ``vta_config.json`` (``docs/isa.md`` §1.1) and the
cycle-model parameters; it is stored on a module under :data:`CONFIG_ATTR_NAME`.  Verifiers read
it with :func:`get_config`, which falls back to the default configuration.  The attribute belongs
to the ``vta`` dialect (registered by :data:`vta_mlir.dialects.vta.VTA`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import cast

from xdsl.dialects.builtin import FloatData, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from vta_mlir.config import CONFIG_KEYS, TimingParams, VTAConfig
from vta_mlir.errors import ConfigError, VTAError
from vta_mlir.ir.locations import mlir_string

__all__ = ["CONFIG_ATTR_NAME", "VTAConfigAttr", "get_config", "set_module_config"]

#: Name of the module attribute holding the hardware configuration.
CONFIG_ATTR_NAME = "vta.config"


# ---------------------------------------------------------------------------------------------
# The attribute

_INT_KEYS = tuple(k.lower() for k in CONFIG_KEYS[2:])
_TIMING_INT_KEYS = ("dma_latency", "dram_bytes_per_cycle", "pipeline_depth")
_ALL_KEYS = ("target", "hw_ver", *_INT_KEYS, *_TIMING_INT_KEYS, "clock_mhz")


@lru_cache(maxsize=64)
def _config_from_values(values: tuple[object, ...]) -> VTAConfig:
    data = dict(zip(_ALL_KEYS, values, strict=True))
    timing = TimingParams(
        dma_latency=cast(int, data["dma_latency"]),
        dram_bytes_per_cycle=cast(int, data["dram_bytes_per_cycle"]),
        pipeline_depth=cast(int, data["pipeline_depth"]),
        clock_mhz=cast(float, data["clock_mhz"]),
    )
    # Route the timing values through TimingParams.from_dict for its range checks.
    TimingParams.from_dict(timing.to_dict())
    return VTAConfig(
        target=cast(str, data["target"]),
        hw_ver=cast(str, data["hw_ver"]),
        **{k: cast(int, data[k]) for k in _INT_KEYS},
        timing=timing,
    )


@lru_cache(maxsize=1)
def _default_config() -> VTAConfig:
    return VTAConfig.shipped("default")


@irdl_attr_definition
class VTAConfigAttr(ParametrizedAttribute):
    """The hardware configuration (the 11 keys of ``vta_config.json``, docs/isa.md §1.1, and the
    cycle-model parameters) as an attribute::

        #vta.config<target = "sim", hw_ver = "0.0.2", log_inp_width = 3, log_wgt_width = 3,
                    log_acc_width = 5, log_batch = 0, log_block = 4, log_uop_buff_size = 15,
                    log_inp_buff_size = 15, log_wgt_buff_size = 18, log_acc_buff_size = 17>

    Timing parameters (``dma_latency``, ``dram_bytes_per_cycle``, ``pipeline_depth``,
    ``clock_mhz``) follow as further ``key = value`` pairs; those left out take their default and
    those equal to their default are not printed.
    """

    name = "vta.config"

    target: StringAttr
    hw_ver: StringAttr
    log_inp_width: IntAttr
    log_wgt_width: IntAttr
    log_acc_width: IntAttr
    log_batch: IntAttr
    log_block: IntAttr
    log_uop_buff_size: IntAttr
    log_inp_buff_size: IntAttr
    log_wgt_buff_size: IntAttr
    log_acc_buff_size: IntAttr
    dma_latency: IntAttr
    dram_bytes_per_cycle: IntAttr
    pipeline_depth: IntAttr
    clock_mhz: FloatData

    @classmethod
    def from_config(cls, cfg: VTAConfig) -> VTAConfigAttr:
        """The attribute describing ``cfg`` (its ``.config`` is equal to ``cfg``)."""
        t = cfg.timing
        return cls(
            StringAttr(cfg.target),
            StringAttr(cfg.hw_ver),
            *(IntAttr(int(getattr(cfg, k))) for k in _INT_KEYS),
            IntAttr(t.dma_latency),
            IntAttr(t.dram_bytes_per_cycle),
            IntAttr(t.pipeline_depth),
            FloatData(float(t.clock_mhz)),
        )

    def _values(self) -> tuple[object, ...]:
        return tuple(
            p.data for p in self.parameters  # type: ignore[attr-defined]
        )

    @property
    def config(self) -> VTAConfig:
        """The :class:`~vta_mlir.config.VTAConfig` this attribute describes."""
        return _config_from_values(self._values())

    def verify(self) -> None:
        try:
            _config_from_values(self._values())
        except ConfigError as e:
            raise VerifyException(f"invalid #vta.config: {e}") from None
        except (TypeError, ValueError) as e:
            raise VerifyException(f"invalid #vta.config: {e}") from None

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        defaults = TimingParams()
        seen: dict[str, object] = {}

        def parse_entry() -> None:
            key = parser.parse_identifier(" (a #vta.config key)")
            if key not in _ALL_KEYS:
                parser.raise_error(
                    f"unknown #vta.config key '{key}' (expected one of {', '.join(_ALL_KEYS)})"
                )
            if key in seen:
                parser.raise_error(f"#vta.config key '{key}' is given twice")
            parser.parse_punctuation("=")
            if key in ("target", "hw_ver"):
                seen[key] = parser.parse_str_literal(f" for #vta.config key '{key}'")
            elif key == "clock_mhz":
                seen[key] = float(parser.parse_number(context_msg=" for 'clock_mhz'"))
            else:
                seen[key] = parser.parse_integer(
                    allow_boolean=False, context_msg=f" for #vta.config key '{key}'"
                )

        parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_entry)
        missing = [k for k in ("target", "hw_ver", *_INT_KEYS) if k not in seen]
        if missing:
            parser.raise_error(f"#vta.config is missing key(s) {', '.join(missing)}")
        for k in _TIMING_INT_KEYS:
            seen.setdefault(k, getattr(defaults, k))
        seen.setdefault("clock_mhz", defaults.clock_mhz)
        out: list[Attribute] = [StringAttr(cast(str, seen["target"])),
                                StringAttr(cast(str, seen["hw_ver"]))]
        out += [IntAttr(cast(int, seen[k])) for k in (*_INT_KEYS, *_TIMING_INT_KEYS)]
        out.append(FloatData(cast(float, seen["clock_mhz"])))
        return out

    def print_parameters(self, printer: Printer) -> None:
        defaults = TimingParams()
        items: list[str] = [
            f"target = {mlir_string(self.target.data)}",
            f"hw_ver = {mlir_string(self.hw_ver.data)}",
        ]
        items += [f"{k} = {getattr(self, k).data}" for k in _INT_KEYS]
        for k in _TIMING_INT_KEYS:
            value = getattr(self, k).data
            if value != getattr(defaults, k):
                items.append(f"{k} = {value}")
        if self.clock_mhz.data != defaults.clock_mhz:
            items.append(f"clock_mhz = {_float_text(self.clock_mhz.data)}")
        printer.print_string("<" + ", ".join(items) + ">")


def _float_text(value: float) -> str:
    text = repr(float(value))
    if "e" in text and "." not in text:
        text = text.replace("e", ".0e")
    return text


# ---------------------------------------------------------------------------------------------
# Configuration helpers


def get_config(op: Operation) -> VTAConfig:
    """The configuration of the nearest ancestor of ``op`` (``op`` included) carrying the
    ``vta.config`` attribute, else the default configuration."""
    cur: Operation | None = op
    while cur is not None:
        attr = cur.attributes.get(CONFIG_ATTR_NAME)
        if isinstance(attr, VTAConfigAttr):
            return _config_of(attr)
        cur = cur.parent_op()
    return _default_config()


#: The last attribute :func:`get_config` read and its configuration: every op of a module
#: finds the same attribute instance, and its verifier asks for it (the configuration is
#: otherwise rebuilt from the attribute's parameters each time).
_last_config: list[tuple[VTAConfigAttr, VTAConfig]] = []


def _config_of(attr: VTAConfigAttr) -> VTAConfig:
    if _last_config and _last_config[0][0] is attr:
        return _last_config[0][1]
    cfg = attr.config
    _last_config[:] = [(attr, cfg)]
    return cfg


def set_module_config(module: ModuleOp, cfg: VTAConfig) -> None:
    """Attach ``cfg`` to ``module`` as ``vta.config``.

    Raises :class:`~vta_mlir.errors.VTAError` if the module already carries a different
    configuration.
    """
    existing = module.attributes.get(CONFIG_ATTR_NAME)
    if existing is not None:
        if not isinstance(existing, VTAConfigAttr):
            raise VTAError(
                f"module attribute '{CONFIG_ATTR_NAME}' is not a #vta.config: {existing}"
            )
        have = existing.config
        if have != cfg:
            raise VTAError(
                f"the module was built for configuration {have.model} ({_describe(have)}) "
                f"but configuration {cfg.model} ({_describe(cfg)}) was given"
            )
        return
    module.attributes[CONFIG_ATTR_NAME] = VTAConfigAttr.from_config(cfg)


def _describe(cfg: VTAConfig) -> str:
    text = f"HW_VER {cfg.hw_ver}"
    if cfg.timing != TimingParams():
        text += ", timing " + ", ".join(f"{k}={v}" for k, v in cfg.timing.to_dict().items())
    return text
