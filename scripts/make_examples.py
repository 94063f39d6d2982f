#!/usr/bin/env python3
"""Regenerate examples/ from the installed nvidia-cutlass headers (or check they are current).

    python3 scripts/make_examples.py          # rewrite examples/
    python3 scripts/make_examples.py --check  # exit 1 and name the stale files if any differ
    python3 scripts/make_examples.py --flash-attention ~/src/flash-attention
                                              # also re-parse FA3's forward mainloop

FlashAttention-4's CuTe DSL forward kernels (flash_attn/cute/flash_fwd_sm90.py and
flash_fwd_sm100.py of the flash-attn-4 wheel, a test dependency) are parsed into
examples/fa4_fwd_sm90.json and fa4_fwd_sm100.json when installed, else their committed JSON is
re-rendered.

FlashAttention-3 is not on the package registries, so examples/fa3_fwd.json (parsed facts of
hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp with hopper/flash_fwd_kernel_sm90.h as kernel layer)
is only re-parsed when a checkout is given; its page is always re-rendered from the JSON.

The JSON files hold parsed facts only (names, line numbers, one-line statement texts); the HTML
pages are rendered from those JSON files, so `python3 viz.py` works with nothing installed.
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pagekit  # noqa: E402
import parse_cutlass  # noqa: E402

MAINLOOP = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
KERNELS = {
    "pingpong": "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp",
    "cooperative": "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp",
}
# CUTLASS 4.2's Blackwell (SM100) UMMA GEMM: the collective mainloop with its kernel layer.
SM100_MAINLOOP = "include/cutlass/gemm/collective/sm100_mma_warpspecialized.hpp"
SM100_KERNEL = "include/cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized.hpp"
# CUTLASS 4.2's example 77 Blackwell attention forward: the mainloop (with its composed Load
# collective), its kernel layer and its epilogue collective, run by the program model.
FMHA_DIR = "examples/77_blackwell_fmha/"
FMHA_MAINLOOP = FMHA_DIR + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp"
FMHA_KERNEL = FMHA_DIR + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp"
FMHA_EPILOGUE = FMHA_DIR + "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp"
# The canonical view: 4 stages, 4 output tiles x 5 k-tiles.
EXAMPLE_KNOBS = {"stages": 4, "outputTiles": 4, "kTiles": 5}
FA3_MAINLOOP = "hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp"
FA3_KERNEL = "hopper/flash_fwd_kernel_sm90.h"
FA3_JSON = "fa3_fwd.json"
# FA3's forward kernel as it is built by default (schedule.js derives the rest from FA3's rules:
# BF16, head dimension 128: two math warpgroups, IntraWGOverlap and the scheduler barrier on,
# Transpose_V off), over 6 KV blocks per output tile. viz.py on the header starts the same way.
FA3_KNOBS = {"kvBlocks": 6}
FA4_JSON = "fa4_fwd_sm90.json"
# FA4's SM90 forward kernel (CuTe DSL): its refinements are constructor arguments the parse does
# not read, so the page starts with FA3's common build (two math warpgroups, both refinements on).
FA4_KNOBS = {"consumerWGs": 2, "kvBlocks": 6, "intraWGOverlap": True, "interWGPingpong": True}


# FA4's SM100 (Blackwell) forward kernel: no hand-written model fits it, so its page runs its own
# role programs (the program model) over 6 KV blocks per output tile.
FA4_SM100_JSON = "fa4_fwd_sm100.json"
FA4_SM100_KNOBS = {"kvBlocks": 6}


def fa4_model(source="flash_fwd_sm90.py", json_name=FA4_JSON):
    """An FA4 kernel (flash_attn/cute/SOURCE) parsed from the installed flash-attn-4, or its committed JSON."""
    import importlib.util
    spec = importlib.util.find_spec("flash_attn")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        path = Path(loc) / "cute" / source
        if path.is_file():
            return parse_cutlass.parse_file(path)
    path = ROOT / "examples" / json_name
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def cutlass_source_root():
    """The nvidia-cutlass source tree (the one with include/ and examples/)."""
    for root in parse_cutlass.cutlass_roots():
        if (root / MAINLOOP).is_file():
            return root
    raise SystemExit("make_examples: nvidia-cutlass==4.2.0.0 is not installed "
                     "(pip install -e '.[test]'), and $CUTLASS_PATH has no " + MAINLOOP)


def parsed_examples():
    """{name: parsed model} for every JSON example, parsed from the real headers."""
    root = cutlass_source_root()
    out = {}
    for schedule, kernel in KERNELS.items():
        out[f"sm90_gemm_{schedule}"] = parse_cutlass.parse_file(root / MAINLOOP, root / kernel)
    out["sm100_gemm"] = parse_cutlass.parse_file(root / SM100_MAINLOOP, root / SM100_KERNEL)
    fmha = parse_cutlass.parse_file(root / FMHA_MAINLOOP, root / FMHA_KERNEL)
    parse_cutlass.add_epilogue(fmha, root / FMHA_EPILOGUE)
    out["sm100_fmha_fwd"] = fmha
    return out


def fa3_model(checkout):
    """FA3's forward mainloop parsed from a FlashAttention checkout, or the committed JSON."""
    if checkout:
        root = Path(checkout)
        return parse_cutlass.parse_file(root / FA3_MAINLOOP, root / FA3_KERNEL)
    path = ROOT / "examples" / FA3_JSON
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def rendered_pages(models, fa3=None, fa4=None, fa4_sm100=None):
    """{file name: text} of every generated file."""
    import render_waveform
    files = {}
    for name, model in sorted(models.items()):
        files[f"{name}.json"] = json.dumps(model, indent=1, sort_keys=True) + "\n"
        knobs = render_waveform.initial_knobs(model, EXAMPLE_KNOBS)
        files[f"{name}_waveform.html"] = render_waveform.render(model, knobs)
    if fa3 is not None:
        files[FA3_JSON] = json.dumps(fa3, indent=1, sort_keys=True) + "\n"
        files["fa3_fwd_waveform.html"] = render_waveform.render(fa3, render_waveform.initial_knobs(fa3, FA3_KNOBS))
    if fa4 is not None:
        files[FA4_JSON] = json.dumps(fa4, indent=1, sort_keys=True) + "\n"
        files["fa4_fwd_sm90_waveform.html"] = render_waveform.render(
            fa4, render_waveform.initial_knobs(fa4, FA4_KNOBS))
    if fa4_sm100 is not None:
        files[FA4_SM100_JSON] = json.dumps(fa4_sm100, indent=1, sort_keys=True) + "\n"
        files["fa4_fwd_sm100_waveform.html"] = render_waveform.render(
            fa4_sm100, render_waveform.initial_knobs(fa4_sm100, FA4_SM100_KNOBS))
    try:
        import render_html
    except ImportError:
        render_html = None
    if render_html is not None:
        files["sm90_gemm_graph.html"] = render_html.render(models["sm90_gemm_pingpong"])
        files["sm100_gemm_graph.html"] = render_html.render(models["sm100_gemm"])
    return files


def as_written(text):
    """The bytes pagekit.write_atomic would write, as text (ASCII with character references)."""
    return text.encode("ascii", "xmlcharrefreplace").decode("ascii")


def main(argv=None):
    """Write or check examples/."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that examples/ is current")
    ap.add_argument("--flash-attention", metavar="DIR", help="a FlashAttention checkout to re-parse FA3 from")
    args = ap.parse_args(argv)
    files = rendered_pages(parsed_examples(), fa3_model(args.flash_attention), fa4_model(),
                           fa4_model("flash_fwd_sm100.py", FA4_SM100_JSON))
    stale = []
    for name, text in sorted(files.items()):
        path = ROOT / "examples" / name
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current != as_written(text):
            stale.append(name)
            if not args.check:
                pagekit.write_atomic(path, text)
    if args.check:
        if stale:
            print("stale examples (run python3 scripts/make_examples.py): " + ", ".join(stale))
            return 1
        print(f"examples current ({len(files)} files)")
        return 0
    print(f"wrote {len(stale)} of {len(files)} example files" + (": " + ", ".join(stale) if stale else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
