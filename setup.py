"""Builds the C part of the per-call path (runtime/_dispatch.c). The rest of
the project's metadata is in pyproject.toml. The extension is optional: where
it cannot be built, hlograph uses the Python implementation in
runtime/dispatch.py (same behaviour, slower calls)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("hlograph.runtime._dispatch", ["runtime/_dispatch.c"], optional=True)])
