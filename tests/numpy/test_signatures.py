"""The arguments NumPy has: every public hlograph function with a NumPy namesake
(numpy.*, numpy.linalg.*, numpy.fft.*) takes each of its NumPy parameters, unless
the parameter cannot apply to a graph (``protocols.GRAPH_MEANINGLESS``, with its
reason) or is a documented gap (``protocols.KNOWN_GAPS``); both tables are shown
in docs/numpy_compatibility.md. ``hg.Variable``'s methods have ``numpy.ndarray``'s
signatures: the same parameters, in the same order, of the same kinds and defaults."""

import inspect
import pathlib
import re

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import protocols

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABLE = protocols.numpy_functions()
CASES = [(module, name) for module, names in TABLE.items() for name in sorted(names)]


def _missing(npf, ours) -> list[str]:
    """NumPy's parameters of ``npf`` that ``ours`` does not take (ufunc keywords are
    checked against ``UFUNC_KEYWORDS``: NumPy's ufunc protocol takes them, and passes
    the generalized ufuncs' ``axes``/``axis``/``keepdims`` to builders taking them)."""
    nps = inspect.signature(npf).parameters
    hs = inspect.signature(ours).parameters
    if any(p.kind is p.VAR_KEYWORD for p in hs.values()):
        return []
    positional = [p for p in hs.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    var_positional = any(p.kind is p.VAR_POSITIONAL for p in hs.values())
    names = {p.name for p in hs.values() if p.kind is not p.POSITIONAL_ONLY}
    missing = []
    for i, p in enumerate(nps.values()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if isinstance(npf, np.ufunc) and p.kind is not p.POSITIONAL_ONLY:
            if p.name not in protocols.UFUNC_KEYWORDS and p.name not in names:
                missing.append(p.name)
            continue
        if p.kind is p.POSITIONAL_ONLY or (p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD):
            # a required (data) argument: hlograph may name it differently (x for a), it
            # takes it in the same position (the protocols pass NumPy's keyword by position)
            if p.name in names or i < len(positional) or var_positional:
                continue
            missing.append(p.name)
            continue
        if p.name not in names and p.name not in protocols.GRAPH_MEANINGLESS:
            missing.append(p.name)
    return missing


def test_the_table_covers_the_namespaces():
    assert len(CASES) > 250
    for module, name in [("numpy", "sum"), ("numpy", "where"), ("numpy", "sin"), ("numpy", "shape"),
                         ("numpy", "ndim"), ("numpy.linalg", "solve"), ("numpy.linalg", "norm")]:
        assert name in TABLE[module], (module, name)
    # numpy.fft is covered when hlograph has the namespace (it is looked up lazily)
    fft = getattr(hg, "fft", None)
    if fft is not None and "fft" in getattr(fft, "__all__", ()):
        assert "fft" in TABLE["numpy.fft"]


@pytest.mark.parametrize("module,name", CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_numpy_parameters_are_taken(module, name):
    npf, ours = TABLE[module][name]
    try:
        inspect.signature(npf)
    except (TypeError, ValueError):
        pytest.fail(f"{module}.{name} has no signature to compare")
    missing = set(_missing(npf, ours))
    gaps = protocols.KNOWN_GAPS.get((module, name), {})
    undocumented = sorted(missing - set(gaps))
    assert not undocumented, (
        f"{module}.{name}: hlograph's {ours.__module__}.{ours.__name__} does not take NumPy's "
        f"parameter(s) {undocumented}; add them, or list them in protocols.GRAPH_MEANINGLESS "
        f"(cannot apply to a graph) or KNOWN_GAPS, with the reason")
    closed = sorted(set(gaps) - missing)
    assert not closed, f"{module}.{name}: {closed} are taken now; remove them from protocols.KNOWN_GAPS"


def test_known_gaps_name_covered_functions():
    for module, name in protocols.KNOWN_GAPS:
        assert name in TABLE[module], f"KNOWN_GAPS lists {module}.{name}, which hlograph does not cover"


def test_the_lists_are_documented():
    doc = (ROOT / "docs" / "numpy_compatibility.md").read_text()
    for param, (default, reason) in protocols.GRAPH_MEANINGLESS.items():
        assert re.search(rf"^\| `{param}` \|", doc, flags=re.M), f"{param} is not in the documented list"
        assert reason.split(":")[0].split("(")[0].strip() in doc, f"the reason for {param} is not documented"
    for param in protocols.UFUNC_KEYWORDS:
        assert f"`{param}`" in doc
    for module, name in protocols.KNOWN_GAPS:
        for param in protocols.KNOWN_GAPS[(module, name)]:
            assert re.search(rf"`{re.escape(module)}\.{name}`[^\n]*`{param}`", doc), \
                f"the gap {module}.{name}({param}=) is not documented"


def test_graph_meaningless_arguments_at_their_defaults_pass_and_others_fail():
    x = hg.tensor("x", (3, 4), "float32")
    assert np.sum(x, out=None).type == hg.TensorType("float32", ())
    assert np.reshape(x, (4, 3), order="C").shape == (4, 3)
    assert np.sin(x, casting="same_kind", order="K").shape == (3, 4)
    with pytest.raises(TypeError, match="out=.*immutable"):
        np.sum(x, out=np.zeros(()))
    with pytest.raises(TypeError, match="order='F'.*memory layout"):
        np.reshape(x, (4, 3), order="F")
    with pytest.raises(TypeError, match="out=.*immutable"):
        np.exp(x, out=np.zeros((3, 4), np.float32))
    with pytest.raises(TypeError, match="casting='unsafe'"):
        np.add(x, 1, casting="unsafe")


# --- numpy.ndarray's methods on graph values -------------------------------------------------
_NO_VALUE = object()
METHODS = [n for n in dir(np.ndarray) if not n.startswith("_") and callable(getattr(np.ndarray, n))]


def _ndarray_signature(name: str) -> inspect.Signature:
    """NumPy's signature of ``numpy.ndarray.<name>``; where it ends in ``**kwargs``
    standing for NumPy's documented keywords (``sum``, ``std``, ...), the one its
    docstring's first line declares (``<no value>``: any default)."""
    sig = inspect.signature(getattr(np.ndarray, name))
    if name == "view" or not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return sig
    first = getattr(np.ndarray, name).__doc__.strip().splitlines()[0]
    match = re.fullmatch(rf"a\.{name}\((.*)\)", first)
    assert match, f"numpy.ndarray.{name}'s docstring starts {first!r}"
    params = match.group(1).replace("<no value>", "_NO_VALUE")
    return inspect.signature(eval(f"lambda self, /, {params}: None", {"_NO_VALUE": _NO_VALUE}))


@pytest.mark.parametrize("name", METHODS)
def test_variable_methods_have_numpys_signature(name):
    theirs = _ndarray_signature(name)
    ours = inspect.signature(getattr(hg.Variable, name))
    shape = [(p.name, p.kind) for p in theirs.parameters.values()]
    assert [(p.name, p.kind) for p in ours.parameters.values()] == shape, (
        f"Variable.{name}{ours} does not take NumPy's parameters ndarray.{name}{theirs} "
        f"(the same names, in the same order, keyword-only where NumPy's are)")
    for p, q in zip(theirs.parameters.values(), ours.parameters.values()):
        if p.default is not _NO_VALUE:
            assert q.default == p.default, \
                f"Variable.{name}: {p.name}={q.default!r}, NumPy's is {p.default!r}"
