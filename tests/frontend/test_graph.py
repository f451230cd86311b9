"""The graph IR: types, Variables, Ops, Graph validation, cloning and the text dump."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.graph import Apply, GraphError, Op
from hlograph.frontend.types import DTYPES, TensorType


def test_tensor_type_normalizes_and_prints():
    t = TensorType("float32", (3, None))
    assert t.dtype == np.float32 and t.shape == (3, None) and t.ndim == 2
    assert str(t) == "float32[3,?]" and not t.is_static and t.size is None
    assert TensorType(np.int8, [2, 2]).size == 4
    assert str(TensorType("bfloat16", ())) == "bfloat16[]"
    assert TensorType("float32", (3,)) == TensorType(np.float32, [3])
    assert {TensorType("float32", (3,)), TensorType("float32", (3,))} == {TensorType("float32", (3,))}


@pytest.mark.parametrize("name", list(DTYPES))
def test_every_dtype_is_a_tensor_type(name):
    assert TensorType(name, (1,)).dtype == DTYPES[name]


def test_tensor_type_errors():
    with pytest.raises(TypeError, match="unsupported dtype"):
        TensorType("float128" if hasattr(np, "float128") else "object", (1,))
    with pytest.raises(TypeError, match="not a dtype"):
        TensorType("nonsense", ())
    with pytest.raises(ValueError, match="non-negative int or None"):
        TensorType("float32", (-1,))
    with pytest.raises(ValueError, match="non-negative int or None"):
        TensorType("float32", (2.5,))


class Twice(Op):
    __props__ = ("factor",)

    def __init__(self, factor=2):
        self.factor = factor

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0] * self.factor]


def test_op_props_give_equality_hash_and_str():
    assert Twice(2) == Twice(2) and hash(Twice(2)) == hash(Twice(2))
    assert Twice(2) != Twice(3)
    assert str(Twice(3)) == "Twice{factor=3}"
    assert str(hg.frontend.ops.elemwise.Add()) == "Add"


def test_graph_validation_errors():
    x = hg.tensor("x", (3,))
    y = hg.tensor("y", (3,))
    z = x + y
    with pytest.raises(GraphError, match="Variable y: float32\\[3\\]> is used by Add but is not a graph input"):
        hg.Graph([x], z)
    with pytest.raises(GraphError, match="listed twice"):
        hg.Graph([x, x], x + 1)
    with pytest.raises(GraphError, match="is the output of Add"):
        hg.Graph([z], z * 2)
    with pytest.raises(GraphError, match="is a Constant"):
        hg.Graph([hg.constant(1.0)], x)
    with pytest.raises(GraphError, match="not computed from the inputs"):
        hg.Graph([x], y)
    with pytest.raises(GraphError, match="at least one output"):
        hg.Graph([x], [])
    with pytest.raises(GraphError, match="not a Variable"):
        hg.Graph([x], [np.ones(3)])


def test_graph_detects_cycles():
    x = hg.tensor("x", (3,))
    a = hg.exp(x)
    b = hg.log(a)
    a.owner.inputs[0] = b  # only reachable by mutating the IR
    with pytest.raises(GraphError, match="cycle"):
        hg.Graph([x], b)


def test_toposort_is_topological_and_shares_nodes():
    x = hg.tensor("x", (3,))
    a = hg.exp(x)
    out = [a * a + hg.sin(a), hg.cos(a)]
    g = hg.Graph([x], out)
    nodes = g.toposort()
    pos = {id(n): i for i, n in enumerate(nodes)}
    for n in nodes:
        for v in n.inputs:
            if v.owner is not None:
                assert pos[id(v.owner)] < pos[id(n)]
    assert sum(isinstance(n.op, hg.frontend.ops.elemwise.Exp) for n in nodes) == 1


def test_toposort_is_the_depth_first_postorder_of_the_outputs():
    # inputs visited in order, each node once, a node right after its last input;
    # a chain as deep as the graphs imported from jax is no recursion
    def postorder(outputs):
        order, done = [], set()

        def visit(node):
            if id(node) in done:
                return
            done.add(id(node))
            for v in node.inputs:
                if v.owner is not None:
                    visit(v.owner)
            order.append(node)

        for v in outputs:
            if v.owner is not None:
                visit(v.owner)
        return order

    x, y = hg.tensor("x", (3,)), hg.tensor("y", (3,))
    a = hg.exp(x)
    b = a * y + hg.sin(a)
    c = hg.where(b > a, hg.cos(y), b - x)
    outputs = [c, a, hg.tanh(b), x]
    assert [id(n) for n in hg.Graph([x, y], outputs).nodes] == [id(n) for n in postorder(outputs)]
    v = x
    for i in range(5000):
        v = hg.sin(v) if i % 2 else v + y
    nodes = hg.Graph([x, y], [v, a]).nodes
    assert len(nodes) == 5001 and nodes[0].inputs[0] is x and nodes[-1] is a.owner
    assert nodes[-2] is v.owner


def test_clone_is_independent_and_retypes():
    x = hg.tensor("x", (None, 4), "float32")
    g = hg.Graph([x], hg.exp(x) + 1)
    c = g.clone()
    assert c.inputs[0] is not x and c.outputs[0] is not g.outputs[0]
    assert str(c) == str(g)
    s = g.clone([TensorType("float32", (5, 4))])
    assert s.outputs[0].type == TensorType("float32", (5, 4))
    assert g.outputs[0].type == TensorType("float32", (None, 4))
    with pytest.raises(ValueError, match="Add: shapes .* do not broadcast"):
        hg.Graph([x], x + np.ones(3, np.float32))
    with pytest.raises(ValueError, match="expected 1 input types"):
        g.clone([])


def test_text_dump_names_inputs_ops_and_types():
    x = hg.tensor("x", (2, 3), "float32")
    g = hg.Graph([x], hg.exp(x) * 2.0)
    text = str(g)
    assert text.splitlines()[0] == "Graph(x: float32[2,3]) {"
    assert "Exp(x) : float32[2,3]" in text
    assert "Multiply(%0, Constant 2.: float32[]) : float32[2,3]" in text
    assert text.splitlines()[-2] == "  return %1"


def test_variable_has_no_truth_value_and_is_not_iterable():
    x = hg.tensor("x", (3,))
    with pytest.raises(TypeError, match="no truth value"):
        if x:
            pass
    rows = list(x)  # a static leading dimension iterates, as NumPy's arrays
    assert len(rows) == 3 and all(r.type == hg.TensorType("float32", ()) for r in rows)
    with pytest.raises(TypeError, match="not iterable"):
        list(hg.tensor("y", (None, 2)))
    with pytest.raises(TypeError, match="not iterable"):
        list(hg.tensor("s", ()))
    assert len(x) == 3


def test_evaluate_runs_perform_and_checks_arguments():
    x = hg.tensor("x", (3,), "float32")
    g = hg.Graph([x], Twice(3)(x))
    np.testing.assert_array_equal(hg.evaluate(g, np.ones(3, np.float32)), np.full(3, 3, np.float32))
    with pytest.raises(TypeError, match="expected 1 arguments"):
        hg.evaluate(g)
    with pytest.raises(TypeError, match="argument 0 \\('x'\\): expected dtype float32"):
        hg.evaluate(g, np.ones(3, np.float64))
    with pytest.raises(ValueError, match="argument 0 \\('x'\\): expected shape float32\\[3\\]"):
        hg.evaluate(g, np.ones(4, np.float32))


def test_evaluate_checks_perform_results():
    class Bad(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type])

        def perform(self, node, inputs):
            return [inputs[0].astype(np.float64)]

    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(RuntimeError, match="Bad.perform returned float64"):
        hg.evaluate(hg.Graph([x], Bad()(x)), np.ones(3, np.float32))


def test_node_records_the_user_source_line():
    x = hg.tensor("x", (3,))
    y = hg.exp(x)  # this line
    fname, line = y.owner.trace
    assert fname == __file__
    assert "# this line" in open(fname).read().splitlines()[line - 1]


def test_nodes_of_known_input_types_reuse_their_output_types():
    """Ops ``typed_by_inputs`` build a node for inputs of types seen before from the
    output types found then: the same types, a new node each time, the user's line."""
    x = hg.tensor("x", (3, None), "float32")
    first = hg.sin(x)
    again = hg.sin(x)  # the second line
    assert again.type == first.type and again.owner is not first.owner
    assert again.owner.inputs == [x] and again.owner.op == first.owner.op
    fname, line = again.owner.trace
    assert fname == __file__ and "# the second line" in open(fname).read().splitlines()[line - 1]
    m = hg.tensor("m", (2, 3), "float64")
    for _ in range(2):
        assert (m @ m.T).type == TensorType("float64", (2, 2))
        assert hg.astype(m, "int8").type == TensorType("int8", (2, 3))
    # the checks still run for new types
    with pytest.raises(ValueError, match="do not broadcast"):
        hg.add(hg.tensor("a", (2,)), hg.tensor("b", (3,)))
    with pytest.raises(ValueError, match="size 3 .* size 2"):
        m @ m


def test_an_op_whose_node_changes_its_inputs_is_not_reused():
    class Doubling(Op):
        typed_by_inputs = True

        def make_node(self, x):
            x = hg.add(x, x)  # not the input it was given: make_node runs each time
            return Apply(self, [x], [x.type])

    x = hg.tensor("x", (2,), "float32")
    a, b = Doubling()(x), Doubling()(x)
    assert a.owner.inputs[0] is not x and b.owner.inputs[0] is not a.owner.inputs[0]
    assert b.owner.inputs[0].owner.inputs == [x, x]


def test_python_floats_become_one_constant_per_value_and_dtype():
    x = hg.tensor("x", (3,), "float32")
    c1, c2 = (x * 2.5).owner.inputs[1], (2.5 + x).owner.inputs[0]
    assert c1 is c2 and c1.dtype == np.float32 and float(c1.data) == 2.5
    assert (hg.tensor("y", (3,), "float64") * 2.5).owner.inputs[1].dtype == np.float64
    zero, negative_zero = (x + 0.0).owner.inputs[1], (x + -0.0).owner.inputs[1]
    assert zero is not negative_zero and np.signbit(negative_zero.data) and not np.signbit(zero.data)
    nan = (x * float("nan")).owner.inputs[1]
    assert np.isnan(nan.data)
    with np.errstate(over="ignore"):  # 1e300 overflows float32, as in NumPy
        outs = [x * 2.5, x + -0.0, x - 1e300]
    got = hg.compile(hg.Graph([x], outs))(np.array([1, -0.0, 3], np.float32))
    np.testing.assert_array_equal(got[0], np.float32([2.5, -0.0, 7.5]))
    assert np.signbit(got[1][1])
    np.testing.assert_array_equal(got[2], np.full(3, -np.inf, np.float32))  # as np.float32(x) - 1e300
