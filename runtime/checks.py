"""StableHLO's test convention: ``check.*`` assertions inside a module.

StableHLO's execution tests state their expected results inside the module, in
one of two spellings:

- ``stablehlo.custom_call @check.expect_eq(%actual, %expected) {has_side_effect = true}``
  (the programs of openxla/stablehlo's ``testdata``, generated from JAX), with
  ``expect_eq``, ``expect_almost_eq`` and ``expect_close``;
- the ``check`` dialect of StableHLO's interpreter tests:
  ``check.expect_eq %a, %b : tensor<3xi64>``, ``check.expect_eq_const %a, dense<...>``,
  ``check.expect_almost_eq[_const]``, ``check.expect_close``,
  ``check.expect_serialized_eq``.

PJRT cannot run either. :func:`rewrite_check_syntax` turns the dialect's custom
syntax into its generic form, so that the module parses with unregistered
dialects allowed; :func:`normalize_checks` turns every check into one canonical
``stablehlo.custom_call @check.<kind>(%actual, %expected)`` whose attributes
carry the tolerances (the form pass pipelines see); :func:`extract_checks`
removes the checks and returns their operands as extra results of the entry
function, threading them out of the private functions that contain them; the
comparisons then run on the host (:func:`evaluate_check`), as StableHLO's
reference checker does:

- ``expect_eq`` / ``expect_eq_const``: exact; IEEE ``==`` for floats (``+0 == -0``,
  ``NaN != NaN``), both parts for complex numbers;
- ``expect_almost_eq`` / ``expect_almost_eq_const``: ``|actual - expected| <= tolerance``
  in double precision, where equal values and two NaNs pass (complex: each part);
  the tolerance is 1e-3 for the custom call and the dialect's 1e-4 otherwise;
- ``expect_close``: ULP distance within ``[min_ulp_difference, max_ulp_difference]``
  (the custom call: ``[0, 3]``); bitwise-equal values and two NaNs are 0 apart, the
  distance between finite values is the difference of their bit patterns with the
  sign cleared (their sum when the signs differ), and any other mix of inf and NaN
  fails; complex: the larger of the parts' distances;
- ``expect_serialized_eq``: ``expect_eq`` against a tensor the interpreter's probe
  recorded (``index.csv`` in a probe directory).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from ..xla.mlir import func, hlo, ir

__all__ = [
    "CHECK_KINDS", "Check", "CheckError", "CheckOutcome", "CheckSyntaxError",
    "rewrite_check_syntax", "normalize_checks", "count_checks", "extract_checks",
    "evaluate_check", "ulp_difference", "format_location", "walk_ops", "check_kind",
]

#: The supported check kinds, with their operand names.
CHECK_KINDS = (
    "expect_eq", "expect_eq_const", "expect_almost_eq", "expect_almost_eq_const",
    "expect_close", "expect_serialized_eq",
)
_CONST_KINDS = {"expect_eq_const": "expect_eq", "expect_almost_eq_const": "expect_almost_eq"}
#: Tolerances of the check dialect (StableHLO's CheckOps.td) ...
_DIALECT_TOLERANCE = 1e-4
_DIALECT_MAX_ULP = 1
#: ... and of the custom calls, as StableHLO's interpreter evaluates them.
_CUSTOM_CALL_TOLERANCE = 1e-3
_CUSTOM_CALL_MAX_ULP = 3
_MAX_LISTED_MISMATCHES = 5
_TARGET_PREFIX = "check."


class CheckError(ValueError):
    """A check that hlograph cannot evaluate (unknown kind, wrong operands, or a
    place it cannot be read from). ``location`` is ``file:line:col`` when known."""

    def __init__(self, message: str, location: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        return f"{self.location}: error: {self.message}" if self.location else self.message


class CheckSyntaxError(CheckError):
    """A ``check.*`` line in the dialect's custom syntax that does not parse."""


@dataclass(frozen=True)
class Check:
    """One check of a module, after :func:`extract_checks`.

    ``outputs`` are the positions of its operands among the entry function's
    results (actual first, then expected when there is one).
    """

    index: int
    kind: str
    location: str
    outputs: tuple[int, ...]
    tolerance: float | None = None
    min_ulp_difference: int | None = None
    max_ulp_difference: int | None = None
    probe_id: str | None = None
    iteration: int = 0

    @property
    def name(self) -> str:
        return f"check.{self.kind}"

    def describe(self) -> str:
        extra = ""
        if self.kind == "expect_almost_eq":
            extra = f", tolerance {self.tolerance:g}"
        elif self.kind == "expect_close":
            lo = self.min_ulp_difference or 0
            extra = f", {lo}..{self.max_ulp_difference} ULP" if lo else f", max {self.max_ulp_difference} ULP"
        elif self.kind == "expect_serialized_eq":
            extra = f", probe {self.probe_id!r} iteration {self.iteration}"
        return f"check #{self.index} ({self.name}{extra})"


@dataclass(frozen=True)
class CheckOutcome:
    """The result of one check: ``passed``, and when it failed, why (``message``,
    one line, and ``details``, the first mismatching elements)."""

    check: Check
    passed: bool
    message: str = ""
    details: tuple[str, ...] = field(default_factory=tuple)

    def report(self) -> str:
        """``file:line:col: error: check #i (...) failed: ...`` and the details."""
        lines = [f"{self.check.location}: error: {self.check.describe()} failed: {self.message}"]
        lines += [f"  {d}" for d in self.details]
        return "\n".join(lines)


# --------------------------------------------------------------------------- #
# The check dialect's custom syntax -> generic form (before parsing).
# --------------------------------------------------------------------------- #

_CHECK_LINE = re.compile(r"^(\s*)check\.([A-Za-z_]\w*)")
_INLINE_CHECK = re.compile(r"check\.([A-Za-z_]\w*)(?=\s)")
_SSA = re.compile(r"%[A-Za-z0-9_$.\-]+(?:#\d+)?")
_NUMBER = re.compile(r"[-+]?(?:0x[0-9A-Fa-f]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|nan)")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


class _Cursor:
    """A tiny scanner over the text of one ``check.*`` line."""

    def __init__(self, text: str, line: int, col: int, kind: str, whole_line: bool = True):
        self.text, self.pos, self.line, self.col0, self.kind = text, 0, line, col, kind
        #: the op ends the line; else it ends where its syntax does (a module on one line)
        self.whole_line = whole_line

    def fail(self, expected: str):
        found = self.text[self.pos:].strip()[:30] or "end of line"
        raise CheckSyntaxError(
            f"cannot parse check.{self.kind}: expected {expected}, found {found!r}",
            f"{{file}}:{self.line}:{self.col0 + self.pos + 1}",
        )

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self, s: str) -> bool:
        self.skip()
        return self.text.startswith(s, self.pos)

    def accept(self, s: str) -> bool:
        if self.peek(s):
            self.pos += len(s)
            return True
        return False

    def expect(self, s: str) -> None:
        if not self.accept(s):
            self.fail(repr(s))

    def regex(self, pattern: re.Pattern, what: str) -> str:
        self.skip()
        m = pattern.match(self.text, self.pos)
        if not m:
            self.fail(what)
        self.pos = m.end()
        return m.group(0)

    def balanced(self, opener: str, closer: str, what: str) -> str:
        """Text from here to the matching ``closer`` (nesting and strings respected)."""
        self.skip()
        start, depth, i = self.pos, 0, self.pos
        while i < len(self.text):
            c = self.text[i]
            if c == '"':
                m = _STRING.match(self.text, i)
                i = m.end() if m else len(self.text)
                continue
            if c in opener:
                depth += 1
            elif c in closer:
                depth -= 1
                if depth == 0:
                    self.pos = i + 1
                    return self.text[start:self.pos]
            i += 1
        self.fail(what)

    def type_(self) -> str:
        """A type such as ``tensor<2x3xf32>`` or ``f64``."""
        self.skip()
        m = re.compile(r"!?[A-Za-z_][\w.]*").match(self.text, self.pos)
        if not m:
            self.fail("a type")
        self.pos = m.end()
        if self.text.startswith("<", self.pos):
            return m.group(0) + self.balanced("<", ">", "a closing '>'")
        return m.group(0)

    def elements_attr(self) -> str:
        """``dense<...> : tensor<...>`` (any ``name<...>`` attribute with its type)."""
        self.skip()
        m = re.compile(r"[A-Za-z_]\w*(?=<)").match(self.text, self.pos)
        if not m:
            self.fail("a constant such as dense<...> : tensor<...>")
        self.pos = m.end()
        body = m.group(0) + self.balanced("<", ">", "a closing '>'")
        self.expect(":")
        return f"{body} : {self.type_()}"

    def attr_dict(self) -> str:
        """The inside of an optional ``{...}`` attribute dictionary."""
        if not self.peek("{"):
            return ""
        return self.balanced("{", "}", "a closing '}'")[1:-1].strip()

    def float_attr(self) -> str:
        value = self.regex(_NUMBER, "a number")
        save = self.pos
        if self.accept(":") and self.accept("f64"):
            return value
        self.pos = save
        return value

    def at_end(self) -> None:
        if not self.whole_line:
            return
        self.skip()
        if self.pos < len(self.text) and not self.text.startswith("//", self.pos):
            self.fail("end of line")


def _generic(kind: str, operands: Sequence[str], types: Sequence[str], attrs: Sequence[str]) -> str:
    attr_text = " {" + ", ".join(a for a in attrs if a) + "}" if any(attrs) else ""
    return f'"check.{kind}"({", ".join(operands)}){attr_text} : ({", ".join(types)}) -> ()'


def _float_literal(text: str) -> str:
    # F64 attribute literal: integers need a decimal point to read as floats.
    return text if re.search(r"[.eEn]|0x", text) else f"{text}.0"


def _rewrite_line(kind: str, rest: str, line: int, col: int, cur: "_Cursor | None" = None) -> str:
    cur = cur if cur is not None else _Cursor(rest, line, col, kind)
    if kind in ("expect_eq", "expect_almost_eq", "expect_close"):
        a = cur.regex(_SSA, "an SSA value")
        cur.expect(",")
        b = cur.regex(_SSA, "an SSA value")
        attrs = []
        while cur.accept(","):
            name = cur.regex(re.compile(r"[A-Za-z_]\w*"), "an attribute name")
            cur.expect("=")
            if name == "tolerance":
                attrs.append(f"tolerance = {_float_literal(cur.float_attr())} : f64")
            elif name in ("max_ulp_difference", "min_ulp_difference"):
                attrs.append(f"{name} = {cur.regex(_NUMBER, 'an integer')} : i64")
            else:
                cur.fail("tolerance, max_ulp_difference or min_ulp_difference")
        if kind == "expect_close":
            if not any(a.startswith("max_ulp_difference") for a in attrs):
                cur.fail("', max_ulp_difference = <n>'")
            cur.expect(":")
            attrs.append(cur.attr_dict())
            t1 = cur.type_()
            t2 = cur.type_() if cur.accept(",") else t1
            types = [t1, t2]
        else:
            attrs.append(cur.attr_dict())
            cur.expect(":")
            t = cur.type_()
            types = [t, t]
        cur.at_end()
        return _generic(kind, [a, b], types, attrs)
    if kind in ("expect_eq_const", "expect_almost_eq_const"):
        a = cur.regex(_SSA, "an SSA value")
        cur.expect(",")
        value = cur.elements_attr()
        attrs = [f"value = {value}"]
        if cur.accept(","):
            cur.expect("tolerance")
            cur.expect("=")
            attrs.append(f"tolerance = {_float_literal(cur.float_attr())} : f64")
        attrs.append(cur.attr_dict())
        cur.at_end()
        return _generic(kind, [a], [value.rsplit(" : ", 1)[1]], attrs)
    if kind == "expect_serialized_eq":
        a = cur.regex(_SSA, "an SSA value")
        attrs = []
        while cur.accept(","):
            name = cur.regex(re.compile(r"[A-Za-z_]\w*"), "an attribute name")
            cur.expect("=")
            if name == "probe_id":
                attrs.append(f"probe_id = {cur.regex(_STRING, 'a string')}")
            elif name == "iter":
                attrs.append(f"iteration = {cur.regex(_NUMBER, 'an integer')} : i64")
            else:
                cur.fail("probe_id or iter")
        attrs.append(cur.attr_dict())
        cur.expect(":")
        t = cur.type_()
        cur.at_end()
        return _generic(kind, [a], [t], attrs)
    raise CheckSyntaxError(
        f"unknown check 'check.{kind}'; expected one of {', '.join('check.' + k for k in CHECK_KINDS)}",
        f"{{file}}:{line}:{col + 1}",
    )


def rewrite_check_syntax(text: str, filename: str = "-") -> str:
    """Rewrites ``check.*`` ops written in the check dialect's custom syntax into
    their generic form, line for line (line numbers do not change).

    Raises:
        CheckSyntaxError: a ``check.`` line that does not parse, located as
            ``filename:line:col``.
    """
    if "check." not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = _CHECK_LINE.match(line)
        if not m:
            continue
        indent, kind = m.group(1), m.group(2)
        try:
            lines[i] = indent + _rewrite_line(kind, line[m.end():], i + 1, m.end())
        except CheckSyntaxError as e:
            raise CheckSyntaxError(e.message, (e.location or "").replace("{file}", filename)) from None
    for i, line in enumerate(lines):
        if "check." in line:
            lines[i] = _rewrite_inline_checks(line, i + 1, filename)
    return "\n".join(lines)


def _code_positions(line: str):
    """Yields the positions of ``line`` outside string literals and ``//`` comments."""
    i = 0
    while i < len(line):
        if line[i] == '"':
            m = _STRING.match(line, i)
            i = m.end() if m else len(line)
            continue
        if line.startswith("//", i):
            return
        yield i
        i += 1


def _rewrite_inline_checks(line: str, lineno: int, filename: str) -> str:
    """Rewrites ``check.*`` ops that do not start their line (a module written on
    one line): each ends where its syntax does, the rest of the line stays."""
    out, done = [], 0
    for pos in _code_positions(line):
        if pos < done or not line.startswith("check.", pos) or pos == 0 or line[pos - 1] not in " \t{;":
            continue
        m = _INLINE_CHECK.match(line, pos)
        if not m or not line[:pos].strip():
            continue
        cur = _Cursor(line[m.end():], lineno, m.end(), m.group(1), whole_line=False)
        try:
            text = _rewrite_line(m.group(1), cur.text, lineno, m.end(), cur)
        except CheckSyntaxError as e:
            raise CheckSyntaxError(e.message, (e.location or "").replace("{file}", filename)) from None
        out.append(line[done:pos] + text)
        done = m.end() + cur.pos
        while line[done - 1].isspace():  # the scanner may have skipped the blanks after the op
            done -= 1
    return "".join(out) + line[done:] if out else line


# --------------------------------------------------------------------------- #
# Locations
# --------------------------------------------------------------------------- #

_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


def format_location(loc: ir.Location, filename: str | None = None) -> str:
    """``file:line:col`` of an MLIR location (the first file location inside a
    fused, named or call-site location); the parser's ``"-"`` becomes ``filename``."""
    text = str(loc)
    m = _FILE_LOC.search(text)
    if not m:
        inner = text[4:-1] if text.startswith("loc(") and text.endswith(")") else text
        return inner or "<unknown>"
    name = m.group(1)
    if name == "-" and filename:
        name = filename
    return f"{name}:{m.group(2)}:{m.group(3)}"


# --------------------------------------------------------------------------- #
# IR helpers
# --------------------------------------------------------------------------- #

def walk_ops(op: ir.Operation) -> Iterator[ir.Operation]:
    """Every operation nested in ``op`` (pre-order), ``op`` excluded."""
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner
                yield from walk_ops(inner.operation)


def check_kind(op) -> str | None:
    """The kind of a check op (``expect_eq``, ...: a ``check.*`` op or a
    ``stablehlo.custom_call @check.*``), else None."""
    name = op.operation.name
    if name == "stablehlo.custom_call":
        target = ir.StringAttr(op.attributes["call_target_name"]).value
        return target[len(_TARGET_PREFIX):] if target.startswith(_TARGET_PREFIX) else None
    if name.startswith(_TARGET_PREFIX):
        return name[len(_TARGET_PREFIX):]
    return None


def _functions(module: ir.Module) -> dict[str, ir.Operation]:
    out = {}
    for op in module.body.operations:
        if op.operation.name == "func.func":
            out[ir.StringAttr(op.attributes["sym_name"]).value] = op
    return out


def _function_type(f) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)


def _attr(op, name: str):
    return op.attributes[name] if name in op.attributes else None


def _float_attr(op, name: str, default: float) -> float:
    a = _attr(op, name)
    if a is None:
        return default
    try:
        return float(ir.FloatAttr(a).value)
    except (ValueError, TypeError):
        return float(ir.IntegerAttr(a).value)


def _int_attr(op, name: str, default: int) -> int:
    a = _attr(op, name)
    return default if a is None else int(ir.IntegerAttr(a).value)


def count_checks(module: ir.Module) -> int:
    """The number of check ops in ``module``."""
    return sum(1 for op in walk_ops(module.operation) if check_kind(op) is not None)


def normalize_checks(module: ir.Module, filename: str | None = None) -> int:
    """Turns every check of ``module`` into a canonical
    ``stablehlo.custom_call @check.<kind>(%actual[, %expected]) {has_side_effect = true}``
    with explicit ``tolerance`` / ``min_ulp_difference`` / ``max_ulp_difference``
    attributes (``*_const`` checks get their constant materialized), so that pass
    pipelines can run on the module. Returns the number of checks.

    Raises:
        CheckError: an unknown check kind or wrong operands.
    """
    found = [op for op in walk_ops(module.operation) if check_kind(op) is not None]
    with module.context:
        f64 = ir.F64Type.get()
        i64 = ir.IntegerType.get_signless(64)
        for op in found:
            kind = check_kind(op)
            where = format_location(op.location, filename)
            is_call = op.operation.name == "stablehlo.custom_call"
            if kind not in CHECK_KINDS:
                raise CheckError(
                    f"unknown check '{_TARGET_PREFIX}{kind}'; expected one of "
                    + ", ".join(_TARGET_PREFIX + k for k in CHECK_KINDS), where)
            if len(op.results):
                raise CheckError(f"check.{kind} must not have results", where)
            operands = list(op.operands)
            base = _CONST_KINDS.get(kind, kind)
            attrs: dict[str, ir.Attribute] = {}
            with ir.InsertionPoint(op), op.location:
                if kind == "expect_serialized_eq":
                    if len(operands) != 1:
                        raise CheckError(f"check.{kind} takes 1 operand, got {len(operands)}", where)
                    probe = _attr(op, "probe_id")
                    if probe is None:
                        raise CheckError(f"check.{kind} needs a probe_id attribute", where)
                    attrs["probe_id"] = probe
                    attrs["iteration"] = ir.IntegerAttr.get(i64, _int_attr(op, "iteration", 0))
                else:
                    value = _attr(op, "value")
                    if len(operands) == 1 and value is not None:
                        operands.append(hlo.ConstantOp(value).result)
                    if len(operands) != 2:
                        expected = "1 operand and a value attribute" if kind in _CONST_KINDS else \
                            "2 operands (actual, expected)"
                        raise CheckError(f"check.{kind} takes {expected}, got {len(operands)} operand(s)", where)
                if base == "expect_almost_eq":
                    tol = _float_attr(op, "tolerance", _CUSTOM_CALL_TOLERANCE if is_call else _DIALECT_TOLERANCE)
                    attrs["tolerance"] = ir.FloatAttr.get(f64, tol)
                elif base == "expect_close":
                    hi = _int_attr(op, "max_ulp_difference", _CUSTOM_CALL_MAX_ULP if is_call else _DIALECT_MAX_ULP)
                    lo = _int_attr(op, "min_ulp_difference", 0)
                    attrs["max_ulp_difference"] = ir.IntegerAttr.get(i64, hi)
                    attrs["min_ulp_difference"] = ir.IntegerAttr.get(i64, lo)
                new = hlo.CustomCallOp([], operands, _TARGET_PREFIX + base, has_side_effect=True)
                for k, v in attrs.items():
                    new.attributes[k] = v
            op.erase()
    return len(found)


# --------------------------------------------------------------------------- #
# Checks -> results of the entry function
# --------------------------------------------------------------------------- #

@dataclass
class _Pending:
    """A check on its way out of a function: the values it compares."""

    kind: str
    location: str
    values: list
    tolerance: float | None
    min_ulp: int | None
    max_ulp: int | None
    probe_id: str | None
    iteration: int


def _describe_parent(op) -> str:
    parent = op.parent
    return parent.operation.name if parent is not None else "a region"


class _Threader:
    """Adds the operands of the checks of every function (and of the functions it
    calls) to its results, so that the entry function returns all of them."""

    def __init__(self, module: ir.Module, filename: str | None):
        self.module = module
        self.filename = filename
        self.funcs = _functions(module)
        self.needs: dict[str, bool] = {}
        self.done: dict[str, list[_Pending]] = {}
        self.active: set[str] = set()

    def loc(self, op) -> str:
        return format_location(op.location, self.filename)

    def callee(self, op) -> str:
        return ir.FlatSymbolRefAttr(op.attributes["callee"]).value

    def need(self, name: str) -> bool:
        """True when ``name`` runs a check, itself or through the functions it calls."""
        if name in self.needs:
            return self.needs[name]
        f = self.funcs.get(name)
        if f is None or name in self.active:
            return False
        self.active.add(name)
        result = False
        for op in walk_ops(f.operation):
            if check_kind(op) is not None or (op.operation.name == "func.call" and self.need(self.callee(op))):
                result = True
                break
        self.active.discard(name)
        self.needs[name] = result
        return result

    def process(self, name: str) -> list[_Pending]:
        """Threads the checks of ``name`` out; returns them in program order."""
        if name in self.done:
            return self.done[name]
        if name in self.active:
            raise CheckError(f"@{name} calls itself; recursive functions are not supported")
        self.active.add(name)
        f = self.funcs[name]
        blocks = list(f.regions[0].blocks)
        entry = blocks[0]
        if len(blocks) != 1:
            raise CheckError(f"@{name} runs checks and has {len(blocks)} blocks; only "
                             "single-block functions are supported", self.loc(f))
        # Checks (or calls that run checks) nested in regions cannot become results.
        for op in walk_ops(f.operation):
            if op.parent is not None and op.parent.operation.name == "func.func":
                continue
            nested_call = op.operation.name == "func.call" and self.need(self.callee(op))
            if check_kind(op) is not None or nested_call:
                what = (f"a call to @{self.callee(op)}, which runs checks," if nested_call
                        else f"check.{check_kind(op)}")
                raise CheckError(
                    f"{what} sits inside a {_describe_parent(op)} region; checks can only be "
                    "compared at the top level of a function", self.loc(op))
        pending: list[_Pending] = []
        for op in list(entry.operations):
            kind = check_kind(op)
            if kind is not None:
                pending.append(_Pending(
                    kind, self.loc(op), list(op.operands),
                    _float_attr(op, "tolerance", _CUSTOM_CALL_TOLERANCE) if "tolerance" in op.attributes else None,
                    _int_attr(op, "min_ulp_difference", 0) if kind == "expect_close" else None,
                    _int_attr(op, "max_ulp_difference", _CUSTOM_CALL_MAX_ULP) if kind == "expect_close" else None,
                    ir.StringAttr(op.attributes["probe_id"]).value if "probe_id" in op.attributes else None,
                    _int_attr(op, "iteration", 0),
                ))
                op.erase()
            elif op.operation.name == "func.call" and self.need(self.callee(op)):
                pending.extend(self.rewrite_call(op))
        if pending:
            self.add_results(f, [v for p in pending for v in p.values])
        self.active.discard(name)
        self.done[name] = pending
        return pending

    def rewrite_call(self, call) -> list[_Pending]:
        """Replaces ``call`` by one that also returns the callee's check values."""
        name = self.callee(call)
        inner = self.process(name)
        callee_type = _function_type(self.funcs[name])
        n_old = len(call.results)
        where = self.loc(call)
        with ir.InsertionPoint(call), call.location:
            new = func.CallOp(list(callee_type.results), name, list(call.operands))
        for old_r, new_r in zip(call.results, list(new.results)[:n_old]):
            old_r.replace_all_uses_with(new_r)
        call.erase()
        out, pos = [], n_old
        for p in inner:
            k = len(p.values)
            out.append(_Pending(
                p.kind, f"{p.location} (in @{name} called from {where})",
                list(new.results)[pos:pos + k], p.tolerance, p.min_ulp, p.max_ulp, p.probe_id, p.iteration))
            pos += k
        return out

    def add_results(self, f, values: list) -> None:
        ret = None
        for block in f.regions[0].blocks:
            for op in block.operations:
                if op.operation.name == "func.return":
                    ret = op
        ftype = _function_type(f)
        with ir.InsertionPoint(ret), ret.location:
            func.ReturnOp(list(ret.operands) + values)
        ret.erase()
        new_type = ir.FunctionType.get(list(ftype.inputs), list(ftype.results) + [v.type for v in values])
        f.attributes["function_type"] = ir.TypeAttr.get(new_type)
        if "res_attrs" in f.attributes:
            old = list(ir.ArrayAttr(f.attributes["res_attrs"]))
            f.attributes["res_attrs"] = ir.ArrayAttr.get(old + [ir.DictAttr.get({}) for _ in values])


def extract_checks(module: ir.Module, entry: str = "main", filename: str | None = None) -> list[Check]:
    """Removes the (normalized) checks of ``module`` and appends their operands to
    the results of ``@entry``; checks in functions that ``@entry`` does not call
    are dropped (they never run). Returns the checks in program order.

    Raises:
        CheckError: a check that cannot be threaded out (inside a region such as a
            while body, or in a recursive function).
    """
    with module.context, ir.Location.unknown():
        t = _Threader(module, filename)
        n_results = len(_function_type(t.funcs[entry]).results)
        pending = t.process(entry)
        # Checks of functions @entry never calls do not run; threading them out
        # keeps every call site consistent.
        for name in list(t.funcs):
            if name != entry and t.need(name):
                t.process(name)
        for op in [op for op in walk_ops(module.operation) if check_kind(op) is not None]:
            op.erase()
    checks, pos = [], n_results
    for i, p in enumerate(pending):
        k = len(p.values)
        checks.append(Check(
            index=i, kind=p.kind, location=p.location, outputs=tuple(range(pos, pos + k)),
            tolerance=p.tolerance, min_ulp_difference=p.min_ulp, max_ulp_difference=p.max_ulp,
            probe_id=p.probe_id, iteration=p.iteration,
        ))
        pos += k
    return checks


# --------------------------------------------------------------------------- #
# Comparisons
# --------------------------------------------------------------------------- #

def _is_floating(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or _is_ml_float(dtype)


def _is_ml_float(dtype: np.dtype) -> bool:
    try:
        import ml_dtypes
        ml_dtypes.finfo(dtype)
        return True
    except (ValueError, TypeError):
        return False


def _as_f64(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64)


def _bits(x: np.ndarray) -> np.ndarray:
    """The bit patterns of a float array, zero-extended to uint64."""
    width = x.dtype.itemsize * 8
    return x.view(np.dtype(f"uint{width}")).astype(np.uint64)


def _ulp_real(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    width = a.dtype.itemsize * 8
    sign = np.uint64(1 << (width - 1))
    ba, be = _bits(a), _bits(e)
    fa, fe = _as_f64(a), _as_f64(e)
    mag_a, mag_e = ba & ~sign, be & ~sign
    diff = np.maximum(mag_a, mag_e) - np.minimum(mag_a, mag_e)
    summed = mag_a + mag_e
    finite = np.isfinite(fa) & np.isfinite(fe)
    dist = np.where((ba & sign) != (be & sign), summed, diff)
    out = np.full(a.shape, np.iinfo(np.uint64).max, dtype=np.uint64)
    out = np.where(finite, dist, out)
    out = np.where(np.isnan(fa) & np.isnan(fe), np.uint64(0), out)
    return np.where(ba == be, np.uint64(0), out)


def ulp_difference(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Element-wise ULP distance (uint64; the maximum for a non-finite mismatch),
    as StableHLO's ``check.expect_close`` measures it."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype.kind == "c":
        return np.maximum(ulp_difference(actual.real.copy(), expected.real.copy()),
                          ulp_difference(actual.imag.copy(), expected.imag.copy()))
    return _ulp_real(actual, expected)


def _equal(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "c":
        return (a.real == e.real) & (a.imag == e.imag)
    if _is_floating(a.dtype):
        return _as_f64(a) == _as_f64(e)
    return a == e


def _almost_equal_real(a: np.ndarray, e: np.ndarray, tol: float) -> np.ndarray:
    fa, fe = _as_f64(a), _as_f64(e)
    with np.errstate(invalid="ignore", over="ignore"):
        return (fa == fe) | (np.isnan(fa) & np.isnan(fe)) | (np.abs(fa - fe) <= tol)


def _almost_equal(a: np.ndarray, e: np.ndarray, tol: float) -> np.ndarray:
    if a.dtype.kind == "c":
        return _almost_equal_real(a.real, e.real, tol) & _almost_equal_real(a.imag, e.imag, tol)
    if _is_floating(a.dtype):
        return _almost_equal_real(a, e, tol)
    return a == e


def _fmt(x) -> str:
    return str(x)  # NumPy's shortest round-trip form of the element's own dtype


def _abs_diff(a: np.ndarray, e: np.ndarray) -> np.ndarray | None:
    if a.dtype.kind == "b":
        return None
    with np.errstate(invalid="ignore", over="ignore"):
        if a.dtype.kind == "c":
            return np.abs(a.astype(np.complex128) - e.astype(np.complex128))
        if a.dtype.kind in "iu":
            return np.abs(a.astype(object) - e.astype(object)) if a.dtype.itemsize == 8 else \
                np.abs(a.astype(np.int64) - e.astype(np.int64))
        return np.abs(_as_f64(a) - _as_f64(e))


def _mismatch_report(check: Check, a: np.ndarray, e: np.ndarray, ok: np.ndarray,
                     ulps: np.ndarray | None, what: str) -> CheckOutcome:
    bad = np.flatnonzero(~ok.reshape(-1))
    n, total = len(bad), ok.size
    stats = []
    if ulps is not None:
        worst = ulps.reshape(-1)[bad].max()
        stats.append("max ULP difference " + ("inf" if worst == np.iinfo(np.uint64).max else str(int(worst))))
    diff = _abs_diff(a, e)
    if diff is not None:
        d = diff.reshape(-1)[bad]
        if d.dtype == object:
            stats.append(f"max abs difference {max(d)}")
        else:
            finite = d[np.isfinite(d)] if d.dtype.kind == "f" else d
            if finite.size:
                stats.append(f"max abs difference {float(finite.max()):.6g}")
    summary = f"{n} of {total} elements {what}"
    if stats:
        summary += " (" + ", ".join(stats) + ")"
    details = []
    for flat in bad[:_MAX_LISTED_MISMATCHES]:
        idx = np.unravel_index(flat, a.shape) if a.ndim else ()
        where = "[" + ", ".join(str(int(i)) for i in idx) + "]"
        line = f"at index {where}: actual {_fmt(a[idx])}, expected {_fmt(e[idx])}"
        if ulps is not None:
            u = ulps[idx]
            line += f" ({'inf' if u == np.iinfo(np.uint64).max else int(u)} ULP)"
        details.append(line)
    if n > _MAX_LISTED_MISMATCHES:
        details.append(f"... and {n - _MAX_LISTED_MISMATCHES} more")
    first = details[0] if details else ""
    return CheckOutcome(check, False, f"{summary}; first mismatch {first}" if first else summary,
                        tuple(details[1:]))


def _type_str(x: np.ndarray) -> str:
    return f"{x.dtype.name}[{','.join(map(str, x.shape))}]"


def _read_probe(check: Check, probe_dir: str | Path | None) -> np.ndarray:
    if probe_dir is None:
        raise CheckError(f"{check.name} needs the probe directory of an interpreter run "
                         "(hlograph-run --probe-dir)", check.location)
    index = Path(probe_dir) / "index.csv"
    try:
        lines = index.read_text().split()
    except OSError as e:
        raise CheckError(f"{check.name}: cannot read {index}: {e.strerror}", check.location) from None
    seen = 0
    for line in lines:
        fields = line.split(",", 2)
        if len(fields) == 3 and fields[0] == check.probe_id:
            if seen == check.iteration:
                path = Path(fields[2])
                return np.load(path if path.is_absolute() else Path(probe_dir) / path)
            seen += 1
    raise CheckError(f"{check.name}: no value of probe {check.probe_id!r} at iteration "
                     f"{check.iteration} in {index}", check.location)


def evaluate_check(check: Check, values: Sequence[np.ndarray], *,
                   probe_dir: str | Path | None = None) -> CheckOutcome:
    """Compares the operands of ``check`` (``values``: actual, then expected)."""
    actual = np.asarray(values[0])
    expected = _read_probe(check, probe_dir) if check.kind == "expect_serialized_eq" else np.asarray(values[1])
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return CheckOutcome(check, False,
                            f"type mismatch: actual {_type_str(actual)}, expected {_type_str(expected)}")
    if check.kind in ("expect_eq", "expect_serialized_eq"):
        ok = _equal(actual, expected)
        ulps = ulp_difference(actual, expected) if actual.dtype.kind == "c" or _is_floating(actual.dtype) else None
        what = "differ"
    elif check.kind == "expect_almost_eq":
        tol = check.tolerance if check.tolerance is not None else _CUSTOM_CALL_TOLERANCE
        ok = _almost_equal(actual, expected, tol)
        ulps = None
        what = f"differ by more than {tol:g}"
    elif check.kind == "expect_close":
        if not (actual.dtype.kind == "c" or _is_floating(actual.dtype)):
            ok, ulps, what = _equal(actual, expected), None, "differ"
        else:
            ulps = ulp_difference(actual, expected)
            lo, hi = check.min_ulp_difference or 0, check.max_ulp_difference
            ok = (ulps >= np.uint64(lo)) & (ulps <= np.uint64(hi))
            what = f"are not within {lo}..{hi} ULP" if lo else f"differ by more than {hi} ULP"
    else:
        raise CheckError(f"unknown check {check.name}", check.location)
    if bool(np.all(ok)):
        return CheckOutcome(check, True)
    return _mismatch_report(check, actual, expected, np.asarray(ok), ulps, what)
