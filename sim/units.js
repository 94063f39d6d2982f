/*
 * sim/units.js: what simulate() needs in cycles (docs/performance.md "The schedule in cycles"):
 * sim/perf.js and the GPU presets, the unit knobs' parsing, per model the unit parameters (UNITS:
 * the tile, the latencies from perf.js, a problem's tiles, FLOPs, the bottleneck candidates), and
 * the critical path of a run. schedule.js's simulateUnits puts them together.
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after the
 * model files as a classic script, which makes KernelUnits a global; Node gets the same object
 * through module.exports.
 */
var KernelUnits = (function () {
  "use strict";

  /** sim/common.js: the page's global, or require()d next to this file. */
  var C = (function () {
    if (typeof KernelSimCommon !== "undefined") return KernelSimCommon;
    if (typeof require === "function" && typeof module !== "undefined") return require("./common.js");
    throw new Error("sim/units.js: common.js is not loaded (the page runs it before this file)");
  })();
  var toNumber = C.toNumber, showValue = C.showValue, normalizeFlag = C.normalizeFlag, isObject = C.isObject;

  /** sim/perf.js (the formulas' one home): the page's global, or require()d next to this file. */
  function perfModule() {
    if (typeof KernelPerf !== "undefined") return KernelPerf;
    if (typeof require === "function" && typeof module !== "undefined") return require("./perf.js");
    return null;
  }

  /** The GPU presets: the page's global KernelGpuTable (its embedded sim/gpus.json), else sim/gpus.json in Node. */
  function gpuTable() {
    if (typeof KernelGpuTable !== "undefined") return KernelGpuTable;
    if (typeof require === "function" && typeof module !== "undefined") return require("./gpus.json");
    return null;
  }

  /** One error type for bad unit knobs: its message becomes the result's error (one line). */
  function unitsFail(message) { var e = new Error(message); e.unitsError = true; throw e; }

  /** A positive integer unit knob (numbers or numeric strings), or fallback when absent. */
  function unitInt(raw, name, fallback) {
    var v = raw[name];
    if (v === undefined || v === null || v === "") return fallback;
    var n = toNumber(v);
    if (!(n >= 1) || Math.round(n) !== n) unitsFail(name + " expects a positive integer, got " + showValue(v));
    return n;
  }

  /** "AxB[xC]" of positive integers as an array of `dims` numbers. */
  function unitDims(text, name, dims) {
    var parts = String(text).trim().toLowerCase().split("x");
    var ok = parts.length === dims && parts.every(function (p) { return /^[1-9][0-9]*$/.test(p); });
    if (!ok) unitsFail(name + " expects " + ["M", "N", "K"].slice(0, dims).join("x") + " of positive integers, got " + showValue(text));
    return parts.map(Number);
  }

  /** The resolved GPU of knobs.gpu: a preset name, a gpus.json preset object, or a resolved GPU. */
  function unitGpu(P, gpu, clockMHz) {
    var opts = { clockMHz: clockMHz };
    if (typeof gpu === "string") {
      var table = gpuTable();
      if (table === null) unitsFail("gpu " + showValue(gpu) + ": no GPU table here; pass the preset object");
      return P.gpuFrom(table, gpu.trim().toLowerCase(), opts);
    }
    if (isObject(gpu) && typeof gpu.sms === "number") return gpu;
    if (isObject(gpu)) return P.resolveGpu(gpu, opts);
    return unitsFail("gpu expects a preset name or a GPU object, got " + showValue(gpu));
  }

  /**
   * Per model: the unit parameters (tile, latencies from perf.js, problem -> tiles, FLOPs) and the
   * candidates of classifyBottleneck from its verdict. p = the parameters so far, k = the model's
   * knobs as validated without the units (FA3's dtype and headDim, WGs, schedule, subtiles).
   */
  var UNITS = {
    gemm: {
      tileDims: 3, defaultTile: "128x128x64",
      latencies: function (P, gpu, p) { return P.gemmLatencies({ tile: p.tile, dtype: p.dtype, reuse: p.reuse, memLatency: p.memLatency }, gpu); },
      problem: gemmProblem,
      loads: function (k) { return k.outputTiles * k.kTiles; },
      tileFlops: function (p, k) { return 2 * p.tile.m * p.tile.n * p.tile.k * k.kTiles; },
      candidates: function (v, k, idle) {
        // Cooperative WGs wait for the same stage together (their mean is the idle time); pingpong
        // WGs take turns in the mainloop (their TMA waits are disjoint: the sum).
        var lanes = Object.keys(v.waits), tma = 0;
        lanes.forEach(function (l) { tma += v.waits[l].tma || 0; });
        if (k.consumerWGs === 2 && k.schedule === "cooperative" && lanes.length) tma /= lanes.length;
        tma = Math.min(tma, idle);
        return [{ name: "tma-latency", cycles: tma, how: "consumer TMA waits" + (v.minStagesToHideTma ? "; hidden from " + v.minStagesToHideTma + " stages" : "") },
          { name: "epilogue", cycles: idle - tma, how: "the rest of the idle time: epilogues and their order waits" }];
      }
    },
    blackwell: {
      tileDims: 3, defaultTile: "128x128x64",
      latencies: function (P, gpu, p, k) { return P.blackwellLatencies({ tile: p.tile, dtype: p.dtype, subtiles: k.epiSubtiles, reuse: p.reuse, memLatency: p.memLatency }, gpu); },
      problem: gemmProblem,
      loads: function (k) { return k.outputTiles * k.kTiles; },
      tileFlops: function (p, k) { return 2 * p.tile.m * p.tile.n * p.tile.k * k.kTiles; },
      candidates: function (v, k, idle) {
        var w = v.waits.mma || {};
        return [{ name: "tma-latency", cycles: Math.min(idle, w.tma || 0), how: "the MMA warp's TMA waits" },
          { name: "epilogue", cycles: Math.min(idle, w.acc || 0), how: "the MMA warp's waits for a free TMEM accumulator stage" }];
      }
    },
    attention: {
      tileDims: 2, defaultTile: "128x128",
      latencies: function (P, gpu, p, k) {
        return P.attentionLatencies({ blockM: p.tile.m, blockN: p.tile.n, headdim: p.headdim, C: k.consumerWGs, dtype: p.dtype,
          reuse: p.reuse, memLatency: p.memLatency }, gpu);
      },
      problem: function (P, gpu, p, raw) {
        if (raw.seqlen === undefined && raw.batch === undefined && raw.heads === undefined) return null;
        var seqlen = unitInt(raw, "seqlen", null);
        if (seqlen === null) unitsFail("an attention problem needs seqlen");
        var batch = unitInt(raw, "batch", 1), heads = unitInt(raw, "heads", 1);
        var causal = normalizeFlag("causal", raw.causal, false, []);
        var tiles = batch * heads * Math.ceil(seqlen / p.tile.m);
        var kv = Math.ceil(seqlen / p.tile.n);
        return { text: batch + " x " + heads + " heads x " + seqlen + (causal ? " causal" : ""), tiles: tiles,
          knobs: { outputTiles: null, kvBlocks: causal ? Math.ceil(kv / 2) : kv },
          reuse: P.attentionKvReuse(seqlen, p.tile.m, gpu.sms),
          flops: 4 * batch * heads * seqlen * seqlen * p.headdim * (causal ? 0.5 : 1) };
      },
      loads: function (k) { return 2 * k.outputTiles * k.kvBlocks; },
      tileFlops: function (p, k) { return 4 * p.tile.m * p.tile.n * p.headdim * k.kvBlocks; },
      candidates: function (v, k, idle) {
        // The WGs work on the same KV block: a K / V / Q wait all of them share is the minimum.
        var lanes = Object.keys(v.waits), tma = lanes.length ? Infinity : 0;
        lanes.forEach(function (l) { var w = v.waits[l]; tma = Math.min(tma, (w.q || 0) + (w.k || 0) + (w.v || 0)); });
        var sm = Math.min(idle, v.exposedSoftmaxSteps || 0);
        tma = Math.min(tma, idle - sm);
        return [{ name: "softmax", cycles: sm, how: "exposed softmax (not overlapped by a GEMM)" },
          { name: "tma-latency", cycles: tma, how: "the consumer WGs' common Q / K / V waits" },
          { name: "epilogue", cycles: idle - sm - tma, how: "the rest of the idle time" }];
      }
    }
  };

  /** A GEMM problem "MxNxK": its tiles, the CTA's k-tiles, the wave's L2 reuse and FLOPs. */
  function gemmProblem(P, gpu, p, raw) {
    if (raw.problem === undefined || raw.problem === null || raw.problem === "") return null;
    var d = unitDims(raw.problem, "problem", 3), pr = { m: d[0], n: d[1], k: d[2] };
    var tiles = Math.ceil(pr.m / p.tile.m) * Math.ceil(pr.n / p.tile.n);
    return { text: d.join("x"), tiles: tiles, knobs: { outputTiles: null, kTiles: Math.ceil(pr.k / p.tile.k) },
      reuse: P.gemmWaveReuse(pr, p.tile, gpu.sms), flops: 2 * pr.m * pr.n * pr.k };
  }

  /**
   * The chain of blocks that sets a run's total (docs/performance.md "The critical path"): from the
   * block ending last (ties: the lowest id), step to the `after` predecessor ending last (ties: the
   * lowest id) until a block has none. Returns null for a run without blocks, else {blocks (ids in
   * time order), cycles (the last end), byKind ({kind: cycles on the path}), gapCycles (time on the
   * path covered by no block of it), shares ({kind: fraction of cycles}, "gap" included when > 0),
   * top (the kind with the largest share; ties: the first in name order)}.
   */
  function criticalPath(columns) {
    if (!columns || !(columns.n > 0)) return null;
    var end = columns.end, start = columns.start, at = columns.afterAt, list = columns.afterList;
    var cur = 0, id, j;
    for (id = 1; id < columns.n; id++) if (end[id] > end[cur]) cur = id;
    var path = [], seen = {}, byKind = {}, gap = 0;
    while (cur >= 0 && !seen[cur]) {
      seen[cur] = true;
      path.push(cur);
      var kind = columns.kinds[columns.kind[cur]];
      byKind[kind] = (byKind[kind] || 0) + (end[cur] - start[cur]);
      var pred = -1;
      for (j = at[cur]; j < at[cur + 1]; j++) {
        var q = list[j];
        if (pred < 0 || end[q] > end[pred] || (end[q] === end[pred] && q < pred)) pred = q;
      }
      gap += Math.max(0, start[cur] - (pred >= 0 ? end[pred] : 0));
      cur = pred;
    }
    path.reverse();
    var total = end[path[path.length - 1]];
    var shares = {}, names = Object.keys(byKind).sort(), top = null;
    names.forEach(function (kd) {
      shares[kd] = total > 0 ? byKind[kd] / total : 0;
      if (top === null || shares[kd] > shares[top]) top = kd;
    });
    if (gap > 0) shares.gap = gap / total;
    return { blocks: path, cycles: total, byKind: byKind, gapCycles: gap, shares: shares, top: top };
  }

  /** One line naming a critical path: "critical path: N blocks, filling 72%, epilogue 20%, ...". */
  function criticalPathText(cp) {
    var parts = Object.keys(cp.shares).sort(function (a, b) { return cp.shares[b] - cp.shares[a] || (a < b ? -1 : 1); });
    return "critical path: " + cp.blocks.length + " blocks, " + parts.map(function (kd) { return kd + " " + Math.round(cp.shares[kd] * 100) + "%"; }).join(", ");
  }

  return {
    perfModule: perfModule,
    unitsFail: unitsFail,
    unitInt: unitInt,
    unitDims: unitDims,
    unitGpu: unitGpu,
    UNITS: UNITS,
    criticalPath: criticalPath,
    criticalPathText: criticalPathText
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelUnits;
