// sim/interpret.js on small programs written here (the JSON the front ends emit, docs/programs.md):
// the control flow a kernel's own code has (continue, break, do-while, return), each checked by the
// blocks it leaves. The real kernels are tests/test_programs.py's.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("path");
const S = require(path.join(__dirname, "..", "..", "schedule.js"));
const I = require(path.join(__dirname, "..", "..", "sim", "interpret.js"));

const id = (n) => ["id", n];
const num = (v) => ["n", v];
const bin = (op, a, b) => ["bin", op, a, b];
const op = (kind, extra) => Object.assign({ node: "op", op: kind, object: "pipe", line: 10 }, extra || {});
const forLoop = (v, n, body, line) => ({
  node: "loop", kind: "for", line: line || 5, init: [{ node: "let", names: [v], type: "int", expr: num(0), line: 5 }],
  cond: bin("<", id(v), num(n)), step: [{ node: "set", name: v, op: "++", line: 5 }], body: body
});
const when = (cond, then) => ({ node: "if", constexpr: false, cond: cond, then: then, else: [], line: 7 });

/** A kernel of two roles on one TMA pipeline: the producer loads `loads` k-tiles, the consumer runs `consumer`. */
function kernel(loads, consumer) {
  const role = (m) => bin("==", id("role"), id("R::" + m));
  return {
    pipelines: [{ alias: "P", "class": "PipelineTmaAsync", used: true, line: 1 }],
    programs: { functions: [] },
    kernel_layer: {
      role_vars: [{ name: "role", "enum": "R", members: ["Prod", "Cons"], line: 2 }], constants: [], order_barriers: [],
      program: {
        name: "operator()", line: 1, end_line: 99, params: [], skipped: 0, body: [
          { node: "let", names: ["pipe"], type: "P", expr: null, line: 3 },
          { node: "let", names: ["ps"], type: "PipelineState", expr: ["call", "cutlass::make_producer_start_state", [], "P"], line: 3 },
          { node: "let", names: ["cs"], type: "PipelineState", expr: null, line: 4 },
          when(role("Prod"), [forLoop("k", loads, [op("producer_acquire", { state: "ps" }), op("tma_load"), { node: "set", name: "ps", op: "++", line: 9 }])]),
          when(role("Cons"), consumer)
        ]
      }
    }
  };
}

const consumeOne = [op("consumer_wait", { state: "cs" }), op("mma"), op("warpgroup_wait", { count: 0 }),
  op("consumer_release", { state: "cs" }), { node: "set", name: "cs", op: "++", line: 12 }];
const KNOBS = { stages: 4, outputTiles: 1, kTiles: 4, tmaLatency: 2, wgmmaLatency: 1, epilogueLatency: 0, kPipeMmas: 1 };

function mmas(structure) {
  const r = I.run(structure, KNOBS, S.engine, {});
  assert.equal(r.error, undefined);
  assert.deepEqual(r.stopped, []);
  assert.equal(r.deadlock, null);
  return S.blocksOf(r.columns).filter((b) => b.kind === "wgmma").length;
}

test("a plain loop consumes every k-tile the producer loads", () => {
  assert.equal(mmas(kernel(4, [forLoop("k", 4, consumeOne)])), 4);
});

test("continue skips the rest of the body and runs the loop's step and test", () => {
  const body = [when(bin("==", id("k"), num(1)), [{ node: "continue", line: 8 }])].concat(consumeOne);
  assert.equal(mmas(kernel(3, [forLoop("k", 4, body)])), 3);
});

test("break leaves the innermost loop", () => {
  const body = [when(bin("==", id("k"), num(2)), [{ node: "break", line: 8 }])].concat(consumeOne);
  assert.equal(mmas(kernel(2, [forLoop("k", 4, body)])), 2);
});

test("a do-while runs its body before the first test", () => {
  const doLoop = { node: "loop", kind: "do", line: 6, init: [], step: [], cond: num(0), body: consumeOne };
  assert.equal(mmas(kernel(1, [doLoop])), 1);
});

test("return ends the role", () => {
  assert.equal(mmas(kernel(1, consumeOne.concat([{ node: "return", expr: null, line: 13 }], consumeOne))), 1);
});

test("an op the interpreter does not know stops the role, named with its line", () => {
  const r = I.run(kernel(1, [op("named_barrier_sync", { line: 21 })].concat(consumeOne)), KNOBS, S.engine, {});
  assert.deepEqual(r.stopped, [{ role: "Cons", line: 21, reason: "the op `named_barrier_sync` is not modelled yet" }]);
});
