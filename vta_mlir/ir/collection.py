"""Python's cyclic garbage collector while a pass pipeline runs.

A pipeline allocates millions of objects (ops, attributes, uses, blocks) and keeps most of them
alive until it ends.  With the interpreter's default thresholds (a generation-0 collection every
700 net allocations) that allocation rate sets off a dozen full collections on a ResNet-18 at
224², each traversing the whole IR and finding almost nothing to free (about a fifth of the
compile time of a whole network).  Raising the generation-0 threshold while the pipeline runs
keeps collections, and so memory, bounded, but makes them rare; the caller's thresholds come
back afterwards.  The objects alive when the pipeline starts are frozen (``gc.freeze``) until it
ends, so that its collections do not traverse them.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["PIPELINE_GEN0_THRESHOLD", "fewer_collections"]

#: Net allocations between generation-0 collections while a pipeline runs.
PIPELINE_GEN0_THRESHOLD = 20_000


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the generation-0 collection threshold to at least
    :data:`PIPELINE_GEN0_THRESHOLD` inside the block, and restore the thresholds after it (also
    when it raises)."""
    saved = gc.get_threshold()
    gc.set_threshold(max(saved[0], PIPELINE_GEN0_THRESHOLD), *saved[1:])
    # The objects alive before (the input module, the interpreter's own) are not traversed
    # by the collections inside: a full collection then walks what the pipeline made only.
    # Not when the caller froze objects itself: unfreezing would undo that.
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        yield
    finally:
        if freeze:
            gc.unfreeze()
        gc.set_threshold(*saved)
