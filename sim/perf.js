/*
 * sim/perf.js: cycles, microseconds and TFLOPs from a kernel's tile shape and a GPU's published
 * figures (issue 21, parts 1, 3 and the formula half of 4/5).
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax (the page will inline it as a
 * classic script, which makes KernelPerf a global; Node gets it through module.exports). Every
 * formula is documented in docs/performance.md with its inputs, source and what it ignores.
 *
 * Two layers:
 *   resolveGpu(entry, {clockMHz}) flattens one sim/gpus.json preset into plain numbers per clock
 *   per SM (the only shape the formulas read, so tests can hand-make one);
 *   mmaCycles / tmaCycles / softmaxCycles / epilogueCycles / problemTime are the per-op formulas;
 *   predictGemm / predictAttention combine them into the steady-state bound (not the schedule
 *   simulation: schedule.js will take these per-op cycles as its latencies later).
 */
var KernelPerf = (function () {
  "use strict";

  /** Bytes per element of each dtype the presets name (fp4: two elements per byte). */
  var DTYPE_BYTES = { bf16: 2, fp16: 2, fp8: 1, tf32: 4, fp4: 0.5, fp32: 4 };

  /** Dtypes with a tensor-core rate in sim/gpus.json (fp4 only on SM100). */
  var TENSOR_DTYPES = ["bf16", "fp16", "fp8", "tf32", "fp4"];

  /**
   * FP32-pipe operations per softmax element, FA3-style: one FFMA for x * scale - rowmax * scale
   * and one FADD into the row sum (the row max is an FMNMX on the ALU pipe and is not counted).
   */
  var SOFTMAX_FMA_PER_ELEMENT = 2;

  /** Accumulator bytes per output element (FP32 accumulation, as every preset's tensor peak). */
  var ACCUMULATOR_BYTES = 4;

  /** One PerfError type: bad input to the formulas or the CLI; its message is one line. */
  function PerfError(message) {
    this.name = "PerfError";
    this.message = message;
  }
  PerfError.prototype = Object.create(Error.prototype);
  PerfError.prototype.constructor = PerfError;

  function fail(message) { throw new PerfError(message); }

  /** The value of a sim/gpus.json figure ({value, ...}), or null. */
  function figure(f) { return f && typeof f.value === "number" ? f.value : null; }

  function positive(x, what) {
    if (typeof x !== "number" || !isFinite(x) || x <= 0) fail(what + " must be a positive number, got " + JSON.stringify(x));
    return x;
  }

  function dtypeBytes(dtype) {
    if (!Object.prototype.hasOwnProperty.call(DTYPE_BYTES, dtype)) fail("unknown dtype " + JSON.stringify(dtype) + " (one of " + Object.keys(DTYPE_BYTES).join(", ") + ")");
    return DTYPE_BYTES[dtype];
  }

  /**
   * Flatten a gpus.json preset into numbers per clock per SM at clockMHz (default: the preset's
   * tensor clock). Tensor rates come from the preset; where a rate is null but the datasheet TFLOPS
   * is known, rate = TFLOPS / (SMs x clock) (marked in derivedRates). Bandwidths become bytes per
   * clock per SM: GB/s / SMs / clock. Null figures stay null.
   */
  function resolveGpu(entry, opts) {
    if (!entry || typeof entry !== "object") fail("no GPU preset given");
    var sms = figure(entry.sms);
    if (sms === null) fail((entry.name || "GPU") + " has no SM count");
    var clockMHz = opts && opts.clockMHz !== undefined && opts.clockMHz !== null ? positive(opts.clockMHz, "clockMHz") : figure(entry.clockMHz);
    if (clockMHz === null) fail((entry.name || "GPU") + " has no published tensor clock: pass a clock (--clock-mhz N)");
    var rates = {};
    var derived = [];
    var table = entry.tensorFlopPerClockPerSm || {};
    TENSOR_DTYPES.forEach(function (dt) {
      var f = table[dt];
      if (!f) { rates[dt] = null; return; }
      if (figure(f) !== null) rates[dt] = f.value;
      else if (typeof f.datasheetTflops === "number") {
        rates[dt] = f.datasheetTflops * 1e12 / (sms * clockMHz * 1e6);
        derived.push(dt);
      } else rates[dt] = null;
    });
    var perSmPerClock = function (gbs) { return gbs === null ? null : gbs * 1e9 / sms / (clockMHz * 1e6); };
    var lat = entry.latencyCycles || {};
    return {
      name: entry.name || "",
      arch: entry.arch || "",
      sms: sms,
      clockMHz: clockMHz,
      tensorFlopPerClockPerSm: rates,
      derivedRates: derived,
      fp32FmaPerClockPerSm: figure(entry.fp32FmaPerClockPerSm),
      mufuEx2PerClockPerSm: figure(entry.mufuEx2PerClockPerSm),
      smemBytesPerClockPerSm: figure(entry.smemBytesPerClockPerSm),
      hbmBytesPerClockPerSm: perSmPerClock(figure(entry.hbmBandwidthGBs)),
      l2BytesPerClockPerSm: perSmPerClock(figure(entry.l2BandwidthGBs)),
      l2SizeBytes: figure(entry.l2SizeMB) === null ? null : entry.l2SizeMB.value * 1e6,
      smemPerCtaBytes: figure(entry.smemPerCtaKB) === null ? null : entry.smemPerCtaKB.value * 1024,
      tmemPerSmBytes: figure(entry.tmemPerSmKB) === null ? null : entry.tmemPerSmKB.value * 1024,
      latencyCycles: { unloaded: figure(lat.unloaded), loaded: figure(lat.loaded) },
      ummaIssueIntervalCycles: figure(entry.ummaIssueIntervalCycles)
    };
  }

  /** The preset `name` of a parsed gpus.json, resolved (see resolveGpu). */
  function gpuFrom(table, name, opts) {
    var gpus = table && table.gpus;
    if (!gpus || !Object.prototype.hasOwnProperty.call(gpus, name)) fail("unknown GPU " + JSON.stringify(name) + (gpus ? " (one of " + Object.keys(gpus).join(", ") + ")" : ""));
    return resolveGpu(gpus[name], opts);
  }

  /** Dense tensor FLOP per clock per SM for dtype, or a PerfError when the preset has none. */
  function tensorRate(gpu, dtype) {
    dtypeBytes(dtype);
    var r = gpu.tensorFlopPerClockPerSm && gpu.tensorFlopPerClockPerSm[dtype];
    if (typeof r !== "number" || !(r > 0)) fail((gpu.name || "this GPU") + " has no " + dtype + " tensor rate");
    return r;
  }

  /**
   * Cycles of one m x n x k MMA (WGMMA on SM90, UMMA on SM100): 2mnk FLOPs over the SM's dense
   * tensor rate. With `sharers` warpgroups issuing at once the tensor core is shared, so each MMA
   * takes sharers times as long (the SM's throughput is unchanged). Ignores issue overhead, operand
   * fetch from shared memory, and the pipeline fill of the first MMA.
   */
  function mmaCycles(shape, gpu, opts) {
    var m = positive(shape.m, "m"), n = positive(shape.n, "n"), k = positive(shape.k, "k");
    var sharers = opts && opts.sharers !== undefined ? positive(opts.sharers, "sharers") : 1;
    return 2 * m * n * k / tensorRate(gpu, shape.dtype) * sharers;
  }

  /**
   * Cycles of one TMA load of `bytes` into one SM: latency + transfer. Transfer charges the bytes
   * that miss L2, (1 - reuse) * bytes, to this SM's share of HBM (HBM GB/s / SMs, per clock), and
   * the bytes that hit, reuse * bytes, to its share of L2 bandwidth when the preset has one (else
   * they cost nothing, reported as l2Known: false). latency: opts.latencyCycles, else the preset's
   * loaded/unloaded figure (opts.loaded), else null (cycles then exclude it: latencyKnown false).
   */
  function tmaCycles(load, gpu, opts) {
    var bytes = load.bytes;
    if (typeof bytes !== "number" || !isFinite(bytes) || bytes < 0) fail("bytes must be a number >= 0, got " + JSON.stringify(bytes));
    var o = opts || {};
    var reuse = o.reuse === undefined || o.reuse === null ? 0 : o.reuse;
    if (typeof reuse !== "number" || !(reuse >= 0 && reuse <= 1)) fail("reuse must be in [0, 1], got " + JSON.stringify(o.reuse));
    if (gpu.hbmBytesPerClockPerSm === null) fail((gpu.name || "this GPU") + " has no HBM bandwidth");
    var hbmBytes = bytes * (1 - reuse);
    var l2Bytes = bytes * reuse;
    var l2Known = gpu.l2BytesPerClockPerSm !== null;
    var transfer = hbmBytes / gpu.hbmBytesPerClockPerSm + (l2Known ? l2Bytes / gpu.l2BytesPerClockPerSm : 0);
    var latency = null;
    if (o.latencyCycles !== undefined && o.latencyCycles !== null) {
      latency = o.latencyCycles;
      if (typeof latency !== "number" || !isFinite(latency) || latency < 0) fail("latencyCycles must be a number >= 0, got " + JSON.stringify(latency));
    } else latency = gpu.latencyCycles[o.loaded ? "loaded" : "unloaded"];
    return {
      cycles: (latency === null ? 0 : latency) + transfer,
      transfer: transfer,
      latency: latency,
      latencyKnown: latency !== null,
      hbmBytes: hbmBytes,
      l2Bytes: l2Bytes,
      l2Known: l2Known
    };
  }

  /**
   * The default L2 reuse of a GEMM mainloop load: the share of one wave's A and B k-slices that
   * another CTA of the same wave already fetched. A wave is the first min(tiles, SMs) output tiles
   * in raster order along N (CUTLASS's default rasterization); it touches `rows` distinct M tiles
   * and `cols` distinct N tiles, so it fetches rows + cols distinct slices out of 2 x waveCtas
   * requested: reuse = 1 - (rows + cols) / (2 x waveCtas). Assumes the wave's CTAs move through
   * k together and that one k-step's slices fit in L2 (they are KBs against tens of MB); ignores
   * swizzled rasterization, cluster multicast and the second wave onward.
   */
  function gemmWaveReuse(problem, tile, sms) {
    var tilesM = Math.ceil(problem.m / tile.m), tilesN = Math.ceil(problem.n / tile.n);
    var ctas = Math.min(tilesM * tilesN, sms);
    var rows = Math.ceil(ctas / tilesN);
    var cols = Math.min(ctas, tilesN);
    return 1 - (rows + cols) / (2 * ctas);
  }

  /**
   * Cycles of the softmax of a rows x cols block on one SM: rows*cols exponentials over the MUFU
   * ex2 rate and SOFTMAX_FMA_PER_ELEMENT FP32 ops per element over the FMA rate. The two pipes
   * issue independently, so cycles = max(exp, fma); both are returned. Ignores the row max, the
   * conversion to the MMA dtype, the O rescale and register-pressure stalls.
   */
  function softmaxCycles(block, gpu, opts) {
    var rows = positive(block.rows, "rows"), cols = positive(block.cols, "cols");
    var perElement = opts && opts.fmaPerElement !== undefined ? opts.fmaPerElement : SOFTMAX_FMA_PER_ELEMENT;
    if (gpu.mufuEx2PerClockPerSm === null) fail((gpu.name || "this GPU") + " has no MUFU rate");
    var exp = rows * cols / gpu.mufuEx2PerClockPerSm;
    var fma = gpu.fp32FmaPerClockPerSm === null ? null : rows * cols * perElement / gpu.fp32FmaPerClockPerSm;
    return { cycles: fma === null ? exp : Math.max(exp, fma), exp: exp, fma: fma, fmaKnown: fma !== null };
  }

  /**
   * Cycles of one output tile's epilogue: write the m x n output (outDtype) to shared memory at the
   * SM's shared-memory bandwidth, then TMA-store it at this SM's HBM share; the two are summed (no
   * overlap between tiles). The accumulator read is free on SM90 (registers); on SM100 it is a TMEM
   * -> register copy whose bandwidth has no source here, so it is not charged (tmemReadKnown false).
   * Ignores bias/activation math, a source C read, and overlap with the next tile's mainloop.
   * opts.reduceAdd: a bulk reduce-add (`cp.reduce.async.bulk ... .add`, default FP32) whose add
   * lands in L2 (docs/performance.md "epilogueCycles"): its bytes go to this SM's L2 share, or its
   * HBM share when the preset has no L2 figure (l2Known false).
   */
  function epilogueCycles(tile, gpu, opts) {
    var m = positive(tile.m, "m"), n = positive(tile.n, "n"), red = !!(opts && opts.reduceAdd), l2Known = gpu.l2BytesPerClockPerSm !== null;
    var outBytes = m * n * dtypeBytes(tile.outDtype || (red ? "fp32" : "bf16"));
    if (gpu.smemBytesPerClockPerSm === null) fail((gpu.name || "this GPU") + " has no shared-memory bandwidth");
    if (!(red && l2Known) && gpu.hbmBytesPerClockPerSm === null) fail((gpu.name || "this GPU") + " has no HBM bandwidth");
    var smemStore = outBytes / gpu.smemBytesPerClockPerSm;
    var tmaStore = outBytes / (red && l2Known ? gpu.l2BytesPerClockPerSm : gpu.hbmBytesPerClockPerSm);
    return {
      reduceAdd: red, l2Known: l2Known,
      cycles: smemStore + tmaStore,
      accumulatorRead: 0,
      accumulatorBytes: m * n * ACCUMULATOR_BYTES,
      tmemReadKnown: gpu.arch !== "sm100",
      smemStore: smemStore,
      tmaStore: tmaStore,
      outBytes: outBytes
    };
  }

  /** A store's derivation: "B B / smem B/clk smem + B B / `to`" (to: the HBM share unless given). */
  function storeText(bytes, gpu, to) { return num(bytes) + " B / " + num(gpu.smemBytesPerClockPerSm) + " B/clk smem + " + num(bytes) + " B / " + (to || num(gpu.hbmBytesPerClockPerSm) + " B/clk/SM HBM"); }

  /** softmaxCycles' derivation for rows x cols. */
  function softmaxText(rows, cols, gpu) {
    return "softmaxCycles: max(" + rows + " x " + cols + " / " + num(gpu.mufuEx2PerClockPerSm) + " ex2/clk, " + rows + " x " + cols + " x " +
      SOFTMAX_FMA_PER_ELEMENT + " / " + num(gpu.fp32FmaPerClockPerSm) + " FMA/clk)";
  }

  /**
   * Whole-problem time from one tile's cycles: tiles run in waves of `sms` (one CTA per SM), the
   * last wave partial (tile quantization): cycles = ceil(tiles / sms) x tileCycles. With flops and
   * peakTflops, also TFLOPS and the share of peak. Ignores launch overhead, persistent-kernel
   * load balancing (a partial wave is charged as a full one) and clock drops under load.
   */
  function problemTime(p) {
    var tileCycles = positive(p.tileCycles, "tileCycles");
    var tiles = positive(p.tiles, "tiles"), sms = positive(p.sms, "sms");
    var clockMHz = positive(p.clockMHz, "clockMHz");
    var waves = Math.ceil(tiles / sms);
    var cycles = waves * tileCycles;
    var us = cycles / clockMHz;
    var tflops = typeof p.flops === "number" ? p.flops / (us * 1e-6) / 1e12 : null;
    return {
      cycles: cycles,
      us: us,
      waves: waves,
      lastWaveTiles: tiles - (waves - 1) * sms,
      waveEfficiency: tiles / (waves * sms),
      tflops: tflops,
      peakFraction: tflops !== null && typeof p.peakTflops === "number" ? tflops / p.peakTflops : null
    };
  }

  /** Dense tensor peak of the whole GPU in TFLOPS at its resolved clock. */
  function peakTflops(gpu, dtype) {
    return tensorRate(gpu, dtype) * gpu.sms * gpu.clockMHz * 1e6 / 1e12;
  }

  /**
   * Steady-state bound of a TMA-fed GEMM: per k-tile, the larger of the MMA cycles and the TMA
   * transfer cycles (the stages hide the latency once the ring is full), times the k-tiles, plus the
   * epilogue. Not the schedule simulation. When a TMA latency is known, also the stages needed to
   * hide it: ceil((latency + transfer) / max(mma, transfer)); with fewer stages the bottleneck is
   * "tma-latency" (the bound is then optimistic). stageRingFits: stages x (A + B k-tile bytes)
   * against the per-CTA shared memory (the epilogue's buffer is not counted). c = {tile:{m,n,k}, problem:{m,n,k}, dtype,
   * outDtype?, stages?, consumers?, reuse?, latencyCycles?, loaded?}.
   */
  function predictGemm(c, gpu) {
    var tile = c.tile, problem = c.problem, dtype = c.dtype || "bf16";
    ["m", "n", "k"].forEach(function (d) { positive(tile[d], "tile " + d); positive(problem[d], "problem " + d); });
    var consumers = c.consumers === undefined ? 1 : positive(c.consumers, "consumers");
    var bytes = dtypeBytes(dtype);
    var reuse = c.reuse === undefined || c.reuse === null ? gemmWaveReuse(problem, tile, gpu.sms) : c.reuse;
    var mma = mmaCycles({ m: tile.m, n: tile.n, k: tile.k, dtype: dtype }, gpu);
    var tma = tmaCycles({ bytes: (tile.m + tile.n) * tile.k * bytes }, gpu, { reuse: reuse, latencyCycles: c.latencyCycles, loaded: c.loaded });
    var epi = epilogueCycles({ m: tile.m, n: tile.n, outDtype: c.outDtype || dtype }, gpu);
    var kTiles = Math.ceil(problem.k / tile.k);
    var perKTile = Math.max(mma, tma.transfer);
    var tileCycles = perKTile * kTiles + epi.cycles;
    var stagesNeeded = tma.latencyKnown ? Math.ceil((tma.latency + tma.transfer) / perKTile) : null;
    var tiles = Math.ceil(problem.m / tile.m) * Math.ceil(problem.n / tile.n);
    var flops = 2 * problem.m * problem.n * problem.k;
    var time = problemTime({ tileCycles: tileCycles, tiles: tiles, sms: gpu.sms, clockMHz: gpu.clockMHz, flops: flops, peakTflops: peakTflops(gpu, dtype) });
    var bottleneck;
    if (stagesNeeded !== null && c.stages !== undefined && c.stages < stagesNeeded) bottleneck = "tma-latency";
    else if (epi.cycles > perKTile * kTiles) bottleneck = "epilogue";
    else bottleneck = mma >= tma.transfer ? "tensor-core" : "tma-bandwidth";
    return {
      gpu: gpu.name,
      clockMHz: gpu.clockMHz,
      dtype: dtype,
      tile: { m: tile.m, n: tile.n, k: tile.k },
      problem: { m: problem.m, n: problem.n, k: problem.k },
      stages: c.stages === undefined ? null : c.stages,
      kTileCycles: {
        mma: mma,
        mmaPerConsumer: mma * consumers,
        tmaTransfer: tma.transfer,
        tmaLatency: tma.latency,
        tmaBytes: (tile.m + tile.n) * tile.k * bytes,
        tmaHbmBytes: tma.hbmBytes,
        l2Reuse: reuse,
        l2BandwidthKnown: tma.l2Known
      },
      epilogueCycles: epi.cycles,
      kTiles: kTiles,
      tileCycles: tileCycles,
      stagesNeeded: stagesNeeded,
      stageRingBytes: c.stages === undefined ? null : c.stages * (tile.m + tile.n) * tile.k * bytes,
      stageRingFits: c.stages === undefined || gpu.smemPerCtaBytes === null ? null : c.stages * (tile.m + tile.n) * tile.k * bytes <= gpu.smemPerCtaBytes,
      tiles: tiles,
      waves: time.waves,
      waveEfficiency: time.waveEfficiency,
      time: { cycles: time.cycles, us: time.us },
      tflops: time.tflops,
      peakTflops: peakTflops(gpu, dtype),
      peakFraction: time.peakFraction,
      bottleneck: bottleneck,
      model: "steady-state bound (max of MMA and TMA throughput per k-tile x k-tiles + epilogue), not the schedule simulation"
    };
  }

  /**
   * Steady-state bound of a FlashAttention-style forward pass: one CTA per (batch, head, blockM
   * rows of Q); per KV block two MMAs (S = Q K^T and O = P V, 4 * blockM * blockN * headdim FLOPs),
   * the K and V tile loads, and the softmax of the blockM x blockN scores. `overlapped`: per KV block
   * max(mma, softmax, tma) (softmax hidden behind the other warpgroup's MMAs, as FA3's pingpong
   * aims for); `serial`: mma + softmax, max'ed with tma (no softmax overlap). Causal halves the KV
   * blocks and FLOPs. K/V reuse defaults to 1 - 1/(CTAs of a wave sharing one head). Ignores the Q
   * load, the O rescale and the epilogue (charged once per tile below), and masking cost.
   */
  function predictAttention(c, gpu) {
    var dtype = c.dtype || "bf16";
    var bm = positive(c.blockM, "blockM"), bn = positive(c.blockN, "blockN"), d = positive(c.headdim, "headdim");
    var batch = positive(c.batch, "batch"), heads = positive(c.heads, "heads"), seqlen = positive(c.seqlen, "seqlen");
    var ctasPerHead = Math.ceil(seqlen / bm);
    var reuse = c.reuse === undefined || c.reuse === null ? attentionKvReuse(seqlen, bm, gpu.sms) : c.reuse;
    var mma = mmaCycles({ m: bm, n: bn, k: d, dtype: dtype }, gpu) * 2;
    var tma = tmaCycles({ bytes: 2 * bn * d * dtypeBytes(dtype) }, gpu, { reuse: reuse, latencyCycles: c.latencyCycles });
    var sm = softmaxCycles({ rows: bm, cols: bn }, gpu);
    var kvBlocks = Math.ceil(seqlen / bn) * (c.causal ? 0.5 : 1);
    var epi = epilogueCycles({ m: bm, n: d, outDtype: dtype }, gpu);
    var tiles = batch * heads * ctasPerHead;
    var flops = 4 * batch * heads * seqlen * seqlen * d * (c.causal ? 0.5 : 1);
    var peak = peakTflops(gpu, dtype);
    var variant = function (perBlock) {
      var t = problemTime({ tileCycles: perBlock * kvBlocks + epi.cycles, tiles: tiles, sms: gpu.sms, clockMHz: gpu.clockMHz, flops: flops, peakTflops: peak });
      return { kvBlockCycles: perBlock, time: { cycles: t.cycles, us: t.us }, tflops: t.tflops, peakFraction: t.peakFraction };
    };
    var over = Math.max(mma, sm.cycles, tma.transfer);
    return {
      gpu: gpu.name,
      clockMHz: gpu.clockMHz,
      kvBlockCycles: { mma: mma, softmax: sm.cycles, exp: sm.exp, fma: sm.fma, tmaTransfer: tma.transfer, kvReuse: reuse },
      kvBlocks: kvBlocks,
      tiles: tiles,
      overlapped: variant(over),
      serial: variant(Math.max(mma + sm.cycles, tma.transfer)),
      bottleneck: over === mma ? "tensor-core" : over === sm.cycles ? "softmax" : "tma-bandwidth",
      peakTflops: peak
    };
  }

  // ---------------------------------------------------------------------------------------------
  // The schedule's latencies in cycles (issue 21 part 4): what schedule.js's `units` step feeds
  // each model's latency knobs when a GPU is given, each with its derivation in words, so the page
  // can say which formula and which inputs every number came from.

  /** Round a cycle count for an integer knob: at least `min`, Math.round otherwise. */
  function cyclesKnob(x, min) { return Math.max(min, Math.round(x)); }

  /** Short printable number: integers as is, else 3 significant digits. */
  function num(x) { return x === Math.round(x) ? String(x) : String(Number(x.toPrecision(3))); }

  /**
   * The TMA latency knob of one load of `bytes`: tmaCycles with the given reuse and fixed latency
   * (memLatency if given, else the preset's unloaded figure, else 0), as {cycles, text, transfer}.
   */
  function loadKnob(bytes, gpu, reuse, memLatency, what) {
    var t = tmaCycles({ bytes: bytes }, gpu, { reuse: reuse, latencyCycles: memLatency === undefined ? null : memLatency });
    var lat = t.latency === null ? 0 : t.latency;
    return {
      cycles: cyclesKnob(lat + t.transfer, 0),
      transfer: t.transfer,
      text: "tmaCycles: " + (t.latencyKnown ? num(lat) + " latency + " : "") + num(bytes) + " B " + what + " x (1 - reuse " + num(reuse) +
        ") / " + num(gpu.hbmBytesPerClockPerSm) + " B/clk/SM HBM" + (t.l2Known ? " + " + num(bytes) + " B x reuse " + num(reuse) + " / " +
        num(gpu.l2BytesPerClockPerSm) + " B/clk/SM L2" : " (L2 hits free: no L2 bandwidth in the preset)") +
        (t.latencyKnown ? "" : " (no fixed latency: none in the preset; give memLatency)")
    };
  }

  /** "2 x m x n x k / rate" for an MMA's derivation. */
  function mmaText(m, n, k, dtype, gpu) {
    return "mmaCycles: 2 x " + m + " x " + n + " x " + k + " / " + num(tensorRate(gpu, dtype)) + " " + dtype + " FLOP/clk/SM";
  }

  /**
   * Persistent CTAs and the tiles the busiest one runs: ctas = SMs rounded down to whole clusters
   * (a cluster's CTAs run on SMs of one GPC; the rounding ignores GPC boundaries), tilesPerCta =
   * ceil(tiles / ctas), waves the same number (the last possibly partial).
   */
  function ctaTiles(tiles, gpu, clusterSize) {
    var size = clusterSize || 1;
    var ctas = Math.max(size, Math.floor(gpu.sms / size) * size);
    var perCta = Math.ceil(positive(tiles, "tiles") / ctas);
    return { ctas: ctas, tilesPerCta: perCta, waves: perCta, lastWaveTiles: tiles - (perCta - 1) * ctas };
  }

  /** K/V L2 reuse of attention: 1 - 1 / (CTAs of a wave sharing one head's K and V). */
  function attentionKvReuse(seqlen, blockM, sms) {
    return 1 - 1 / Math.min(Math.ceil(seqlen / blockM), sms);
  }

  /**
   * The SM90 GEMM model's latency knobs for tile {m, n, k}: tmaLatency = one k-tile's A and B
   * loads (tmaCycles), wgmmaLatency = the CTA tile's k-tile MMA (mmaCycles: in pingpong each WG
   * owns a whole tile, in cooperative the two WGs' halves are one tensor-core job), epilogueLatency
   * = epilogueCycles of the whole tile (cooperative WGs store their halves at once, sharing the
   * SM's bandwidth). c = {tile, dtype, outDtype?, reuse, memLatency?}.
   */
  function gemmLatencies(c, gpu) {
    var t = c.tile, dt = c.dtype, bytes = (t.m + t.n) * t.k * dtypeBytes(dt);
    var load = loadKnob(bytes, gpu, c.reuse, c.memLatency, "(A + B k-tile)");
    var mma = mmaCycles({ m: t.m, n: t.n, k: t.k, dtype: dt }, gpu);
    var epi = epilogueCycles({ m: t.m, n: t.n, outDtype: c.outDtype || dt }, gpu);
    return {
      knobs: { tmaLatency: load.cycles, wgmmaLatency: cyclesKnob(mma, 1), epilogueLatency: cyclesKnob(epi.cycles, 0) },
      derivation: {
        tmaLatency: load.text,
        wgmmaLatency: mmaText(t.m, t.n, t.k, dt, gpu),
        epilogueLatency: "epilogueCycles: " + storeText(epi.outBytes, gpu)
      },
      loadBytes: bytes,
      loadTransfer: load.transfer,
      loadsPerTile: "kTiles"
    };
  }

  /**
   * The attention model's latency knobs for blocks {blockM, blockN} of head dimension d shared by
   * C consumer WGs (each WG owns blockM / C rows): tmaLatency = one K (or V) tile's load;
   * gemm0Latency = S = Q K^T of the WG's rows, gemm1Latency = O += P V of them (the model's tensor
   * core runs one WG's GEMM at a time); softmaxLatency = softmaxCycles of the WG's rows x blockN at
   * the SM's MUFU and FMA rates (a concurrent softmax of the other WG is not charged);
   * epilogueLatency = epilogueCycles of the WG's rows x d. c = {blockM, blockN, headdim, C, dtype, reuse, memLatency?}.
   */
  function attentionLatencies(c, gpu) {
    var rows = c.blockM / c.C, dt = c.dtype, d = c.headdim, bytes = c.blockN * d * dtypeBytes(dt);
    var load = loadKnob(bytes, gpu, c.reuse, c.memLatency, "(one K or V tile)");
    var g = mmaCycles({ m: rows, n: c.blockN, k: d, dtype: dt }, gpu);
    var sm = softmaxCycles({ rows: rows, cols: c.blockN }, gpu);
    var epi = epilogueCycles({ m: rows, n: d, outDtype: dt }, gpu);
    return {
      knobs: { tmaLatency: load.cycles, gemm0Latency: cyclesKnob(g, 1), gemm1Latency: cyclesKnob(g, 1),
        softmaxLatency: cyclesKnob(sm.cycles, 1), epilogueLatency: cyclesKnob(epi.cycles, 0) },
      derivation: {
        tmaLatency: load.text,
        gemm0Latency: mmaText(rows, c.blockN, d, dt, gpu) + " (S = Q K^T of one WG's rows)",
        gemm1Latency: mmaText(rows, d, c.blockN, dt, gpu) + " (O += P V of one WG's rows)",
        softmaxLatency: softmaxText(rows, c.blockN, gpu),
        epilogueLatency: "epilogueCycles: " + storeText(epi.outBytes, gpu)
      },
      loadBytes: bytes,
      loadTransfer: load.transfer,
      loadsPerTile: "2 x kvBlocks"
    };
  }

  /** The TMEM -> register copy's latency and why (no sourced TMEM bandwidth: epilogueCycles' accumulatorRead). */
  var TMEM_LOAD_CYCLES = 0;
  var TMEM_LOAD_TEXT = "0: the TMEM -> register bandwidth has no source (epilogueCycles' accumulatorRead)";

  /**
   * The Blackwell model's latency knobs for the CTA tile {m, n, k} with `subtiles` epilogue
   * subtiles: tmaLatency and ummaLatency as the SM90 GEMM's; tmemLoadLatency = 0 (the TMEM ->
   * register bandwidth has no source: epilogueCycles' accumulatorRead); storeLatency =
   * epilogueCycles of one subtile (m x n / subtiles). c = {tile, dtype, subtiles, reuse, memLatency?}.
   */
  function blackwellLatencies(c, gpu) {
    var t = c.tile, dt = c.dtype, bytes = (t.m + t.n) * t.k * dtypeBytes(dt);
    var load = loadKnob(bytes, gpu, c.reuse, c.memLatency, "(A + B k-tile)");
    var mma = mmaCycles({ m: t.m, n: t.n, k: t.k, dtype: dt }, gpu);
    var sub = t.n / c.subtiles;
    var epi = epilogueCycles({ m: t.m, n: sub, outDtype: c.outDtype || dt }, gpu);
    return {
      knobs: { tmaLatency: load.cycles, ummaLatency: cyclesKnob(mma, 1), tmemLoadLatency: TMEM_LOAD_CYCLES, storeLatency: cyclesKnob(epi.cycles, 0) },
      derivation: {
        tmaLatency: load.text,
        ummaLatency: mmaText(t.m, t.n, t.k, dt, gpu),
        tmemLoadLatency: TMEM_LOAD_TEXT,
        storeLatency: "epilogueCycles of one subtile (" + t.m + " x " + num(sub) + "): " + storeText(epi.outBytes, gpu)
      },
      loadBytes: bytes,
      loadTransfer: load.transfer,
      loadsPerTile: "kTiles"
    };
  }

  /**
   * Cycles of one register loop of plain FP32 arithmetic over a rows x cols block on one SM: one
   * FP32-pipe op per element over the SM's FP32 FMA rate (the datasheet figure softmaxCycles' fma
   * term reads). The program model's `math` blocks (row max, row sum, the O rescale, the
   * correction's multiply): the loop's own trip count is not parsed, so the caller names the block.
   */
  function registerLoopCycles(block, gpu) {
    var rows = positive(block.rows, "rows"), cols = positive(block.cols, "cols");
    if (gpu.fp32FmaPerClockPerSm === null) fail((gpu.name || "this GPU") + " has no FP32 FMA rate");
    return rows * cols / gpu.fp32FmaPerClockPerSm;
  }

  /**
   * The program model's latency knobs (docs/performance.md "The program model in cycles"): each op
   * class's share of one step's work, split over the blocks the program's own run draws for it
   * (model_program.js programCensus; sim/units.js builds the step per shape: GEMM, attention
   * forward or backward). s = c.step = {name, load {bytes, what} (one copy's bytes), mma {m, n, k, what} (one MMA
   * job's FLOPs as an m x n x k MMA; null when the run issues none), exp {rows, cols, what} (null: no exp block per
   * step), math {rows, cols, expRows?, what} (expRows: an exp pass drawn as math), epilogue / store / reduce {m, n,
   * outDtype, what, reduceAdd?} (one output block; reduce: a bulk reduce-add's, null when no such work is known per
   * step)}; c = {step, dtype, reuse, memLatency?, reads {knob: true}}. The tensor core runs one job at a time; an exp
   * block is softmaxCycles at the whole SM's MUFU and FMA rates (as attentionLatencies); a math block
   * registerLoopCycles (+ softmaxCycles of its expRows); an output block epilogueCycles (roles storing at once share
   * the SM's bandwidth, as gemmLatencies' cooperative epilogue; a reduceAdd one over L2). Only the knobs the run reads get one.
   */
  function programLatencies(c, gpu) {
    var s = c.step, dt = c.dtype, knobs = {}, derivation = {}, reads = c.reads || {};
    var load = loadKnob(s.load.bytes, gpu, c.reuse, c.memLatency, "(" + s.load.what + ")");
    if (reads.tmaLatency) { knobs.tmaLatency = load.cycles; derivation.tmaLatency = load.text; }
    if (reads.wgmmaLatency || reads.ummaLatency) {
      if (!s.mma) fail("the program's run issues no MMA per " + s.name + ": its MMA latency has no work to divide");
      var mma = cyclesKnob(mmaCycles({ m: s.mma.m, n: s.mma.n, k: s.mma.k, dtype: dt }, gpu), 1);
      var text = mmaText(num(s.mma.m), s.mma.n, s.mma.k, dt, gpu) + " (" + s.mma.what + ")";
      ["wgmmaLatency", "ummaLatency"].forEach(function (kn) { if (reads[kn]) { knobs[kn] = mma; derivation[kn] = text; } });
    }
    if (reads.softmaxLatency) {
      if (!s.exp) fail("the program's run reads the exp loop latency but draws no exp block per step");
      var e = s.exp, sm = softmaxCycles({ rows: e.rows, cols: e.cols }, gpu);
      knobs.softmaxLatency = cyclesKnob(sm.cycles, 1);
      derivation.softmaxLatency = softmaxText(num(e.rows), e.cols, gpu) + " (" + e.what + ")";
    }
    if (reads.mathLatency) {
      // An exp pass drawn as math blocks (its rows per block: expRows) costs what exp blocks would.
      var mr = s.math, ex = mr.expRows > 0 ? softmaxCycles({ rows: mr.expRows, cols: mr.cols }, gpu).cycles : 0;
      knobs.mathLatency = cyclesKnob(registerLoopCycles(mr, gpu) + ex, 1);
      derivation.mathLatency = (ex ? softmaxText(num(mr.expRows), mr.cols, gpu) + " + " : "") +
        "registerLoopCycles: " + num(mr.rows) + " x " + mr.cols + " / " + num(gpu.fp32FmaPerClockPerSm) + " FP32 op/clk (" + mr.what + ")";
    }
    [["epilogueLatency", s.epilogue], ["storeLatency", s.store], ["reduceLatency", s.reduce]].forEach(function (kn) {
      if (!reads[kn[0]]) return;
      var o = kn[1], red = !!(o && o.reduceAdd);
      if (!o) fail("the program's run reads " + kn[0] + " but no such work is known per " + s.name + ": it is not priced");
      var epi = epilogueCycles({ m: o.m, n: o.n, outDtype: o.outDtype || (red ? "fp32" : dt) }, gpu, { reduceAdd: red });
      knobs[kn[0]] = cyclesKnob(epi.cycles, 0);
      derivation[kn[0]] = "epilogueCycles of " + num(o.m) + " x " + o.n + (red ? ", a reduce-add" : "") + " (" + o.what + "): " + storeText(epi.outBytes, gpu, !red ? null :
        epi.l2Known ? num(gpu.l2BytesPerClockPerSm) + " B/clk/SM L2" : num(gpu.hbmBytesPerClockPerSm) + " B/clk/SM HBM (no L2 bandwidth in the preset: the HBM share stands in)");
    });
    if (reads.tmemLoadLatency) { knobs.tmemLoadLatency = TMEM_LOAD_CYCLES; derivation.tmemLoadLatency = TMEM_LOAD_TEXT; }
    return { knobs: knobs, derivation: derivation, loadBytes: s.load.bytes, loadTransfer: load.transfer, loadsPerTile: "the run's copies" };
  }

  /** Tensor-core idle share at or under which a run is tensor-core bound (classifyBottleneck). */
  var TENSOR_IDLE_TOLERANCE = 0.1;

  /**
   * The bottleneck of one simulated CTA run, from its waits and busy time (docs/performance.md):
   * "tma-bandwidth" when the HBM floor (the CTA's load bytes over its HBM share, which the engine
   * does not enforce: its copies overlap freely) exceeds the simulated cycles; else "tensor-core"
   * when the tensor core idles at most TENSOR_IDLE_TOLERANCE of the run; else the candidate that
   * leaves it idle longest (candidates: [{name, cycles}] with names tma-latency, softmax,
   * epilogue). r = {total, busy, floor, candidates}. Returns {name, why, idle, shares}.
   */
  function classifyBottleneck(r) {
    var total = r.total, busy = r.busy, idle = Math.max(0, total - busy);
    var pct = function (x) { return total > 0 ? Math.round(1000 * x / total) / 10 + "%" : "0%"; };
    if (r.floor > total) {
      return { name: "tma-bandwidth", idle: idle,
        why: "HBM floor " + num(r.floor) + " cycles (the CTA's load bytes / its HBM share) exceeds the simulated " + total + " cycles" };
    }
    if (total <= 0 || idle <= TENSOR_IDLE_TOLERANCE * total) {
      return { name: "tensor-core", idle: idle,
        why: "tensor core busy " + busy + " of " + total + " cycles (" + pct(busy) + "); idle " + pct(idle) + " <= " + pct(TENSOR_IDLE_TOLERANCE * total) };
    }
    var best = null;
    (r.candidates || []).forEach(function (c) { if (c.cycles > 0 && (best === null || c.cycles > best.cycles)) best = c; });
    if (best === null) {
      return { name: "tensor-core", idle: idle,
        why: "tensor core idle " + pct(idle) + " of the run, but no wait explains it (pipeline fill and drain)" };
    }
    return { name: best.name, idle: idle,
      why: "tensor core idle " + idle + " of " + total + " cycles (" + pct(idle) + "); the largest share: " + best.name + " " +
        Math.round(best.cycles) + " cycles (" + (best.how || "") + ")" };
  }

  // ---------------------------------------------------------------------------------------------
  // Where the tile, dtype and cluster of a cycles run come from

  /** A parsed fact's place for units.sources: "source: TileShape, line 110 of 48_...cu". */
  function factSource(fact) {
    return "source: " + fact.source + ", line " + fact.line + (fact.file ? " of " + fact.file : "");
  }

  /** "MxN" / "MxNxK" of a literal tile or cluster fact with `dims` positive sizes, else null. */
  function literalShape(fact, dims) {
    if (!fact || typeof fact !== "object" || fact.literal !== true) return null;
    var parts = [fact.m, fact.n, fact.k].slice(0, dims);
    for (var i = 0; i < parts.length; i++) if (!(Number.isInteger(parts[i]) && parts[i] > 0)) return null;
    return parts.join("x");
  }

  /**
   * The MMA dtype the parsed A and B element types give, {dtype, source}, or null: A's dtype when
   * B's is the same or unknown (mixed-input GEMMs are not modelled). A float operand runs as TF32:
   * CUTLASS 4.2's SM90 collective builder, sm90_gmma_builder.inl line 239 (ElementAMma =
   * conditional_t<is_same_v<ElementA, float>, tfloat32_t, ElementA>).
   */
  function sourceDtype(dtypes) {
    var a = dtypes && typeof dtypes === "object" ? dtypes.a : null, b = a ? dtypes.b : null;
    if (!a || typeof a.dtype !== "string" || (b && typeof b.dtype === "string" && b.dtype !== a.dtype)) return null;
    var tf32 = a.dtype === "fp32";
    return { dtype: tf32 ? "tf32" : a.dtype, source: factSource(a) + (tf32 ? " (float operands run as TF32: sm90_gmma_builder.inl line 239)" : "") };
  }

  /**
   * The output's dtype from the source's literal element types (parse_tile.py dtypes): ElementD,
   * else ElementC (an epilogue writes D; CUTLASS's examples often alias `using ElementD =
   * ElementC;`), else null. A float output stays fp32 (4 bytes): the TF32 rule is the operands'.
   */
  function outputDtype(dtypes) {
    var d = dtypes && typeof dtypes === "object" ? (dtypes.d && typeof dtypes.d.dtype === "string" ? dtypes.d : dtypes.c) : null;
    if (!d || typeof d.dtype !== "string" || !DTYPE_BYTES[d.dtype]) return null;
    return { dtype: d.dtype, source: factSource(d) };
  }

  /**
   * The tile, dtype and cluster of a cycles run with where each came from (docs/performance.md
   * "Where the tile, dtype and cluster come from"): a knob (flag or page control) first, then the
   * parsed source's literal fact (structure.tile / dtypes / cluster: parse_tile.py, parse_dsl.py),
   * then the rule (o.ruleTile, FA3's tile_size_fwd_sm90), then the default. o.modelDtype is a
   * model's own dtype knob (FA3's build), which wins over all. o = {tileDims, defaultTile,
   * ruleTile: {text, source} | null, modelDtype: {value, source} | null}. Returns {tile, dtype,
   * outDtype (outputDtype, else the operands'), cluster (texts), sources: {tile, dtype, outDtype, cluster}}.
   */
  function unitParams(structure, knobs, o) {
    var s = structure && typeof structure === "object" ? structure : {};
    var k = knobs || {}, out = { sources: {} };
    var given = function (v) { return v !== undefined && v !== null && v !== ""; };
    var tile = literalShape(s.tile, o.tileDims), cluster = literalShape(s.cluster, 2), dt = sourceDtype(s.dtypes);
    if (given(k.tile)) { out.tile = k.tile; out.sources.tile = "knob"; }
    else if (tile !== null) { out.tile = tile; out.sources.tile = factSource(s.tile); }
    else if (o.ruleTile) { out.tile = o.ruleTile.text; out.sources.tile = o.ruleTile.source; }
    else { out.tile = o.defaultTile; out.sources.tile = "default"; }
    if (o.modelDtype) { out.dtype = o.modelDtype.value; out.sources.dtype = o.modelDtype.source; }
    else if (given(k.dtype)) { out.dtype = k.dtype; out.sources.dtype = "knob"; }
    else if (dt !== null) { out.dtype = dt.dtype; out.sources.dtype = dt.source; }
    else { out.dtype = "bf16"; out.sources.dtype = "default"; }
    out.dtype = String(out.dtype).trim().toLowerCase();
    var od = outputDtype(s.dtypes);
    if (od !== null) { out.outDtype = od.dtype; out.sources.outDtype = od.source; }
    else { out.outDtype = out.dtype; out.sources.outDtype = "the operands' dtype (no literal ElementD / ElementC)"; }
    if (given(k.cluster)) { out.cluster = k.cluster; out.sources.cluster = "knob"; }
    else if (cluster !== null) { out.cluster = cluster; out.sources.cluster = factSource(s.cluster); }
    else { out.cluster = "1x1"; out.sources.cluster = "default"; }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Command line: node sim/perf.js predict --gpu NAME --tile MxNxK --dtype D --problem MxNxK ...

  var USAGE = "usage: node sim/perf.js predict --gpu NAME [--gpu-file gpus.json] [--clock-mhz N] --tile MxNxK " +
    "[--dtype bf16|fp16|fp8|tf32|fp4] [--stages N] [--consumers N] [--reuse R] [--tma-latency CYCLES] --problem MxNxK";

  /** Parse "MxNxK" into {m, n, k} of positive integers, or throw PerfError naming the flag. */
  function parseShape(text, flag) {
    var mt = /^([1-9][0-9]*)x([1-9][0-9]*)x([1-9][0-9]*)$/.exec(String(text));
    if (!mt) fail(flag + " expects MxNxK of positive integers, got " + JSON.stringify(text));
    return { m: Number(mt[1]), n: Number(mt[2]), k: Number(mt[3]) };
  }

  function parseNumber(text, flag, min) {
    var v = Number(text);
    if (text === "" || !isFinite(v) || v < min) fail(flag + " expects a number >= " + min + ", got " + JSON.stringify(text));
    return v;
  }

  /** Parse predict's flags into options, or throw PerfError. */
  function parseArgs(argv) {
    var o = { gpu: null, gpuFile: null, clockMHz: null, tile: null, dtype: "bf16", stages: undefined, consumers: undefined, reuse: null, latencyCycles: null, problem: null, help: false };
    var takes = { "--gpu": 1, "--gpu-file": 1, "--clock-mhz": 1, "--tile": 1, "--dtype": 1, "--stages": 1, "--consumers": 1, "--reuse": 1, "--tma-latency": 1, "--problem": 1 };
    for (var i = 0; i < argv.length; i++) {
      var arg = argv[i];
      var eq = arg.indexOf("=");
      var name = arg.slice(0, 2) === "--" && eq > 0 ? arg.slice(0, eq) : arg;
      if (name === "-h" || name === "--help") { o.help = true; continue; }
      if (!takes[name]) fail("unknown argument " + JSON.stringify(arg));
      var value;
      if (eq > 0 && name !== arg) value = arg.slice(eq + 1);
      else {
        if (i + 1 >= argv.length) fail(name + " needs a value");
        value = argv[++i];
      }
      if (name === "--gpu") o.gpu = value;
      else if (name === "--gpu-file") o.gpuFile = value;
      else if (name === "--clock-mhz") o.clockMHz = parseNumber(value, name, 1);
      else if (name === "--tile") o.tile = parseShape(value, name);
      else if (name === "--problem") o.problem = parseShape(value, name);
      else if (name === "--dtype") { dtypeBytes(value); o.dtype = value; }
      else if (name === "--stages") o.stages = parseNumber(value, name, 1);
      else if (name === "--consumers") o.consumers = parseNumber(value, name, 1);
      else if (name === "--reuse") { o.reuse = parseNumber(value, name, 0); if (o.reuse > 1) fail("--reuse expects a number in [0, 1], got " + JSON.stringify(value)); }
      else if (name === "--tma-latency") o.latencyCycles = parseNumber(value, name, 0);
    }
    if (o.help) return o;
    if (!o.gpu) fail("--gpu NAME is required");
    if (!o.tile) fail("--tile MxNxK is required");
    if (!o.problem) fail("--problem MxNxK is required");
    return o;
  }

  /**
   * Run the command line: argv without "node" and the script; io = {readFile(path), write(text),
   * error(line), defaultGpuFile}. Returns 0, or 2 with one line on stderr for any bad input.
   */
  function main(argv, io) {
    var args = argv || [];
    if (args[0] !== "predict") { io.error("perf: the only command is predict; " + USAGE); return 2; }
    try {
      var o = parseArgs(args.slice(1));
      if (o.help) { io.write(USAGE + "\n"); return 0; }
      var path = o.gpuFile || io.defaultGpuFile;
      var table;
      try {
        table = JSON.parse(io.readFile(path));
      } catch (e) {
        fail("cannot read " + path + ": " + String(e.message).split("\n")[0]);
      }
      var gpu = gpuFrom(table, o.gpu, { clockMHz: o.clockMHz });
      var result = predictGemm({ tile: o.tile, problem: o.problem, dtype: o.dtype, stages: o.stages, consumers: o.consumers, reuse: o.reuse, latencyCycles: o.latencyCycles }, gpu);
      io.write(JSON.stringify(result, null, 2) + "\n");
      return 0;
    } catch (e) {
      if (!(e instanceof PerfError)) throw e;
      io.error("perf: " + e.message);
      return 2;
    }
  }

  return {
    DTYPE_BYTES: DTYPE_BYTES,
    TENSOR_DTYPES: TENSOR_DTYPES.slice(),
    SOFTMAX_FMA_PER_ELEMENT: SOFTMAX_FMA_PER_ELEMENT,
    PerfError: PerfError,
    resolveGpu: resolveGpu,
    gpuFrom: gpuFrom,
    tensorRate: tensorRate,
    peakTflops: peakTflops,
    mmaCycles: mmaCycles,
    tmaCycles: tmaCycles,
    gemmWaveReuse: gemmWaveReuse,
    softmaxCycles: softmaxCycles,
    epilogueCycles: epilogueCycles,
    problemTime: problemTime,
    predictGemm: predictGemm,
    predictAttention: predictAttention,
    ctaTiles: ctaTiles,
    attentionKvReuse: attentionKvReuse,
    gemmLatencies: gemmLatencies,
    attentionLatencies: attentionLatencies,
    blackwellLatencies: blackwellLatencies,
    registerLoopCycles: registerLoopCycles,
    programLatencies: programLatencies,
    dtypeBytes: dtypeBytes,
    num: num,
    classifyBottleneck: classifyBottleneck,
    unitParams: unitParams,
    TENSOR_IDLE_TOLERANCE: TENSOR_IDLE_TOLERANCE,
    parseShape: parseShape,
    parseArgs: parseArgs,
    main: main,
    USAGE: USAGE
  };
})();

if (typeof module !== "undefined" && module.exports) {
  module.exports = KernelPerf;
  if (typeof require !== "undefined" && require.main === module) {
    var perfPath = require("path");
    var perfFs = require("fs");
    process.exitCode = KernelPerf.main(process.argv.slice(2), {
      readFile: function (p) { return perfFs.readFileSync(p, "utf8"); },
      write: function (text) { process.stdout.write(text); },
      error: function (line) { process.stderr.write(line + "\n"); },
      defaultGpuFile: perfPath.join(__dirname, "gpus.json")
    });
  }
}
