"""Compile the translation units of tests/compiled/ to PTX with nvcc, cached by a hash of the inputs.

The cache key is location-independent, so every checkout and worktree shares one cache. It hashes
what the PTX depends on, by content: the TU's text and the shared headers of this folder, nvcc's
`--version` output, the flag list with each include root written as a placeholder (ROOT_NAMES),
the CUTLASS version, and the relative path and bytes of every file under CUTLASS's include/ and
under the unit's include folders (a FlashAttention unit's under $FLASH_ATTENTION_PATH): so a
different header revision never reuses another's PTX, wherever either lives. The PTX's `.file`
paths are absolute (they must be the headers the parser reads), so an entry compiled at other
roots is reused through a localized copy whose `.file` paths are rewritten to this checkout's
roots (`localize`). The cache lives outside the repository: $KLV_PTX_CACHE, else
$XDG_CACHE_HOME (or ~/.cache) /kernel_logical_visualizer/ptx. A cached entry is `<key>.ptx` plus
`<key>.json` (TU name, flags, the roots it was compiled at, compile seconds); writes go through a
temporary file and os.replace, so a killed compile never leaves a half-written PTX behind.

    python tests/compiled/ptx_cache.py [--jobs 2] [TU ...]   # build (or reuse) and print times
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
NVCC_FLAGS = ("-std=c++17", "-lineinfo", "-ptx", "--expt-relaxed-constexpr")
# A TU that takes longer than this is treated as hung (a generous bound, never a timing check:
# the slowest TU takes about a minute on the project's 2-core machine).
COMPILE_TIMEOUT_S = 900
DEFAULT_JOBS = 2


class CompileError(RuntimeError):
    """nvcc failed on a TU (the message holds the tail of its output)."""


# FlashAttention-3's own nvcc defines (hopper/setup.py's nvcc_flags): the 128 x 176 tile needs
# the extended WGMMA shapes; GDC is FA3's PDL; NDEBUG and fast math as FA3 builds.
FA3_DEFINES = ("-DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED", "-DCUTLASS_ENABLE_GDC_FOR_SM90",
               "-DCUTLASS_DEBUG_TRACE_LEVEL=0", "-DNDEBUG", "--use_fast_math")
FLASH_ATTENTION = "flash_attention"   # Unit.source of the units built from $FLASH_ATTENTION_PATH
HEADER_SUFFIXES = (".h", ".hpp", ".cuh")


@dataclass(frozen=True)
class Unit:
    """One translation unit: its file, target, the extra include folders (under its source root:
    the CUTLASS root, or the FlashAttention checkout when source is FLASH_ATTENTION) and defines."""
    name: str
    arch: str                 # sm_90a / sm_100a
    includes: tuple = ()      # folders under the unit's source root, besides CUTLASS's include/
    defines: tuple = ()       # extra nvcc flags (-D...)
    source: str = "cutlass"   # or FLASH_ATTENTION

    @property
    def path(self):
        """The .cu file."""
        return HERE / f"{self.name}.cu"


UNITS = (
    Unit("sm90_gemm_pingpong", "sm_90a"),
    Unit("sm90_gemm_cooperative", "sm_90a"),
    Unit("sm90_gemm_warpspecialized", "sm_90a"),
    Unit("sm90_gemm_cpasync", "sm_90a"),
    Unit("sm100_gemm_1sm", "sm_100a"),
    Unit("sm100_gemm_2sm", "sm_100a"),
    Unit("sm100_gemm_blockscaled", "sm_100a"),
    Unit("sm90_fmha_fwd", "sm_90a", ("examples/88_hopper_fmha",)),
    Unit("sm100_fmha_fwd", "sm_100a", ("examples/77_blackwell_fmha",)),
)
# Built only when FLASH_ATTENTION_PATH names a checkout (FlashAttention is not a package here).
FA3_UNITS = (
    Unit("fa3_fwd", "sm_90a", ("hopper",), FA3_DEFINES, FLASH_ATTENTION),
)
UNITS_BY_NAME = {u.name: u for u in UNITS + FA3_UNITS}


def flash_attention_root():
    """The FlashAttention checkout of $FLASH_ATTENTION_PATH (with hopper/), or None."""
    env = os.environ.get("FLASH_ATTENTION_PATH")
    if env and (Path(env) / "hopper").is_dir():
        return Path(env)
    return None


def available_units():
    """The CUTLASS units, and the FA3 units when a FlashAttention checkout is given."""
    return UNITS + (FA3_UNITS if flash_attention_root() else ())


def source_root(unit, root):
    """The root the unit's `includes` are under: the CUTLASS root, or the FlashAttention checkout."""
    if unit.source == FLASH_ATTENTION:
        fa = flash_attention_root()
        if fa is None:
            raise CompileError(f"{unit.name} needs FLASH_ATTENTION_PATH (a flash-attention checkout)")
        return fa
    return root


def find_nvcc():
    """The nvcc to use: ptx_lines.find_nvcc ($KLV_NVCC, PATH, /usr/local/cuda/bin, the PyPI wheel)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import ptx_lines
    return ptx_lines.find_nvcc()


def cache_dir():
    """The PTX cache folder (created on first use)."""
    env = os.environ.get("KLV_PTX_CACHE")
    if env:
        d = Path(env)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        d = Path(base) / "kernel_logical_visualizer" / "ptx"
    d.mkdir(parents=True, exist_ok=True)
    return d


def cutlass_version(root):
    """CUTLASS's version: version.h's MAJOR.MINOR.PATCH and the installed distribution's version."""
    text = (root / "include" / "cutlass" / "version.h").read_text(errors="replace")
    parts = []
    for name in ("CUTLASS_MAJOR", "CUTLASS_MINOR", "CUTLASS_PATCH"):
        for line in text.splitlines():
            words = line.split()
            if len(words) >= 3 and words[0] == "#define" and words[1] == name:
                parts.append(words[2])
    try:
        from importlib.metadata import version
        dist = version("nvidia-cutlass")
    except Exception:   # not installed as a distribution ($CUTLASS_PATH checkout): version.h only
        dist = "none"
    return ".".join(parts) + "+" + dist


def nvcc_version(nvcc):
    """nvcc --version's output (part of the cache key)."""
    return subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=True).stdout


# The include roots of a compile, by placeholder name: the key hashes the flags with these names
# in place of the absolute paths, and `localize` rewrites `.file` paths from one set to another.
ROOT_NAMES = ("cutlass", "tests", "source")


def roots_of(unit, root):
    """{placeholder: absolute folder} of one unit's compile: CUTLASS's root, this folder, and the
    unit's source root (the CUTLASS root again, or the FlashAttention checkout)."""
    return {"cutlass": str(root), "tests": str(HERE), "source": str(source_root(unit, root))}


def flags(unit, root, roots=None):
    """The full nvcc argument list (after the nvcc path) for one unit; with `roots` given
    ({placeholder: text}), each include root is written as that text instead of its path."""
    r = roots or roots_of(unit, root)
    incs = [f"-I{r['cutlass']}/include", f"-I{r['tests']}"] + [f"-I{r['source']}/{sub}" for sub in unit.includes]
    return [*NVCC_FLAGS, *unit.defines, f"-arch={unit.arch}", *incs]


def cache_key(unit, root, nvcc_ver):
    """sha256 of the TU text, this folder's headers, nvcc's version, the flags (roots as
    placeholders), CUTLASS's version and the contents of the include trees (tree_digest)."""
    placeholders = {name: f"<{name}>" for name in ROOT_NAMES}
    h = hashlib.sha256()
    for part in (unit.path.read_bytes(),
                 *(p.name.encode() + b"\0" + p.read_bytes() for p in sorted(HERE.glob("*.cuh"))),
                 nvcc_ver.encode(), "\0".join(flags(unit, root, placeholders)).encode(),
                 cutlass_version(root).encode(),
                 tree_digest(root / "include", None).encode(),
                 *(tree_digest(source_root(unit, root) / sub, HEADER_SUFFIXES).encode()
                   for sub in unit.includes)):
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()[:32]


_TREE_DIGESTS = {}


def tree_digest(folder, suffixes):
    """sha256 over (path relative to `folder`, sha256 of bytes) of every file under it (only those
    ending in `suffixes` when given), in sorted order; memoized per process (CUTLASS's include/ is
    about 800 files, 27 MB: 0.4 s). A missing folder digests as empty."""
    key = (str(folder), suffixes)
    if key not in _TREE_DIGESTS:
        h = hashlib.sha256()
        files = sorted(p for p in Path(folder).rglob("*") if p.is_file()) if Path(folder).is_dir() else []
        for p in files:
            if suffixes and p.suffix not in suffixes:
                continue
            h.update(p.relative_to(folder).as_posix().encode() + b"\0")
            h.update(hashlib.sha256(p.read_bytes()).digest())
        _TREE_DIGESTS[key] = h.hexdigest()
    return _TREE_DIGESTS[key]


def localize(text, old_roots, new_roots):
    """The PTX text with each `.file` path under one of `old_roots` moved under the same-named root
    of `new_roots` (longest root first, so a root inside another maps to itself); other lines and
    paths (CUDA's own headers) are unchanged."""
    pairs = sorted(((old_roots[n].rstrip("/") + "/", new_roots[n].rstrip("/") + "/")
                    for n in ROOT_NAMES if n in old_roots and n in new_roots),
                   key=lambda p: -len(p[0]))
    out = []
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith(".file"):
            q = line.find('"')
            if q >= 0:
                for old, new in pairs:
                    if line.startswith(old, q + 1):
                        line = line[:q + 1] + new + line[q + 1 + len(old):]
                        break
        out.append(line)
    return "".join(out)


def _write_atomic(path, text):
    """Write text to path through a temporary file and os.replace."""
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def build(unit, root, nvcc, nvcc_ver=None):
    """The unit's PTX path, compiling it unless cached; returns (path, seconds, cached). An entry
    compiled at other roots comes back as a localized copy (`<entry>-at-<roots hash>.ptx`)."""
    nvcc_ver = nvcc_ver or nvcc_version(nvcc)
    key = cache_key(unit, root, nvcc_ver)
    out = cache_dir() / f"{unit.name}-{key}.ptx"
    meta = out.with_suffix(".json")
    here = roots_of(unit, root)
    if out.is_file() and meta.is_file():
        info = json.loads(meta.read_text())
        there = info.get("roots", here)
        if there == here:
            return out, info.get("compile_seconds"), True
        tag = hashlib.sha256(json.dumps(here, sort_keys=True).encode()).hexdigest()[:12]
        local = out.with_name(f"{out.stem}-at-{tag}.ptx")
        if not local.is_file():
            _write_atomic(local, localize(out.read_text(), there, here))
        return local, info.get("compile_seconds"), True
    tmp = out.with_suffix(f".tmp{os.getpid()}")
    cmd = [nvcc, *flags(unit, root), str(unit.path), "-o", str(tmp)]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
    seconds = round(time.monotonic() - start, 1)
    if proc.returncode != 0 or not tmp.is_file():
        tmp.unlink(missing_ok=True)
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-30:])
        raise CompileError(f"nvcc failed on {unit.path.name} ({proc.returncode}):\n{tail}")
    os.replace(tmp, out)
    _write_atomic(meta, json.dumps({"unit": unit.name, "flags": flags(unit, root), "roots": here,
                                    "compile_seconds": seconds,
                                    "nvcc": nvcc_ver.strip().splitlines()[-1]},
                                   indent=1, sort_keys=True))
    return out, seconds, False


def build_all(units, root, nvcc, jobs=DEFAULT_JOBS):
    """{name: (path or CompileError, seconds, cached)} for the units, `jobs` nvcc at a time."""
    nvcc_ver = nvcc_version(nvcc)

    def one(unit):
        try:
            return unit.name, build(unit, root, nvcc, nvcc_ver)
        except (CompileError, subprocess.TimeoutExpired) as err:
            return unit.name, (err, None, False)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return dict(pool.map(one, units))


def cutlass_root():
    """The CUTLASS source root (include/ and examples/) of parse_cutlass.cutlass_roots(), or None."""
    sys.path.insert(0, str(HERE.parent.parent))
    import parse_cutlass
    for root in parse_cutlass.cutlass_roots():
        if (root / "include" / "cutlass" / "version.h").is_file():
            return root
    return None


def main(argv=None):
    """Build the named units (default: all) and print one line per unit."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("units", nargs="*", metavar="TU",
                    help=", ".join(UNITS_BY_NAME) + " (fa3_fwd needs FLASH_ATTENTION_PATH)")
    ap.add_argument("--jobs", type=int, default=DEFAULT_JOBS)
    args = ap.parse_args(argv)
    unknown = [n for n in args.units if n not in UNITS_BY_NAME]
    if unknown:
        print(f"ptx_cache: unknown TU {unknown[0]} (known: {', '.join(UNITS_BY_NAME)})", file=sys.stderr)
        return 2
    nvcc, root = find_nvcc(), cutlass_root()
    if nvcc is None or root is None:
        print(f"ptx_cache: {'no nvcc' if nvcc is None else 'no CUTLASS headers'}", file=sys.stderr)
        return 2
    units = [UNITS_BY_NAME[n] for n in args.units] or list(available_units())
    start = time.monotonic()
    results = build_all(units, root, nvcc, args.jobs)
    failed = 0
    for name, (path, seconds, cached) in results.items():
        if isinstance(path, Exception):
            failed += 1
            print(f"{name}\tFAILED\t{path}")
        else:
            print(f"{name}\t{seconds}s\t{'cached' if cached else 'compiled'}\t{path.stat().st_size}B\t{path}")
    print(f"total wall {time.monotonic() - start:.1f}s, jobs {args.jobs}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
