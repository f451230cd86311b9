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
