// result.criticalPath with knobs.gpu (docs/performance.md "The critical path"): the chain of blocks
// that sets the total, walked back through `after` from the block ending last.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const KS = require(path.join(__dirname, "..", "..", "schedule.js"));
const GEMM = require(path.join(__dirname, "..", "..", "examples", "sm90_gemm_pingpong.json"));

/** Every step of the path is an `after` edge, and the path ends where the run ends. */
function assertChain(r) {
  const cp = r.criticalPath;
  const blocks = KS.blocksOf(r.columns);
  for (let i = 1; i < cp.blocks.length; i++) {
    assert.ok(blocks[cp.blocks[i]].after.includes(cp.blocks[i - 1]), "step " + i + " follows an after edge");
  }
  assert.equal(blocks[cp.blocks[cp.blocks.length - 1]].end, r.total);
  assert.equal(cp.cycles, r.total);
  const onPath = Object.values(cp.byKind).reduce((a, b) => a + b, 0);
  assert.equal(onPath + cp.gapCycles, cp.cycles, "blocks plus gaps cover the path");
}

test("hand-built timeline: the walk takes the predecessor ending last and counts gaps", () => {
  const lanes = [{ id: "a" }, { id: "b" }];
  const tl = new KS.Timeline(lanes, false, 0);
  const lines = [1];
  const a0 = tl.add(0, "filling", 0, 10, 0, 0, 0, null, lines, [], 0);
  const b0 = tl.add(1, "issue", 0, 4, 0, 0, 0, null, lines, [], 0);
  const a1 = tl.add(0, "wgmma", 10, 20, 0, 0, 0, null, lines, [b0, a0], 2);
  tl.add(1, "epilogue", 25, 30, 0, null, null, null, lines, [a1], 1);
  tl.add(1, "issue", 5, 6, 0, 1, 1, null, lines, [b0], 1); // off the path
  const c = tl.finalize();
  const cp = KS.criticalPath(c);
  // ids: lane a: a0 0, a1 1; lane b by start: b0 2, (5..6) 3, epilogue 4.
  assert.deepEqual(cp.blocks, [0, 1, 4]);
  assert.deepEqual(cp.byKind, { filling: 10, wgmma: 10, epilogue: 5 });
  assert.equal(cp.gapCycles, 5);
  assert.deepEqual(cp.shares, { epilogue: 5 / 30, filling: 10 / 30, wgmma: 10 / 30, gap: 5 / 30 });
  assert.equal(cp.top, "filling", "ties go to the first kind in name order");
  assert.equal(KS.criticalPath(KS.emptyColumns(["a"])), null);
});

test("2 stages and a long TMA latency: the path runs through the TMA fills", () => {
  const r = KS.simulate(GEMM, { gpu: "h100-sxm", stages: 2, outputTiles: 2, kTiles: 8, memLatency: 4000 });
  assert.equal(r.error, null);
  assert.equal(r.bottleneck, "tma-latency");
  assertChain(r);
  assert.equal(r.criticalPath.top, "filling");
  assert.ok(r.criticalPath.shares.filling > 0.9, JSON.stringify(r.criticalPath.shares));
  // Of this CTA's 16 fills (2 tiles x 8 k-tiles) only k-tile 1 of each tile is off the path: it
  // lands while k-tile 0's fill, issued one step earlier into the other stage, is still in flight.
  // Every later fill waits for a WGMMA to free its stage, so the chain alternates fill and WGMMA.
  const on = new Set(r.criticalPath.blocks);
  const off = KS.blocksOf(r.columns).filter((b) => b.kind === "filling" && !on.has(b.id)).map((b) => [b.tile, b.k]);
  assert.deepEqual(off, [[0, 1], [1, 1]]);
  assert.match(r.units.bottleneckWhy, /; critical path: \d+ blocks, filling 9\d%/);
});

test("8 stages and a long WGMMA latency: the path runs through the tensor core", () => {
  const r = KS.simulate(GEMM, { gpu: "h100-sxm", stages: 8, outputTiles: 2, kTiles: 8, wgmmaLatency: 4000 });
  assert.equal(r.error, null);
  assert.equal(r.bottleneck, "tensor-core");
  assertChain(r);
  assert.equal(r.criticalPath.top, "wgmma");
  assert.ok(r.criticalPath.shares.wgmma > 0.9, JSON.stringify(r.criticalPath.shares));
  assert.match(r.units.bottleneckWhy, /critical path: \d+ blocks, wgmma 9\d%/);
});

test("the path is deterministic, and absent without a gpu or on a deadlock", () => {
  const knobs = { gpu: "h100-sxm", problem: "4096x4096x4096" };
  assert.deepEqual(KS.simulate(GEMM, knobs).criticalPath, KS.simulate(GEMM, knobs).criticalPath);
  assert.equal("criticalPath" in KS.simulate(GEMM, {}), false, "steps mode is unchanged");
  const dead = KS.simulate(GEMM, { gpu: "h100-sxm", stages: 1, outputTiles: 2, kTiles: 8 });
  assert.notEqual(dead.deadlock, null);
  assert.equal(dead.criticalPath, null);
});
