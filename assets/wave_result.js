/* Waveform page: a result's text and replay: percentages, the barrier state at a step (from
 * barrierEvents), barrier event steps, the code-path lines of a block, and the Worker's result packing.
 * Pure and DOM-free: a global KVWaveResult in the page, module.exports in Node. ASCII only.
 */
var KVWaveResult = (function (KVWaveConst) {
  "use strict";
  var MIN_UTIL_DECIMALS = KVWaveConst.MIN_UTIL_DECIMALS;

  /**
   * A fraction as a percentage with one decimal that never rounds a non-total up to 100% nor a
   * non-zero down to 0% (0.9996 -> "99.9%", 0.0004 -> "<0.1%"); "n/a" for anything not a number.
   */
  function percentText(x) {
    if (typeof x !== "number" || !isFinite(x)) return "n/a";
    if (x >= 1) return "100%";
    if (x <= 0) return "0%";
    var scale = Math.pow(10, MIN_UTIL_DECIMALS + 2);
    var v = Math.round(x * scale) / Math.pow(10, MIN_UTIL_DECIMALS);
    if (v >= 100) v = 100 - Math.pow(10, -MIN_UTIL_DECIMALS);
    if (v <= 0) return "<" + Math.pow(10, -MIN_UTIL_DECIMALS) + "%";
    return v.toFixed(MIN_UTIL_DECIMALS) + "%";
  }

  /**
   * The verdict's critical-path line (result.criticalPath, docs/performance.md "The critical path"):
   * "Critical path: N blocks over C cycles: kind P%, ..." with every share (gap included) in
   * descending order (ties: by name), as percentText writes them; "" for no path.
   */
  function criticalPathLine(cp) {
    if (!cp || !Array.isArray(cp.blocks) || !cp.shares) return "";
    var kinds = Object.keys(cp.shares).sort(function (a, b) { return (cp.shares[b] - cp.shares[a]) || (a < b ? -1 : 1); });
    return "Critical path: " + cp.blocks.length + " blocks over " + Math.round(cp.cycles) + " cycles: " +
      kinds.map(function (k) { return k + " " + percentText(cp.shares[k]); }).join(", ");
  }

  /**
   * Barrier state after every event at or before step t, replayed from result.barrierEvents:
   * [{barrier, phase, arrivals, expected, completions, waiters: [{lane, parity, since}], events}].
   * phase is the barrier's phase bit; arrivals count the arrives since its last phase completion;
   * a waiter blocks on the parity it began waiting with (try_wait.parity returns once that
   * phase has completed, i.e. the bit has flipped). Linear in the number of events.
   */
  function barrierStateAt(result, t) {
    var barriers = result && Array.isArray(result.barriers) ? result.barriers : [];
    var events = result && Array.isArray(result.barrierEvents) ? result.barrierEvents : [];
    var states = barriers.map(function (b) {
      return {barrier: b, phase: 0, arrivals: 0, expected: b.expected, completions: 0, waiters: [], events: 0};
    });
    var byId = {};
    barriers.forEach(function (b, i) { byId[b.id] = states[i]; });
    for (var i = 0; i < events.length; i++) {
      var e = events[i];
      if (e.t > t) break;
      var s = byId[e.barrier];
      if (!s) continue;
      s.events++;
      if (e.type === "arrive") s.arrivals++;
      else if (e.type === "complete") { s.arrivals = 0; s.completions++; }
      else if (e.type === "wait_begin") s.waiters.push({lane: e.lane, parity: e.phase, since: e.t});
      else if (e.type === "wait_end") {
        for (var w = 0; w < s.waiters.length; w++) if (s.waiters[w].lane === e.lane) { s.waiters.splice(w, 1); break; }
      }
      if (typeof e.phase === "number") s.phase = e.phase;
    }
    return states;
  }

  /** Step of the first barrier event after t (dir 1) or before t (dir -1), or null. */
  function barrierEventStep(result, t, dir) {
    var events = result && Array.isArray(result.barrierEvents) ? result.barrierEvents : [];
    if (dir > 0) {
      for (var i = 0; i < events.length; i++) if (events[i].t > t) return events[i].t;
    } else {
      for (var j = events.length - 1; j >= 0; j--) if (events[j].t < t) return events[j].t;
    }
    return null;
  }

  /**
   * The source lines of the code path a block ran. A block whose lines hold several alternative
   * MMA statements (CUTLASS's first k-tile, the K_PIPE_MMAS prologue loop and the steady-state
   * loop) keeps the wait + MMA of the one its k-tile ran, plus the statements shared by all
   * (the release): {lines, path: "first iteration" | "prologue loop" | "steady-state loop" | null}.
   * The choice is the page's reading of CUTLASS's sm90 mainloop (k 0: the first wait + MMA; k below
   * K_PIPE_MMAS: the prologue loop's; later: the steady-state loop's), and the panel says so.
   * kPipeMmas: the K_PIPE_MMAS knob. Any other block keeps all its lines (path null).
   */
  function codePathLines(b, kPipeMmas) {
    var lines = b.lines || [];
    var mmaAt = [];
    lines.forEach(function (l, i) { if (l.op === "mma") mmaAt.push(i); });
    // Only a GEMM WGMMA block is known to run exactly one of its MMA statements per k-tile; any
    // other block (attention's GEMM0/GEMM1 inside several loops) keeps every line it may come from.
    if (b.kind !== "wgmma" || mmaAt.length < 2 || b.k === null || b.k === undefined) return {lines: lines, path: null};
    // Group g: the lines after the previous MMA up to and including MMA g; the lines after the
    // last MMA (the release) are shared.
    var groups = [], from = 0;
    mmaAt.forEach(function (at) { groups.push(lines.slice(from, at + 1)); from = at + 1; });
    var shared = lines.slice(from);
    var last = groups.length - 1, pick, path;
    var prologue = typeof kPipeMmas === "number" ? kPipeMmas : 1;
    if (b.k === 0) { pick = 0; path = "first iteration"; }
    else if (groups.length > 2 && b.k < prologue) { pick = 1; path = "prologue loop"; }
    else { pick = last; path = "steady-state loop"; }
    return {lines: groups[pick].concat(shared), path: path};
  }

  /**
   * A simulate() result in a form that crosses from a Worker cheaply: the block columns' typed
   * arrays (schedule.js result.columns) are transferred, not copied, with their small tables;
   * barrier events become typed columns too (packEvents); the rest of the result goes as is.
   * A run that skipped its barrier events (simulate's options.events false: the page's background
   * runs, a tenth to a fifth faster) crosses without them (eventsDeferred: true); a second run sends
   * them. Never reads result.blocks (that would build every block object in the Worker). Runs
   * inside the Worker (its source and packEvents' are sent there), so it uses nothing else.
   */
  function packResult(r) {
    if (!r || typeof r !== "object" || !r.columns || typeof r.columns.n !== "number") return {plain: r};
    var defer = r.barrierEventsSkipped === true;
    var rest = {};
    Object.keys(r).forEach(function (key) { if (key !== "blocks" && key !== "barrierEvents" && key !== "laneBlocks") rest[key] = r[key]; });
    // Every typed array's buffer once (two views of one buffer must not be listed twice).
    var buffers = new Set(), c = r.columns;
    Object.keys(c).forEach(function (key) { if (ArrayBuffer.isView(c[key])) buffers.add(c[key].buffer); });
    var out = {rest: rest, columns: c, events: null, eventsDeferred: defer, transfer: null};
    if (!defer) {
      out.events = packEvents(r);
      out.events.transfer.forEach(function (buf) { buffers.add(buf); });
      delete out.events.transfer;
    }
    out.transfer = Array.from(buffers);
    return out;
  }

  /** result.barrierEvents as typed columns with interned strings: {strings, t, barrier, type, lane, phase, transfer}. */
  function packEvents(r) {
    var strings = [], stringIds = new Map();
    function str(s) {
      if (s === null || s === undefined) return s === null ? -2 : -1;
      var id = stringIds.get(s);
      if (id === undefined) { id = strings.length; strings.push(s); stringIds.set(s, id); }
      return id;
    }
    function num(x) { return x === null || x === undefined ? NaN : x; }
    var cols = r.barrierEventColumns, i, ev;
    if (cols) {
      // The simulator's typed event columns: copied number for number, no event object built.
      var m0 = cols.n, typeIds = cols.types.map(str), laneIds = cols.lanes.map(str);
      ev = {strings: strings, t: new Float64Array(m0), barrier: new Float64Array(m0), type: new Int32Array(m0), lane: new Int32Array(m0), phase: new Float64Array(m0)};
      for (i = 0; i < m0; i++) {
        ev.t[i] = cols.t[i]; ev.barrier[i] = cols.barrier[i]; ev.type[i] = typeIds[cols.type[i]];
        ev.lane[i] = cols.lane[i] < 0 ? -2 : laneIds[cols.lane[i]]; ev.phase[i] = cols.phase[i];
      }
      ev.transfer = [ev.t.buffer, ev.barrier.buffer, ev.type.buffer, ev.lane.buffer, ev.phase.buffer];
      return ev;
    }
    var events = r.barrierEvents || [], m = events.length;
    ev = {strings: strings, t: new Float64Array(m), barrier: new Float64Array(m), type: new Int32Array(m), lane: new Int32Array(m), phase: new Float64Array(m)};
    for (i = 0; i < m; i++) {
      var e = events[i];
      ev.t[i] = e.t; ev.barrier[i] = e.barrier; ev.type[i] = str(e.type); ev.lane[i] = str(e.lane); ev.phase[i] = num(e.phase);
    }
    ev.transfer = [ev.t.buffer, ev.barrier.buffer, ev.type.buffer, ev.lane.buffer, ev.phase.buffer];
    return ev;
  }

  /** Barrier event objects from packEvents' columns. */
  function unpackEvents(e) {
    var strings = e.strings, m = e.t.length, events = new Array(m);
    function str(i) { return i === -2 ? null : (i < 0 ? undefined : strings[i]); }
    function num(x) { return x !== x ? null : x; }
    for (var j = 0; j < m; j++) events[j] = {t: e.t[j], barrier: e.barrier[j], type: str(e.type[j]), lane: str(e.lane[j]), phase: num(e.phase[j])};
    return events;
  }

  /**
   * The result packResult packed: the columns attached with KernelSchedule.attachColumns (so
   * result.columns is what the page reads, and blocks / laneBlocks stay lazy getters that only
   * an export or a test materialises); barrier events rebuilt on first read. With deferred
   * events, result.eventsPending (non-enumerable) is true and barrierEvents reads [] until
   * supplyEvents(result, packedEvents) gives them. KS: the simulator module (default: the
   * page's window.KernelSchedule).
   */
  function unpackResult(p, KS) {
    if (p.plain !== undefined || !p.columns) return p.plain;
    KS = KS || (typeof window !== "undefined" ? window.KernelSchedule : null);
    var r = {}, packed = p.events, events = null;
    Object.keys(p.rest).forEach(function (key) { r[key] = p.rest[key]; });
    KS.attachColumns(r, p.columns);
    Object.defineProperty(r, "eventsPending", {value: !!p.eventsDeferred, enumerable: false, configurable: true, writable: true});
    Object.defineProperty(r, "supplyEvents", {enumerable: false, configurable: true, value: function (e) {
      packed = e;
      events = null;
      r.eventsPending = false;
      r.barrierEventsSkipped = false;
    }});
    // Barrier events are rebuilt on first read (the barrier panel, an export), as the engine does.
    Object.defineProperty(r, "barrierEvents", {enumerable: true, configurable: true, get: function () {
      if (!packed) return [];
      if (!events) events = unpackEvents(packed);
      return events;
    }});
    return r;
  }

  return {percentText: percentText, criticalPathLine: criticalPathLine, barrierStateAt: barrierStateAt, barrierEventStep: barrierEventStep, codePathLines: codePathLines, packResult: packResult, packEvents: packEvents, unpackEvents: unpackEvents, unpackResult: unpackResult};
})(typeof KVWaveConst !== "undefined" ? KVWaveConst : require("./wave_const.js"));
if (typeof module !== "undefined" && module.exports) module.exports = KVWaveResult;
