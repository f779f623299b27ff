"""Where ``vta-coproc-sync`` pushes the primes of nested loops (after :mod:`.synthesis` has
chosen the tokens): as early in the body around them as FIFO order and every requirement
allow, and, where that can save cycles, one iteration of that body ahead."""

from __future__ import annotations

from collections.abc import Callable

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import Module

from .cost import command_cycles
from .model import LOAD, Item, Node, Queue
from .protocol import (
    Simulation,
    Violation,
    first_violation,
    post_slot,
    pre_slot,
    primes_of,
    replayed_violation,
    slot_events,
)
from .replay import Replay

__all__ = ["hoist_primes"]


def hoist_primes(node: Node, cfg: VTAConfig, tail: frozenset[Module]) -> None:
    """Move the primes of each nested loop as early in ``node``'s body as FIFO order allows
    (past no other token of the queue, in ``node``'s slots or inside an earlier loop) and every
    requirement still holds, those of the loops inside ``node`` included.  A prime pushed after
    the pushing module's earlier commands would make the loop's first target wait for them
    for nothing: the store of an earlier tile before the first reset of the next loop, or the
    reset of a tile before the first input load of its step loop.

    Each queue's primes go to the earliest such slot where every requirement holds
    (:func:`_place_primes`); in a loop, one iteration ahead where that can pay
    (:func:`_prime_ahead`); of several, the first to its own earliest slot
    (:func:`_place_first_prime`), and the last drain to its own latest one
    (:func:`_defer_last_drain`).  ``tail``: the modules with no command after ``node`` in
    its device run.

    A prime moved above an earlier loop that uses its queue inside (with primes of a loop
    nested in it, or forward tokens) would take that loop's place in the FIFO: the loop's
    pops would each receive the token pushed before the one meant for them, and a
    requirement of the loop (the store of one tile before the reset of the next) would no
    longer hold."""
    replay = Replay(node, Simulation(None), Violation) if node.trip == 1 else None
    if replay is not None and replayed_violation(replay, node) is not None:
        replay = None
    for item in node.items:
        if item.node is None:
            continue
        for q, count in primes_of(item.node):
            target = pre_slot(item.index)
            slot = target
            for s in range(target - 1, -1, -1):
                if any(ev[1] == q for ev in node.events.get(s, ())):
                    break
                crossed = node.items[s // 2].node if s % 2 == 0 else None
                if crossed is not None and q in crossed.queues_used():
                    break
                slot = s
            if slot != target:
                _place_primes(node, replay, item, q, slot, target)
            if node.trip > 1 and q[1] == LOAD:
                _prime_ahead(node, item, q, cfg)
            if count > 1 and (item.index, q) not in node.prime_ahead:
                rest = node.prime_at.get((item.index, q), target)
                if slot < rest:
                    _place_first_prime(node, replay, item, q, slot, rest)
            if count > 1:
                _defer_last_drain(node, replay, item, q, tail)


def _crossing(node: Node, q: Queue, item: Item, slot: int) -> int | None:
    """Where primes of ``q`` pushed in ``slot`` (last in it) would cross something moving
    to an earlier one: the slot after a loop using ``q`` that lies there, ``slot`` itself when
    it pushes a token of ``q``, else ``None``."""
    index = slot // 2
    if slot % 2 == 0 and index < len(node.items):
        inner = node.items[index].node
        if inner is not None and inner is not item.node and q in inner.queues_used():
            return post_slot(index)
    if any(eq == q and kind == "push" for kind, eq, _ in node.events.get(slot, ())):
        return slot
    return None


def _ahead_pays(node: Node, item: Item, q: Queue, slot: int, cfg: VTAConfig) -> bool:
    """Whether pushing the primes of ``q`` one iteration ahead can save cycles: the commands
    of the loop ``item`` that start its first iteration on the popping module (its first input
    and weight loads) take longer than what the pushing module does between the primes' place
    ``slot`` and the loop (the reset of the next tile), so the loop's first computation waits
    for them today.  Otherwise the primes ahead would only add the NOPs that prime and drain
    the extra tokens."""
    assert item.node is not None
    first = 0
    for inner in item.node.items:
        if inner.node is not None or inner.module != q[1]:
            break
        first += command_cycles(inner.op, cfg)
    between = sum(command_cycles(other.op, cfg) for other in node.items[:item.index]
                  if pre_slot(other.index) >= slot and other.module == q[0])
    return first > between


def _prime_ahead(node: Node, item: Item, q: Queue, cfg: VTAConfig) -> None:
    """Push the primes of ``q`` for the nested loop ``item`` one iteration of ``node`` ahead,
    at the earliest slot after the loop's previous instance where every requirement holds.

    A loop nested in a loop (the contraction steps of each output tile) is primed before each
    instance; the primes wait for whatever the body does before the loop (the last tile's
    epilogue and store), so its first loads start only then and the compute module waits for
    them.  Pushed right after the previous instance instead, they overlap that epilogue.
    ``node`` then primes the first instance's tokens itself and drains those its last
    iteration pushes.  The primes cross the end of the body: no other token of ``q`` may be
    pushed between their new place and their old one (FIFO order would hand a pop the wrong
    token), and no loop using ``q`` may lie there."""
    key = (item.index, q)
    last = post_slot(len(node.items) - 1)
    if not _ahead_pays(node, item, q, node.prime_at.get(key, pre_slot(item.index)), cfg):
        return
    old_at = node.prime_at.pop(key, None)
    # The events without these primes (pushed in no slot), to see what they would cross.
    node.prime_ahead[key] = -1
    node.events = slot_events(node)
    old_slot = pre_slot(item.index) if old_at is None else old_at
    lo: int | None = post_slot(item.index)
    if any(_crossing(node, q, item, s) is not None for s in range(0, old_slot + 1)):
        lo = None
    else:
        for s in range(last, post_slot(item.index), -1):
            found = _crossing(node, q, item, s)
            if found is not None:
                lo = found
                break

    def move(slot: int | None) -> None:
        if slot is None:
            node.prime_ahead.pop(key, None)
            if old_at is not None:
                node.prime_at[key] = old_at
        else:
            node.prime_ahead[key] = slot

    if lo is None or lo > last:
        move(None)
        node.events = slot_events(node)
        return
    move(last)
    if not _holds(node, None, item.index):
        move(None)
        node.events = slot_events(node)
        return
    while lo < last:
        mid = (lo + last) // 2
        move(mid)
        if _holds(node, None, item.index):
            last = mid
        else:
            lo = mid + 1
    move(last)
    node.events = slot_events(node)


def _holds(node: Node, replay: Replay | None, index: int) -> bool:
    """Whether every requirement still holds with ``node``'s events (those of the loops inside
    it included), replayed from item ``index`` when ``replay`` is given."""
    node.events = slot_events(node)
    if replay is not None:
        return replay.converges(primes_of(node), index)
    return first_violation(node, deep=True) is None


def _earliest(node: Node, replay: Replay | None, index: int, lo: int, hi: int,
              move: Callable[[int], None]) -> int:
    """The earliest slot in ``[lo, hi]`` where every requirement holds once ``move`` puts
    primes there (``hi``, the primes' own place, always does): a requirement a prime moved up
    breaks is that of an item between the slot and the loop, which holds again from the slot
    after that item on."""
    while lo < hi:
        mid = (lo + hi) // 2
        move(mid)
        if _holds(node, replay, index):
            hi = mid
        else:
            lo = mid + 1
    move(hi)
    return hi


def _mover(table: dict[tuple[int, Queue], int], key: tuple[int, Queue],
           home: int) -> Callable[[int], None]:
    """What puts ``key``'s tokens at a slot: recorded in ``table``, or not at all at their own
    slot ``home``."""

    def move(slot: int) -> None:
        if slot == home:
            table.pop(key, None)
        else:
            table[key] = slot

    return move


def _place_primes(node: Node, replay: Replay | None, item: Item, q: Queue, earliest: int,
                  target: int) -> None:
    """Push the primes of ``q`` for the loop ``item`` at the earliest slot from ``earliest`` on
    where every requirement holds: a two-deep token's first input loads then overlap what the
    body computes after the last read they wait for (a written-out tile's epilogue and store)."""
    move = _mover(node.prime_at, (item.index, q), target)
    _earliest(node, replay, item.index, earliest, target, move)
    node.events = slot_events(node)


def _place_first_prime(node: Node, replay: Replay | None, item: Item, q: Queue,
                       earliest: int, rest: int) -> None:
    """Push the first of the loop's primes of ``q`` on its own at the earliest slot from
    ``earliest`` on where every requirement holds.  It serves the loop's first iteration,
    whose target may wait for less than the second's: the reset of a loop's first tile, in
    the other accumulator copy, need not wait for the store of the tile written out before the
    loop, which the second tile's reset overwrites."""
    move = _mover(node.first_prime_at, (item.index, q), rest)
    # Most first primes cannot move at all: one execution tells.
    move(rest - 1)
    if not _holds(node, replay, item.index):
        move(rest)
        node.events = slot_events(node)
        return
    _earliest(node, replay, item.index, earliest, rest - 1, move)
    node.events = slot_events(node)


def _defer_last_drain(node: Node, replay: Replay | None, item: Item, q: Queue,
                      tail: frozenset[Module]) -> None:
    """Pop the last of the loop's drains of ``q`` at the latest slot where every requirement
    still holds, up to the next pop of ``q`` or loop using it (FIFO order would hand them its
    token).  Its token is the loop's last iteration's, which what follows the loop may not
    need: the last row tile written out after a row loop resets the accumulator copy the
    loop's second-to-last tile stored, not the last one's."""
    start = post_slot(item.index)
    limit = post_slot(len(node.items) - 1)
    for s in range(start + 1, limit + 1):
        index = s // 2
        inner = node.items[index].node if s % 2 == 0 else None
        if (inner is not None and q in inner.queues_used()) or any(
                kind == "pop" and eq == q for kind, eq, _ in node.events.get(s, ())):
            limit = s - 1
            break
    # A dependence on the loop's last iteration bounds it (the drain orders it no later).
    for req in node.reqs:
        if (req.src == item.index and req.dist == 0 and req.x == q[0] and not req.spared
                and pre_slot(req.dst) < limit):
            limit = max(start, pre_slot(req.dst))
    if limit == start:
        return
    after = min(limit // 2 + 1, len(node.items))
    move = _mover(node.drain_at, (item.index, q), start)

    # Most last drains cannot move at all: one execution tells.
    move(start + 1)
    if not _holds(node, replay, after):
        move(start)
        node.events = slot_events(node)
        return
    lo, hi = start + 1, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        move(mid)
        if _holds(node, replay, after):
            lo = mid
        else:
            hi = mid - 1
    if q[1] in tail and not any(q[1] in other.modules for other in node.items
                                if pre_slot(other.index) > lo):
        # Past the popping module's last command of the device run (``tail``: the modules
        # with no command after this body in the run), the pop would need a NOP of its own
        # at the end, which keeps the run's closing push off the last store: it rides on that
        # last command instead.
        pops_on = [other.index for other in node.items[item.index + 1:]
                   if other.module == q[1] and pre_slot(other.index) <= lo]
        lo = pre_slot(pops_on[-1]) if pops_on else start
    move(lo)
    node.events = slot_events(node)
