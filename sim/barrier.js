/*
 * sim/barrier.js: the synchronisation objects of kernel_logical_visualizer's engine
 * (docs/simulator.md "Engine API"): Barrier (an mbarrier), MmaQueue / MmaJob (an in-order tensor
 * core and its jobs), EventLog (the barrier events), and the pipeline objects the models build on
 * the engine: Ring (a stage ring with its full and empty barriers), PipeState
 * (cutlass::PipelineState) and OrderBarrier (OrderedSequenceBarrier). sim/engine.js (the Engine,
 * its roles and commands) uses them and exports them with its own.
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after
 * sim/timeline.js and before sim/engine.js as a classic script, which makes KernelBarrier a
 * global; Node gets the same object through module.exports.
 */
var KernelBarrier = (function () {
  "use strict";

  /** sim/timeline.js: the page's global, or require()d next to this file. */
  function timelineModule() {
    if (typeof KernelTimeline !== "undefined") return KernelTimeline;
    if (typeof require === "function" && typeof module !== "undefined") return require("./timeline.js");
    throw new Error("sim/barrier.js: sim/timeline.js is not loaded (the page runs it before this file)");
  }

  var TL = timelineModule();
  var objectList = TL.objectList, grown = TL.grown;


  /**
   * An mbarrier: `expected` arrivals complete a phase; the phase bit is completed & 1. A wait on
   * parity p passes once (completed & 1) !== p (PTX mbarrier.try_wait.parity), at the time of the
   * latest completion.
   */
  function Barrier(id, name, kind, stage, expected, lines) {
    this.id = id;
    this.name = name;
    this.kind = kind;
    this.stage = stage;
    this.expected = expected;
    this.lines = lines;
    this.arrivals = 0;
    this.completed = 0;
    // time of the latest completion
    this.time = 0;
    // block (handle) whose end completed it (the binding arrival), -1 for none
    this.blk = -1;
    this.pendTime = 0;
    this.pendBlk = -1;
    // roles blocked on it: waiters[0..nWaiting) (slots reused, never shrunk)
    this.waiters = objectList();
    this.nWaiting = 0;
    // function(barrier, time), e.g. a ring drawing a stage's FULL block
    this.onComplete = null;
  }

  /** In-order tensor-core queue shared by the roles of a CTA: one job at a time, FIFO by issue. */
  function MmaQueue(name) {
    this.name = name;
    // end of the last started job
    this.end = 0;
    this.blk = -1;
    // issued jobs waiting for their other parts (cooperative: one job, two WGs)
    this.pending = objectList();
    // jobs still collecting parts (by their key; a handful at most, so a list)
    this.open = objectList();
    // sum of job latencies (jobs never overlap)
    this.busy = 0;
  }

  /**
   * One MMA job on a queue. Its parts' roles and blocks: role0 / blk, role1 / blk1, then arrays
   * for any further parts (a cooperative job has two). Roles parked on it form a list through
   * Role.nextWaiter (waitHead .. waitTail, in the order they parked).
   */
  function MmaJob(c) {
    this.key = c.key;
    this.latency = c.latency;
    this.kind = c.kind;
    this.lines = c.lines;
    this.tile = c.tile;
    this.k = c.k;
    this.stage = c.stage;
    this.parts = c.parts;
    this.issued = 0;
    this.issueTime = 0;
    this.role0 = null;
    this.role1 = null;
    this.moreRoles = null;
    this.start = 0;
    this.end = 0;
    this.done = false;
    this.blk = -1;
    this.blk1 = -1;
    this.moreBlks = null;
    this.waitHead = null;
    this.waitTail = null;
    this.commits = null;
  }

  /** The open job of queue q with this key (parts still to be issued), or null. */
  function openJob(q, key) {
    for (var i = 0; i < q.open.length; i++) if (q.open[i].key === key) return q.open[i];
    return null;
  }

  /** Take job off queue q's open list (order there does not matter: it is searched by key). */
  function removeOpen(q, job) {
    var open = q.open, i = open.indexOf(job);
    open[i] = open[open.length - 1];
    open.pop();
  }

  /** The block (handle) this job drew on role r's lane. */
  MmaJob.prototype.blkOf = function (r) {
    if (r === this.role1) return this.blk1;
    if (this.moreRoles !== null) {
      for (var j = 0; j < this.moreRoles.length; j++) if (this.moreRoles[j] === r) return this.moreBlks[j];
    }
    return this.blk;
  };

  /** The role of part i (in issue order). */
  MmaJob.prototype.roleOf = function (i) {
    return i === 0 ? this.role0 : i === 1 ? this.role1 : this.moreRoles[i - 2];
  };

  /** Record role r as the job's next part. */
  MmaJob.prototype.addRole = function (r) {
    if (this.role0 === null) this.role0 = r;
    else if (this.role1 === null) this.role1 = r;
    else (this.moreRoles || (this.moreRoles = [])).push(r);
  };

  /** Record the block drawn for part i. */
  MmaJob.prototype.setBlk = function (i, blk) {
    if (i === 0) this.blk = blk;
    else if (i === 1) this.blk1 = blk;
    else (this.moreBlks || (this.moreBlks = [])).push(blk);
  };

  /** Park role r on this job (resumed by startJobs, in parking order). */
  MmaJob.prototype.park = function (r) {
    r.nextWaiter = null;
    if (this.waitTail === null) this.waitHead = r;
    else this.waitTail.nextWaiter = r;
    this.waitTail = r;
  };

  var EV_ARRIVE = 0, EV_COMPLETE = 1, EV_WAIT_BEGIN = 2, EV_WAIT_END = 3;
  var EV_NAMES = ["arrive", "complete", "wait_begin", "wait_end"];

  /** Growable typed columns of barrier events (t, barrier id, type code, lane index or -1). */
  function EventLog(capacity) {
    var cap = Math.max(1024, capacity || 0);
    this.n = 0;
    this.t = new Float64Array(cap);
    this.bar = new Int32Array(cap);
    this.type = new Uint8Array(cap);
    this.lane = new Int32Array(cap);
  }
  EventLog.prototype.add = function (t, bar, type, lane) {
    if (this.n === this.t.length) {
      this.t = grown(this.t, 0);
      this.bar = grown(this.bar, 0);
      this.type = grown(this.type, 0);
      this.lane = grown(this.lane, 0);
    }
    var i = this.n++;
    this.t[i] = t;
    this.bar[i] = bar;
    this.type[i] = type;
    this.lane[i] = lane;
  };

  /** A role: one lane (and optional sub-lanes), a program, a clock. */

  /**
   * A stage ring of one pipeline (PipelineTmaAsync / PipelineAsync / PipelineTmaUmmaAsync): S
   * stages, each with a full barrier (expected `fullExpected`: 1 = the TMA transaction) and an
   * empty barrier (expected `emptyExpected` consumer arrivals). Draws FILLING (by copy) and FULL
   * from the landing of the data to the completion of the stage's empty barrier (its release).
   */
  function Ring(engine, name, S, firstLane, fullExpected, emptyExpected, lines, fullLines) {
    this.engine = engine;
    this.name = name;
    this.S = S;
    this.firstLane = firstLane;
    this.full = [];
    this.empty = [];
    this.land = new Float64Array(S);
    this.landBlk = new Int32Array(S).fill(-1);
    this.landTile = new Array(S).fill(null);
    this.landK = new Array(S).fill(null);
    this.fullLines = fullLines || EMPTY;
    this.operand = null;
    var self = this;
    for (var s = 0; s < S; s++) {
      this.full.push(engine.barrier(name + ".full[" + s + "]", "full", s, fullExpected, lines.full));
      var e = engine.barrier(name + ".empty[" + s + "]", "empty", s, emptyExpected, lines.empty);
      e.onComplete = function (bar, t) { self.released(bar.stage, t, bar.blk); };
      this.empty.push(e);
    }
  }

  /** The data of (tile, k) landed in stage s at t (block blk). */
  Ring.prototype.landed = function (s, t, blk, tile, k) {
    this.land[s] = t;
    this.landBlk[s] = blk;
    this.landTile[s] = tile;
    this.landK[s] = k;
  };

  /** Stage s released at t: draw its FULL block from the landing. */
  Ring.prototype.released = function (s, t) {
    var eng = this.engine;
    if (this.landBlk[s] < 0 && eng.build) return;
    if (t > this.land[s]) {
      var fb = this.landBlk[s];
      var blk = eng.drawAfter1(this.firstLane + s, "full", this.land[s], t, this.landTile[s], this.landK[s], s, null,
        this.fullLines, fb);
      if (blk >= 0 && fb >= 0 && eng.tl.operandOf(fb)) eng.tl.setOperand(blk, eng.tl.operandOf(fb));
    }
    this.landBlk[s] = -1;
  };

  /** Producer/consumer pipeline state (cutlass::PipelineState): index, phase, count. */
  function PipeState(S, index, phase) {
    this.S = S;
    this.index = index;
    this.phase = phase;
  }
  PipeState.prototype.advance = function (n) {
    for (var i = 0; i < (n === undefined ? 1 : n); i++) {
      this.index++;
      if (this.index === this.S) { this.index = 0; this.phase ^= 1; }
    }
    return this;
  };
  PipeState.prototype.clone = function () { return new PipeState(this.S, this.index, this.phase); };

  /**
   * OrderedSequenceBarrier<Depth, Length> (sm90_pipeline.hpp 1262-1353): Depth x Length barriers
   * of one group arrival each; group g waits on barrier[stage][g] with its phase (group 0 starts
   * on the opposite phase, so it passes first) and arrive() signals barrier[stage][g+1 mod Length]
   * and advances its stage.
   */
  function OrderBarrier(engine, name, depth, length, lines) {
    this.engine = engine;
    this.depth = depth;
    this.length = length;
    this.bars = [];
    for (var d = 0; d < depth; d++) {
      for (var l = 0; l < length; l++) {
        this.bars.push(engine.barrier(name + "[" + d + "][" + l + "]", "order", d, 1, lines));
      }
    }
    this.state = [];
    for (var g = 0; g < length; g++) this.state.push(new PipeState(depth, 0, g === 0 ? 1 : 0));
  }

  /** Command: group g waits for its turn. */
  OrderBarrier.prototype.wait = function (g, reason, lines, tile, k, stage, line) {
    var st = this.state[g];
    return this.engine.wait(this.bars[st.index * this.length + g], st.phase, reason, lines, tile, k, stage, line);
  };

  /** Command: group g hands over to group g + 1 and advances. */
  OrderBarrier.prototype.arrive = function (g) {
    var st = this.state[g];
    var bar = this.bars[st.index * this.length + (g + 1) % this.length];
    st.advance(1);
    return this.engine.arriveCmd(bar, 1);
  };

  return {
    Barrier: Barrier, MmaQueue: MmaQueue, MmaJob: MmaJob, openJob: openJob, removeOpen: removeOpen,
    EventLog: EventLog, EV_ARRIVE: EV_ARRIVE, EV_COMPLETE: EV_COMPLETE, EV_WAIT_BEGIN: EV_WAIT_BEGIN,
    EV_WAIT_END: EV_WAIT_END, EV_NAMES: EV_NAMES, Ring: Ring, PipeState: PipeState, OrderBarrier: OrderBarrier
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelBarrier;
