#!/usr/bin/env python3
"""Long fuzz run of the parser over mutated nvidia-cutlass headers (not part of the tests).

    python3 bench/fuzz_long.py [--inputs N] [--seed S] [--minutes M]

Each input: a real header (include/ and examples/ sm90 files), 1-8 random mutations (byte or
line deletions, duplications, truncation, token insertions, splicing with another header, byte
flips), then parse_text() and a JSON Schema check. Any exception other than a VizError, or an
invalid model, is a crash: it is written to fuzz-crashes/ and counted. The short, derandomized
CI run is tests/test_fuzz.py (FUZZ_EXAMPLES=N there runs hypothesis longer).
"""

import argparse
import json
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import parse_cutlass  # noqa: E402

TOKENS = [b"{", b"}", b"<", b">", b"(", b")", b";", b"//", b"/*", b"*/", b'"', b"'", b'R"(', b')"',
          b"\\", b"\n", b"#if 0\n", b"#endif\n", b"using X = ", b"template <", b"pipeline.",
          b"producer_acquire(", b"consumer_wait(", b"copy(", b"gemm(", b"\xff", b"\r", b"::", b"->"]


def seeds():
    """Real sm90 headers (and drivers) of the installed nvidia-cutlass."""
    root = next(r for r in parse_cutlass.cutlass_roots() if (r / "include").is_dir())
    files = sorted((root / "include" / "cutlass" / "gemm").rglob("sm90*.hpp"))
    files += sorted((root / "examples").rglob("*hopper*/*.cu"))[:10]
    files += sorted((root / "examples" / "88_hopper_fmha").rglob("*.hpp"))
    return [f.read_bytes() for f in files]


def mutate(rng, data, other):
    """One random mutation of data (other: a second header for splicing)."""
    n = len(data)
    i = rng.randrange(n + 1)
    span = rng.choice([1, 2, 8, 64, 512, 4096])
    kind = rng.randrange(8)
    if kind == 0:
        return data[:i] + data[i + span:]
    if kind == 1:
        return data[:i] + data[i:i + span] * rng.randint(2, 20) + data[i + span:]
    if kind == 2:
        return data[:i]
    if kind == 3:
        return data[:i] + rng.choice(TOKENS) * rng.choice([1, 3, 100, 10000]) + data[i:]
    if kind == 4:
        lines = data.split(b"\n")
        k = rng.randrange(len(lines) + 1)
        return b"\n".join(lines[:k] + lines[k + rng.randint(1, 40):])
    if kind == 5:
        return data[:i] + other[rng.randrange(len(other) + 1):]
    if kind == 6:
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
    lines = data.split(b"\n")
    rng.shuffle(lines)
    return b"\n".join(lines)


def main():
    """Run the fuzzer and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=60.0, help="stop early after this long")
    args = ap.parse_args()
    import jsonschema
    validator = jsonschema.Draft202012Validator(json.loads((ROOT / "schema" / "kernel_viz.schema.json").read_text()))
    rng = random.Random(args.seed)
    corpus = seeds()
    crashes, kinds, tried = 0, {}, 0
    t0 = time.perf_counter()
    slowest = 0.0
    for tried in range(1, args.inputs + 1):
        data = rng.choice(corpus)
        other = rng.choice(corpus)
        for _ in range(rng.randint(1, 8)):
            data = mutate(rng, data, other)
        t = time.perf_counter()
        try:
            model = parse_cutlass.parse_text(data.decode("utf-8", errors="replace"), "fuzzed.hpp")
            errors = list(validator.iter_errors(model))
            if errors:
                raise AssertionError(f"schema: {errors[0].message}")
            kinds[model["kind"]] = kinds.get(model["kind"], 0) + 1
        except parse_cutlass.VizError:
            kinds["error"] = kinds.get("error", 0) + 1
        except Exception:   # a crash: keep the input for the fix
            crashes += 1
            out = ROOT / "fuzz-crashes"
            out.mkdir(exist_ok=True)
            (out / f"crash-{args.seed}-{tried}.hpp").write_bytes(data)
            print(f"crash on input {tried}:\n{traceback.format_exc()}", file=sys.stderr)
        slowest = max(slowest, time.perf_counter() - t)
        if time.perf_counter() - t0 > args.minutes * 60:
            break
    secs = time.perf_counter() - t0
    print(f"fuzz_long: seed {args.seed}, {tried} inputs in {secs:.0f} s, {crashes} crashes, "
          f"slowest input {slowest:.2f} s, kinds {dict(sorted(kinds.items()))}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
