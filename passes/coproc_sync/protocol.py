"""The token protocol of ``vta-coproc-sync``: which dependency tokens order the dependences
found by :mod:`.deps`, and the check that they do.

Tokens are placed in the *slots* of a node (:class:`~.deps.Node`):
``pre(i) = 2·i`` (just before item ``i``) and ``post(i) = 2·i + 1`` (just after it).

1. **Protocol** (:func:`.synthesis.synthesize`, bottom-up, greedy; where the primes of nested
   loops go is :mod:`.primes`').  A node's protocol is a set of forward tokens (push after the
   source, pop before the target, one per queue and target) and, per
   queue, one carried token: popped at the first point of the body that needs it, pushed at
   the last, primed before the loop and drained after it.  When the loop is double-buffered
   and nothing else in the body uses the queue, the carried token is as deep as its
   dependences are iterations apart (two for two buffer copies, up to four; primed and
   drained that many times), and independent chains of dependences (a body unrolled over two
   buffer copies) get a token each.  A load ↔ store
   dependence goes through compute (a pop and a push on the compute module before the target).
   Each token is added only when the requirement is not already implied by the others: that is
   decided by :class:`Simulation`, which executes the protocol abstractly (every loop for at most
   :func:`sim_iterations` iterations, which covers its first, steady and last iterations) with
   a vector clock per module, FIFO token queues and the hardware's in-order modules.

2. **Check** (:func:`verify_protocol`): the whole function is executed that way once more;
   every requirement must hold, no pop may find its queue empty, and no token may be left.
"""

from __future__ import annotations

import operator
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from vta_mlir.dialects.vta import Module

from .model import COMPUTE, MODULES, QUEUES, Item, Node, Queue, Req, Window
from .replay import Replay

__all__ = [
    "MIN_CHAIN_SAVING",
    "SIM_ITERATIONS",
    "ProtocolError",
    "Simulation",
    "Violation",
    "chains_pay",
    "compute_windows",
    "first_violation",
    "post_slot",
    "pre_slot",
    "primes_of",
    "refresh",
    "replayed_violation",
    "sim_iterations",
    "slot_events",
    "verify_protocol",
]

_MI = {m: i for i, m in enumerate(MODULES)}
#: The order of a slot's events: rank, then queue (a stable sort keeps the rest in order).
_RANK = operator.itemgetter(0, 1)
_QI = {q: i for i, q in enumerate(QUEUES)}

#: Iterations the protocol check executes of each loop: the first (primed tokens), two more
#: (the steady state of two-deep tokens), and the last before the drains.  A loop with deeper
#: tokens executes one more per extra token (:func:`sim_iterations`).
SIM_ITERATIONS = 5


def sim_iterations(node: Node) -> int:
    """The iterations of ``node`` the protocol executes: :data:`SIM_ITERATIONS`, and as many
    more as its deepest carried token is more than two deep (each of its tokens is then
    primed, reused in the steady state and drained)."""
    deepest = max((w.depth for ws in node.windows.values() for w in ws), default=1)
    return min(node.trip, SIM_ITERATIONS + max(deepest - 2, 0))


# ---------------------------------------------------------------------------------------------
# The protocol of a node


def pre_slot(i: int) -> int:
    """The slot just before item ``i``."""
    return 2 * i


def post_slot(i: int) -> int:
    """The slot just after item ``i``."""
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
    one per copy), as deep as the nearest of its requirements is iterations apart; beside
    forward tokens, one deep each, where the tokens of an iteration form one FIFO stream and
    :func:`chains_pay` says it saves cycles."""
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
            # As deep as the nearest reuse allows: a buffer with c copies is reused c
            # iterations later.
            depth = min(pairs.values())
            node.windows[q] = tuple(Window(pop, push, depth) for pop, push in _chains(list(pairs)))
            continue
        if double_buffer and node.double_buffer and q not in node.shallow and fwd and not nested:
            # Forward tokens too: when every carried pop comes before every forward pop and
            # every carried push after every forward push, each iteration's tokens form one
            # FIFO stream (the carried tokens of the iteration before first, then the forward
            # ones in order), and each chain keeps its own token, one deep: the first loads
            # of a tile wait for the GEMMs that read their copies, not for the tile's last.
            chains = _chains(list(pairs))
            if (len(chains) > 1 and max(pop for pop, _ in chains) < min(t for _, t in fwd)
                    and min(push for _, push in chains) > max(s for s, _ in fwd)
                    and chains_pay(node, q, chains)):
                node.windows[q] = tuple(Window(pop, push, 1) for pop, push in chains)
                continue
        pop = min([t for _, t in pairs] + [t for _, t in fwd] + [pre_slot(i) for i in nested])
        push = max([s for s, _ in pairs] + [s for s, _ in fwd] + [post_slot(i) for i in nested])
        node.windows[q] = (Window(pop, push, 1),)


#: The least modelled saving per iteration for which :func:`chains_pay` splits a queue's
#: carried token: a few hundred cycles is within what the cycle model of a body misjudges
#: (the commands of the two modules overlap in ways a sum per module does not see).
MIN_CHAIN_SAVING = 256


def chains_pay(node: Node, q: Queue, chains: Sequence[tuple[int, int]]) -> bool:
    """Whether a token per chain (``chains``: pop and push slots) saves cycles over one token
    pushed after the last chain's source, by the cycle model (``Node.item_cycles``).  With a
    token per chain, the popping module waits for ``ahead`` fewer cycles of the pushing
    module's commands (those after the first chain's push, up to the last).  An iteration
    takes about as long as the busier module, the popping one with those waits: ``ahead``
    saved where that one is the busier.  And the popping module's first commands of an
    iteration (``need``) run once the pushing module has done the commands after the last
    push and before the first pop (``spare``): ``ahead`` sooner.  Per iteration but the first;
    the extra prime and drain cost a NOP each."""
    if len(node.item_cycles) != len(node.items) or node.trip < 2:
        return False
    x, y = q
    first_pop = min(pop for pop, _ in chains) // 2
    pushes = sorted(push // 2 for _, push in chains)
    cycles = node.item_cycles
    ahead = sum(c[x] for c in cycles[pushes[0] + 1:pushes[-1] + 1])
    pusher, popper = sum(c[x] for c in cycles), sum(c[y] for c in cycles)
    throughput = max(0, popper + ahead - pusher) - max(0, popper - pusher)
    spare = sum(c[x] for c in cycles[pushes[-1] + 1:]) + sum(c[x] for c in cycles[:first_pop])
    need = 0
    for c in cycles[first_pop:]:
        if c[x] and need:
            break
        need += c[y]
    latency = max(0, need - spare) - max(0, need - spare - ahead)
    saved = max(throughput, latency)
    return saved >= MIN_CHAIN_SAVING and saved * (node.trip - 1) > 2 * len(chains)


def primes_of(node: Node) -> list[tuple[Queue, int]]:
    """Tokens primed before the loop (and drained after it), per queue: those of its carried
    tokens, and those its nested loops take from it (:func:`_prime_ahead`)."""
    count = {q: sum(w.depth for w in ws) for q, ws in node.windows.items()}
    for index, q in node.prime_ahead:
        inner = node.items[index].node
        assert inner is not None
        count[q] = count.get(q, 0) + dict(primes_of(inner))[q]
    return list(count.items())


def slot_events(node: Node) -> dict[int, list[tuple[str, Queue, int]]]:
    """The token operations of each slot of ``node``, in program order: ``("push" | "pop",
    queue, count)``.  Within a pre-slot: carried pops (the oldest tokens), pops into compute,
    pushes from compute (relaying a load ↔ store dependence), carried pushes, pops into load
    or store, then the primes of the loop that follows.  Within a post-slot: the drains of the
    loop before, forward pushes, carried pushes.  A loop's last drain moved to a later slot
    (``Node.drain_at``) comes last in it."""
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
            for q, n in primes_of(item.node):
                at = node.prime_ahead.get((item.index, q))
                if at is None:
                    at = node.prime_at.get((item.index, q), pre_slot(item.index))
                first = node.first_prime_at.get((item.index, q))
                rest = n
                if first is not None and n > 1:
                    ranked[first].append((5, _QI[q], "push", q, 1))
                    rest = n - 1
                ranked[at].append((5, _QI[q], "push", q, rest))
                drained = n
                later = node.drain_at.get((item.index, q))
                if later is not None and n > 1:
                    # Last in its slot: before a push of the module there it would split the
                    # push off its command into a NOP (no pop of the queue shares the slot).
                    ranked[later].append((6, _QI[q], "pop", q, 1))
                    drained = n - 1
                ranked[post_slot(item.index)].append((0, _QI[q], "pop", q, drained))
    out: dict[int, list[tuple[str, Queue, int]]] = {}
    for slot, evs in ranked.items():
        if len(evs) > 1:
            evs.sort(key=_RANK)
        out[slot] = [(kind, q, n) for _, _, kind, q, n in evs]
    return out


# ---------------------------------------------------------------------------------------------
# Abstract execution of a protocol


class ProtocolError(Exception):
    """A protocol that would deadlock or leave tokens (a bug of the synthesis)."""


class Violation(Exception):
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
    #: iteration of a loop instance → the checks armed when it starts (``Req.first``)
    deferred: dict[int, dict[Module, list[tuple[Module, int, Req]]]] = field(
        default_factory=dict)
    #: per iteration of a loop instance, ``done`` at its end (``Req.spared``)
    by_iteration: list[list[int | None]] = field(default_factory=list)


class Simulation:
    """Executes a protocol with vector clocks: ``vc[m][x]`` is how many of module ``x``'s
    commands module ``m`` knows to have completed (its own, and those whose completion reached
    it through tokens)."""

    def __init__(self, check: set[int] | None) -> None:
        self.check = check
        self.ends: dict[tuple[int, int, tuple[int, ...]], list[int | None]] = {}
        #: the same per iteration of a loop item (:attr:`_Instance.by_iteration`)
        self.iteration_ends: dict[tuple[int, int, tuple[int, ...]],
                                  list[list[int | None]]] = {}
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
        count = mine[mi] + 1
        for inst in self.open:
            if inst.pending:
                checks = inst.pending.pop(module, None)
                if checks:
                    # Against what the module knew before this command.
                    for x, need, req in checks:
                        if mine[_MI[x]] < need:
                            raise Violation(inst.node, req)
            inst.done[mi] = count
        mine[mi] = count

    def run(self, node: Node, path: tuple[int, ...], inst: _Instance | None = None) -> None:
        """The iterations of ``node`` (:func:`sim_iterations`); ``inst`` is the instance of
        the loop item, whose deferred checks each iteration arms."""
        for k in range(sim_iterations(node)):
            if inst is not None and k in inst.deferred:
                for y, checks in inst.deferred.pop(k).items():
                    inst.pending.setdefault(y, []).extend(checks)
            p = (*path, k)
            for item in node.items:
                self.run_item(node, item, p, k)
            if inst is not None:
                inst.by_iteration.append(list(inst.done))

    def run_item(self, node: Node, item: Item, p: tuple[int, ...], k: int) -> None:
        """Item ``item`` of iteration ``k`` of ``node`` (at ``p``), with its slots' tokens."""
        i = item.index
        events = node.events
        self.token_ops(events.get(pre_slot(i), ()))
        inst = _Instance(node, {}, [None, None, None])
        if self.check is None or id(node) in self.check:
            self._arm(node, inst, i, p, k)
        self.open.append(inst)
        if item.node is None:
            assert item.module is not None
            self.command(item.module)
        else:
            self.run(item.node, p, inst)
        self.open.pop()
        self.ends[(id(node), i, p)] = inst.done
        if inst.by_iteration:
            self.iteration_ends[(id(node), i, p)] = inst.by_iteration
        self.token_ops(events.get(post_slot(i), ()))

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
            if req.spared and req.dist == 0:
                # The source loop's last iterations touch nothing of the target: it waits for
                # the commands up to the one before them (the first executed, when it lies
                # before them: its commands are known no later than the later ones').
                per = self.iteration_ends.get(src)
                if per:
                    done = per[max(len(per) - 1 - req.spared, 0)][_MI[req.x]]
            if done is None:
                continue
            loop = node.items[i].node
            if req.first and loop is not None:
                # Its first iterations touch nothing of the source: the check waits for the
                # first that does (the last one executed, when it lies beyond them: later
                # commands of a module know at least what its earlier ones do).
                at = min(req.first, sim_iterations(loop) - 1)
                if at > 0:
                    inst.deferred.setdefault(at, {}).setdefault(req.y, []).append(
                        (req.x, done, req))
                    continue
            inst.pending.setdefault(req.y, []).append((req.x, done, req))

    def execute(self, node: Node) -> None:
        """Primes, the loop, drains; then no token may be left."""
        prime = [("push", q, n) for q, n in primes_of(node)]
        self.token_ops(prime)
        self.run(node, ())
        self.finish(primes_of(node))

    def finish(self, primes: list[tuple[Queue, int]]) -> None:
        """The drains of ``primes``; then no token may be left."""
        self.token_ops([("pop", q, n) for q, n in primes])
        left = [f"{q[0]} -> {q[1]}: {len(t)}" for q, t in self.tokens.items() if t]
        if left:
            raise ProtocolError("tokens left at the end: " + ", ".join(left))


def refresh(node: Node, double_buffer: bool) -> None:
    """Recompute the carried tokens and the slot events of ``node`` after a change."""
    compute_windows(node, double_buffer)
    node.events = slot_events(node)


def first_violation(node: Node, deep: bool = False) -> Req | None:
    """The first requirement of ``node`` (``deep``: of ``node`` or of a loop inside it) its
    protocol does not order, executing ``node`` alone."""
    sim = Simulation(None if deep else {id(node)})
    try:
        sim.execute(node)
    except Violation as v:
        return v.req
    return None


def replayed_violation(replay: Replay, node: Node) -> Req | None:
    """:func:`first_violation` of a one-iteration ``node`` by ``replay``."""
    try:
        replay.execute(primes_of(node))
    except Violation as v:
        return v.req
    return None


def verify_protocol(root: Node) -> Req | None:
    """Execute the whole function's protocol; the first requirement it does not order, or
    ``None``.  Raises :class:`ProtocolError` on an empty pop or left-over tokens."""
    sim = Simulation(None)
    try:
        sim.execute(root)
    except Violation as v:
        return v.req
    return None
