// Tests of the result columns (docs/simulator.md "Result columns"): the layout the page draws from,
// the lazy v1 blocks built from it, and the docs' table naming exactly the fields that exist.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const KS = require("../../schedule.js");
const { mulberry32, randInt } = require("./prng.js");

const NULL_INT = -2147483648;

/** Knob settings covering every model and its lanes (sub-lanes, operands, CTA pairs, deadlock). */
const CASES = [
  {},
  { schedule: "cooperative", stages: 3, outputTiles: 3, kTiles: 5 },
  { consumerWGs: 1, outputTiles: 2, kTiles: 4, tmaLatency: 0 },
  { model: "attention" },
  { model: "attention", intraWGOverlap: true, interWGPingpong: true, outputTiles: 3, kvBlocks: 4 },
  { model: "attention", transposeV: true },
  { model: "blackwell" },
  { model: "blackwell", ctaPair: true, accStages: 1 },
];

/** docs/simulator.md, where the result columns are documented. */
const SIMULATOR_DOC = path.join(__dirname, "..", "..", "docs", "simulator.md");

/** The docs' "Result columns" table: its field names, in order. */
function documentedFields() {
  const doc = fs.readFileSync(SIMULATOR_DOC, "utf8");
  const section = doc.split("### Result columns")[1];
  assert.ok(section, "docs/simulator.md has a 'Result columns' section");
  const table = section.split("\n\n").find((part) => part.startsWith("| field |"));
  assert.ok(table, "the section has a field table");
  const names = [];
  table.split("\n").slice(2).forEach((row) => {
    const cell = row.split("|")[1];
    for (const m of cell.matchAll(/`([A-Za-z]+)`/g)) names.push(m[1]);
  });
  return names;
}

test("the docs' result-columns table names exactly the fields of result.columns", () => {
  const r = KS.simulate(null, { model: "attention" });
  const documented = documentedFields();
  // withOperand is documented inside the operand row
  assert.match(fs.readFileSync(SIMULATOR_DOC, "utf8").split("### Result columns")[1], /`withOperand`/);
  const tables = ["kinds", "reasons", "linesTable", "operands", "withOperand"];
  assert.deepEqual(new Set(Object.keys(r.columns)), new Set(documented.concat(tables)));
});

test("columns are non-enumerable; blocks and laneBlocks are built from them on first read", () => {
  for (const knobs of CASES) {
    const r = KS.simulate(null, knobs);
    assert.equal(r.error, null, JSON.stringify(knobs));
    const c = r.columns;
    assert.ok(!Object.keys(r).includes("columns"), "columns is not enumerable");
    assert.ok(!JSON.stringify(r).includes("afterList"), "JSON has no columns");
    assert.equal(r.blocks.length, c.n);
    assert.equal(r.blocks, r.blocks, "built once");
    for (let id = 0; id < c.n; id++) {
      const b = r.blocks[id];
      assert.deepEqual(KS.blockAt(c, id), b);
      assert.equal(b.id, id);
      assert.equal(b.lane, c.lanes[c.lane[id]]);
      assert.equal(b.kind, c.kinds[c.kind[id]]);
      assert.equal(b.reason, c.reasons[c.reason[id]]);
      assert.equal(b.lines, c.linesTable[c.lines[id]]);
      assert.equal(b.start, c.start[id]);
      assert.equal(b.end, c.end[id]);
      for (const f of ["tile", "k", "stage"]) assert.equal(b[f], c[f][id] === NULL_INT ? null : c[f][id], f);
      assert.deepEqual(b.after, Array.from(c.afterList.subarray(c.afterAt[id], c.afterAt[id + 1])));
      if (c.withOperand || c.operand[id] !== 0) {
        assert.equal(b.operand, c.operand[id] === 0 ? null : c.operands[c.operand[id] - 1]);
      } else {
        assert.ok(!("operand" in b));
      }
    }
  }
});

test("lane li's blocks are the contiguous ids laneStart[li]..laneStart[li+1]-1, in start order", () => {
  const rand = mulberry32(7);
  const runs = CASES.slice();
  for (let i = 0; i < 12; i++) {
    runs.push({ stages: randInt(rand, 1, 6), outputTiles: randInt(rand, 1, 5), kTiles: randInt(rand, 1, 7),
      tmaLatency: randInt(rand, 0, 9), schedule: rand() < 0.5 ? "pingpong" : "cooperative" });
    runs.push({ model: "blackwell", stages: randInt(rand, 1, 5), outputTiles: randInt(rand, 1, 5), kTiles: randInt(rand, 1, 6),
      accStages: randInt(rand, 1, 4), ctaPair: rand() < 0.5 });
  }
  for (const knobs of runs) {
    const r = KS.simulate(null, knobs);
    const c = r.columns;
    assert.deepEqual(c.lanes, r.lanes.map((lane) => lane.id));
    assert.equal(c.laneStart[0], 0);
    assert.equal(c.laneStart[c.lanes.length], c.n);
    for (let li = 0; li < c.lanes.length; li++) {
      const ids = r.laneBlocks[c.lanes[li]];
      assert.deepEqual(ids, Array.from({ length: c.laneStart[li + 1] - c.laneStart[li] }, (_, i) => c.laneStart[li] + i));
      for (let id = c.laneStart[li]; id < c.laneStart[li + 1]; id++) {
        assert.equal(c.lane[id], li);
        if (id > c.laneStart[li]) {
          assert.ok(c.start[id] >= c.start[id - 1], "start order");
          assert.ok(c.end[id] >= c.end[id - 1], "ends sorted (no overlap)");
        }
      }
    }
  }
});

test("attachColumns gives a rebuilt result lazy blocks; failures and no-model results have empty columns", () => {
  const r = KS.simulate(null, { outputTiles: 2, kTiles: 3 });
  const copy = KS.attachColumns({ total: r.total }, r.columns);
  assert.deepEqual(copy.blocks, r.blocks);
  assert.deepEqual(copy.laneBlocks, r.laneBlocks);
  copy.blocks = [];
  assert.deepEqual(copy.blocks, [], "the getter can be replaced by a plain value");
  const failed = KS.simulate(null, { outputTiles: 4096, kTiles: 4096 });
  assert.ok(failed.error);
  assert.equal(failed.columns.n, 0);
  assert.equal(failed.columns.laneStart.length, failed.lanes.length + 1);
  const none = KS.simulate({ functions: [] }, undefined);
  assert.equal(none.model, null);
  assert.equal(none.columns.n, 0);
  assert.deepEqual(none.blocks, []);
});

test("Timeline: handles renumber to ids; a lane appended out of start order is still delivered in start order", () => {
  const lanes = [{ id: "a" }, { id: "b" }];
  const tl = new KS.Timeline(lanes, false, 0);
  const lines = [7];
  const b0 = tl.add(1, "issue", 5, 6, 0, 0, 0, null, lines, [], 0);
  const a0 = tl.add(0, "wgmma", 2, 4, 0, 1, null, null, lines, [b0], 1);
  const b1 = tl.add(1, "issue", 1, 2, 1, null, null, "tma", lines, [a0, b0], 2); // starts before b0
  assert.equal(tl.endOf(b1), 2);
  assert.throws(() => tl.add(0, "wgmma", 4, 5, 0.5, 0, 0, null, lines, [], 0), /integers or null/);
  const c = tl.finalize();
  assert.deepEqual(Array.from(c.laneStart), [0, 1, 3]);
  // ids: a0 -> 0; lane b sorted by start: b1 -> 1, b0 -> 2
  assert.deepEqual(Array.from(c.start), [2, 1, 5]);
  const blocks = KS.blocksOf(c);
  assert.deepEqual(blocks.map((b) => [b.lane, b.kind, b.tile, b.k, b.stage, b.reason, b.after]), [
    ["a", "wgmma", 0, 1, null, null, [2]],
    ["b", "issue", 1, null, null, "tma", [0, 2]],
    ["b", "issue", 0, 0, 0, null, []],
  ]);
  // A finalized timeline has handed its lanes' segments on (to the next run): it takes no more blocks.
  assert.throws(() => tl.add(0, "wgmma", 6, 7, 0, 0, 0, null, lines, [], 0), TypeError);
});

test("Timeline: a lane segment reused from an earlier run starts empty", () => {
  const lanes = [{ id: "a" }];
  const first = new KS.Timeline(lanes, false, 0);
  for (let i = 0; i < 50; i++) first.add(0, "wgmma", i, i + 1, 0, i, 0, null, [1], i > 0 ? [((i - 1) << 10)] : [], i > 0 ? 1 : 0);
  first.finalize();
  const second = new KS.Timeline(lanes, false, 0);
  second.add(0, "issue", 3, 4, 1, 2, 0, null, [2], [], 0);
  const c = second.finalize();
  assert.equal(c.n, 1);
  assert.deepEqual(KS.blocksOf(c).map((b) => [b.kind, b.start, b.end, b.tile, b.k, b.after]), [["issue", 3, 4, 1, 2, []]]);
  assert.deepEqual(Array.from(c.afterAt), [0, 0]);
});
