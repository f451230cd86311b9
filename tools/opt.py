"""``hlograph-opt``: runs pass pipelines on StableHLO files, with mlir-opt's conventions.

    hlograph-opt input.mlir -p 'builtin.module(hlograph-fold-constants,cse)'
    hlograph-opt -O2 input.mlir -o out.mlir
    hlograph-opt --split-input-file -p hlograph-simplify-algebra cases.mlir
    cat input.mlir | hlograph-opt -O2 -
    hlograph-opt --list-passes
    hlograph-opt model.mlirbc -O2 -o optimized.mlirbc       # a portable artifact in and out
    hlograph-opt --load-pass-plugin my_passes.py -p my-pass input.mlir

Errors are printed as ``file:line:col: error: message`` and exit with status 1;
nothing prints a Python traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Sequence

from .cli import VersionAction
from .pipes import stop_on_broken_pipe

__all__ = ["main"]

_SPLIT_MARKER = "// -----"
_BYTECODE_MAGIC = b"ML\xefR"


def _bool_flag(value: str) -> bool:
    v = value.lower()
    if v in ("true", "1", "on", "yes"):
        return True
    if v in ("false", "0", "off", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {value!r}")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hlograph-opt",
        description="Run hlograph and MLIR pass pipelines on StableHLO modules.",
    )
    p.add_argument("--version", action=VersionAction)
    p.add_argument("input", nargs="?", default="-",
                   help="input .mlir file (text, bytecode or a StableHLO portable artifact), "
                        "or - for stdin (default)")
    p.add_argument("-o", dest="output", default="-",
                   help="output file (default: stdout); a name ending in .mlirbc gets a portable artifact")
    p.add_argument("--emit-bytecode", action="store_true",
                   help="write a StableHLO portable artifact (VHLO bytecode): at the input "
                        "artifact's version, else the oldest the module's ops allow")
    p.add_argument("--load-pass-plugin", action="append", default=[], metavar="FILE_OR_MODULE",
                   help="a Python file or importable module that registers passes on import (repeatable)")
    p.add_argument("-p", "--pass-pipeline", dest="pipeline", action="append", default=None,
                   metavar="PIPELINE",
                   help="textual pipeline, e.g. 'builtin.module(hlograph-fold-constants,cse)' "
                        "(repeat to append)")
    for level in ("0", "1", "2"):
        p.add_argument(f"-O{level}", dest="opt_levels", action="append_const", const=f"O{level}",
                       help=f"run the named pipeline O{level}")
    p.add_argument("--split-input-file", action="store_true",
                   help=f"process each chunk separated by '{_SPLIT_MARKER}' as its own module")
    p.add_argument("--verify-each", type=_bool_flag, nargs="?", const=True, default=True,
                   metavar="BOOL", help="run the verifier after each pass (default true)")
    p.add_argument("--mlir-print-ir-after-all", action="store_true",
                   help="print the module to stderr after each pipeline item")
    p.add_argument("--mlir-print-ir-after", action="append", default=[], metavar="PASS",
                   help="print the module to stderr after the named pass (repeatable)")
    p.add_argument("--mlir-timing", action="store_true", help="print per-pass timing to stderr")
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--dump-dir", default=None,
                   help="write the module after each item to numbered files here "
                        "(default: $HLOGRAPH_DUMP_DIR)")
    p.add_argument("--list-passes", action="store_true",
                   help="list hlograph passes, named pipelines and known upstream passes")
    return p


def _list_passes(out) -> None:
    from ..passes.pipeline import PIPELINES, UPSTREAM_PASSES
    from ..passes.registry import all_passes

    out.write("hlograph passes:\n")
    for cls in all_passes():
        out.write(f"  {cls.name}  -  {cls.description()}\n")
        for opt, typ in cls.options().items():
            default = getattr(cls(), opt.replace("-", "_"))
            out.write(f"      {opt}={_format(default)}  ({getattr(typ, '__name__', typ)})\n")
    out.write("named pipelines:\n")
    for name, text in PIPELINES.items():
        out.write(f"  {name}  -  {text or '(verify only)'}\n")
    out.write("upstream passes (MLIR, StableHLO), e.g.:\n")
    out.write("  " + ", ".join(UPSTREAM_PASSES) + "\n")


def _format(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _chunks(text: str, split: bool) -> list[tuple[str, int]]:
    """(chunk text, number of lines before it)."""
    if not split:
        return [(text, 0)]
    chunks, current, start = [], [], 0
    for i, line in enumerate(text.splitlines(keepends=True)):
        if line.strip().startswith(_SPLIT_MARKER) and line.strip().rstrip("-").strip() == "//":
            chunks.append(("".join(current), start))
            current, start = [], i + 1
        else:
            current.append(line)
    chunks.append(("".join(current), start))
    return chunks


def _shift_lines(message: str, source: str, offset: int) -> str:
    """Makes chunk-relative ``source:line:col`` positions file-relative."""
    if not offset:
        return message
    pattern = re.compile(re.escape(source) + r":(\d+):(\d+)")
    return pattern.sub(lambda m: f"{source}:{int(m.group(1)) + offset}:{m.group(2)}", message)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``hlograph-opt``; returns the exit status."""
    try:
        status = _main(argv)
        sys.stdout.flush()  # here, where a closed pipe is handled, not at exit
        return status
    except BrokenPipeError:  # output piped into a command that stopped reading
        return stop_on_broken_pipe()
    except Exception as e:  # an internal error: say what, without a traceback
        if os.environ.get("HLOGRAPH_TRACEBACK"):
            raise
        sys.stderr.write(f"hlograph-opt: internal error: {type(e).__name__}: {e} "
                         "(set HLOGRAPH_TRACEBACK=1 for the traceback)\n")
        return 1


def _load_plugin(spec: str) -> None:
    """Imports a pass plugin: a Python file (by path) or an importable module."""
    import importlib
    import importlib.util

    if spec.endswith(".py") or os.sep in spec or os.path.isfile(spec):
        if not os.path.isfile(spec):
            raise ValueError(f"cannot load pass plugin {spec}: no such file")
        name = "hlograph_pass_plugin_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(spec))[0])
        module_spec = importlib.util.spec_from_file_location(name, spec)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except Exception as e:
            del sys.modules[name]
            raise ValueError(f"cannot load pass plugin {spec}: {type(e).__name__}: {e}") from None
        return
    try:
        importlib.import_module(spec)
    except Exception as e:
        raise ValueError(f"cannot load pass plugin {spec}: {type(e).__name__}: {e}") from None


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    levels = list(dict.fromkeys(args.opt_levels or []))
    if len(levels) > 1:
        sys.stderr.write("hlograph-opt: error: conflicting optimization levels "
                         f"{' and '.join('-' + lv for lv in levels)}: give one\n")
        return 1
    args.opt_level = levels[0] if levels else None
    for plugin in args.load_pass_plugin:
        try:
            _load_plugin(plugin)
        except ValueError as e:
            sys.stderr.write(f"hlograph-opt: error: {e}\n")
            return 1
    if args.list_passes:
        _list_passes(sys.stdout)
        return 0

    from ..xla import mlir
    from ..xla.mlir import ir, make_context
    from ..passes.pipeline import Instrumentation, build_pass_manager, format_diagnostics, run
    from ..passes.registry import PassError

    source = "<stdin>" if args.input == "-" else args.input
    pipelines = list(args.pipeline or [])
    if args.opt_level:
        pipelines.insert(0, args.opt_level)
    pipeline = ",".join(_strip_wrapper(p) for p in pipelines if _strip_wrapper(p))
    # check the pipeline once, before reading anything
    try:
        with make_context():
            build_pass_manager(pipeline, instrumentation=Instrumentation())
    except ValueError as e:
        sys.stderr.write(f"hlograph-opt: error: {e}\n")
        return 1

    try:
        if args.input == "-":
            data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
        else:
            with open(args.input, "rb") as f:
                data = f.read()
    except OSError as e:
        sys.stderr.write(f"hlograph-opt: error: cannot read {args.input}: {e.strerror}\n")
        return 1
    artifact = mlir.artifact_version(data)
    if artifact is not None:
        newest = mlir.stablehlo_versions()[1]
        if mlir.parse_version(artifact) > mlir.parse_version(newest):
            sys.stderr.write(f"hlograph-opt: error: {source} was written at StableHLO {artifact}, newer "
                             f"than {newest}, the newest this jaxlib reads\n")
            return 1
    emit_bytecode = args.emit_bytecode or args.output.endswith(".mlirbc")
    if data.startswith(_BYTECODE_MAGIC):
        chunks = [(data, 0)]  # MLIR bytecode: one module
    else:
        try:
            chunks = _chunks(data.decode(), args.split_input_file)
        except UnicodeDecodeError:
            sys.stderr.write(f"hlograph-opt: error: {source} is neither MLIR text nor MLIR bytecode\n")
            return 1

    outputs: list[str] = []
    failed = False
    for chunk, offset in chunks:
        ctx = make_context()
        if isinstance(chunk, str):  # leading newlines keep a chunk's lines those of the file
            chunk, offset = "\n" * offset + chunk, 0
        with ctx:
            try:
                if artifact is not None:
                    module = mlir.deserialize_portable_artifact(chunk, ctx)
                else:
                    module = ir.Module.parse(chunk)
            except ir.MLIRError as e:
                sys.stderr.write(_shift_lines(format_diagnostics(e, source), source, offset) + "\n")
                failed = True
                continue
            try:
                run(module, pipeline, verify_each=args.verify_each,
                    print_ir_after_all=args.mlir_print_ir_after_all,
                    print_ir_after=args.mlir_print_ir_after, timing=args.mlir_timing,
                    dump_dir=args.dump_dir)
            except PassError as e:
                cause = e.__cause__
                if isinstance(cause, ir.MLIRError):
                    msg = format_diagnostics(cause, source)
                else:
                    msg = f"{source}: error: {e}"
                sys.stderr.write(_shift_lines(msg, source, offset) + "\n")
                failed = True
                continue
            except ValueError as e:
                sys.stderr.write(f"hlograph-opt: error: {e}\n")
                return 1
            if emit_bytecode:
                try:
                    outputs.append(mlir.serialize_portable_artifact(module, artifact) if artifact
                                   else mlir.serialize_portable_artifact_oldest(module)[0])
                except Exception as e:
                    sys.stderr.write(f"hlograph-opt: error: cannot write {source} as a StableHLO "
                                     f"portable artifact: {e}\n")
                    return 1
                continue
            text = module.operation.get_asm(enable_debug_info=args.mlir_print_debuginfo)
            if args.mlir_print_debuginfo:
                text = _name_locations(text, source)
            outputs.append(text)
    if emit_bytecode:
        return _write_bytecode(outputs, args.output, failed)
    result = f"\n{_SPLIT_MARKER}\n".join(o.rstrip("\n") for o in outputs) + ("\n" if outputs else "")
    if args.output == "-":
        sys.stdout.write(result)
        sys.stdout.flush()
    else:
        try:
            with open(args.output, "w") as f:
                f.write(result)
        except OSError as e:
            sys.stderr.write(f"hlograph-opt: error: cannot write {args.output}: {e.strerror}\n")
            return 1
    return 1 if failed else 0


def _name_locations(text: str, source: str) -> str:
    """The parser names its input ``-``; printed locations name the file."""
    name = source.replace("\\", "\\\\").replace('"', '\\"')
    return re.sub(r'(?<=loc\()"-"(?=:\d+:\d+)|(?<=[(\s])"-"(?=:\d+:\d+)', f'"{name}"', text)


def _write_bytecode(outputs: list[bytes], output: str, failed: bool) -> int:
    if len(outputs) > 1:
        sys.stderr.write("hlograph-opt: error: a portable artifact holds one module; "
                         "drop --split-input-file or write text\n")
        return 1
    data = outputs[0] if outputs else b""
    if output == "-":
        if sys.stdout.isatty():
            sys.stderr.write("hlograph-opt: error: not writing bytecode to a terminal; give -o FILE\n")
            return 1
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        try:
            with open(output, "wb") as f:
                f.write(data)
        except OSError as e:
            sys.stderr.write(f"hlograph-opt: error: cannot write {output}: {e.strerror}\n")
            return 1
    return 1 if failed else 0


def _strip_wrapper(p: str) -> str:
    from ..passes.pipeline import split_pipeline

    try:
        return ",".join(split_pipeline(p))
    except ValueError:
        return p


if __name__ == "__main__":
    sys.exit(main())
