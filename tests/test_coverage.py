"""Every concrete Op of the op families can run somewhere: a lowering rule, or
(for host-only ops) a host implementation."""

import inspect

import hlograph as hg
from hlograph.frontend import ops
from hlograph.lowering.registry import lookup as rule_for
from hlograph.runtime.host.registry import lookup as impl_for


def _family_op_classes():
    classes = set()
    for name in dir(ops):
        mod = getattr(ops, name)
        if inspect.ismodule(mod) and mod.__name__.startswith(ops.__name__ + "."):
            for _, obj in inspect.getmembers(mod, inspect.isclass):
                if issubclass(obj, hg.Op) and obj is not hg.Op and obj.__module__ == mod.__name__:
                    classes.add(obj)
    return classes


def _leaves(classes):
    # base classes (Elemwise, Reduce, ...) are abstract: their subclasses are the ops
    return {c for c in classes if not any(o is not c and issubclass(o, c) for o in classes)}


def test_every_concrete_op_has_a_rule_or_a_host_implementation():
    leaves = _leaves(_family_op_classes())
    assert len(leaves) > 50
    missing = []
    for cls in sorted(leaves, key=lambda c: c.__name__):
        ok = (not cls.host_only and rule_for(cls) is not None) or (cls.host_only and impl_for(cls) is not None)
        if not ok:
            missing.append(f"{cls.__module__}.{cls.__name__}")
    assert not missing, "ops with nowhere to run: " + ", ".join(missing)
