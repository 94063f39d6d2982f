// What-if knobs (docs/fit.md "What-if knobs"): the GEMM model's kPipeMmas stands for the
// collective's `K_PIPE_MMAS = 1` (sm90_mma_tma_gmma_ss_warpspecialized.hpp 264). At 0 the code's
// mma() counts its peeled first k-tile nowhere (480-502, 529-556) and its own program deadlocks,
// where the GEMM model draws K k-tiles per tile: the result must say so, with the program's words.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const fs = require("node:fs");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));
const load = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, "examples", name), "utf8"));

for (const name of ["sm90_gemm_pingpong.json", "sm90_gemm_cooperative.json"]) {
  test(`${name}: kPipeMmas 0 says the code's own program deadlocks there`, () => {
    const st = load(name);
    const r = KS.simulate(st, { kPipeMmas: 0 });
    assert.equal(r.model, "gemm");
    assert.equal(r.deadlock, null, "the GEMM model draws a schedule at 0");
    const said = r.messages.filter((m) => m.startsWith("what-if kPipeMmas 0 (the source's own: 1, line 264): the code's own program at these settings deadlocks ("));
    assert.equal(said.length, 1, JSON.stringify(r.messages));
    assert.match(said[0], /MainloopPipeline\.full\[0\] \(phase 1\) at line 533/);
    assert.match(said[0], /draws its own protocol there, not necessarily the code's \(--model program runs the code\)$/);
    assert.deepEqual(r.whatIf.knobs, ["kPipeMmas"]);
    assert.deepEqual(r.whatIf.source, [{ value: 1, line: 264 }]);
    assert.match(r.whatIf.deadlock, /^deadlock: no role can progress/);
    // The program model itself deadlocks at the same knobs: the message is its verdict.
    assert.notEqual(KS.simulate(st, Object.assign({}, r.knobs, { model: "program", schedule: undefined })).deadlock, null);
  });
}

test("no what-if message at the source's own K_PIPE_MMAS, at values the code runs, or when another source fact is changed", () => {
  const st = load("sm90_gemm_pingpong.json");
  for (const knobs of [{}, { kPipeMmas: 1 }, { kPipeMmas: 2 }, { kPipeMmas: 2, stages: 4 }]) {
    const r = KS.simulate(st, knobs);
    assert.equal(r.whatIf, undefined, JSON.stringify(knobs));
    assert.ok(!r.messages.some((m) => m.startsWith("what-if")), JSON.stringify(r.messages));
  }
  // The pingpong source with the cooperative schedule is no kernel of the code: nothing to compare.
  const other = KS.simulate(st, { kPipeMmas: 0, schedule: "cooperative" });
  assert.equal(other.whatIf, undefined);
  // Too large to check (more than WHAT_IF_CHECK_BLOCKS estimated blocks): no run, no message.
  const big = KS.simulate(st, { kPipeMmas: 0, outputTiles: 100, kTiles: 100 });
  assert.equal(big.whatIf, undefined);
});
