"""CUTLASS 4.2's example 88 Hopper FMHA kernels (forward and backward collectives on
fmha_kernel_tma_warpspecialized.hpp) in the program model (docs/programs.md "CUTLASS 88 Hopper
FMHA"): the kernel layer's pipeline aliases named through `CollectiveMainloop::` are the
collective's rings, the roles are the block's warpgroups, the load warps run their load helpers'
own programs (`CollectiveLoadTma::step`); the forward and the backward run complete (the backward's
warpgroup index from its block coordinate, its dQ reduce through the reducer ring). Every fact is
checked against the installed source's lines."""

import json

import pytest

import parse_cutlass
import node_util
from node_util import program_run, program_steps

KNOBS_FOR = r"""
const S = require(process.argv[1] + "/schedule.js");
const st = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(S.knobsFor("program", st).map((k) => k.name)));
"""

EX = "examples/88_hopper_fmha/"
FWD = EX + "collective/fmha_collective_tma_warpspecialized.hpp"
BWD = EX + "collective/fmha_collective_bwd_tma_warpspecialized.hpp"
KERNEL = EX + "kernel/fmha_kernel_tma_warpspecialized.hpp"
KNOBS = {"stages": 3, "outputTiles": 2, "kvBlocks": 3, "tmaLatency": 4, "wgmmaLatency": 2, "epilogueLatency": 1}


@pytest.fixture(scope="module")
def fwd(cutlass):
    return parse_cutlass.parse_header(cutlass(FWD), cutlass(KERNEL))


@pytest.fixture(scope="module")
def bwd(cutlass):
    return parse_cutlass.parse_header(cutlass(BWD), cutlass(KERNEL))


def test_the_parse_names_the_kernel_aliases_state_types_and_stage_counts(fwd, bwd):
    kl = fwd["kernel_layer"]
    pipes = {p["alias"]: p for p in kl["pipelines"]}
    # `using MainloopPipelineOuter = typename CollectiveMainloop::MainloopPipelineQ;` (64-65) and the
    # reducer's `cutlass::PipelineAsync<2>` (66), its literal stage count kept.
    assert pipes["MainloopPipelineOuter"]["class"] == "CollectiveMainloop::MainloopPipelineQ"
    assert pipes["MainloopPipelineInner"]["class"] == "CollectiveMainloop::MainloopPipeline"
    assert (pipes["MainloopPipelineReducer"]["class"], pipes["MainloopPipelineReducer"]["stages"]) == ("PipelineAsync", "2")
    # `using PipelineStateOuter = typename cutlass::PipelineState<MainloopPipelineOuter::Stages>;` (121-125).
    assert kl["state_aliases"] == [{"alias": "PipelineStateInner", "pipeline": "MainloopPipelineInner", "line": 121},
                                   {"alias": "PipelineStateOuter", "pipeline": "MainloopPipelineOuter", "line": 123},
                                   {"alias": "PipelineStateReducer", "pipeline": "MainloopPipelineReducer", "line": 125}]
    # `PipelineTmaAsync<StagesQ::value>` (119) of `using StagesQ = StageCount<StageCountQ>;` (78).
    counts = {p["alias"]: p.get("stage_count") for p in fwd["pipelines"]}
    assert counts["MainloopPipeline"] == "StageCount" and counts["MainloopPipelineQ"] == "StageCountQ"
    # `static const int kOuterLoads = 1;` (forward 77), `= 2` (backward 64).
    assert {"name": "kOuterLoads", "value": 1, "line": 77} in fwd["constants"]
    assert {"name": "kOuterLoads", "value": 2, "line": 64} in bwd["constants"]


def _fills(out, role="role:Producer.LoadKV"):
    """The role's TMA copies in issue order: (ring stage lane, copy line), from the filling blocks."""
    fills = sorted((b for b in out["blocks"] if b["kind"] == "filling"), key=lambda b: b["start"])
    issues = [b["start"] for b in out["blocks"] if b["lane"] == role and b["kind"] == "issue"]
    assert len(fills) == len(issues)
    return [(b["lane"], b["lines"]) for b in fills]


def _program(model, name):
    return next(p for p in model["programs"]["functions"] if p["name"] == name)


def test_the_load_helper_calls_are_calls_of_their_composed_collective(fwd, bwd, cutlass):
    """`load_k.template step<false>(...)` (275) is a `call` of `LoadK::step` with its template
    arguments; the helper's object is kept with its brace initializer; `step`'s template head
    (fmha_collective_load.hpp 118) gives the defaults; the class facts bind its members (57-63)."""
    prog = _program(fwd, "load_kv_maybe_q")
    steps = program_steps(prog["body"])
    call = next(n for n in steps if n.get("line") == 275)
    assert (call["node"], call["receiver"], call["name"], call["targ_exprs"]) == ("call", "load_k", "step", [["n", 0]])
    let = next(n for n in steps if n["node"] == "let" and n["names"] == ["load_k"])
    assert let["line"] == 265 and let["args"][1] == ["id", "pipeline"]
    # `[[maybe_unused]] int q_tile_count = NumMmaWarpGroups;` (257) is read: the Q step's count.
    assert any(n["node"] == "let" and n["names"] == ["q_tile_count"] and n["line"] == 257 for n in steps)
    assert not any(n["node"] == "op" and n.get("via", {}).get("helper") for n in steps)
    # `template<bool kLoadQ, class BlkCoord, ...>` (231): kLoadQ has no default.
    assert prog["tparams"][0] == {"name": "kLoadQ", "type": "bool"}
    step = _program(fwd, "LoadK::step")
    assert [(t["name"], t.get("default")) for t in step["tparams"][:3]] == [
        ("kAdvanceIterator", ["n", 1]), ("kAdvancePipe", ["n", 1]), ("kAcquireBarrier", ["n", 1])]
    entry = next(c for c in fwd["collectives"] if c["alias"] == "LoadK")
    assert entry["construct"] == ["params", "pipeline", "storage"]
    assert entry["members"] == [{"name": "params", "ref": True}, {"name": "pipeline", "ref": True}, {"name": "storage", "ref": True}]
    assert entry["targs"][0] == ["id", "cutlass::fmha::collective::LoadKind::kK"] and entry["tparams"][0]["name"] == "kKind"
    assert {"name": "LoadKind", "members": ["kQ", "kK", "kV", "kBwdN", "kBwdM", "kBwdScalar"]} in entry["enums"]
    # The backward's six aliases of the one class (239-270) are all composed (its file parsed once).
    assert [c["alias"] for c in bwd["collectives"]] == ["LoadQ", "LoadK", "LoadV", "LoadDO", "LoadLSE", "LoadODO"]
    text = cutlass(EX + "collective/fmha_collective_load.hpp").read_text().splitlines()
    assert "if constexpr (kAcquireBarrier) pipeline.producer_acquire(smem_pipe_write);" in text[123]
    assert text[130].strip().startswith("copy(params.with(*tma_barrier, mcast_mask), get<0>(state)(_,_,_,*tile_iter)")


def test_the_forward_load_warp_runs_its_helpers_programs(fwd):
    small = dict(KNOBS, outputTiles=1, kvBlocks=2)
    out = program_run(fwd, small)
    # Warpgroups: 1 load + NumMmaWarpGroups = 2 (find_option default Int<2>, collective 73; kernel
    # 58-59, 128): Consumer2 and Consumer3 hold no warpgroup. kLoadsQSeparately is off (kernel 55),
    # so the MaybeLoadQ warp (311) runs nothing; reduce() is a no-op in the forward (337).
    assert out["roles"] == ["Producer.LoadKV", "Consumer0", "Consumer1"]
    assert "Consumer2" in out["idle"] and "Consumer3" in out["idle"]
    # `load_kv_maybe_q<!kLoadsQSeparately>` (kernel 300) binds kLoadQ to 1 and `step<false>` binds
    # kAdvanceIterator, the others keep their defaults: none of them is a flag of the run.
    assert out["flags"].get("kLoadsQSeparately") == 0
    assert not {"kLoadQ", "kAcquireBarrier", "kAdvancePipe", "kAdvanceIterator", "kKind"} & set(out["flags"])
    # One ring per collective alias, under the collective's name (the kernel's MainloopPipelineOuter /
    # Inner are those rings): StageCount = Int<5> (74), StageCountQ = Int<NumMmaWarpGroups> = 2 (75).
    stages = [l for l in out["lanes"] if ".stage" in l]
    assert stages == [f"MainloopPipeline.stage{i}" for i in range(5)] + ["MainloopPipelineQ.stage0", "MainloopPipelineQ.stage1"]
    # The load order of one tile at kvBlocks = 2 (k_tile_count = 4, 260): Q (272), K (275), Q (278),
    # V (289), then K, V (299-300), each through `step`'s copy (load 131: kKind is not kBwdScalar),
    # each into the stage its own acquire (124) took.
    kv, q = "MainloopPipeline.stage", "MainloopPipelineQ.stage"
    assert _fills(out) == [(q + "0", [131]), (kv + "0", [131]), (q + "1", [131]), (kv + "1", [131]),
                           (kv + "2", [131]), (kv + "3", [131])]
    # The consumers wait for Q (379; SOFTMAX_88: `softmax.init`, 391, is no step), Consumer0 then for
    # K (399); the order barrier's `math_wg_order_barrier.wait()` (400, an op on the kernel's
    # MathWarpGroupOrderBarrier handed by position past two unnamed parameters, 346) is its call.
    assert not out["stopped"] and out["deadlock"] is None and not out["hazards"]
    compute = _program(fwd, "compute")
    assert [p["name"] for p in compute["params"]][8:11] == ["", "", "storage"]


# The program model's default knobs (docs/coverage.md runs every kernel there), with the softmax's blocks.
DEFAULTS = {"stages": 4, "outputTiles": 4, "kvBlocks": 4, "tmaLatency": 4, "wgmmaLatency": 2, "softmaxLatency": 2,
            "mathLatency": 1, "epilogueLatency": 3}


def _ops(out, role):
    return [(b["kind"], b["lines"][0]) for b in sorted((b for b in out["blocks"] if b["lane"] == "role:" + role), key=lambda b: b["start"])]


def test_the_forward_runs_complete_with_each_consumer_its_own_mma_group(fwd):
    """MMA_ROWS: the consumers' first MMAs (406) read different Q stages (`tSrQ(_,_,_,
    smem_pipe_read_q.index())`: 0 and 1, the Q state advanced by `i * kOuterLoads` under the role
    tests, kernel 350-361), so each is its own MMA group (before: one group of two, and Consumer0's
    QK MMA waited for Consumer1's part, which waited at 400 for Consumer0's arrive at 408)."""
    out = program_run(fwd, DEFAULTS)
    assert out["roles"] == ["Producer.LoadKV", "Consumer0", "Consumer1"] and out["groups"] == [None, 1, 1]
    assert not out["stopped"] and out["deadlock"] is None and not out["hazards"]
    # FMHA_INDIVIDUAL_SCHEDULER: kIsPersistent is off (collective 69, the find_option default), so the
    # scheduler is the individual one (builder 117-118): one tile per CTA at outputTiles = 4, and the
    # Q release under `if (kIsPersistent)` (545) is not run.
    assert {b["tile"] for b in out["blocks"]} == {0}
    # kvBlocks = 4: Q twice, then K and V four times each (load 131).
    assert len(_fills(out)) == 2 + 8
    # Each consumer's ops by line: Q (379), the first K (399, Consumer0; Consumer1's K is ready when
    # its Q lands), QK (406), softmax (416), PV (427), then per remaining KV block QK (505), softmax
    # (520), PV (532) after its V wait, and the tail (554). `if (true)` (393) takes one block; the
    # unmasked loop (439) runs none (FUSION_TRIP_COUNTS: get_unmasked_trip_count 0), the masked one
    # (492) the other three.
    kv = [("wgmma", 505), ("exp", 520), ("wait", 532), ("wgmma", 532)]
    # Then the kernel's `epilogue(...)` (410, EPILOGUE_OPERATOR), one block each; `if constexpr
    # (kIsEpilogueLocked) ;` (407, 415) guards an empty statement, so the order barrier's wait and
    # arrive around it always run: Consumer1's epilogue waits (407) for Consumer0's arrive (415).
    assert _ops(out, "Consumer0") == ([("wait", 379), ("wait", 399), ("wgmma", 406), ("exp", 416), ("wgmma", 427)] + kv * 3 +
                                      [("math", 554), ("epilogue", 410)])
    assert _ops(out, "Consumer1") == ([("wait", 379), ("wait", 406), ("wgmma", 406), ("exp", 416), ("wait", 427), ("wgmma", 427)] +
                                      kv * 2 + kv[:2] + [("wgmma", 532), ("math", 554), ("wait", 407), ("epilogue", 410)])
    ends = {r: max(b["end"] for b in out["blocks"] if b["lane"] == "role:" + r and b["kind"] == "epilogue") for r in ("Consumer0", "Consumer1")}
    first1 = min(b["start"] for b in out["blocks"] if b["lane"] == "role:Consumer1" and b["kind"] == "epilogue")
    assert first1 >= ends["Consumer0"]
    # The consumers' stages: the first QK MMA of each reads K stage 0 (one K for both warpgroups).
    firsts = [next(b for b in out["blocks"] if b["lane"] == "role:" + r and b["kind"] == "wgmma") for r in ("Consumer0", "Consumer1")]
    assert [(b["lines"], b["stage"]) for b in firsts] == [([406], 0), ([406], 0)]


def test_the_individual_scheduler_offers_no_tile_count(fwd):
    # One tile per CTA (FMHA_INDIVIDUAL_SCHEDULER) without reading outputTiles, so the page offers
    # no tile slider that would move nothing (before: offered, and 1 or 3 tiles drew the same run).
    specs = node_util.node_script(KNOBS_FOR, fwd)
    assert "outputTiles" not in specs and "kvBlocks" in specs
    one, three = (program_run(fwd, dict(DEFAULTS, outputTiles=t)) for t in (1, 3))
    assert one["total"] == three["total"] and one["blocks"] == three["blocks"]


def test_the_kv_ring_expects_both_consumers_releases(fwd, cutlass):
    """CONSUMER_WARPGROUPS: `pipeline_params_inner.num_consumers = NumMmaWarpGroups *
    NumThreadsPerWarpGroup;` (kernel 211) makes the K/V ring's empty barrier wait for both
    consumers' releases: with one MMA group per consumer and one release expected, the load warp
    would refill a stage Consumer1's MMA still reads (a hazard)."""
    text = cutlass(KERNEL).read_text().splitlines()
    assert "pipeline_params_inner.num_consumers = NumMmaWarpGroups * cutlass::NumThreadsPerWarpGroup;" in text[210]
    assert "pipeline_params_outer.num_consumers = cutlass::NumThreadsPerWarpGroup;" in text[205]
    out = program_run(fwd, DEFAULTS)
    assert not out["hazards"]
    # The same run with the kernel's count written as one warpgroup refills early.
    mutated = json.loads(json.dumps(fwd))
    for n in program_steps(mutated["kernel_layer"]["program"]["body"]):
        if n.get("node") == "set" and n.get("member") == "num_consumers" and n.get("name") == "pipeline_params_inner":
            n["expr"] = ["id", "cutlass::NumThreadsPerWarpGroup"]
    assert program_run(mutated, DEFAULTS)["hazards"]


def test_the_kernel_options_are_parse_constants(fwd):
    """RE_OPTION_CONSTANT: `static constexpr bool kIsPersistent = find_option_t<Tag::kIsPersistent,
    false_type, Options...>::value;` (collective 69-70) is a constant of the parse, read through
    FIND_OPTION_DEFAULTS (0): `if (kIsPersistent)` (545, 551) no longer stops the consumers."""
    consts = {c["name"]: c for c in fwd["constants"]}
    assert consts["kIsPersistent"] == {"name": "kIsPersistent", "line": 69,
                                       "value": "find_option_t<Tag::kIsPersistent, false_type, Options...>::value"}
    assert consts["kIsMainloopLocked"]["line"] == 70


def test_the_forward_load_warp_waits_in_its_helpers_acquire(fwd):
    """At kvBlocks = 3 (six K / V copies) the five stages fill and the sixth copy's acquire waits
    (load 124) for both consumers' releases of stage 0 (430), then copies."""
    out = program_run(fwd, KNOBS)
    assert len(_fills(out)) == 2 + 6 and out["deadlock"] is None
    issue6 = [b for b in sorted(out["blocks"], key=lambda b: b["start"]) if b["lane"] == "role:Producer.LoadKV"][7]
    # Each consumer releases stage 0 (430) once it has issued its PV MMA (427, drawn from its issue).
    pv = [min(b["start"] for b in out["blocks"] if b["lane"] == "role:" + r and b["lines"] == [427]) for r in ("Consumer0", "Consumer1")]
    assert issue6["stage"] == 0 and issue6["start"] >= max(pv) > min(pv)


def test_the_backward_runs_its_reducer_on_its_own_lane(bwd):
    out = program_run(bwd, dict(KNOBS, outputTiles=1, qBlocks=1, storeLatency=1, reduceLatency=1))
    # The dQ reducer (kernel 325-333, warp Reducer = 0 of the producer warpgroup) is a role with its
    # own lane; NumMmaWarpGroups = 2 (bwd collective 60).
    assert out["roles"] == ["Producer.LoadKV", "Producer.Reducer", "Consumer0", "Consumer1"]
    assert "role:Producer.Reducer" in out["lanes"]
    # StageCount = 2 * 2 (62), StageCountQ = 2 * NumMmaWarpGroups (61), the reducer's PipelineAsync<2> (kernel 66).
    for ring, n in (("MainloopPipeline", 4), ("MainloopPipelineQ", 4), ("MainloopPipelineReducer", 2)):
        assert [l for l in out["lanes"] if l.startswith(ring + ".stage")] == [f"{ring}.stage{i}" for i in range(n)]
    # `get_inner_tile_count(blk_coord, problem_size)` (386, 534) runs its program (355-357: the
    # FusionBwdAdapter's trip count, qBlocks: FUSION_ADAPTERS): the reducer enters its loop (539), waits for the consumers'
    # dQ at 549 on its own ring and reduces it into dQ (560, BULK_REDUCE_STORE: a `reduce` block).
    assert not out["stopped"] and out["deadlock"] is None and not out["hazards"]
    assert _ops(out, "Producer.Reducer") == [("wait", 549), ("reduce", 560)]
    # The load pattern of 380-382: K0 Q0 V0 K1 DO0 V1, with LSE after Q and sumOdO after dO in their
    # stage (`step<false,true,false>`, 427, and `step<true,true,false>`, 443: no acquire, the pipe advanced), through the
    # kBwdScalar copy (load 129: LoadLSE / LoadODO are of that kind).
    outer, inner = "MainloopPipelineQ.stage", "MainloopPipeline.stage"
    assert _fills(out) == [(outer + "0", [131]), (inner + "0", [131]), (inner + "0", [129]), (outer + "1", [131]),
                           (outer + "2", [131]), (inner + "1", [131]), (inner + "1", [129]), (outer + "3", [131])]
    assert [b["lines"] for b in out["blocks"] if b["lane"] == "role:Consumer0" and b["kind"] == "wgmma"] == [[699], [709], [759], [828]]


BWD_KNOBS = dict(KNOBS, outputTiles=1, qBlocks=1, mathLatency=1, softmaxLatency=2)


def _reg_lse(model):
    """The let of `reg_LSE` (712) and the loop over it (713) in the backward's `compute`."""
    body = _program(model, "compute")["body"]
    let = next(n for n in program_steps(body) if n.get("node") == "let" and n.get("names") == ["reg_LSE"])
    loop = next(n for n in program_steps(body) if n.get("node") == "loop" and n["line"] == 713)
    return let, loop


def test_a_rolled_loop_over_a_register_fragment_is_one_math_block(bwd, cutlass):
    """REGISTER_FRAGMENTS: `Tensor reg_LSE = make_fragment_like<ElementAccumulator>(acc_S);` and the
    loop `for (int i = 0; i < size(reg_LSE); i++)` (backward 712-715, no CUTLASS_PRAGMA_UNROLL) hold
    no op: one `math` block of mathLatency, as the unrolled register loops beside it (732: `exp`,
    it calls `::exp2f`; 749: `math`). Before, its unbound trip count stopped both consumers at 713."""
    text = cutlass(BWD).read_text().splitlines()
    assert "Tensor reg_LSE = make_fragment_like<ElementAccumulator>(acc_S);" in text[711]
    assert "for (int i = 0; i < size(reg_LSE); i++) {" in text[712] and "CUTLASS_PRAGMA_UNROLL" not in text[711]
    let, loop = _reg_lse(bwd)
    assert let["expr"][:2] == ["call", "make_fragment_like"] and "unroll" not in loop
    out = program_run(bwd, BWD_KNOBS)
    ops = _ops(out, "Consumer0")
    assert ops[ops.index(("wgmma", 709)):] == [("wgmma", 709), ("math", 713), ("exp", 732), ("math", 738), ("math", 749),
                                                 ("wait", 759), ("math", 772), ("wgmma", 759), ("wgmma", 828),
                                                 ("epilogue", 410)]   # EPILOGUE_OPERATOR: the kernel's epilogue(...)
    math = next(b for b in out["blocks"] if b["lane"] == "role:Consumer0" and b["lines"] == [713])
    assert math["end"] - math["start"] == BWD_KNOBS["mathLatency"]


def test_complementary_compile_time_tests_take_one_branch(bwd):
    """COMPLEMENT_FLAGS: `if constexpr (decltype(get<0>(TileShape{}) != _128{})::value)` (718) and its
    `==` twin (737) are flags the run cannot evaluate (TileShape is the instantiation's); the first
    read is off, so its twin is on and exactly one of the two `reg_ODO` loops (719, 738) runs. Before,
    both were off and neither ran. A value given for either decides both."""
    ne, eq = "decltype(get<0>(TileShape{}) != _128{})::value", "decltype(get<0>(TileShape{}) == _128{})::value"
    out = program_run(bwd, BWD_KNOBS)
    assert (out["flags"][ne], out["flags"][eq]) == (0, 1)
    assert ("math", 738) in _ops(out, "Consumer0") and ("math", 719) not in _ops(out, "Consumer0")
    flipped = program_run(bwd, dict(BWD_KNOBS, flags={ne: 1}))
    assert (flipped["flags"][ne], flipped["flags"][eq]) == (1, 0)
    ops = _ops(flipped, "Consumer0")
    assert ("math", 719) in ops and ("math", 738) not in ops
    assert (program_run(bwd, dict(BWD_KNOBS, flags={eq: 0}))["flags"][ne]) == 1


@pytest.mark.parametrize("mutation", ["maker", "op", "bound"])
def test_a_rolled_loop_over_anything_else_still_stops(bwd, mutation):
    """Only a loop over `size(X)` of a register fragment (`make_fragment_like`, `make_tensor_like`,
    `partition_fragment_C`) whose body holds no op is a register loop: another maker (`make_tensor`
    of a pointer: a view of memory), an op in its body, or another bound stop it at 713, named."""
    mutated = json.loads(json.dumps(bwd))
    let, loop = _reg_lse(mutated)
    if mutation == "maker":
        let["expr"][1] = "make_tensor"
    elif mutation == "op":
        loop["body"].append({"node": "op", "op": "consumer_release", "line": 714, "object": "pipeline_inner", "state": "smem_pipe_read_do"})
    else:
        loop["cond"][3] = ["call", "size", [["id", "reg_LSE"]], "0"]
    out = program_run(mutated, BWD_KNOBS)
    assert {(s["role"], s["line"]) for s in out["stopped"]} == {("Consumer0", 713), ("Consumer1", 713)}
    assert all("trip count of `for (int i = 0; i < size(reg_LSE); i++)`" in s["reason"] for s in out["stopped"])


def test_no_ring_is_keyed_by_a_kernel_alias(fwd, bwd):
    """The kernel's `MainloopPipelineOuter pipeline_outer(...)` (243) is the collective's Q ring: no
    lane, stop or wait names the kernel-layer alias."""
    for model in (fwd, bwd):
        out = program_run(model, KNOBS)
        assert not any("MainloopPipelineOuter" in l or "MainloopPipelineInner" in l for l in out["lanes"])
        assert not any("pipeline class" in s["reason"] for s in out["stopped"])


BWD_STORE = dict(BWD_KNOBS, storeLatency=3, reduceLatency=3)


def test_the_backward_consumers_take_their_warpgroup_index_from_the_block_coordinate(bwd, cutlass):
    """FMHA_BLOCK_COORDS, COORD_REFERENCES, SHFL_UNIFORM: the backward's scheduler is
    TileSchedulerBwdAdapter<IndividualTileScheduler> (device/fmha_device_bwd.hpp 101-104), whose
    coordinate is (_0{}, blockIdx.x, (blockIdx.y, blockIdx.z)) (fmha_tile_scheduler.hpp 72-75,
    189-193): `wg_dim` is 1 (kernel 363, `get<1>` is not a constant), `wg_block` the mode 1 of
    wg_coord (364), set to NumMmaWarpGroups * wg_block + i (366, 369); `__shfl_sync(0xffffffff,
    get<1>(wg_coord) % NumMmaWarpGroups, 0)` (backward 634) broadcasts a value every lane holds:
    Consumer0's wg_idx is 0, Consumer1's 1. So Consumer0 takes the order barrier at 763, stores dS
    (772) and issues dK (828); Consumer1 waits its turn at 782, issues dQ (789-790) and dK (795) and
    stores dQ (816) into the reducer ring (806, 822)."""
    text = cutlass(KERNEL).read_text().splitlines()
    assert "constexpr int wg_dim = is_constant<0, decltype(get<1>(wg_coord))>::value ? 0 : 1;" in text[362]
    assert "auto& wg_block = get<wg_dim>(wg_coord);" in text[363] and "wg_block = NumMmaWarpGroups * wg_block + 1;" in text[368]
    bwd_text = cutlass(BWD).read_text().splitlines()
    assert "int wg_idx = __shfl_sync(0xffffffff, get<1>(wg_coord) % NumMmaWarpGroups, 0);" in bwd_text[633]
    dev = cutlass(EX + "device/fmha_device_bwd.hpp").read_text().splitlines()
    assert "cutlass::fmha::kernel::TileSchedulerBwdAdapter<cutlass::fmha::kernel::IndividualTileScheduler>, Options...>>;" in dev[103]
    # The let of wg_dim is kept: `get<wg_dim>(...)` reads it through its template argument.
    let = next(n for n in program_steps(bwd["kernel_layer"]["program"]["body"]) if n.get("names") == ["wg_dim"])
    assert let["line"] == 363 and let["expr"][1] == ["is_constant", 0, ["call", "get", [["id", "wg_coord"]], "1"]]
    out = program_run(bwd, dict(BWD_STORE, qBlocks=2))
    assert not out["stopped"] and out["deadlock"] is None and not out["hazards"]
    head = [("wait", 597), ("wait", 600)]
    first = [("wgmma", 699), ("wait", 702), ("wgmma", 709), ("math", 713), ("exp", 732), ("math", 738), ("math", 749), ("wait", 759),
             ("math", 772), ("wgmma", 759)]
    # One m-block of Consumer0: S and dP (699, 709), the register loops, dV (759), dS to smem (772), dK (828).
    assert _ops(out, "Consumer0") == head + first + [("wgmma", 828)] + [("math", 713), ("wgmma", 699), ("wgmma", 709), ("exp", 732),
                                                                         ("math", 738), ("math", 749), ("wait", 759), ("math", 772),
                                                                         ("wgmma", 759), ("wgmma", 828), ("epilogue", 410)]
    # Consumer1: the dQ MMAs (789, 790), dK (795), dQ to smem (816) for the reducer.
    dq = [("wgmma", 789), ("wgmma", 790), ("wgmma", 795), ("math", 816)]
    assert _ops(out, "Consumer1") == (head + [("wait", 699), ("math", 713), ("wgmma", 699), ("wgmma", 709), ("exp", 732), ("math", 738),
                                              ("math", 749), ("wait", 759), ("math", 772), ("wgmma", 759)] + dq +
                                      [("math", 713), ("wait", 699), ("wgmma", 699), ("wgmma", 709), ("exp", 732), ("math", 738),
                                       ("math", 749), ("wgmma", 759), ("math", 772)] + dq +
                                      [("wait", 407), ("epilogue", 410)])   # its epilogue waits its turn (407, EPILOGUE_OPERATOR)
    # The reducer reduces each m-block's dQ once both consumers have committed it (PRODUCER_WARPGROUPS).
    assert _ops(out, "Producer.Reducer") == [("wait", 549), ("reduce", 560)] * 2
    dq_stores = [b["end"] for b in out["blocks"] if b["lane"] == "role:Consumer1" and b["lines"] == [816]]
    reduces = [b["start"] for b in out["blocks"] if b["lane"] == "role:Producer.Reducer" and b["kind"] == "reduce"]
    assert all(r >= d for r, d in zip(reduces, dq_stores))


def _mutated(model, **edits):
    mutated = json.loads(json.dumps(model))
    if "path" in edits:
        mutated["source"]["path"] = edits["path"]
    if "shfl" in edits:
        let = next(n for n in program_steps(_program(mutated, "compute")["body"]) if n.get("names") == ["wg_idx"])
        let["expr"][2][1] = edits["shfl"]
    if "producers" in edits:
        for n in program_steps(mutated["kernel_layer"]["program"]["body"]):
            if n.get("node") == "set" and n.get("member") == "producer_arv_count":
                n["expr"] = edits["producers"]
    return mutated


@pytest.mark.parametrize("edit", ["path", "shfl"])
def test_an_unknown_block_coordinate_or_a_lane_varying_shuffle_still_stops(bwd, edit):
    """Of a collective FMHA_BLOCK_COORDS does not list, the block coordinate stays unknown; a
    `__shfl_sync` of a value that reads the thread (`thread_idx % 2`) is not the same in every
    lane: both stop the consumers at `if (wg_idx == 0)` (763), named."""
    mutated = _mutated(bwd, path="88_hopper_fmha/collective/other.hpp") if edit == "path" else \
        _mutated(bwd, shfl=["bin", "%", ["id", "thread_idx"], ["n", 2]])
    out = program_run(mutated, BWD_KNOBS)
    stops = {s["role"]: (s["line"], s["reason"]) for s in out["stopped"]}
    assert set(stops) == {"Consumer0", "Consumer1"} and all(line == 763 for line, _ in stops.values())
    if edit == "shfl":
        assert all("__shfl_sync" in r and "every lane" in r for _, r in stops.values())


def test_the_reducer_ring_expects_both_consumers_commits(bwd, cutlass):
    """PRODUCER_WARPGROUPS: `pipeline_params_reducer.producer_arv_count = NumMmaWarpGroups *
    cutlass::NumThreadsPerWarpGroup;` (kernel 214): the reducer ring's full barrier completes when
    both consumer warpgroups have committed (822, 835). Written as one warpgroup, the reducer
    would reduce after Consumer0's empty commit and release the stage under Consumer1's acquire."""
    text = cutlass(KERNEL).read_text().splitlines()
    assert "pipeline_params_reducer.producer_arv_count = NumMmaWarpGroups * cutlass::NumThreadsPerWarpGroup;" in text[213]
    out = program_run(bwd, BWD_STORE)
    assert out["deadlock"] is None and not out["stopped"]
    first_reduce = next(b["start"] for b in out["blocks"] if b["lane"] == "role:Producer.Reducer" and b["kind"] == "reduce")
    dq = next(b["end"] for b in out["blocks"] if b["lane"] == "role:Consumer1" and b["lines"] == [816])
    assert first_reduce >= dq
    one = program_run(_mutated(bwd, producers=["id", "cutlass::NumThreadsPerWarpGroup"]), BWD_STORE)
    assert one["deadlock"] is not None and "role:Consumer1 waits on MainloopPipelineReducer.empty[0]" in one["deadlock"]["message"]


def test_the_backward_runs_one_tile(bwd, cutlass):
    """RE_PERSISTENT_LITERAL, FMHA_INDIVIDUAL_SCHEDULER: the backward's `static constexpr bool
    kIsPersistent = false;` (57) is a parse constant, 0: its scheduler (the individual one behind
    TileSchedulerBwdAdapter) runs one tile, so the run completes at any outputTiles (before: four
    tiles at the defaults, and the second one's Q wait at 597 deadlocked) and offers no tile slider."""
    assert "static constexpr bool kIsPersistent = false;" in cutlass(BWD).read_text().splitlines()[56]
    assert {"name": "kIsPersistent", "value": 0, "line": 57} in bwd["constants"]
    one, four = (program_run(bwd, dict(BWD_STORE, outputTiles=t)) for t in (1, 4))
    assert not four["stopped"] and four["deadlock"] is None and one["blocks"] == four["blocks"]
    assert "outputTiles" not in node_util.node_script(KNOBS_FOR, bwd)


PREDICT = r"""
const S = require(process.argv[1] + "/schedule.js");
const MP = require(process.argv[1] + "/sim/model_program.js");
const st = JSON.parse(require("fs").readFileSync(0, "utf8"));
const base = S.simulate(st, { model: "program" });
const r = S.simulate(st, { model: "program", gpu: "h100-sxm", batch: 1, heads: 16, seqlen: 2048 });
process.stdout.write(JSON.stringify({ reads: MP.programReads(st), census: MP.programCensus(st, base.knobs), error: r.error,
  flops: r.units && r.units.flops, problem: r.units && r.units.inputs.problem, qBlocks: r.knobs.qBlocks,
  wgmma: r.knobs.wgmmaLatency, derivation: r.units && r.units.derivation.wgmmaLatency }));
"""


def test_the_backward_fusion_adapter_counts_m_blocks(bwd, cutlass):
    """FUSION_ADAPTERS: the backward mainloop is instantiated with `FusionBwdAdapter<Fusion>` (device
    bwd 94-96), whose get_trip_count asks the base with Q and K swapped (fusion 194-203): the
    m-blocks of Q one K/V block steps over, the qBlocks knob (before: kvBlocks, and the units
    read the backward as a forward and refused it)."""
    dev = cutlass(EX + "device/fmha_device_bwd.hpp").read_text().splitlines()
    assert "cutlass::fmha::collective::FusionBwdAdapter<Fusion>, Options...>;" in dev[95]
    fusion = cutlass(EX + "collective/fmha_fusion.hpp").read_text().splitlines()
    assert "struct FusionBwdAdapter {" in fusion[194]
    assert "return Base{}.get_trip_count(select<1,0,2>(blk_coord), select<1,0,2>(tile_shape), select<0,1,3,2,4>(problem_size));" in fusion[202]
    out = node_util.node_script(PREDICT, bwd)
    assert out["reads"].get("qBlocks") and not out["reads"].get("kvBlocks"), out["reads"]
    # The forward's Fusion{} is still DefaultFusion's KV blocks.
    fwd_reads = node_util.node_script(PREDICT, parse_cutlass.parse_header(cutlass(FWD), cutlass(KERNEL)))["reads"]
    assert fwd_reads.get("kvBlocks") and not fwd_reads.get("qBlocks"), fwd_reads
    # Twice the m-blocks: the loads, the reducer's waits and reduce-adds per tile double.
    one, two = (program_run(bwd, dict(BWD_STORE, qBlocks=q)) for q in (1, 2))
    assert [_ops(r, "Producer.Reducer").count(("reduce", 560)) for r in (one, two)] == [1, 2]


def test_the_backward_step_has_five_gemms_over_seven_mma_sites(bwd):
    """STEP_GEMMS: per m-block each consumer issues S (699), dP (709), dV (759) and dK (WG1 795, WG0
    828, both into acc_DK); WG1 also dQ = dS K as two calls into acc_DQ over the halves of N (789,
    790). Seven sites, five GEMMs by accumulator, ten MMA jobs; the problem's FLOPs are five
    GEMMs of 2 s^2 d per head (before: seven, 40% too many)."""
    out = node_util.node_script(PREDICT, bwd)
    assert out["error"] is None
    c = out["census"]["counts"]
    assert (out["census"]["step"], c["gemmsPerStep"], c["mmaJobsPerStep"]) == ("qBlocks", 5, 10)
    assert out["problem"] == "1 x 16 heads x 2048 backward" and out["qBlocks"] == 2048 // 128
    assert out["flops"] == 5 * 2 * 2048 * 2048 * 128 * 16
    # Each job is 5 x 2 x 128 x 128 x 128 / 10 FLOPs at 4096 BF16 FLOP/clk/SM: 512 cycles.
    assert out["wgmma"] == 512 and out["derivation"].startswith("mmaCycles:") and "5 GEMMs" in out["derivation"]
