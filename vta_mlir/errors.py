"""Exceptions raised by vta-mlir.

Every error a user can provoke (bad configuration, bad instruction stream, corrupt binary,
simulator fault) derives from :class:`VTAError`.  Command-line tools catch it and print its
message on one line; they never show a traceback for it.
"""

from __future__ import annotations


class VTAError(Exception):
    """Base class of every error vta-mlir reports to its user."""


class ConfigError(VTAError):
    """A hardware configuration file or dictionary is invalid."""


class EncodingError(VTAError):
    """An instruction or micro-op field does not fit its encoding, or a word does not decode."""


class SimulatorError(VTAError):
    """The simulator met an instruction it cannot execute (fatal check in the reference)."""


class DeadlockError(SimulatorError):
    """A dependency pop can never be satisfied."""


class BinaryFormatError(VTAError):
    """A ``.vtab`` file is truncated, oversized or inconsistent."""


class RuntimeBuildError(VTAError):
    """The command builder was driven in a way the VTA runtime forbids."""
