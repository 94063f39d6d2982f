// Golden results: a digest of everything simulate() returns for 600 seeded random settings of the
// three models on four structures (every GEMM K_PIPE_MMAS up to deadlocks included), compared with
// tests/js/golden_results.json. A speed-up of the engine must leave every digest unchanged; a rule
// change that is meant to change schedules rewrites the file on purpose:
//   node tests/js/golden.test.js --write
// and the diff of that file shows which settings changed.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const fs = require("fs");
const path = require("path");
const KS = require(path.join(__dirname, "..", "..", "schedule.js"));
const { mulberry32, randInt } = require("./prng.js");

const GOLDEN = path.join(__dirname, "golden_results.json");
const EX = (name) => JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "examples", name), "utf8"));
const STRUCTURES = [["none", null], ["sm90_gemm_cooperative", EX("sm90_gemm_cooperative.json")],
  ["fa3_fwd", EX("fa3_fwd.json")], ["sm100_gemm", EX("sm100_gemm.json")]];
const SETTINGS = 600;

/** The i-th setting: [model knobs, structure name]. */
function settings() {
  const rand = mulberry32(20261130), ri = (a, b) => randInt(rand, a, b), flag = (p) => rand() < p;
  const out = [];
  for (let i = 0; i < SETTINGS; i++) {
    const model = ["gemm", "attention", "blackwell"][i % 3];
    const knobs = model === "gemm" ? { model, stages: ri(1, 6), outputTiles: ri(1, 6), kTiles: ri(1, 8), tmaLatency: ri(0, 9),
      wgmmaLatency: ri(1, 5), epilogueLatency: ri(0, 6), consumerWGs: ri(1, 2), kPipeMmas: ri(0, 4),
      schedule: flag(0.5) ? "pingpong" : "cooperative" }
      : model === "attention" ? { model, stages: ri(1, 4), outputTiles: ri(1, 4), kvBlocks: ri(1, 6), tmaLatency: ri(0, 8),
        softmaxLatency: ri(1, 6), intraWGOverlap: flag(0.5), interWGPingpong: flag(0.5), transposeV: flag(0.3), consumerWGs: ri(1, 2) }
      : { model, stages: ri(1, 5), outputTiles: ri(1, 5), kTiles: ri(1, 6), accStages: ri(1, 4), ctaPair: flag(0.5),
        loadC: flag(0.5), tmaLatency: ri(0, 8) };
    out.push([knobs, STRUCTURES[i % STRUCTURES.length][0]]);
  }
  return out;
}

/** 32-bit FNV-1a of a string, as 8 hex digits. */
function fnv(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** Digest of one result: blocks, lane blocks, barrier events, verdict, deadlock, total, barriers, messages, error. */
function digest(r) {
  return fnv(JSON.stringify({ blocks: r.blocks, laneBlocks: r.laneBlocks, events: r.barrierEvents, verdict: r.verdict,
    deadlock: r.deadlock, total: r.total, barriers: r.barriers, messages: r.messages, error: r.error }));
}

/** Digests of every setting, run twice in a row (a run must not depend on the one before it). */
function digests() {
  const byName = new Map(STRUCTURES);
  return settings().map(([knobs, name]) => {
    const first = digest(KS.simulate(byName.get(name), Object.assign({}, knobs)));
    const again = digest(KS.simulate(byName.get(name), Object.assign({}, knobs)));
    return { knobs, structure: name, digest: first, again };
  });
}

if (require.main === module && process.argv.includes("--write")) {
  const rows = digests().map(({ knobs, structure, digest: d }) => ({ knobs, structure, digest: d }));
  fs.writeFileSync(GOLDEN, JSON.stringify(rows, null, 0).replace(/\},\{"knobs"/g, "},\n{\"knobs\"") + "\n");
  console.log(`wrote ${rows.length} digests to ${GOLDEN}`);
} else {
  test("golden results: 600 random settings of the three models give the recorded results, run after run", () => {
    const want = JSON.parse(fs.readFileSync(GOLDEN, "utf8"));
    const got = digests();
    assert.equal(got.length, want.length);
    const changed = [];
    got.forEach((g, i) => {
      assert.deepEqual(g.knobs, want[i].knobs, "the settings themselves are the recorded ones");
      assert.equal(g.again, g.digest, `setting ${i} gave a different result when run again: ${JSON.stringify(g.knobs)}`);
      if (g.digest !== want[i].digest) changed.push(`${i} ${g.structure} ${JSON.stringify(g.knobs)}`);
    });
    assert.deepEqual(changed, [], "settings whose results changed (rewrite the file only for a deliberate rule change)");
    // The settings reach deadlocks and all three models.
    const results = settings().slice(0, 60).map(([knobs]) => KS.simulate(null, Object.assign({}, knobs)));
    assert.ok(results.some((r) => r.deadlock !== null), "some settings deadlock");
    assert.deepEqual([...new Set(results.map((r) => r.model))].sort(), ["attention", "blackwell", "gemm"]);
  });
}
