"""The VTA runtime: the command builder (the JIT runtime's rules, vta-isa.md §4) and the
simulator-backed :class:`Device`."""
