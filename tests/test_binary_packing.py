"""Argument packing: pack/unpack against the numpy recipes of docs/isa.md §1.6, the checks of
arrays and argument descriptions, and repeated arguments."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vta_mlir.abi import ArgSpec, ArgumentError, layout_tiles, tiled_packing
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.errors import BinaryFormatError, VTAError

from .binary_helpers import (
    CONFIGS,
    DEFAULT,
    bias_recipe,
    bias_spec,
    pad_to,
    recipe_2d,
    recipe_nchw,
    recipe_oihw,
)

# ---------------------------------------------------------------------------------------------
# Packing: against the numpy recipes of docs/isa.md §1.6, written out independently


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("shape", [(1, 5), (3, 40), (5, 33), (2, 16)])
def test_pack_2d_matches_recipe(name: str, shape: tuple[int, int]) -> None:
    cfg = CONFIGS[name]
    rng = np.random.default_rng(1)
    for dtype in ("int8", "int32"):
        spec = ArgSpec.for_layout("x", "in", dtype, shape, "NC", cfg)
        x = rng.integers(-100, 100, shape).astype(dtype)
        want = recipe_2d(x, cfg.batch, cfg.block_in)
        packed = spec.pack(x)
        assert spec.packed_shape == want.shape
        assert packed == np.ascontiguousarray(want).astype(f"<{want.dtype.str[1:]}").tobytes()
        np.testing.assert_array_equal(spec.unpack(packed), x)
        assert spec.unpack(packed).dtype == np.dtype(dtype)
    # weights as (O, I) and as (I, O): both output-major blocks
    w = rng.integers(-128, 128, shape).astype(np.int8)
    oi = ArgSpec.for_layout("w", "in", "int8", shape, "OI", cfg)
    assert oi.pack(w) == recipe_2d(w, cfg.block_out, cfg.block_in).tobytes()
    kn = ArgSpec.for_layout("w", "in", "int8", shape[::-1], "KN", cfg)
    assert kn.pack(np.ascontiguousarray(w.T)) == oi.pack(w)
    np.testing.assert_array_equal(kn.unpack(kn.pack(np.ascontiguousarray(w.T))), w.T)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("shape", [(1, 3, 5, 7), (3, 20, 4, 4), (2, 64, 1, 2)])
def test_pack_nchw_and_oihw_match_recipe(name: str, shape: tuple[int, ...]) -> None:
    cfg = CONFIGS[name]
    rng = np.random.default_rng(2)
    x = rng.integers(-128, 128, shape).astype(np.int8)
    data = ArgSpec.for_layout("x", "in", "int8", shape, "NCHW", cfg)
    assert data.pack(x) == recipe_nchw(x, cfg.batch, cfg.block_in).tobytes()
    np.testing.assert_array_equal(data.unpack(data.pack(x)), x)
    kern = ArgSpec.for_layout("w", "in", "int8", shape, "OIHW", cfg)
    assert kern.pack(x) == recipe_oihw(x, cfg.block_out, cfg.block_in).tobytes()
    np.testing.assert_array_equal(kern.unpack(kern.pack(x)), x)
    assert kern.packed_nbytes == recipe_oihw(x, cfg.block_out, cfg.block_in).nbytes


def test_generic_packing_parameters() -> None:
    assert tiled_packing((3, 20, 4, 4), (1, 16, None, None)) == (
        (3, 32, 4, 4), (3, 1, 2, 16, 4, 4), (0, 2, 4, 5, 1, 3))
    assert layout_tiles("OIHW", CONFIGS["block32"])[0] == (32, 32, None, None)
    flat = ArgSpec.for_layout("v", "inout", "int32", (7,), "flat", DEFAULT)
    v = np.arange(7, dtype=np.int32)
    assert flat.pack(v) == v.astype("<i4").tobytes()


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SHIPPED_CONFIGS), st.integers(1, 9), st.integers(1, 70),
       st.integers(1, 3), st.integers(1, 3))
def test_pack_unpack_round_trip_property(name: str, n: int, c: int, h: int, w: int) -> None:
    cfg = CONFIGS[name]
    x = np.random.default_rng(n * c).integers(-128, 128, (n, c, h, w)).astype(np.int8)
    spec = ArgSpec.for_layout("x", "in", "int8", x.shape, "NCHW", cfg)
    np.testing.assert_array_equal(spec.unpack(spec.pack(x)), x)


def test_packed_dtype_conversion_checks_range() -> None:
    spec = ArgSpec.for_layout("x", "in", "int32", (1, 4), "NC", DEFAULT, packed_dtype="int8")
    x = np.array([[1, -2, 3, 127]], dtype=np.int32)
    np.testing.assert_array_equal(spec.unpack(spec.pack(x)), x)
    assert spec.packed_nbytes == 16
    with pytest.raises(ArgumentError, match="do not fit the packed dtype int8"):
        spec.pack(np.array([[1, 2, 3, 300]], dtype=np.int32))


def test_pack_checks_the_array() -> None:
    spec = ArgSpec.for_layout("x", "in", "int8", (2, 20), "NC", DEFAULT)
    with pytest.raises(ArgumentError, match=r"expected dtype int8, got int64 \(convert"):
        spec.pack(np.zeros((2, 20), dtype=np.int64))
    with pytest.raises(ArgumentError, match=r"expected shape \(2, 20\), got \(20, 2\)"):
        spec.pack(np.zeros((20, 2), dtype=np.int8))
    with pytest.raises(ArgumentError, match="expected a numpy array"):
        spec.pack("abc")
    with pytest.raises(ArgumentError, match="packed image has 3 bytes"):
        spec.unpack(b"abc")
    assert isinstance(ArgumentError("x"), VTAError)


@pytest.mark.parametrize("kwargs, match", [
    (dict(perm=(0, 0, 1, 2)), "not a permutation"),
    (dict(split_shape=(1, 1, 2, 15)), "does not reshape"),
    (dict(padded_shape=(1, 8)), "smaller than shape"),
    (dict(direction="both"), "direction"),
    (dict(dtype="float64"), "not supported"),
    (dict(name=""), "non-empty"),
    (dict(shape=(0, 20)), "outside"),
    (dict(repeat=(2,)), r"split shape .* does not reshape repeat \(2,\) x padded shape"),
    (dict(repeat=(0,)), "repeat has dimension 0"),
    (dict(repeat=(1,) * 7), "has rank 9, more than 8"),
    (dict(repeat=(1,), direction="out"), "only allowed for 'in' arguments, not 'out'"),
    (dict(repeat=(1,), direction="inout"), "not 'inout'"),
    (dict(repeat=2), "repeat must be a sequence"),
])
def test_argspec_rejects_inconsistent_descriptions(kwargs: dict, match: str) -> None:
    good = dict(name="x", direction="in", dtype="int8", shape=(1, 20), padded_shape=(1, 32),
                split_shape=(1, 1, 2, 16), perm=(0, 2, 1, 3))
    good.update(kwargs)
    with pytest.raises(BinaryFormatError, match=match):
        ArgSpec(**good)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Repeated arguments: a per-column bias as whole accumulator elements


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("n", [5, 16, 48, 70])
def test_repeated_bias_packs_whole_accumulator_elements(name: str, n: int) -> None:
    cfg = CONFIGS[name]
    spec = bias_spec(cfg, n)
    bias = np.random.default_rng(n).integers(-(1 << 20), 1 << 20, n).astype(np.int32)
    want = bias_recipe(bias, cfg.batch, cfg.block_out)
    assert spec.shape == (n,) and spec.repeat == (cfg.batch,)
    assert spec.packed_shape == want.shape
    assert spec.packed_nbytes == want.nbytes
    assert spec.pack(bias) == want.astype("<i4").tobytes()
    # Every accumulator element of the image is the same size as the accumulator's.
    assert spec.packed_shape[2:] == (cfg.batch, cfg.block_out)


def test_repeat_over_several_axes_and_a_matrix_shape() -> None:
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    spec = ArgSpec("x", "in", "int16", (2, 3), (2, 4), (2, 3, 2, 4), (0, 1, 2, 3),
                   repeat=(2, 3))
    image = np.frombuffer(spec.pack(x), dtype="<i2").reshape(spec.packed_shape)
    for i in range(2):
        for j in range(3):
            np.testing.assert_array_equal(image[i, j], pad_to(x, (2, 4)))
    assert spec.replicated_shape == (2, 3, 2, 4)


def test_repeated_argument_cannot_be_unpacked_or_misused() -> None:
    spec = bias_spec(CONFIGS["batch2"], 20)
    bias = np.arange(20, dtype=np.int32)
    with pytest.raises(ArgumentError, match=r"repeated over \(2,\) and cannot be unpacked"):
        spec.unpack(spec.pack(bias))
    with pytest.raises(ArgumentError, match=r"expected shape \(20,\), got \(2, 20\)"):
        spec.pack(np.stack([bias, bias]))
    assert "repeated 2" in spec.describe()
    assert "repeated" not in ArgSpec.for_layout("x", "in", "int8", (2, 20), "NC",
                                                DEFAULT).describe()
    with pytest.raises(BinaryFormatError, match=r"repeat \(3,\) is not a whole number of its "
                                                r"blocks \(2,\)"):
        ArgSpec.for_layout("bias", "in", "int32", (20,), "NC", CONFIGS["batch2"], repeat=(3,))
