// The trace-event rules an exported Chrome trace must follow, checked independently of
// trace_export.js (not a test file: loaded with require()). Used by test_export.js; the Python
// tests run the same checks through `node tests/js/trace_rules.js FILE`.
"use strict";

/**
 * Problems of a Chrome trace object (empty when it follows the rules):
 *  - the JSON object form: traceEvents array, displayTimeUnit "ns";
 *  - every event has ph, pid, tid and (but M) a finite ts >= 0; X has dur >= 0;
 *  - every (pid, tid) that carries events is named by a thread_name M event, and sorted;
 *  - every E event closes the B event open on its thread, with the same name and cat, at a ts
 *    not before it; no B event is left open; each B/E pair is a slice like an X event;
 *  - no two slices (X events, B/E pairs) of one thread overlap (b.ts >= a.ts + a.dur when a starts first);
 *  - every flow id has exactly one "s" and one "f" with the same name and cat, f has bp "e",
 *    s.ts <= f.ts, and each end lies inside an X slice of its own thread.
 */
function traceProblems(trace) {
  const problems = [];
  if (!trace || !Array.isArray(trace.traceEvents)) return ["no traceEvents array"];
  if (trace.displayTimeUnit !== "ns") problems.push("displayTimeUnit is " + JSON.stringify(trace.displayTimeUnit));
  const named = new Set(), sorted = new Set(), used = new Set();
  const slices = new Map();
  const flows = new Map();
  const open = new Map();  // thread -> stack of open B events
  trace.traceEvents.forEach((ev, i) => {
    if (typeof ev.ph !== "string" || !Number.isInteger(ev.pid) || !Number.isInteger(ev.tid)) {
      problems.push("event " + i + " lacks ph/pid/tid");
      return;
    }
    const key = ev.pid + ":" + ev.tid;
    if (ev.ph === "M") {
      if (ev.name === "thread_name" && ev.args && typeof ev.args.name === "string") named.add(key);
      if (ev.name === "thread_sort_index" && ev.args && Number.isInteger(ev.args.sort_index)) sorted.add(key);
      return;
    }
    if (!(typeof ev.ts === "number" && isFinite(ev.ts) && ev.ts >= 0)) problems.push("event " + i + " has a bad ts");
    used.add(key);
    if (ev.ph === "X") {
      if (!(typeof ev.dur === "number" && ev.dur >= 0)) problems.push("X event " + i + " has a bad dur");
      if (!slices.has(key)) slices.set(key, []);
      slices.get(key).push(ev);
    } else if (ev.ph === "B") {
      if (!open.has(key)) open.set(key, []);
      open.get(key).push(ev);
    } else if (ev.ph === "E") {
      const b = (open.get(key) || []).pop();
      if (!b) problems.push("E event " + i + " on thread " + key + " closes nothing");
      else if (b.name !== ev.name || b.cat !== ev.cat) problems.push("E event " + i + " (" + ev.name + ") closes B " + b.name);
      else if (ev.ts < b.ts) problems.push("E event " + i + " ends before its B");
      else {
        if (!slices.has(key)) slices.set(key, []);
        slices.get(key).push({ name: b.name, ts: b.ts, dur: ev.ts - b.ts });
      }
    } else if (ev.ph === "s" || ev.ph === "f") {
      if (!flows.has(ev.id)) flows.set(ev.id, []);
      flows.get(ev.id).push(ev);
    }
  });
  open.forEach((stack, key) => { if (stack.length) problems.push(stack.length + " B events left open on thread " + key); });
  used.forEach((key) => {
    if (!named.has(key)) problems.push("thread " + key + " has no thread_name");
    if (!sorted.has(key)) problems.push("thread " + key + " has no thread_sort_index");
  });
  slices.forEach((list, key) => {
    list.sort((a, b) => a.ts - b.ts || a.dur - b.dur);
    for (let i = 1; i < list.length; i++) {
      if (list[i].ts < list[i - 1].ts + list[i - 1].dur) {
        problems.push("overlapping X on thread " + key + ": " + list[i - 1].name + " and " + list[i].name);
      }
    }
  });
  const inside = (ev) => {
    const list = slices.get(ev.pid + ":" + ev.tid) || [];
    let lo = 0, hi = list.length - 1;
    while (lo <= hi) {  // last slice starting at or before ev.ts
      const mid = (lo + hi) >> 1;
      if (list[mid].ts <= ev.ts) lo = mid + 1; else hi = mid - 1;
    }
    return hi >= 0 && ev.ts <= list[hi].ts + list[hi].dur;
  };
  flows.forEach((list, id) => {
    const s = list.filter((e) => e.ph === "s"), f = list.filter((e) => e.ph === "f");
    if (s.length !== 1 || f.length !== 1) {
      problems.push("flow " + id + " has " + s.length + " starts and " + f.length + " ends");
      return;
    }
    if (s[0].name !== f[0].name || s[0].cat !== f[0].cat) problems.push("flow " + id + " ends differ in name/cat");
    if (f[0].bp !== "e") problems.push("flow " + id + " end lacks bp \"e\"");
    if (s[0].ts > f[0].ts) problems.push("flow " + id + " goes back in time");
    if (!inside(s[0])) problems.push("flow " + id + " start is not inside a slice of its thread");
    if (!inside(f[0])) problems.push("flow " + id + " end is not inside a slice of its thread");
  });
  return problems;
}

module.exports = { traceProblems };

if (require.main === module) {
  // node tests/js/trace_rules.js FILE: print the problems, exit 1 when there are any.
  const trace = JSON.parse(require("node:fs").readFileSync(process.argv[2], "utf8"));
  const problems = traceProblems(trace);
  problems.slice(0, 20).forEach((p) => console.log(p));
  process.exitCode = problems.length ? 1 : 0;
}
