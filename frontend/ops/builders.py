"""Every family's builder functions in one namespace (``hlograph.<name>``).
``random`` and ``linalg_namespace`` stay namespaces of their own
(``hlograph.random.uniform``, ``hlograph.linalg.inv``)."""

from . import FAMILIES as _FAMILIES

#: families that are namespaces of their own, not part of ``hlograph.<name>``
NAMESPACES = ("random", "linalg_namespace")

__all__: list[str] = []
_owner: dict[str, str] = {}
for _family, _mod in _FAMILIES.items():
    if _family in NAMESPACES:
        continue
    for _name in _mod.__all__:
        if _name in _owner:
            raise ImportError(f"builder {_name!r} is defined by both the {_owner[_name]} "
                              f"and the {_family} families")
        _owner[_name] = _family
        globals()[_name] = getattr(_mod, _name)
        __all__.append(_name)
del _family, _mod, _name
