// The waveform page's critical-path highlight (docs/waveform.md "Critical path"): the pure parts.
// pathIndexOf culls the path's blocks like a lane (never drops a visible one), criticalPathLine
// writes the verdict's shares, the URL hash keeps the toggle, and result.criticalPath crosses the
// Worker boundary with the packed columns (packResult / unpackResult through a structured clone).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const ASSETS = path.join(__dirname, "..", "..", "assets");
const I = require(path.join(ASSETS, "wave_index.js"));
const V = require(path.join(ASSETS, "wave_view.js"));
const R = require(path.join(ASSETS, "wave_result.js"));
const KS = require(path.join(__dirname, "..", "..", "schedule.js"));
const GEMM = require(path.join(__dirname, "..", "..", "examples", "sm90_gemm_pingpong.json"));
const FA3 = require(path.join(__dirname, "..", "..", "examples", "fa3_fwd.json"));
const { mulberry32 } = require("./prng.js");

const RUN = KS.simulate(GEMM, { gpu: "h100-sxm", stages: 2, outputTiles: 2, kTiles: 8, memLatency: 4000 });

test("pathIndexOf sorts the path by start and visibleRange over it never drops a block touching the window", () => {
  const c = RUN.columns, ids = RUN.criticalPath.blocks;
  const index = I.pathIndexOf(c, ids);
  assert.equal(index.n, ids.length);
  assert.deepEqual(Array.from(index.ids).sort((a, b) => a - b), ids.slice().sort((a, b) => a - b));
  for (let i = 1; i < index.n; i++) {
    assert.ok(index.starts[i] >= index.starts[i - 1], "sorted by start");
    assert.equal(index.maxEnds[i], Math.max(index.maxEnds[i - 1], index.ends[i]));
  }
  const rand = mulberry32(21);
  const total = RUN.total;
  for (let trial = 0; trial < 300; trial++) {
    const a = rand() * total * 1.1 - total * 0.05, b = a + rand() * total * 0.3 + 1e-3;
    const [lo, hi] = I.visibleRange(index, a, b);
    const got = new Set(Array.from(index.ids.subarray(lo, hi)));
    // Brute force: a block is visible when it overlaps [a, b) (a zero-length one when inside).
    ids.forEach((id) => {
      const s = c.start[id], e = c.end[id];
      if (e > a && s < b) assert.ok(got.has(id), `block ${id} [${s}, ${e}) dropped from [${a}, ${b})`);
    });
    // And nothing far outside is kept: every kept block ends after a and starts before b.
    got.forEach((id) => assert.ok(c.start[id] < b, `block ${id} starts after the window`));
  }
  assert.equal(I.pathIndexOf(c, [-1, c.n, 0]).n, 1, "ids outside the columns are dropped");
  assert.equal(I.pathIndexOf(c, null).n, 0);
});

test("criticalPathLine lists every share, gap included, largest first, with percentText", () => {
  const cp = { blocks: [0, 1, 4], cycles: 30, shares: { epilogue: 5 / 30, filling: 10 / 30, wgmma: 10 / 30, gap: 5 / 30 } };
  assert.equal(R.criticalPathLine(cp), "Critical path: 3 blocks over 30 cycles: filling 33.3%, wgmma 33.3%, epilogue 16.7%, gap 16.7%");
  assert.equal(R.criticalPathLine(null), "");
  assert.equal(R.criticalPathLine({ blocks: [] }), "");
  const line = R.criticalPathLine(RUN.criticalPath);
  assert.match(line, new RegExp("^Critical path: " + RUN.criticalPath.blocks.length + " blocks over " + RUN.total + " cycles: filling 9\\d\\.\\d%"));
  // FA3 as built (docs/performance.md): filling first, no softmax on the path.
  const fa3 = KS.simulate(FA3, { gpu: "h100-sxm" });
  assert.match(R.criticalPathLine(fa3.criticalPath), /cycles: filling \d/);
  assert.doesNotMatch(R.criticalPathLine(fa3.criticalPath), /softmax/);
});

test("the URL hash keeps the highlight as critical=on; off writes nothing; a bad value is refused with a message", () => {
  const keys = [["model", "model"], ["stages", "stages"]];
  const ranges = (name) => ({ model: { options: ["gemm"] }, stages: { min: 1, max: 12 } })[name] || null;
  const s = { knobs: { model: "gemm", stages: 3 }, view: { t0Step: 0, t1Step: 9 }, cursor: null, markerA: null, markerB: null };
  assert.doesNotMatch(V.formatHash(s, keys), /critical/);
  const on = V.formatHash(Object.assign({}, s, { showCritical: true }), keys);
  assert.match(on, /(^|&)critical=on($|&)/);
  assert.equal(V.parseHash("#" + on, keys, ranges, "gemm").critical, true);
  assert.equal(V.parseHash("#stages=3", keys, ranges, "gemm").critical, false, "off by default");
  assert.equal(V.parseHash("#critical=off", keys, ranges, "gemm").critical, false);
  const bad = V.parseHash("#critical=maybe", keys, ranges, "gemm");
  assert.equal(bad.critical, false);
  assert.deepEqual(bad.messages, ["URL hash: ignored critical=maybe (expected on or off)."]);
});

test("result.criticalPath crosses the Worker boundary with the packed columns", () => {
  // The page's background run: no barrier events, the columns transferred, the rest cloned.
  const r = KS.simulate(GEMM, { gpu: "h100-sxm", problem: "4096x4096x4096" }, { events: false });
  assert.ok(r.criticalPath && r.criticalPath.blocks.length > 100);
  const p = R.packResult(r);
  const transfer = p.transfer;
  delete p.transfer;
  const cloned = structuredClone(p, { transfer });
  const back = R.unpackResult(cloned, KS);
  assert.deepEqual(back.criticalPath, KS.simulate(GEMM, { gpu: "h100-sxm", problem: "4096x4096x4096" }).criticalPath);
  assert.equal(back.columns.n, r.columns.n);
  // The same path over the unpacked columns: every id is a block of them.
  const index = I.pathIndexOf(back.columns, back.criticalPath.blocks);
  assert.equal(index.n, back.criticalPath.blocks.length);
});
