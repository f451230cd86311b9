"""The contexts modules are lowered in: ``lowering_context`` shares one per thread
between the modules lowered one after another, and replaces it after
``CONTEXT_REUSE_MODULES`` modules or ``CONTEXT_REUSE_BYTES`` bytes of constants."""

from __future__ import annotations

import threading

import numpy as np

import hlograph as hg
from hlograph.lowering.lower import lower_graph
from hlograph.xla import mlir


def _graph(scale: float = 2.0):
    x = hg.tensor("x", (4,), "float32")
    return hg.Graph([x], hg.sin(x) * np.float32(scale) + 1)


def test_modules_lowered_in_turn_share_a_context_and_stay_valid(monkeypatch):
    monkeypatch.setattr(mlir, "CONTEXT_REUSE_MODULES", 3)
    monkeypatch.setattr(mlir._lowering_contexts, "ctx", None, raising=False)
    modules = [lower_graph(_graph(float(i)), platform="cpu") for i in range(7)]
    contexts = [m.context for m in modules]
    # three modules per context, then a fresh one
    assert contexts[0] is contexts[1] is contexts[2]
    assert contexts[3] is contexts[4] is contexts[5]
    assert contexts[2] is not contexts[3] and contexts[5] is not contexts[6]
    texts = [str(m) for m in modules]
    # each module is its own (its constant), whatever shares its context
    assert all(f"{float(i):.6e}" in texts[i] for i in range(7))
    for m in modules:
        m.operation.verify()
    # the same graph lowers to the same text in a shared and in a fresh context
    assert str(lower_graph(_graph(3.0), platform="cpu")) == texts[3]


def test_large_constants_bring_a_fresh_context(monkeypatch):
    monkeypatch.setattr(mlir, "CONTEXT_REUSE_BYTES", 1000)
    monkeypatch.setattr(mlir._lowering_contexts, "ctx", None, raising=False)
    x = hg.tensor("x", (300,), "float32")
    big = hg.Graph([x], x + hg.constant(np.arange(300, dtype=np.float32)))  # 1200 bytes
    small = _graph()
    a = lower_graph(small, platform="cpu")
    b = lower_graph(big, platform="cpu")
    c = lower_graph(small, platform="cpu")
    assert a.context is b.context  # counted after: the module holding them shares it
    assert c.context is not b.context


def test_threads_lower_in_contexts_of_their_own():
    main = lower_graph(_graph(), platform="cpu")
    found = {}

    def lower(name):
        found[name] = lower_graph(_graph(), platform="cpu")

    threads = [threading.Thread(target=lower, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    contexts = {id(main.context), id(found[0].context), id(found[1].context)}
    assert len(contexts) == 3
    assert str(found[0]) == str(found[1]) == str(main)
