"""Compiled order: the role programs (docs/programs.md) visit the compiled protocol lines in the
order nvcc's PTX reaches them along each role's path (docs/compiled-truth.md, "3. Order").

For the SM90 TMA GEMMs (the collective sm90_mma_tma_gmma_ss_warpspecialized.hpp with the
pingpong, cooperative and basic kernel layers), each role of enumerateRoles (sim/interpret.js) is
walked statically through the kernel layer's program: a branch that the role binding or a
compile-time value decides takes that side, any other branch both sides (then before else), each
loop one iteration (init, body, step), and a collective_mainloop call is inlined. Each visited op
or call is matched to the protocol instructions whose inline chain has that line in the kernel
layer (and in the collective, under that call site). The checks: the visited steps' first
instructions are in PTX order; every program loop the compiler kept is a PTX back edge holding
exactly that loop's steps; every compiled line is on some role's path. The three units' PTX
comes from tests/compiled/ptx_cache.py (the same cache as test_compiled_truth.py).
"""

import copy
import json
import subprocess
import sys

import pytest

import parse_cutlass
import ptx_lines
from node_util import ROOT, node

sys.path.insert(0, str(ROOT / "tests" / "compiled"))
import ptx_cache  # noqa: E402
from test_compiled_truth import EXPECTED_MISSING, INSTANTIATION_DEAD, KERNEL, MAINLOOP, NOT_CHECKED, _no_nvcc  # noqa: E402

COLLECTIVE = MAINLOOP + "sm90_mma_tma_gmma_ss_warpspecialized.hpp"
UNITS = {
    "sm90_gemm_pingpong": KERNEL + "sm90_gemm_tma_warpspecialized_pingpong.hpp",
    "sm90_gemm_cooperative": KERNEL + "sm90_gemm_tma_warpspecialized_cooperative.hpp",
    "sm90_gemm_warpspecialized": KERNEL + "sm90_gemm_tma_warpspecialized.hpp",
}
# The receiver whose calls are inlined (the interpreter's probe and run inline the same one).
MAINLOOP_RECEIVER = "collective_mainloop"

# The roles enumerateRoles finds (docs/programs.md "Roles"); each is checked.
ROLES = {
    "sm90_gemm_pingpong": ["Producer.Mainloop", "Consumer0", "Consumer1"],
    "sm90_gemm_cooperative": ["Producer.Mainloop", "Consumer0", "Consumer1"],
    "sm90_gemm_warpspecialized": ["Producer.MainloopEpilogue", "Consumer"],
}
# Per role: (compiled steps checked in order, visited ops with no instruction), the figures of
# docs/compiled-truth.md.
CHECKED = {
    "sm90_gemm_pingpong": {"Producer.Mainloop": (5, 3), "Consumer0": (18, 4), "Consumer1": (18, 4)},
    "sm90_gemm_cooperative": {"Producer.Mainloop": (5, 3), "Consumer0": (14, 4), "Consumer1": (14, 4)},
    "sm90_gemm_warpspecialized": {"Producer.MainloopEpilogue": (6, 1), "Consumer": (14, 4)},
}
# Visited ops that compile to no instruction, per file and line, with the reason; an entry that
# compiles fails (remove it). The collective's prologue loop is INSTANTIATION_DEAD's.
THROTTLE = ("the static persistent scheduler's ThrottlePipeline is PipelineEmpty (sm90_tile_scheduler.hpp "
            "55; sm100_pipeline.hpp 1132), whose producer_acquire / producer_commit are empty")
GET_BARRIER = "producer_get_barrier returns the full barrier's address (sm90_pipeline.hpp 639-641): no instruction"
NOT_COMPILED = {
    "sm90_gemm_pingpong": {(UNITS["sm90_gemm_pingpong"], 638): THROTTLE, (UNITS["sm90_gemm_pingpong"], 639): THROTTLE},
    "sm90_gemm_cooperative": {(UNITS["sm90_gemm_cooperative"], 610): THROTTLE,
                              (UNITS["sm90_gemm_cooperative"], 611): THROTTLE},
    "sm90_gemm_warpspecialized": {},
}
for _unit in UNITS:
    NOT_COMPILED[_unit][(COLLECTIVE, 381)] = GET_BARRIER
    NOT_COMPILED[_unit].update({(COLLECTIVE, line): why for line, why in INSTANTIATION_DEAD[_unit].items()})

# Compiled lines no role visits, besides EXPECTED_MISSING's (no op there, so no program step):
# the epilogue load warp's branch. enumerateRoles gives it no role, because the interpreter's
# RUNTIME_CHOICES takes is_producer_load_needed() as 0 (docs/programs.md); nvcc compiles the
# branch, since the TU's epilogue could load C.
EPI_LOAD_WARP = ("the epilogue load warp (producer_warp_role == Epilogue && is_producer_load_needed()): "
                 "no role, since RUNTIME_CHOICES takes is_producer_load_needed() as 0")
NO_ROLE = {
    "sm90_gemm_pingpong": {749: EPI_LOAD_WARP, 760: EPI_LOAD_WARP, 790: EPI_LOAD_WARP},
    "sm90_gemm_cooperative": {708: EPI_LOAD_WARP, 722: EPI_LOAD_WARP, 749: EPI_LOAD_WARP},
    "sm90_gemm_warpspecialized": {},
}
# Program loops with compiled steps that are no PTX loop of their own (nvcc unrolled them).
UNROLLED = {
    (COLLECTIVE, 494): "the k_block loop over size<2>(tCrA), a compile-time count (CUTLASS_PRAGMA_UNROLL)",
    (COLLECTIVE, 573): "mma_tail's release loop runs prologue_mma_count = min(K_PIPE_MMAS, k) <= 1 times "
                       "(K_PIPE_MMAS = 1)",
}

# The static walk of each role (see the module docstring); prints [{role, items}] where an item
# is {kind: op|call|loop|if|then|else, file: kernel|mainloop, line, end_line, op|name, items?}.
WALK = r"""
const root = process.argv[1];
const S = require(root + "/schedule.js"), I = require(root + "/sim/interpret.js");
const structure = JSON.parse(require("fs").readFileSync(0, "utf8"));
const ctx = new I.Context(structure, { stages: 4, kPipeMmas: 1, kTiles: 5, outputTiles: 4 }, S.engine);
const fns = {};
((structure.programs || {}).functions || []).forEach((p) => { fns[p.name] = p; });
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
// A call whose value the interpreter chooses (RUNTIME_CHOICES, SCHEDULER_STATIC) is a run-time
// value to this walk: both sides of a branch on it are code.
function chosen(e) {
  if (!Array.isArray(e)) return false;
  if (e[0] === "call" && (has(I.RUNTIME_CHOICES, e[1]) || has(I.SCHEDULER_STATIC, e[1]))) return true;
  if (e[0] === "mcall" && has(I.RUNTIME_CHOICES, e[2])) return true;
  return e.some(chosen);
}
function decide(n) {
  if (!n.constexpr && chosen(n.cond)) return null;
  const v = I.evalExpr(n.cond, {}, ctx, n.constexpr);
  return I.isUnknown(v) ? null : (typeof v === "number" ? v !== 0 : !!v);
}
function callOf(n) {
  if (n.node === "call") return n.receiver ? { receiver: n.receiver, name: n.name } : null;
  const e = (n.node === "let" || n.node === "set") ? n.expr : null;   // x = recv.f(...)
  return Array.isArray(e) && e[0] === "mcall" && Array.isArray(e[1]) && e[1][0] === "id" ? { receiver: e[1][1], name: e[2] } : null;
}
function walk(nodes, file, depth) {
  const out = [];
  (nodes || []).forEach((n) => {
    const at = { file: file, line: n.line, end_line: n.end_line || n.line };
    if (n.node === "op") out.push(Object.assign({ kind: "op", op: n.op }, at));
    else if (n.node === "loop") {
      out.push(Object.assign({ kind: "loop", items: [].concat(walk(n.init, file, depth), walk(n.body, file, depth), walk(n.step, file, depth)) }, at));
    } else if (n.node === "if") {
      const c = decide(n), sides = [];
      if (c === null || c) sides.push(Object.assign({ kind: "then", items: walk(n.then, file, depth) }, at));
      if (c === null || !c) sides.push(Object.assign({ kind: "else", items: walk(n["else"], file, depth) }, at));
      out.push(Object.assign({ kind: "if", items: sides }, at));
    } else {
      const call = callOf(n);
      if (!call) return;
      const item = Object.assign({ kind: "call", receiver: call.receiver, name: call.name }, at);
      if (call.receiver === "%RECEIVER%" && fns[call.name] && depth < 4) item.items = walk(fns[call.name].body, "mainloop", depth + 1);
      out.push(item);
    }
  });
  return out;
}
process.stdout.write(JSON.stringify(I.enumerateRoles(ctx).map((r) => {
  ctx.roleBinding = {};
  Object.keys(r.binding).forEach((k) => { ctx.roleBinding[k] = I.evalExpr(["id", r.binding[k]], {}, ctx, false); });
  return { role: r.name, items: walk(structure.kernel_layer.program.body, "kernel", 0) };
})));
""".replace("%RECEIVER%", MAINLOOP_RECEIVER)


def role_walks(structure):
    """[{role, items}] of the static walk of every role (WALK, under node)."""
    proc = subprocess.run([node(), "-e", WALK, str(ROOT)], input=json.dumps(structure), capture_output=True,
                          text=True, timeout=300, check=True)
    return json.loads(proc.stdout)


def steps_of(items, kernel, site=None, loops=()):
    """The walk's op and call steps in walk order: (file, line range, call-site range, enclosing
    loops as (file, line, call-site range), the item)."""
    out = []
    for it in items:
        rel = kernel if it["file"] == "kernel" else COLLECTIVE
        span = (it["line"], it["end_line"])
        if it["kind"] in ("op", "call"):
            out.append((rel, span, site, loops, it))
        inner_site = span if it["kind"] == "call" and "items" in it else site
        inner_loops = loops + ((rel, it["line"], site),) if it["kind"] == "loop" else loops
        out += steps_of(it.get("items", []), kernel, inner_site, inner_loops)
    return out


def key_of(ins, kernel_path, collective_path):
    """(kernel-layer line, collective line or None) of an instruction: its innermost frame in the
    collective, and the innermost kernel-layer frame outside that (the call site)."""
    c = next((i for i, f in enumerate(ins.chain) if f.file == collective_path), None)
    outer = ins.chain if c is None else ins.chain[c + 1:]
    k = next((f.line for f in outer if f.file == kernel_path), None)
    return k, None if c is None else ins.chain[c].line


class Unit:
    """One SM90 GEMM unit: its PTX listing and back edges, parse, role walks and instruction keys."""

    def __init__(self, name, listing, ptx_text, cutlass_root, structure=None):
        self.name, self.kernel = name, UNITS[name]
        self.kernel_path, self.collective_path = str(cutlass_root / self.kernel), str(cutlass_root / COLLECTIVE)
        self.structure = structure or parse_cutlass.parse_header(cutlass_root / COLLECTIVE, cutlass_root / self.kernel)
        self.roles = role_walks(self.structure)
        self.keys = {}   # (kernel line, collective line) -> PTX lines of its instructions
        for ins in listing.instructions:
            if ins.cls in NOT_CHECKED:
                continue
            k, c = key_of(ins, self.kernel_path, self.collective_path)
            if k is not None:
                self.keys.setdefault((k, c), []).append(ins.ptx_line)
        self.loops = [e for e in ptx_lines.back_edges(ptx_text) if e.depth == 1]

    def hits(self, rel, span, site):
        """The keys of the instructions a step at rel:span (called at site) compiles to."""
        lo, hi = span
        if rel == self.kernel:
            return [k for k in self.keys if k[1] is None and lo <= k[0] <= hi]
        return [k for k in self.keys if k[1] is not None and site and site[0] <= k[0] <= site[1] and lo <= k[1] <= hi]

    def placed(self, role):
        """[(first PTX line, (rel, line), loops, item)] of the role's compiled steps in walk order,
        each key counted at its first visit, and the ops that compile to nothing."""
        out, empty, seen = [], [], set()
        for rel, span, site, loops, it in steps_of(role["items"], self.kernel):
            keys = [k for k in self.hits(rel, span, site) if k not in seen]
            seen.update(keys)
            if keys:
                out.append((min(min(self.keys[k]) for k in keys), (rel, span[0]), loops, it))
            elif it["kind"] == "op" and not self.hits(rel, span, site):
                empty.append((rel, span[0], it["op"]))
        return out, empty


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
    """{unit name: PTX path or CompileError} of the three units (compiled unless cached)."""
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
        empty |= {(rel, line) for rel, line, _ in nothing}
    assert sorted(empty - set(NOT_COMPILED[name])) == [], "visited ops with no instruction (explain them)"
    assert sorted(set(NOT_COMPILED[name]) - empty) == [], "NOT_COMPILED entries that compile (remove them)"
    assert counts == CHECKED[name], "the figures of docs/compiled-truth.md changed"


@pytest.mark.parametrize("name", sorted(UNITS))
def test_program_loops_are_ptx_loops(compiled, cutlass_root, name):
    """Each program loop with compiled steps is a PTX back edge of its own whose span holds
    exactly the role's steps of that loop, unless UNROLLED says nvcc unrolled it."""
    assert loop_violations(unit_of(compiled, cutlass_root, name)) == []


@pytest.mark.parametrize("name", sorted(UNITS))
def test_every_compiled_line_is_on_a_role_path(compiled, cutlass_root, name):
    """Every compiled protocol line of the kernel layer and the collective is visited by some
    role's walk, unless the parse has no op there (EXPECTED_MISSING) or no role runs it (NO_ROLE)."""
    unit = unit_of(compiled, cutlass_root, name)
    visited = set()
    for role in unit.roles:
        for rel, span, site, _, _ in steps_of(role["items"], unit.kernel):
            visited.update(unit.hits(rel, span, site))
    missing = {(e[0], e[1]) for e in EXPECTED_MISSING}
    unvisited = sorted(k for k in unit.keys if k not in visited
                       and ((COLLECTIVE, k[1]) not in missing if k[1] else (unit.kernel, k[0]) not in missing)
                       and not (k[1] is None and k[0] in NO_ROLE[name]))
    assert unvisited == [], "compiled (kernel line, collective line) keys no role visits"
    stale = sorted(line for line in NO_ROLE[name] if (line, None) not in unit.keys or (line, None) in visited)
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
