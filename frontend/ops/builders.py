"""Every family's builder functions in one namespace (``hlograph.<name>``).
``random`` stays a namespace of its own (``hlograph.random.uniform``)."""

from .basic import *  # noqa: F401,F403
from .elemwise import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .control import *  # noqa: F401,F403
from .dynamic import *  # noqa: F401,F403
from .sort import *  # noqa: F401,F403
from .assertion import *  # noqa: F401,F403
from . import (assertion as _assertion, basic as _basic, control as _control, dynamic as _dynamic,
               elemwise as _elemwise, indexing as _indexing, linalg as _linalg,
               reduction as _reduction, shape as _shape, sort as _sort)

__all__ = [
    name
    for mod in (_basic, _elemwise, _reduction, _shape, _indexing, _linalg, _control, _dynamic,
                _sort, _assertion)
    for name in mod.__all__
]
