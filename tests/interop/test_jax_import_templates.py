"""Repeated equations: the importer builds an equation whose primitive, params,
operand types and constant values it has met before as a copy of the node its
rule built then (``interpreter._Templates``). The graphs and import reports it
gives are exactly those of running every rule, which these tests build by
turning the copies off."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.extend.core import Primitive
from jax.interpreters import mlir

import hlograph as hg
from hlograph.frontend.graph import Apply, Constant
from hlograph.interop.jax import from_jax, interpreter, register, registry
from hlograph.tests.helpers import assert_same
from hlograph.tests.interop.jax_corpus import compare_with_jax, corpus

NAMES = list(corpus(np.random.default_rng(0)))


class _NothingKept(dict):
    def __setitem__(self, key, value):
        pass


class _NoTemplates(interpreter._Templates):
    __slots__ = ()

    def __init__(self):
        super().__init__()
        self.table = _NothingKept()


def _by_rules(monkeypatch, f, *args):
    """``from_jax(f, *args)`` with every equation built by its rule."""
    with monkeypatch.context() as m:
        m.setattr(interpreter, "_Templates", _NoTemplates)
        return from_jax(f, *args)


def _structure(g):
    """Each node of ``g`` in order: its Op, where each input comes from (a graph input,
    a constant's value, an earlier node's output), its output types and source line."""
    where = {id(v): ("input", i) for i, v in enumerate(g.inputs)}
    out = []
    for k, node in enumerate(g.nodes):
        ins = []
        for v in node.inputs:
            if isinstance(v, Constant):
                ins.append(("constant", v.type, v.data.tobytes()))
            else:
                ins.append(where[id(v)])
        # (Ops holding graphs or functions compare by identity: two imports differ there)
        op = node.op if not node.op.inner_graphs and "CustomVJP" not in type(node.op).__name__ else str(node.op)
        out.append((type(node.op), op, tuple(ins), tuple(o.type for o in node.outputs), node.trace))
        for i, o in enumerate(node.outputs):
            assert o.owner is node and o.index == i
            where[id(o)] = ("node", k, i)
    return out, [where.get(id(v), ("constant", v.type)) for v in g.outputs]


def _report(g):
    r = g.report
    return dict(r.by_rule), dict(r.fallbacks), dict(r.reasons), dict(r.dropped)


def _assert_same_import(monkeypatch, f, *args):
    g = from_jax(f, *args)
    ref = _by_rules(monkeypatch, f, *args)
    assert _structure(g) == _structure(ref)
    assert _report(g) == _report(ref)
    return g


def _count_copies(monkeypatch):
    """A list that grows by one per node the importer copies (``Apply.trusted``)."""
    calls = []
    trusted = Apply.trusted.__func__

    def counting(cls, *args, **kwargs):
        calls.append(args[0])
        return trusted(cls, *args, **kwargs)

    monkeypatch.setattr(Apply, "trusted", classmethod(counting))
    return calls


@pytest.mark.parametrize("name", NAMES)
def test_the_corpus_imports_as_by_its_rules(name, rng, monkeypatch):
    f, args = corpus(rng)[name]
    _assert_same_import(monkeypatch, f, *args)


def test_a_chain_copies_its_repeated_equations(rng, monkeypatch):
    def chain(x, y):
        v = x
        for i in range(30):
            v = jnp.sin(v) if i % 3 == 0 else jnp.cos(v) if i % 3 == 1 else v * y
        return v

    copies = _count_copies(monkeypatch)
    x, y = rng.normal(size=(2, 5)).astype(np.float32)
    g = _assert_same_import(monkeypatch, chain, x, y)
    # the first sin, cos and mul are built by their rules, the 27 others copied
    assert len(g.nodes) == 30
    assert len(copies) == 27
    assert dict(g.report.by_rule) == {"sin": 10, "cos": 10, "mul": 10}
    assert_same(hg.evaluate(g, x, y), np.asarray(jax.jit(chain)(x, y)))


def test_constants_of_other_values_are_other_nodes(rng, monkeypatch):
    # a literal's value is part of what a node is copied for
    def f(x, i):
        a = x * 2.0 + x * 3.0 + x * 2.0 - 0.0
        b = lax.dynamic_slice(x, (1,), (2,)) + lax.dynamic_slice(x, (3,), (2,)) \
            + lax.dynamic_slice(x, (1,), (2,)) + lax.dynamic_slice(x, (i,), (2,))
        return a, b, jnp.where(x > 0, x, -1.0), jnp.where(x > 1, x, -1.0), x ** 3, x ** 2

    x = np.array([0.5, -1.5, 2.0, np.inf, np.nan], np.float32)
    g = _assert_same_import(monkeypatch, f, x, np.int32(2))
    want = jax.jit(f)(x, np.int32(2))
    for got, w in zip(hg.compile(g)(x, np.int32(2)), want):
        assert_same(got, np.asarray(w))


def _signed_step_primitive() -> Primitive:
    # x + y where y > 0, else x - y: a rule that reads a constant operand's value
    p = Primitive("test_signed_step")
    impl = lambda x, y: jnp.where(y > 0, x + y, x - y)
    p.def_impl(impl)
    p.def_abstract_eval(lambda x, y: jax.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, mlir.lower_fun(impl, multiple_results=False))
    return p


SIGNED_STEP = _signed_step_primitive()


@pytest.fixture
def signed_step_rule():
    @register(SIGNED_STEP)
    def signed_step(x, y):
        assert isinstance(y, Constant)
        return hg.add(x, y) if float(y.data) > 0 else hg.subtract(x, y)

    yield
    registry.RULES.pop(SIGNED_STEP.name, None)


def test_a_constant_operand_copies_only_for_its_value(rng, monkeypatch, signed_step_rule):
    f = lambda x: [SIGNED_STEP.bind(x, np.float32(c)) for c in (1.0, -1.0, 1.0, -2.0, -1.0)]
    x = rng.normal(size=(3,)).astype(np.float32)
    copies = _count_copies(monkeypatch)
    g = _assert_same_import(monkeypatch, f, x)
    assert [type(n.op).__name__ for n in g.nodes] == ["Add", "Subtract", "Add", "Subtract", "Subtract"]
    assert len(copies) == 2  # the second 1.0 and the second -1.0
    for got, c in zip(hg.evaluate(g, x), (1.0, -1.0, 1.0, -2.0, -1.0)):
        assert_same(got, x + np.float32(c) if c > 0 else x - np.float32(c))


@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool", "float64", "complex64"])
def test_dtypes_and_shapes(dtype, rng, monkeypatch):
    # 0-d and empty values; dtypes where NumPy's and jax's meanings differ (div, rem)
    def f(a, b, e):
        out = [a, b, e]
        for _ in range(3):
            if dtype == "bool":
                out = [jnp.logical_xor(v, True) for v in out]
            elif dtype in ("int32", "uint8"):
                out = [v // 3 + v % 2 for v in out]
            else:
                out = [jnp.exp(v) - v * 2 for v in out]
        return out

    with jax.enable_x64(dtype == "float64"):
        vals = [rng.normal(size=s) * 5 for s in ((), (3, 4), (0, 2))]
        args = [np.asarray(v.astype(dtype) if dtype != "bool" else v > 0) for v in vals]
        g = _assert_same_import(monkeypatch, f, *args)
        want = jax.jit(f)(*args)
    for got, w in zip(hg.evaluate(g, *args), want):
        assert_same(got, np.asarray(w))


def test_broadcasting_and_negative_axes(rng, monkeypatch):
    def f(x, row, col):
        v = x
        for _ in range(3):
            v = v * row + col
            v = v - v.sum(axis=-1, keepdims=True) + jnp.flip(v, axis=-2)
        return v

    args = [rng.normal(size=s).astype(np.float32) for s in ((3, 4), (4,), (3, 1))]
    g = _assert_same_import(monkeypatch, f, *args)
    assert_same(hg.evaluate(g, *args), np.asarray(jax.jit(f)(*args)))


def test_calls_fallbacks_and_dropped_equations_count_inside(rng, monkeypatch):
    # an inlined call is one equation that applies others: it is never copied, so the
    # report counts its inside each time; the same for fallbacks and dropped prints
    @jax.jit
    def inner(v):
        return jnp.sin(v) * 2.0

    @jax.jit
    def printing(v):
        jax.debug.print("v {}", v)
        return v + 1.0

    def f(x):
        for _ in range(3):
            x = inner(x)
            x = jnp.tanh(lax.zeta(x + 3.5, x + 4.0))  # (x is sin(.) * 2: s > 1, q > 0)
            x = printing(x)
        return x

    x = rng.normal(size=(4,)).astype(np.float32)
    g = _assert_same_import(monkeypatch, f, x)
    assert g.report.fallbacks["zeta"] == 3
    assert g.report.by_rule["sin"] == 3 and g.report.by_rule["mul"] == 3
    assert g.report.by_rule.get("jit", 0) + g.report.by_rule.get("pjit", 0) == 6
    assert g.report.dropped["debug_print"] + g.report.dropped.get("debug_callback", 0) == 3
    assert_same(hg.evaluate(g, x), np.asarray(jax.jit(f)(x)))


def test_control_flow_bodies_are_never_shared(rng, monkeypatch):
    # a node with inner graphs (cond, while, scan) is built by its rule every time
    def f(x, p):
        for _ in range(2):
            x = lax.cond(p, jnp.sin, jnp.cos, x)
            x = lax.fori_loop(0, 3, lambda i, v: v * 0.5 + 1.0, x)
        return x

    x = rng.normal(size=(3,)).astype(np.float32)
    g = _assert_same_import(monkeypatch, f, x, np.bool_(True))
    bodies = [id(n.op) for n in g.nodes if n.op.inner_graphs]
    assert len(bodies) == 4 and len(set(bodies)) == 4
    for p in (True, False):
        assert_same(hg.evaluate(g, x, np.bool_(p)), np.asarray(jax.jit(f)(x, p)))


def test_eval_jaxpr_outside_an_import_builds_by_the_rules(rng, monkeypatch):
    copies = _count_copies(monkeypatch)
    closed = jax.make_jaxpr(lambda x: jnp.sin(jnp.sin(jnp.sin(x))))(np.float32(1))
    x = hg.scalar("x", "float32")
    (out,) = interpreter.eval_jaxpr(closed.jaxpr, closed.consts, x)
    assert not copies
    assert_same(hg.evaluate(hg.Graph([x], out), np.float32(0.5)), np.sin(np.sin(np.sin(np.float32(0.5)))))


def test_compiled_results_match_jax(rng):
    # a longer chain, compiled (templates on): jax's results
    def f(x):
        v = x
        for i in range(60):
            v = jnp.sin(v) + x if i % 2 else jnp.cos(v) * 0.5
        return v

    x = rng.normal(size=(7,)).astype(np.float32)
    compare_with_jax(f, x)
