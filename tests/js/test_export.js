// Tests of trace_export.js (Chrome trace JSON, VCD, the command line): node --test tests/js/
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const childProcess = require("node:child_process");
const { mulberry32, randInt } = require("./prng.js");
const { traceProblems } = require("./trace_rules.js");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));
const KE = require(path.join(ROOT, "trace_export.js"));
const W = require(path.join(ROOT, "assets", "waveform.js"));
const EXAMPLES = ["sm90_gemm_pingpong", "sm90_gemm_cooperative", "fa3_fwd"];

function structure(name) { return require(path.join(ROOT, "examples", name + ".json")); }

/**
 * The block slices of a trace, one per block in file order of their ends: each B/E pair on a
 * thread (the B's name, cat and ts, the E's args; dur from the two) and each X event.
 */
function xEvents(trace) {
  const open = new Map(), out = [];
  trace.traceEvents.forEach((e) => {
    const key = e.pid + ":" + e.tid;
    if (e.ph === "B") { if (!open.has(key)) open.set(key, []); open.get(key).push(e); }
    else if (e.ph === "E") {
      const b = open.get(key).pop();
      out.push({ ph: "X", pid: e.pid, tid: e.tid, ts: b.ts, dur: e.ts - b.ts, name: b.name, cat: b.cat, args: e.args, bArgs: b.args });
    } else if (e.ph === "X") out.push(e);
  });
  return out;
}

function threadNames(trace) {
  const names = {};
  trace.traceEvents.forEach((e) => { if (e.ph === "M" && e.name === "thread_name") names[e.tid] = e.args.name; });
  return names;
}

/** A hand-made result in the contract's shape: two lanes, overlapping blocks, barriers. */
function handResult() {
  const line = (n) => ({ path: "include/x/kernel.hpp", line: n, end_line: n, op: "consumer_wait", text: "wait(" + n + ");" });
  return {
    model: "hand", total: 10, knobs: { stages: 2 }, error: null,
    lanes: [{ id: "producer", label: "producer", group: "producer" }, { id: "consumer0", label: "consumer WG0", group: "consumer" }],
    blocks: [
      { lane: "producer", kind: "issue", start: 0, end: 2, tile: 0, k: 0, stage: 0, reason: null, lines: [line(10)], after: [] },
      { lane: "producer", kind: "issue", start: 1, end: 3, tile: 0, k: 1, stage: 1, reason: null, lines: [line(11)], after: [] },
      { lane: "consumer0", kind: "wgmma", start: 3, end: 6, tile: 0, k: 0, stage: 0, reason: "tma", lines: [line(20)], after: [0] },
      { lane: "consumer0", kind: "wgmma", start: 6, end: 9, tile: 0, k: 1, stage: 1, reason: null, lines: [line(20), line(21)], after: [1, 2] },
      { lane: "consumer0", kind: "epilogue", start: 9, end: 9, tile: 0, k: null, stage: null, reason: null, lines: [], after: [3] }
    ],
    barriers: [
      { id: 0, name: "full_stage0", kind: "full", stage: 0, expected: 1, lines: { wait: [20], arrive: [10] } },
      { id: 1, name: "empty_stage0", kind: "empty", stage: 0, expected: 1, lines: { wait: [9], arrive: [30] } }
    ],
    barrierEvents: [
      { t: 0, barrier: 1, type: "complete", lane: "consumer0", phase: 1 },
      { t: 2, barrier: 0, type: "wait_begin", lane: "consumer0", phase: 0 },
      { t: 3, barrier: 0, type: "arrive", lane: "producer", phase: 0 },
      { t: 3, barrier: 0, type: "complete", lane: "producer", phase: 1 },
      { t: 3, barrier: 0, type: "wait_end", lane: "consumer0", phase: 1 },
      { t: 6, barrier: 1, type: "arrive", lane: "consumer0", phase: 1 },
      { t: 6, barrier: 1, type: "complete", lane: "consumer0", phase: 0 }
    ]
  };
}

// ---- A tiny VCD reader (enough to check our own output; the real readers run in pytest) ----
function readVcd(text) {
  const tokens = text.split(/\s+/).filter(Boolean);
  const vars = {};
  const scopes = [];
  let i = 0;
  let timescale = null;
  while (i < tokens.length && tokens[i] !== "$enddefinitions") {
    const t = tokens[i];
    if (t === "$scope") { scopes.push(tokens[i + 2]); i += 4; }
    else if (t === "$upscope") { scopes.pop(); i += 2; }
    else if (t === "$var") {
      vars[tokens[i + 3]] = { type: tokens[i + 1], width: Number(tokens[i + 2]), name: scopes.concat([tokens[i + 4]]).join(".") };
      i += 6;
    } else if (t === "$timescale") { timescale = tokens[i + 1] + " " + tokens[i + 2]; i += 4; }
    else { while (tokens[i] !== "$end") i++; i++; }
  }
  i += 2;
  const changes = {};   // full name -> [[time, value]]
  let time = null;
  const times = [];
  let dumpvars = false;
  for (; i < tokens.length; i++) {
    const t = tokens[i];
    if (t[0] === "#") { time = Number(t.slice(1)); times.push(time); continue; }
    if (t === "$dumpvars") { dumpvars = true; continue; }
    if (t === "$end") continue;
    let id, value;
    if (t[0] === "b" || t[0] === "s" || t[0] === "r") { value = t.slice(1); id = tokens[++i]; }
    else { value = t[0]; id = t.slice(1); }
    assert.ok(vars[id], "value change for an undeclared identifier " + JSON.stringify(id));
    const name = vars[id].name;
    (changes[name] || (changes[name] = [])).push([time, value]);
  }
  return { vars, changes, times, timescale, dumpvars };
}

/** Value of a signal at time t from its change list. */
function valueAt(changes, t) {
  let v;
  for (const [time, value] of changes) { if (time <= t) v = value; else break; }
  return v;
}

// ---- Chrome trace -------------------------------------------------------------------------

test("chrome trace of each example follows the trace-event rules, one thread per lane", () => {
  for (const name of EXAMPLES) {
    const result = KS.simulate(structure(name), {});
    const trace = KE.chromeTrace(result, { kernel: name });
    assert.deepEqual(traceProblems(trace), [], name);
    assert.equal(xEvents(trace).length, result.blocks.length, name);
    // One thread per lane, then the barrier counters' thread.
    assert.ok(result.barriers.length > 0, name);
    assert.deepEqual(Object.values(threadNames(trace)), result.lanes.map((l) => l.label).concat(["barriers"]), name);
    const deps = result.blocks.reduce((n, b) => n + b.after.length, 0);
    assert.equal(trace.traceEvents.filter((e) => e.ph === "s").length, deps, name);
    assert.equal(trace.traceEvents.filter((e) => e.ph === "f").length, deps, name);
    assert.equal(trace.displayTimeUnit, "ns");
  }
});

test("chrome X events carry the block: 1 step = 1 us, args with kind, tile, k, stage, reason, lines, step", () => {
  const result = KS.simulate(structure("sm90_gemm_pingpong"), {});
  const trace = KE.chromeTrace(result, {});
  const names = threadNames(trace);
  xEvents(trace).forEach((ev) => {
    const b = result.blocks[ev.args.block];
    assert.equal(ev.ts, b.start);
    assert.equal(ev.dur, b.end - b.start);
    assert.equal(ev.args.step, b.start);
    assert.equal(ev.args.kind, b.kind);
    assert.equal(ev.args.tile, b.tile);
    assert.equal(ev.args.k, b.k);
    assert.equal(ev.args.stage, b.stage);
    assert.equal(ev.args.reason, b.reason);
    const keys = b.lines.map((r) => r.path.split("/").pop() + ":" + r.line);
    assert.deepEqual(ev.args.lines, keys.filter((key, i) => keys.indexOf(key) === i));
    assert.equal(names[ev.tid], result.lanes.find((l) => l.id === b.lane).label);
    ev.args.lines.forEach((key) => assert.ok(trace.otherData.sources[key].text, key));
  });
});

test("every dependency in after is one flow from the block waited for to the waiting block", () => {
  const result = KS.simulate(structure("fa3_fwd"), {});
  const trace = KE.chromeTrace(result, {});
  const sliceAt = (ev) => xEvents(trace).find((x) => x.tid === ev.tid && x.ts <= ev.ts && ev.ts <= x.ts + x.dur);
  const pairs = [];
  const starts = {};
  trace.traceEvents.forEach((e) => { if (e.ph === "s") starts[e.id] = e; });
  trace.traceEvents.forEach((e) => {
    if (e.ph === "f") pairs.push([sliceAt(starts[e.id]).args.block, sliceAt(e).args.block].join(">"));
  });
  const expected = [];
  result.blocks.forEach((b, i) => b.after.forEach((a) => expected.push(a + ">" + i)));
  assert.deepEqual(pairs.sort(), expected.sort());
});

test("overlapping blocks on a lane go on numbered sub-threads, never on one thread", () => {
  const result = handResult();
  const trace = KE.chromeTrace(result, {});
  assert.deepEqual(traceProblems(trace), []);
  assert.deepEqual(Object.values(threadNames(trace)), ["producer", "producer (2)", "consumer WG0", "barriers"]);
  assert.match(trace.otherData.notes.join(" "), /sub-threads on: producer/);
});

test("a block waited for that outlasts its waiter still gets a flow forward in time", () => {
  // The engine's FULL block lasts from the landing of the data to the release, after the WGMMA
  // that waited for it has started.
  const result = {
    model: "hand", total: 20, knobs: {}, error: null,
    lanes: [{ id: "stage0", label: "stage 0", group: "stage" }, { id: "consumer0", label: "consumer WG0", group: "consumer" }],
    blocks: [
      { lane: "stage0", kind: "full", start: 10, end: 20, tile: 0, k: 0, stage: 0, reason: null, lines: [], after: [] },
      { lane: "consumer0", kind: "wgmma", start: 10, end: 12, tile: 0, k: 0, stage: 0, reason: null, lines: [], after: [0] }
    ]
  };
  const trace = KE.chromeTrace(result, {});
  assert.deepEqual(traceProblems(trace), []);
  const s = trace.traceEvents.find((e) => e.ph === "s"), f = trace.traceEvents.find((e) => e.ph === "f");
  assert.ok(s.ts > 10 && s.ts <= f.ts && f.ts === 11, JSON.stringify([s.ts, f.ts]));
});

test("random knobs: the trace rules hold for both models", () => {
  const rand = mulberry32(1207);
  for (let n = 0; n < 40; n++) {
    const attention = n % 2 === 1;
    const knobs = attention
      ? { model: "attention", kvBlocks: randInt(rand, 1, 6), stages: randInt(rand, 1, 4) }
      : { stages: randInt(rand, 1, 6), outputTiles: randInt(rand, 1, 5), kTiles: randInt(rand, 1, 7),
          tmaLatency: randInt(rand, 0, 9), wgmmaLatency: randInt(rand, 1, 5), epilogueLatency: randInt(rand, 0, 5),
          consumerWGs: randInt(rand, 1, 2), schedule: rand() < 0.5 ? "pingpong" : "cooperative" };
    const result = KS.simulate(structure(attention ? "fa3_fwd" : "sm90_gemm_pingpong"), knobs);
    if (result.error) continue;
    const trace = KE.chromeTrace(result, {});
    assert.deepEqual(traceProblems(trace), [], JSON.stringify(knobs));
    assert.equal(xEvents(trace).length, result.blocks.length);
  }
});

test("markers are global instants; without barriers the metadata says phase bits are not exported", () => {
  const result = KS.simulate(structure("sm90_gemm_pingpong"), {});
  const trace = KE.chromeTrace(result, { markers: [{ name: "A", step: 4 }, { name: "B", step: 12 }] });
  const instants = trace.traceEvents.filter((e) => e.ph === "i");
  assert.deepEqual(instants.map((e) => [e.name, e.ts, e.s]), [["marker A", 4, "g"], ["marker B", 12, "g"]]);
  if (!result.barrierEvents) {
    assert.equal(trace.otherData.barriers, "absent");
    assert.ok(trace.otherData.notes.includes(KE.NO_BARRIERS));
  }
});

test("a failed simulation or a malformed result is refused with a message, not exported", () => {
  assert.throws(() => KE.chromeTrace({ error: "too many blocks", blocks: [] }), /simulation failed: too many blocks/);
  assert.throws(() => KE.vcd({ blocks: [{ lane: "a", start: 3, end: 1 }] }), /block 0 has no valid start\/end/);
  assert.throws(() => KE.vcd(null), /not a simulator result/);
});

// ---- VCD ----------------------------------------------------------------------------------

test("VCD header: 1 ns timescale, unique identifiers, a scope per role, $dumpvars, increasing times", () => {
  const result = KS.simulate(structure("sm90_gemm_pingpong"), {});
  const text = KE.vcd(result, { kernel: "gemm" });
  const vcd = readVcd(text);
  assert.equal(vcd.timescale, "1 ns");
  assert.ok(vcd.dumpvars);
  const ids = Object.keys(vcd.vars);
  ids.forEach((id) => assert.match(id, /^[!-~]+$/));
  const names = Object.values(vcd.vars).map((v) => v.name);
  assert.equal(new Set(names).size, names.length);
  assert.ok(names.includes("gemm.step"));
  assert.ok(names.includes("gemm.producer.producer.state"));
  assert.ok(names.includes("gemm.stage.stage0.tile"));
  assert.ok(names.includes("gemm.consumer.consumer1.k"));
  for (let i = 1; i < vcd.times.length; i++) assert.ok(vcd.times[i] > vcd.times[i - 1]);
  assert.equal(vcd.times[vcd.times.length - 1], result.total);
  // The engine's barriers are exported: each barrier's phase signal follows its barrierEvents.
  assert.doesNotMatch(text, /barrier phase bits are not exported/);
  assert.ok(result.barriers.length > 0 && result.barrierEvents.length > 0);
  result.barriers.forEach((bar) => {
    const scope = "gemm.barriers." + bar.name.replace(/[^A-Za-z0-9_.\[\]-]+/g, "_") + ".phase";
    const changes = vcd.changes[scope];
    assert.ok(changes, "no phase signal for " + bar.name + " (" + scope + ")");
    const events = result.barrierEvents.filter((ev) => ev.barrier === bar.id);
    for (let t = 0; t <= result.total; t++) {
      const last = events.filter((ev) => ev.t <= t).pop();
      if (last) assert.equal(valueAt(changes, t), String(last.phase), bar.name + " at " + t);
    }
  });
});

test("VCD lane states replay the schedule at every step", () => {
  for (const name of EXAMPLES) {
    const result = KS.simulate(structure(name), {});
    const vcd = readVcd(KE.vcd(result, { kernel: "k" }));
    for (let t = 0; t <= result.total; t++) {
      assert.equal(valueAt(vcd.changes["k.step"], t), t.toString(2));
      result.lanes.forEach((lane) => {
        const role = lane.group;
        const running = result.blocks.find((b) => b.lane === lane.id && b.start <= t && t < b.end);
        const state = valueAt(vcd.changes["k." + role + "." + lane.id + ".state"], t);
        const want = running ? running.kind + "_" + running.tile + (running.k === null ? "" : "." + running.k) : "idle";
        assert.equal(state, want, name + " " + lane.id + " at " + t);
        const tile = valueAt(vcd.changes["k." + role + "." + lane.id + ".tile"], t);
        assert.equal(tile, running && running.tile !== null ? running.tile.toString(2) : "x");
      });
    }
  }
});

test("VCD barrier phase bits, arrivals and waiters follow barrierEvents", () => {
  const vcd = readVcd(KE.vcd(handResult(), { kernel: "k" }));
  const full = vcd.changes["k.barriers.full_stage0.phase"], empty = vcd.changes["k.barriers.empty_stage0.phase"];
  assert.deepEqual([0, 2, 3, 5].map((t) => valueAt(full, t)), ["0", "0", "1", "1"]);
  assert.deepEqual([0, 5, 6].map((t) => valueAt(empty, t)), ["1", "1", "0"]);
  assert.equal(valueAt(vcd.changes["k.barriers.full_stage0.waiters"], 2), "1");
  assert.equal(valueAt(vcd.changes["k.barriers.full_stage0.waiters"], 3), "0");
  // The sub-lane of the overlapping producer block has its own scope.
  assert.equal(valueAt(vcd.changes["k.producer.producer_2.state"], 1), "issue_0.1");
});

test("VCD with integer kind codes has no string variables (strict IEEE 1364)", () => {
  const result = KS.simulate(structure("fa3_fwd"), {});
  const text = KE.vcd(result, { strings: false });
  assert.doesNotMatch(text, /\$var string/);
  assert.match(text, /kind codes: 0 idle, 1 [a-z0-9]+/);
  const vcd = readVcd(text);
  Object.values(vcd.vars).forEach((v) => assert.ok(["integer", "wire"].includes(v.type)));
});

// ---- Command line -------------------------------------------------------------------------

function fakeIo(files) {
  const io = { out: [], err: [] };
  io.readFile = (p) => { if (!(p in files)) throw new Error("ENOENT: no such file " + p); return files[p]; };
  io.write = (t) => io.out.push(t);
  io.error = (l) => io.err.push(l);
  io.simulate = KS.simulate;
  io.normalizeKnobs = KS.normalizeKnobs;
  io.codePathLines = W.codePathLines;
  return io;
}

test("main: bad arguments and bad input give exit 2 with one clear message", () => {
  const good = JSON.stringify(structure("sm90_gemm_pingpong"));
  const cases = [
    [[], /--format must be one of chrome, vcd/],
    [["--format", "svg", "--structure", "s.json"], /--format must be one of chrome, vcd, got "svg"/],
    [["--format", "vcd"], /--structure parsed.json is required/],
    [["--format", "vcd", "--structure", "missing.json"], /cannot read missing.json: ENOENT/],
    [["--format", "vcd", "--structure", "bad.json"], /cannot read bad.json/],
    [["--format", "vcd", "--structure", "list.json"], /is not a parsed structure/],
    [["--format", "vcd", "--structure", "s.json", "--knob", "stages"], /--knob expects name=value/],
    [["--format", "vcd", "--structure", "s.json", "--knob", "model=nope"], /unknown model "nope"/],
    [["--format", "vcd", "--structure", "s.json", "--bogus"], /unknown argument "--bogus"/],
    [["--format", "vcd", "--structure", "s.json", "--marker", "A=-1"], /--marker expects name=step/],
    [["--format", "chrome", "--structure", "s.json", "--knob", "outputTiles=4096", "--knob", "kTiles=4096"], /too many blocks/]
  ];
  for (const [argv, message] of cases) {
    const io = fakeIo({ "s.json": good, "bad.json": "{", "list.json": "[]" });
    assert.equal(KE.main(argv, io), 2, argv.join(" "));
    assert.equal(io.err.length, 1, argv.join(" "));
    assert.match(io.err[0], message);
    assert.equal(io.out.length, 0);
  }
});

test("main: knobs reach the simulator; the output is the exporter's text", () => {
  const io = fakeIo({ "s.json": JSON.stringify(structure("sm90_gemm_pingpong")) });
  assert.equal(KE.main(["--format=chrome", "--structure", "s.json", "--knob", "stages=2", "--knob", "schedule=cooperative",
                        "--marker", "A=3"], io), 0);
  const trace = JSON.parse(io.out.join(""));
  assert.equal(trace.otherData.knobs.stages, 2);
  assert.equal(trace.otherData.knobs.schedule, "cooperative");
  assert.equal(trace.otherData.kernel, "sm90_gemm_tma_warpspecialized_pingpong");
  assert.deepEqual(traceProblems(trace), []);
  const result = KS.simulate(structure("sm90_gemm_pingpong"), { stages: 2, schedule: "cooperative" });
  const expected = KE.chromeTraceText(result, { kernel: "sm90_gemm_tma_warpspecialized_pingpong", markers: [{ name: "A", step: 3 }],
    codePath: (b) => W.codePathLines(b, result.knobs.kPipeMmas).lines });
  assert.equal(io.out.join(""), expected);
});

test("node trace_export.js runs as a command (exit 0 with output, exit 2 with one stderr line)", () => {
  const script = path.join(ROOT, "trace_export.js");
  const ok = childProcess.spawnSync(process.execPath, [script, "--format", "vcd", "--structure",
    path.join(ROOT, "examples", "fa3_fwd.json"), "--knob", "kvBlocks=3"], { encoding: "utf8" });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^\$comment/);
  assert.match(ok.stdout, /\$enddefinitions \$end/);
  const bad = childProcess.spawnSync(process.execPath, [script, "--format", "chrome"], { encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.equal(bad.stdout, "");
  assert.match(bad.stderr, /^trace_export: --structure parsed.json is required\nusage: /);
});

test("export file names: kernel, changed knobs by hash key, a hash of all knobs, safe characters", () => {
  const keys = KS.KNOB_TABLE.knobs.map((k) => [k.flag.slice(2), k.name]);
  const fa3 = structure("fa3_fwd");
  const defaults = KS.simulate(fa3, {}).knobs;
  const kernel = KE.kernelName(fa3);
  const name = (knobs, format, view) => KE.exportFileName(kernel, Object.assign({}, defaults, knobs), format, { defaults, keys, view });
  // The case: FA3 with TMA latency 100; the old name spelled all 17 knobs (243+ characters).
  const tma = name({ tmaLatency: 100 }, "png", [0, 812]);
  assert.match(tma, /^flash_fwd_kernel_sm90_tma-100_[0-9a-f]{8}_view-0-812\.png$/);
  assert.equal(name({}, "chrome"), kernel + "_" + KE.knobHash(defaults) + ".trace.json");
  // Stable: the same knobs give the same name, in any key order; another value, another hash.
  const shuffled = {};
  Object.keys(defaults).reverse().forEach((k) => { shuffled[k] = defaults[k]; });
  shuffled.tmaLatency = 100;
  assert.equal(KE.exportFileName(kernel, shuffled, "png", { defaults, keys, view: [0, 812] }), tma);
  assert.notEqual(name({ tmaLatency: 101 }, "png", [0, 812]).slice(-25), tma.slice(-25));
  assert.equal(KE.knobHash({ a: 1, b: true }), KE.knobHash({ b: true, a: 1 }));
  assert.notEqual(KE.knobHash({ a: 1 }), KE.knobHash({ a: 2 }));
  // Booleans as the hash spells them; knobs in the hash's order.
  assert.match(name({ transposeV: !defaults.transposeV, stages: 3 }, "svg", [1, 2]),
    new RegExp("_stages-3_transpose-v-" + (defaults.transposeV ? "off" : "on") + "_[0-9a-f]{8}_view-1-2\\.svg$"));
  // Every knob changed, a 300-character kernel name, the widest view: still short and safe.
  const all = {};
  KS.knobsFor("attention", fa3).forEach((spec) => {
    all[spec.name] = spec.type === "range" ? spec.max : spec.type === "flag" ? !spec.default : spec.choices[spec.choices.length - 1];
  });
  for (const format of ["chrome", "vcd", "svg", "png"]) {
    const long = KE.exportFileName("k/../" + "x".repeat(300) + " \u00e9\"<>|?*:", all, format, { defaults, keys, view: [1e9, 1e9] });
    assert.ok(long.length <= KE.MAX_FILE_NAME_CHARS && KE.MAX_FILE_NAME_CHARS <= 120, long.length + " " + long);
    assert.match(long, /^[A-Za-z0-9][A-Za-z0-9._-]*$/, long);
    assert.match(long, /_etc_[0-9a-f]{8}/, long);
    assert.ok(long.endsWith(KE.EXTENSIONS[format] || "." + format), long);
  }
  assert.equal(KE.exportFileName("..", {}, "vcd"), "-_" + KE.knobHash({}) + ".vcd");
  assert.throws(() => KE.exportFileName("k", {}, "../x"), /no file name for the export format/);
});

test("chrome slices are named by kind and wait reason only, so speedscope aggregates them", () => {
  const result = KS.simulate(structure("fa3_fwd"), {});
  const trace = KE.chromeTrace(result, {});
  const slices = xEvents(trace);
  assert.equal(slices.length, result.blocks.length);
  slices.forEach((ev) => {
    const b = result.blocks[ev.args.block];
    assert.equal(ev.name, b.reason ? b.kind + " " + b.reason : b.kind);
    // The B event carries no args: speedscope's frame key is the name plus the B event's args.
    assert.equal(ev.bArgs, undefined);
  });
  const names = new Set(slices.map((ev) => ev.name));
  assert.ok(names.has("wait k") || names.has("wait q"), [...names].join(", "));
  assert.ok(names.size < 20 && names.size < result.blocks.length / 5, [...names].join(", "));
});

test("args.lines: once per file:line, on the code path the page's details panel shows", () => {
  // A FULL block lists a consumer_try_wait and a consumer_wait on one line (as FA3's
  // `pipeline_k.consumer_wait(smem_pipe_read, pipeline_k.consumer_try_wait(smem_pipe_read))` does).
  const st = JSON.parse(JSON.stringify(structure("fa3_fwd")));
  for (const fn of st.functions) {
    const i = fn.ops.findIndex((o) => o.op === "consumer_wait");
    if (i >= 0) fn.ops.splice(i, 0, Object.assign({}, fn.ops[i], { op: "consumer_try_wait" }));
  }
  const fa3 = KS.simulate(st, {});
  const dup = fa3.blocks.find((b) => new Set(b.lines.map((l) => l.line)).size < b.lines.length);
  assert.ok(dup, "an FA3 block with a repeated line");
  xEvents(KE.chromeTrace(fa3, {})).forEach((ev) => assert.equal(new Set(ev.args.lines).size, ev.args.lines.length));
  // GEMM WGMMA blocks hold the first-iteration, prologue and steady-state MMA statements; the
  // trace keeps the ones codePathLines picks for the block's k-tile.
  const result = KS.simulate(structure("sm90_gemm_pingpong"), {});
  const codePath = (b) => W.codePathLines(b, result.knobs.kPipeMmas).lines;
  const key = (r) => r.path.split("/").pop() + ":" + r.line;
  let narrowed = 0;
  xEvents(KE.chromeTrace(result, { codePath })).forEach((ev) => {
    const b = result.blocks[ev.args.block];
    const want = codePath(b).map(key).filter((k, i, a) => a.indexOf(k) === i);
    assert.deepEqual(ev.args.lines, want, b.kind + " " + b.k);
    if (want.length < new Set(b.lines.map(key)).size) narrowed++;
  });
  assert.ok(narrowed > 0, "some WGMMA block ran only one of its MMA statements");
});

test("barrier phase, arrivals and waiters are counter events replaying barrierEvents", () => {
  const trace = KE.chromeTrace(handResult(), {});
  assert.deepEqual(traceProblems(trace), []);
  const counters = trace.traceEvents.filter((e) => e.ph === "C");
  const at = (name, t) => counters.filter((e) => e.name === name && e.ts <= t).pop().args;
  assert.deepEqual(at("full_stage0", 2), { phase: 0, arrivals: 0, waiters: 1 });
  // At step 3 the producer arrives, the phase completes (arrivals reset) and the waiter leaves.
  assert.deepEqual(at("full_stage0", 3), { phase: 1, arrivals: 0, waiters: 0 });
  assert.deepEqual(at("empty_stage0", 0), { phase: 1, arrivals: 0, waiters: 0 });
  assert.deepEqual(at("empty_stage0", 6), { phase: 0, arrivals: 0, waiters: 0 });
  const tids = new Set(counters.map((e) => e.pid + ":" + e.tid));
  assert.equal(tids.size, 1);
  assert.equal(threadNames(trace)[counters[0].tid], "barriers");
  // The engine's barriers: the counters hold at every step what the VCD's signals hold.
  for (const name of ["sm90_gemm_pingpong", "fa3_fwd"]) {
    const result = KS.simulate(structure(name), {});
    const cs = KE.chromeTrace(result, {}).traceEvents.filter((e) => e.ph === "C");
    const vcd = readVcd(KE.vcd(result, { kernel: "k" }));
    assert.equal(new Set(cs.map((e) => e.name)).size, result.barriers.length, name);
    result.barriers.forEach((bar) => {
      const scope = "k.barriers." + bar.name.replace(/[^A-Za-z0-9_.\[\]-]+/g, "_") + ".";
      const mine = cs.filter((e) => e.name === bar.name);
      for (let t = 0; t <= result.total; t++) {
        const v = mine.filter((e) => e.ts <= t).pop().args;
        assert.equal(String(v.phase), valueAt(vcd.changes[scope + "phase"], t), bar.name + " phase at " + t);
        assert.equal(v.arrivals.toString(2), valueAt(vcd.changes[scope + "arrivals"], t), bar.name + " arrivals at " + t);
        assert.equal(v.waiters.toString(2), valueAt(vcd.changes[scope + "waiters"], t), bar.name + " waiters at " + t);
      }
    });
  }
});

test("the command lines refuse a bad knob with one stderr line and exit 2, as viz.py does", () => {
  const gemm = path.join(ROOT, "examples", "sm90_gemm_pingpong.json");
  const fa3 = path.join(ROOT, "examples", "fa3_fwd.json");
  const cases = [
    [gemm, "stages=abc", /^trace_export: refused --knob stages=abc \(simulator: stages: "abc" is not a number/],
    [gemm, "bogus=3", /^trace_export: refused --knob bogus=3 \(simulator: unknown knob "bogus".*knobs of the gemm model: stages, /],
    [gemm, "kvBlocks=3", /^trace_export: refused --knob kvBlocks=3 .*unknown knob/],
    [gemm, "stages=65", /^trace_export: refused --knob stages=65 \(simulator: stages: 65 is above the maximum/],
    [gemm, "tmaLatency=-1", /^trace_export: refused --knob tmaLatency=-1 \(simulator: tmaLatency: -1 is below the minimum/],
    [gemm, "stages=2.5", /rounded to 3/],
    [gemm, "schedule=zigzag", /is not one of pingpong, cooperative/],
    [fa3, "transposeV=maybe", /^trace_export: refused --knob transposeV=maybe \(simulator: transposeV: "maybe" is not on\/off/]
  ];
  for (const script of [["trace_export.js"], ["schedule.js", "export"]]) {
    for (const [file, knob, message] of cases) {
      for (const format of ["chrome", "vcd"]) {
        const run = childProcess.spawnSync(process.execPath, [path.join(ROOT, script[0])].concat(script.slice(1),
          ["--format", format, "--structure", file, "--knob", knob]), { encoding: "utf8" });
        const what = script.join(" ") + " " + format + " " + knob;
        assert.equal(run.status, 2, what + ": " + run.stderr);
        assert.equal(run.stdout, "", what);
        assert.equal(run.stderr.split("\n").filter(Boolean).length, 1, what + ": " + run.stderr);
        assert.match(run.stderr, message, what);
      }
    }
  }
  // Accepted as given: a deadlock asked for (K_PIPE_MMAS >= stages), a word in capitals, on/off.
  for (const [file, knobs] of [[gemm, ["kPipeMmas=4", "stages=4"]], [gemm, ["schedule=Cooperative"]], [fa3, ["transposeV=off"]]]) {
    const io = fakeIo({ "s.json": require("node:fs").readFileSync(file, "utf8") });
    const argv = ["--format", "vcd", "--structure", "s.json"];
    knobs.forEach((k) => argv.push("--knob", k));
    assert.equal(KE.main(argv, io), 0, knobs.join(" ") + ": " + io.err.join(" "));
  }
});
