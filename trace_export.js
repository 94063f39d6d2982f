/*
 * trace_export.js: take a simulated schedule to the tools kernel engineers already use.
 *
 * Pure and DOM-free, like schedule.js: every exporter reads a KernelSchedule.simulate() result
 * (v1 block API {lane, kind, start, end, tile, k, stage, reason, lines, after}, lanes, knobs,
 * model; plus `barriers`/`barrierEvents` when the simulator provides them) and returns text.
 *   - chromeTrace / chromeTraceChunks: Chrome trace-event JSON (Perfetto UI, speedscope,
 *     chrome://tracing): one process per CTA, one thread per lane (split into numbered
 *     sub-threads where blocks of a lane overlap), X per block, flows for every dependency.
 *   - vcd: a Value Change Dump (GTKWave, Surfer): one tick per step, a scope per role.
 *   - main(argv, io): the Node command line (`node trace_export.js --format chrome|vcd
 *     --structure parsed.json [--knob name=value ...]`), which simulates with ./schedule.js.
 * Plain ES2017, no module syntax, ASCII only: a page inlines it into a classic <script> (the
 * global KernelExport); Node gets the same object through module.exports.
 */
var KernelExport = (function () {
  "use strict";

  /** Microseconds per simulator step in the Chrome trace (the trace's ts/dur unit is 1 us). */
  var US_PER_STEP = 1;
  /** Nanoseconds per step in the VCD ($timescale 1 ns, one tick per step). */
  var VCD_TIMESCALE = "1 ns";
  var TOOL = "kernel_logical_visualizer trace_export.js";
  var FORMATS = ["chrome", "vcd"];
  /** File name suffix of each format. */
  var EXTENSIONS = { chrome: ".trace.json", vcd: ".vcd" };
  /** Thread ids start here; 0 is avoided because some readers treat tid 0 as "the process". */
  var FIRST_TID = 1;
  /** The value a lane's state signal holds when no block runs on it. */
  var IDLE = "idle";
  /** Width of the VCD integer signals (tile, k, stage, step, counters). */
  var VCD_INT_BITS = 32;
  /** VCD identifier codes are strings over the printable ASCII characters '!' (33) to '~' (126). */
  var VCD_ID_FIRST = 33;
  var VCD_ID_BASE = 94;
  /** Events per text chunk of the Chrome trace. */
  var CHUNK_EVENTS = 4096;
  /** Name of the thread that holds the barrier counters in the Chrome trace. */
  var COUNTER_THREAD = "barriers";
  var NO_BARRIERS = "the simulator result has no barriers/barrierEvents: barrier phase bits are not exported";

  // ---------------------------------------------------------------------------------------------
  // Shared helpers

  function isObject(x) { return x !== null && typeof x === "object" && !Array.isArray(x); }

  function isFiniteNumber(x) { return typeof x === "number" && isFinite(x); }

  /** Last path component of a source path ("a/b/c.hpp" -> "c.hpp"). */
  function baseName(path) { return String(path || "").split("/").pop(); }

  /** "file.hpp:123" for one source reference {path, line}. */
  function lineKey(ref) { return baseName(ref.path) + ":" + ref.line; }

  /**
   * The kernel's short name, the one rule of render_waveform.kernel_stem (the pages' titles):
   * the structure's own source path (source.path, never the kernel layer's), its last component
   * after "/" or "\\", without the last "." and what follows; "kernel" when that leaves nothing
   * or the path is not a string.
   * tests/test_kernel_name.py checks that the two agree on every example and fixture.
   */
  function kernelName(structure) {
    // The kernel layer's file when one was parsed, else the structure's own (render_waveform.kernel_stem).
    var layer = isObject(structure) && isObject(structure.kernel_layer) && isObject(structure.kernel_layer.source) &&
      typeof structure.kernel_layer.source.path === "string" ? structure.kernel_layer.source : null;
    var path = layer ? layer.path : isObject(structure) && isObject(structure.source) ? structure.source.path : null;
    var stem = (typeof path === "string" ? path : "").split(/[\/\\]/).pop().replace(/\.[^.]*$/, "");
    return stem || "kernel";
  }

  /** Longest export file name, in characters (ASCII only, so also bytes): well under the 255-byte
   *  limit of ext4, NTFS and APFS, below which Chromium writes the file, above which it writes nothing. */
  var MAX_FILE_NAME_CHARS = 120;
  /** Longest kernel stem kept at the start of a file name. */
  var MAX_STEM_CHARS = 48;
  /** Marks a file name that left out some changed knobs for lack of room (the hash still tells them apart). */
  var MORE_KNOBS = "etc";
  /** Characters a file name part may keep; any run of others becomes one "-". */
  var UNSAFE_NAME_CHARS = /[^A-Za-z0-9._-]+/g;

  /** A file name part: safe characters only, no leading dot (a hidden file on Unix). */
  function safePart(text) {
    return String(text).replace(UNSAFE_NAME_CHARS, "-").replace(/^\.+/, "-");
  }

  /** A knob value as the URL hash spells it: on/off for booleans, else the value's text. */
  function knobText(v) {
    return typeof v === "boolean" ? (v ? "on" : "off") : String(v);
  }

  /** Whether v is a knob value (number, string or boolean), not an object, array or nothing. */
  function isKnobValue(v) {
    return typeof v === "number" || typeof v === "string" || typeof v === "boolean";
  }

  /**
   * Eight hex digits of the 32-bit FNV-1a hash of the whole knob set ("name=value;" in name order):
   * the same knobs give the same digits on every run and machine, different ones almost never do.
   */
  function knobHash(knobs) {
    var text = "";
    if (isObject(knobs)) {
      Object.keys(knobs).sort().forEach(function (key) {
        if (isKnobValue(knobs[key])) text += key + "=" + knobText(knobs[key]) + ";";
      });
    }
    var h = 0x811c9dc5;
    for (var i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i) & 0xff;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return ("0000000" + h.toString(16)).slice(-8);
  }

  /**
   * Download file name: <kernel>[_<key>-<value>...]_<hash>[_view-<t0>-<t1>]<ext>. Only knobs that
   * differ from options.defaults are spelled, each by its URL-hash key (options.keys: the page's
   * [[hashKey, knobName], ...], whose order they follow; knobs without a key use their name, after
   * them in name order); <hash> is knobHash of every knob, so two settings never share a name even
   * when the changed knobs do not all fit. options.view [t0, t1]: the SVG/PNG view's steps. Never
   * longer than MAX_FILE_NAME_CHARS, only [A-Za-z0-9._-]: knobs that do not fit are left out and
   * "_etc" says so. Throws an Error when no such name can be made (an unknown format).
   */
  function exportFileName(name, knobs, format, options) {
    options = options || {};
    var ext = EXTENSIONS[format] || (/^[a-z0-9]{1,8}$/.test(String(format)) ? "." + format : null);
    if (!ext) throw new Error("no file name for the export format " + JSON.stringify(String(format)));
    var stem = safePart(name || "kernel").slice(0, MAX_STEM_CHARS) || "kernel";
    var defaults = isObject(options.defaults) ? options.defaults : {};
    var list = isObject(knobs) ? knobs : {};
    var order = [], keyOf = {};
    (Array.isArray(options.keys) ? options.keys : []).forEach(function (pair) {
      if (Array.isArray(pair) && !keyOf.hasOwnProperty(pair[1])) { keyOf[pair[1]] = String(pair[0]); order.push(pair[1]); }
    });
    Object.keys(list).sort().forEach(function (knob) { if (!keyOf.hasOwnProperty(knob)) { keyOf[knob] = knob; order.push(knob); } });
    var parts = [];
    order.forEach(function (knob) {
      var v = list[knob];
      if (!Object.prototype.hasOwnProperty.call(list, knob) || !isKnobValue(v) || v === defaults[knob]) return;
      parts.push(safePart(keyOf[knob] + "-" + knobText(v)));
    });
    var view = Array.isArray(options.view) && options.view.length === 2 && isFiniteNumber(options.view[0]) && isFiniteNumber(options.view[1])
      ? "_view-" + Math.round(options.view[0]) + "-" + Math.round(options.view[1]) : "";
    var tail = "_" + knobHash(list) + safePart(view) + ext;
    var out = stem, room = MAX_FILE_NAME_CHARS - tail.length - ("_" + MORE_KNOBS).length;
    for (var i = 0; i < parts.length; i++) {
      if (out.length + 1 + parts[i].length > room) { out += "_" + MORE_KNOBS; break; }
      out += "_" + parts[i];
    }
    return out + tail;
  }

  /** Label of a block's tile and k-tile: "2.3", or "2" when it has no k. */
  function tileText(block) {
    var t = block.tile === null || block.tile === undefined ? "" : String(block.tile);
    if (block.k === null || block.k === undefined) return t;
    return (t === "" ? "?" : t) + "." + block.k;
  }

  /** A block's Chrome trace name, the same for every block of a kind and wait reason: "wgmma", "wait tma". */
  function frameName(block) {
    var reason = block.reason === null || block.reason === undefined ? "" : " " + block.reason;
    return String(block.kind) + reason;
  }

  /**
   * The threads of a result: each lane in lane order, split into sub-threads where its blocks
   * overlap (greedy interval partitioning: a block goes on the first sub-thread that is free at
   * its start). Returns {threads: [{lane, laneIndex, sub, name, blocks: [index]}], threadOf:
   * Int32Array block index -> thread index, unknownLanes: [lane ids not in result.lanes]}.
   */
  function splitThreads(result) {
    var lanes = Array.isArray(result.lanes) ? result.lanes : [];
    var blocks = Array.isArray(result.blocks) ? result.blocks : [];
    var laneIndex = {};
    var laneList = [];
    lanes.forEach(function (lane) {
      if (!isObject(lane) || typeof lane.id !== "string" || laneIndex.hasOwnProperty(lane.id)) return;
      laneIndex[lane.id] = laneList.length;
      laneList.push(lane);
    });
    var unknown = [];
    var perLane = laneList.map(function () { return []; });
    for (var i = 0; i < blocks.length; i++) {
      var id = blocks[i].lane;
      if (!laneIndex.hasOwnProperty(id)) {
        // A block on a lane the result does not list still gets a thread, after the known ones.
        laneIndex[id] = laneList.length;
        laneList.push({ id: String(id), label: String(id), group: "unknown" });
        perLane.push([]);
        unknown.push(String(id));
      }
      perLane[laneIndex[id]].push(i);
    }
    var threads = [];
    var threadOf = new Int32Array(blocks.length);
    laneList.forEach(function (lane, li) {
      var list = perLane[li];
      list.sort(function (a, b) {
        return blocks[a].start - blocks[b].start || blocks[a].end - blocks[b].end || a - b;
      });
      var ends = [];
      var subs = [];
      list.forEach(function (bi) {
        var b = blocks[bi];
        var s = 0;
        while (s < ends.length && ends[s] > b.start) s++;
        if (s === ends.length) { ends.push(b.end); subs.push([]); } else ends[s] = b.end;
        subs[s].push(bi);
      });
      if (!subs.length) subs.push([]);
      subs.forEach(function (sub, s) {
        var label = lane.label || lane.id;
        threads.push({ lane: lane, laneIndex: li, sub: s, name: s ? label + " (" + (s + 1) + ")" : label,
                       id: s ? lane.id + "_" + (s + 1) : lane.id, blocks: sub });
        sub.forEach(function (bi) { threadOf[bi] = threads.length - 1; });
      });
    });
    return { threads: threads, threadOf: threadOf, unknownLanes: unknown };
  }

  /** Whether the result carries the barrier facts of the contract (barriers + barrierEvents). */
  function hasBarriers(result) {
    return Array.isArray(result.barriers) && Array.isArray(result.barrierEvents);
  }

  /**
   * Each barrier's state over time, replayed from result.barrierEvents (in time order per the
   * contract): [{barrier, times: [t], values: [[phase, arrivals, waiters]]}], starting at
   * [0, [0, 0, 0]]. arrivals count the arrives since the last phase completion, waiters the lanes
   * between wait_begin and wait_end. time(t) maps an event's step (the VCD rounds to its ticks);
   * an event earlier than the previous change is applied at that change's time; changes at one
   * time fold into the last. [] without barriers. Shared by the VCD signals and the Chrome counters.
   */
  function barrierSeries(result, time) {
    if (!hasBarriers(result)) return [];
    var index = {};
    var out = result.barriers.map(function (bar, i) {
      index[bar.id] = i;
      return { barrier: bar, times: [0], values: [[0, 0, 0]] };
    });
    var arrivals = out.map(function () { return 0; });
    var waiters = out.map(function () { return 0; });
    var phase = out.map(function () { return 0; });
    result.barrierEvents.forEach(function (ev) {
      if (!isObject(ev) || !index.hasOwnProperty(ev.barrier) || !isFiniteNumber(ev.t)) return;
      var i = index[ev.barrier], s = out[i];
      if (ev.type === "arrive") arrivals[i]++;
      else if (ev.type === "complete") arrivals[i] = 0;
      else if (ev.type === "wait_begin") waiters[i]++;
      else if (ev.type === "wait_end") waiters[i] = Math.max(0, waiters[i] - 1);
      if (ev.phase === 0 || ev.phase === 1) phase[i] = ev.phase;
      var t = Math.max(time ? time(ev.t) : ev.t, s.times[s.times.length - 1]);
      var value = [phase[i], arrivals[i], waiters[i]];
      if (s.times[s.times.length - 1] === t) s.values[s.values.length - 1] = value;
      else { s.times.push(t); s.values.push(value); }
    });
    return out;
  }

  /** Checks shared by both exporters; returns an error message or null. */
  function checkResult(result) {
    if (!isObject(result)) return "not a simulator result (expected an object)";
    if (result.error) return "the simulation failed: " + result.error;
    if (!Array.isArray(result.blocks)) return "the result has no blocks array";
    for (var i = 0; i < result.blocks.length; i++) {
      var b = result.blocks[i];
      if (!isObject(b) || !isFiniteNumber(b.start) || !isFiniteNumber(b.end) || b.end < b.start || b.start < 0) {
        return "block " + i + " has no valid start/end";
      }
    }
    return null;
  }

  /** Metadata both formats carry: where the file comes from and what it leaves out. */
  function metadata(result, options, split) {
    var notes = [];
    if (!hasBarriers(result)) notes.push(NO_BARRIERS);
    if (split.unknownLanes.length) notes.push("blocks on lanes not listed in result.lanes: " + split.unknownLanes.join(", "));
    var overlapped = split.threads.filter(function (t) { return t.sub > 0; }).map(function (t) { return t.lane.id; });
    if (overlapped.length) notes.push("overlapping blocks split into sub-threads on: " + overlapped.filter(function (x, i, a) { return a.indexOf(x) === i; }).join(", "));
    if (result.deadlock) notes.push("deadlock at step " + result.deadlock.step + ": " + result.deadlock.message);
    return {
      tool: TOOL,
      kernel: options.kernel || "kernel",
      model: result.model || null,
      knobs: result.knobs || {},
      totalSteps: isFiniteNumber(result.total) ? result.total : null,
      blocks: result.blocks.length,
      stepUnit: "1 step = " + US_PER_STEP + " us (Chrome trace) = 1 ns tick (VCD)",
      barriers: hasBarriers(result) ? "exported" : "absent",
      notes: notes
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Chrome trace-event JSON

  /**
   * Call emit(text) with the JSON text of every trace event of a result, in this order: metadata
   * (M), blocks (B and E; X for a zero-length one), barrier counters (C), markers and the
   * deadlock (i), flow starts and ends (s/f). Event texts are
   * built by hand with cached pieces (kind names, source-line lists): JSON.stringify per event
   * costs several times more at a million blocks. Returns the flow count.
   */
  function forEachChromeEvent(result, options, split, sources, emit) {
    var blocks = result.blocks;
    var json = JSON.stringify;
    var pidOf = split.threads.map(function (t) { return 1 + (isFiniteNumber(t.lane.cta) ? t.lane.cta : 0); });
    var pids = pidOf.filter(function (p, i, a) { return a.indexOf(p) === i; }).sort(function (a, b) { return a - b; });
    pids.forEach(function (pid) {
      var name = (options.kernel || "kernel") + " CTA " + (pid - 1);
      emit(json({ ph: "M", pid: pid, tid: 0, name: "process_name", args: { name: name } }));
      emit(json({ ph: "M", pid: pid, tid: 0, name: "process_sort_index", args: { sort_index: pid - 1 } }));
    });
    split.threads.forEach(function (t, ti) {
      emit(json({ ph: "M", pid: pidOf[ti], tid: FIRST_TID + ti, name: "thread_name", args: { name: t.name } }));
      emit(json({ ph: "M", pid: pidOf[ti], tid: FIRST_TID + ti, name: "thread_sort_index", args: { sort_index: ti } }));
    });
    var counterTid = hasBarriers(result) && result.barriers.length ? FIRST_TID + split.threads.length : null;
    if (counterTid !== null) {
      emit(json({ ph: "M", pid: pids[0] || 1, tid: counterTid, name: "thread_name", args: { name: COUNTER_THREAD } }));
      emit(json({ ph: "M", pid: pids[0] || 1, tid: counterTid, name: "thread_sort_index", args: { sort_index: split.threads.length } }));
    }
    // "pid":P,"tid":T of each thread, the JSON of each value seen (kinds, reasons), and the JSON
    // array of "file:line" keys of each lines array (blocks of one op share one array).
    var where = split.threads.map(function (t, ti) { return "\"pid\":" + pidOf[ti] + ",\"tid\":" + (FIRST_TID + ti); });
    var valueJson = typeof Map === "function" ? new Map() : null;
    var text = function (v) {
      if (v === null || v === undefined) return "null";
      if (typeof v === "number") return isFinite(v) ? String(v) : "null";
      if (typeof v !== "string" || !valueJson) return json(v);
      var out = valueJson.get(v);
      if (out === undefined) { out = json(v); valueJson.set(v, out); }
      return out;
    };
    // args.lines: each block's source lines, once per "file:line" (a line holding both a try_wait
    // and a wait is listed once), restricted by options.codePath(block) -> lines to the code path
    // the page's details panel shows for the block (the page and the command line pass its
    // codePathLines); without it, every line the block may come from. Blocks of one op share one
    // lines array, so the JSON of a lines array is cached by the array and by its keys.
    var linesCache = typeof Map === "function" ? new Map() : null;
    var keysCache = typeof Map === "function" ? new Map() : null;
    var linesJson = function (refs) {
      if (!Array.isArray(refs)) return "[]";
      var cached = linesCache && linesCache.get(refs);
      if (cached) return cached;
      var keys = [], seen = {};
      for (var r = 0; r < refs.length; r++) {
        if (!isObject(refs[r])) continue;
        var key = lineKey(refs[r]);
        if (!sources.hasOwnProperty(key)) {
          sources[key] = { path: String(refs[r].path || ""), op: refs[r].op || null, text: refs[r].text || "" };
        }
        if (seen.hasOwnProperty(key)) continue;
        seen[key] = true;
        keys.push(key);
      }
      var joined = keys.join("\n");
      var out = keysCache && keysCache.get(joined);
      if (!out) { out = json(keys); if (keysCache) keysCache.set(joined, out); }
      if (linesCache) linesCache.set(refs, out);
      return out;
    };
    var codePath = typeof options.codePath === "function" ? options.codePath : null;
    // Slices: a B event (name and category only) at the block's start and an E event with the
    // block's args at its end. speedscope names a frame by the name plus the JSON of its B
    // event's args, so with the args on the E event its frames are the names "kind reason" and
    // aggregate ("wait tma" over every such bubble); Perfetto and chrome://tracing merge the E
    // event's args into the slice (the trace-event format's rule). A zero-length block is one
    // X event with its args (a B and an E at one time would be read in either order).
    for (var ti = 0; ti < split.threads.length; ti++) {
      var thread = split.threads[ti];
      for (var j = 0; j < thread.blocks.length; j++) {
        var bi = thread.blocks[j];
        var b = blocks[bi];
        var name = frameName(b);
        var head = where[ti] + ",\"name\":" + text(name) + ",\"cat\":" + text(String(b.kind));
        var args = ",\"args\":{\"block\":" + bi + ",\"kind\":" + text(b.kind) + ",\"tile\":" + text(b.tile) +
          ",\"k\":" + text(b.k) + ",\"stage\":" + text(b.stage) + ",\"reason\":" + text(b.reason) +
          ",\"lines\":" + linesJson(codePath ? codePath(b) : b.lines) + ",\"step\":" + text(b.start) + "}}";
        if (b.end > b.start) {
          emit("{\"ph\":\"B\"," + head + ",\"ts\":" + b.start * US_PER_STEP + "}");
          emit("{\"ph\":\"E\"," + head + ",\"ts\":" + b.end * US_PER_STEP + args);
        } else {
          emit("{\"ph\":\"X\"," + head + ",\"ts\":" + b.start * US_PER_STEP + ",\"dur\":0" + args);
        }
      }
    }
    // Counters: per barrier one "C" event per change of its state (barrierSeries), with the
    // series phase, arrivals and waiters (Perfetto draws one track per series, named
    // "<barrier> phase" and so on), on the thread "barriers" of the first CTA's process.
    if (counterTid !== null) {
      barrierSeries(result, null).forEach(function (sr, i) {
        var cname = text(String(sr.barrier.name || sr.barrier.id || "barrier " + i));
        for (var c = 0; c < sr.times.length; c++) {
          var v = sr.values[c];
          emit("{\"ph\":\"C\",\"pid\":" + (pids[0] || 1) + ",\"tid\":" + counterTid + ",\"ts\":" + sr.times[c] * US_PER_STEP +
            ",\"name\":" + cname + ",\"cat\":\"barrier\",\"args\":{\"phase\":" + v[0] + ",\"arrivals\":" + v[1] + ",\"waiters\":" + v[2] + "}}");
        }
      });
    }
    (options.markers || []).forEach(function (m) {
      if (!isObject(m) || !isFiniteNumber(m.step)) return;
      emit(json({ ph: "i", s: "g", pid: pids[0] || 1, tid: FIRST_TID, ts: m.step * US_PER_STEP, name: "marker " + (m.name || ""),
                  cat: "marker", args: { step: m.step } }));
    });
    if (isObject(result.deadlock) && isFiniteNumber(result.deadlock.step)) {
      emit(json({ ph: "i", s: "g", pid: pids[0] || 1, tid: FIRST_TID, ts: result.deadlock.step * US_PER_STEP, name: "deadlock",
                  cat: "deadlock", args: { step: result.deadlock.step, message: String(result.deadlock.message || ""),
                                           waiting: result.deadlock.waiting || [] } }));
    }
    // Flows: one per dependency (block i waited for block a). Both ends sit strictly inside
    // their slice (the middle, or for the start earlier when needed), so each binds to exactly
    // that slice ("e": enclosing slice) even where slices touch end to start.
    var flows = 0;
    var mid = function (x) { return (x.start + x.end) / 2 * US_PER_STEP; };
    for (var i = 0; i < blocks.length; i++) {
      var after = blocks[i].after;
      if (!Array.isArray(after)) continue;
      for (var d = 0; d < after.length; d++) {
        var a = after[d];
        if (typeof a !== "number" || a < 0 || a >= blocks.length || a !== Math.floor(a) || a === i) continue;
        var id = flows++;
        var tail = ",\"name\":" + text(blocks[a].kind + " -> " + blocks[i].kind) + ",\"cat\":\"dependency\",\"bp\":\"e\"}";
        var fTs = mid(blocks[i]), sTs = mid(blocks[a]);
        // A block waited for may outlast its waiter (a stage's FULL block lasts until the
        // release): start the flow early enough in it that the arrow never runs back in time.
        if (sTs > fTs && blocks[a].start * US_PER_STEP < fTs) sTs = (blocks[a].start * US_PER_STEP + fTs) / 2;
        emit("{\"ph\":\"s\",\"id\":" + id + "," + where[split.threadOf[a]] + ",\"ts\":" + sTs + tail);
        emit("{\"ph\":\"f\",\"id\":" + id + "," + where[split.threadOf[i]] + ",\"ts\":" + fTs + tail);
      }
    }
    return flows;
  }

  /**
   * The Chrome trace as an array of text chunks whose concatenation is the JSON file (one chunk
   * per event, so a page can hand them to a Blob and Node can stream them without one huge string).
   * With sink (a function), each chunk is passed to it as soon as it is made and null is returned
   * (the command line streams a million-block trace without holding it). Throws an Error with a
   * one-line message when the result cannot be exported.
   */
  function chromeTraceChunks(result, options, sink) {
    options = options || {};
    var err = checkResult(result);
    if (err) throw new Error(err);
    var split = splitThreads(result);
    var sources = {};
    var chunks = [];
    var emit = typeof sink === "function" ? sink : function (c) { chunks.push(c); };
    emit("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    // Events are joined in batches: a few thousand flat strings instead of millions of small
    // ones keep the garbage collector out of the way at a million blocks.
    var batch = [];
    var first = true;
    var flush = function () {
      emit((first ? "" : ",\n") + batch.join(",\n"));
      first = false;
      batch = [];
    };
    var flows = forEachChromeEvent(result, options, split, sources, function (ev) {
      batch.push(ev);
      if (batch.length >= CHUNK_EVENTS) flush();
    });
    if (batch.length) flush();
    var meta = metadata(result, options, split);
    meta.threads = split.threads.map(function (t, i) { return { tid: FIRST_TID + i, lane: t.lane.id, name: t.name, sub: t.sub }; });
    meta.flows = flows;
    meta.lines = typeof options.codePath === "function" ? "the code path the page's details panel shows (codePathLines), once per file:line"
      : "every line the block may come from, once per file:line";
    meta.sources = sources;
    meta.barrierList = hasBarriers(result) ? result.barriers : null;
    emit("\n],\"otherData\":" + JSON.stringify(meta) + "}\n");
    return typeof sink === "function" ? null : chunks;
  }

  /** The Chrome trace as one JSON text. */
  function chromeTraceText(result, options) { return chromeTraceChunks(result, options).join(""); }

  /** The Chrome trace as an object {traceEvents, displayTimeUnit, otherData}. */
  function chromeTrace(result, options) { return JSON.parse(chromeTraceText(result, options)); }

  // ---------------------------------------------------------------------------------------------
  // VCD (IEEE 1364 value change dump; the `string` variable type is GTKWave's extension, also read
  // by Surfer and wellen; options.strings === false writes an integer kind code instead)

  /** The n-th VCD identifier code (base 94 over '!'..'~'). */
  function vcdId(n) {
    var s = "";
    do {
      s += String.fromCharCode(VCD_ID_FIRST + (n % VCD_ID_BASE));
      n = Math.floor(n / VCD_ID_BASE);
    } while (n > 0);
    return s;
  }

  /** A name usable as a VCD scope or variable reference (no whitespace, no '$'). */
  function vcdName(text) {
    var s = String(text).replace(/[^A-Za-z0-9_.\[\]-]+/g, "_");
    return s || "_";
  }

  /** Binary text of a non-negative integer, or "x" for none (VCD vector value). */
  function vcdBits(v) {
    return typeof v === "number" && v >= 0 && v === Math.floor(v) ? v.toString(2) : "x";
  }

  /** A state string value: the block's kind and tile.k, without whitespace. */
  function stateText(block) {
    var tt = tileText(block);
    return vcdName(block.kind + (tt ? "_" + tt : ""));
  }

  /**
   * The VCD of a result as text chunks (concatenated: the file; with sink, passed to it as made,
   * and null returned). Signals: kernel.step (integer); per role (lane group) a scope with
   * a scope per lane (per sub-lane where blocks overlap): state (string kind_tile.k, "idle"
   * between blocks; or kind, an integer code, with options.strings === false), tile, k, stage
   * (integers, x when idle); with barrierEvents, a scope `barriers` with per barrier its phase
   * bit, arrivals since the last phase flip, and waiters.
   */
  function vcdChunks(result, options, sink) {
    options = options || {};
    var err = checkResult(result);
    if (err) throw new Error(err);
    var strings = options.strings !== false;
    var split = splitThreads(result);
    var meta = metadata(result, options, split);
    var blocks = result.blocks;
    var total = isFiniteNumber(result.total) ? result.total : 0;
    blocks.forEach(function (b) { if (b.end > total) total = b.end; });
    total = Math.ceil(total);

    var nextId = 0;
    var out = [];
    var noDollar = function (text) { return String(text).replace(/\$/g, ""); };  // "$end" would close the comment
    out.push("$comment");
    out.push("  " + noDollar(TOOL + ": kernel " + meta.kernel + ", model " + meta.model + ", knobs " + JSON.stringify(meta.knobs)));
    out.push("  one tick = one simulator step" + noDollar(meta.notes.length ? "; " + meta.notes.join("; ") : ""));
    var kindCodes = {};
    if (!strings) {
      var kinds = [];
      blocks.forEach(function (b) { if (kinds.indexOf(String(b.kind)) < 0) kinds.push(String(b.kind)); });
      kinds.sort();
      kinds.forEach(function (k, i) { kindCodes[k] = i + 1; });
      out.push("  kind codes: 0 idle, " + noDollar(kinds.map(function (k) { return kindCodes[k] + " " + k; }).join(", ")));
    }
    out.push("$end");
    out.push("$version " + TOOL + " $end");
    out.push("$timescale " + VCD_TIMESCALE + " $end");
    out.push("$scope module " + vcdName(meta.kernel) + " $end");
    var stepId = vcdId(nextId++);
    out.push("$var integer " + VCD_INT_BITS + " " + stepId + " step $end");

    // Scopes: one per role in first-lane order, one per (sub-)lane inside.
    var roles = [];
    var byRole = {};
    split.threads.forEach(function (t) {
      var role = vcdName(t.lane.group || t.lane.id);
      if (!byRole.hasOwnProperty(role)) { byRole[role] = []; roles.push(role); }
      byRole[role].push(t);
    });
    var sig = split.threads.map(function () { return null; });
    roles.forEach(function (role) {
      out.push("$scope module " + role + " $end");
      byRole[role].forEach(function (t) {
        var ti = split.threads.indexOf(t);
        var ids = { state: vcdId(nextId++), tile: vcdId(nextId++), k: vcdId(nextId++), stage: vcdId(nextId++) };
        sig[ti] = ids;
        out.push("$scope module " + vcdName(t.id) + " $end");
        if (strings) out.push("$var string 1 " + ids.state + " state $end");
        else out.push("$var integer " + VCD_INT_BITS + " " + ids.state + " kind $end");
        out.push("$var integer " + VCD_INT_BITS + " " + ids.tile + " tile $end");
        out.push("$var integer " + VCD_INT_BITS + " " + ids.k + " k $end");
        out.push("$var integer " + VCD_INT_BITS + " " + ids.stage + " stage $end");
        out.push("$upscope $end");
      });
      out.push("$upscope $end");
    });
    var barrierSig = [];
    if (hasBarriers(result)) {
      out.push("$scope module barriers $end");
      result.barriers.forEach(function (bar, i) {
        var name = vcdName(bar.name || bar.id || "barrier" + i);
        var ids = { phase: vcdId(nextId++), arrivals: vcdId(nextId++), waiters: vcdId(nextId++) };
        barrierSig.push(ids);
        out.push("$scope module " + name + " $end");
        out.push("$var wire 1 " + ids.phase + " phase $end");
        out.push("$var integer " + VCD_INT_BITS + " " + ids.arrivals + " arrivals $end");
        out.push("$var integer " + VCD_INT_BITS + " " + ids.waiters + " waiters $end");
        out.push("$upscope $end");
      });
      out.push("$upscope $end");
    }
    out.push("$upscope $end");
    out.push("$enddefinitions $end");

    // Value changes. Per signal group (a lane's four signals, a barrier's three) a list of change
    // times with what holds from then on (a block index, -1 for idle; barrier states), merged
    // tick by tick below, so the text is made once, in order, and never held per tick.
    var stateText4 = function (ids, b) {
      if (!b) return (strings ? "s" + IDLE : "b0") + " " + ids.state + "\nbx " + ids.tile + "\nbx " + ids.k + "\nbx " + ids.stage;
      return (strings ? "s" + stateText(b) : "b" + vcdBits(kindCodes[String(b.kind)])) + " " + ids.state +
        "\nb" + vcdBits(b.tile) + " " + ids.tile + "\nb" + vcdBits(b.k) + " " + ids.k + "\nb" + vcdBits(b.stage) + " " + ids.stage;
    };
    // Per thread: a block from its start; idle from its end unless the next block starts there.
    // Zero-length blocks cannot be seen in a VCD (one value per signal per time); they are
    // skipped and counted in the header comment.
    var skipped = 0;
    var laneTimes = [], laneValues = [];
    split.threads.forEach(function (t) {
      var times = [0], values = [-1];
      var list = t.blocks.filter(function (bi) {
        if (Math.round(blocks[bi].end) > Math.round(blocks[bi].start)) return true;
        skipped++;
        return false;
      });
      for (var j = 0; j < list.length; j++) {
        var b = blocks[list[j]];
        var s = Math.round(b.start), e = Math.round(b.end);
        if (times[times.length - 1] === s) values[values.length - 1] = list[j];
        else { times.push(s); values.push(list[j]); }
        var next = j + 1 < list.length ? blocks[list[j + 1]] : null;
        if (!next || Math.round(next.start) > e) { times.push(e); values.push(-1); }
      }
      laneTimes.push(times);
      laneValues.push(values);
    });
    // Barriers: phase, arrivals and waiters after each event, at the event's tick (barrierSeries).
    var barTimes = [], barValues = [];
    barrierSeries(result, Math.round).forEach(function (sr) { barTimes.push(sr.times); barValues.push(sr.values); });
    var barText = function (ids, v) {
      return v[0] + ids.phase + "\nb" + vcdBits(v[1]) + " " + ids.arrivals + "\nb" + vcdBits(v[2]) + " " + ids.waiters;
    };
    barTimes.forEach(function (bt) { total = Math.max(total, bt[bt.length - 1]); });
    if (skipped) out[2] += "; " + skipped + " zero-length blocks are not visible in a VCD (one value per tick)";

    // Initial values ($dumpvars at #0): every signal, with the blocks that start at 0.
    out.push("#0");
    out.push("$dumpvars");
    out.push("b0 " + stepId);
    split.threads.forEach(function (t, ti) {
      var v = laneValues[ti][0];
      out.push(stateText4(sig[ti], v >= 0 ? blocks[v] : null));
    });
    barrierSig.forEach(function (ids, i) { out.push(barText(ids, barValues[i][0])); });
    out.push("$end");
    // Every tick carries the step counter, then the groups that change there.
    var chunks = [];
    var emit = typeof sink === "function" ? sink : function (c) { chunks.push(c); };
    emit(out.join("\n") + "\n");
    var batch = [];
    var lanePos = laneTimes.map(function () { return 1; });
    var barPos = barTimes.map(function () { return 1; });
    for (var t = 1; t <= total; t++) {
      batch.push("#" + t + "\nb" + t.toString(2) + " " + stepId + "\n");
      for (var ti = 0; ti < laneTimes.length; ti++) {
        var lt = laneTimes[ti], p = lanePos[ti];
        if (p < lt.length && lt[p] === t) {
          var v = laneValues[ti][p];
          batch.push(stateText4(sig[ti], v >= 0 ? blocks[v] : null) + "\n");
          lanePos[ti] = p + 1;
        }
      }
      for (var bi = 0; bi < barTimes.length; bi++) {
        var bt = barTimes[bi], q = barPos[bi];
        if (q < bt.length && bt[q] === t) {
          batch.push(barText(barrierSig[bi], barValues[bi][q]) + "\n");
          barPos[bi] = q + 1;
        }
      }
      if (batch.length >= CHUNK_EVENTS) { emit(batch.join("")); batch = []; }
    }
    emit(batch.join(""));
    return typeof sink === "function" ? null : chunks;
  }

  /** The VCD as one text (see vcdChunks). */
  function vcd(result, options) {
    return vcdChunks(result, options).join("");
  }

  // ---------------------------------------------------------------------------------------------
  // Command line

  /**
   * The first knob of knobs that the simulator's validator (KernelSchedule.normalizeKnobs) would
   * not take as given, as "refused --knob name=value (simulator: <its message>)", or null. A knob is
   * refused when it is unknown to the model or when putting the validated value in its place
   * silences a message: the validator replaced it (not a number, out of range, not one of the
   * words). Messages that stay (K_PIPE_MMAS >= stages: a deadlock asked for) are not refusals.
   */
  function knobProblem(knobs, structure, normalizeKnobs) {
    var norm = normalizeKnobs(knobs, structure);
    if (norm.error) return norm.error;
    var names = Object.keys(knobs).sort();
    for (var i = 0; i < names.length; i++) {
      var name = names[i], given = "refused --knob " + name + "=" + knobText(knobs[name]);
      if (!Object.prototype.hasOwnProperty.call(norm.knobs, name)) {
        var unknown = norm.messages.filter(function (m) { return m.indexOf(JSON.stringify(name)) >= 0; })[0];
        return given + " (simulator: " + (unknown || "unknown knob") + "; knobs of the " + norm.knobs.model + " model: " +
          Object.keys(norm.knobs).filter(function (k) { return k !== "model"; }).join(", ") + ")";
      }
      if (norm.knobs[name] === knobs[name]) continue;
      var fixed = {};
      Object.keys(knobs).forEach(function (k) { fixed[k] = knobs[k]; });
      fixed[name] = norm.knobs[name];
      var after = normalizeKnobs(fixed, structure).messages;
      var gone = norm.messages.filter(function (m) { return after.indexOf(m) < 0; });
      if (gone.length) return given + " (simulator: " + gone[0] + ")";
    }
    return null;
  }

  var USAGE = "usage: node trace_export.js --format chrome|vcd --structure parsed.json [--knob name=value ...] " +
    "[--marker name=step ...] [--vcd-integers] > out";

  /** A knob value from the command line: number, true/false, or the text itself. */
  function parseKnobValue(text) {
    if (text === "true") return true;
    if (text === "false") return false;
    if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
    return text;
  }

  /** Parse argv (without node and the script): {format, structure, knobs, markers, strings} or {error}. */
  function parseArgs(argv) {
    var opts = { format: null, structure: null, knobs: {}, markers: [], strings: true, help: false };
    for (var i = 0; i < argv.length; i++) {
      var arg = argv[i];
      var eq = arg.indexOf("=");
      var name = arg.slice(0, 2) === "--" && eq > 0 ? arg.slice(0, eq) : arg;
      var inline = arg.slice(0, 2) === "--" && eq > 0 ? arg.slice(eq + 1) : null;
      var value = function () {
        if (inline !== null) return inline;
        if (i + 1 >= argv.length) throw new Error(name + " needs a value");
        return argv[++i];
      };
      try {
        if (name === "-h" || name === "--help") opts.help = true;
        else if (name === "--format") opts.format = value();
        else if (name === "--structure") opts.structure = value();
        else if (name === "--vcd-integers") opts.strings = false;
        else if (name === "--knob" || name === "--marker") {
          var kv = value();
          var at = kv.indexOf("=");
          if (at <= 0) return { error: name + " expects name=value, got " + JSON.stringify(kv) };
          if (name === "--knob") opts.knobs[kv.slice(0, at)] = parseKnobValue(kv.slice(at + 1));
          else {
            var step = Number(kv.slice(at + 1));
            if (!isFinite(step) || step < 0) return { error: "--marker expects name=step with a step >= 0, got " + JSON.stringify(kv) };
            opts.markers.push({ name: kv.slice(0, at), step: step });
          }
        } else return { error: "unknown argument " + JSON.stringify(arg) };
      } catch (e) {
        return { error: e.message };
      }
    }
    if (opts.help) return opts;
    if (FORMATS.indexOf(opts.format) < 0) return { error: "--format must be one of " + FORMATS.join(", ") + (opts.format ? ", got " + JSON.stringify(opts.format) : "") };
    if (!opts.structure) return { error: "--structure parsed.json is required" };
    return opts;
  }

  /**
   * Run the command line: argv without "node" and the script name; io = {readFile(path) -> text,
   * write(text), error(line), simulate(structure, knobs), normalizeKnobs(knobs, structure),
   * codePathLines(block, kPipeMmas) (optional)}, defaulting to Node's fs/stdout/stderr
   * and ./schedule.js. Returns the exit code: 0, or 2 with one line on stderr for any bad input.
   */
  function main(argv, io) {
    if (!io) {
      var nio = nodeIo();
      try { return run(argv, nio); } finally { nio.flush(); }
    }
    return run(argv, io);
  }

  /** main's body with its io. */
  function run(argv, io) {
    var opts = parseArgs(argv || []);
    if (opts.error) { io.error("trace_export: " + opts.error + "\n" + USAGE); return 2; }
    if (opts.help) { io.write(USAGE + "\n"); return 0; }
    var structure;
    try {
      structure = JSON.parse(io.readFile(opts.structure));
    } catch (e) {
      io.error("trace_export: cannot read " + opts.structure + ": " + String(e.message).split("\n")[0]);
      return 2;
    }
    if (!isObject(structure)) { io.error("trace_export: " + opts.structure + " is not a parsed structure (a JSON object)"); return 2; }
    // A knob the simulator would replace (with a message the page shows) is refused here, as
    // viz.py's argparse refuses a bad knob value: one line, exit 2, no output.
    var problem = knobProblem(opts.knobs, structure, io.normalizeKnobs);
    if (problem) { io.error("trace_export: " + problem); return 2; }
    var result = io.simulate(structure, opts.knobs);
    if (!isObject(result) || result.error) {
      io.error("trace_export: " + (isObject(result) ? result.error : "the simulator returned nothing"));
      return 2;
    }
    var options = { kernel: kernelName(structure), markers: opts.markers, strings: opts.strings };
    // args.lines follow the code path the page's details panel shows (its codePathLines).
    if (io.codePathLines) {
      var kPipe = isObject(result.knobs) ? result.knobs.kPipeMmas : undefined;
      options.codePath = function (b) { return io.codePathLines(b, kPipe).lines; };
    }
    try {
      if (opts.format === "chrome") chromeTraceChunks(result, options, io.write);
      else vcdChunks(result, options, io.write);
    } catch (e) {
      io.error("trace_export: " + e.message);
      return 2;
    }
    return 0;
  }

  /** Node's file system and streams, and ./schedule.js next to this file. */
  function nodeIo() {
    var fs = require("fs");
    var path = require("path");
    var pending = [];
    // writeSync may write less than asked (a pipe); loop until all of it is out.
    var writeAll = function (text) {
      var buf = Buffer.from(text, "utf8");
      for (var off = 0; off < buf.length;) {
        try {
          off += fs.writeSync(1, buf, off, buf.length - off);
        } catch (e) {
          if (e.code !== "EAGAIN") throw e;
        }
      }
    };
    return {
      readFile: function (p) { return fs.readFileSync(p, "utf8"); },
      write: function (text) {
        // Batch small chunks into large synchronous writes (fast, and complete before exit).
        pending.push(text);
        if (pending.length >= 16) { writeAll(pending.join("")); pending = []; }
      },
      flush: function () { if (pending.length) { writeAll(pending.join("")); pending = []; } },
      error: function (line) { process.stderr.write(line + "\n"); },
      simulate: function (structure, knobs) {
        return require(path.join(__dirname, "schedule.js")).simulate(structure, knobs);
      },
      normalizeKnobs: function (knobs, structure) {
        return require(path.join(__dirname, "schedule.js")).normalizeKnobs(knobs, structure);
      },
      // The page's choice of a block's code path (assets/waveform.js loads under Node: its page
      // code runs only in a browser).
      codePathLines: function (block, kPipeMmas) {
        return require(path.join(__dirname, "assets", "waveform.js")).codePathLines(block, kPipeMmas);
      }
    };
  }

  /** Entry point of `node trace_export.js ...`: run main, flush, and exit with its code. */
  function cli(argv) {
    var code;
    try {
      code = main(argv);
    } catch (e) {
      if (e && e.code === "EPIPE") code = 0;
      else throw e;
    }
    return code;
  }

  return {
    chromeTrace: chromeTrace,
    chromeTraceText: chromeTraceText,
    chromeTraceChunks: chromeTraceChunks,
    vcd: vcd,
    vcdChunks: vcdChunks,
    splitThreads: splitThreads,
    exportFileName: exportFileName,
    knobHash: knobHash,
    MAX_FILE_NAME_CHARS: MAX_FILE_NAME_CHARS,
    kernelName: kernelName,
    parseArgs: parseArgs,
    knobProblem: knobProblem,
    frameName: frameName,
    barrierSeries: barrierSeries,
    main: main,
    cli: cli,
    FORMATS: FORMATS.slice(),
    EXTENSIONS: EXTENSIONS,
    US_PER_STEP: US_PER_STEP,
    USAGE: USAGE,
    NO_BARRIERS: NO_BARRIERS
  };
})();

if (typeof module !== "undefined" && module.exports) {
  module.exports = KernelExport;
  if (typeof require !== "undefined" && require.main === module) process.exitCode = KernelExport.cli(process.argv.slice(2));
}
