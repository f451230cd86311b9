"""Builds the C parts of the runtime: the per-call path (runtime/_dispatch.c),
NumPy's 64-byte aligned allocator (runtime/_align.c, against NumPy's headers) and
the small-graph executor (runtime/_vm.c, see runtime/vm.py).
The rest of the project's metadata is in pyproject.toml. Both extensions are
optional: where they cannot be built, hlograph uses the Python implementation in
runtime/dispatch.py (same behaviour, slower calls) and NumPy's own allocator
(large NumPy arguments are copied on each call), and every graph runs through
XLA."""

from setuptools import Extension, setup

extensions = [Extension("hlograph.runtime._dispatch", ["runtime/_dispatch.c"], optional=True)]
try:
    import numpy
except ImportError:  # pragma: no cover - numpy is a build requirement
    numpy = None
if numpy is not None:
    extensions.append(Extension("hlograph.runtime._align", ["runtime/_align.c"],
                                include_dirs=[numpy.get_include()], optional=True))
    extensions.append(Extension("hlograph.runtime._vm", ["runtime/_vm.c"],
                                include_dirs=[numpy.get_include()], extra_compile_args=["-O3"],
                                optional=True))

setup(ext_modules=extensions)
