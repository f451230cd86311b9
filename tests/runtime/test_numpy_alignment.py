"""NumPy's data allocator after ``import hlograph``: 64-byte aligned buffers
(runtime/_align.c), so that PJRT's CPU client reads NumPy arguments in place."""

import os
import pickle
import subprocess
import sys
import threading

import numpy as np
import pytest

import hlograph as hg
from hlograph.runtime import numpy_alignment as na
from hlograph.xla import pjrt

pytestmark = pytest.mark.skipif(na._extension() is None, reason="the _align extension was not built")


def test_installed_on_import():
    assert na.installed()


@pytest.mark.parametrize("make", [
    lambda: np.empty(0), lambda: np.empty(3, np.int8), lambda: np.ones((7, 5)), lambda: np.zeros(1 << 22),
    lambda: np.arange(100_000, dtype=np.float32), lambda: np.random.default_rng(0).normal(size=(513, 3)),
    lambda: np.concatenate([np.ones(5), np.zeros(1000)]), lambda: np.ones(10, np.complex128).copy(),
    lambda: np.fromiter(range(50_000), float), lambda: np.array(["abc", "de"] * 300),
])
def test_new_arrays_are_64_byte_aligned(make):
    assert na.is_aligned(make())


def test_zeros_and_growth_keep_their_values():
    z = np.zeros(1 << 24)
    assert na.is_aligned(z) and not z[:: 1 << 12].any()
    a = np.arange(10.0)
    for n in (11, 5000, 3, 1 << 20, 64):  # realloc up and down, with moves
        a.resize(n, refcheck=False)
        assert na.is_aligned(a)
        np.testing.assert_array_equal(a[: min(n, 3)], np.arange(min(n, 3), dtype=float))
    f = np.fromiter((i * 0.5 for i in range(100_000)), float)
    np.testing.assert_array_equal(f, np.arange(100_000) * 0.5)


def test_a_large_numpy_argument_is_read_in_place():
    a = np.random.default_rng(1).random(1 << 20).astype(np.float32)
    x = hg.tensor("x", a.shape, "float32")
    fn = hg.compile(hg.Graph([x], [x * 2.0]))
    put = pjrt.device_putter(a.dtype, a.shape, fn.device)
    assert put(a).unsafe_buffer_pointer() == a.ctypes.data
    (out,) = fn(a)
    np.testing.assert_array_equal(out, a * 2)


def test_restore_and_install_again():
    na.restore()
    try:
        assert not na.installed()
        from numpy._core.multiarray import get_handler_name
        assert get_handler_name() == "default_allocator"
    finally:
        assert na.install()
    assert na.installed() and na.is_aligned(np.empty(1 << 20))


def test_arrays_outlive_a_restore_and_free_with_their_own_allocator():
    kept = [np.full(1 << 16, i, np.int32) for i in range(4)]
    na.restore()
    try:
        others = [np.full(1 << 16, i, np.int32) for i in range(4)]
        del kept[0]
        kept += others
        assert [int(k[0]) for k in kept] == [1, 2, 3, 0, 1, 2, 3]
    finally:
        na.install()
    del kept, others


def test_pickled_arrays_and_threads_stay_correct():
    b = pickle.loads(pickle.dumps(np.arange(1e5)))
    np.testing.assert_array_equal(b, np.arange(1e5))
    out = []  # a new thread starts in a context of its own: NumPy's allocator there
    t = threading.Thread(target=lambda: out.append(np.arange(1000.0).sum()))
    t.start()
    t.join()
    assert out == [499500.0]


def test_switched_off_by_the_environment():
    code = ("import hlograph, numpy as np; from numpy._core.multiarray import get_handler_name; "
            "print(get_handler_name())")
    env = dict(os.environ, HLOGRAPH_ALIGN_NUMPY="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "default_allocator"
