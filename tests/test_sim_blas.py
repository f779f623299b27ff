"""BLAS thread policy of simulator runs (vta_mlir.sim.blas)."""

from __future__ import annotations

import pytest

from vta_mlir.sim import blas


@pytest.fixture(autouse=True)
def _restore_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blas, "_threads", None)
    monkeypatch.setattr(blas, "_threads_set", False)


@pytest.mark.parametrize(("value", "want"), [(None, 1), ("3", 3), ("default", None),
                                             ("junk", 1), ("0", 1)])
def test_policy_from_environment(monkeypatch: pytest.MonkeyPatch, value: str | None,
                                 want: int | None) -> None:
    if value is None:
        monkeypatch.delenv(blas.ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(blas.ENV_VAR, value)
    assert blas.threads() == want


def test_explicit_policy_and_restore(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def setter(n: int) -> int:
        calls.append(n)
        return 7

    monkeypatch.setattr(blas, "_setter", setter)
    monkeypatch.setattr(blas, "_searched", True)
    blas.set_threads(2)
    with blas.limited():
        assert calls == [2]
    assert calls == [2, 7]  # the previous setting is put back
    blas.set_threads(None)
    with blas.limited():
        pass
    assert calls == [2, 7]
    with pytest.raises(ValueError):
        blas.set_threads(0)


def test_limited_is_harmless_with_the_real_library() -> None:
    with blas.limited():
        import numpy as np

        a = np.ones((64, 64), dtype=np.float32)
        assert float((a @ a)[0, 0]) == 64.0
