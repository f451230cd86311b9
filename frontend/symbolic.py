"""Symbolic dimensions: sizes known by name, not by value, for shape-polymorphic lowering.

A ``SymDim`` is an integer polynomial over dimension variables (``b``, ``2*b + 1``,
``b*n``) whose atoms may also be ``floordiv``/``mod``/``max``/``min`` terms that do
not simplify. Every variable stands for a size >= 1 (a call whose size is 0 is
specialized to its concrete shapes instead). Shape inference runs on them as on
ints: ``+ - * // %`` build expressions, ``==`` compares normal forms, and an order
comparison that the bound ``vars >= 1`` decides is answered; anything that needs
a concrete value (``int(d)``, ``range(d)``, an undecidable ``d > 4``) raises
``SymbolicDimError``, which tells the compiler that the graph needs static shapes
at that node.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from typing import Any

__all__ = ["SymDim", "SymbolicDimError", "is_symbolic", "dim_var", "dim_max", "dim_min", "slice_indices",
           "dim_bounds", "parse_constraints"]


class SymbolicDimError(ValueError):
    """An operation needs the concrete value of a symbolic dimension."""


#: per dimension variable: (least value, greatest value or None), where constraints
#: narrow the default (1, None); set with ``dim_bounds`` while a graph is specialized
_BOUNDS: contextvars.ContextVar[dict] = contextvars.ContextVar("hlograph_dim_bounds", default={})


@contextlib.contextmanager
def dim_bounds(bounds: dict[str, tuple[int, int | None]]):
    """Decides comparisons with ``bounds`` (name -> (low, high or None)) as well."""
    token = _BOUNDS.set(bounds)
    try:
        yield
    finally:
        _BOUNDS.reset(token)


_CONSTRAINT = re.compile(r"^\s*([A-Za-z_]\w*|\d+)\s*(>=|<=|>|<|==)\s*([A-Za-z_]\w*|\d+)\s*$")


def parse_constraints(constraints) -> dict[str, tuple[int, int | None]]:
    """``["b >= 16", "b <= 4096", "n == 3"]`` as bounds per variable (see ``dim_bounds``).

    Raises:
        ValueError: a constraint of another form (one name against an int), or
            bounds that leave no size.
    """
    bounds: dict[str, list] = {}
    if isinstance(constraints, str):
        constraints = [constraints]
    for text in constraints:
        m = _CONSTRAINT.match(str(text))
        if m is None or m.group(1).isdigit() == m.group(3).isdigit():
            raise ValueError(f"a dim constraint compares one dim name with an int "
                             f"('b >= 16', 'b <= 1024', 'n == 3'), got {text!r}")
        a, op, b = m.groups()
        if a.isdigit():  # "16 <= b" -> "b >= 16"
            a, b, op = b, a, {">=": "<=", "<=": ">=", ">": "<", "<": ">", "==": "=="}[op]
        k = int(b)
        low, high = bounds.setdefault(a, [1, None])
        if op in (">=", ">", "=="):
            low = max(low, k + (op == ">"))
        if op in ("<=", "<", "=="):
            k2 = k - (op == "<")
            high = k2 if high is None else min(high, k2)
        if high is not None and high < low:
            raise ValueError(f"the dim constraints on '{a}' leave no size ({text!r})")
        bounds[a] = [low, high]
    return {k: (v[0], v[1]) for k, v in bounds.items()}


# A monomial is a sorted tuple of atoms (an atom: a variable name, or a
# ("floordiv"|"mod"|"max"|"min", SymDim|int, SymDim|int) term); an expression
# is a dict monomial -> int coefficient, the empty monomial holding the constant.

def _norm(terms: dict) -> tuple:
    return tuple(sorted(((m, c) for m, c in terms.items() if c), key=repr))


class SymDim:
    """An integer-valued expression over dimension variables (see the module doc)."""

    __slots__ = ("_terms", "_hash")

    def __init__(self, terms: tuple):
        self._terms = terms
        self._hash = hash(terms)

    # construction ---------------------------------------------------------------
    @staticmethod
    def _make(terms: dict) -> "SymDim | int":
        norm = _norm(terms)
        if not norm:
            return 0
        if len(norm) == 1 and norm[0][0] == ():
            return norm[0][1]
        return SymDim(norm)

    def _dict(self) -> dict:
        return dict(self._terms)

    @staticmethod
    def _as_dict(x: Any) -> dict | None:
        if isinstance(x, SymDim):
            return x._dict()
        if isinstance(x, bool):
            return None
        try:
            import operator

            v = operator.index(x)
        except TypeError:
            return None
        return {(): v} if v else {}

    @property
    def variables(self) -> set[str]:
        out: set[str] = set()
        for mono, _ in self._terms:
            for atom in mono:
                if isinstance(atom, str):
                    out.add(atom)
                else:
                    for a in atom[1:]:
                        if isinstance(a, SymDim):
                            out |= a.variables
        return out

    # arithmetic -----------------------------------------------------------------
    def __add__(self, other):
        o = SymDim._as_dict(other)
        if o is None:
            return NotImplemented
        d = self._dict()
        for m, c in o.items():
            d[m] = d.get(m, 0) + c
        return SymDim._make(d)

    __radd__ = __add__

    def __neg__(self):
        return SymDim._make({m: -c for m, c in self._terms})

    def __pos__(self):
        return self

    def __sub__(self, other):
        o = SymDim._as_dict(other)
        if o is None:
            return NotImplemented
        return self + SymDim._make({m: -c for m, c in o.items()})

    def __rsub__(self, other):
        o = SymDim._as_dict(other)
        if o is None:
            return NotImplemented
        return (-self) + other

    def __mul__(self, other):
        o = SymDim._as_dict(other)
        if o is None:
            return NotImplemented
        d: dict = {}
        for m1, c1 in self._terms:
            for m2, c2 in o.items():
                m = tuple(sorted(m1 + m2, key=repr))
                d[m] = d.get(m, 0) + c1 * c2
        return SymDim._make(d)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        if isinstance(other, SymDim):
            if other == self:
                return 1
            if len(other._terms) == 1:  # exact division by a monomial: (4*b*n) // (2*n)
                (dm, dc), = other._terms
                out = {}
                for m, c in self._terms:
                    rest = list(m)
                    try:
                        for a in dm:
                            rest.remove(a)
                    except ValueError:
                        break
                    if c % dc:
                        break
                    out[tuple(rest)] = c // dc
                else:
                    return SymDim._make(out)
            return SymDim._atom(("floordiv", self, other))
        k = SymDim._divisor(other, "divided by")
        if k is None:
            return NotImplemented
        if k == 1:
            return self
        if self._divisible(k):
            return SymDim._make({m: c // k for m, c in self._terms})
        return SymDim._atom(("floordiv", self, k))

    @staticmethod
    def _divisor(other, what: str) -> int | None:
        """``other`` as an int divisor (None: not an int)."""
        o = SymDim._as_dict(other)
        if o is None:
            return None
        k = o.get((), 0)
        if k == 0:
            raise ZeroDivisionError(f"symbolic dimension {what} zero")
        return k

    def _divisible(self, k: int) -> bool:
        return all(c % k == 0 for _, c in self._terms)

    def __rfloordiv__(self, other):
        if SymDim._as_dict(other) is None:
            return NotImplemented
        return SymDim._atom(("floordiv", other, self))

    def __mod__(self, other):
        if isinstance(other, SymDim):
            if other == self:
                return 0
            return SymDim._atom(("mod", self, other))
        k = SymDim._divisor(other, "modulo")
        if k is None:
            return NotImplemented
        return 0 if self._divisible(k) else SymDim._atom(("mod", self, k))

    def __rmod__(self, other):
        if SymDim._as_dict(other) is None:
            return NotImplemented
        return SymDim._atom(("mod", other, self))

    @staticmethod
    def _atom(atom: tuple) -> "SymDim":
        return SymDim((((atom,), 1),))

    # comparisons ----------------------------------------------------------------
    def __eq__(self, other):
        if isinstance(other, SymDim):
            return self._terms == other._terms
        o = SymDim._as_dict(other)
        if o is None:
            return NotImplemented
        return False  # a non-constant expression is never a known constant

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return self._hash

    def lower_bound(self) -> int | None:
        """A lower bound given every variable >= 1 (None: unbounded below)."""
        bounds = _BOUNDS.get()
        lb = 0
        for mono, c in self._terms:
            if mono == ():
                lb += c
                continue
            # variables are >= their least value (1 unless constrained), max terms >= 1,
            # floordiv, mod and min terms >= 0; a negative term needs upper bounds
            low = high = 1
            for a in mono:
                if isinstance(a, str):
                    lo, hi = bounds.get(a, (1, None))
                elif a[0] == "max":
                    lo, hi = 1, None
                else:
                    lo, hi = 0, None
                low *= lo
                high = None if high is None or hi is None else high * hi
            if c > 0:
                lb += c * low
            elif high is None:
                return None
            else:
                lb += c * high
        return lb

    def _decide(self, other, op: str) -> bool:
        diff = self - other
        if not isinstance(diff, SymDim):
            return {"ge": diff >= 0, "gt": diff > 0, "le": diff <= 0, "lt": diff < 0}[op]
        lb = diff.lower_bound()
        if lb is not None:
            if op == "ge" and lb >= 0 or op == "gt" and lb > 0:
                return True
            if op == "lt" and lb >= 0 or op == "le" and lb > 0:
                return False
        ub = (-diff).lower_bound()  # -(upper bound)
        if ub is not None:
            ub = -ub
            if op == "le" and ub <= 0 or op == "lt" and ub < 0:
                return True
            if op == "gt" and ub <= 0 or op == "ge" and ub < 0:
                return False
        raise SymbolicDimError(
            f"the comparison {self} {dict(ge='>=', gt='>', le='<=', lt='<')[op]} {other} depends "
            "on the value of a symbolic dimension")

    def __ge__(self, other):
        return self._decide(other, "ge") if SymDim._as_dict(other) is not None else NotImplemented

    def __gt__(self, other):
        return self._decide(other, "gt") if SymDim._as_dict(other) is not None else NotImplemented

    def __le__(self, other):
        return self._decide(other, "le") if SymDim._as_dict(other) is not None else NotImplemented

    def __lt__(self, other):
        return self._decide(other, "lt") if SymDim._as_dict(other) is not None else NotImplemented

    def __bool__(self):
        return self._decide(0, "gt")

    def __index__(self):
        raise SymbolicDimError(f"the dimension {self} is symbolic; this needs its concrete size")

    __int__ = __index__

    def __float__(self):
        raise SymbolicDimError(f"the dimension {self} is symbolic; this needs its concrete size")

    # evaluation and printing -------------------------------------------------------
    def evaluate(self, env: dict[str, int]) -> int:
        """The value for concrete variable values ``env``."""
        total = 0
        for mono, c in self._terms:
            v = c
            for atom in mono:
                v *= _eval_atom(atom, env)
            total += v
        return total

    def __str__(self) -> str:
        parts = []
        for mono, c in self._terms:
            body = "*".join(_atom_str(a) for a in mono)
            if not body:
                parts.append(str(c))
            elif c == 1:
                parts.append(body)
            elif c == -1:
                parts.append("-" + body)
            else:
                parts.append(f"{c}*{body}")
        text = " + ".join(parts).replace("+ -", "- ")
        return text

    def __repr__(self) -> str:
        return f"SymDim({self})"


def _eval(x, env):
    return x.evaluate(env) if isinstance(x, SymDim) else x


def _eval_atom(atom, env) -> int:
    if isinstance(atom, str):
        return env[atom]
    kind, a, b = atom
    a, b = _eval(a, env), _eval(b, env)
    return {"floordiv": lambda: a // b, "mod": lambda: a % b, "max": lambda: max(a, b),
            "min": lambda: min(a, b)}[kind]()


def _atom_str(atom) -> str:
    if isinstance(atom, str):
        return atom
    kind, a, b = atom
    if kind == "floordiv":
        return f"({a} // {b})"
    if kind == "mod":
        return f"({a} % {b})"
    return f"{kind}({a}, {b})"


def dim_var(name: str) -> SymDim:
    """The dimension variable ``name``."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"a symbolic dimension name must be an identifier, got {name!r}")
    return SymDim((((name,), 1),))


def is_symbolic(d: Any) -> bool:
    return isinstance(d, SymDim)


def dim_max(a, b):
    """``max(a, b)`` of dims (an int when both are ints or when they are equal)."""
    if a == b:
        return a
    if not isinstance(a, SymDim) and not isinstance(b, SymDim):
        return max(a, b)
    if isinstance(a, int) and a <= 1:
        return b
    if isinstance(b, int) and b <= 1:
        return a
    for hi, lo in ((a, b), (b, a)):
        try:
            if hi >= lo:
                return hi
        except SymbolicDimError:
            pass
    x, y = sorted((a, b), key=repr)
    return SymDim._atom(("max", x, y))


def dim_min(a, b):
    """``min(a, b)`` of dims (an int when both are ints or when they are equal)."""
    if a == b:
        return a
    if not isinstance(a, SymDim) and not isinstance(b, SymDim):
        return min(a, b)
    for lo, hi in ((a, b), (b, a)):
        try:
            if lo <= hi:
                return lo
        except SymbolicDimError:
            pass
    x, y = sorted((a, b), key=repr)
    return SymDim._atom(("min", x, y))


def slice_indices(entry: tuple, dim) -> tuple:
    """``slice(*entry).indices(dim)`` where ``dim`` may be symbolic (positive steps;
    bounds past the end are clamped, a start past it gives a negative length
    that refining the call's shapes rejects)."""
    if type(dim) is not SymDim:
        return slice(*entry).indices(dim)
    start, stop, step = (tuple(entry) + (None, None, None))[:3]
    step = 1 if step is None else step
    if step < 0 and start is None and stop is None:  # x[::-k]: from the last element down
        return dim - 1, -1, step
    if step <= 0:
        raise SymbolicDimError(f"a slice {slice(*entry)} of the symbolic dimension {dim}")
    start = 0 if start is None else (dim + start if start < 0 else start)
    if stop is None:
        stop = dim
    elif stop < 0:
        stop = dim + stop
    else:
        stop = dim_min(dim, stop)
    return start, stop, step


def slice_length(entry: tuple, dim):
    """How many elements ``slice(*entry)`` selects from a dim of size ``dim`` (an int or symbolic)."""
    if type(dim) is not SymDim:
        return len(range(*slice(*entry).indices(dim)))
    start, stop, step = slice_indices(entry, dim)
    if step < 0:
        return (start - stop - step - 1) // -step
    return (stop - start + step - 1) // step
