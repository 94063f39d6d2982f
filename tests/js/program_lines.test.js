// The program model's blocks carry source refs ({path, line, end_line, text, op}) as the
// hand-written models' do (docs/programs.md "Source refs"): each names the file of the function
// that ran the step (a composed collective's own file, the kernel layer's, the mainloop's).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const fs = require("node:fs");

const ROOT = path.join(__dirname, "..", "..");
const S = require(path.join(ROOT, "schedule.js"));
const load = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, "examples", name), "utf8"));

function firstOf(r, lane, kind) {
  return r.blocks.find((b) => String(b.lane) === lane && (!kind || b.kind === kind));
}

test("77's blocks name the file of the function that ran them", () => {
  const st = load("sm100_fmha_fwd.json");
  const r = S.simulate(st, { model: "program", outputTiles: 1, kvBlocks: 2 });
  const load0 = firstOf(r, "role:Load", "issue");
  assert.deepEqual(load0.lines.map((l) => [l.path, l.line, l.op]), [["77_blackwell_fmha/collective/sm100_fmha_load_tma_warpspecialized.hpp", 245, "tma_load"]]);
  const wait = firstOf(r, "role:MMA", "wait");
  assert.equal(wait.lines[0].path, st.source.path);
  assert.equal(wait.lines[0].text, "pipeline_q.consumer_wait(pipeline_q_consumer_state);");
  const store = firstOf(r, "role:Epilogue", "store");
  assert.equal(store.lines[0].path, "77_blackwell_fmha/collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp");
  // every block of every lane has refs with a path and a line number
  for (const b of r.blocks) for (const l of b.lines) assert.ok(typeof l.path === "string" && typeof l.line === "number", JSON.stringify([b.lane, b.kind, l]));
});

test("a kernel layer's own steps name the kernel layer's file", () => {
  const st = load("sm90_gemm_pingpong.json");
  const r = S.simulate(st, { model: "program", outputTiles: 2, kTiles: 2 });
  const files = new Set(r.blocks.flatMap((b) => b.lines.map((l) => l.path)));
  assert.ok(files.has(st.source.path) && files.has(st.kernel_layer.source.path), [...files].join(", "));
  const order = r.blocks.find((b) => b.kind === "wait" && b.reason === "order");
  assert.ok(order && order.lines.every((l) => l.path === st.kernel_layer.source.path), JSON.stringify(order && order.lines));
});
