// Model choice (fitModel), view descriptions and the knob table of schedule.js: node --test tests/js/
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));

const readJson = (rel) => JSON.parse(fs.readFileSync(path.join(ROOT, rel), "utf8"));
const op = (kind, line, extra) => Object.assign({ op: kind, line, end_line: line, text: kind + "@" + line }, extra || {});

/** A warp-specialized GEMM mainloop structure (own test data), with overrides. */
function mainloop(extra) {
  return Object.assign({
    schema_version: 2, language: "cpp", source: { path: "m.hpp" }, kind: "mainloop", arch: "sm90",
    pipelines: [{ alias: "MainloopPipeline", line: 5 }],
    functions: [
      { name: "load", role: "producer", line: 10, ops: [op("producer_acquire", 11, { pipeline: "MainloopPipeline" }),
        op("tma_load", 12, { pipeline: "MainloopPipeline", operand: "A" })] },
      { name: "mma", role: "consumer", line: 20, ops: [op("consumer_wait", 21, { pipeline: "MainloopPipeline" }),
        op("mma", 22, { pipeline: "MainloopPipeline", unit: "wgmma" }), op("consumer_release", 23, { pipeline: "MainloopPipeline" })] }
    ]
  }, extra || {});
}

test("fitModel: GEMM mainloops fit gemm; without a kernel layer the page states its assumptions", () => {
  const fit = KS.fitModel(mainloop());
  assert.equal(fit.model, "gemm");
  assert.match(fit.assumptions.join(), /no kernel layer was parsed/);
  const withLayer = KS.fitModel(mainloop({ kernel_layer: { schedule: "pingpong", calls: [] } }));
  assert.deepEqual(withLayer.assumptions, []);
  for (const rel of ["examples/sm90_gemm_pingpong.json", "examples/sm90_gemm_cooperative.json"]) {
    assert.equal(KS.fitModel(readJson(rel)).model, "gemm", rel);
  }
  assert.equal(KS.fitModel(readJson("examples/fa3_fwd.json")).model, "attention");
  assert.deepEqual(KS.fitModel(readJson("examples/fa3_fwd.json")).assumptions, []);
  // Another attention kernel (FA4's CuTe DSL forward) runs FA3's program: the page says so.
  assert.match(KS.fitModel(readJson("examples/fa4_fwd_sm90.json")).assumptions.join(), /FlashAttention-3's forward protocol/);
});

test("fitModel: SM100 structures get the Blackwell model, never an SM90 page", () => {
  for (const st of [mainloop({ arch: "sm100" }),
    mainloop({ arch: "unknown", functions: mainloop().functions.map((f) => f.name !== "mma" ? f : Object.assign({}, f, {
      ops: [op("consumer_wait", 21, { pipeline: "MainloopPipeline" }), op("mma", 22, { unit: "umma" }),
        op("consumer_release", 23, { pipeline: "MainloopPipeline" })] })) })]) {
    const r = KS.simulate(st, {});
    assert.equal(r.model, "blackwell");
    assert.match(r.fit.reason, /SM100 \(Blackwell\)/);
    assert.ok(!r.blocks.some((b) => b.kind === "wgmma"));
  }
});

test("fitModel: SM120 (GeForce Blackwell: warp-level MMA, no TMEM/UMMA) gets no model, never the SM100 or SM90 page", () => {
  for (const arch of ["sm120", "sm121"]) {
    const st = mainloop({ arch, functions: mainloop().functions.map((f) => f.name !== "mma" ? f : Object.assign({}, f, {
      ops: f.ops.map((o) => o.op === "mma" ? Object.assign({}, o, { unit: "mma" }) : o) })) });
    const fit = KS.fitModel(st);
    assert.equal(fit.model, null, arch);
    assert.match(fit.reason, /no TMEM or UMMA/);
    const r = KS.simulate(st, {});
    assert.equal(r.model, null);
    assert.equal(r.blocks.length, 0);
  }
  assert.equal(KS.fitModel(mainloop({ arch: "sm103" })).model, "blackwell");
});

test("fitModel: SM100 attention is recognised by its structure (two chained tiled MMAs), not by operand names", () => {
  const twoMmas = (a, b) => mainloop({ arch: "sm100", functions: mainloop().functions.map((f) => f.name !== "mma" ? f : Object.assign({}, f, {
    ops: [f.ops[0], op("mma", 22, { unit: "umma", receiver: a }), op("mma", 24, { unit: "umma", receiver: b }), f.ops[2]] })) });
  // Latent attention's operands are not Q/K/V: the two GEMMs decide (77's sm100_fmha_mla_tma_warpspecialized.hpp).
  for (const [a, b] of [["mma_qk", "mma_pv_ts"], ["tiled_mma_qk", "tiled_mma_pv"], ["gemm_Si[0]", "pv_mma_op"]]) {
    const fit = KS.fitModel(twoMmas(a, b));
    assert.equal(fit.model, null, a);
    assert.match(fit.reason, /on 2 tiled MMAs .*chained GEMMs.*not modelled on SM100 yet/);
  }
  // One tiled MMA issued twice with different arguments (.with(...)) is one path: a GEMM.
  assert.equal(KS.fitModel(twoMmas("tiled_mma.with(accumulate, Scaler{})", "tiled_mma.with(accumulate, ZeroScaler{})")).model, "blackwell");
  // Operand names do not decide: a GEMM whose loads are called Q and K is still a GEMM.
  const named = mainloop({ arch: "sm100", buffers: [{ name: "smem_q", operand: "Q" }, { name: "smem_k", operand: "K" }] });
  assert.equal(KS.fitModel(named).model, "blackwell");
});

test("fitModel: an arch below sm100 is never Blackwell; warp-role branches alone do not make it so", () => {
  // A CuTe DSL Hopper kernel has warp-index role branches (kernel_layer.warp_roles) too.
  const roles = { warp_roles: [{ name: "producer", warps: [0, 1, 2, 3], line: 585 }, { name: "consumer", warps: [4], line: 609 }], calls: [] };
  assert.equal(KS.fitModel(mainloop({ kernel_layer: roles })).model, "gemm");
  assert.equal(KS.fitModel(mainloop({ arch: "unknown", kernel_layer: roles })).model, "gemm");
  // FA4's flash_fwd_sm90.py (parsed facts): pipeline objects pipeline_k / pipeline_v are separate K and V rings.
  const fa4 = readJson("examples/fa4_fwd_sm90.json");
  assert.equal(KS.fitModel(fa4).model, "attention");
  const lanes = KS.simulate(fa4, {}).lanes.map((l) => l.id);
  assert.ok(lanes.includes("k_stage0") && lanes.includes("v_stage0") && !lanes.some((id) => /^kv_stage/.test(id)), lanes.join());
});

test("fitModel: no pipeline op, no loads, no MMA, several pipelines, one non-specialized function: no model, with the reason", () => {
  const cases = [
    [{ functions: [{ name: "f", role: "other", ops: [] }] }, /no pipeline operation/],
    [mainloop({ kind: "kernel_layer" }), /only a kernel layer/],
    [mainloop({ functions: [mainloop().functions[1]] }), /no producer function loads/],
    [mainloop({ functions: [mainloop().functions[0], { name: "store", role: "consumer", ops: [op("consumer_wait", 30)] }] }), /no MMA was parsed/],
    // MMAs in a helper no consumer role is seen to call: said, with the helper's name and line.
    [mainloop({ functions: [mainloop().functions[0], { name: "store", role: "consumer", ops: [op("consumer_wait", 30, { pipeline: "MainloopPipeline" })] },
      { name: "gemm_helper", role: "other", line: 40, ops: [op("mma", 41)] }] }), /no consumer-role function issues an MMA \(MMAs were parsed in gemm_helper\(\) at line 40/],
    // A wait on a receiver the parse did not resolve (docs/fit.md step 7, UNRESOLVED_STAGE_OP).
    [mainloop({ functions: [mainloop().functions[0], { name: "mma", role: "consumer", ops: [op("consumer_wait", 30, { receiver: "pipes" }), op("mma", 31)] }] }),
      /mma\(\)'s consumer_wait \(line 30\) on `pipes` is on no pipeline the parse resolved/],
    // TMA stores and no load: an epilogue collective; stores beside a loading producer are not one
    // (FA4's flash_fwd_mla_sm100.py, whose MMAs the front end does not see).
    [mainloop({ functions: [{ name: "store", role: "consumer", ops: [op("consumer_wait", 29), op("tma_store", 30)] }] }), /an epilogue collective \(TMA stores, no MMA\)/],
    [mainloop({ functions: [mainloop().functions[0], { name: "store", role: "consumer", ops: [op("tma_store", 30)] }] }), /no MMA was parsed/],
    [mainloop({ functions: [mainloop().functions[0], { name: "mma", role: "consumer", ops: [
      op("consumer_wait", 21, { pipeline: "MainloopPipeline" }), op("consumer_wait", 24, { pipeline: "PipelineDO" }), op("mma", 25)] }] }), /2 pipelines/],
    [mainloop({ functions: [{ name: "operator()", role: "both", ops: [op("tma_load", 3, { pipeline: "P" }), op("consumer_wait", 4, { pipeline: "P" }), op("mma", 5)] }] }),
      /not warp-specialized/]
  ];
  for (const [st, reason] of cases) {
    const fit = KS.fitModel(st);
    assert.equal(fit.model, null, String(reason));
    assert.match(fit.reason, reason);
  }
});

test("cp.async (PipelineAsync) mainloops are not labelled TMA", () => {
  const st = mainloop();
  st.functions[0].ops[1] = op("cp_async", 12, { pipeline: "MainloopPipeline", operand: "A" });
  const r = KS.simulate(st, {});
  assert.equal(r.model, "gemm");
  assert.equal(r.view.copy, "cp.async");
  assert.equal(r.view.kinds.issue.name, "cp.async issue");
  assert.doesNotMatch(JSON.stringify(r.view.legend), /TMA/);
  assert.match(r.fit.assumptions.join(), /cp\.async/);
  assert.equal(KS.simulate(mainloop(), {}).view.kinds.issue.name, "TMA issue");
  // The latency knob says cp.async too (the page's slider and the CLI's help read knobsFor).
  const lat = KS.knobsFor("gemm", st).find((s) => s.name === "tmaLatency");
  assert.equal(lat.short, "cp.async fill");
  assert.doesNotMatch(lat.label + lat.doc, /TMA/);
  assert.equal(KS.knobsFor("gemm", mainloop()).find((s) => s.name === "tmaLatency").short, "TMA fill");
});

test("every result carries its model's view: kinds, legend, wait reasons and verdict lines cover the blocks", () => {
  for (const [structure, knobs] of [[null, {}], [null, { schedule: "cooperative" }], [readJson("examples/fa3_fwd.json"), {}],
    [null, { model: "attention", transposeV: true }],
    [readJson("tests/fixtures/sm100_gemm_pair.parsed.json"), { ctaPair: true, loadC: true, clcLatency: 1 }]]) {
    const r = KS.simulate(structure, knobs);
    const view = r.view;
    const kinds = new Set(r.blocks.map((b) => b.kind));
    for (const kind of kinds) assert.ok(view.kinds[kind] && view.kinds[kind].name, kind);
    for (const kind of KS.MODELS[r.model].blockKinds) assert.ok(view.legend.some((e) => e.kind === kind), "legend " + kind);
    const reasons = view.waitReasons.map((w) => w.reason);
    assert.deepEqual(reasons, KS.MODELS[r.model].waitReasons);
    for (const b of r.blocks) if (b.kind === "wait") assert.ok(reasons.includes(b.reason), b.reason);
    for (const line of view.verdict) {
      if (line.field) assert.ok(line.field in r.verdict, line.field);
      if (line.template) for (const m of line.template.match(/\{(\w+)\}/g)) assert.ok(m.slice(1, -1) in r.verdict, m);
    }
    for (const group of view.subLaneGroups) assert.ok(r.lanes.some((l) => l.group === group), group);
  }
});

test("the knob table is the one source of flags: every model knob has a row, every row a model knob", () => {
  const table = KS.KNOB_TABLE;
  assert.deepEqual(table.models, KS.MODEL_NAMES);
  const rows = new Map(table.knobs.map((k) => [k.name, k]));
  assert.equal(rows.size, table.knobs.length, "unique names");
  const flags = new Set(table.knobs.map((k) => k.flag));
  assert.equal(flags.size, table.knobs.length, "unique flags");
  const modelKnobs = new Set(["model"]);
  for (const name of KS.MODEL_NAMES) {
    for (const spec of KS.knobsFor(name)) {
      modelKnobs.add(spec.name);
      const row = rows.get(spec.name);
      assert.ok(row, spec.name + " has a flag");
      if (spec.type === "choice") assert.deepEqual(row.choices, spec.choices, spec.name);
      assert.equal(row.onOff === true, spec.type === "flag", spec.name);
      assert.equal(typeof spec.short, "string");
      if (spec.type === "range") assert.ok(spec.sliderMax >= spec.min && spec.sliderMax <= spec.max, spec.name);
    }
  }
  assert.deepEqual([...rows.keys()].filter((n) => !modelKnobs.has(n)), []);
  assert.deepEqual(rows.get("model").choices, KS.MODEL_NAMES);
});

test("barriers and barrierEvents follow CONTRACT.md; above the event limit they are omitted with a message", () => {
  const r = KS.simulate(null, { outputTiles: 2, kTiles: 3 });
  for (const b of r.barriers) {
    assert.deepEqual(Object.keys(b).sort(), ["expected", "id", "kind", "lines", "name", "stage"]);
    assert.ok(Array.isArray(b.lines.wait) && Array.isArray(b.lines.arrive));
  }
  assert.ok(r.barriers.some((b) => b.kind === "full") && r.barriers.some((b) => b.kind === "empty") && r.barriers.some((b) => b.kind === "order"));
  for (const e of r.barrierEvents) {
    assert.deepEqual(Object.keys(e).sort(), ["barrier", "lane", "phase", "t", "type"]);
    assert.ok(e.phase === 0 || e.phase === 1);
  }
  // Replaying the events gives each barrier's phase bit: it flips on every complete.
  const phase = new Map();
  for (const e of r.barrierEvents) {
    if (e.type === "complete") phase.set(e.barrier, (phase.get(e.barrier) || 0) ^ 1);
    assert.equal(e.phase, phase.get(e.barrier) || 0, JSON.stringify(e));
  }
  const big = KS.simulate(null, { outputTiles: 300, kTiles: 300 });
  assert.equal(big.barrierEventsOmitted, true);
  assert.deepEqual(big.barrierEvents, []);
  assert.match(big.messages.join(), /barrier events omitted/);
  assert.equal(big.barrierEventsSkipped, false);
});

test("simulate(..., {events: false}) skips the barrier events and changes nothing else", () => {
  const cases = [[null, { outputTiles: 3, kTiles: 5 }], [null, { outputTiles: 4, kTiles: 3, schedule: "cooperative" }],
    [null, { model: "attention", outputTiles: 2, kvBlocks: 3 }], [null, { model: "blackwell", outputTiles: 3, kTiles: 4 }]];
  for (const [structure, knobs] of cases) {
    const full = KS.simulate(structure, Object.assign({}, knobs));
    const skipped = KS.simulate(structure, Object.assign({}, knobs), { events: false });
    assert.ok(full.barrierEvents.length > 0, JSON.stringify(knobs));
    assert.equal(full.barrierEventsSkipped, false);
    assert.equal(skipped.barrierEventsSkipped, true);
    assert.equal(skipped.barrierEventsOmitted, false);
    assert.deepEqual(skipped.barrierEvents, []);
    assert.equal(skipped.barrierEventColumns.n, 0);
    // Same blocks, verdict, barriers and messages: only the events differ.
    const rest = (r) => JSON.stringify({ b: r.blocks, v: r.verdict, bars: r.barriers, m: r.messages, d: r.deadlock, t: r.total });
    assert.equal(rest(skipped), rest(full), JSON.stringify(knobs));
  }
  // A run too large for events says omitted, not skipped, either way; the next run records again.
  const big = KS.simulate(null, { outputTiles: 300, kTiles: 300 }, { events: false });
  assert.equal(big.barrierEventsOmitted, true);
  assert.equal(big.barrierEventsSkipped, false);
  assert.ok(KS.simulate(null, { outputTiles: 2, kTiles: 2 }).barrierEvents.length > 0);
});

test("schema v2 and cute-dsl structures: pipeline identity is op.object || op.pipeline", () => {
  const dsl = mainloop({ language: "cute-dsl", pipelines: [{ alias: "ab_pipeline", line: 5 }],
    pipeline_objects: [{ name: "ab_pipeline", alias: "ab_pipeline", class: "PipelineTmaAsync", stages: "4", line: 5, kind: "created" }] });
  for (const fn of dsl.functions) for (const o of fn.ops) { o.pipeline = "ab_pipeline"; o.object = "ab_pipeline"; }
  const r = KS.simulate(dsl, {});
  assert.equal(r.model, "gemm");
  assert.equal(r.deadlock, null);
  assert.ok(r.total > 0);
  // No separate tail release (the DSL loop): assumed after the loop, and said.
  assert.match(r.messages.join("\n"), /no release after the mainloop \(mma_tail\) was found/);
  // Two objects of one alias are two pipelines for the fit (the identity is the object).
  const two = JSON.parse(JSON.stringify(dsl));
  two.functions[1].ops[0].object = "other_pipeline";
  assert.match(KS.fitModel(two).reason, /2 pipelines \(ab_pipeline[^;]*; other_pipeline/);
});

test("a literal stage count the parse read (StageCount<N> of --params-from) is the stages knob's source", () => {
  const st = mainloop({ stages: { value: 6, line: 42, source: "StageCount", text: "StageCount<6>", file: "gemm.cu" } });
  const spec = KS.knobsFor("gemm", st).find((s) => s.name === "stages");
  assert.equal(spec.default, 6);
  assert.deepEqual(spec.source, { value: 6, line: 42, path: "gemm.cu" });
  assert.equal(KS.simulate(st, {}).knobs.stages, 6);
  assert.equal(KS.simulate(st, { stages: 3 }).knobs.stages, 3, "a knob still overrides");
  // "auto" and a template parameter are not literal: the model's default stays.
  const auto = mainloop({ stages: { value: "auto", line: 42, source: "StageCountAuto", text: "StageCountAuto" } });
  assert.equal(KS.simulate(auto, {}).knobs.stages, KS.simulate(mainloop(), {}).knobs.stages);
});

test("a GEMM fit says when the MMA function waits on its WGMMAs more than once (the model draws one wait per k-tile)", () => {
  const plain = KS.fitModel(mainloop());
  assert.ok(!plain.notModelled.some((t) => /waits on its WGMMAs/.test(t)));
  const m = mainloop();
  m.functions[1].ops = [op("consumer_wait", 21, { pipeline: "MainloopPipeline" }), op("mma", 22, { pipeline: "MainloopPipeline", unit: "wgmma" }),
    op("warpgroup_wait", 23), op("mma", 24, { pipeline: "MainloopPipeline", unit: "wgmma" }), op("warpgroup_wait", 25),
    op("consumer_release", 26, { pipeline: "MainloopPipeline" })];
  const fit = KS.fitModel(m);
  assert.equal(fit.model, "gemm");
  assert.ok(fit.notModelled.some((t) => /^mma\(\) waits on its WGMMAs 2 times \(warpgroup_wait, lines 23, 25\)/.test(t)), fit.notModelled.join("\n"));
});
