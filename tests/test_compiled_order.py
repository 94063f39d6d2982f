"""Compiled order: the role programs (docs/programs.md) visit the compiled protocol lines in the
order nvcc's PTX reaches them along each role's path (docs/compiled-truth.md, "3. Order").

For the SM90 TMA GEMMs (the collective sm90_mma_tma_gmma_ss_warpspecialized.hpp with the
pingpong, cooperative and basic kernel layers), the SM100 1-SM GEMM (sm100_mma_warpspecialized.hpp
with sm100_gemm_tma_warpspecialized.hpp) and CUTLASS 77's Blackwell attention forward (its
mainloop, the composed Load collective and the epilogue joined with parse_cutlass.add_epilogue),
each role of enumerateRoles (sim/interpret.js) is walked statically through the kernel layer's
program: a branch that the role binding or a compile-time value decides takes that side, any other
branch both sides (then before else), each loop one iteration (init, body, step), and a call the
interpreter runs as a program is inlined (a collective's function, a composed collective's
`A::f` with its own path, a collective's free call of its own helper). Each visited op or call is
matched to the protocol instructions whose inline chain, read in the unit's program files from the
outermost frame, passes through the step's call sites and then its own lines. The checks: the
visited steps' first instructions are in PTX order; every program loop the compiler kept is a PTX
back edge holding exactly that loop's steps; every compiled line is on some role's path. The
units' PTX comes from tests/compiled/ptx_cache.py (the same cache as test_compiled_truth.py).
"""

import copy
import json
import subprocess
import sys
from dataclasses import dataclass

import pytest

import parse_cutlass
import ptx_lines
from node_util import ROOT, node

sys.path.insert(0, str(ROOT / "tests" / "compiled"))
import ptx_cache  # noqa: E402
from test_compiled_truth import (EXPECTED_MISSING, FMHA77, INSTANTIATION_DEAD, KERNEL, MAINLOOP,  # noqa: E402
                                 NOT_CHECKED, _no_nvcc)

COLLECTIVE = MAINLOOP + "sm90_mma_tma_gmma_ss_warpspecialized.hpp"
SM100_KERNEL = KERNEL + "sm100_gemm_tma_warpspecialized.hpp"
SM100_COLLECTIVE = MAINLOOP + "sm100_mma_warpspecialized.hpp"
FMHA_KERNEL = FMHA77 + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp"
FMHA_MAINLOOP = FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp"
FMHA_LOAD = FMHA77 + "collective/sm100_fmha_load_tma_warpspecialized.hpp"
FMHA_EPILOGUE = FMHA77 + "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp"


@dataclass(frozen=True)
class Spec:
    """What a unit's programs are parsed from (paths under the CUTLASS root): the kernel layer, the
    mainloop collective, and the epilogue collective joined as parse_cutlass.add_epilogue does
    (--epilogue-collective), if any. Composed collectives come from the parse (`collectives`)."""
    kernel: str
    mainloop: str
    epilogue: str = None
    composed: tuple = ()   # the composed collectives the parse is expected to join
    flags: tuple = ()      # the compile-time flags (`if constexpr` names nothing defines) the TU has on


UNITS = {
    "sm90_gemm_pingpong": Spec(KERNEL + "sm90_gemm_tma_warpspecialized_pingpong.hpp", COLLECTIVE),
    "sm90_gemm_cooperative": Spec(KERNEL + "sm90_gemm_tma_warpspecialized_cooperative.hpp", COLLECTIVE),
    "sm90_gemm_warpspecialized": Spec(KERNEL + "sm90_gemm_tma_warpspecialized.hpp", COLLECTIVE),
    # GemmUniversal's default scheduler for SM100 is the CLC one (PersistentTileSchedulerSm100:
    # IsDynamicPersistent, kernel layer 132); its PTX has the clusterlaunchcontrol.try_cancel at 697.
    "sm100_gemm_1sm": Spec(SM100_KERNEL, SM100_COLLECTIVE, flags=("IsSchedDynamicPersistent",)),
    "sm100_fmha_fwd": Spec(FMHA_KERNEL, FMHA_MAINLOOP, FMHA_EPILOGUE, (FMHA_LOAD,)),
}

# The roles enumerateRoles finds (docs/programs.md "Roles"); each is checked.
ROLES = {
    "sm90_gemm_pingpong": ["Producer.Mainloop", "Consumer0", "Consumer1"],
    "sm90_gemm_cooperative": ["Producer.Mainloop", "Consumer0", "Consumer1"],
    "sm90_gemm_warpspecialized": ["Producer.MainloopEpilogue", "Consumer"],
    "sm100_gemm_1sm": ["MMA", "Sched", "MainloopLoad", "Epilogue"],
    "sm100_fmha_fwd": ["Softmax0", "Softmax1", "Correction", "MMA", "Load", "Epilogue"],
}
# Per role: (compiled steps checked in order, visited ops with no instruction), the figures of
# docs/compiled-truth.md.
CHECKED = {
    "sm90_gemm_pingpong": {"Producer.Mainloop": (5, 3), "Consumer0": (18, 4), "Consumer1": (18, 4)},
    "sm90_gemm_cooperative": {"Producer.Mainloop": (5, 3), "Consumer0": (14, 4), "Consumer1": (14, 4)},
    "sm90_gemm_warpspecialized": {"Producer.MainloopEpilogue": (6, 1), "Consumer": (14, 4)},
    "sm100_gemm_1sm": {"MMA": (13, 0), "Sched": (5, 0), "MainloopLoad": (14, 3), "Epilogue": (4, 0)},
    "sm100_fmha_fwd": {"Softmax0": (12, 6), "Softmax1": (12, 6), "Correction": (38, 0), "MMA": (41, 0),
                       "Load": (12, 6), "Epilogue": (11, 0)},
}
# Visited ops that compile to no instruction, per (file, line) or, for one call of a function,
# (file, line, line of the innermost call site), with the reason; an entry that explains no
# visited op fails (remove it). The SM90 collective's prologue loop is INSTANTIATION_DEAD's.
THROTTLE = ("the static persistent scheduler's ThrottlePipeline is PipelineEmpty (sm90_tile_scheduler.hpp "
            "55; sm100_pipeline.hpp 1132), whose producer_acquire / producer_commit are empty")
# The second collective_mainloop.load() call (SM100 kernel layer 653) compiles its acquire (PTX 1369
# and 1388, inside that call's loop 1344-1516), but nvcc writes only the frames below
# sm90_pipeline.hpp 431 there (`.loc 17 534 7, ... inlined_at 17 431 5`), and the only node written
# at 431 is the first call's (639): the reader gives both instructions to the first call's key.
SECOND_LOAD_ACQUIRE = ("the second load() call's producer_acquire (kernel 653) is compiled, but its partial .loc "
                       "chain is read as the first call's (639): PTX 1369/1388 in loop 1344-1516")
# NoMask::get_masked_trip_count returns 0 (77 collective/fmha_fusion.hpp 53-60), so the softmax's
# masked loop (mainloop 756-767) is dead: nvcc emits nothing for its softmax_step<true> (757).
MASKED_DEAD = "NoMask: get_masked_trip_count is 0 (fmha_fusion.hpp 53-60), the masked loop's softmax_step (757) is dead"
GET_BARRIER = "producer_get_barrier returns the full barrier's address (sm90_pipeline.hpp 639-641): no instruction"
NOT_COMPILED = {
    "sm90_gemm_pingpong": {(UNITS["sm90_gemm_pingpong"].kernel, 638): THROTTLE,
                           (UNITS["sm90_gemm_pingpong"].kernel, 639): THROTTLE},
    "sm90_gemm_cooperative": {(UNITS["sm90_gemm_cooperative"].kernel, 610): THROTTLE,
                              (UNITS["sm90_gemm_cooperative"].kernel, 611): THROTTLE},
    "sm90_gemm_warpspecialized": {},
    "sm100_gemm_1sm": {
        (SM100_COLLECTIVE, 610): "producer_get_barrier returns the full barrier's address (sm100_pipeline.hpp "
                                 "707-709): no instruction",
        (SM100_COLLECTIVE, 607, 653): SECOND_LOAD_ACQUIRE,
    },
    "sm100_fmha_fwd": {
        **{(FMHA_LOAD, line): "producer_get_barrier returns the full barrier's address (sm100_pipeline.hpp "
                              "224-226, 479-481): no instruction" for line in (244, 253, 261, 269, 282, 290)},
        **{(FMHA_MAINLOOP, line, 757): MASKED_DEAD for line in (565, 569, 601, 666, 669, 704)},
    },
}
for _unit in ("sm90_gemm_pingpong", "sm90_gemm_cooperative", "sm90_gemm_warpspecialized"):
    NOT_COMPILED[_unit][(COLLECTIVE, 381)] = GET_BARRIER
    NOT_COMPILED[_unit].update({(COLLECTIVE, line): why for line, why in INSTANTIATION_DEAD[_unit].items()})

# Compiled lines no role visits, besides EXPECTED_MISSING's (no op there, so no program step):
# the epilogue load warp's branch. enumerateRoles gives it no role, because the interpreter's
# RUNTIME_CHOICES takes is_producer_load_needed() as 0 (docs/programs.md); nvcc compiles the
# branch, since the TU's epilogue could load C.
EPI_LOAD_WARP = ("the epilogue load warp (producer_warp_role == Epilogue && is_producer_load_needed()): "
                 "no role, since RUNTIME_CHOICES takes is_producer_load_needed() as 0")
SM100_EPI_LOAD_WARP = ("the epilogue load warp (is_participant.epi_load: EpilogueLoad && is_epi_load_needed, "
                       "kernel layer 451): no role, since RUNTIME_CHOICES takes is_producer_load_needed() as 0")
NO_ROLE = {
    "sm90_gemm_pingpong": {749: EPI_LOAD_WARP, 760: EPI_LOAD_WARP, 790: EPI_LOAD_WARP},
    "sm90_gemm_cooperative": {708: EPI_LOAD_WARP, 722: EPI_LOAD_WARP, 749: EPI_LOAD_WARP},
    "sm90_gemm_warpspecialized": {},
    "sm100_gemm_1sm": {line: SM100_EPI_LOAD_WARP for line in (819, 832, 837, 862)},
    "sm100_fmha_fwd": {},
}
# Compiled keys through a listed frame that no role visits, with the reason (a listed frame that no
# unvisited key passes through fails).
UNVISITED_THROUGH = {
    "sm100_fmha_fwd": {},
}
# Program loops with compiled steps that are no PTX loop of their own (nvcc unrolled them).
UNROLLED = {
    (COLLECTIVE, 494): "the k_block loop over size<2>(tCrA), a compile-time count (CUTLASS_PRAGMA_UNROLL)",
    (COLLECTIVE, 573): "mma_tail's release loop runs prologue_mma_count = min(K_PIPE_MMAS, k) <= 1 times "
                       "(K_PIPE_MMAS = 1)",
    (SM100_COLLECTIVE, 697): "the k_block loop over size<2>(tCrA), a compile-time count (CUTLASS_PRAGMA_UNROLL): "
                             "four tcgen05.mma",
    (FMHA_MAINLOOP, 931): "correction_rescale's loop over count = get<2>(TileShape{}) / kCorrectionTileSize, a "
                          "compile-time count (CUTLASS_PRAGMA_UNROLL): eight passes",
    (FMHA_MAINLOOP, 625): "softmax_step's exp loop over size(tTMEM_LOADrS) (CUTLASS_PRAGMA_UNROLL), whose pass "
                          "i == size - kReleasePipeCount arrives on order_s (647)",
    (FMHA_MAINLOOP, 827): "correction_epilogue's loop over get<2>(TileShape{}) / kCorrectionTileSize "
                          "(CUTLASS_PRAGMA_UNROLL): eight tcgen05.ld",
}


# The static walk of each role (see the module docstring); prints [{role, items}] where an item
# is {kind: op|call|loop|if|then|else, file, line, end_line, op|name, via?, items?}, file being "kernel",
# "mainloop" (the mainloop collective's own functions) or a composed program's `path`. A call the
# interpreter runs as a program (RoleRun.execCall) has the callee's walk as its items: on an object
# of the mainloop collective, the function of that name; on an object of a composed collective's
# type A (`Load load;`, and the joined epilogue's CollectiveEpilogue), A::f; a free call inside a
# function, the function of that name (the collective's own helper). A receiver's kind comes from
# its declaration's type, as RoleRun.valueOfDecl reads it (a composed alias first, then
# COLLECTIVE_TYPES), from the argument a parameter is bound to, else from CUTLASS's names.
WALK = r"""
const root = process.argv[1];
const S = require(root + "/schedule.js"), I = require(root + "/sim/interpret.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8")), structure = input.structure;
const ctx = new I.Context(structure, { stages: 4, kPipeMmas: 1, kTiles: 5, outputTiles: 4, kvBlocks: 3, flags: input.flags }, S.engine);
const fns = {}, composed = {};
((structure.programs || {}).functions || []).forEach((p) => { fns[p.name] = p; });
(structure.collectives || []).forEach((c) => { composed[c.alias] = true; });
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const MAX_DEPTH = 6;
// A call whose value the interpreter chooses (RUNTIME_CHOICES, SCHEDULER_STATIC) is a run-time
// value to this walk: both sides of a branch on it are code.
function chosen(e) {
  if (!Array.isArray(e)) return false;
  if (e[0] === "call" && (has(I.RUNTIME_CHOICES, e[1]) || has(I.SCHEDULER_STATIC, e[1]))) return true;
  if (e[0] === "mcall" && has(I.RUNTIME_CHOICES, e[2])) return true;
  return e.some(chosen);
}
// The role's booleans (`IsParticipant is_participant = {...}`, SM100 kernel layer 448-454), evaluated
// under the binding as enumerateRoles' probe does, so its branches are decided.
let env = {};
function decide(n) {
  if (!n.constexpr && chosen(n.cond)) return null;
  const v = I.evalExpr(n.cond, env, ctx, n.constexpr);
  // An `if constexpr` the front end did not read is a flag named by its text, off unless set, as
  // the interpreter takes it (`cute::is_same_v<OrderLoadEpilogue, cute::true_type>`, 77 epilogue 222).
  if (I.isUnknown(v) && n.constexpr && Array.isArray(n.cond) && n.cond[0] === "?") return !!ctx.flag(String(n.cond[1]));
  return I.isUnknown(v) ? null : (typeof v === "number" ? v !== 0 : !!v);
}
// interpret.js declKind's base name of a declared type.
const baseOf = (t) => String(t || "").replace(/^(?:typename\s+)?(?:\w+::)*/, "").replace(/[\s&*]+$/, "");
function kindOfType(t) {
  const b = baseOf(t);
  return has(composed, b) ? b : has(I.COLLECTIVE_TYPES, b) ? I.COLLECTIVE_TYPES[b] : null;
}
const CUTLASS_NAMES = { collective_mainloop: "mainloop", collective_epilogue: "epilogue" };
const lastName = (r) => String(r).split(/\.|->/).pop();
function kindOf(receiver, scope) {
  const last = lastName(receiver);
  return has(scope, last) ? scope[last] : (CUTLASS_NAMES[last] || null);
}
function callOf(n) {
  if (n.node === "call") return { receiver: n.receiver || null, name: n.name, args: n.args || [], lambda: n.lambda || null };
  const e = (n.node === "let" || n.node === "set") ? n.expr : null;   // x = recv.f(...)
  return Array.isArray(e) && e[0] === "mcall" && Array.isArray(e[1]) && e[1][0] === "id" ? { receiver: e[1][1], name: e[2], args: e[3] || [] } : null;
}
function callee(call, scope, inFunction, lams) {
  // A call of a named lambda (`copy_in(i+1)`, 77 mainloop 926) runs the lambda's own program
  // (the enclosing function's `lambdas`, keyed name@line), in the enclosing function's file.
  if (call.lambda) return lams && has(lams, call.lambda) ? lams[call.lambda] : null;
  if (!call.receiver) return inFunction && has(fns, call.name) ? fns[call.name] : null;
  const k = kindOf(call.receiver, scope);
  if (k === "mainloop") return has(fns, call.name) ? fns[call.name] : null;
  if (k && k !== "epilogue") return has(fns, k + "::" + call.name) ? fns[k + "::" + call.name] : null;
  return null;
}
function bind(fn, call, scope) {
  const inner = {};
  fn.params.forEach((p, i) => {
    const a = call.args[i];
    const k = Array.isArray(a) && a[0] === "id" ? kindOf(a[1], scope) : kindOfType(p.type);
    if (k) inner[p.name] = k;
  });
  return inner;
}
function lambdasOf(fn, outer) {
  const lams = Object.assign({}, outer || {});
  (fn.lambdas || []).forEach((l) => { lams[l.key || (l.name + "@" + l.line)] = l; });
  return lams;
}
function walk(nodes, file, scope, depth, lams) {
  const out = [];
  (nodes || []).forEach((n) => {
    const at = { file: file, line: n.line, end_line: n.end_line || n.line };
    if (n.node === "let" && n.names && n.names.length === 1 && n.type && kindOfType(n.type)) scope[n.names[0]] = kindOfType(n.type);
    if (n.node === "let" && n.names && n.names.length === 1 && Array.isArray(n.expr) && n.expr[0] === "struct") {
      env[n.names[0]] = { v: I.evalExpr(n.expr, env, ctx, false) };
    }
    // An op of a lambda's body (`copy_in`, 77 FMHA mainloop 912) is at the body's line, called at via.line.
    if (n.node === "op") out.push(Object.assign({ kind: "op", op: n.op }, n.via && n.via.line ? { via: n.via.line } : {}, at));
    else if (n.node === "loop") {
      out.push(Object.assign({ kind: "loop", items: [].concat(walk(n.init, file, scope, depth, lams), walk(n.body, file, scope, depth, lams), walk(n.step, file, scope, depth, lams)) }, at));
    } else if (n.node === "if") {
      const c = decide(n), sides = [];
      if (c === null || c) sides.push(Object.assign({ kind: "then", items: walk(n.then, file, scope, depth, lams) }, at));
      if (c === null || !c) sides.push(Object.assign({ kind: "else", items: walk(n["else"], file, scope, depth, lams) }, at));
      out.push(Object.assign({ kind: "if", items: sides }, at));
    } else {
      const call = callOf(n);
      if (!call) return;
      const fn = callee(call, scope, depth > 0, lams);
      if (!call.receiver && !fn) return;   // fences, register allocation, prefetches: no step
      const item = Object.assign({ kind: "call", receiver: call.receiver, name: call.name }, at);
      if (fn && depth < MAX_DEPTH && call.lambda) item.items = walk(fn.body, file, scope, depth + 1, lams);
      else if (fn && depth < MAX_DEPTH) item.items = walk(fn.body, fn.path || "mainloop", bind(fn, call, scope), depth + 1, lambdasOf(fn));
      out.push(item);
    }
  });
  return out;
}
process.stdout.write(JSON.stringify(I.enumerateRoles(ctx).map((r) => {
  ctx.roleBinding = {};
  Object.keys(r.binding).forEach((k) => { ctx.roleBinding[k] = I.evalExpr(["id", r.binding[k]], {}, ctx, false); });
  env = {};
  return { role: r.name, items: walk(structure.kernel_layer.program.body, "kernel", {}, 0, lambdasOf(structure.kernel_layer.program)) };
})));
"""


def role_walks(structure, flags=()):
    """[{role, items}] of the static walk of every role (WALK, under node), the named compile-time
    flags on (the interpreter's knobs.flags)."""
    given = json.dumps({"structure": structure, "flags": {f: 1 for f in flags}})
    proc = subprocess.run([node(), "-e", WALK, str(ROOT)], input=given, capture_output=True,
                          text=True, timeout=300, check=True)
    return json.loads(proc.stdout)


def parse_unit(spec, cutlass_root):
    """The structure of a unit: parse_header(mainloop, kernel layer), with its epilogue joined."""
    structure = parse_cutlass.parse_header(cutlass_root / spec.mainloop, cutlass_root / spec.kernel)
    if spec.epilogue:
        parse_cutlass.add_epilogue(structure, cutlass_root / spec.epilogue)
    return structure


def program_files(spec, structure):
    """{walk file name: path under the CUTLASS root} of a unit's programs: the kernel layer, the
    mainloop and each composed collective (its `path` is a display path, a tail of the real one)."""
    files = {"kernel": spec.kernel, "mainloop": spec.mainloop}
    for c in structure.get("collectives", []):
        rels = [r for r in spec.composed + (spec.epilogue,) if r and r.endswith(c["path"])]
        assert rels, f"the parse joins {c['alias']} ({c['path']}), which the unit's Spec does not name"
        files[c["path"]] = rels[0]
    return files


def steps_of(items, files, sites=(), loops=()):
    """The walk's op and call steps in walk order: (file, line range, call sites as ((file, lo,
    hi), ...) from the outermost, enclosing loops as (file, line, call sites), the item)."""
    out = []
    for it in items:
        rel = files[it["file"]]
        span = (it["line"], it["end_line"])
        if it["kind"] in ("op", "call"):
            # a lambda's op: the lambda is called at its via line, in the same file (a call site)
            out.append((rel, span, sites + (((rel, it["via"], it["via"]),) if "via" in it else ()), loops, it))
        inner_sites = sites + ((rel,) + span,) if it["kind"] == "call" and "items" in it else sites
        inner_loops = loops + ((rel, it["line"], sites),) if it["kind"] == "loop" else loops
        out += steps_of(it.get("items", []), files, inner_sites, inner_loops)
    return out


def key_of(ins, paths):
    """An instruction's key: its chain's frames in the program files, outermost first, as
    (file under the root, line)."""
    return tuple((paths[f.file], f.line) for f in reversed(ins.chain) if f.file in paths)


class Unit:
    """One unit: its PTX listing and back edges, parse, role walks and instruction keys."""

    def __init__(self, name, listing, ptx_text, cutlass_root, structure=None):
        self.name, self.spec = name, UNITS[name]
        self.kernel = self.spec.kernel
        self.structure = structure or parse_unit(self.spec, cutlass_root)
        self.files = program_files(self.spec, self.structure)
        self.roles = role_walks(self.structure, self.spec.flags)
        paths = {str(cutlass_root / rel): rel for rel in self.files.values()}
        self.keys = {}   # key -> PTX lines of its instructions
        for ins in listing.instructions:
            if ins.cls in NOT_CHECKED:
                continue
            key = key_of(ins, paths)
            if key and key[0][0] == self.kernel:
                self.keys.setdefault(key, []).append(ins.ptx_line)
        self.loops = [e for e in ptx_lines.back_edges(ptx_text) if e.depth == 1]

    def steps(self, role):
        """The role's steps (steps_of)."""
        return steps_of(role["items"], self.files)

    def hits(self, rel, span, sites, inlined=False):
        """The keys of the instructions a step at rel:span (called through sites) compiles to: the
        key passes through each call site, then through the step's lines. Below an op or a call the
        walk does not follow, deeper frames are the callee's (a lambda, a helper without a program);
        below an inlined call they are its program's own steps, so only the call's own line counts."""
        lo, hi = span
        depth = len(sites)
        out = []
        for key in self.keys:
            if len(key) <= depth or (inlined and len(key) != depth + 1):
                continue
            if all(f == s[0] and s[1] <= ln <= s[2] for (f, ln), s in zip(key, sites)) and \
                    key[depth][0] == rel and lo <= key[depth][1] <= hi:
                out.append(key)
        return out

    def placed(self, role):
        """[(first PTX line, (rel, line), loops, item)] of the role's compiled steps in walk order,
        each key counted at its first visit, and the ops that compile to nothing."""
        out, empty, seen = [], [], set()
        for rel, span, sites, loops, it in self.steps(role):
            hit = self.hits(rel, span, sites, "items" in it)
            keys = [k for k in hit if k not in seen]
            seen.update(keys)
            if keys:
                out.append((min(min(self.keys[k]) for k in keys), (rel, span[0]), loops, it))
            elif it["kind"] == "op" and not hit:
                empty.append((rel, span[0], it["op"], sites[-1][1] if sites else None))
        return out, empty

    def visited(self):
        """Every key some role's walk visits."""
        return {k for role in self.roles for rel, span, sites, _, it in self.steps(role)
                for k in self.hits(rel, span, sites, "items" in it)}


def order_violations(unit):
    """Consecutive compiled steps of a role whose first instructions are not in PTX order."""
    bad = []
    for role in unit.roles:
        placed, _ = unit.placed(role)
        for (a, wa, _, ia), (b, wb, _, ib) in zip(placed, placed[1:]):
            if b <= a:
                bad.append(f"{role['role']}: {wa[0]}:{wa[1]} {ia.get('op') or ia['name']} (PTX line {a}) is "
                           f"followed by {wb[0]}:{wb[1]} {ib.get('op') or ib['name']} (PTX line {b})")
    return bad


def loop_violations(unit):
    """Program loops whose compiled steps are not exactly one PTX back edge's (innermost first)."""
    bad = []
    for role in unit.roles:
        placed, _ = unit.placed(role)
        loops = {}
        for first, _, encl, _ in placed:
            for i in range(len(encl)):
                loops.setdefault(encl[: i + 1], []).append(first)
        edges = {}
        for path, firsts in sorted(loops.items(), key=lambda x: len(x[0])):
            lo, hi = min(firsts), max(firsts)
            spans = [e for e in unit.loops if e.label_line <= lo and hi <= e.branch_line]
            edge = min(spans, key=lambda e: e.branch_line - e.label_line) if spans else None
            outer = edges.get(path[:-1])
            edges[path] = edge
            name = f"{role['role']}: loop {path[-1][0]}:{path[-1][1]}"
            unrolled = (path[-1][0], path[-1][1]) in UNROLLED
            own = edge is not None and edge != outer
            if unrolled:
                if own:
                    bad.append(f"{name} is listed in UNROLLED but is PTX loop {edge} (remove it)")
                continue
            if not own:
                bad.append(f"{name}: no PTX back edge of its own holds its steps (PTX lines {lo}-{hi})")
                continue
            inside = [f for f, _, _, _ in placed if edge.label_line <= f <= edge.branch_line]
            if sorted(inside) != sorted(firsts):
                bad.append(f"{name}: PTX loop {edge.label_line}-{edge.branch_line} holds {len(inside)} steps "
                           f"of the role, the program loop {len(firsts)}")
    return bad


@pytest.fixture(scope="module")
def compiled(cutlass_root):
    """{unit name: PTX path or CompileError} of the units (compiled unless cached)."""
    nvcc = ptx_cache.find_nvcc()
    if nvcc is None:
        _no_nvcc("no nvcc (install it with scripts/install_nvcc.sh)")
    units = [ptx_cache.UNITS_BY_NAME[n] for n in sorted(UNITS)]
    results = ptx_cache.build_all(units, cutlass_root, nvcc, ptx_cache.DEFAULT_JOBS)
    return {name: r[0] for name, r in results.items()}


_UNITS = {}


def ptx_of(compiled, name):
    """(listing, text) of a unit's PTX."""
    if isinstance(compiled[name], Exception):
        pytest.fail(str(compiled[name]))
    text = compiled[name].read_text()
    return ptx_lines.read_ptx(text), text


def unit_of(compiled, cutlass_root, name, structure=None):
    """The Unit of a name (built once per session unless given an edited structure)."""
    if structure is not None:
        return Unit(name, *ptx_of(compiled, name), cutlass_root, structure)
    if name not in _UNITS:
        _UNITS[name] = Unit(name, *ptx_of(compiled, name), cutlass_root)
    return _UNITS[name]


@pytest.mark.parametrize("name", sorted(UNITS))
def test_roles_visit_compiled_lines_in_ptx_order(compiled, cutlass_root, name):
    """Along each role's static walk, the compiled steps' first instructions are in PTX order, and
    the visited ops that compile to nothing are the ones NOT_COMPILED explains."""
    unit = unit_of(compiled, cutlass_root, name)
    assert [r["role"] for r in unit.roles] == ROLES[name]
    assert order_violations(unit) == []
    empty, counts = set(), {}
    for role in unit.roles:
        placed, nothing = unit.placed(role)
        counts[role["role"]] = (len(placed), len(nothing))
        empty |= {(rel, line, site) for rel, line, _, site in nothing}
    listed = NOT_COMPILED[name]
    unexplained = sorted(e for e in empty if e[:2] not in listed and e not in listed)
    assert unexplained == [], "visited ops with no instruction (explain them)"
    stale = sorted(k for k in listed if not any(e[: len(k)] == k for e in empty))
    assert stale == [], "NOT_COMPILED entries that explain no visited op (remove them)"
    assert counts == CHECKED[name], "the figures of docs/compiled-truth.md changed"


@pytest.mark.parametrize("name", sorted(UNITS))
def test_program_loops_are_ptx_loops(compiled, cutlass_root, name):
    """Each program loop with compiled steps is a PTX back edge of its own whose span holds
    exactly the role's steps of that loop, unless UNROLLED says nvcc unrolled it."""
    assert loop_violations(unit_of(compiled, cutlass_root, name)) == []


@pytest.mark.parametrize("name", sorted(UNITS))
def test_every_compiled_line_is_on_a_role_path(compiled, cutlass_root, name):
    """Every compiled protocol line of the unit's program files is visited by some role's walk,
    unless the parse has no op there (EXPECTED_MISSING: the key's innermost frame) or no role runs
    its kernel-layer line (NO_ROLE)."""
    unit = unit_of(compiled, cutlass_root, name)
    visited = unit.visited()
    missing = {(e[0], e[1]) for e in EXPECTED_MISSING}
    through = UNVISITED_THROUGH.get(name, {})
    left = [k for k in unit.keys if k not in visited and k[-1] not in missing and k[0][1] not in NO_ROLE[name]]
    unvisited = sorted(k for k in left if not any(f in through for f in k))
    assert unvisited == [], "compiled keys (frames in the program files, outermost first) no role visits"
    stale_through = sorted(f for f in through if not any(f in k for k in left))
    assert stale_through == [], "UNVISITED_THROUGH frames no unvisited key passes through (remove them)"
    stale = sorted(line for line in NO_ROLE[name]
                   if not any(k[0][1] == line for k in unit.keys) or any(k[0][1] == line for k in visited))
    assert stale == [], "NO_ROLE lines that do not compile or that a role visits (remove them)"


def _moved(structure, fn, loop_line, node_line, before_line):
    """A copy of structure whose function fn has the step at node_line of its loop at loop_line
    moved before the step at before_line (line numbers unchanged)."""
    out = copy.deepcopy(structure)
    (prog,) = [p for p in out["programs"]["functions"] if p["name"] == fn]
    (loop,) = [n for n in prog["body"] if n["node"] == "loop" and n["line"] == loop_line]
    body = loop["body"]
    (node_,) = [n for n in body if n["line"] == node_line and n["node"] == "op"]
    body.remove(node_)
    body.insert(next(i for i, n in enumerate(body) if n["line"] == before_line), node_)
    return out


def test_release_moved_before_the_mma_fails(compiled, cutlass_root):
    """The pingpong consumer's mainloop with consumer_release (551) moved before its mma (543)
    breaks the order check, and names the two steps."""
    real = unit_of(compiled, cutlass_root, "sm90_gemm_pingpong")
    edited = _moved(real.structure, "mma", 529, 551, 543)
    unit = unit_of(compiled, cutlass_root, "sm90_gemm_pingpong", edited)
    bad = order_violations(unit)
    assert bad and any(f"{COLLECTIVE}:551 consumer_release" in b and f"{COLLECTIVE}:543 mma" in b for b in bad), bad
    assert {b.split(":")[0] for b in bad} == {"Consumer0", "Consumer1"}


def test_acquire_moved_out_of_the_k_loop_fails(cutlass_root, compiled):
    """The producer's acquire (374) moved out of load()'s k-loop (372), after it: the loop check
    and the order check fail."""
    real = unit_of(compiled, cutlass_root, "sm90_gemm_pingpong")
    edited = copy.deepcopy(real.structure)
    (prog,) = [p for p in edited["programs"]["functions"] if p["name"] == "load"]
    holders = [n for n in _all_nodes(prog["body"]) if any(c.get("line") == 372 and c["node"] == "loop"
                                                          for c in n.get("then", []))]
    (guard,) = holders
    (loop,) = [c for c in guard["then"] if c.get("line") == 372]
    (acquire,) = [n for n in loop["body"] if n["node"] == "op" and n["line"] == 374]
    loop["body"].remove(acquire)
    guard["then"].insert(guard["then"].index(loop) + 1, acquire)
    unit = unit_of(compiled, cutlass_root, "sm90_gemm_pingpong", edited)
    assert any("Producer.Mainloop" in b and "374" in b for b in order_violations(unit))
    assert any(b.startswith("Producer.Mainloop: loop") for b in loop_violations(unit))


def _moved_within(structure, fn, node_line, before_line):
    """A copy of structure whose function fn has its op at node_line moved before the step at
    before_line of the same step list (wherever that list is nested; line numbers unchanged)."""
    out = copy.deepcopy(structure)
    (prog,) = [p for p in out["programs"]["functions"] if p["name"] == fn]
    lists = [prog["body"]] + [n.get(k) for n in _all_nodes(prog["body"]) for k in ("body", "then", "else")]
    (body,) = [b for b in lists if b and any(n["line"] == node_line and n["node"] == "op" for n in b)
               and any(n["line"] == before_line for n in b)]
    (node_,) = [n for n in body if n["line"] == node_line and n["node"] == "op"]
    body.remove(node_)
    body.insert(next(i for i, n in enumerate(body) if n["line"] == before_line), node_)
    return out


def test_composed_load_with_the_copy_before_its_acquire_fails(compiled, cutlass_root):
    """77's composed Load::load (its own file) with the Q copy's if (244-246, holding the tma_load
    245) moved before its producer_acquire (242): the Load role's order check names both lines of
    sm100_fmha_load_tma_warpspecialized.hpp."""
    real = unit_of(compiled, cutlass_root, "sm100_fmha_fwd")
    edited = copy.deepcopy(real.structure)
    (prog,) = [p for p in edited["programs"]["functions"] if p["name"] == "Load::load"]
    lists = [prog["body"]] + [n.get(k) for n in _all_nodes(prog["body"]) for k in ("body", "then", "else")]
    (body,) = [b for b in lists if b and any(n["line"] == 242 and n["node"] == "op" for n in b)]
    (guard,) = [n for n in body if n["node"] == "if" and any(c.get("line") == 245 for c in _all_nodes(n["then"]))]
    body.remove(guard)
    body.insert(next(i for i, n in enumerate(body) if n["line"] == 242), guard)
    bad = order_violations(unit_of(compiled, cutlass_root, "sm100_fmha_fwd", edited))
    assert any(b.startswith("Load: ") and f"{FMHA_LOAD}:245 tma_load" in b and f"{FMHA_LOAD}:242 producer_acquire" in b
               for b in bad), bad


def test_sm100_release_moved_before_the_k_block_loop_fails(compiled, cutlass_root):
    """The SM100 collective's mma() with consumer_release (705) moved before the k_block loop
    (697) that holds its tcgen05.mma: the MMA role's order check fails, naming the release and the
    step after it."""
    real = unit_of(compiled, cutlass_root, "sm100_gemm_1sm")
    edited = _moved_within(real.structure, "mma", 705, 697)
    bad = order_violations(unit_of(compiled, cutlass_root, "sm100_gemm_1sm", edited))
    assert bad and all(b.startswith("MMA: ") for b in bad), bad
    assert any(f"{SM100_COLLECTIVE}:705 consumer_release" in b for b in bad), bad


def test_helper_call_of_lambda_ops_is_a_call_step(cutlass_root):
    """77's correction() calls correction_rescale(scale, ...) at 1016 and 1034; correction_rescale
    has a program of its own, so each call is a call step into it, as softmax_step<false>(...)
    (739) is in softmax() (docs/programs.md "The contract"), although the helper's ops are in
    its lambda copy_in (912 via 926 / 933). The PTX's chains go kernel 498 -> 1016 / 1034 ->
    926 / 933 -> 912 (PTX 6504, 6555, 7731, 7782)."""
    structure = parse_unit(UNITS["sm100_fmha_fwd"], cutlass_root)
    fns = {p["name"]: p for p in structure["programs"]["functions"]}
    assert "correction_rescale" in fns
    calls = {n["line"]: n["name"] for n in _all_nodes(fns["correction"]["body"]) if n["node"] == "call"}
    assert (calls.get(1016), calls.get(1034)) == ("correction_rescale", "correction_rescale"), calls


def _all_nodes(nodes):
    """Every node of a program tree, depth first."""
    for n in nodes:
        yield n
        for k in ("init", "body", "step", "then", "else"):
            yield from _all_nodes(n.get(k) or [])


BACK_EDGE_PTX = """
.visible .entry kern()
{
$L__BB0_1:
	{
	.reg .pred P1;
	LAB_WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 P1, [%r1], %r2;
	@P1 bra DONE;
	bra LAB_WAIT;
	DONE:
	}
	@%p1 bra 	$L__BB0_3;
	{
	LAB_WAIT:
	bra LAB_WAIT;
	}
	@%p2 bra 	$L__BB0_1;
$L__BB0_3:
	bra.uni 	$L__BB0_3;
}
"""


def test_back_edges_of_a_small_ptx():
    """ptx_lines.back_edges: function-level loops at depth 1, an asm block's retry loop at depth 2
    resolved in its own scope (the second LAB_WAIT is not the first), forward branches left out."""
    edges = [(e.label, e.label_line, e.branch_line, e.depth) for e in ptx_lines.back_edges(BACK_EDGE_PTX)]
    assert edges == [("LAB_WAIT", 7, 10, 2), ("LAB_WAIT", 15, 16, 2), ("$L__BB0_1", 4, 18, 1),
                     ("$L__BB0_3", 19, 20, 1)]
