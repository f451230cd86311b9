"""The same graphs on every platform present (GPU/TPU through jaxlib's PJRT
plugins, `pip install -e ".[gpu]"`); a platform that is absent is skipped."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.runtime import devices

_AVAILABLE = devices.available_platforms()


def _present(platform):
    return pytest.param(platform, marks=pytest.mark.skipif(
        isinstance(_AVAILABLE[platform], str), reason=f"no {platform} here"))


PLATFORMS = [_present(p) for p in ("cpu", "gpu", "tpu")]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_graph_runs_on_platform(platform, rng):
    x = hg.tensor("x", (16, 8), "float32")
    w = hg.tensor("w", (8, 4), "float32")
    g = hg.Graph([x, w], [hg.softmax(hg.tanh(x @ w), axis=-1), hg.cumsum(x, axis=0)])
    fn = hg.compile(g, platform=platform)
    xv = rng.normal(size=(16, 8)).astype(np.float32)
    wv = rng.normal(size=(8, 4)).astype(np.float32)
    probs, running = fn(xv, wv)
    want = hg.evaluate(g, xv, wv)
    np.testing.assert_allclose(probs, want[0], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(running, want[1], rtol=2e-5, atol=1e-5)
    out = fn(xv, wv, output="device")[0]
    assert {d.platform for d in out.devices()} <= {platform, "cuda", "rocm"}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_host_graph_runs_on_platform(platform):
    x = hg.tensor("x", (None,), "float32")
    g = hg.Graph([x], hg.sum(hg.exp(x[x > 0])))
    v = np.array([-1.0, 0.5, 2.0, -3.0], np.float32)
    got = hg.compile(g, platform=platform)(v)
    np.testing.assert_allclose(got, hg.evaluate(g, v), rtol=1e-6)
