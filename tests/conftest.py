import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np
import pytest


@pytest.fixture
def rng(request):
    # one seed per test, stable across runs
    seed = sum(map(ord, request.node.nodeid))
    return np.random.default_rng(seed)
