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

test("copies into one stage after one acquire are one transaction, even when branches split them", () => {
  // CUTLASS's blockwise-scaling mainloop: `if (lane_predicate) copy(A)`, `if (lane_predicate)
  // copy(B)` (two branches, so the copies are not adjacent): the stage's full barrier completes
  // once, when the later copy lands; both copies carry the k of the acquire.
  const lane = (line) => when(num(1), [op("tma_load", { line: line })]);
  const st = kernel(4, [forLoop("k", 4, consumeOne)]);
  const prod = st.kernel_layer.program.body[3].then[0];
  prod.body = [op("producer_acquire", { state: "ps" }), lane(30), lane(31), { node: "set", name: "ps", op: "++", line: 9 }];
  const r = I.run(st, KNOBS, S.engine, {});
  assert.deepEqual(r.stopped, []);
  assert.equal(r.deadlock, null);
  const blocks = S.blocksOf(r.columns);
  const issues = blocks.filter((b) => b.kind === "issue");
  assert.deepEqual(issues.map((b) => b.k), [0, 0, 1, 1, 2, 2, 3, 3]);
  assert.equal(blocks.filter((b) => b.kind === "wgmma").length, 4);
  // The first k-tile: copies issued at 0 and 1 land at 3 and 4 (tmaLatency 2): the MMA starts at 4.
  assert.equal(blocks.find((b) => b.kind === "wgmma").start, 4);
});

test("an op the interpreter does not know stops the role, named with its line", () => {
  const r = I.run(kernel(1, [op("named_barrier_sync", { line: 21 })].concat(consumeOne)), KNOBS, S.engine, {});
  assert.deepEqual(r.stopped, [{ role: "Cons", line: 21, reason: "the op `named_barrier_sync` is not modelled yet" }]);
});

// --- the rules the Blackwell attention forward needs (docs/programs.md "Composed collectives",
// "Register loops"), each on a program written here ---

/** Two roles handing over through a PipelineAsync of `stages` (a literal, as `PipelineAsync<1>`). */
function asyncKernel(stages, producerExtra, consumerExtra, extra) {
  const role = (m) => bin("==", id("role"), id("R::" + m));
  const s = {
    pipelines: [{ alias: "PC", "class": "PipelineAsync", used: true, line: 1, stages: String(stages) }],
    programs: { functions: (extra && extra.functions) || [] },
    collectives: (extra && extra.collectives) || [],
    kernel_layer: {
      role_vars: [{ name: "role", "enum": "R", members: ["Prod", "Cons"], line: 2 }], constants: [], order_barriers: [],
      program: {
        name: "operator()", line: 1, end_line: 99, params: [], skipped: 0, body: [
          { node: "let", names: ["pipe"], type: "PC", expr: null, line: 3 },
          { node: "let", names: ["ps"], type: "typename PC::PipelineState", expr: ["call", "cutlass::make_producer_start_state", [], "PC"], line: 3 },
          { node: "let", names: ["cs"], type: "typename PC::PipelineState", expr: null, line: 4 },
          when(role("Prod"), [forLoop("k", 3, [op("producer_acquire", { state: "ps", line: 20 })].concat(producerExtra || [],
            [op("producer_commit", { state: "ps", line: 22 }), { node: "set", name: "ps", op: "++", line: 23 }]))]),
          when(role("Cons"), [forLoop("k", 3, [op("consumer_wait", { state: "cs", line: 30 })].concat(consumerExtra || [],
            [op("consumer_release", { state: "cs", line: 32 }), { node: "set", name: "cs", op: "++", line: 33 }]))])
        ]
      }
    }
  };
  return s;
}
const AKNOBS = Object.assign({}, KNOBS, { softmaxLatency: 3, mathLatency: 1, tmemLoadLatency: 2 });

function runOk(structure, knobs) {
  const r = I.run(structure, knobs || AKNOBS, S.engine, {});
  assert.equal(r.error, undefined);
  assert.deepEqual(r.stopped, []);
  assert.equal(r.deadlock, null);
  return { r: r, blocks: S.blocksOf(r.columns) };
}

test("PipelineAsync: a commit arrives on full, a release on empty; a literal stage count is the code's own", () => {
  const work = { node: "loop", kind: "for", unroll: "unroll", line: 21, init: [], step: [],
    cond: bin("<", id("i"), ["call", "size", [id("t")]]), body: [{ node: "call", name: "::exp2f", args: [], line: 21 }] };
  const { r, blocks } = runOk(asyncKernel(1, [work], []), Object.assign({}, AKNOBS, { stages: 4 }));
  assert.deepEqual(r.lanes.filter((l) => /stage/.test(l.id)).map((l) => l.id), ["PC.stage0"]);
  // One stage: the producer's second acquire waits for the consumer's first release.
  const exps = blocks.filter((b) => b.kind === "exp");
  assert.equal(exps.length, 3);
  const waits = blocks.filter((b) => b.lane === "role:Cons" && b.kind === "wait");
  assert.ok(waits.length >= 1 && waits.every((b) => b.reason === "PC"), "a PipelineAsync wait is named by its ring");
  assert.equal(r.total, 9);
});

test("a register loop is one block of its math class, then its body once (an index test holds)", () => {
  const loop = { node: "loop", kind: "for", unroll: "unroll", line: 24, init: [], step: [],
    cond: bin("<", id("i"), ["call", "size", [id("t")]]),
    body: [{ node: "set", name: "x", op: "=", expr: ["call", "fmax", [id("x"), id("y")]], line: 25 },
      { node: "if", constexpr: false, cond: bin("==", id("i"), id("K")), then: [op("tmem_load", { line: 26, object: undefined, receiver: "tiled" })], else: [], line: 26 }] };
  const { blocks } = runOk(asyncKernel(2, [], [loop]));
  const cons = blocks.filter((b) => b.lane === "role:Cons");
  assert.deepEqual(cons.filter((b) => b.kind !== "wait").map((b) => [b.kind, b.end - b.start, b.lines[0]]),
    [["math", 1, 24], ["tmem_load", 2, 26], ["math", 1, 24], ["tmem_load", 2, 26], ["math", 1, 24], ["tmem_load", 2, 26]]);
});

test("a register loop holding a pipeline op is not one: its unbound trip count stops the role", () => {
  const loop = { node: "loop", kind: "for", unroll: "unroll", line: 24, init: [], step: [],
    cond: bin("<", id("i"), ["call", "size", [id("t")]]), body: [op("consumer_release", { state: "cs", line: 25 })] };
  const r = I.run(asyncKernel(2, [], [loop]), AKNOBS, S.engine, {});
  assert.equal(r.stopped.length, 1);
  assert.equal(r.stopped[0].line, 24);
  assert.match(r.stopped[0].reason, /trip count/);
});

test("a composed collective's call runs its own program (`Load load; load.load(...)`)", () => {
  const functions = [{ name: "Load::go", owner: "Load", path: "load.hpp", line: 40, params: [{ name: "p", ref: true, type: "PC" }, { name: "st", ref: true, type: "typename PC::PipelineState" }],
    body: [op("producer_acquire", { object: "p", state: "st", line: 41 }), op("producer_commit", { object: "p", state: "st", line: 42 }), { node: "set", name: "st", op: "++", line: 43 }] }];
  const s = asyncKernel(2, [], [], { functions: functions, collectives: [{ alias: "Load", "class": "LoadImpl", path: "load.hpp", line: 5 }] });
  // The producer's loop body calls the collective instead of its own ops.
  const prod = s.kernel_layer.program.body[3].then[0];
  prod.body = [{ node: "let", names: ["ld"], type: "Load", expr: null, line: 19 },
    { node: "call", receiver: "ld", name: "go", args: [id("pipe"), id("ps")], line: 20 }];
  const { r } = runOk(s);
  assert.deepEqual(r.roles.map((x) => x.name), ["Prod", "Cons"]);
  const events = r.barrierEvents();
  assert.equal(events.filter((e) => e.type === "arrive").length, 6, "three commits and three releases");
});

test("an order barrier's group is the group_id its Params are given (`params.group_id = role == R::Cons ? 1 : 0`)", () => {
  const role = (m) => bin("==", id("role"), id("R::" + m));
  const turn = (line) => [{ node: "call", receiver: "ob", name: "wait", args: [], line: line },
    { node: "call", receiver: "ob", name: "arrive", args: [], line: line + 1 }];
  const s = {
    pipelines: [], programs: { functions: [] }, order_barriers: [{ alias: "OB", "class": "OrderedSequenceBarrier", args: [num(1), num(2)], line: 2 }],
    kernel_layer: {
      role_vars: [{ name: "role", "enum": "R", members: ["Cons", "Prod"], line: 2 }], constants: [], order_barriers: [],
      program: { name: "operator()", line: 1, end_line: 99, params: [], skipped: 0, body: [
        { node: "let", names: ["params"], type: "typename OB::Params", expr: null, line: 3 },
        { node: "set", name: "params", member: "group_id", op: "=", expr: ["?:", role("Cons"), num(1), num(0)], line: 4 },
        { node: "let", names: ["ob"], type: "OB", expr: ["?", "storage, params"], construct: true, args: [id("storage"), id("params")], line: 5 },
        when(role("Cons"), turn(9).concat([{ node: "op", op: "tmem_load", receiver: "t", line: 11 }])),
        when(role("Prod"), [{ node: "op", op: "tmem_load", receiver: "t", line: 12 }].concat(turn(13)))
      ] }
    }
  };
  const { blocks } = runOk(s, Object.assign({}, AKNOBS, { tmemLoadLatency: 5 }));
  // Cons is listed first but is group 1: it waits for Prod's arrive.
  const consWait = blocks.filter((b) => b.lane === "role:Cons" && b.kind === "wait");
  assert.equal(consWait.length, 1);
  assert.equal(consWait[0].reason, "order");
  assert.deepEqual([consWait[0].start, consWait[0].end], [0, 5]);
  assert.equal(blocks.filter((b) => b.lane === "role:Prod" && b.kind === "wait").length, 0);
});

test("`get<i>(T{})` of a literal shape and the attention mask's trip counts are evaluated", () => {
  const ctx = new I.Context({ kernel_layer: { program: { body: [] } }, shapes: [{ name: "TS", dims: [2, 1, 1], line: 3 }] },
    { kvBlocks: 5 }, S.engine);
  assert.equal(I.evalExpr(["call", "get", [["call", "TS", []]], "0"], {}, ctx, true), 2);
  assert.equal(I.evalExpr(["call", "get", [["call", "TS", []]], "1"], {}, ctx, true), 1);
  assert.equal(I.evalExpr(["mcall", ["call", "Mask", []], "get_trip_count", []], {}, ctx, false), 5);
  assert.equal(I.evalExpr(["mcall", ["call", "Mask", []], "get_masked_trip_count", []], {}, ctx, false), 0);
});

test("a reference parameter bound through `c ? a : b` shares the chosen variable (77 FMHA kernel 461)", () => {
  const functions = [{ name: "Load::go", owner: "Load", path: "load.hpp", line: 40,
    params: [{ name: "p", ref: true, type: "PC" }, { name: "st", ref: true, type: "typename PC::PipelineState" }],
    body: [op("producer_acquire", { object: "p", state: "st", line: 41 }), op("producer_commit", { object: "p", state: "st", line: 42 }),
      { node: "set", name: "st", op: "++", line: 43 }] }];
  const slow = [{ node: "op", op: "tmem_load", receiver: "t", line: 31 }];
  const s = asyncKernel(1, [], slow, { functions: functions, collectives: [{ alias: "Load", "class": "LoadImpl", path: "load.hpp", line: 5 }] });
  const prod = s.kernel_layer.program.body[3].then[0];
  prod.body = [{ node: "let", names: ["ld"], type: "Load", expr: null, line: 19 },
    { node: "call", receiver: "ld", name: "go", args: [id("pipe"), ["?:", num(1), id("ps"), id("cs")]], line: 20 }];
  // One stage: each call's acquire waits for the consumer's release of the previous fill (the
  // consumer takes 2 steps per fill). Were the state copied into the call, every call would
  // acquire the first (stage, phase) again and pass at once.
  const { r } = runOk(s);
  const names = {};
  r.barriers.forEach((b) => { names[b.id] = b.name; });
  const waits = r.barrierEvents().filter((e) => e.type === "wait_end" && names[e.barrier] === "PC.empty[0]");
  assert.deepEqual(waits.map((e) => e.t), [0, 2, 4]);
  assert.equal(r.total, 6);
});

test("a pipeline declared by an unread initializer is the run's ring, also after a dry run (never an inert let)", () => {
  // FA3 kernel 241: `MainloopPipelineK pipeline_k = [&] { ... }();`. The MMA-group dry run runs
  // this let before the rings exist; the real run must still bind the ring.
  const s = kernel(3, [forLoop("k", 3, consumeOne)]);
  s.kernel_layer.program.body[0] = { node: "let", names: ["pipe"], type: "P", expr: ["?", "[&] { return P(storage, params); }()"], line: 3 };
  const r = I.run(s, KNOBS, S.engine, {});
  assert.deepEqual(r.stopped, []);
  const kinds = S.blocksOf(r.columns).map((b) => b.kind);
  assert.equal(kinds.filter((k) => k === "filling").length, 3, "the copies land on the ring's stages");
  assert.equal(kinds.filter((k) => k === "wgmma").length, 3);
});

test("producer_tail takes its state by value: two rings' tails on one shared state each wait their own stages (FA3 907-909)", () => {
  // Two pipelines loaded with one shared producer state, consumed with one shared consumer
  // state; the producer ends with both tails. Walking the caller's state would move it, so the
  // second tail would wait for phases nobody completes.
  const role = (m) => bin("==", id("role"), id("R::" + m));
  const both = (k) => [op(k, { object: "pa", state: k.indexOf("producer") === 0 ? "ps" : "cs", line: 20 }),
    op(k, { object: "pb", state: k.indexOf("producer") === 0 ? "ps" : "cs", line: 21 })];
  const s = {
    pipelines: [{ alias: "PA", "class": "PipelineAsync", used: true, line: 1, stages: "2" },
      { alias: "PB", "class": "PipelineAsync", used: true, line: 2, stages: "2" }],
    programs: { functions: [] },
    kernel_layer: {
      role_vars: [{ name: "role", "enum": "R", members: ["Prod", "Cons"], line: 2 }], constants: [], order_barriers: [],
      program: { name: "operator()", line: 1, end_line: 99, params: [], skipped: 0, body: [
        { node: "let", names: ["pa"], type: "PA", expr: null, line: 3 },
        { node: "let", names: ["pb"], type: "PB", expr: null, line: 3 },
        { node: "let", names: ["ps"], type: "typename PA::PipelineState", expr: ["call", "cutlass::make_producer_start_state", [], "PA"], line: 4 },
        { node: "let", names: ["cs"], type: "typename PA::PipelineState", expr: null, line: 4 },
        when(role("Prod"), [forLoop("k", 3, both("producer_acquire").concat(both("producer_commit"), [{ node: "set", name: "ps", op: "++", line: 22 }])),
          op("producer_tail", { object: "pa", state: "ps", line: 30 }), op("producer_tail", { object: "pb", state: "ps", line: 31 })]),
        when(role("Cons"), [forLoop("k", 3, both("consumer_wait").concat([{ node: "op", op: "tmem_load", receiver: "t", line: 24 }],
          both("consumer_release"), [{ node: "set", name: "cs", op: "++", line: 25 }]))])
      ] }
    }
  };
  const { r } = runOk(s, Object.assign({}, AKNOBS, { tmemLoadLatency: 1 }));
  assert.equal(r.deadlock, null);
});

test("an op on a pipeline object the program declares but cannot evaluate stops its role, named", () => {
  const s = kernel(2, [{ node: "let", names: ["px"], type: "auto", expr: ["call", "pick_pipeline", [id("pipe")]], line: 15 },
    forLoop("k", 2, [op("consumer_wait", { object: "px", state: "cs", line: 16 })].concat(consumeOne))]);
  const r = I.run(s, KNOBS, S.engine, {});
  assert.deepEqual(r.stopped.map((x) => [x.role, x.line]), [["Cons", 16]]);
  assert.match(r.stopped[0].reason, /the pipeline object `px` is not followed/);
});

test("a deadlock on barriers nothing ever arrived on, while a role binding reaches no step, is not called the code's", () => {
  // The producer's branch holds no step the run can see (its loads behind a call the run does not
  // follow): the consumer's wait on full[0] never completes. The page must not claim the code deadlocks.
  const st = kernel(1, consumeOne);
  st.kernel_layer.program.body[3].then = [{ node: "call", name: "load_everything", args: [], line: 8 }];
  const r = S.simulate(st, Object.assign({ model: "program" }, KNOBS));
  assert.ok(r.deadlock !== null);
  assert.deepEqual(r.deadlock.afterIdle, ["Prod"]);
  assert.match(r.deadlock.message, /^not shown to be the code's: P\.full\[0\] never completed while the role bindings Prod reach no step/);
  // A real deadlock (the producer runs, one stage too few for what the consumer holds) keeps its name.
  const real = kernel(2, [op("consumer_wait", { state: "cs" }), { node: "set", name: "cs", op: "++", line: 12 }, op("consumer_wait", { state: "cs" })]);
  const d = S.simulate(real, Object.assign({ model: "program" }, KNOBS, { stages: 1 }));
  assert.ok(d.deadlock !== null && d.deadlock.afterIdle === undefined, d.deadlock && d.deadlock.message);
  assert.match(d.deadlock.message, /^deadlock: /);
});

test("a simulator bug is an internal-error result, never an exception (schedule.js simulateSteps)", () => {
  const st = JSON.parse(require("fs").readFileSync(path.join(__dirname, "..", "..", "examples", "sm90_gemm_pingpong.json"), "utf8"));
  const run = I.run;
  I.run = () => { throw new TypeError("injected"); };
  let r;
  try { r = S.simulate(st, { model: "program", stages: 3 }); } finally { I.run = run; }
  assert.equal(r.error, "internal error (a bug of the simulator, not of the kernel): TypeError: injected");
  assert.equal(r.total, 0);
  assert.ok(Array.isArray(r.lanes) && Array.isArray(r.blocks));
  // The next run is the model's own again.
  assert.equal(S.simulate(st, { model: "program", stages: 3 }).error, null);
});
