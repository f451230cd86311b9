import atexit
import os
import shutil
import tempfile

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# compiled executables go to a cache of this test run, never to the user's
_CACHE_DIR = tempfile.mkdtemp(prefix="hlograph-test-cache-")
os.environ["HLOGRAPH_CACHE_DIR"] = _CACHE_DIR
atexit.register(shutil.rmtree, _CACHE_DIR, ignore_errors=True)

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

# 8 virtual CPU devices, for device selection and SPMD tests (cpu:0 stays the default)
jax.config.update("jax_num_cpu_devices", 8)


@pytest.fixture
def rng(request):
    # one seed per test, stable across runs
    seed = sum(map(ord, request.node.nodeid))
    return np.random.default_rng(seed)


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """A cache directory of the test's own, clean cache counters and an empty
    in-memory executable cache (so that compiles reach the disk cache)."""
    from hlograph.runtime import cache, executables

    directory = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_DIR, str(directory))
    monkeypatch.delenv(cache.ENV_MAX_BYTES, raising=False)
    executables.clear_cache()
    cache.reset_stats()
    yield directory
    executables.clear_cache()
