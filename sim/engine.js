/*
 * sim/engine.js: the discrete-event engine of kernel_logical_visualizer's simulator
 * (docs/simulator.md "Engine API"): Engine (lanes, barriers, tensor-core queues, roles and the
 * command builders a role program yields), Role and Command. Its synchronisation objects (Barrier,
 * MmaQueue / MmaJob, EventLog) and the pipeline objects the models build on it (Ring, PipeState,
 * OrderBarrier) are sim/barrier.js's, exported here with the Engine. Blocks go to sim/timeline.js's
 * Timeline.
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after
 * sim/timeline.js and sim/barrier.js and before schedule.js as a classic script, which makes KernelEngine a global;
 * Node gets the same object through module.exports.
 */
var KernelEngine = (function () {
  "use strict";

  /** sim/timeline.js: the page's global, or require()d next to this file. */
  function timelineModule() {
    if (typeof KernelTimeline !== "undefined") return KernelTimeline;
    if (typeof require === "function" && typeof module !== "undefined") return require("./timeline.js");
    throw new Error("sim/engine.js: sim/timeline.js is not loaded (the page runs it before this file)");
  }

  /** sim/barrier.js: the page's global, or require()d next to this file. */
  function barrierModule() {
    if (typeof KernelBarrier !== "undefined") return KernelBarrier;
    if (typeof require === "function" && typeof module !== "undefined") return require("./barrier.js");
    throw new Error("sim/engine.js: sim/barrier.js is not loaded (the page runs it before this file)");
  }

  var TL = timelineModule(), B = barrierModule();
  var Timeline = TL.Timeline, objectList = TL.objectList, grown = TL.grown, KIND_WAIT = TL.KIND_WAIT, EMPTY = TL.EMPTY;
  var Barrier = B.Barrier, MmaQueue = B.MmaQueue, MmaJob = B.MmaJob, openJob = B.openJob, removeOpen = B.removeOpen,
    EventLog = B.EventLog, EV_ARRIVE = B.EV_ARRIVE, EV_COMPLETE = B.EV_COMPLETE, EV_WAIT_BEGIN = B.EV_WAIT_BEGIN,
    EV_WAIT_END = B.EV_WAIT_END, EV_NAMES = B.EV_NAMES;

  // Engine: a small discrete-event engine that executes role programs (docs/simulator.md "Engine API").
  //
  // A role program is a generator function(role) yielding commands made by the Engine's command
  // builders (wait, arrive, work, copy, mma, mmaWait, commit, sync). The engine always advances the
  // runnable role with the smallest clock (ties: the role that ran last, then creation order), so
  // shared in-order resources (the tensor-core queue) see issues in time order. Arrivals may be
  // recorded at a future time (a TMA lands L steps after its issue; a commit arrives when the
  // MMAs complete): a phase completes at the latest time among its arrivals, and a wait resolves
  // at max(the waiter's clock, that completion time).

  /** pendingN of a role parked on a job's other parts: any count passes (a small integer, not Infinity). */
  var NO_MMA_WAIT = 0x3fffffff;

  var CMD_WAIT = 1, CMD_ARRIVE = 2, CMD_WORK = 3, CMD_COPY = 4, CMD_MMA = 5, CMD_MMA_WAIT = 6, CMD_COMMIT = 7,
    CMD_SYNC = 8;

  function Role(engine, index, name, lane, program, options) {
    this.engine = engine;
    this.index = index;
    this.name = name;
    // lane index
    this.lane = lane;
    // the program's generator, or its step function
    this.gen = null;
    this.stepFn = null;
    this.program = program;
    this.now = 0;
    this.done = false;
    // the barrier waited on, or null
    this.blocked = null;
    // parity, source line and wait-block fields of that wait
    this.bParity = 0;
    this.bLine = null;
    this.wReason = null;
    this.wLines = null;
    this.wTile = null;
    this.wK = null;
    this.wStage = null;
    // warpgroup_wait count to re-check when parked on an MMA job
    this.pendingN = 0;
    // r.jobs[jobHead..] are outstanding
    this.jobHead = 0;
    // blocks binding at the current clock: after[0..nAfter) (slots reused, never shrunk)
    this.after = [];
    this.nAfter = 0;
    // outstanding MMA jobs, oldest first
    this.jobs = objectList();
    // the next role parked on the same MMA job (MmaJob.park)
    this.nextWaiter = null;
    this.lastJob = null;
    this.drawWaits = !options || options.drawWaits !== false;
    // reason -> steps (drawn wait blocks), built when the run ends from waitReasons / waitSteps
    // (the reasons in the order they first occurred, and their totals)
    this.waits = {};
    this.waitReasons = objectList();
    this.waitSteps = [];
    this.waitTotal = 0;
    // a held TMA transaction (copies with `hold`, Engine.copy): its full barrier, the latest
    // landing and that copy's fill block; arrived on at the role's next other command or its end
    this.txBar = null;
    this.txLand = 0;
    this.txBlk = -1;
  }

  /**
   * %GeneratorPrototype%.next, the `next` of every role program's generator. Each generator
   * function has its own prototype, so `r.gen.next` would be a megamorphic lookup per command.
   */
  var GENERATOR_NEXT = Object.getPrototypeOf(function* () {}).prototype.next;

  /**
   * The command a program yields (one per engine, refilled by each builder): every field
   * declared here so the object keeps one shape whatever the order of the commands.
   */
  function Command() {
    this.op = 0;
    this.bar = null;
    this.parity = 0;
    this.reason = null;
    this.lines = null;
    this.tile = null;
    this.k = null;
    this.stage = null;
    this.line = null;
    this.count = 1;
    this.latency = 0;
    this.kind = null;
    this.li = -1;
    this.fillLines = null;
    this.ring = null;
    this.operand = null;
    this.queue = null;
    this.parts = 1;
    this.key = null;
    this.n = 0;
  }

  /** The engine: lanes, barriers, queues, roles; run() executes until all roles end or none can move. */
  function Engine(lanes, options) {
    this.lanes = lanes;
    this.build = !options || options.build !== false;
    // A run that builds no blocks (a probe) keeps only the timeline's total: no lane columns.
    this.tl = new Timeline(this.build ? lanes : [], options && options.operand, this.build ? options && options.capacity : 0);
    // end of the last block drawn per lane
    this.laneEnd = new Float64Array(lanes.length);
    // handle of the last block drawn per lane
    this.laneLast = new Int32Array(lanes.length).fill(-1);
    this.barriers = objectList();
    // Barrier events, recorded compactly (typed columns) and turned into objects only when read.
    // about two barrier events per block
    this.events = this.build && (!options || options.events !== false) ? new EventLog(2 * ((options && options.capacity) || 0)) : null;
    this.queues = objectList();
    this.roles = objectList();
    this.heap = objectList();
    // set by a hook to end a run early (minStagesToHideTma probes)
    this.stopped = false;
    // watchLate(): the reason of a "late" wait (one that starts after step 0 and ends while
    // lateQueue is idle), whether one was drawn, whether it ends the run
    this.lateReason = null;
    this.lateQueue = null;
    this.late = false;
    this.stopOnLate = false;
    this.cmd = new Command();
  }

  /**
   * Watch for a late wait: a wait block of `reason` that starts after step 0 and ends while queue
   * q is idle (engine.late turns true; with stop, the run ends there). The GEMM model's
   * minStagesToHideTma probe ("tma", the tensor core).
   */
  Engine.prototype.watchLate = function (reason, q, stop) {
    this.lateReason = reason;
    this.lateQueue = q;
    this.stopOnLate = !!stop;
  };

  /** New barrier; lines = {wait: [int], arrive: [int]}. */
  Engine.prototype.barrier = function (name, kind, stage, expected, lines) {
    var b = new Barrier(this.barriers.length, name, kind, stage, expected, lines || { wait: [], arrive: [] });
    this.barriers.push(b);
    return b;
  };

  /** New tensor-core (or any in-order unit) queue. */
  Engine.prototype.queue = function (name) {
    var q = new MmaQueue(name);
    this.queues.push(q);
    return q;
  };

  /**
   * New role on lane index `lane`, running program(role), which returns either a generator
   * (yielding commands) or a step function (returning the next command, null at the end; the
   * hot models' roles, which saves a generator resumption per command).
   */
  Engine.prototype.role = function (name, lane, program, options) {
    var r = new Role(this, this.roles.length, name, lane, program, options);
    this.roles.push(r);
    return r;
  };

  /** Record a barrier event (time-sorted when the run ends). */
  Engine.prototype.event = function (t, bar, type, role) {
    if (this.events === null) return;
    this.events.add(t, bar.id, type, role ? role.lane : -1);
  };

  /**
   * Draw a block on lane index li; its `after` block handles are after[0..nAfter) (nAfter
   * defaults to after.length). Returns the block's handle (an index into the timeline's
   * columns), or -1 when not building.
   */
  Engine.prototype.draw = function (li, kind, start, end, tile, k, stage, reason, lines, after, nAfter) {
    if (end > this.laneEnd[li]) this.laneEnd[li] = end;
    if (!this.build) { if (end > this.tl.total) this.tl.total = end; return -1; }
    var blk = this.tl.add(li, kind, start, end, tile, k, stage, reason, lines, after, nAfter === undefined ? after.length : nAfter);
    this.laneLast[li] = blk;
    return blk;
  };

  /** One arrival on bar at time t caused by block blk (may be a future time). */
  Engine.prototype.arrive = function (bar, t, blk, role) {
    if (bar.arrivals === 0 || t >= bar.pendTime) { bar.pendTime = t; bar.pendBlk = blk; }
    bar.arrivals++;
    if (this.events !== null) this.event(t, bar, EV_ARRIVE, role);
    if (bar.arrivals < bar.expected) return;
    bar.arrivals = 0;
    bar.completed++;
    bar.time = bar.pendTime;
    bar.blk = bar.pendBlk;
    if (this.events !== null) this.event(bar.time, bar, EV_COMPLETE, null);
    if (bar.onComplete !== null) bar.onComplete(bar, bar.time);
    var nw = bar.nWaiting;
    if (nw > 0) {
      // Resume the waiters this phase releases, in order; keep the others (in place: only a
      // wait adds one, and none runs while this loop resumes roles, since resume only queues
      // them).
      var waiters = bar.waiters, kept = 0;
      for (var i = 0; i < nw; i++) {
        var w = waiters[i];
        if ((bar.completed & 1) !== w.bParity) this.resume(w, bar);
        else waiters[kept++] = w;
      }
      for (var j = kept; j < nw; j++) waiters[j] = null;
      bar.nWaiting = kept;
    }
  };

  /** Role r passes the wait it is blocked on (bar completed): advance its clock, draw its wait block. */
  Engine.prototype.resume = function (r, bar) {
    r.blocked = null;
    this.passWait(r, bar, r.wReason, r.wLines, r.wTile, r.wK, r.wStage);
    this.push(r);
  };

  /** Common part of a passed wait: clock, binding block, wait block on the role's lane. */
  Engine.prototype.passWait = function (r, bar, reason, lines, tile, k, stage) {
    var t = bar.time > r.now ? bar.time : r.now;
    if (this.events !== null) this.event(t, bar, EV_WAIT_END, r);
    this.advanceTo(r, t, bar.blk, bar.time, reason, lines, tile, k, stage);
  };

  /** Move role r's clock to t because of cause (which ended at causeTime); draws the wait block. */
  Engine.prototype.advanceTo = function (r, t, cause, causeTime, reason, lines, tile, k, stage) {
    var before = r.now;
    if (t > r.now) { r.now = t; r.nAfter = 0; }
    if (cause >= 0 && causeTime === t && !hasAfter(r, cause)) r.after[r.nAfter++] = cause;
    var li = r.lane;
    // The wait block covers the time the role was blocked and its lane shows nothing else.
    var from = this.laneEnd[li] > before ? this.laneEnd[li] : before;
    if (r.drawWaits && t > from && reason !== null) {
      this.drawAfter1(li, "wait", from, t, tile, k, stage, reason, lines, this.laneLast[li]);
      addWait(r, reason, t - from);
      r.waitTotal += t - from;
      if (reason === this.lateReason && from > 0 && this.lateQueue.end < t) {
        this.late = true;
        if (this.stopOnLate) this.stopped = true;
      }
    }
  };

  /** Add dt steps of waiting for `reason` to role r's totals. */
  function addWait(r, reason, dt) {
    var list = r.waitReasons;
    for (var i = 0; i < list.length; i++) {
      if (list[i] === reason) { r.waitSteps[i] += dt; return; }
    }
    list.push(reason);
    r.waitSteps.push(dt);
  }

  /** role.waits of each role from its totals (reasons in the order they first occurred). */
  function finishWaits(roles) {
    for (var i = 0; i < roles.length; i++) {
      var r = roles[i], waits = {};
      for (var j = 0; j < r.waitReasons.length; j++) waits[r.waitReasons[j]] = r.waitSteps[j];
      r.waits = waits;
    }
  }

  /** Whether block handle b is among role r's binding blocks. */
  function hasAfter(r, b) {
    for (var i = 0; i < r.nAfter; i++) if (r.after[i] === b) return true;
    return false;
  }

  /** Handles collected by bindings(): BIND[0..nBind). */
  var BIND = [], nBind = 0;

  /** Scratch `after` list of one handle (drawAfter1). */
  var ONE = [-1];

  /** Add handle b to BIND unless already there (tiny lists: linear scan). */
  function bind(b) {
    for (var i = 0; i < nBind; i++) if (BIND[i] === b) return;
    BIND[nBind++] = b;
  }

  /**
   * Blocks binding role r at time start: its pending causes, lane li's last block (not a wait)
   * and block `own` (work on a sub-lane: the role's own last block) if they end at start. They
   * are left in BIND[0..n); returns n (draw(..., BIND, n) copies them).
   */
  Engine.prototype.bindings = function (r, start, li, own) {
    if (!this.build) return 0;
    var last = this.laneLast[li], tl = this.tl;
    nBind = 0;
    for (var i = 0; i < r.nAfter; i++) {
      var b = r.after[i];
      if (b >= 0 && tl.endOf(b) === start) bind(b);
    }
    if (last >= 0 && tl.endOf(last) === start && tl.kindOf(last) !== KIND_WAIT) bind(last);
    if (own >= 0 && tl.endOf(own) === start) bind(own);
    return nBind;
  };

  /** draw() with `after` the one handle h (none when h < 0). */
  Engine.prototype.drawAfter1 = function (li, kind, start, end, tile, k, stage, reason, lines, h) {
    ONE[0] = h;
    return this.draw(li, kind, start, end, tile, k, stage, reason, lines, ONE, h < 0 ? 0 : 1);
  };

  // Command builders (one shared command object: the engine reads it before resuming any program).

  /** Block until bar's phase with parity `parity` completes; a wait block with reason and lines if it blocks. */
  Engine.prototype.wait = function (bar, parity, reason, lines, tile, k, stage, line) {
    var c = this.cmd;
    c.op = CMD_WAIT; c.bar = bar; c.parity = parity; c.reason = reason; c.lines = lines;
    c.tile = tile; c.k = k; c.stage = stage; c.line = line === undefined ? null : line;
    return c;
  };

  /** Instantaneous arrival on bar (consumer_release, producer_commit, order-barrier arrive, named arrive). */
  Engine.prototype.arriveCmd = function (bar, count) {
    var c = this.cmd;
    c.op = CMD_ARRIVE; c.bar = bar; c.count = count || 1;
    return c;
  };

  /** Opaque work of `latency` steps drawn on lane index li (default the role's lane). */
  Engine.prototype.work = function (latency, kind, lines, tile, k, stage, li) {
    var c = this.cmd;
    c.op = CMD_WORK; c.latency = latency; c.kind = kind; c.lines = lines; c.tile = tile; c.k = k; c.stage = stage;
    c.li = li === undefined ? -1 : li;
    return c;
  };

  /**
   * Asynchronous copy (TMA): `issue` steps on the role (an "issue" block), then the data lands
   * `latency` steps later (a "filling" block on fillLane) and arrives on bar (the stage's full
   * barrier, expected 1: the transaction bytes). ring/item let a Ring draw the FULL block later.
   */
  Engine.prototype.copy = function (bar, latency, issueLines, fillLines, tile, k, stage, fillLane, ring, operand, hold) {
    var c = this.cmd;
    c.op = CMD_COPY; c.bar = bar; c.latency = latency; c.lines = issueLines; c.fillLines = fillLines;
    c.tile = tile; c.k = k; c.stage = stage; c.li = fillLane; c.ring = ring || null; c.operand = operand || null;
    c.hold = hold === true;
    return c;
  };

  /**
   * The role's held TMA transaction arrives: one arrival on its full barrier at the latest
   * landing of its copies (mbarrier transaction bytes: the phase completes when every copy of
   * the stage has landed; docs/simulator.md "Copies of one transaction").
   */
  Engine.prototype.flushTx = function (r) {
    var bar = r.txBar;
    r.txBar = null;
    this.arrive(bar, r.txLand, r.txBlk, null);
  };

  /**
   * Issue an MMA job of `latency` on queue q: it starts at max(issue time, end of the previously
   * issued job) and is drawn on the role's lane as `kind`. parts > 1 with a key: one job for
   * several roles (cooperative WGs); it starts once all parts are issued, and each issuer waits
   * for that (the WGs of a cooperative tile issue together).
   */
  Engine.prototype.mma = function (q, latency, kind, lines, tile, k, stage, parts, key) {
    var c = this.cmd;
    c.op = CMD_MMA; c.queue = q; c.latency = latency; c.kind = kind; c.lines = lines; c.tile = tile; c.k = k;
    c.stage = stage; c.parts = parts || 1; c.key = key === undefined ? null : key;
    return c;
  };

  /** warpgroup_wait<n>: block until at most n of this role's MMA jobs are incomplete. */
  Engine.prototype.mmaWait = function (n, reason, lines) {
    var c = this.cmd;
    c.op = CMD_MMA_WAIT; c.n = n; c.reason = reason || null; c.lines = lines || EMPTY;
    return c;
  };

  /** tcgen05.commit / umma_arrive: arrive on bar when every MMA this role issued so far completes. */
  Engine.prototype.commit = function (bar) {
    var c = this.cmd;
    c.op = CMD_COMMIT; c.bar = bar;
    return c;
  };

  /** Named barrier sync (bar.sync): arrive, then wait for the phase this arrival belongs to. */
  Engine.prototype.sync = function (bar, reason, lines, tile, k, stage, line) {
    var c = this.wait(bar, 0, reason, lines, tile, k, stage, line);
    c.op = CMD_SYNC;
    return c;
  };

  // Heap of runnable roles by (clock, index).

  Engine.prototype.less = function (a, b) {
    return a.now < b.now || (a.now === b.now && a.index < b.index);
  };

  Engine.prototype.push = function (r) {
    var h = this.heap;
    var i = h.length;
    h.push(r);
    while (i > 0) {
      var p = (i - 1) >> 1;
      if (!this.less(h[i], h[p])) break;
      var tmp = h[i]; h[i] = h[p]; h[p] = tmp;
      i = p;
    }
  };

  Engine.prototype.pop = function () {
    var h = this.heap;
    var top = h[0];
    var last = h.pop();
    if (h.length > 0) {
      h[0] = last;
      var i = 0, n = h.length;
      for (;;) {
        var l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && this.less(h[l], h[m])) m = l;
        if (r < n && this.less(h[r], h[m])) m = r;
        if (m === i) break;
        var tmp = h[i]; h[i] = h[m]; h[m] = tmp;
        i = m;
      }
    }
    return top;
  };

  /** Start the queue's pending jobs whose parts are all issued, in issue order. */
  Engine.prototype.startJobs = function (q) {
    while (q.pending.length > 0 && q.pending[0].issued === q.pending[0].parts) {
      var job = q.pending.shift();
      var start = job.issueTime > q.end ? job.issueTime : q.end;
      job.start = start;
      job.end = start + job.latency;
      q.busy += job.latency;
      var first = -1;
      for (var i = 0; i < job.issued; i++) {
        var r = job.roleOf(i), li = r.lane;
        if (r.drawWaits && start > this.laneEnd[li] && start > job.issueTime) {
          // Issued, but queued behind another job: the WG's lane waits for the tensor core.
          this.advanceLaneWait(r, start, "tensor-core", job);
        }
        if (this.build) {
          if (q.blk >= 0 && q.end === start) r.after[r.nAfter++] = q.blk;
          var nb = this.bindings(r, start, li);
          var blk = this.draw(li, job.kind, start, job.end, job.tile, job.k, job.stage, null, job.lines, BIND, nb);
          if (first < 0) first = blk;
          job.setBlk(i, blk);
        } else this.draw(li, job.kind, start, job.end, null, null, null, null, null, EMPTY, 0);
      }
      job.blk = first;
      q.end = job.end;
      q.blk = first;
      job.done = true;
      if (job.commits !== null) {
        for (var c = 0; c < job.commits.length; c++) this.arrive(job.commits[c][0], job.end, first, job.commits[c][1]);
      }
      var w = job.waitHead;
      job.waitHead = job.waitTail = null;
      while (w !== null) {
        // step() may park w on another job (which relinks it): take the next one first
        var nextW = w.nextWaiter;
        w.nextWaiter = null;
        this.step(w);
        w = nextW;
      }
    }
  };

  /** A wait block on r's lane up to t that is not a barrier wait (queued MMA). */
  Engine.prototype.advanceLaneWait = function (r, t, reason, job) {
    var li = r.lane, from = this.laneEnd[li] > job.issueTime ? this.laneEnd[li] : job.issueTime;
    this.drawAfter1(li, "wait", from, t, job.tile, job.k, job.stage, reason, job.lines, this.laneLast[li]);
    addWait(r, reason, t - from);
    r.waitTotal += t - from;
  };

  /**
   * Execute one command of role r. Returns true when r may continue at once, false when it is
   * blocked (parked on a barrier or a job) or finished.
   */
  Engine.prototype.exec = function (r, c) {
    var t, li, blk, nb;
    if (r.txBar !== null && !(c.op === CMD_COPY && c.hold && c.bar === r.txBar)) this.flushTx(r);
    switch (c.op) {
      case CMD_WAIT:
      case CMD_SYNC: {
        var bar = c.bar, parity = c.parity;
        if (c.op === CMD_SYNC) {
          parity = bar.completed & 1;
          blk = this.build ? this.laneLast[r.lane] : -1;
          this.arrive(bar, r.now, blk, r);
        }
        if (this.events !== null) this.event(r.now, bar, EV_WAIT_BEGIN, r);
        if ((bar.completed & 1) !== parity) {
          this.passWait(r, bar, c.reason, c.lines, c.tile, c.k, c.stage);
          return true;
        }
        r.blocked = bar;
        r.bParity = parity;
        r.bLine = c.line;
        r.wReason = c.reason; r.wLines = c.lines; r.wTile = c.tile; r.wK = c.k; r.wStage = c.stage;
        bar.waiters[bar.nWaiting++] = r;
        return false;
      }
      case CMD_ARRIVE: {
        blk = this.build ? (r.nAfter > 0 ? r.after[r.nAfter - 1] : this.laneLast[r.lane]) : -1;
        for (var n = 0; n < c.count; n++) this.arrive(c.bar, r.now, blk, r);
        return true;
      }
      case CMD_WORK: {
        if (c.latency <= 0) return true;
        li = c.li < 0 ? r.lane : c.li;
        t = r.now;
        nb = this.bindings(r, t, li, li !== r.lane ? this.laneLast[r.lane] : -1);
        blk = this.draw(li, c.kind, t, t + c.latency, c.tile, c.k, c.stage, null, c.lines, BIND, nb);
        r.now = t + c.latency;
        r.nAfter = 0;
        if (blk >= 0) r.after[r.nAfter++] = blk;
        return true;
      }
      case CMD_COPY: {
        t = r.now;
        nb = this.bindings(r, t, r.lane);
        var issue = this.draw(r.lane, "issue", t, t + 1, c.tile, c.k, c.stage, null, c.lines, BIND, nb);
        if (issue >= 0 && c.operand !== null) this.tl.setOperand(issue, c.operand);
        var land = t + 1 + c.latency;
        var fill = issue;
        if (c.latency > 0) {
          fill = this.drawAfter1(c.li, "filling", t + 1, land, c.tile, c.k, c.stage, null, c.fillLines, issue);
          if (fill >= 0 && c.operand !== null) this.tl.setOperand(fill, c.operand);
        }
        if (c.ring !== null) c.ring.landed(c.stage, land, fill, c.tile, c.k);
        r.now = t + 1;
        r.nAfter = 0;
        if (issue >= 0) r.after[r.nAfter++] = issue;
        if (!c.hold) this.arrive(c.bar, land, fill, null);
        else if (r.txBar === null || land >= r.txLand) { r.txBar = c.bar; r.txLand = land; r.txBlk = fill; }
        return true;
      }
      case CMD_MMA:
        return this.issueMma(r, c);
      case CMD_MMA_WAIT:
        return this.mmaWaitNow(r, c.n);
      case CMD_COMMIT: {
        var last = r.lastJob;
        if (last === null) this.arrive(c.bar, r.now, -1, r);
        else if (last.done) this.arrive(c.bar, last.end > r.now ? last.end : r.now, last.blk, r);
        else (last.commits || (last.commits = [])).push([c.bar, r]);
        return true;
      }
    }
    throw new Error("engine: unknown command " + c.op);
  };

  /** CMD_MMA of role r: issue its part of the job (a new one, or the open job of its key); false while the job waits for other parts. */
  Engine.prototype.issueMma = function (r, c) {
    var q = c.queue, job = null;
    if (c.key !== null) job = openJob(q, c.key);
    if (job === null) {
      job = new MmaJob(c);
      q.pending.push(job);
      if (c.key !== null && c.parts > 1) q.open.push(job);
    }
    job.issued++;
    if (r.now > job.issueTime) job.issueTime = r.now;
    job.addRole(r);
    r.jobs.push(job);
    r.lastJob = job;
    if (job.issued === job.parts && job.key !== null && job.parts > 1) removeOpen(q, job);
    this.startJobs(q);
    if (!job.done) {
      // Wait for the other parts; resume with a no-op re-check (the job is done then).
      r.pendingN = NO_MMA_WAIT;
      job.park(r);
      return false;
    }
    return true;
  };

  /** warpgroup_wait<n> of role r: true when passed (clock advanced), false when parked on a job. */
  Engine.prototype.mmaWaitNow = function (r, n) {
    var jobs = r.jobs;
    var outstanding = jobs.length - r.jobHead;
    if (outstanding <= n) return true;
    var target = jobs[jobs.length - 1 - n];
    if (!target.done) {
      r.pendingN = n;
      target.park(r);
      return false;
    }
    r.jobHead = jobs.length - n;
    if (r.jobHead > 64 && r.jobHead * 2 > jobs.length) {
      // drop the passed jobs in place
      var keep = jobs.length - r.jobHead;
      for (var i = 0; i < keep; i++) jobs[i] = jobs[r.jobHead + i];
      jobs.length = keep;
      r.jobHead = 0;
    }
    var own = -1;
    if (this.build) own = target.blkOf(r);
    this.advanceTo(r, target.end > r.now ? target.end : r.now, own, target.end, null, EMPTY, target.tile, target.k, target.stage);
    return true;
  };

  /** Resume a role parked on a job: re-check its warpgroup_wait, then continue its program. */
  Engine.prototype.step = function (r) {
    if (this.mmaWaitNow(r, r.pendingN)) this.push(r);
  };

  /**
   * Run every role to its end or until none can move. Returns null, or the deadlock
   * {step, message, waiting: [{lane, barrier, phase, line}]}.
   */
  Engine.prototype.run = function () {
    var i;
    for (i = 0; i < this.roles.length; i++) {
      var program = this.roles[i].program(this.roles[i]);
      if (typeof program === "function") this.roles[i].stepFn = program;
      else this.roles[i].gen = program;
      this.push(this.roles[i]);
    }
    while (this.heap.length > 0 && !this.stopped) {
      var r = this.pop();
      // Run r while it stays the earliest runnable role.
      for (;;) {
        var cmd;
        if (r.stepFn !== null) cmd = r.stepFn();
        else {
          var next = GENERATOR_NEXT.call(r.gen);
          cmd = next.done ? null : next.value;
        }
        // (stored every time: a store only reached at a role's end would deoptimise each run)
        r.done = cmd === null;
        if (r.done) { if (r.txBar !== null) this.flushTx(r); break; }
        if (!this.exec(r, cmd)) break;
        if (this.stopped) break;
        if (this.heap.length > 0 && this.less(this.heap[0], r)) { this.push(r); break; }
      }
    }
    finishWaits(this.roles);
    if (this.stopped) return null;
    return this.deadlock();
  };

  /**
   * After a run: null when every role ended, else the deadlock {step, message, waiting: [{lane,
   * barrier, phase, line}]} (the roles still waiting, each on its barrier or MMA job).
   */
  Engine.prototype.deadlock = function () {
    var i, waiting = [];
    for (i = 0; i < this.roles.length; i++) {
      var role = this.roles[i];
      if (role.done) continue;
      if (role.blocked !== null) {
        waiting.push({ lane: this.lanes[role.lane].id, barrier: role.blocked.name,
          phase: role.bParity, line: role.bLine, since: role.now });
      } else {
        waiting.push({ lane: this.lanes[role.lane].id, barrier: "tensor core (" + (role.lastJob ? "job of tile " +
          role.lastJob.tile + " k " + role.lastJob.k : "no job") + ")", phase: null, line: null, since: role.now });
      }
    }
    if (waiting.length === 0) return null;
    var step = 0;
    for (i = 0; i < waiting.length; i++) if (waiting[i].since > step) step = waiting[i].since;
    var text = waiting.map(function (w) {
      return w.lane + " waits on " + w.barrier + (w.phase === null ? "" : " (phase " + w.phase + ")") +
        (w.line === null ? "" : " at line " + w.line);
    });
    waiting.forEach(function (w) { delete w.since; });
    return { step: step, message: "deadlock: no role can progress after step " + step + ": " + text.join("; "), waiting: waiting };
  };

  /** Barrier descriptions for the result (CONTRACT.md `barriers`). */
  Engine.prototype.barrierList = function () {
    return this.barriers.map(function (b) {
      return { id: b.id, name: b.name, kind: b.kind, stage: b.stage, expected: b.expected, lines: b.lines };
    });
  };

  /**
   * Barrier events in time order (stable: same-time events keep their recording order), each
   * {t, barrier, type, lane, phase} with the barrier's phase bit after it. Arrivals can be
   * recorded ahead of time (a TMA landing), so the phase is replayed here: it flips at each
   * "complete". Returns a function that builds the array (the result's lazy barrierEvents).
   */
  Engine.prototype.sortedEvents = function () {
    var columns = this.sortedEventColumns();
    var build = function () {
      var c = columns(), out = new Array(c.n);
      for (var i = 0; i < c.n; i++) {
        out[i] = { t: c.t[i], barrier: c.barrier[i], type: EV_NAMES[c.type[i]], lane: c.lane[i] < 0 ? null : c.lanes[c.lane[i]],
          phase: c.phase[i] };
      }
      return out;
    };
    // The typed form rides along (the page's Worker transfers it instead of event objects).
    build.columns = columns;
    return build;
  };

  /**
   * The barrier events as typed columns in time order, built once on first call: {n, t
   * (Float64Array), barrier (Int32Array: barriers[].id), type (Uint8Array: index into
   * EV_NAMES / types), lane (Int32Array: index into lanes, -1 for none), phase (Uint8Array),
   * types, lanes}. Returns that function.
   */
  Engine.prototype.sortedEventColumns = function () {
    var log = this.events, laneIds = this.lanes.map(function (lane) { return lane.id; }), nBars = this.barriers.length;
    var cache = null;
    return function () {
      if (cache !== null) return cache;
      var n = log === null ? 0 : log.n, i;
      var c = { n: n, t: new Float64Array(n), barrier: new Int32Array(n), type: new Uint8Array(n), lane: new Int32Array(n),
        phase: new Uint8Array(n), types: EV_NAMES, lanes: laneIds };
      var order = new Float64Array(n);
      // Sort numeric keys t * 2^23 + recording index natively (stable by construction).
      for (i = 0; i < n; i++) order[i] = log.t[i] * 8388608 + i;
      order.sort();
      var phase = new Uint8Array(nBars);
      for (i = 0; i < n; i++) {
        var k = order[i] % 8388608;
        var bar = log.bar[k], type = log.type[k];
        if (type === EV_COMPLETE) phase[bar] ^= 1;
        c.t[i] = log.t[k]; c.barrier[i] = bar; c.type[i] = type; c.lane[i] = log.lane[k]; c.phase[i] = phase[bar];
      }
      cache = c;
      return c;
    };
  };


  return {
    Engine: Engine,
    Ring: B.Ring,
    OrderBarrier: B.OrderBarrier,
    PipeState: B.PipeState
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelEngine;
