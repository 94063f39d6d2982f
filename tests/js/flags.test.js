// The program model's compile-time flags set by name (docs/waveform.md "Compile-time flags"): one
// validation (sim/common.js normalizeFlagValues), the verdict's text with each value, the URL
// hash's flag.NAME keys and a pinned run's, the model that takes them, and the model the page and
// `node schedule.js predict` start in (KernelSchedule.pageModel).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));
const C = require(path.join(ROOT, "sim", "common.js"));
const V = require(path.join(ROOT, "assets", "wave_view.js"));
const example = (name) => require(path.join(ROOT, "examples", name));

test("normalizeFlagValues: on/off words and booleans are 1 / 0, integers kept, the rest refused", () => {
  const messages = [];
  const out = C.normalizeFlagValues({ b: "off", a: true, q: 2, s: "3", n: "-1", bad: "maybe", f: 1.5, o: null }, messages);
  assert.deepStrictEqual(out, { a: 1, b: 0, n: -1, q: 2, s: 3 });
  assert.deepStrictEqual(Object.keys(out), ["a", "b", "n", "q", "s"]);
  assert.deepStrictEqual(messages.map((m) => m.split(" = ")[0]), ["flags: \"bad\"", "flags: \"f\"", "flags: \"o\""]);
  // At most 256 flags, names of at most 200 characters.
  const many = {};
  for (let i = 0; i < 300; i++) many["f" + String(i).padStart(3, "0")] = 1;
  const m2 = [];
  assert.strictEqual(Object.keys(C.normalizeFlagValues(many, m2)).length, 256);
  assert.match(m2[0], /more than 256/);
  const m3 = [];
  assert.deepStrictEqual(C.normalizeFlagValues({ ["x".repeat(201)]: 1 }, m3), {});
  assert.match(m3[0], /longer than 200/);
});

test("the verdict says each flag's value: on / off, or = V for a setting", () => {
  const st = example("fa4_fwd_sm100.json");
  const r = KS.simulate(st, { model: "program" });
  assert.strictEqual(r.error, null);
  // FA4 sm100's constructor: self.q_stage = q_stage (2), head_dim 128.
  assert.strictEqual(r.verdict.flags["self.q_stage"], 2);
  assert.match(r.verdict.flagsText, /self\.q_stage = 2/);
  assert.match(r.verdict.flagsText, /self\.is_causal off/);
  assert.doesNotMatch(r.verdict.flagsText, /q_stage on/);
  // A setting given as an integer is run with that value, not as "on".
  const one = KS.simulate(st, { model: "program", flags: { "self.q_stage": "1" } });
  assert.strictEqual(one.knobs.flags["self.q_stage"], 1);
  assert.strictEqual(one.verdict.flags["self.q_stage"], 1);
  assert.notStrictEqual(one.total, r.total);
  const three = KS.simulate(st, { model: "program", flags: { "self.q_stage": 3 } });
  assert.strictEqual(three.verdict.flags["self.q_stage"], 3);
});

test("a flag word reaches the run: FA4 SM90 without its intra-warpgroup overlap", () => {
  const st = example("fa4_fwd_sm90.json");
  const on = KS.simulate(st, { model: "program" });
  const off = KS.simulate(st, { model: "program", flags: { "self.intra_wg_overlap": "off" } });
  assert.strictEqual(on.verdict.flags["self.intra_wg_overlap"], 1);
  assert.strictEqual(off.verdict.flags["self.intra_wg_overlap"], 0);
  assert.notStrictEqual(off.total, on.total);
});

test("the URL hash: flag.NAME=on|off|N, refused values, round trip, and the pin's double encoding", () => {
  const keys = [["model", "model"], ["stages", "stages"]];
  const ranges = (name, model) => name === "model" ? { options: ["gemm", "program"] } : name === "stages" ? { min: 1, max: 8 } :
    name === "flags" && model === "program" ? { compileFlags: true } : null;
  const name = "tuple_element_t<0, Shape> == x";
  const knobs = { model: "program", stages: 3, flags: { [name]: 0, "self.q_stage": 2, "self.a": 1 } };
  const hash = V.formatHash({ knobs: knobs }, keys);
  assert.match(hash, /flag\.self\.a=on/);
  assert.match(hash, /flag\.self\.q_stage=2/);
  const back = V.parseHash("#" + hash, keys, ranges, "program");
  assert.deepStrictEqual(Object.assign({ model: back.model }, back.knobs), knobs);
  assert.deepStrictEqual(back.messages, []);
  const bad = V.parseHash("#model=program&flag.x=maybe&flag.y=1.5", keys, ranges, "program");
  assert.deepStrictEqual(bad.knobs, { });
  assert.strictEqual(bad.messages.length, 2);
  assert.match(bad.messages[0], /expected on, off or an integer/);
  const gemm = V.parseHash("#model=gemm&flag.x=on", keys, ranges, "program");
  assert.match(gemm.messages[0], /the gemm model takes no compile-time flags/);
  // The pin: its value is decoded once by the hash, so the name is encoded twice.
  const pin = V.formatPin(knobs, { model: "program", stages: 3 }, keys);
  assert.doesNotMatch(decodeURIComponent(pin).replace(/flag\.[^:]*:/g, ""), /,[^,]*</);
  const fromHash = V.parseHash("#pin=" + pin, keys, ranges, "program").pin;
  const p = V.parsePin(fromHash, keys, ranges, "program");
  assert.deepStrictEqual(p.knobs.flags, knobs.flags);
  assert.deepStrictEqual(p.messages, []);
});

test("the models that take flags, and the model the page and predict start in", () => {
  assert.strictEqual(KS.modelTakesFlags("program"), true);
  ["gemm", "attention", "blackwell", "nope", undefined].forEach((m) => assert.strictEqual(KS.modelTakesFlags(m), false));
  // A hand-written model fits: that one. None fits (FA4 SM100): the program model. No structure of a kernel layer: null.
  assert.strictEqual(KS.pageModel(example("sm90_gemm_pingpong.json")), KS.fitModel(example("sm90_gemm_pingpong.json")).model);
  assert.strictEqual(KS.fitModel(example("fa4_fwd_sm100.json")).model, null);
  assert.strictEqual(KS.pageModel(example("fa4_fwd_sm100.json")), "program");
  assert.strictEqual(KS.pageModel({ kind: "kernel_layer" }), null);
});
