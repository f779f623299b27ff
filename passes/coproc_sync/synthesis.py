"""Token synthesis of ``vta-coproc-sync`` (step 1 of :mod:`.protocol`): bottom-up, each
node's protocol grows one token at a time, for the first requirement the abstract execution
finds unordered, until every requirement holds; then the primes of its nested loops move as
early as they may (:mod:`.primes`)."""

from __future__ import annotations

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import Module

from .cost import command_cycles
from .model import COMPUTE, MAX_DISTANCE, MODULES, QUEUES, Node, Queue, Req
from .primes import hoist_primes
from .protocol import (
    ProtocolError,
    Simulation,
    Violation,
    first_violation,
    post_slot,
    pre_slot,
    refresh,
    replayed_violation,
)
from .replay import Replay

__all__ = ["latest_sources", "synthesize"]


def _add_forward(node: Node, q: Queue, src: int, dst: int) -> bool:
    """Add (or move later) the forward token of ``q`` popped at ``dst``; True if it changed.

    The token never spans a loop that uses ``q`` itself: FIFO order would hand the loop's first
    pop this token instead of the one primed for it.  Its source moves after such a loop (which
    orders the same commands: they precede the loop)."""
    for item in node.items:
        if (item.node is not None and src < pre_slot(item.index) and post_slot(item.index) < dst
                and q in item.node.queues_used()):
            src = max(src, post_slot(item.index))
    key = (q, dst)
    if node.forward.get(key, -1) >= src:
        return False
    node.forward[key] = src
    return True


def _add_carried(node: Node, q: Queue, src: int, dst: int, dist: int) -> bool:
    pairs = node.carried.setdefault(q, {})
    if pairs.get((src, dst), MAX_DISTANCE + 1) <= dist:
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
    if (x, y) not in QUEUES:
        # Load <-> store: compute passes the completion on, right before the target.  That
        # leg first: the one into compute is often implied already (by a loop's drain).
        if _add_forward(node, (COMPUTE, y), pre_slot(b), pre_slot(b)):
            return True
        y = COMPUTE
    q = (x, y)
    if req.dist:
        return _add_carried(node, q, post_slot(a), pre_slot(b), req.dist)
    # The latest source this target needs: one token orders them all.
    return _add_forward(node, q, post_slot(latest[(b, req.x, req.y)]), pre_slot(b))


def _item_cycles(node: Node, cfg: VTAConfig) -> list[dict[Module, int]]:
    """Per item of ``node``, the cycles each module's commands take in it (the cycle model;
    a nested loop's all iterations)."""
    out = []
    for item in node.items:
        total = dict.fromkeys(MODULES, 0)
        if item.node is not None:
            # A double-buffered loop inside has them already (synthesis is bottom-up).
            for inner in item.node.item_cycles or _item_cycles(item.node, cfg):
                for module, cycles in inner.items():
                    total[module] += item.node.trip * cycles
        else:
            assert item.module is not None
            total[item.module] = command_cycles(item.op, cfg)
        out.append(total)
    return out


#: Bound on the tokens one loop body may need (a safeguard: each step adds or moves one).
_MAX_STEPS = 10_000


def synthesize(node: Node, double_buffer: bool, cfg: VTAConfig,
               tail: frozenset[Module] = frozenset(MODULES)) -> None:
    """Choose the protocol of ``node`` and of every loop inside it (bottom-up); ``tail``: the
    modules with no command after ``node`` in its device run (all of them for a run)."""
    for item in node.items:
        if item.node is not None:
            after = frozenset().union(*(other.modules for other in node.items[item.index + 1:]))
            synthesize(item.node, double_buffer, cfg, tail - after)
    if double_buffer and node.double_buffer:
        node.item_cycles = _item_cycles(node, cfg)
    refresh(node, double_buffer)
    # A body that runs once (a function's) is executed again from its first changed item.
    replay = Replay(node, Simulation({id(node)}), Violation) if node.trip == 1 else None
    latest = latest_sources(node)
    for _ in range(_MAX_STEPS):
        req = first_violation(node) if replay is None else replayed_violation(replay, node)
        if req is None:
            hoist_primes(node, cfg, tail)
            return
        if not _fix(node, req, latest):
            # The token meant for it exists but does not order it: only two-deep or split
            # carried tokens can have that effect (FIFO order with other tokens); fall back to
            # one token, one deep.
            q = (req.x, req.y) if (req.x, req.y) in QUEUES else (req.x, COMPUTE)
            if len(node.windows.get(q, ())) <= 1 and all(
                    w.depth == 1 for w in node.windows.get(q, ())):
                raise ProtocolError(f"no token orders {req}")
            node.shallow.add(q)
        refresh(node, double_buffer)
    raise ProtocolError("the protocol does not converge")
