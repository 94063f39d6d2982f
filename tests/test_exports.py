"""The exports read by real third-party readers: the VCD by GTKWave's vcd2fst and by pywellen
(wellen, Surfer's reader), the Chrome trace by speedscope opened from file:// in headless
Chromium, and both checked against the rules of their formats."""

import base64
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXPORTER = ROOT / "trace_export.js"
SPEEDSCOPE_INDEX = ROOT / "node_modules" / "speedscope" / "dist" / "release" / "index.html"
CASES = [
    ("sm90_gemm_pingpong", []),
    ("sm90_gemm_cooperative", ["--knob", "stages=2"]),
    ("fa3_fwd", ["--knob", "kvBlocks=3"]),
]


def _missing(reason):
    """Skip locally, fail under CI (scripts/test.sh installs every reader)."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (scripts/test.sh installs it)")
    pytest.skip(reason)


def _node():
    node = shutil.which("node")
    if not node:
        _missing("node is not installed")
    return node


def export(tmp_path, example, fmt, extra=()):
    """Run the exporter's command line; return the output file's path."""
    out = tmp_path / f"{example}.{'vcd' if fmt == 'vcd' else 'trace.json'}"
    with open(out, "wb") as handle:
        proc = subprocess.run([_node(), str(EXPORTER), "--format", fmt, "--structure",
                               str(ROOT / "examples" / f"{example}.json"), *extra],
                              stdout=handle, stderr=subprocess.PIPE, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    return out


def kernel_of(example):
    """The kernel name the exports give an example (render_waveform.kernel_stem, the one rule)."""
    import render_waveform
    return render_waveform.kernel_stem(json.loads((ROOT / "examples" / f"{example}.json").read_text(encoding="utf-8")))


def simulate(example, knobs):
    """The simulator's result for an example, through Node (the schedule the export came from)."""
    script = ("const K=require(process.argv[1]);const s=require(process.argv[2]);"
              "process.stdout.write(JSON.stringify(K.simulate(s, JSON.parse(process.argv[3]))))")
    proc = subprocess.run([_node(), "-e", script, str(ROOT / "schedule.js"),
                           str(ROOT / "examples" / f"{example}.json"), json.dumps(knobs)],
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(proc.stdout)


def knobs_of(extra):
    """The --knob arguments of a case as a dict."""
    knobs = {}
    for flag, value in zip(extra[::2], extra[1::2]):
        if flag == "--knob":
            name, _, v = value.partition("=")
            knobs[name] = int(v) if v.isdigit() else v
    return knobs


def expected_states(result, kernel):
    """{signal full name: [(time, value)]} of the lane state signals, worked out from the blocks."""
    out = {}
    for lane in result["lanes"]:
        blocks = sorted((b for b in result["blocks"] if b["lane"] == lane["id"] and b["end"] > b["start"]),
                        key=lambda b: b["start"])
        at = {0: "idle"}  # time -> value; a block starting where the previous ends wins
        for b in blocks:
            tile = f"{b['tile']}" + ("" if b["k"] is None else f".{b['k']}")
            at.setdefault(b["end"], "idle")
            at[b["start"]] = f"{b['kind']}_{tile}"
        changes = dedupe(sorted(at.items()))
        out[f"{kernel}.{lane['group']}.{lane['id']}.state"] = changes
    return out


def dedupe(changes):
    """Drop repeated values (a reader may report a re-written equal value as a change)."""
    out = []
    for t, v in changes:
        if not out or out[-1][1] != v:
            out.append((t, v))
    return out


def wellen_signals(path):
    """{full name: [(time, value)]} of every variable, read by pywellen."""
    pywellen = pytest.importorskip("pywellen") if not os.environ.get("CI") else __import__("pywellen")
    wave = pywellen.Waveform(str(path))
    return {var.full_name: [(t, v) for t, v in var.signal.all_changes()] if hasattr(var.signal, "all_changes")
            else list(var.tv) for var in wave.all_vars()}


@pytest.mark.parametrize("example,extra", CASES)
def test_vcd_read_by_pywellen_with_expected_signals_and_changes(tmp_path, example, extra):
    path = export(tmp_path, example, "vcd", extra)
    result = simulate(example, knobs_of(extra))
    kernel = kernel_of(example)
    signals = wellen_signals(path)
    expected = expected_states(result, kernel)
    for lane in result["lanes"]:
        for sig in ("state", "tile", "k", "stage"):
            assert f"{kernel}.{lane['group']}.{lane['id']}.{sig}" in signals
    for name, changes in expected.items():
        assert dedupe(signals[name]) == changes, name
    step = signals[f"{kernel}.step"]
    assert [t for t, _v in step] == list(range(result["total"] + 1))
    assert [int(v) for _t, v in step] == list(range(result["total"] + 1))


@pytest.mark.parametrize("example,extra", CASES[:2])
def test_vcd_converted_by_gtkwave_vcd2fst_and_read_back(tmp_path, example, extra):
    vcd2fst = shutil.which("vcd2fst")
    if not vcd2fst:
        _missing("GTKWave's vcd2fst is not installed (Debian package gtkwave)")
    path = export(tmp_path, example, "vcd", extra)
    fst = tmp_path / "out.fst"
    proc = subprocess.run([vcd2fst, str(path), str(fst)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "error" not in (proc.stdout + proc.stderr).lower(), proc.stdout + proc.stderr
    # GTKWave's FST holds the same signals and changes as the VCD it was given.
    from_vcd = wellen_signals(path)
    from_fst = wellen_signals(fst)
    assert set(from_fst) == set(from_vcd)
    result = simulate(example, knobs_of(extra))
    kernel = kernel_of(example)
    for name, changes in expected_states(result, kernel).items():
        assert dedupe(from_fst[name]) == changes, name


@pytest.mark.parametrize("example,extra", CASES)
def test_chrome_trace_follows_trace_event_rules(tmp_path, example, extra):
    path = export(tmp_path, example, "chrome", extra)
    proc = subprocess.run([_node(), str(ROOT / "tests" / "js" / "trace_rules.js"), str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    trace = json.loads(path.read_text())
    result = simulate(example, knobs_of(extra))
    # One slice per block: a B/E pair, or an X event for a zero-length block.
    assert sum(1 for e in trace["traceEvents"] if e["ph"] in ("B", "X")) == len(result["blocks"])
    assert sum(1 for e in trace["traceEvents"] if e["ph"] == "E") == sum(1 for e in trace["traceEvents"] if e["ph"] == "B")


def counter_states(trace):
    """{barrier name: [(time, (phase, arrivals, waiters))]} from the trace's counter (C) events."""
    out = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "C":
            a = e["args"]
            out.setdefault(e["name"], []).append((e["ts"], (a["phase"], a["arrivals"], a["waiters"])))
    return out


def value_at(changes, t):
    """The value of a change list [(time, value)] at time t."""
    v = None
    for time, value in changes:
        if time > t:
            break
        v = value
    return v


@pytest.mark.parametrize("example,extra", CASES)
def test_chrome_barrier_counters_match_the_vcd_signals_read_by_pywellen(tmp_path, example, extra):
    """The Chrome trace's barrier counters hold, at every step, the phase, arrivals and waiters
    that pywellen reads from the VCD of the same run."""
    trace = json.loads(export(tmp_path, example, "chrome", extra).read_text())
    signals = wellen_signals(export(tmp_path, example, "vcd", extra))
    result = simulate(example, knobs_of(extra))
    kernel = kernel_of(example)
    counters = counter_states(trace)
    assert sorted(counters) == sorted(b["name"] for b in result["barriers"]) and counters
    checked = 0
    for bar in result["barriers"]:
        scope = f"{kernel}.barriers." + "".join(c if c.isalnum() or c in "_.[]-" else "_" for c in bar["name"])
        for t in range(result["total"] + 1):
            phase, arrivals, waiters = value_at(counters[bar["name"]], t)
            assert int(value_at(signals[scope + ".phase"], t)) == phase, (bar["name"], t)
            assert int(value_at(signals[scope + ".arrivals"], t)) == arrivals, (bar["name"], t)
            assert int(value_at(signals[scope + ".waiters"], t)) == waiters, (bar["name"], t)
            checked += 1
    # Some barrier has a waiter at some step: the counters are not all zero.
    assert any(v[2] > 0 for changes in counters.values() for _t, v in changes)
    assert checked > 0


def test_chrome_trace_rule_checker_catches_overlap_and_unpaired_flow(tmp_path):
    """The checker the exports pass must itself reject broken traces."""
    bad = {"displayTimeUnit": "ns", "traceEvents": [
        {"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "t"}},
        {"ph": "M", "pid": 1, "tid": 1, "name": "thread_sort_index", "args": {"sort_index": 0}},
        {"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 5, "name": "a"},
        {"ph": "X", "pid": 1, "tid": 1, "ts": 3, "dur": 5, "name": "b"},
        {"ph": "s", "pid": 1, "tid": 1, "ts": 1, "id": 7, "name": "d", "cat": "c"},
    ]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    proc = subprocess.run([_node(), str(ROOT / "tests" / "js" / "trace_rules.js"), str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "overlapping X on thread 1:1" in proc.stdout
    assert "flow 7 has 1 starts and 0 ends" in proc.stdout


@pytest.mark.parametrize("example,extra", [CASES[0], CASES[2]])
def test_chrome_trace_loaded_by_speedscope_offline(browser, tmp_path, example, extra):
    """speedscope's built page, from file://, gets the trace the way its CLI hands one over
    (a script calling speedscope.loadFileFromBase64, named in #localProfilePath); its own
    Export then shows how it read the file: one profile per lane, one frame open per block."""
    if not SPEEDSCOPE_INDEX.is_file():
        _missing("speedscope is not installed (npm ci installs the devDependency)")
    path = export(tmp_path, example, "chrome", extra)
    loader = tmp_path / "load.js"
    loader.write_text("speedscope.loadFileFromBase64(%s, %s)" % (
        json.dumps(path.name), json.dumps(base64.b64encode(path.read_bytes()).decode("ascii"))))
    result = simulate(example, knobs_of(extra))
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        foreign = []
        page.on("request", lambda req: foreign.append(req.url) if not req.url.startswith(("file://", "data:", "blob:")) else None)
        page.goto(SPEEDSCOPE_INDEX.as_uri() + "#localProfilePath=" + str(loader))
        page.get_by_text(f"(1/{len(result['lanes'])})").wait_for(timeout=30000)
        with page.expect_download(timeout=30000) as download:
            page.get_by_text("Export").click()
        data = json.loads(Path(download.value.path()).read_text())
    finally:
        context.close()
    assert not errors and not foreign, errors + foreign
    # Frames are named "kind reason" (no args JSON), so speedscope aggregates them: one frame per
    # kind and wait reason, not one per block.
    frames = [f["name"] for f in data["shared"]["frames"]]
    want = {b["kind"] + (" " + b["reason"] if b["reason"] else "") for b in result["blocks"]}
    assert set(frames) == want, frames
    assert any(name.startswith("wait ") for name in frames)
    profiles = data["profiles"]
    assert [p["name"].split(", ", 1)[1].rsplit(" (tid", 1)[0] for p in profiles] == [l["label"] for l in result["lanes"]]
    for profile, lane in zip(profiles, result["lanes"]):
        opened = [e for e in profile["events"] if e["type"] == "O"]
        blocks = sorted((b for b in result["blocks"] if b["lane"] == lane["id"]), key=lambda b: b["start"])
        assert len(opened) == len(blocks), lane["id"]
        # speedscope starts each profile at its first event: compare times from there (1 step = 1 us).
        assert [e["at"] - opened[0]["at"] for e in opened] == [b["start"] - blocks[0]["start"] for b in blocks], lane["id"]
