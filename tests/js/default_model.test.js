// sim/fit.js defaultFit, the default-model rule (docs/fit.md "Default model"), on stand-in models:
// the program model is the default only where the hand fit's notModelled flags a divergence
// ({text, diverges: true}, never a matched text) and the program model covers the structure and
// runs complete at its default knobs; otherwise the hand fit, unchanged.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const path = require("path");
const FIT = require(path.join(__dirname, "..", "..", "sim", "fit.js"));

// An SM90 structure with a pipeline op and an MMA: fitModel's candidate is gemm.
const ST = { arch: "sm90", language: "cpp", functions: [{ name: "mma", ops: [{ op: "consumer_wait", line: 3, pipeline: "MainloopPipeline" }, { op: "mma", line: 4 }] }] };
const DIVERGES = { text: "mma() waits on its WGMMAs 2 times (lines 5, 7)", diverges: true, lines: [5, 7] };

/** Stand-in MODELS: gemm fits with notModelled `left`; program (alongside) covers when `covers`. */
function models(left, covers) {
  const hand = (name) => ({ covers: () => null, fitReason: name + " fits", assumptions: () => ["a " + name],
    notModelled: () => left.slice() });
  return { gemm: hand("gemm"), attention: hand("attention"), blackwell: hand("blackwell"),
    program: { alongside: true, covers: () => (covers ? null : "no kernel layer"), fitReason: "its own programs",
      assumptions: () => ["elect_one_sync taken"], notModelled: () => ["TMEM stores"] } };
}

/** defaultFit with incomplete answering `why` (null: complete), and the names it was asked about. */
function run(left, covers, why) {
  const asked = [];
  const fit = FIT.defaultFit(ST, models(left, covers), (name) => { asked.push(name); return why; });
  return { fit, asked };
}

test("notModelledOf keeps every text and lists the flagged entries apart", () => {
  assert.deepStrictEqual(FIT.notModelledOf(["the epilogue", DIVERGES, { text: "C loads", diverges: false }]), {
    notModelled: ["the epilogue", DIVERGES.text, "C loads"], divergences: [{ text: DIVERGES.text, lines: [5, 7] }] });
});

test("a divergence, a covering program model and a complete run: the program model, with the hand fit", () => {
  const { fit, asked } = run(["the epilogue", DIVERGES], true, null);
  assert.deepStrictEqual(asked, ["program"]);
  assert.strictEqual(fit.model, "program");
  assert.match(fit.reason, /^its own programs, by default: the gemm model fits but does not follow the code here \(mma\(\) waits on its WGMMAs 2 times \(lines 5, 7\)\)/);
  assert.match(fit.reason, /the gemm model stays in the model choice$/);
  assert.deepStrictEqual(fit.assumptions, ["elect_one_sync taken"]);
  assert.deepStrictEqual(fit.notModelled, ["TMEM stores"]);
  assert.deepStrictEqual(fit.handFit, { model: "gemm", reason: "gemm fits", assumptions: ["a gemm"],
    notModelled: ["the epilogue", DIVERGES.text], divergences: [{ text: DIVERGES.text, lines: [5, 7] }] });
});

test("the same words without the flag are no divergence: the hand fit, no run", () => {
  const { fit, asked } = run(["the epilogue", DIVERGES.text], true, null);
  assert.strictEqual(fit.model, "gemm");
  assert.deepStrictEqual(fit.divergences, []);
  assert.strictEqual(fit.handFit, undefined);
  assert.deepStrictEqual(asked, []);
});

test("a divergence but an incomplete program run: the hand fit, its divergence still listed", () => {
  const { fit, asked } = run([DIVERGES], true, "a role stopped: Consumer0 at line 9");
  assert.deepStrictEqual(asked, ["program"]);
  assert.strictEqual(fit.model, "gemm");
  assert.deepStrictEqual(fit.notModelled, [DIVERGES.text]);
  assert.strictEqual(fit.handFit, undefined);
});

test("a divergence but no program model covering the structure: the hand fit, no run", () => {
  const { fit, asked } = run([DIVERGES], false, null);
  assert.strictEqual(fit.model, "gemm");
  assert.deepStrictEqual(asked, []);
});

test("no hand fit: defaultFit is fitModel's no-model answer", () => {
  const st = { arch: "sm90", functions: [{ name: "f", ops: [{ op: "consumer_wait" }] }] };
  const fit = FIT.defaultFit(st, models([DIVERGES], true), () => { throw new Error("not asked"); });
  assert.strictEqual(fit.model, null);
  assert.deepStrictEqual(fit, FIT.fitModel(st, models([DIVERGES], true)));
});
