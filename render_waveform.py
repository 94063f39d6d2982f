"""Render the waveform page: one offline HTML file with the parsed structure and the simulator inlined.

The page's markup, styles and script live in assets/ as real files; this module only works out
the plain-text header facts and the embedded JSON model, then fills the template's markers.
"""

import base64
import gzip
import json

import pagekit

SCHEDULE_JS_ASSET = "schedule.js"
KNOB_TABLE_MARKERS = ("/*KNOB_TABLE_JSON_BEGIN*/", "/*KNOB_TABLE_JSON_END*/")


def read_knob_table(path=None):
    """Return the knob table of schedule.js (the JSON between its KNOB_TABLE markers).

    schedule.js is the one source of every knob's CLI flag, hash key and words; Python reads it
    instead of restating it. Raises pagekit.AssetError when the markers or the JSON are broken.
    """
    text = pagekit.read_asset(path or SCHEDULE_JS_ASSET)
    begin, end = KNOB_TABLE_MARKERS
    start = text.find(begin)
    stop = text.find(end, start + len(begin)) if start >= 0 else -1
    if start < 0 or stop < 0:
        raise pagekit.AssetError(f"{SCHEDULE_JS_ASSET}: knob table markers {begin} ... {end} not found")
    try:
        return json.loads(text[start + len(begin):stop])
    except ValueError as exc:
        raise pagekit.AssetError(f"{SCHEDULE_JS_ASSET}: knob table is not JSON: {exc}") from None


_TABLE = read_knob_table()
# CLI flag -> knob name in KernelSchedule. viz.py builds argparse options from this, and the page
# uses the flag names (without "--") as its URL-hash keys, so links read like the CLI.
KNOB_FLAGS = tuple((k["flag"], k["name"]) for k in _TABLE["knobs"])
KNOB_NAMES = frozenset(name for _flag, name in KNOB_FLAGS)
MODELS = tuple(_TABLE["models"])
# On/off knobs: the CLI and the hash spell them on/off; the embedded model holds booleans.
FLAG_WORDS = dict(_TABLE["flagWords"])
BOOLEAN_KNOBS = frozenset(k["name"] for k in _TABLE["knobs"] if k.get("onOff"))
# Knobs of simulate()'s cycles mode (KNOB_TABLE.units: a GPU, tile, problem; docs/performance.md):
# (flag, name, kind) with kind "text" (shapes, names), "switch" (a bare CLI flag) or "int".
UNIT_FLAGS = tuple((k["flag"], k["name"], "text" if k.get("text") else "switch" if k.get("switch") else "int")
                   for k in _TABLE.get("units", []))
UNIT_NAMES = frozenset(name for _flag, name, _kind in UNIT_FLAGS)
# Knobs whose CLI values are words rather than integers (viz.py makes them argparse choices).
KNOB_CHOICES = {k["name"]: tuple(k["choices"]) if "choices" in k else tuple(FLAG_WORDS)
                for k in _TABLE["knobs"] if "choices" in k or k.get("onOff")}
SCHEDULES = KNOB_CHOICES["schedule"]

TEMPLATE_ASSET = "assets/waveform.html"
THEME_CSS_ASSET = "assets/theme.css"
WAVEFORM_CSS_ASSET = "assets/waveform.css"
WAVEFORM_JS_ASSET = "assets/waveform.js"
# The page script's modules (docs/waveform.md "Module layout"), packed into the one "waveform"
# script in this order, WAVEFORM_JS_ASSET last: first the pure modules (each after the ones it
# requires), then the page's parts, whose install order is runPage's list in waveform.js.
WAVE_MODULE_ASSETS = (
    "assets/wave_const.js", "assets/wave_kinds.js", "assets/wave_index.js", "assets/wave_view.js",
    "assets/wave_result.js", "assets/wave_stats.js",
    "assets/wave_knobs.js", "assets/wave_flags.js", "assets/wave_worker.js", "assets/wave_layout.js", "assets/wave_verdict.js",
    "assets/wave_draw.js", "assets/wave_input.js", "assets/wave_panels.js", "assets/wave_exports.js",
    "assets/wave_svg.js", "assets/wave_url.js", "assets/wave_reading.js", "assets/wave_keys.js",
)
COMMON_CSS_ASSET = "assets/common.css"
COMMON_JS_ASSET = "assets/common.js"
TRACE_EXPORT_JS_ASSET = "trace_export.js"
PERF_JS_ASSET = "sim/perf.js"
# The role-program interpreter: its parts in load order (each binds the ones before it; docs/programs.md
# "Layout"), then sim/interpret.js, the entry that exports them.
INTERPRET_JS_ASSETS = (
    "sim/interpret/constants.js", "sim/interpret/expr.js", "sim/interpret/context.js", "sim/interpret/role.js", "sim/interpret/ops.js",
    "sim/interpret/settle.js", "sim/interpret/dsl.js", "sim/interpret/dsl_ops.js", "sim/interpret/wg.js",
    "sim/interpret/wg_ops.js", "sim/interpret/mbar.js", "sim/interpret/dsl_sched.js", "sim/interpret/tmem.js",
    "sim/interpret/warps.js", "sim/interpret.js",
)
TIMELINE_JS_ASSET = "sim/timeline.js"
BARRIER_JS_ASSET = "sim/barrier.js"
ENGINE_JS_ASSET = "sim/engine.js"
# The simulator's shared helpers, fit rules, models and cycles mode (docs/simulator.md "Layout"), in
# the order they bind each other: packed with schedule.js (which binds them all) as one script.
SIM_MODULE_ASSETS = (
    "sim/common.js", "sim/fit.js", "sim/model_gemm.js", "sim/attention_roles.js", "sim/model_attention.js",
    "sim/blackwell_roles.js", "sim/model_blackwell.js", "sim/program_knobs.js", "sim/model_program.js", "sim/units.js",
)
GPUS_JSON_ASSET = "sim/gpus.json"
BOOT_JS_ASSET = "assets/boot.js"
# How the details panel links a source line (viz.py --source-link): a file:// URL, a vscode://
# URL with the line, or no link. The page builds the URL (waveform.js sourceUrl).
SOURCE_LINKS = ("vscode", "file", "none")



def _knob_value(name, value):
    """Return an override as the page expects it: on/off words become booleans for on/off knobs."""
    if name in BOOLEAN_KNOBS and not isinstance(value, bool):
        if value not in FLAG_WORDS:
            raise ValueError(f"knob {name!r} takes on or off, not {value!r}")
        return FLAG_WORDS[value]
    return value


def initial_knobs(parsed, overrides=None):
    """Return the page's starting knob values as given on the command line (non-None overrides).

    Everything else, the model (KernelSchedule.fitModel) and the knobs the source fixes (the
    kernel layer's schedule and warpgroups, K_PIPE_MMAS, FA3's compile-time flags: each model's
    sourceKnobs), is schedule.js's rule, applied by the page and by `node schedule.js export`
    alike; Python does not restate it. Raises ValueError for an unknown knob or a bad on/off word.
    """
    overrides = overrides or {}
    knobs = {}
    for name, value in overrides.items():
        if name == "flags":
            # The program model's compile-time flags ({NAME: VALUE}: viz.py --flag), read by the simulator.
            knobs[name] = dict(sorted(value.items()))
            continue
        if name not in KNOB_NAMES and name not in UNIT_NAMES:
            raise ValueError(f"unknown knob {name!r}; expected one of {sorted(KNOB_NAMES | UNIT_NAMES)}")
        if value is not None:
            knobs[name] = _knob_value(name, value)
    return knobs


def _lines_text(item):
    """Return 'line N' or 'lines N-M' for a node carrying line/end_line."""
    line, end = item.get("line"), item.get("end_line")
    if line is None:
        return ""
    if end is None or end == line:
        return f"line {line}"
    return f"lines {line}-{end}"


def _alternatives(value):
    """Return a parsed field as text: 'a | b' for a list of alternatives (e.g. #if branches), '?' if absent."""
    if value is None:
        return "?"
    if isinstance(value, (list, tuple)):
        return "(" + " | ".join(str(v) for v in value) + ")" if len(value) > 1 else _alternatives(value[0] if value else None)
    return str(value)


def _functions_text(parsed, role):
    """Return 'name (lines a-b), ...' for the parsed functions with the given role.

    A function of role "both" (FA3's load warp: it produces K/V and consumes Vt) is listed
    under producer and consumer, marked "(both)".
    """
    parts = []
    for fn in parsed.get("functions") or []:
        if fn.get("role") in (role, "both"):
            where = _lines_text(fn)
            text = f"{fn.get('name', '?')} ({where})" if where else str(fn.get("name", "?"))
            parts.append(text + (" (both)" if fn.get("role") == "both" else ""))
    return ", ".join(parts) or "not found"


def _pipeline_text(pipe):
    """'Class<stages> (alias, line N)' for one parsed pipeline."""
    text = f"{_alternatives(pipe.get('class'))}<{_alternatives(pipe.get('stages'))}>"
    extra = ", ".join(x for x in (pipe.get("alias"), _lines_text(pipe)) if x)
    return f"{text} ({extra})" if extra else text


def header_facts(parsed):
    """Return the plain-text header facts (kernel, mainloop, pipeline, producer, consumer, schedule)."""
    source = parsed.get("source") or {}
    layer = parsed.get("kernel_layer") or {}
    layer_source = layer.get("source") or {}
    pipelines = parsed.get("pipelines") or []
    # The pipelines ops actually use (FA3 also declares an intermediate alias no op names).
    shown = [p for p in pipelines if p.get("used")] or pipelines
    pipeline = "; ".join(_pipeline_text(p) for p in shown) if shown else "not found"
    if layer:
        schedule = str(layer.get("schedule") or "basic")
        if layer.get("schedule_line") is not None:
            schedule += f" (line {layer['schedule_line']})"
        wgs = layer.get("num_mma_warpgroups")
        if wgs is not None:
            schedule += f"; math warpgroups: {wgs}"
    else:
        schedule = "no kernel layer parsed (mainloop only)"
    return {
        "kernel": str(layer_source.get("path") or source.get("path") or "unknown"),
        "mainloop": str(source.get("path") or "unknown"),
        "pipeline": pipeline,
        "producer": _functions_text(parsed, "producer"),
        "consumer": _functions_text(parsed, "consumer"),
        "schedule": schedule,
    }


def kernel_stem(parsed):
    """Return the kernel name both pages' titles use: the one rule of trace_export.js's kernelName.

    The rule: the kernel layer's source path when one was parsed (the kernel: pingpong and
    cooperative pages of one mainloop differ), else the structure's own (`source.path`: the
    mainloop or CuTe DSL file); its last component after `/` or `\\`, without the last `.` and
    what follows; "kernel" when that leaves nothing or the path is not a string.
    tests/test_kernel_name.py checks that the two agree on every example and fixture.
    """
    layer = parsed.get("kernel_layer") if isinstance(parsed, dict) else None
    source = layer.get("source") if isinstance(layer, dict) and isinstance(layer.get("source"), dict) \
        and isinstance(layer["source"].get("path"), str) else parsed.get("source") if isinstance(parsed, dict) else None
    path = source.get("path") if isinstance(source, dict) else None
    name = (path if isinstance(path, str) else "").replace("\\", "/").rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return stem or "kernel"


def default_title(parsed):
    """Return the waveform page's title: the kernel file's stem and what the page shows."""
    return f"{kernel_stem(parsed)} - logical pipeline schedule"


# The structure's bulky parts: the role programs and the function list (with every op), about
# nine tenths of an attention kernel's structure. They travel gzip-packed in the page's
# `programs` script (packed_programs), not as the model element's plain JSON (docs/waveform.md).
PACKED_KEYS = ("functions", "programs")


def without_packed(parsed):
    """The structure as the page's model element embeds it: without PACKED_KEYS and
    `kernel_layer.program`, which travel compressed in their own script (packed_programs) and are
    put back by the page (`withPrograms`) before anything reads the structure."""
    out = {k: v for k, v in parsed.items() if k not in PACKED_KEYS}
    kl = out.get("kernel_layer")
    if isinstance(kl, dict) and "program" in kl:
        out["kernel_layer"] = {k: v for k, v in kl.items() if k != "program"}
    return out


def packed_programs(parsed):
    """The structure's packed parts as one packed data part (gzip, base64, like the page's code):
    the JSON of {functions, programs, kernelProgram}, which assets/boot.js parses into
    KV_PROGRAMS and never runs (the element's `data-json`), so no text of the source is ever in
    a script; `null` members where the structure has none."""
    kl = parsed.get("kernel_layer") if isinstance(parsed.get("kernel_layer"), dict) else {}
    data = {"functions": parsed.get("functions"), "programs": parsed.get("programs"), "kernelProgram": kl.get("program")}
    text = pagekit.json_for_script(data)   # ASCII, < > & escaped: the same text as the model element's
    return base64.b64encode(gzip.compress(text.encode("ascii"), compresslevel=9, mtime=0)).decode("ascii")


def page_model(parsed, knobs, source_links=None):
    """Return the JSON model embedded in the page: structure, starting knobs, hash keys.

    source_links (optional): {"scheme": "file" | "vscode", "files": {display path: absolute
    path}}; only then does the page hold absolute paths (examples/ pages never do).
    """
    model = {
        "parsed": without_packed(parsed),
        "initialKnobs": knobs,
        # Hash key (flag without "--") -> knob name; one source of truth with the CLI.
        "hashKeys": [[flag[2:], name] for flag, name in KNOB_FLAGS] +
                    [[flag[2:], name] for flag, name, _kind in UNIT_FLAGS],
    }
    if source_links:
        model["sourceLinks"] = source_links
    return model


def source_links(scheme, files):
    """Return the page model's sourceLinks for a --source-link scheme and {display path: absolute path}, or None.

    None for scheme "none" or when no file's absolute path is known (a page rendered from parsed
    JSON alone). Raises ValueError for an unknown scheme.
    """
    if scheme not in SOURCE_LINKS:
        raise ValueError(f"unknown source link {scheme!r}; expected one of {', '.join(SOURCE_LINKS)}")
    known = {str(k): str(v) for k, v in (files or {}).items() if k and v}
    if scheme == "none" or not known:
        return None
    return {"scheme": scheme, "files": dict(sorted(known.items()))}


def read_gpu_table(path=None):
    """Return the GPU presets (sim/gpus.json, or the file at path) as parsed JSON.

    Raises ValueError when the file is not JSON or has no "gpus" object (viz.py's --gpu-file).
    """
    text = pagekit.read_asset(GPUS_JSON_ASSET) if path is None else open(path, encoding="utf-8").read()
    table = json.loads(text)
    if not isinstance(table, dict) or not isinstance(table.get("gpus"), dict):
        raise ValueError('no "gpus" object')
    return table


def without_urls(value):
    """The GPU table without its sources' `url` fields: the page cites each figure by title and
    place, and an offline page holds no web address (tests/test_examples.py)."""
    if isinstance(value, dict):
        return {k: without_urls(v) for k, v in value.items() if k != "url"}
    if isinstance(value, list):
        return [without_urls(v) for v in value]
    return value


def render(parsed, knobs=None, title=None, gpus=None, source_link="none", source_files=None):
    """Return the complete self-contained waveform page for a parsed structure.

    gpus: the GPU presets the page offers (read_gpu_table; default sim/gpus.json), embedded as
    JSON next to the model; sim/perf.js is packed with the other scripts, before schedule.js.
    source_link / source_files: how the details panel links source lines (source_links); the
    default links nothing, so a page rendered from JSON holds no absolute path.
    """
    knobs = initial_knobs(parsed, knobs)
    links = source_links(source_link, source_files)
    title = title if title is not None else default_title(parsed)
    facts = header_facts(parsed)

    texts = dict([("TITLE", title), ("HEADING", title)] +
                 [(f"FACT_{key.upper()}", value) for key, value in facts.items()])
    assets = {"THEME_CSS": THEME_CSS_ASSET, "COMMON_CSS": COMMON_CSS_ASSET, "WAVEFORM_CSS": WAVEFORM_CSS_ASSET,
              "BOOT_JS": BOOT_JS_ASSET}
    # The page's scripts (packing_list), embedded compressed.
    packed = {f"{name}_GZ": packed_js(*rels) for name, rels in packing_list()}
    packed["GPUS_JSON"] = pagekit.json_for_script(without_urls(gpus if gpus is not None else read_gpu_table()))
    packed["PROGRAMS_JSON_GZ"] = packed_programs(parsed)
    return pagekit.render_template(TEMPLATE_ASSET, texts, assets, page_model(parsed, knobs, links), packed)



def packing_list():
    """The page's scripts in the order they run (each after the ones it uses): (marker name, files)
    pairs, each one packed script of its files concatenated (render's packing list; tests read it
    too). The simulator: the timeline builder, the engine's objects and the engine (which use it),
    then the sim/ modules and schedule.js (which binds them all at its top), packed as one script."""
    return (("PERF_JS", (PERF_JS_ASSET,)), ("INTERPRET_JS", INTERPRET_JS_ASSETS),
            ("TIMELINE_JS", (TIMELINE_JS_ASSET,)), ("ENGINE_JS", (BARRIER_JS_ASSET, ENGINE_JS_ASSET)),
            ("SCHEDULE_JS", SIM_MODULE_ASSETS + (SCHEDULE_JS_ASSET,)),
            ("TRACE_EXPORT_JS", (TRACE_EXPORT_JS_ASSET,)), ("COMMON_JS", (COMMON_JS_ASSET,)),
            ("WAVEFORM_JS", WAVE_MODULE_ASSETS + (WAVEFORM_JS_ASSET,)))

def packed_js(*relpaths):
    """Return page script files, compacted (compact_js) and concatenated in order, gzip-compressed
    and base64-encoded as one script.

    The page's start-up script (assets/boot.js) decompresses and runs it. Deterministic (gzip
    mtime 0), so a page renders byte-identically; base64 text cannot end its element.
    """
    text = "".join(compact_js(pagekit.inline_asset(rel)) for rel in relpaths)
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")


def unpack_js(packed):
    """Return the script text packed_js packed (tests read the page's scripts with it)."""
    return gzip.decompress(base64.b64decode(packed)).decode("utf-8")


def compact_js(text):
    """Return JS without its whole-line comments, blank lines and indentation (the page budget).

    Only lines whose first non-blank characters open a comment are dropped (`//`, or `/*` through
    the line that closes it, when nothing follows the close); code lines keep every character
    after their indentation, so strings, regexes and inline comments are untouched. The scripts
    have no multi-line strings or template literals (tests/test_waveform_page.py runs both forms).
    """
    out = []
    in_block = False
    for line in text.split("\n"):
        stripped = line.strip()
        if in_block:
            if "*/" in stripped:
                in_block = False
            continue
        if not stripped or stripped.startswith("//"):
            continue
        if stripped.startswith("/*"):
            close = stripped.find("*/", 2)
            if close < 0:
                in_block = True
                continue
            if not stripped[close + 2:].strip():
                continue
        out.append(stripped)
    return "\n".join(out) + "\n"
