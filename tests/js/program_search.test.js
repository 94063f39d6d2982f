// The program model's two savings across runs (docs/programs.md "Performance", docs/performance.md
// "Stages needed to hide the load"): role discovery kept per structure and the knobs it read
// (sim/interpret/context.js discoverRoles), and the load-hiding search's probe order
// (sim/model_program.js searchStages). Neither may change a result: a run that reuses the roles
// equals a run on a fresh copy of the structure (which has none kept), and the search finds the
// smallest count on every monotone setting while trying a bounded number of counts.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const fs = require("node:fs");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));
const KI = require(path.join(ROOT, "sim", "interpret.js"));
const MP = require(path.join(ROOT, "sim", "model_program.js"));
const text = (name) => fs.readFileSync(path.join(ROOT, "examples", name), "utf8");

test("searchStages finds the smallest hiding count of every threshold, in at most 8 + 2 log2(top) probes", () => {
  for (const top of [1, 3, 8, 9, 12, 16, 17, 40, 64]) {
    for (let threshold = 1; threshold <= top + 1; threshold++) {
      const tried = [];
      const got = MP.searchStages(1, top, (S) => { tried.push(S); return S < threshold; });
      assert.equal(got, threshold <= top ? threshold : null, `top ${top}, threshold ${threshold}: tried ${tried}`);
      assert.ok(tried.length <= 8 + 2 * Math.ceil(Math.log2(Math.max(2, top))), `top ${top}, threshold ${threshold}: ${tried.length} probes`);
      assert.ok(tried.every((S) => S >= 1 && S <= top), `tried ${tried} outside 1..${top}`);
      assert.equal(new Set(tried).size, tried.length, `a count tried twice: ${tried}`);
    }
  }
  // Counts up to 8 are tried one by one; a load no count hides costs 11 probes, not 64.
  const tried = [];
  assert.equal(MP.searchStages(1, 64, (S) => { tried.push(S); return true; }), null);
  assert.deepEqual(tried, [1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64]);
  const small = [];
  assert.equal(MP.searchStages(1, 64, (S) => { small.push(S); return S < 3; }), 3);
  assert.deepEqual(small, [1, 2, 3]);
});

/** A program-model run on the structure object given, and on a fresh parse of the same text (no roles kept). */
function bothWays(structure, name, knobs) {
  const kept = KI.run(structure, knobs, KS.engine, { events: true });
  const fresh = KI.run(JSON.parse(text(name)), knobs, KS.engine, { events: true });
  return { kept, fresh };
}

test("a run that reuses the kept roles equals a run on a fresh copy of the structure", () => {
  const examples = ["sm90_gemm_pingpong.json", "sm90_gemm_cooperative.json", "fa3_fwd.json", "sm100_gemm.json",
    "sm100_fmha_fwd.json", "fa4_fwd_sm90.json", "fa4_fwd_sm100.json"];
  for (const name of examples) {
    const structure = JSON.parse(text(name));
    const base = KS.simulate(structure, { model: "program" }, { events: false }).knobs;
    // The same knobs, a latency the discovery does not read, then a stage count and a flag it may read.
    const settings = [base, Object.assign({}, base, { tmaLatency: (base.tmaLatency || 0) + 3 }),
      Object.assign({}, base, { stages: Math.max(1, (base.stages || 2) + 1) }),
      Object.assign({}, base, { flags: Object.assign({}, base.flags, { IntraWGOverlap: 0 }) }), base];
    for (const knobs of settings) {
      const { kept, fresh } = bothWays(structure, name, knobs);
      assert.ok(!kept.error, `${name}: ${kept.error}`);
      assert.deepEqual(kept.roles, fresh.roles, `${name}: roles`);
      assert.deepEqual(kept.flags, fresh.flags, `${name}: flags`);
      assert.deepEqual(Object.keys(kept.flags), Object.keys(fresh.flags), `${name}: the flags' order`);
      assert.deepEqual(kept.idle, fresh.idle, `${name}: idle bindings`);
      assert.deepEqual(kept.stopped, fresh.stopped, `${name}: stops`);
      assert.equal(kept.total, fresh.total, `${name}: total`);
      assert.equal(JSON.stringify(kept.columns), JSON.stringify(fresh.columns), `${name}: blocks`);
      assert.equal(JSON.stringify(kept.barrierEvents), JSON.stringify(fresh.barrierEvents), `${name}: barrier events`);
    }
  }
});

test("the kept roles follow the knobs the discovery reads: FA3's consumer warpgroups", () => {
  const structure = JSON.parse(text("fa3_fwd.json"));
  const base = KS.simulate(structure, { model: "program" }, { events: false }).knobs;
  const names = (wgs) => KI.run(structure, Object.assign({}, base, { consumerWGs: wgs }), KS.engine, { events: false }).roles.map((r) => r.name);
  const two = names(2), three = names(3);
  assert.equal(two.filter((n) => n.startsWith("Consumer")).length, 2);
  assert.equal(three.filter((n) => n.startsWith("Consumer")).length, 3);
  assert.deepEqual(names(2), two);
});
