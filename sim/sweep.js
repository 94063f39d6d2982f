// `node schedule.js predict`: the prediction of simulate() in cycles as JSON, and grids of
// settings (`--sweep` repeated) run on every core with worker_threads (docs/performance.md,
// "Sweeps and grids"). Node only: never inlined into a page (schedule.js requires this file only
// from its command-line dispatch).
"use strict";

const path = require("path");
const os = require("os");
const { Worker, isMainThread, parentPort, workerData } = require("worker_threads");

const KS = require(path.join(__dirname, "..", "schedule.js"));

const USAGE = "usage: node schedule.js predict --structure parsed.json --knob gpu=NAME [--gpu-file gpus.json] " +
  "[--knob name=value ...] [--flag NAME=on|off|N ...] [--sweep name=a..b|name=v1,v2,... ...] [--jobs N]";

/** Settings in one grid at most (the product of every --sweep's values). */
const MAX_SETTINGS = 10000;

/** Workers at most, whatever --jobs says (a grid is split into batches; more threads only cost memory). */
const MAX_JOBS = 64;

/**
 * Settings per batch handed to a worker: small enough that the slow settings (many k-tiles per
 * CTA) spread over the workers, large enough that messages cost nothing beside a simulation.
 */
const BATCH = 4;

/** Marks the workerData of this module's workers. */
const WORKER_KIND = "kernel-viz-sweep";

/** The flag word (`--consumers` -> consumers) or name of every knob, to its knob name. */
function knobNames() {
  const names = {};
  KS.KNOB_TABLE.knobs.concat(KS.KNOB_TABLE.units).forEach(function (k) {
    names[k.name] = k.name;
    names[k.flag.replace(/^--/, "")] = k.name;
  });
  return names;
}

/** A --knob or --sweep value as the simulator takes it: integers and decimals as numbers, true/false as booleans. */
function knobValue(text) {
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text === "true" ? true : text === "false" ? false : text;
}

/**
 * One --sweep: `name=a..b` (integers, a <= b) or `name=v1,v2,...`; name a knob or its flag word.
 * Returns {knob, values} or {error}.
 */
function parseAxis(text, names) {
  const at = text.indexOf("=");
  if (at <= 0) return { error: "--sweep expects name=a..b or name=v1,v2,..., got " + JSON.stringify(text) };
  const name = text.slice(0, at), spec = text.slice(at + 1);
  if (!Object.prototype.hasOwnProperty.call(names, name)) return { error: "--sweep: unknown knob " + JSON.stringify(name) };
  const range = /^(\d+)\.\.(\d+)$/.exec(spec);
  let values;
  if (range) {
    const lo = Number(range[1]), hi = Number(range[2]);
    if (lo > hi || hi - lo >= MAX_SETTINGS) return { error: "--sweep " + name + "=a..b needs a <= b and at most " + MAX_SETTINGS + " values, got " + JSON.stringify(spec) };
    values = [];
    for (let n = lo; n <= hi; n++) values.push(n);
  } else {
    values = spec.split(",");
    if (values.some(function (v) { return v === ""; })) return { error: "--sweep expects name=a..b (a <= b) or name=v1,v2,..., got " + JSON.stringify(text) };
    values = values.map(knobValue);
  }
  return { knob: names[name], values: values };
}

/**
 * Every setting of a grid, in its order: the first axis varies slowest (nested loops in the order
 * the --sweep flags were given), so a one-axis grid is that axis's values in order.
 */
function gridSettings(axes) {
  let settings = [[]];
  axes.forEach(function (axis) {
    const next = [];
    settings.forEach(function (head) { axis.values.forEach(function (v) { next.push(head.concat([v])); }); });
    settings = next;
  });
  return settings;
}

/** The prediction fields of a simulate() result (no blocks: they are the page's). */
function prediction(r) {
  const v = r.verdict || {};
  return { model: r.model, knobs: r.knobs, total: r.total, time: r.time, tflops: r.tflops, peakFraction: r.peakFraction,
    bottleneck: r.bottleneck, units: r.units, deadlock: r.deadlock ? r.deadlock.message : null,
    verdict: { summary: v.summary, tensorCoreUtilization: v.tensorCoreUtilization, tensorCoreBusySteps: v.tensorCoreBusySteps, waits: v.waits },
    messages: r.messages };
}

/**
 * "Stages needed to hide the load": the model's own minimum-stages verdict (the view's verdict
 * entry formatted as stages: GEMM's minStagesToHideTma, the program model's search of the load
 * rings' stage count, model_program.js minStagesToHideLoad; null for a model without one, above
 * its search limit, or where the run deadlocks) with the TMA latency, in cycles and us, that those
 * stages hide. A null with the model's reason (result.notes[field]) carries it as `why`.
 */
function stagesToHide(r) {
  const entry = ((r.view && r.view.verdict) || []).filter(function (e) { return e.format === "stages"; })[0];
  const stages = entry && r.verdict && typeof r.verdict[entry.field] === "number" ? r.verdict[entry.field] : null;
  const cycles = r.knobs && typeof r.knobs.tmaLatency === "number" ? r.knobs.tmaLatency : null;
  const clock = r.units && r.units.clockMHz;
  const out = { stages: stages, tmaCycles: cycles, tmaUs: cycles !== null && clock ? cycles / clock : null };
  const why = entry && stages === null && r.notes ? r.notes[entry.field] : undefined;
  if (typeof why === "string") out.why = why;
  return out;
}

/**
 * One setting's JSON line (or {error}): base knobs with the setting's values; `gpus` maps a GPU
 * name of --gpu-file to its preset (a swept gpu too). Shared by the main thread and the workers,
 * so --jobs never changes a byte.
 */
function predictSetting(structure, base, axes, values, index, gpus) {
  const knobs = Object.assign({}, base);
  axes.forEach(function (knob, i) { knobs[knob] = values[i]; });
  if (gpus && typeof knobs.gpu === "string") knobs.gpu = gpus[knobs.gpu];
  const r = KS.simulate(structure, knobs, { events: false });
  if (r.error) return { error: (axes.length ? settingText(axes, values) + ": " : "") + r.error };
  const p = prediction(r);
  p.stagesToHide = stagesToHide(r);
  if (!axes.length) return { line: JSON.stringify(p, null, 2) };
  p.sweep = { index: index, knobs: axes.slice(), values: values.slice() };
  // The one-axis form of the first sweeps: {knob, value} beside the grid's lists.
  if (axes.length === 1) { p.sweep.knob = axes[0]; p.sweep.value = values[0]; }
  return { line: JSON.stringify(p) };
}

/** "stages=4 tile=128x128x64": a setting in words. */
function settingText(axes, values) {
  return axes.map(function (k, i) { return k + "=" + values[i]; }).join(" ");
}

/** Run settings [start, end) in this thread: their lines, or the first error with its index. */
function runBatch(job, start, end) {
  const lines = [];
  for (let i = start; i < end; i++) {
    const out = predictSetting(job.structure, job.base, job.axes, job.settings[i], i, job.gpus);
    if (out.error) return { start: start, lines: lines, error: out.error, errorIndex: i };
    lines.push(out.line);
  }
  return { start: start, lines: lines, error: null };
}

/**
 * Run a grid: job = {structure, base, axes, settings, gpus}; resolves to {lines} in the grid's
 * order, or {error} of the first failing setting in that order. jobs 1 runs in this thread;
 * otherwise min(jobs, batches) workers take batches of BATCH settings as they come free, and the
 * lines are put back in order, so the output is the same for every jobs.
 */
function runGrid(job, jobs) {
  const n = job.settings.length;
  const batches = Math.ceil(n / BATCH);
  if (jobs <= 1 || batches <= 1) {
    const all = runBatch(job, 0, n);
    return Promise.resolve(all.error ? { error: all.error } : { lines: all.lines });
  }
  return new Promise(function (resolve, reject) {
    const lines = new Array(n);
    // The first failing setting found so far: batches after it are not started, batches before
    // it still run (one of them may fail earlier in the grid's order).
    let errorIndex = n, error = null, next = 0, running = 0, failed = false;
    const workers = [];
    function finish() {
      workers.forEach(function (w) { w.terminate(); });
      resolve(error !== null ? { error: error } : { lines: lines });
    }
    function feed(w) {
      if (next < n && next < errorIndex) {
        const start = next;
        next = Math.min(n, next + BATCH);
        running++;
        w.postMessage({ start: start, end: next });
      } else if (running === 0) finish();
    }
    for (let j = 0; j < Math.min(jobs, batches); j++) {
      const w = new Worker(__filename, { workerData: { kind: WORKER_KIND, job: job } });
      workers.push(w);
      w.on("message", function (msg) {
        running--;
        for (let i = 0; i < msg.lines.length; i++) lines[msg.start + i] = msg.lines[i];
        if (msg.error !== null && msg.errorIndex < errorIndex) { errorIndex = msg.errorIndex; error = msg.error; }
        feed(w);
      });
      // A worker's exception is a bug, not bad input: it reaches the caller with its stack.
      w.on("error", function (e) {
        if (failed) return;
        failed = true;
        workers.forEach(function (x) { x.terminate(); });
        reject(e);
      });
      feed(w);
    }
  });
}

/** The worker's side: answer each {start, end} with runBatch's result. */
function workerMain() {
  const job = workerData.job;
  parentPort.on("message", function (msg) { parentPort.postMessage(runBatch(job, msg.start, msg.end)); });
}

/**
 * Run `predict` (argv after the command); resolves to the exit status. io = {readFile, write,
 * error}, by default the file system and the process's streams.
 */
function cli(argv, io) {
  io = io || {
    readFile: function (p) { return require("fs").readFileSync(p, "utf8"); },
    write: function (text) { process.stdout.write(text); },
    error: function (line) { process.stderr.write(line + "\n"); }
  };
  const bad = function (msg) { io.error("schedule.js predict: " + msg); return Promise.resolve(2); };
  const names = knobNames();
  let structure = null, gpuFile = null, jobs = os.cpus().length || 1;
  const knobs = {}, axes = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i], eq = arg.indexOf("=");
    const name = arg.slice(0, 2) === "--" && eq > 0 ? arg.slice(0, eq) : arg;
    if (name === "-h" || name === "--help") { io.write(USAGE + "\n"); return Promise.resolve(0); }
    if (["--structure", "--gpu-file", "--knob", "--flag", "--sweep", "--jobs"].indexOf(name) < 0) return bad("unknown argument " + JSON.stringify(arg) + "; " + USAGE);
    const value = name !== arg ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) return bad(name + " needs a value");
    if (name === "--structure") structure = value;
    else if (name === "--gpu-file") gpuFile = value;
    else if (name === "--jobs") {
      if (!/^\d+$/.test(value) || Number(value) < 1) return bad("--jobs expects a positive integer, got " + JSON.stringify(value));
      jobs = Math.min(Number(value), MAX_JOBS);
    } else if (name === "--flag") {
      // A compile-time flag or setting of the program model, by its name in the verdict's flags (knobs.flags).
      const at = value.lastIndexOf("=");
      if (at <= 0) return bad("--flag expects NAME=on|off|N, got " + JSON.stringify(value));
      knobs.flags = knobs.flags || {};
      knobs.flags[value.slice(0, at)] = value.slice(at + 1);
    } else if (name === "--knob") {
      const at = value.indexOf("=");
      if (at <= 0) return bad("--knob expects name=value, got " + JSON.stringify(value));
      knobs[value.slice(0, at)] = knobValue(value.slice(at + 1));
    } else {
      const axis = parseAxis(value, names);
      if (axis.error) return bad(axis.error);
      if (axes.some(function (a) { return a.knob === axis.knob; })) return bad("--sweep: " + axis.knob + " is swept twice");
      axes.push(axis);
    }
  }
  if (!structure) return bad("--structure parsed.json is required");
  const swept = axes.map(function (a) { return a.knob; });
  const both = swept.filter(function (k) { return Object.keys(knobs).some(function (n) { return names[n] === k || n === k; }); });
  if (both.length) return bad(both[0] + " is given both as --knob and as --sweep");
  if (knobs.gpu === undefined && swept.indexOf("gpu") < 0) return bad("--knob gpu=NAME is required (a preset of sim/gpus.json, or of --gpu-file)");
  const size = axes.reduce(function (n, a) { return n * a.values.length; }, 1);
  if (size > MAX_SETTINGS) return bad("--sweep: a grid of " + size + " settings (limit " + MAX_SETTINGS + ")");
  let parsed;
  try { parsed = JSON.parse(io.readFile(structure)); } catch (e) { return bad("cannot read " + structure + ": " + String(e.message).split("\n")[0]); }
  let gpus = null;
  if (gpuFile) {
    let table;
    try { table = JSON.parse(io.readFile(gpuFile)); } catch (e) { return bad("cannot read " + gpuFile + ": " + String(e.message).split("\n")[0]); }
    gpus = table && typeof table === "object" && table.gpus && typeof table.gpus === "object" ? table.gpus : null;
    if (!gpus) return bad(gpuFile + ": no \"gpus\" object");
    const wanted = swept.indexOf("gpu") >= 0 ? axes[swept.indexOf("gpu")].values : [knobs.gpu];
    const unknown = wanted.filter(function (g) { return !Object.prototype.hasOwnProperty.call(gpus, g); })[0];
    if (unknown !== undefined) return bad(gpuFile + ": unknown GPU " + JSON.stringify(unknown) + " (one of " + Object.keys(gpus).join(", ") + ")");
  }
  // No model knob: the page's starting model (KS.pageModel: the program model where no hand-written one fits).
  if (knobs.model === undefined && swept.indexOf("model") < 0) { const start = KS.pageModel(parsed); if (start !== null) knobs.model = start; }
  const job = { structure: parsed, base: knobs, axes: swept, settings: gridSettings(axes), gpus: gpus };
  return runGrid(job, jobs).then(function (out) {
    if (out.error) { io.error("schedule.js predict: " + out.error); return 2; }
    io.write(out.lines.join("\n") + "\n");
    return 0;
  });
}

if (!isMainThread && workerData && workerData.kind === WORKER_KIND) workerMain();

module.exports = { cli: cli, runGrid: runGrid, gridSettings: gridSettings, parseAxis: parseAxis, knobNames: knobNames,
  predictSetting: predictSetting, stagesToHide: stagesToHide, USAGE: USAGE, MAX_SETTINGS: MAX_SETTINGS, BATCH: BATCH };
