"""The placement policy: one answer to "where does this node run?", asked by the
partitioner, explain(), lowering and the coverage table; control flow whose
body needs the host runs on the host whole."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
from hlograph.compiler.partition import partition
from hlograph.compiler.placement import DEVICE, HOST, HOST_CALL, class_placement, placement
from hlograph.frontend.graph import Apply, Op
from hlograph.frontend.ops import dynamic, elemwise, linalg
from hlograph.frontend.ops.basic import as_variable
from hlograph.tests.helpers import assert_same


class PerformOnly(Op):
    """An op with a NumPy perform and nothing else (no rule, no Numba)."""

    def make_node(self, x):
        x = as_variable(x)
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [np.asarray(inputs[0] * 3 + 1, dtype=node.outputs[0].dtype)]


def _node(out):
    return out.owner


def test_device_ops_host_ops_and_host_calls():
    x = hg.tensor("x", (5,), "float64")
    m = hg.tensor("m", (5,), "bool")
    assert placement(_node(hg.exp(x)), "cpu").where == DEVICE
    assert placement(_node(x[m]), "cpu").where == HOST  # value-dependent shape
    masked = dynamic.mask_assign(x, m, hg.constant(np.zeros(2)))
    assert placement(_node(masked), "cpu").where == HOST_CALL  # static shape, Numba
    assert placement(_node(masked), "gpu").where == HOST  # in-module calls are CPU only
    p = placement(_node(PerformOnly()(x)), "cpu")
    assert (p.where, p.via) == (HOST, "Python perform")
    assert "PerformOnly" in p.why


def test_host_calls_switch_off(monkeypatch):
    x = hg.tensor("x", (5,), "float64")
    m = hg.tensor("m", (5,), "bool")
    masked = dynamic.mask_assign(x, m, hg.constant(np.zeros(2)))
    monkeypatch.setenv("HLOGRAPH_HOST_FFI", "0")
    assert placement(_node(masked), "cpu").where == HOST


def test_an_op_that_runs_nowhere_names_itself():
    class Nothing(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type])

    x = hg.tensor("x", (2,), "float32")
    with pytest.raises(NotImplementedError, match="Nothing"):
        placement(_node(Nothing()(x)), "cpu")


def test_coverage_uses_the_same_policy():
    assert class_placement(elemwise.Exp) == "native StableHLO"
    assert class_placement(linalg.Cholesky) == "jax bridge"
    assert class_placement(dynamic.Unique) == "host (Numba)"
    assert class_placement(PerformOnly) == "host (Python perform)"


def _values(n=7, seed=0):
    return np.random.default_rng(seed).standard_normal(n)


@pytest.mark.parametrize("inner", ["boolean_mask", "perform_only"])
@pytest.mark.parametrize("cond", [True, False])
def test_ifelse_with_a_host_op_in_a_branch(inner, cond):
    c = hg.scalar("c", "bool")
    v = hg.tensor("v", (None,), "float64")

    def then():
        return hg.sum(v[v > 0]) if inner == "boolean_mask" else hg.sum(PerformOnly()(v))

    g = hg.Graph([c, v], hg.ifelse(c, then, lambda: hg.sum(v)))
    fn = hg.compile(g)
    x = _values()
    assert_same(fn(cond, x), hg.evaluate(g, cond, x))
    text = fn.explain()
    assert "IfElse: an inner graph needs the host" in text
    assert ("BooleanMask" if inner == "boolean_mask" else "PerformOnly") in text


@pytest.mark.parametrize("index", [0, 1, 2])
def test_switch_with_a_host_op_in_a_branch(index):
    i = hg.scalar("i", "int32")
    v = hg.tensor("v", (6,), "float64")
    g = hg.Graph([i, v], hg.switch(i, [lambda: hg.sum(hg.unique(hg.floor(v))),
                                       lambda: hg.max(v), lambda: hg.min(v)]))
    fn = hg.compile(g)
    x = np.array([1.5, 1.2, -3.0, 2.0, 2.7, -3.1])
    assert_same(fn(index, x), hg.evaluate(g, index, x))
    assert "Switch: an inner graph needs the host" in fn.explain()


def test_scan_with_a_host_op_in_the_step():
    xs = hg.tensor("xs", (4, 5), "float64")

    def step(row, acc):
        return acc + hg.sum(row[row > 0])

    final = hg.scan(step, sequences=[xs], outputs_info=[hg.constant(0.0)])
    g = hg.Graph([xs], final)
    fn = hg.compile(g)
    x = np.random.default_rng(1).standard_normal((4, 5))
    assert_same(fn(x), hg.evaluate(g, x))
    assert "Scan: an inner graph needs the host" in fn.explain()


def test_while_loop_with_a_perform_only_op_in_the_body():
    n = hg.scalar("n", "int64")
    x = hg.tensor("x", (3,), "float64")
    out = hg.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, PerformOnly()(y) / 4.0),
                        [hg.constant(np.int64(0)), x])
    g = hg.Graph([n, x], out)
    fn = hg.compile(g)
    args = (np.int64(3), np.array([1.0, -2.0, 0.5]))
    for got, want in zip(fn(*args), hg.evaluate(g, *args), strict=True):
        assert_same(got, want)
    assert "WhileLoop: an inner graph needs the host" in fn.explain()


def test_control_flow_with_an_in_module_host_call_stays_on_the_device():
    c = hg.scalar("c", "bool")
    x = hg.tensor("x", (5,), "float64")
    m = hg.tensor("m", (5,), "bool")
    out = hg.ifelse(c, lambda: dynamic.mask_assign(x, m, hg.constant(np.zeros(2))) * 2, lambda: x)
    g = hg.Graph([c, x, m], out)
    (seg,) = partition(g, "cpu")
    assert seg.kind == "device"
    fn = hg.compile(g, platform="cpu")
    args = (True, _values(5), np.array([True, False, True, False, False]))
    assert_same(fn(*args), hg.evaluate(g, *args))
    assert "custom_call" in fn.lower(*args).as_text()


class _LateRuled(Op):
    """An op whose lowering rule is registered after its nodes were placed."""

    def make_node(self, x):
        x = as_variable(x)
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [np.asarray(inputs[0] * 2, dtype=node.outputs[0].dtype)]


def test_placement_follows_a_rule_registered_later():
    from hlograph.lowering import register
    from hlograph.xla.mlir import hlo

    x = hg.tensor("x", (3,), "float64")
    first, second = _LateRuled()(x).owner, _LateRuled()(x * 2).owner
    assert placement(first, "cpu").where == HOST
    assert placement(first, "cpu").where == HOST  # asked twice: still the policy's answer

    @register(_LateRuled)
    def lower_late_ruled(ctx, v):
        return [hlo.add(v, v)]

    for node in (first, second):  # nodes of a device class share one answer
        place = placement(node, "cpu")
        assert (place.where, place.via) == (DEVICE, "StableHLO")
        assert place.why == "_LateRuled: StableHLO lowering"
    g = hg.Graph([x], _LateRuled()(x))
    assert_same(hg.compile(g)(np.array([1.0, -2.0, 0.5])), np.array([2.0, -4.0, 1.0]))


def test_control_flow_nodes_are_placed_by_their_own_bodies():
    # an IfElse on the device, then one whose branch needs the host: the class does
    # not decide (its placement is not shared between nodes)
    c = hg.scalar("c", "bool")
    v = hg.tensor("v", (None,), "float64")
    on_device = hg.ifelse(c, lambda: hg.sum(v) * 2, lambda: hg.sum(v)).owner
    on_host = hg.ifelse(c, lambda: hg.sum(PerformOnly()(v)), lambda: hg.sum(v)).owner
    assert type(on_device.op) is type(on_host.op)
    for _ in range(2):
        assert placement(on_device, "cpu").where == DEVICE
        assert placement(on_host, "cpu").where == HOST
