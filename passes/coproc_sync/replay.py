"""Incremental execution of the protocol of a body that runs once (a function's body), for
:mod:`.protocol`'s synthesis.

The synthesis executes a node's protocol again after every token it adds or moves. A body
that runs once is a sequence of items, and the abstract execution (``protocol.Simulation``)
is deterministic: its state before an item — the vector clocks and the queued tokens — depends
only on the token operations of the slots before it. :class:`Replay` keeps those states from
the last execution and resumes from the first item whose slots changed instead of from the
start. Checking a moved token (:meth:`Replay.converges`) also stops as soon as the state
before an item past the change equals the last accepted execution's: everything after it
executes alike, and that execution ordered every requirement. A network of many layers is
then executed a bounded stretch per token instead of whole each time.

The results are those of executing from the start: the commands each module completed at an
item's end (the ``ends`` the requirements read) do not depend on the tokens, so the entries
of an earlier execution stay exact.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, Protocol

from .model import QUEUES, Item, Node, Queue

__all__ = ["Replay", "Simulation", "State"]


class Simulation(Protocol):
    """The abstract execution :class:`Replay` drives (``protocol.Simulation``)."""

    vc: list[list[int]]
    tokens: dict[Queue, deque[tuple[int, ...]]]
    open: list[Any]

    def reset(self) -> None: ...

    def token_ops(self, ops: Sequence[tuple[str, Queue, int]]) -> None: ...

    def finish(self, primes: list[tuple[Queue, int]]) -> None: ...

    def run_item(self, node: Node, item: Item, p: tuple[int, ...], k: int) -> None: ...

#: The vector clocks and the queued tokens of an execution before an item.
State = tuple[tuple[tuple[int, ...], ...], tuple[tuple[tuple[int, ...], ...], ...]]


class Replay:
    """Executions of a one-iteration ``node`` by ``sim``, resumed at the first changed item."""

    def __init__(self, node: Node, sim: Simulation, violation: type[Exception]) -> None:
        self.node = node
        self.sim = sim
        #: The exception an execution raises at a requirement it does not order.
        self.violation = violation
        #: item → the state before it in the last accepted execution (as far as it got).
        self.states: dict[int, State] = {}
        self.events: dict[int, list[tuple[str, Queue, int]]] = {}
        self.primes: list[tuple[Queue, int]] | None = None

    def _state(self) -> State:
        sim = self.sim
        return (tuple(tuple(v) for v in sim.vc), tuple(tuple(sim.tokens[q]) for q in QUEUES))

    def _restore(self, state: State) -> None:
        sim = self.sim
        sim.vc = [list(v) for v in state[0]]
        sim.tokens = {q: deque(t) for q, t in zip(QUEUES, state[1], strict=True)}
        sim.open = []

    def _start(self, primes: list[tuple[Queue, int]]) -> int:
        """The first item whose slots changed since the last execution (0: from scratch)."""
        events = self.node.events
        if primes != self.primes or not self.states:
            return 0
        changed = [s for s in set(events) | set(self.events)
                   if events.get(s) != self.events.get(s)]
        if not changed:
            return max(self.states)
        return min(min(changed) // 2, max(self.states))

    def execute(self, primes: list[tuple[Queue, int]]) -> None:
        """Execute the node (primes, items, drains) from its first changed item, recording
        the states; a violation and ``ProtocolError`` propagate."""
        start = self._start(primes)
        self.events = dict(self.node.events)
        self.primes = primes
        if start == 0:
            self.states = {}
            self.sim.reset()
            self.sim.token_ops([("push", q, n) for q, n in primes])
        else:
            self._restore(self.states[start])
            self.states = {i: s for i, s in self.states.items() if i <= start}
        self._items(start, None, -1)
        self.sim.finish(primes)

    def converges(self, primes: list[tuple[Queue, int]], changed_before: int) -> bool:
        """Whether the node, changed at items before ``changed_before`` only, still orders
        every requirement: executed from the first changed item until its state equals the
        last accepted execution's; the new states are kept when it does."""
        if primes != self.primes or not self.states:
            raise ValueError("a converging execution needs an accepted one with its primes")
        start = self._start(primes)
        self._restore(self.states[start])
        new: dict[int, State] = {}
        try:
            done = self._items(start, new, changed_before)
            if not done:
                self.sim.finish(primes)
        except self.violation:
            return False
        self.states.update(new)
        self.events = dict(self.node.events)
        return True

    def _items(self, start: int, new: dict[int, State] | None, after: int) -> bool:
        """Execute items ``start``…; with ``new``, record there and stop (True) at the first
        state past item ``after`` equal to the accepted one."""
        record = self.states if new is None else new
        items = self.node.items
        for idx in range(start, len(items)):
            state = self._state()
            if new is not None and idx > after and self.states.get(idx) == state:
                return True
            record[idx] = state
            self.sim.run_item(self.node, items[idx], (0,), 0)
        state = self._state()
        if new is not None and self.states.get(len(items)) == state:
            return True
        record[len(items)] = state
        return False
