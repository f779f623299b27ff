"""The token protocol of ``vta-coproc-sync``: which dependency tokens order the dependences
found by :mod:`.deps`, and the check that they do.

Tokens are placed in the *slots* of a node (:class:`~.deps.Node`):
``pre(i) = 2·i`` (just before item ``i``) and ``post(i) = 2·i + 1`` (just after it).

1. **Protocol** (:func:`synthesize`, bottom-up, greedy).  A node's protocol is a set of forward
   tokens (push after the source, pop before the target, one per queue and target) and, per
   queue, one carried token: popped at the first point of the body that needs it, pushed at
   the last, primed before the loop and drained after it.  When the loop is double-buffered
   and nothing else in the body uses the queue, the carried token is two deep (primed and
   drained twice) if its dependences occur only two iterations apart, and independent chains
   of dependences (a body unrolled over two buffer copies) get a token each.  A load ↔ store
   dependence goes through compute (a pop and a push on the compute module before the target).
   Each token is added only when the requirement is not already implied by the others: that is
   decided by :class:`_Sim`, which executes the protocol abstractly (every loop for at most
   :data:`SIM_ITERATIONS` iterations, which covers its first, steady and last iterations) with a
   vector clock per module, FIFO token queues and the hardware's in-order modules.

2. **Check** (:func:`verify_protocol`): the whole function is executed that way once more;
   every requirement must hold, no pop may find its queue empty, and no token may be left.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vta_mlir.dialects.vta import Module

from .model import COMPUTE, MODULES, QUEUES, Item, Node, Queue, Req, Window
from .replay import Replay

__all__ = [
    "ProtocolError",
    "slot_events",
    "synthesize",
    "verify_protocol",
]

_MI = {m: i for i, m in enumerate(MODULES)}
_QI = {q: i for i, q in enumerate(QUEUES)}

#: Iterations the protocol check executes of each loop: the first (primed tokens), two more
#: (the steady state of two-deep tokens), and the last before the drains.
SIM_ITERATIONS = 5


# ---------------------------------------------------------------------------------------------
# The protocol of a node


def _pre(i: int) -> int:
    return 2 * i


def _post(i: int) -> int:
    return 2 * i + 1


def _chains(pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The finest split of carried (source slot, target slot) pairs into tokens whose pops and
    pushes both come in body order (then FIFO order gives each pop the push of its own token):
    a pair whose target or source does not come after the previous token's joins it."""
    groups: list[tuple[int, int]] = []
    for src, dst in sorted(pairs, key=lambda st: (st[1], st[0])):
        if groups and (dst <= groups[-1][0] or src <= groups[-1][1]):
            pop, push = groups.pop()
            groups.append((min(pop, dst), max(push, src)))
        else:
            groups.append((dst, src))
    return groups


def compute_windows(node: Node, double_buffer: bool) -> None:
    """The carried tokens of each queue from the node's carried requirements (module
    docstring).  Normally one per queue: its pop comes before every other pop of the queue in
    the body and its push after every other push, so FIFO order matches each pop with the push
    meant for it.  Under double buffering, when nothing else in the body uses the queue, one
    token per independent chain of requirements (a body unrolled over two buffer copies gets
    one per copy), two deep if every requirement is two iterations apart."""
    node.windows = {}
    for q, pairs in node.carried.items():
        if not pairs:
            continue
        fwd = [(s, t) for (fq, t), s in node.forward.items() if fq == q]
        nested = [item.index for item in node.items
                  if item.node is not None and q in item.node.queues_used()]
        overlap = (double_buffer and node.double_buffer and q not in node.shallow and not fwd
                   and not nested)
        if overlap:
            depth = 2 if all(d >= 2 for d in pairs.values()) else 1
            node.windows[q] = tuple(Window(pop, push, depth) for pop, push in _chains(list(pairs)))
            continue
        pop = min([t for _, t in pairs] + [t for _, t in fwd] + [_pre(i) for i in nested])
        push = max([s for s, _ in pairs] + [s for s, _ in fwd] + [_post(i) for i in nested])
        node.windows[q] = (Window(pop, push, 1),)


def _primes(node: Node) -> list[tuple[Queue, int]]:
    """Tokens primed before the loop (and drained after it), per queue: those of its carried
    tokens, and those its nested loops take from it (:func:`_prime_ahead`)."""
    count = {q: sum(w.depth for w in ws) for q, ws in node.windows.items()}
    for index, q in node.prime_ahead:
        inner = node.items[index].node
        assert inner is not None
        count[q] = count.get(q, 0) + dict(_primes(inner))[q]
    return list(count.items())


def slot_events(node: Node) -> dict[int, list[tuple[str, Queue, int]]]:
    """The token operations of each slot of ``node``, in program order: ``("push" | "pop",
    queue, count)``.  Within a pre-slot: carried pops (the oldest tokens), pops into compute,
    pushes from compute (relaying a load ↔ store dependence), carried pushes, pops into load
    or store, then the primes of the loop that follows.  Within a post-slot: the drains of the
    loop before, forward pushes, carried pushes."""
    ranked: dict[int, list[tuple[int, int, str, Queue, int]]] = defaultdict(list)
    for (q, t), s in node.forward.items():
        ranked[s].append((2 if s % 2 == 0 else 1, _QI[q], "push", q, 1))
        ranked[t].append((1 if q[1] == COMPUTE else 4, _QI[q], "pop", q, 1))
    for q, windows in node.windows.items():
        for w in windows:
            ranked[w.pop].append((0, _QI[q], "pop", q, 1))
            ranked[w.push].append((3 if w.push % 2 == 0 else 2, _QI[q], "push", q, 1))
    for item in node.items:
        if item.node is not None:
            for q, n in _primes(item.node):
                at = node.prime_ahead.get((item.index, q))
                if at is None:
                    at = node.prime_at.get((item.index, q), _pre(item.index))
                ranked[at].append((5, _QI[q], "push", q, n))
                ranked[_post(item.index)].append((0, _QI[q], "pop", q, n))
    return {slot: [(kind, q, n) for _, _, kind, q, n in sorted(evs, key=lambda e: e[:2])]
            for slot, evs in ranked.items()}


# ---------------------------------------------------------------------------------------------
# Abstract execution of a protocol


class ProtocolError(Exception):
    """A protocol that would deadlock or leave tokens (a bug of the synthesis)."""


class _Violation(Exception):
    def __init__(self, node: Node, req: Req) -> None:
        # The message prints the loop only if it is shown: violations are expected, one per
        # token the synthesis adds, and printing a layer's loop nest each time is slow.
        super().__init__()
        self.node = node
        self.req = req

    def __str__(self) -> str:
        return f"{self.req} of {self.node.op}"


@dataclass
class _Instance:
    node: Node
    #: module → checks still to make at its first command: (x, count needed, req)
    pending: dict[Module, list[tuple[Module, int, Req]]]
    #: module → its command count after the instance's last command of that module
    done: list[int | None]


class _Sim:
    """Executes a protocol with vector clocks: ``vc[m][x]`` is how many of module ``x``'s
    commands module ``m`` knows to have completed (its own, and those whose completion reached
    it through tokens)."""

    def __init__(self, check: set[int] | None) -> None:
        self.check = check
        self.ends: dict[tuple[int, int, tuple[int, ...]], list[int | None]] = {}
        self.reset()
        #: node → its requirements by target item (a node's requirements do not change while
        #: it executes; without the index every item would scan all of them).
        self.by_dst: dict[int, dict[int, list[Req]]] = {}

    def reset(self) -> None:
        """The state before anything executed (the ``ends`` stay: they do not depend on the
        tokens)."""
        self.vc = [[0, 0, 0] for _ in MODULES]
        self.tokens: dict[Queue, deque[tuple[int, ...]]] = {q: deque() for q in QUEUES}
        self.open: list[_Instance] = []

    def token_ops(self, ops: Sequence[tuple[str, Queue, int]]) -> None:
        for kind, q, n in ops:
            for _ in range(n):
                if kind == "push":
                    self.tokens[q].append(tuple(self.vc[_MI[q[0]]]))
                    continue
                if not self.tokens[q]:
                    raise ProtocolError(f"a pop on {q[0]} -> {q[1]} finds no token")
                snap = self.tokens[q].popleft()
                mine = self.vc[_MI[q[1]]]
                for i in range(3):
                    mine[i] = max(mine[i], snap[i])

    def command(self, module: Module) -> None:
        mi = _MI[module]
        mine = self.vc[mi]
        for inst in self.open:
            checks = inst.pending.pop(module, None)
            if checks:
                for x, need, req in checks:
                    if mine[_MI[x]] < need:
                        raise _Violation(inst.node, req)
        mine[mi] += 1
        for inst in self.open:
            inst.done[mi] = mine[mi]

    def run(self, node: Node, path: tuple[int, ...]) -> None:
        for k in range(min(node.trip, SIM_ITERATIONS)):
            p = (*path, k)
            for item in node.items:
                self.run_item(node, item, p, k)

    def run_item(self, node: Node, item: Item, p: tuple[int, ...], k: int) -> None:
        """Item ``item`` of iteration ``k`` of ``node`` (at ``p``), with its slots' tokens."""
        i = item.index
        events = node.events
        self.token_ops(events.get(_pre(i), ()))
        inst = _Instance(node, {}, [None, None, None])
        if self.check is None or id(node) in self.check:
            self._arm(node, inst, i, p, k)
        self.open.append(inst)
        if item.node is None:
            assert item.module is not None
            self.command(item.module)
        else:
            self.run(item.node, p)
        self.open.pop()
        self.ends[(id(node), i, p)] = inst.done
        self.token_ops(events.get(_post(i), ()))

    def _arm(self, node: Node, inst: _Instance, i: int, p: tuple[int, ...], k: int) -> None:
        by_dst = self.by_dst.get(id(node))
        if by_dst is None:
            by_dst = self.by_dst[id(node)] = {}
            for r in node.reqs:
                by_dst.setdefault(r.dst, []).append(r)
        for req in by_dst.get(i, ()):
            if req.dist == 0:
                src = (id(node), req.src, p)
            elif k - req.dist < 0:
                continue
            else:
                src = (id(node), req.src, (*p[:-1], k - req.dist))
            done = self.ends[src][_MI[req.x]]
            if done is not None:
                inst.pending.setdefault(req.y, []).append((req.x, done, req))

    def execute(self, node: Node) -> None:
        """Primes, the loop, drains; then no token may be left."""
        prime = [("push", q, n) for q, n in _primes(node)]
        self.token_ops(prime)
        self.run(node, ())
        self.finish(_primes(node))

    def finish(self, primes: list[tuple[Queue, int]]) -> None:
        """The drains of ``primes``; then no token may be left."""
        self.token_ops([("pop", q, n) for q, n in primes])
        left = [f"{q[0]} -> {q[1]}: {len(t)}" for q, t in self.tokens.items() if t]
        if left:
            raise ProtocolError("tokens left at the end: " + ", ".join(left))


def _refresh(node: Node, double_buffer: bool) -> None:
    compute_windows(node, double_buffer)
    node.events = slot_events(node)


def _first_violation(node: Node, deep: bool = False) -> Req | None:
    """The first requirement of ``node`` (``deep``: of ``node`` or of a loop inside it) its
    protocol does not order, executing ``node`` alone."""
    sim = _Sim(None if deep else {id(node)})
    try:
        sim.execute(node)
    except _Violation as v:
        return v.req
    return None


def _replayed_violation(replay: Replay, node: Node) -> Req | None:
    """:func:`_first_violation` of a one-iteration ``node`` by ``replay``."""
    try:
        replay.execute(_primes(node))
    except _Violation as v:
        return v.req
    return None


def _add_forward(node: Node, q: Queue, src: int, dst: int) -> bool:
    """Add (or move later) the forward token of ``q`` popped at ``dst``; True if it changed.

    The token never spans a loop that uses ``q`` itself: FIFO order would hand the loop's first
    pop this token instead of the one primed for it.  Its source moves after such a loop (which
    orders the same commands: they precede the loop)."""
    for item in node.items:
        if (item.node is not None and src < _pre(item.index) and _post(item.index) < dst
                and q in item.node.queues_used()):
            src = max(src, _post(item.index))
    key = (q, dst)
    if node.forward.get(key, -1) >= src:
        return False
    node.forward[key] = src
    return True


def _add_carried(node: Node, q: Queue, src: int, dst: int, dist: int) -> bool:
    pairs = node.carried.setdefault(q, {})
    if pairs.get((src, dst), 3) <= dist:
        return False
    pairs[(src, dst)] = dist
    return True


def latest_sources(node: Node) -> dict[tuple[int, Module, Module], int]:
    """The latest source item of the same-iteration requirements of ``node`` by target item
    and modules: one forward token from there orders them all."""
    latest: dict[tuple[int, Module, Module], int] = {}
    for r in node.reqs:
        if r.dist == 0:
            key = (r.dst, r.x, r.y)
            latest[key] = max(latest.get(key, r.src), r.src)
    return latest


def _fix(node: Node, req: Req, latest: dict[tuple[int, Module, Module], int]) -> bool:
    """Add or extend a token towards ordering ``req`` (``latest``: :func:`latest_sources` of
    ``node``); False if nothing could be added."""
    a, b, x, y = req.src, req.dst, req.x, req.y
    if (x, y) not in _QI:
        # Load <-> store: compute passes the completion on, right before the target.  That
        # leg first: the one into compute is often implied already (by a loop's drain).
        if _add_forward(node, (COMPUTE, y), _pre(b), _pre(b)):
            return True
        y = COMPUTE
    q = (x, y)
    if req.dist:
        return _add_carried(node, q, _post(a), _pre(b), req.dist)
    # The latest source this target needs: one token orders them all.
    return _add_forward(node, q, _post(latest[(b, req.x, req.y)]), _pre(b))


def _hoist_primes(node: Node) -> None:
    """Move the primes of each nested loop as early in ``node``'s body as FIFO order allows
    (past no other token of the queue, in ``node``'s slots or inside an earlier loop) and every
    requirement still holds, those of the loops inside ``node`` included.  A prime pushed after
    the pushing module's earlier commands would make the loop's first target wait for them
    for nothing: the store of an earlier tile before the first reset of the next loop, or the
    reset of a tile before the first input load of its step loop.

    Each queue's primes go to the earliest such slot where every requirement holds
    (:func:`_place_primes`).

    A prime moved above an earlier loop that uses its queue inside (with primes of a loop
    nested in it, or forward tokens) would take that loop's place in the FIFO: the loop's
    pops would each receive the token pushed before the one meant for them, and a
    requirement of the loop (the store of one tile before the reset of the next) would no
    longer hold."""
    replay = Replay(node, _Sim(None), _Violation) if node.trip == 1 else None
    if replay is not None and _replayed_violation(replay, node) is not None:
        replay = None
    for item in node.items:
        if item.node is None:
            continue
        for q, _ in _primes(item.node):
            target = _pre(item.index)
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
            if node.trip > 1:
                _prime_ahead(node, item, q)


def _crossing(node: Node, q: Queue, item: Item, slot: int) -> int | None:
    """Where primes of ``q`` pushed in ``slot`` (last in it) would cross something moving
    to an earlier one: the slot after a loop using ``q`` that lies there, ``slot`` itself when
    it pushes a token of ``q``, else ``None``."""
    index = slot // 2
    if slot % 2 == 0 and index < len(node.items):
        inner = node.items[index].node
        if inner is not None and inner is not item.node and q in inner.queues_used():
            return _post(index)
    if any(eq == q and kind == "push" for kind, eq, _ in node.events.get(slot, ())):
        return slot
    return None


def _prime_ahead(node: Node, item: Item, q: Queue) -> None:
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
    last = _post(len(node.items) - 1)
    old_at = node.prime_at.pop(key, None)
    # The events without these primes (pushed in no slot), to see what they would cross.
    node.prime_ahead[key] = -1
    node.events = slot_events(node)
    old_slot = _pre(item.index) if old_at is None else old_at
    lo: int | None = _post(item.index)
    if any(_crossing(node, q, item, s) is not None for s in range(0, old_slot + 1)):
        lo = None
    else:
        for s in range(last, _post(item.index), -1):
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
        return replay.converges(_primes(node), index)
    return _first_violation(node, deep=True) is None


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


def _place_primes(node: Node, replay: Replay | None, item: Item, q: Queue, earliest: int,
                  target: int) -> None:
    """Push the primes of ``q`` for the loop ``item`` at the earliest slot from ``earliest`` on
    where every requirement holds: a two-deep token's first input loads then overlap what the
    body computes after the last read they wait for (a written-out tile's epilogue and store)."""
    key = (item.index, q)

    def move(slot: int) -> None:
        if slot == target:
            node.prime_at.pop(key, None)
        else:
            node.prime_at[key] = slot

    _earliest(node, replay, item.index, earliest, target, move)
    node.events = slot_events(node)


#: Bound on the tokens one loop body may need (a safeguard: each step adds or moves one).
_MAX_STEPS = 10_000


def synthesize(node: Node, double_buffer: bool) -> None:
    """Choose the protocol of ``node`` and of every loop inside it (bottom-up)."""
    for item in node.items:
        if item.node is not None:
            synthesize(item.node, double_buffer)
    _refresh(node, double_buffer)
    # A body that runs once (a function's) is executed again from its first changed item.
    replay = Replay(node, _Sim({id(node)}), _Violation) if node.trip == 1 else None
    latest = latest_sources(node)
    for _ in range(_MAX_STEPS):
        req = _first_violation(node) if replay is None else _replayed_violation(replay, node)
        if req is None:
            _hoist_primes(node)
            return
        if not _fix(node, req, latest):
            # The token meant for it exists but does not order it: only two-deep or split
            # carried tokens can have that effect (FIFO order with other tokens); fall back to
            # one token, one deep.
            q = (req.x, req.y) if (req.x, req.y) in _QI else (req.x, COMPUTE)
            if len(node.windows.get(q, ())) <= 1 and all(
                    w.depth == 1 for w in node.windows.get(q, ())):
                raise ProtocolError(f"no token orders {req}")
            node.shallow.add(q)
        _refresh(node, double_buffer)
    raise ProtocolError("the protocol does not converge")


def verify_protocol(root: Node) -> Req | None:
    """Execute the whole function's protocol; the first requirement it does not order, or
    ``None``.  Raises :class:`ProtocolError` on an empty pop or left-over tokens."""
    sim = _Sim(None)
    try:
        sim.execute(root)
    except _Violation as v:
        return v.req
    return None
