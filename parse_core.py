#!/usr/bin/env python3
"""What the two front ends share: errors, reading a source, the op vocabulary, the scan.

The C++ front end (parse_cutlass.py, regexes over blanked text) and the CuTe DSL front end
(parse_dsl.py, Python's `ast`) print one JSON contract (docs/json.md). Everything that is not
parsing lives here, once:
  - the version, the schema version and the limits every input meets (MAX_FILE_BYTES, ...);
  - the errors (VizError and its subclasses: one stderr line, exit status 2);
  - read_source(): bytes -> text with the size, binary and encoding checks, and display_path();
  - the op vocabulary (pipeline member ops, the role rule role_of()) and the spelling rules
    (operand_name(), RE_ARCH_NAME);
  - the front ends by file kind (FRONT_ENDS, front_end_for(), parse_file()), which neither
    front end owns, and the scan over a tree (scan(), scan_file(), scan_row()).
Neither front end is imported here at import time: parse_file() and scan_file() import the one
a file needs, by name (FRONT_ENDS), the first time it is needed.
"""

import importlib
import os
import re
import stat
import sys
from pathlib import Path

__version__ = "0.1.0"
SCHEMA_VERSION = 3
TOOL_NAME = "kernel_logical_visualizer"

MAX_FILE_BYTES = 16 * 1024 * 1024   # larger inputs are refused: headers are < 1 MB
MAX_TEXT_CHARS = 160                # statement texts are trimmed to this length
BINARY_SNIFF_BYTES = 8192

# ----------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------


class VizError(Exception):
    """Base of every error the CLIs report as one line (`path:line:col: msg`) with exit status 2."""

    def __init__(self, path, msg, line=None, col=None, notes=()):
        super().__init__(msg)
        self.path, self.msg, self.line, self.col = str(path), msg, line, col
        self.notes = list(notes)

    def __str__(self):
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        return f"{where}: {self.msg}"


class InputError(VizError):
    """The input cannot be read or is not a source file (missing, directory, binary, too large)."""


class ParseError(VizError, ValueError):
    """The text was read but holds nothing this tool can model."""


class DriverFileError(ParseError):
    """An example driver (.cu with CollectiveBuilder): the pipeline lives in a collective mainloop."""


# ----------------------------------------------------------------------------------------------
# Reading a source
# ----------------------------------------------------------------------------------------------


def read_source(path):
    """Read a source file; return (text, warnings). Raise InputError for unreadable input."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a directory, not a source file")
    if not path.is_file():
        # A FIFO or device may block on open or never end: refuse it before opening it.
        raise InputError(path, "not a regular file")
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):   # replaced since the check above
                raise InputError(path, "not a regular file")
            if info.st_size > MAX_FILE_BYTES:
                raise InputError(path, f"file too large ({info.st_size} bytes; the limit is "
                                 f"{MAX_FILE_BYTES})")
            # Never read more than the limit, even if the file grows while we read it.
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(path, f"file too large (more than {MAX_FILE_BYTES} bytes)")
    if not data.strip():
        raise InputError(path, "empty file")
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        raise InputError(path, "binary file (NUL bytes), not C++ source")
    warnings = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        warnings.append(f"{path}: not valid UTF-8 (first bad byte at offset {exc.start}); "
                        "decoded with replacement characters")
    if text.startswith("\ufeff"):
        text = " " + text[1:]   # keep offsets: a BOM becomes a blank
    # Normalize line ends without changing the number of lines: CR LF -> ' ' LF, lone CR -> LF.
    if "\r" in text:
        text = text.replace("\r\n", " \n").replace("\r", "\n")
    return text, warnings


def display_path(path):
    """Path relative to the nearest tree root it is inside, else as given: a CUTLASS tree
    (include/cutlass or python/CuTeDSL), a FlashAttention checkout (hopper/ and csrc/), or the
    directory holding an installed flash_attn package (FA4's CuTe DSL sources: flash_attn/...)."""
    p = Path(path)
    try:
        resolved = p.resolve()
    except OSError:
        return str(path)
    for parent in resolved.parents:
        if parent.name == "flash_attn":
            return resolved.relative_to(parent.parent).as_posix()
        if (parent / "include" / "cutlass").is_dir() or (parent / "python" / "CuTeDSL").is_dir() or \
                (parent / "hopper").is_dir() and (parent / "csrc").is_dir():
            return resolved.relative_to(parent).as_posix()
    return str(path)



# ----------------------------------------------------------------------------------------------
# The op vocabulary and the spelling rules
# ----------------------------------------------------------------------------------------------

# Pipeline member calls (CUTLASS's PipelineTmaAsync / PipelineAsync / PipelineUmma... methods),
# the op kinds both front ends give them. The C++ front end matches these names as calls; the
# DSL front end maps its methods onto them (parse_dsl.PIPELINE_METHODS).
PRODUCER_OPS = ("producer_acquire", "producer_try_acquire", "producer_get_barrier",
                "producer_commit", "producer_expect_transaction", "producer_tail",
                "producer_acquire_bytes", "producer_arrive", "producer_commit_local")
CONSUMER_OPS = ("consumer_try_wait", "consumer_test_wait", "consumer_wait", "consumer_release",
                "consumer_release_from_umma")
PIPELINE_MEMBER_OPS = frozenset(PRODUCER_OPS + CONSUMER_OPS)

# The role rule: a function that fills stages (acquire, commit, a load into shared memory) is a
# producer, one that drains them (wait, release) a consumer, one that does both is "both".
PRODUCER_ROLE_OPS = frozenset({"producer_acquire", "producer_commit", "producer_tail",
                               "producer_acquire_bytes", "producer_commit_local",
                               "tma_load", "cp_async"})
CONSUMER_ROLE_OPS = frozenset({"consumer_wait", "consumer_try_wait", "consumer_release",
                               "consumer_release_from_umma"})


def role_of(ops):
    """producer / consumer / both / other from the kinds of ops a function performs."""
    kinds = {o["op"] for o in ops}
    prod = bool(kinds & PRODUCER_ROLE_OPS)
    cons = bool(kinds & CONSUMER_ROLE_OPS)
    return "both" if prod and cons else "producer" if prod else "consumer" if cons else "other"


# The architecture a file name spells (sm90_..., sm_100a, Sm100...): both front ends try it first.
RE_ARCH_NAME = re.compile(r"(?i)(?<![a-z0-9])sm_?(?P<num>\d{2,3})[a-z]?(?![0-9])")


def operand_name(raw):
    """The one spelling of an operand, whichever front end read it: a -> A, vt -> Vt,
    V_new -> V_new, K_ -> K, dO -> dO, dPsum -> dPsum.

    A trailing `_` (CUTLASS's member style, tma_load_a_) is dropped. A lower-case `d` before an
    upper-case letter is a gradient (FlashAttention's dO, dQ, dK, dV, dS, dPsum) and is kept as
    written, the spelling schedule.js's attention operands use (`/^(Q|K|V|dO)$/`); any other
    name gets an upper-case first letter. Names all in lower case (smem_do) are not guessed at:
    `do` gives `Do`, as `q` gives `Q`.
    """
    if not raw:
        return None
    name = raw.rstrip("_") or raw
    if name[0] == "d" and len(name) > 1 and name[1].isupper():
        return name
    return name[:1].upper() + name[1:]


def as_list(value):
    """A class field is a string or a list of candidates; always return a list."""
    return value if isinstance(value, list) else [value]


# ----------------------------------------------------------------------------------------------
# The front ends, by file kind
# ----------------------------------------------------------------------------------------------

# (language, the name endings it reads, its module, its single-file parse, its scan) in the
# order they are tried. A file whose name has none of the endings goes to the last (C++) entry
# on a single parse; the scan reads only the endings listed (SCAN_SUFFIXES).
# A front end's parse(path, kernel_layer) returns a model or raises VizError; its
# scan(text, path, display, warnings) returns the model a single parse would print, else None.
FRONT_ENDS = (
    ("cute-dsl", (".py",), "parse_dsl", "parse_file", "scan_model"),
    # compiler output, not source: parsed on its own, never read by --scan (no scan entry)
    ("ptx", (".ptx",), "ptx_programs", "parse_file", None),
    ("cpp", (".hpp", ".h", ".cuh", ".cu", ".inl", ".hxx", ".hh"), "parse_cutlass", "parse_header",
     "scan_model"),
)
SCAN_SUFFIXES = tuple(s for entry in FRONT_ENDS if entry[4] for s in entry[1])
_MODULES = {}   # module name -> the loaded front end (register_front_end)


def register_front_end(name, module):
    """Record a front end's module under its name. Each front end calls this at import, so a
    front end run as a script (`python3 parse_cutlass.py`, where it is __main__) is used as it
    is instead of being imported a second time (a second copy costs tens of milliseconds)."""
    _MODULES.setdefault(name, module)


def _module(name):
    """A front end's module, imported by name the first time it is needed."""
    if name not in _MODULES:
        importlib.import_module(name)   # it registers itself
        _MODULES.setdefault(name, sys.modules[name])
    return _MODULES[name]


def front_end_for(path):
    """The FRONT_ENDS entry that reads path: by the end of its name, else the last (C++)."""
    name = Path(path).name
    for entry in FRONT_ENDS:
        if name.endswith(entry[1]):
            return entry
    return FRONT_ENDS[-1]


def parse_file(path, kernel_layer=None):
    """Parse one source file (and a C++ kernel layer) with the front end for its kind; raise VizError."""
    _, _, module, parse, _ = front_end_for(path)
    return getattr(_module(module), parse)(Path(path), kernel_layer)


# ----------------------------------------------------------------------------------------------
# Scan
# ----------------------------------------------------------------------------------------------


def scan_row(model):
    """The --scan summary row of a parsed model."""
    classes = []
    for p in model["pipelines"]:
        for c in as_list(p["class"]):
            if c not in classes:
                classes.append(c)
    fns = model["functions"]
    return {
        "path": model["source"]["path"], "kind": model["kind"], "arch": model["arch"],
        "file_kind": _file_kind(model["source"]["path"]),
        "pipeline_classes": classes,
        "pipeline_objects": len(model.get("pipeline_objects", [])),
        "producers": sum(f["role"] in ("producer", "both") for f in fns),
        "consumers": sum(f["role"] in ("consumer", "both") for f in fns),
        "ops": sum(len(f["ops"]) for f in fns),
        "warnings": len(model["warnings"]),
    }


def _file_kind(path):
    """The file's suffix without the dot (hpp, h, cuh, cu, inl, ...)."""
    return Path(path).suffix.lstrip(".") or "none"


def _scan_paths(base):
    """The files a scan of base reads, in its output order (a sorted walk, SCAN_SUFFIXES only)."""
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for fname in sorted(filenames):
            if fname.endswith(SCAN_SUFFIXES):
                yield Path(dirpath) / fname


def scan_file(base, path, with_model=False):
    """The scan row of one file under base, or None when a single parse would not accept it;
    with_model: the parsed model too, under `_model` (for --fit).

    Raises what the front end's scan raises: a VizError ends the scan with that one line, as
    before the pool; anything else is a bug and keeps its traceback.
    """
    try:
        text, warns = read_source(path)
    except InputError:
        return None
    display = path.relative_to(base).as_posix()
    _, _, module, _, scan_model = front_end_for(path)
    model = getattr(_module(module), scan_model)(text, path, display, warns)
    if model is None:
        return None
    row = scan_row(model)
    if with_model:
        row["_model"] = model
    return row


def default_jobs():
    """Worker processes of a scan when --jobs is not given: one per core."""
    return os.cpu_count() or 1


def scan(directory, jobs=1, with_models=False):
    """Yield one summary row per file under directory that a single parse accepts (parse_file
    would print a model for it, with the same row), in sorted path order.

    jobs > 1 parses the files in that many worker processes (_scan_pool); the rows, their order
    and the errors are the same as with jobs=1, which parses in this process.
    """
    base = Path(directory)
    paths = list(_scan_paths(base))
    if jobs <= 1 or len(paths) < 2:
        for path in paths:
            row = scan_file(base, path, with_models)
            if row is not None:
                yield row
        return
    yield from _scan_pool(base, paths, min(jobs, len(paths)), with_models)


def _ignore_sigint():
    """Worker initializer: Ctrl-C reaches the whole process group, and only the parent handles it
    (it stops the workers), so a worker never prints a KeyboardInterrupt traceback of its own."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _scan_pool(base, paths, jobs, with_models=False):
    """scan()'s rows with the files parsed by `jobs` worker processes, yielded in paths' order.

    Every file is submitted at once (one task each: the largest CUTLASS header parses in under
    0.1 s, so tasks balance without chunking) and results are read back in submission order,
    so the output is byte-identical to jobs=1. A file whose task fails for any reason (the parse
    raised, a worker died and broke the pool) is parsed again here, in this process, so it gives
    exactly the row, the one-line VizError or the traceback that jobs=1 gives; after a broken
    pool that is every remaining file. If the scan ends early (Ctrl-C, a closed pipe, an error),
    pending tasks are cancelled and the workers terminated and joined: none is left running.
    """
    # Imported here: multiprocessing is a noticeable part of a single-file parse's start-up.
    from concurrent.futures import ProcessPoolExecutor
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_ignore_sigint)
    finished = False
    try:
        futures = [pool.submit(scan_file, base, path, with_models) for path in paths]
        for path, future in zip(paths, futures):
            try:
                row = future.result()
            except Exception:   # the worker's failure is redone here, where jobs=1 would see it
                row = scan_file(base, path, with_models)
            if row is not None:
                yield row
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:
            _stop_pool(pool)


def _stop_pool(pool):
    """Cancel a pool's pending tasks, terminate its workers and join them (an early end of a scan)."""
    terminate = getattr(pool, "terminate_workers", None)   # Python 3.14+
    if terminate is not None:
        terminate()
    else:
        # Before 3.14 the executor has no public way to stop a running task; its worker table is
        # the only handle (present, as a dict of multiprocessing.Process, since 3.2).
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            proc.terminate()
    pool.shutdown(wait=True, cancel_futures=True)
