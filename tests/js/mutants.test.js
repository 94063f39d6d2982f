// Tests written to kill the survivors of a mutation spot-check (issue 22, part 4), one block per
// mutant class: `$` in VCD names and comments (trace_export.js), the K_PIPE_MMAS boundary of the
// GEMM model (schedule.js) and of the page's code-path choice, a knob exactly at its maximum in
// the URL hash (assets/waveform.js parseHash). scripts/mutate.py runs this file against mutants.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));
const KE = require(path.join(ROOT, "trace_export.js"));
const W = require(path.join(ROOT, "assets", "waveform.js"));
const PINGPONG = require(path.join(ROOT, "examples", "sm90_gemm_pingpong.json"));

// ---- VCD: `$` in names and comments -------------------------------------------------------

/**
 * A result whose every name and note carries `$` and `$end` (the hand shape of test_export.js);
 * block kinds too unless cleanKinds (see the todo test below).
 */
function dollarResult(cleanKinds) {
  const line = { path: "x$end.hpp", line: 1, end_line: 1, op: "consumer_wait", text: "w($end);" };
  return {
    model: "gemm$end", total: 8, knobs: { "st$end": 2, stages: "$end" }, error: null,
    deadlock: { step: 6, message: "waits on $end forever $" },
    lanes: [{ id: "p$end", label: "producer $end", group: "prod $end $" }, { id: "c$0", label: "c", group: "$end" }],
    blocks: [
      { lane: "p$end", kind: cleanKinds ? "issue" : "issue$end", start: 0, end: 2, tile: 0, k: 0, stage: 0, reason: null, lines: [line], after: [] },
      { lane: "c$0", kind: cleanKinds ? "wgmma" : "wg$mma", start: 2, end: 6, tile: 0, k: 0, stage: 0, reason: "$end", lines: [line], after: [0] },
      { lane: "ghost $end", kind: "x", start: 1, end: 3, tile: null, k: null, stage: null, reason: null, lines: [], after: [] }
    ],
    barriers: [{ id: 0, name: "full$end stage", kind: "full", stage: 0, expected: 1, lines: { wait: [1], arrive: [1] } }],
    barrierEvents: [
      { t: 1, barrier: 0, type: "wait_begin", lane: "c$0", phase: 0 },
      { t: 2, barrier: 0, type: "arrive", lane: "p$end", phase: 0 },
      { t: 2, barrier: 0, type: "complete", lane: "p$end", phase: 1 },
      { t: 2, barrier: 0, type: "wait_end", lane: "c$0", phase: 1 }
    ]
  };
}

/**
 * The declaration commands of a VCD header, read strictly: each `$keyword` opens a command that
 * its own `$end` closes, and nothing lies between commands. [{keyword, args}] up to and
 * including $enddefinitions; throws on any other shape.
 */
function headerCommands(text) {
  const tokens = text.split(/\s+/).filter(Boolean);
  const commands = [];
  let i = 0;
  for (;;) {
    const keyword = tokens[i];
    assert.ok(keyword && /^\$[a-z]+$/.test(keyword) && keyword !== "$end", "a command expected at token " + i + ": " + keyword);
    const args = [];
    for (i++; tokens[i] !== "$end"; i++) {
      assert.ok(i < tokens.length, keyword + " is never closed");
      args.push(tokens[i]);
    }
    i++;
    commands.push({ keyword, args });
    if (keyword === "$enddefinitions") return commands;
  }
}

/** Arguments each declaration command has: $scope module NAME, $var TYPE WIDTH ID REF, ... */
const ARITY = { $version: null, $comment: null, $timescale: 2, $scope: 2, $upscope: 0, $var: 4, $enddefinitions: 0 };

test("VCD: `$` and `$end` in kernel, lane, role, barrier and block names never reach a name or the comment", () => {
  for (const strings of [true, false]) {
    const text = KE.vcd(dollarResult(!strings), { kernel: "k$end $", strings });
    const commands = headerCommands(text);
    commands.forEach((c) => {
      assert.ok(c.keyword in ARITY, "unexpected command " + c.keyword);
      if (ARITY[c.keyword] !== null) assert.equal(c.args.length, ARITY[c.keyword], c.keyword + " " + c.args.join(" "));
    });
    const comment = commands.filter((c) => c.keyword === "$comment");
    assert.equal(comment.length, 1);
    const said = comment[0].args.join(" ");
    assert.ok(!said.includes("$"), "the comment holds a `$`: " + said);
    assert.match(said, /waits on end forever/);      // the note is there, without its `$`
    assert.match(said, /ghost end/);                 // the unknown lane's note too
    const names = commands.filter((c) => c.keyword === "$scope").map((c) => c.args[1])
      .concat(commands.filter((c) => c.keyword === "$var").map((c) => c.args[3]));
    assert.ok(names.length >= 10, names.join(" "));
    names.forEach((n) => assert.match(n, /^[A-Za-z0-9_.[\]-]+$/, "a VCD name with `$` or a space: " + n));
    // Identifier codes are printable ASCII; none is the keyword `$end`.
    commands.filter((c) => c.keyword === "$var").forEach((c) => {
      assert.match(c.args[2], /^[!-~]+$/);
      assert.notEqual(c.args[2], "$end");
    });
    // Value changes: a string value is one token without `$` (kinds pass through vcdName).
    const body = text.slice(text.indexOf("$enddefinitions"));
    body.split("\n").filter((l) => l[0] === "s").forEach((l) => assert.match(l, /^s[A-Za-z0-9_.[\]-]+ [!-~]+$/, l));
  }
});

// The integer-kind VCD (strings: false) lists its kind codes in the header comment: a block
// kind holding `$end` must not close the comment early (the simulator's kinds are fixed words,
// so only a hand-made result reaches this).
test("VCD kind codes in the header comment drop `$` (strings: false)", () => {
  const commands = headerCommands(KE.vcd(dollarResult(false), { strings: false }));
  const said = commands.filter((c) => c.keyword === "$comment").map((c) => c.args.join(" ")).join(" ");
  assert.ok(!said.includes("$"), said);
});

// ---- The GEMM model at k == K_PIPE_MMAS ----------------------------------------------------

test("GEMM: k-tile j is released after its own WGMMA below K - K_PIPE_MMAS, else in mma_tail (every boundary)", () => {
  const K = 5;
  for (let kp = 0; kp <= K + 1; kp++) {
    // One consumer, one tile, a stage per k-tile: each empty-barrier arrive names its k-tile.
    const r = KS.simulate(PINGPONG, { kTiles: K, outputTiles: 1, consumerWGs: 1, stages: 8, kPipeMmas: kp,
      wgmmaLatency: 10, tmaLatency: 3 });
    assert.equal(r.error, null);
    assert.equal(r.deadlock, null, "kPipeMmas " + kp);
    const mmaEnd = {};
    r.blocks.filter((b) => b.kind === "wgmma").forEach((b) => { mmaEnd[b.k] = b.end; });
    const released = {};
    r.barrierEvents.forEach((e) => {
      const bar = r.barriers[e.barrier];
      if (e.type !== "arrive" || bar.kind !== "empty") return;
      assert.ok(!(bar.stage in released), "k-tile " + bar.stage + " released twice (kPipeMmas " + kp + ")");
      released[bar.stage] = e.t;
    });
    const P = Math.min(kp, K);
    const want = {};
    for (let j = 0; j < K; j++) want[j] = j < K - P ? mmaEnd[j] : mmaEnd[K - 1];
    assert.deepEqual(released, want, "kPipeMmas " + kp);
  }
});

test("codePathLines: k-tiles below K_PIPE_MMAS take the prologue loop, k == K_PIPE_MMAS the steady-state loop", () => {
  const r = KS.simulate(PINGPONG, { kTiles: 6 });
  const wg = (k) => r.blocks.find((b) => b.kind === "wgmma" && b.k === k);
  const pathOf = (k, kp) => W.codePathLines(wg(k), kp).path;
  assert.equal(pathOf(0, 3), "first iteration");
  for (const kp of [1, 2, 3, 4]) {
    for (let k = 1; k < 6; k++) assert.equal(pathOf(k, kp), k < kp ? "prologue loop" : "steady-state loop", `k ${k}, K_PIPE_MMAS ${kp}`);
  }
  // The prologue and steady-state loops run different MMA statements: the boundary shows.
  assert.notDeepEqual(W.codePathLines(wg(2), 3).lines, W.codePathLines(wg(3), 3).lines);
});

// ---- The URL hash: a knob exactly at its bounds ---------------------------------------------

/** parseHash's arguments as the page builds them: hash keys from the knob table, ranges from knobsFor. */
function hashArgs(model) {
  const hashKeys = KS.KNOB_TABLE.knobs.map((k) => [k.flag.slice(2), k.name]);
  const rangeOf = (name, modelName) => {
    if (name === "model") return { options: KS.MODEL_NAMES.slice() };
    const spec = KS.knobsFor(modelName || model, PINGPONG).find((s) => s.name === name);
    if (!spec) return null;
    if (spec.type === "flag") return { flag: true };
    if (spec.type === "choice") return { options: spec.choices.slice() };
    return { min: spec.min, max: spec.max };
  };
  return { hashKeys, rangeOf, keyOf: Object.fromEntries(hashKeys.map(([key, name]) => [name, key])) };
}

test("parseHash: every numeric knob at exactly its maximum or minimum is taken without a message; one past is clamped", () => {
  const { hashKeys, rangeOf, keyOf } = hashArgs("gemm");
  const specs = KS.knobsFor("gemm", PINGPONG).filter((s) => s.type === "range");
  assert.ok(specs.length >= 5);
  for (const s of specs) {
    for (const v of [s.max, s.min]) {
      const p = W.parseHash("#" + keyOf[s.name] + "=" + v, hashKeys, rangeOf, "gemm");
      assert.deepEqual(p.messages, [], `${s.name}=${v}`);
      assert.equal(p.knobs[s.name], v, `${s.name}=${v}`);
    }
    const over = W.parseHash("#" + keyOf[s.name] + "=" + (s.max + 1), hashKeys, rangeOf, "gemm");
    assert.equal(over.knobs[s.name], s.max);
    assert.deepEqual(over.messages, [`URL hash: ${keyOf[s.name]}=${s.max + 1} is outside ${s.min}..${s.max}; clamped to ${s.max}.`]);
    if (s.min > 0) {
      const under = W.parseHash("#" + keyOf[s.name] + "=" + (s.min - 1), hashKeys, rangeOf, "gemm");
      assert.equal(under.knobs[s.name], s.min);
      assert.equal(under.messages.length, 1);
    }
  }
});
