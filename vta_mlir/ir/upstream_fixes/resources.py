"""``dense_resource<key>`` blobs (the ``{-# dialect_resources: {builtin: {key: "0x..."}} #-}``
section after the module) kept as bytes, in a store of each context.

xDSL 0.74 keeps the blobs of the builtin dialect as hex strings in one
``OpAsmDialectInterface`` of the process-wide ``Builtin`` dialect object: a second parse of the
same file renames ``w`` to ``w_0`` and prints no resource section, a key referenced twice after
such a rename gets two keys, and a malformed blob is accepted.  Here each context gets its own
``builtin`` dialect with a :class:`ResourceBlobs` store (MLIR's blob manager): blobs are bytes,
checked when parsed — MLIR's encoding is a little-endian uint32 alignment (a power of two)
followed by the raw little-endian elements — and printed back in MLIR's syntax.  Keys are
renamed (``w_0``) only when one context holds two different resources of one name, as in MLIR,
and each parse maps a key of its text to one stored key.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Dialect, Operation
from xdsl.parser import Parser
from xdsl.parser.attribute_parser import AttrParser

__all__ = [
    "ALIGNMENT_BYTES",
    "ResourceBlob",
    "ResourceBlobs",
    "builtin_dialect",
    "fix_resource_parsing",
    "module_resources",
    "record_module_resources",
]

#: Bytes of the alignment header that starts every blob.
ALIGNMENT_BYTES = 4


@dataclass(frozen=True)
class ResourceBlob:
    """One blob: its alignment and its raw bytes (the elements, little-endian)."""

    alignment: int
    data: bytes

    @staticmethod
    def from_hex(text: str) -> ResourceBlob:
        """The blob MLIR writes as ``"0x<alignment: 4 bytes LE><data>"``; raises ValueError
        when ``text`` is not one."""
        if not text.startswith("0x"):
            raise ValueError("expected a hex string starting with '0x'")
        digits = text[2:]
        if len(digits) % 2:
            raise ValueError("the hex string has an odd number of digits")
        try:
            raw = bytes.fromhex(digits)
        except ValueError:
            raise ValueError("the hex string has a character that is not a hex digit") from None
        if len(raw) < ALIGNMENT_BYTES:
            raise ValueError(
                f"expected at least {ALIGNMENT_BYTES} bytes (the alignment), got {len(raw)}"
            )
        alignment = int.from_bytes(raw[:ALIGNMENT_BYTES], "little")
        if alignment == 0 or alignment & (alignment - 1):
            raise ValueError(
                f"expected the first {ALIGNMENT_BYTES} bytes to encode an alignment that is a "
                f"power of 2, got {alignment}"
            )
        return ResourceBlob(alignment, raw[ALIGNMENT_BYTES:])

    def to_hex(self) -> str:
        """MLIR's text of the blob."""
        header = self.alignment.to_bytes(ALIGNMENT_BYTES, "little")
        return f"0x{header.hex().upper()}{self.data.hex().upper()}"


class ResourceBlobs(OpAsmDialectInterface):
    """The ``builtin`` resources of one context: key -> :class:`ResourceBlob` (``None`` while
    a key is referenced but its blob not yet parsed, or when it has none)."""

    def __init__(self) -> None:
        super().__init__()
        self.blobs: dict[str, ResourceBlob | None] = {}

    def declare_resource(self, key: str) -> str:
        """Reserve ``key`` (``key_0``, ``key_1``, ... when the context holds it already)."""
        unique = key
        counter = 0
        while unique in self.blobs:
            unique = f"{key}_{counter}"
            counter += 1
        self.blobs[unique] = None
        return unique

    def parse_resource(self, key: str, val: str) -> None:
        if key not in self.blobs:
            raise KeyError(f"resource '{key}' was not declared")
        try:
            self.blobs[key] = ResourceBlob.from_hex(val)
        except ValueError as exc:
            raise ValueError(f"malformed blob of resource '{key}': {exc}") from None

    def add_blob(self, key: str, data: bytes, alignment: int = 8) -> str:
        """Store ``data`` under ``key`` (renamed if taken); returns the key used."""
        unique = self.declare_resource(key)
        self.blobs[unique] = ResourceBlob(alignment, bytes(data))
        return unique

    def blob(self, key: str) -> ResourceBlob | None:
        """The blob of ``key``, None when there is none."""
        return self.blobs.get(key)

    def lookup(self, key: str) -> str | None:
        blob = self.blobs.get(key)
        return None if blob is None else blob.to_hex()

    def build_resources(self, keys: Iterable[str]) -> dict[str, str]:
        # Hex text for the printer, built one blob at a time.
        return {key: blob.to_hex() for key in keys if (blob := self.blobs.get(key)) is not None}


def builtin_dialect() -> Dialect:
    """xDSL's ``builtin`` dialect with a :class:`ResourceBlobs` store of its own (one per
    context; the stock dialect object, and its store, is shared by the whole process)."""
    return Dialect("builtin", list(Builtin.operations), list(Builtin.attributes),
                   [ResourceBlobs()])


#: The resource store each parsed module was parsed with (see :func:`module_resources`).
_MODULE_RESOURCES: weakref.WeakKeyDictionary[Operation, ResourceBlobs] = (
    weakref.WeakKeyDictionary()
)


def record_module_resources(module: ModuleOp, blobs: ResourceBlobs) -> None:
    """Remember that ``module``'s ``dense_resource`` keys name blobs of ``blobs``."""
    _MODULE_RESOURCES[module] = blobs


def module_resources(op: Operation) -> ResourceBlobs | None:
    """The resource store of the module ``op`` belongs to (the outermost op above it), when
    that module was parsed by :func:`vta_mlir.ir.context.parse_module`."""
    top = op
    while (parent := top.parent_op()) is not None:
        top = parent
    return _MODULE_RESOURCES.get(top)


def _keep_resources_on_clone() -> None:
    """A copy of a module (``ModuleOp.clone``) reads the same ``dense_resource`` blobs as the
    module: its store is recorded for the copy, wherever the copy is made (a pass working on a
    copy, the API lowering a copy, ``vta-run --check`` keeping the original)."""
    stock = ModuleOp.clone

    def clone(self: ModuleOp, *args: object, **kwargs: object) -> ModuleOp:
        copy = stock(self, *args, **kwargs)  # type: ignore[arg-type]
        if (blobs := _MODULE_RESOURCES.get(self)) is not None:
            _MODULE_RESOURCES[copy] = blobs
        return copy

    ModuleOp.clone = clone  # type: ignore[method-assign]


def fix_resource_parsing() -> None:
    """Map each key of one parse to one stored key (the stock parser declared the key again at
    every reference once the store renamed it, so its references and its blob got different
    keys), report a malformed blob at its string, not after it, and let a copy of a parsed
    module read the store it was parsed with."""

    def parse_handle(
        self: AttrParser, dialect_name: str, interface: OpAsmDialectInterface
    ) -> str:
        key = self.parse_identifier(" for resource handle")
        keys: dict[tuple[str, str], str] = self.__dict__.setdefault("resource_keys", {})
        if (dialect_name, key) not in keys:
            keys[dialect_name, key] = interface.declare_resource(key)
            self.dialect_resources.add((dialect_name, keys[dialect_name, key]))
        return keys[dialect_name, key]

    def parse_resource(
        self: Parser, dialect_name: str, interface: OpAsmDialectInterface
    ) -> None:
        key = parse_handle(self, dialect_name, interface)
        self.parse_punctuation(":")
        start = self.pos
        value = self.parse_str_literal()
        try:
            interface.parse_resource(key, value)
        except (KeyError, ValueError) as exc:
            self.raise_error(str(exc).strip("'\""), start, self.pos)

    _keep_resources_on_clone()
    AttrParser._parse_dialect_resource_handle = parse_handle  # type: ignore[method-assign]  # pyright: ignore[reportPrivateUsage]
    Parser._parse_resource = parse_resource  # type: ignore[method-assign]  # pyright: ignore[reportPrivateUsage]

