"""``from_jax``: a jax function as an hlograph Graph, through a jaxpr interpreter.

jax traces the function to a closed jaxpr (``jax.make_jaxpr``); an interpreter
then walks its equations in order, as the evaluator of jax's "Writing custom
Jaxpr interpreters" tutorial does, with an environment from jaxpr variables to
hlograph Variables instead of arrays: the inputs are new graph inputs, literals
and constants become Constants, and each equation's primitive is looked up in
the rule registry (``registry.py``), whose rule builds the equation's results
from hlograph's builders. A primitive without a rule (or a rule that declines
the equation's params) becomes a ``JaxPrimitiveOp`` node computed by jax
(``fallback.py``), so a function jax can trace always imports.

Types follow jax: every result is checked against the equation's abstract
value (its shape must be the aval's; its dtype is cast to the aval's where
NumPy's promotion gave another), so an imported float32 function stays float32.
64-bit types are enabled for the trace only when the argument specs hold
64-bit arrays (or jax's x64 flag is on).

Long functions repeat equations (a chain of layers, an unrolled loop): an
equation the import has met before (the same primitive, params, operand types
and small constants' values) whose rule built one node on its operands is built
again as a copy of that node (``_Templates``), without running the rule and the
builders' checks; the graph is the one the rules give.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import jax
import numpy as np

from ...compiler.collector import paused as collector_paused
from ...frontend.graph import Apply, Constant, Graph, Variable
from ...frontend.ops.elemwise import astype
from .avals import Literal, DropVar, as_numpy, is_64bit, key_impl, tensor_type
from .fallback import JaxPrimitiveOp
from .registry import Unsupported, lookup

__all__ = ["from_jax", "explain_import", "eval_jaxpr", "fallback", "ImportedGraph", "ImportReport",
           "JaxTraceError", "RuleError", "DROPPED"]

#: primitives without results whose effects an hlograph graph does not keep
#: (printing from inside the computation); the report lists them
DROPPED = {"debug_print": "prints from inside the computation",
           "debug_callback": "calls Python from inside the computation"}


class JaxTraceError(TypeError):
    """jax could not trace the function for the given argument specs (value-dependent
    Python control flow, a shape error, ...); jax's error is the ``__cause__``."""


#: jax's errors for Python code that needs the values of traced arrays
_VALUE_DEPENDENT = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                    jax.errors.TracerBoolConversionError, jax.errors.TracerIntegerConversionError,
                    jax.errors.NonConcreteBooleanIndexError)


class RuleError(RuntimeError):
    """An import rule gave a result that disagrees with jax's abstract value."""


@dataclass
class ImportReport:
    """How each primitive of an imported function was translated."""

    function: str
    #: primitive name -> equations translated by its rule
    by_rule: Counter = field(default_factory=Counter)
    #: primitive name -> equations computed by jax through the fallback
    fallbacks: Counter = field(default_factory=Counter)
    #: primitive name -> why (no rule, or what the rule declined)
    reasons: dict[str, list[str]] = field(default_factory=dict)
    #: primitive name -> equations left out (no results; DROPPED says why)
    dropped: Counter = field(default_factory=Counter)

    @property
    def n_equations(self) -> int:
        return sum(self.by_rule.values()) + sum(self.fallbacks.values()) + sum(self.dropped.values())

    def __str__(self) -> str:
        lines = [f"from_jax({self.function}): {self.n_equations} equations"]
        if self.by_rule:
            lines.append("  by rule: " + ", ".join(f"{k} x{n}" for k, n in sorted(self.by_rule.items())))
        if self.fallbacks:
            lines.append("  computed by jax (fallback):")
            for k, n in sorted(self.fallbacks.items()):
                lines.append(f"    {k} x{n}: {'; '.join(dict.fromkeys(self.reasons.get(k, [])))}")
        else:
            lines.append("  computed by jax (fallback): none")
        for k, n in sorted(self.dropped.items()):
            lines.append(f"  dropped: {k} x{n} ({DROPPED[k]})")
        return "\n".join(lines)

    __repr__ = __str__


_REPORT: contextvars.ContextVar[ImportReport | None] = contextvars.ContextVar("hlograph_jax_import",
                                                                              default=None)


class _Templates:
    """The nodes one import has built for its equations, to build repeated ones again.

    A rule is a function of its operands' types (and, for constants, values) and
    of the equation's params: when it gave one new node on exactly its operands,
    an equation with the same primitive, params, operand types and constant
    values and the same result types gets a node of the same Op, output types
    and source line, built without running the rule and ``make_node`` again
    (``Apply.trusted``). ``events`` counts the equations and fallbacks applied,
    so that a rule that applied others (an inlined call) is not taken as one
    node: the import report keeps counting what was inside. (Rules build new
    nodes: none hands back a node built before on the same operands.)
    """

    __slots__ = ("table", "events")

    def __init__(self):
        #: key (see ``_template_key``) -> (op, output types, trace), or None: build it by its rule
        self.table: dict[tuple, tuple | None] = {}
        self.events = 0


_TEMPLATES: contextvars.ContextVar[_Templates | None] = contextvars.ContextVar(
    "hlograph_jax_import_templates", default=None)

#: constant operands up to this many elements are part of a template's key (by value)
_KEYED_CONSTANT_SIZE = 64


@contextlib.contextmanager
def _importing(report: ImportReport) -> Iterator[ImportReport]:
    token = _REPORT.set(report)
    templates = _TEMPLATES.set(_Templates())
    try:
        yield report
    finally:
        _TEMPLATES.reset(templates)
        _REPORT.reset(token)


def _report() -> ImportReport:
    report = _REPORT.get()
    return ImportReport("<jaxpr>") if report is None else report  # (eval_jaxpr called directly)


# --- the interpreter -----------------------------------------------------------------
def _constant(value: Any, aval: Any) -> Variable:
    if isinstance(value, Variable):
        return value
    t = tensor_type(aval)
    return Constant(np.asarray(as_numpy(value), dtype=t.dtype).reshape(t.shape))


def eval_jaxpr(jaxpr: Any, consts: Sequence[Any], *args: Variable) -> list[Variable]:
    """The results of ``jaxpr`` (an open jaxpr: ``closed.jaxpr``) on the graph values
    ``args``, its constvars bound to ``consts``, built as nodes of an hlograph graph."""
    env: dict[Any, Variable] = {}

    def read(atom: Any) -> Variable:
        if isinstance(atom, Literal):
            return _constant(atom.val, atom.aval)
        return env[atom]

    if len(args) != len(jaxpr.invars):
        raise TypeError(f"eval_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
    for var, c in zip(jaxpr.constvars, consts):
        if not isinstance(var, DropVar):
            env[var] = _constant(c, var.aval)
    for var, a in zip(jaxpr.invars, args):
        if not isinstance(var, DropVar):
            env[var] = a
    # the import's report and templates, read once (rules that import again restore them)
    report, templates = _REPORT.get(), _TEMPLATES.get()
    table = templates.table if templates is not None and report is not None else None
    trusted = Apply.trusted
    for eqn in jaxpr.eqns:
        invars = eqn.invars
        try:
            # (one or two operands, the common cases, without a comprehension's frame)
            n = len(invars)
            inputs = [env[invars[0]]] if n == 1 else [env[invars[0]], env[invars[1]]] if n == 2 \
                else [env[v] for v in invars]
        except (KeyError, TypeError):  # a literal (jax's Literals do not hash)
            inputs = [read(v) for v in invars]
        outvars = eqn.outvars
        if table is not None and outvars:
            # ``_apply_equation``'s first step, inline: an equation met before
            name = eqn.primitive.name
            key = _template_key(name, eqn.params, inputs, outvars)
            found = None
            if key is not None:
                try:
                    found = table.get(key)
                except TypeError:  # an unhashable param
                    key = None
            if found is not None:
                templates.events += 1
                report.by_rule[name] += 1
                outs = trusted(found[0], inputs, found[1], found[2]).outputs
            else:
                outs = _apply_equation(eqn, inputs, report, templates, key)
        else:
            outs = _apply_equation(eqn, inputs, report, templates)
        for var, value in zip(outvars, outs):
            if not isinstance(var, DropVar):
                env[var] = value
    return [read(v) for v in jaxpr.outvars]


def _conform(value: Any, aval: Any, name: str) -> Variable:
    """``value`` as a Variable of exactly ``aval``'s type (its dtype cast; its shape checked)."""
    want = tensor_type(aval)
    v = value if isinstance(value, Variable) else Constant(np.asarray(value, dtype=want.dtype))
    if tuple(v.shape) != want.shape:
        raise RuleError(f"the rule for jax primitive {name!r} gave {v.type}; jax's result is {want}")
    return v if v.dtype == want.dtype else astype(v, want.dtype)


def fallback(primitive: Any, params: dict[str, Any], inputs: Sequence[Variable],
             out_avals: Sequence[Any], reason: str, in_avals: Sequence[Any] | None = None) -> list[Variable]:
    """A ``JaxPrimitiveOp`` node computing ``primitive`` on ``inputs`` with jax, recorded in
    the import report with ``reason`` (avals: jax avals or TensorTypes; ``in_avals``
    defaults to the inputs' types)."""
    report = _report()
    templates = _TEMPLATES.get()
    if templates is not None:
        templates.events += 1
    report.fallbacks[primitive.name] += 1
    report.reasons.setdefault(primitive.name, []).append(reason)
    in_avals = [v.type for v in inputs] if in_avals is None else in_avals
    op = JaxPrimitiveOp(primitive, params, in_avals, out_avals)
    return list(op.make_node(*inputs).outputs)


def _template_key(name: str, params: dict[str, Any], inputs: list[Variable], outvars: Any) -> tuple | None:
    """What decides a rule's result for an equation (see ``_Templates``), or None for an
    operand that cannot be part of one (a large constant). The key may be unhashable
    (a param such as a list): the caller then builds the equation by its rule."""
    key: list[Any] = [name]
    for k, p in params.items():
        key.append((k, p.__class__, p))  # (1, 1.0 and True are equal but not the same param)
    for v in inputs:
        if v.__class__ is Variable:
            key.append(v.type)
        elif isinstance(v, Constant) and v.data.size <= _KEYED_CONSTANT_SIZE:
            key.append((v.type, v.data.tobytes()))
        else:
            return None
    for var in outvars:
        key.append(tensor_type(var.aval))
    return tuple(key)


def _as_template(outs: list[Variable], inputs: list[Variable]) -> tuple | None:
    """(op, output types, trace) when ``outs`` are all the outputs of one new node on
    exactly ``inputs`` (no names, no inner graphs), else None."""
    node = outs[0].owner
    if node is None or len(node.outputs) != len(outs) or len(node.inputs) != len(inputs) \
            or any(a is not b for a, b in zip(node.outputs, outs)) \
            or any(a is not b for a, b in zip(node.inputs, inputs)) \
            or any(o.__class__ is not Variable or o.name is not None for o in outs) \
            or node.op.inner_graphs:
        return None
    return node.op, [o.type for o in outs], node.trace


def apply_equation(eqn: Any, inputs: list[Variable]) -> list[Variable]:
    """The results of one jaxpr equation: its rule's, else the fallback's."""
    return _apply_equation(eqn, inputs, _REPORT.get(), _TEMPLATES.get())


#: ``_apply_equation``'s ``key`` when the caller has not looked the equation up
_NOT_LOOKED_UP: Any = object()


def _apply_equation(eqn: Any, inputs: list[Variable], report: ImportReport | None,
                    templates: _Templates | None, key: Any = _NOT_LOOKED_UP) -> list[Variable]:
    """``apply_equation`` with the import's report and templates given (None: outside
    ``from_jax``); ``key``: the template key the caller found no template for (None:
    the equation has none)."""
    name = eqn.primitive.name
    if report is None:
        report = ImportReport("<jaxpr>")  # (eval_jaxpr called directly)
    if templates is not None:
        templates.events += 1
        events = templates.events
    if name in DROPPED and not eqn.outvars:
        report.dropped[name] += 1
        return []
    if key is not _NOT_LOOKED_UP:
        pass  # (looked up by the caller: no template)
    elif templates is None or not eqn.outvars:
        key = None
    else:
        key = _template_key(name, eqn.params, inputs, eqn.outvars)
        if key is not None:
            try:
                found = templates.table.get(key)
            except TypeError:  # an unhashable param
                found = key = None
            if found is not None:
                op, out_types, trace = found
                report.by_rule[name] += 1
                return Apply.trusted(op, inputs, out_types, trace).outputs
    rule = lookup(name)
    if rule is None:
        reason = "no rule"
    else:
        try:
            # (rules of key primitives ask for their operands' PRNG implementations)
            extra = {"key_impls": [key_impl(v.aval) for v in eqn.invars]} if getattr(rule, "key_impls", 0) else {}
            outs = rule(*inputs, **eqn.params, **extra)
        except Unsupported as e:
            reason = f"the rule does not handle {e}"
        except (TypeError, ValueError, IndexError, NotImplementedError) as e:
            # hlograph's builders refused (a dtype or a case they lack): jax computes it
            reason = f"the rule failed ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"
        else:
            outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
            if len(outs) != len(eqn.outvars):
                raise RuleError(f"the rule for jax primitive {name!r} gave {len(outs)} results; "
                                f"jax's equation has {len(eqn.outvars)}")
            report.by_rule[name] += 1
            results = [_conform(o, v.aval, name) for o, v in zip(outs, eqn.outvars)]
            if key is not None and key not in templates.table:
                # a rule that applied other equations (or fell back) is built by its rule
                same = templates.events == events and all(a is b for a, b in zip(results, outs))
                templates.table[key] = _as_template(results, inputs) if same else None
            return results
    return fallback(eqn.primitive, eqn.params, inputs, [v.aval for v in eqn.outvars], reason,
                    in_avals=[v.aval for v in eqn.invars])


# --- from_jax --------------------------------------------------------------------------
class ImportedGraph(Graph):
    """The Graph of an imported jax function: flat inputs and outputs in pytree order,
    with ``in_tree`` / ``out_tree`` (jax treedefs) to go back to the function's
    structure, the ``report`` of the translation, the ``jaxpr`` it came from, and
    whether 64-bit types were enabled (``x64``)."""

    def __init__(self, inputs, outputs, *, in_tree, out_tree, report: ImportReport, jaxpr: Any,
                 x64: bool):
        super().__init__(inputs, outputs)
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.report = report
        self.jaxpr = jaxpr
        self.x64 = x64
        #: per input and output, the PRNG implementation of key-typed values (None: not a key)
        self.input_keys = tuple(key_impl(a) for a in jaxpr.in_avals)
        self.output_keys = tuple(key_impl(a) for a in jaxpr.out_avals)

    def unflatten(self, outputs: Any) -> Any:
        """Results of the compiled graph in the function's output structure."""
        flat = [outputs] if self.single_output else list(outputs)
        return jax.tree_util.tree_unflatten(self.out_tree, flat)


def _function_name(f: Callable) -> str:
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or type(f).__name__


def trace(f: Callable, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[Any, Any, bool]:
    """(closed jaxpr, output shapes pytree, x64) of ``f`` on the specs ``args``/``kwargs``."""
    leaves = jax.tree_util.tree_leaves((args, kwargs))
    x64 = bool(jax.config.jax_enable_x64) or any(is_64bit(getattr(leaf, "dtype", None)) for leaf in leaves)
    with jax.enable_x64(x64):
        try:
            closed, out_shape = jax.make_jaxpr(f, return_shape=True)(*args, **kwargs)
        except Exception as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            hint = ""
            if isinstance(e, _VALUE_DEPENDENT):
                hint = ("\n(the function's Python code depends on the values of traced arrays: "
                        "hlograph imports what jax.make_jaxpr traces, so use jax.lax.cond / "
                        "while_loop / fori_loop / scan or jnp.where for it, or pass such values "
                        "as Python constants through functools.partial)")
            raise JaxTraceError(
                f"from_jax: jax cannot trace {_function_name(f)} for these argument specs: "
                f"{type(e).__name__}: {first}{hint}") from e
    return closed, out_shape, x64


def _input_names(f: Callable, args: Sequence[Any], kwargs: dict[str, Any]) -> list[str]:
    """A name per flat input: the parameter's name and the path inside its pytree."""
    try:
        params = [p.name for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = []
    for path, _ in jax.tree_util.tree_flatten_with_path((tuple(args), dict(kwargs)))[0]:
        where, top, rest = path[0].idx, path[1], path[2:]
        if where == 0:
            base = params[top.idx] if top.idx < len(params) else f"arg{top.idx}"
        else:
            base = str(top.key)
        names.append(base + jax.tree_util.keystr(rest))
    return names


def from_jax(f: Callable, *args: Any, **kwargs: Any) -> ImportedGraph:
    """The hlograph Graph of the jax function ``f`` for the argument specs ``args`` and
    ``kwargs`` (what ``jax.make_jaxpr(f)(*args, **kwargs)`` takes: arrays or
    ``jax.ShapeDtypeStruct``s, in any pytrees).

    The graph's inputs are the flattened leaves of ``(args, kwargs)``, named after
    ``f``'s parameters and their pytree paths; its outputs are ``f``'s flattened
    results (one output for a single array, so ``hg.compile(g)(...)`` returns one
    array). ``g.in_tree`` / ``g.out_tree`` are the pytree structures,
    ``g.unflatten(results)`` rebuilds ``f``'s output structure, ``g.report`` tells
    which primitives went through the fallback. PRNG keys are imported as their key
    data (``jax.random.key_data``).

    Raises:
        JaxTraceError: jax cannot trace ``f`` (jax's error is the ``__cause__``).
        RuleError: a rule gave a result of the wrong shape (a bug of the rule).
    """
    with collector_paused():  # tracing and interpreting allocate as lowering does
        return _from_jax(f, args, kwargs)


def _from_jax(f: Callable, args: tuple, kwargs: dict) -> ImportedGraph:
    closed, out_shape, x64 = trace(f, args, kwargs)
    _, in_tree = jax.tree_util.tree_flatten((tuple(args), dict(kwargs)))
    _, out_tree = jax.tree_util.tree_flatten(out_shape)
    names = _input_names(f, args, kwargs)
    if len(names) != len(closed.in_avals):  # pragma: no cover - make_jaxpr flattens as we do
        names = [f"arg{i}" for i in range(len(closed.in_avals))]
    inputs = [Variable(tensor_type(a), name=n) for a, n in zip(closed.in_avals, names)]
    report = ImportReport(_function_name(f))
    with _importing(report):
        outs = eval_jaxpr(closed.jaxpr, closed.consts, *inputs)
    if not outs:
        raise ValueError(f"from_jax: {report.function} returns no arrays; a graph needs an output")
    single = out_tree.num_leaves == 1 and jax.tree_util.treedef_is_leaf(out_tree)
    return ImportedGraph(inputs, outs[0] if single else outs, in_tree=in_tree, out_tree=out_tree,
                         report=report, jaxpr=closed, x64=x64)


def explain_import(f: Callable, *args: Any, **kwargs: Any) -> ImportReport:
    """The import report of ``from_jax(f, *args, **kwargs)``: which primitives were
    translated by rules, which are computed by jax through the fallback and why,
    which were dropped. ``print`` it."""
    return from_jax(f, *args, **kwargs).report
