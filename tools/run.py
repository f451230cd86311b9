"""``hlograph-run``: compile a StableHLO module with PJRT, run it, honour its checks.

    hlograph-run add.mlir --input x.npy --input y.npy     # prints the results
    hlograph-run -O2 testdata/abs_float32_20_20.mlir      # runs its check.* assertions
    hlograph-run --args-from-inputs -O2 prog.mlir         # @inputs() values become arguments
    hlograph-run model.mlirbc --input x.npy               # a portable artifact (Lowered.serialize())

The public ``@main`` runs with no arguments, or with arguments from ``--input``
(``.npy``, repeatable) or ``--inputs`` (one ``.npz``: ``arr_0``, ``arr_1``, ... or
its names in order). StableHLO's ``check.*`` assertions (custom calls such as
``@check.expect_close`` or the check dialect) are compared on the host, as
StableHLO's reference checker does; a failed check prints which one failed and
how far off it was, and the exit code is 1. Results are printed when the module
has no checks (or with ``--print-results``).

Exit codes: 0 success, 1 a failed check or an error (malformed MLIR is reported
as ``file:line:col: error: ...``), 2 a usage error.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Sequence, TextIO

import numpy as np

from .cli import VersionAction
from .pipes import stop_on_broken_pipe

__all__ = ["main", "run_source", "format_result"]

_SPLIT = re.compile(r"^// -----.*$", re.MULTILINE)
_NPZ_POSITIONAL = re.compile(r"^arr_(\d+)$")


class _UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hlograph-run",
        description="Compile a StableHLO module with PJRT, run its public @main and "
                    "compare its check.* assertions.",
    )
    p.add_argument("--version", action=VersionAction)
    p.add_argument("file", help="the module: MLIR text or bytecode, or a StableHLO portable artifact "
                                "(Lowered.serialize()); '-' reads standard input")
    opt = p.add_mutually_exclusive_group()
    opt.add_argument("-O", dest="opt_level", choices=["0", "1", "2"],
                     help="run the named pipeline O0, O1 or O2 before compiling")
    opt.add_argument("-p", "--pass-pipeline", dest="pipeline", metavar="PIPELINE",
                     help="run a textual pass pipeline before compiling")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--input", action="append", default=[], metavar="FILE.npy",
                     help="an argument of @main (repeat, in order)")
    src.add_argument("--inputs", metavar="FILE.npz",
                     help="all arguments of @main: arr_0, arr_1, ... or the arrays in file order")
    src.add_argument("--args-from-inputs", action="store_true",
                     help="turn the results of @main's call to @inputs() into arguments, so "
                          "that XLA runs the compiled code rather than constant-folding it")
    p.add_argument("--print-results", action="store_true",
                   help="print the results even when the module has checks")
    p.add_argument("--platform", default="cpu", help="PJRT platform (default: cpu)")
    p.add_argument("--split-input-file", action="store_true",
                   help="run each '// -----' separated chunk as its own module")
    p.add_argument("--probe-dir", metavar="DIR",
                   help="probe directory of an interpreter run, for check.expect_serialized_eq")
    return p


def _read_source(path: str) -> tuple[str | bytes, str]:
    if path == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise OSError(f"cannot read {path!r}: {e.strerror or e}") from None
        name = path
    if data[:4] == b"ML\xefR":
        return data, name
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError:
        raise ValueError(f"{name} is neither MLIR text nor MLIR bytecode") from None


def _load_array(path: str) -> np.ndarray:
    try:
        value = np.load(path, allow_pickle=False)
    except OSError as e:
        raise OSError(f"cannot read input {path!r}: {e.strerror or e}") from None
    except ValueError as e:
        raise ValueError(f"cannot read input {path!r}: {e}") from None
    if isinstance(value, np.lib.npyio.NpzFile):
        raise ValueError(f"{path} is an .npz archive; pass it with --inputs")
    return value


def _load_npz(path: str) -> list[np.ndarray]:
    try:
        archive = np.load(path, allow_pickle=False)
    except OSError as e:
        raise OSError(f"cannot read inputs {path!r}: {e.strerror or e}") from None
    except ValueError as e:
        raise ValueError(f"cannot read inputs {path!r}: {e}") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"{path} is not an .npz archive; pass an .npy file with --input")
    with archive:
        names = list(archive.files)
        positional = [_NPZ_POSITIONAL.match(n) for n in names]
        if names and all(positional):
            names = sorted(names, key=lambda n: int(_NPZ_POSITIONAL.match(n).group(1)))
        return [archive[n] for n in names]


def _fit_inputs(values: list[np.ndarray], specs) -> list[np.ndarray]:
    """``.npy`` files store bfloat16 and other ml_dtypes arrays as raw void data;
    read those as the dtype @main expects."""
    out = []
    for v, s in zip(values, specs):
        if v.dtype.kind == "V" and v.dtype != s.dtype and v.dtype.itemsize == s.dtype.itemsize:
            v = v.view(s.dtype)
        out.append(v)
    return out + list(values[len(out):])


def format_result(i: int, value: np.ndarray, mlir_type: str) -> str:
    """``result <i>: <type>`` and the array's NumPy repr."""
    return f"result {i}: {mlir_type}\n{value!r}"


def run_source(source: str | bytes, name: str, args: argparse.Namespace,
               out: TextIO, err: TextIO) -> int:
    """Runs one module; returns the exit code (0 or 1)."""
    from ..runtime.checks import CheckError
    from ..runtime.load import LoadedModule, MLIRDiagnosticError, prepare

    pipeline = args.pipeline or (f"O{args.opt_level}" if args.opt_level is not None else None)
    try:
        prepared = prepare(source, pipeline=pipeline, filename=name, platform=args.platform,
                           args_from="inputs" if args.args_from_inputs else None)
        if args.args_from_inputs:
            values = prepared.bound_args or []
        elif args.inputs:
            values = _load_npz(args.inputs)
        else:
            values = [_load_array(p) for p in args.input]
        values = _fit_inputs(values, prepared.in_specs)
        exe = LoadedModule(prepared, args.platform)
        result = exe.run(*values, probe_dir=args.probe_dir)
    except (MLIRDiagnosticError, CheckError) as e:
        _flush(out)
        print(str(e), file=err)
        return 1
    except (ValueError, TypeError, RuntimeError, OSError) as e:
        _flush(out)
        print(f"hlograph-run: error: {name}: {e}", file=err)
        return 1
    if args.print_results or not result.outcomes:
        for i, (value, spec) in enumerate(zip(result.results, exe.out_specs)):
            print(format_result(i, value, spec.mlir_type), file=out)
    n = len(result.outcomes)
    if not n:
        return 0
    failures = result.failures
    if not failures:
        print(f"{name}: {n} check{'s' if n != 1 else ''} passed", file=out)
        return 0
    _flush(out)
    for o in failures:
        print(o.report(), file=err)
    print(f"{name}: {len(failures)} of {n} check{'s' if n != 1 else ''} failed", file=err)
    return 1


def _flush(stream: TextIO) -> None:
    try:
        stream.flush()
    except (AttributeError, ValueError):
        pass


def _chunks(source: str | bytes, split: bool) -> list[str | bytes]:
    if not split or isinstance(source, bytes):
        return [source]
    chunks, start, line = [], 0, 0
    for m in _SPLIT.finditer(source):
        chunks.append("\n" * line + source[start:m.start()])  # keeps each chunk's line numbers
        line = source.count("\n", 0, m.end())
        start = m.end()
    chunks.append("\n" * line + source[start:])
    return chunks


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """The ``hlograph-run`` command; returns the exit code (never raises)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2)
        return int(e.code or 0)
    try:
        source, name = _read_source(args.file)
    except (OSError, ValueError) as e:
        print(f"hlograph-run: error: {e}", file=err)
        return 1
    status = 0
    try:
        chunks = _chunks(source, args.split_input_file)
        for i, chunk in enumerate(chunks):
            if len(chunks) > 1 and i:
                print("// -----", file=out)
            status = max(status, run_source(chunk, name, args, out, err))
        out.flush()  # here, where a closed pipe is handled, not at exit
    except KeyboardInterrupt:
        print("hlograph-run: interrupted", file=err)
        return 130
    except BrokenPipeError:  # output piped into a command that stopped reading
        return stop_on_broken_pipe()
    except Exception as e:  # never a traceback from the command line
        _flush(out)
        print(f"hlograph-run: internal error: {type(e).__name__}: {e}", file=err)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
