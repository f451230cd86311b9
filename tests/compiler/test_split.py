"""Large device graphs cut into parts compiled on their own (partition.split_large)."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.compiler import partition as partition_mod
from hlograph.compiler.partition import DEVICE, HOST, SPLIT_ENV, partition, split_size
from hlograph.tests.compiler.test_partition import Positives


@pytest.fixture
def small_parts(monkeypatch):
    """Graphs of more than 30 nodes split into parts of about 12."""
    monkeypatch.setattr(partition_mod, "SPLIT_MIN_NODES", 30)
    monkeypatch.setenv(SPLIT_ENV, "12")
    monkeypatch.setenv("HLOGRAPH_CACHE_DIR", "off")


def _chain(lib, x, n):
    v = x
    for i in range(n):
        v = lib.sin(v) if i % 3 == 0 else lib.cos(v) if i % 3 == 1 else v + x * 0.5
    return v


def test_a_long_chain_runs_in_parts_with_the_same_result(small_parts, rng, caplog):
    x = hg.tensor("x", (5,), "float32")
    g = hg.Graph([x], _chain(hg, x, 60))
    segs = partition(g, split=True)
    assert len(segs) > 3 and all(s.kind == DEVICE for s in segs)
    assert [s.part for s in segs] == [(k + 1, len(segs)) for k in range(len(segs))]
    assert sum(len(s.nodes) for s in segs) == len(g.nodes)
    assert all(len(s.nodes) <= 12 + 3 for s in segs)
    # a chain hands on its running value (and x, read all along)
    assert all(len(s.outputs) <= 2 for s in segs[:-1])
    xs = rng.standard_normal(5).astype(np.float32)
    fn = hg.compile(g)
    with caplog.at_level("INFO", logger="hlograph.lower"):
        got = fn(xs)
    assert f"runs in {len(segs)} segments" in caplog.text
    np.testing.assert_allclose(got, _chain(np, xs, 60), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got, hg.compile(g, pipeline="O0")(xs))
    assert "part 2 of" in fn.explain()
    # lower() (and what it compiles ahead of time, or serializes) stays one module
    lowered = fn.lower()
    assert lowered.as_text().count("func.func public @main") == 1
    np.testing.assert_array_equal(lowered.compile()(xs), got)


def test_cuts_go_where_few_values_cross(small_parts):
    # 40 independent values made early, all read at the end: a cut among their
    # producers would carry many of them; the cuts land in the chain after them
    x = hg.tensor("x", (3,), "float64")
    early = [x * float(i) for i in range(8)]
    v = _chain(hg, x, 40)
    out = v + sum(early[1:], early[0])
    g = hg.Graph([x], out)
    segs = partition(g, split=True)
    assert len(segs) > 1
    crossing = [len(s.outputs) for s in segs[:-1]]
    assert max(crossing) <= len(early) + 2
    xs = np.array([0.1, -0.7, 2.0])
    np.testing.assert_allclose(hg.compile(g)(xs), hg.evaluate(g, xs), rtol=1e-12)


@pytest.mark.filterwarnings("ignore:Positives has neither")
def test_parts_and_host_segments_together(small_parts, rng):
    x = hg.tensor("x", (7,), "float32")
    head = _chain(hg, x, 45)
    p = Positives()(head - 0.5)
    g = hg.Graph([x], [hg.sum(p), _chain(hg, head, 45)])
    kinds = [s.kind for s in partition(g, split=True)]
    assert HOST in kinds and kinds.count(DEVICE) > 3
    xs = rng.standard_normal(7).astype(np.float32)
    got = hg.compile(g)(xs)
    want = hg.evaluate(g, xs)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_multiple_outputs_and_outputs_inside_parts(small_parts):
    x = hg.tensor("x", (2, 3), "float64")
    mid = _chain(hg, x, 30)
    end = _chain(hg, mid, 30)
    g = hg.Graph([x], [end, mid, x * 2.0])
    xs = np.arange(6.0).reshape(2, 3) / 7
    got = hg.compile(g)(xs)
    for a, b in zip(got, hg.evaluate(g, xs)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_small_graphs_and_split_off_stay_whole(monkeypatch, small_parts):
    x = hg.tensor("x", (5,), "float32")
    assert len(partition(hg.Graph([x], _chain(hg, x, 20)), split=True)) == 1  # 27 nodes <= 30
    g = hg.Graph([x], _chain(hg, x, 60))
    assert len(partition(g, split=False)) == 1
    monkeypatch.setenv(SPLIT_ENV, "off")
    assert split_size() is None and len(partition(g, split=True)) == 1
    monkeypatch.setenv(SPLIT_ENV, "0")
    assert split_size() is None


@pytest.mark.parametrize("bad", ["-3", "many", "1.5"])
def test_a_bad_split_setting_is_a_clear_error(monkeypatch, bad):
    monkeypatch.setenv(SPLIT_ENV, bad)
    with pytest.raises(ValueError, match=SPLIT_ENV):
        split_size()


def test_splitting_is_off_by_default_and_on_takes_the_default_size(monkeypatch):
    monkeypatch.delenv(SPLIT_ENV, raising=False)
    assert split_size() is None
    monkeypatch.setenv(SPLIT_ENV, "on")
    assert split_size() == partition_mod.SPLIT_NODES
