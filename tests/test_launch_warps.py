"""A CuTe DSL kernel's warps are its launch's (programs_dsl LAUNCH_WARPS), and a pipeline an op of
the kernel's own body runs on keeps its creation (DSL_OP_OBJECTS), docs/programs.md "CuTe DSL
front end". On our fixture (tests/fixtures/dsl/launch_warps.py) and, where flash-attn-4 is
installed, on FA4's hd256 2-CTA backward dK/dV kernel, whose page said the kernel deadlocks at its
CTA-wide barrier: the warp its warp-id attributes leave out (warp 11) was never run, so the
barrier's 384 threads never arrived. Changed copies go to temporary folders only."""

import pytest

import node_util
import parse_dsl
from test_parser_dsl import FIXTURES, fa4_dir

RUN = r"""
const S = require(process.argv[1] + "/schedule.js");
const st = JSON.parse(require("fs").readFileSync(0, "utf8"));
const r = S.simulate(st, { model: "program" }, { events: false });
process.stdout.write(JSON.stringify({ error: r.error, deadlock: r.deadlock && r.deadlock.message,
  stopped: r.verdict.stopped.map((s) => [s.role, s.line]), roles: (r.verdict.roles || []).map((x) => x.name || x),
  waits: r.deadlock ? r.deadlock.waiting.map((w) => w.line) : [] }));
"""


def run(structure):
    return node_util.node_script(RUN, structure)


def test_the_launch_gives_the_kernel_its_warps_and_the_barrier_completes():
    m = parse_dsl.parse_file(FIXTURES / "launch_warps.py")
    var = m["kernel_layer"]["role_vars"][0]
    # The warp-id attributes name warps 0-2; block=[self.threads_per_cta, 1, 1] (21) folds to 128 threads (15).
    assert var["warp_ids"]["self.load_warp_id"]["warps"] == [2]
    assert var["warps"] == 4
    got = run(m)
    assert got["error"] is None and got["deadlock"] is None and got["stopped"] == []
    assert "compute.warp0" in got["roles"] and "load.warp2" in got["roles"]


def test_a_launch_of_fewer_threads_than_the_barrier_counts_deadlocks_there(tmp_path):
    """block=[96, 1, 1]: three warps, the barrier of line 40 counts 128 threads: the kernel as
    written would hang there, and the page says so."""
    path = tmp_path / "launch_96.py"
    text = (FIXTURES / "launch_warps.py").read_text()
    assert "block=[self.threads_per_cta, 1, 1]" in text
    path.write_text(text.replace("block=[self.threads_per_cta, 1, 1]", "block=[96, 1, 1]"))
    m = parse_dsl.parse_file(path)
    assert m["kernel_layer"]["role_vars"][0]["warps"] == 3
    got = run(m)
    assert got["deadlock"] and set(got["waits"]) == {40}


def test_an_unfoldable_launch_leaves_the_warp_ids_count(tmp_path):
    path = tmp_path / "launch_dynamic.py"
    text = (FIXTURES / "launch_warps.py").read_text()
    path.write_text(text.replace("block=[self.threads_per_cta, 1, 1]", "block=[self.threads(), 1, 1]"))
    assert parse_dsl.parse_file(path)["kernel_layer"]["role_vars"][0]["warps"] == 3


def test_ops_on_the_kernels_own_pipeline_keep_its_creation():
    """DSL_OP_OBJECTS: `pipe.producer_acquire(state)` (44) in the kernel's body: the let of `pipe =
    pipeline.PipelineAsync.create(...)` (34) stays in the program, so the ops find their ring
    (before, it was pruned and every op stopped: "the pipeline of `producer_acquire` is not known")."""
    m = parse_dsl.parse_file(FIXTURES / "launch_warps.py")
    lets = [n for n in m["kernel_layer"]["program"]["body"] if n["node"] == "let"]
    assert any(n["names"] == ["pipe"] and n["line"] == 34 for n in lets)


def test_fa4_hd256_backward_dkdv_kernel_runs_its_twelfth_warp():
    try:
        path = fa4_dir() / "sm100_hd256_2cta_fmha_backward_dkdvkernel.py"
    except Exception as exc:   # flash-attn-4 not installed
        pytest.skip(str(exc))
    if not path.is_file():
        pytest.skip("this flash-attn-4 has no sm100_hd256_2cta_fmha_backward_dkdvkernel.py")
    src = path.read_text().splitlines()
    # flash-attn-4 4.0.0b36: warp ids 0-10 (157-160), 12 warps launched (167, 817), the CTA barrier (1020).
    assert src[156].strip() == "self.compute_warp_id = (0, 1, 2, 3, 4, 5, 6, 7)"
    assert src[159].strip() == "self.empty_warp_id = 10"
    assert src[166].strip() == "self.threads_per_cta = self.threads_per_warp * (self.num_compute_warps + 4)"
    assert "block=[self.threads_per_cta, 1, 1]" in src[816]
    assert src[1019].strip().startswith("cute.arch.barrier(barrier_id=self.cta_sync_bar_id")
    m = parse_dsl.parse_file(path)
    assert m["kernel_layer"]["role_vars"][0]["warps"] == 12
    got = run(m)
    # No role waits at the CTA barrier any more (1020): the run goes on to where it is not modelled.
    assert 1020 not in got["waits"]
    assert got["stopped"] and all(line != 1020 for _, line in got["stopped"])


def test_the_kernel_class_names_the_arch_and_a_warp_level_mma_stops_named(tmp_path):
    """DSL_ARCH_CLASS (docs/dsl.md): no arch in the file name and no tcgen05 / warpgroup names,
    the kernel's class `Sm120...` gives sm120 (CUTLASS main's GeForce dense_gemm.py writes
    `class Sm120GemmKernel`): no hand-written model fits (docs/fit.md step 4), and the program
    model stops at its first MMA (WARP_MMA, docs/programs.md), a warp-level `mma.sync` it does not
    draw as WGMMA or UMMA. The fixture as written (class LaunchWarps) keeps an unknown arch."""
    text = (FIXTURES / "launch_warps.py").read_text()
    assert "class LaunchWarps:" in text
    path = tmp_path / "gemm.py"
    path.write_text(text.replace("class LaunchWarps:", "class Sm120LaunchWarps:"))
    m = parse_dsl.parse_file(path)
    assert m["arch"] == "sm120"
    assert {o["unit"] for f in m["functions"] for o in f["ops"] if o["op"] == "mma"} == {"mma"}
    fit = node_util.fits([m])[0]["fit"]
    assert fit["model"] is None and fit["reason"].startswith("an sm120 structure")
    got = run(m)
    assert ["compute.warp0", 51] in got["stopped"]
    assert parse_dsl.parse_file(FIXTURES / "launch_warps.py")["arch"] == "unknown"
    stops = node_util.node_script(RUN.replace("stopped: r.verdict.stopped.map((s) => [s.role, s.line])",
                                              "stopped: r.verdict.stopped.map((s) => s.reason)"), m)["stopped"]
    assert "a warp-level MMA (mma.sync on sm120, not WGMMA or UMMA) is not modelled yet" in stops


def test_the_warp_index_assigned_in_two_steps_keeps_the_roles_warp(tmp_path):
    """DSL_ROLE_REBIND (docs/programs.md): `warp_idx = cute.arch.warp_idx()` then `warp_idx =
    cute.arch.make_warp_uniform(warp_idx)`, as CUTLASS's CuTe DSL examples write it
    (blackwell_geforce dense_gemm.py 478-480, blockwise_gemm.py 648-649): the second line's right
    side reads the role's own warp. Before, it read an unbound placeholder, and every role test
    after it stopped ("runtime condition not modelled: not bound yet")."""
    text = (FIXTURES / "launch_warps.py").read_text()
    one = "        warp_idx = cute.arch.make_warp_uniform(cute.arch.warp_idx())\n"
    assert one in text
    path = tmp_path / "two_step.py"
    path.write_text(text.replace(one, "        warp_idx = cute.arch.warp_idx()\n        warp_idx = cute.arch.make_warp_uniform(warp_idx)\n"))
    got = run(parse_dsl.parse_file(path))
    assert got["error"] is None and got["deadlock"] is None and got["stopped"] == []
    assert "compute.warp0" in got["roles"] and "load.warp2" in got["roles"]


PERSISTENT_LOOP = """\
{i}tile_sched = utils.StaticPersistentTileScheduler.create(tile_sched_params, cute.arch.block_idx(), cute.arch.grid_dim())
{i}work_tile = tile_sched.initial_work_tile_info()
{i}while work_tile.is_valid_tile:
{body}{i}    tile_sched.advance_to_next_work()
{i}    work_tile = tile_sched.get_current_work()
"""


def persistent_fixture(tmp_path):
    """Our launch_warps.py fixture with each role's k-loop inside a persistent tile loop over
    CUTLASS's utils.StaticPersistentTileScheduler, as CUTLASS's CuTe DSL persistent GEMMs write it."""
    text = (FIXTURES / "launch_warps.py").read_text()
    text = text.replace("import cutlass.pipeline as pipeline\n", "import cutlass.pipeline as pipeline\nimport cutlass.utils as utils\n")
    text = text.replace("def kernel(self, tiled_mma):", "def kernel(self, tiled_mma, tile_sched_params):")
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        if lines[i].strip() == "for k in cutlass.range(4):":
            indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
            body = [lines[i]] + [ln for ln in lines[i + 1:i + 5] if ln.startswith(indent + " ")]
            out.append(PERSISTENT_LOOP.format(i=indent, body="".join("    " + ln + "\n" for ln in body)).rstrip("\n"))
            i += len(body)
            continue
        out.append(lines[i])
        i += 1
    path = tmp_path / "persistent.py"
    path.write_text("\n".join(out))
    return path


def test_cutlass_static_persistent_scheduler_by_its_module_name(tmp_path):
    """DSL_NAMED_SCHEDULER (docs/programs.md): `utils.StaticPersistentTileScheduler.create(...)`
    (as CUTLASS's CuTe DSL persistent GEMMs write it) is the strided tile scheduler: each role's
    `while work_tile.is_valid_tile` runs the outputTiles knob's tiles, 4 MMAs each. Before, the
    create was an unknown call and the loops' trip count was not bound."""
    m = parse_dsl.parse_file(persistent_fixture(tmp_path))
    script = RUN.replace("waits: r.deadlock", "mma: r.columns ? Array.from(r.columns.kind).filter((k) => r.columns.kinds[k] === 'wgmma').length : 0, "
                         "tiles: r.verdict.tilesPerCta, waits: r.deadlock").replace(
        '{ model: "program" }', 'Object.assign({ model: "program" }, JSON.parse(process.argv[2]))')
    for tiles in (1, 3):
        got = node_util.node_script(script, m, {"outputTiles": tiles})
        assert got["stopped"] == [] and got["deadlock"] is None
        assert (got["tiles"], got["mma"]) == (tiles, 4 * tiles)


def test_a_method_call_handed_a_pipeline_without_a_program_stops_named(tmp_path):
    """DSL_UNFOLLOWED_CALLS on a receiver's method too (docs/programs.md): `self.epilogue.run(pipe,
    state=state)` of an object defined elsewhere is handed the kernel's pipeline (positionally or
    by keyword) and has no program here: the role stops there, named, instead of going on as if
    the call did nothing with the ring."""
    text = (FIXTURES / "launch_warps.py").read_text()
    loop = "                pipe.consumer_release(state)\n"
    assert loop in text
    for i, call in enumerate(("self.epilogue.run(pipe, state)", "self.epilogue.run(tile=1, ab_pipeline=pipe)")):
        path = tmp_path / f"handed_{i}.py"
        path.write_text(text.replace(loop, loop + "                " + call + "\n"))
        got = node_util.node_script(RUN.replace("stopped: r.verdict.stopped.map((s) => [s.role, s.line])",
                                                "stopped: r.verdict.stopped.map((s) => [s.line, s.reason])"), parse_dsl.parse_file(path))
        assert [53, "`self.epilogue.run` is handed `pipe` but has no program here: its pipeline steps are not followed"] in got["stopped"]
