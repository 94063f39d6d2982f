"""A second pipeline shows its own stage lanes and waits (issue 19, section 3): the program model
on a fixture written for this project (tests/fixtures/two_rings_mainloop.hpp with
two_rings_kernel.hpp, a CUTLASS-style producer / consumer whose A and B copies each fill their
own PipelineTmaAsync), against the same fixture with the B ring taken out at test time. The
schedule is the code's own program: the ring added to the producer and the consumer adds its
stage lanes, its copies and its consumer waits, each at the lines that do them."""

import parse_cutlass
from node_util import ROOT, lane_blocks, program_run

FIXTURES = ROOT / "tests" / "fixtures"
KNOBS = {"outputTiles": 2, "kTiles": 4, "stages": 2, "tmaLatency": 6, "wgmmaLatency": 2}


def lines_of(path, text):
    """The 1-based lines of path that contain text."""
    return [i + 1 for i, line in enumerate(path.read_text(encoding="utf-8").split("\n")) if text in line]


def one_ring(tmp_path):
    """The fixture with every line of the B ring taken out (its alias, object, states, copy, wait,
    release and advances); the WGMMA reads B from the A ring's stage."""
    out = {}
    for name in ("two_rings_mainloop.hpp", "two_rings_kernel.hpp"):
        text = (FIXTURES / name).read_text(encoding="utf-8")
        text = text.replace("smem_pipe_read_b.index()", "smem_pipe_read_a.index()")   # the WGMMA's B operand
        kept = [ln for ln in text.split("\n")
                if not any(t in ln for t in ("pipeline_b", "PipelineB", "tBgB", "_b;", "_b.advance", "tma_barrier_b"))]
        path = tmp_path / name
        path.write_text("\n".join(kept), encoding="utf-8")
        out[name] = path
    return out


def run(mainloop, kernel):
    return program_run(parse_cutlass.parse_header(mainloop, kernel), KNOBS)


def test_the_second_ring_has_its_own_lanes_copies_and_waits(tmp_path):
    mainloop = FIXTURES / "two_rings_mainloop.hpp"
    two = run(mainloop, FIXTURES / "two_rings_kernel.hpp")
    assert not two["stopped"] and two["deadlock"] is None and not two["hazards"]
    assert [lane for lane in two["lanes"] if lane.startswith("Pipeline")] == [
        "PipelineA.stage0", "PipelineA.stage1", "PipelineB.stage0", "PipelineB.stage1"]
    # Each ring's stages fill once per k-tile they hold: 2 tiles x 4 k-tiles over 2 stages.
    for ring in ("PipelineA", "PipelineB"):
        assert [len(lane_blocks(two, f"{ring}.stage{s}", "filling")) for s in (0, 1)] == [4, 4]
    # The consumer waits at each ring's own consumer_wait line, and only there.
    wait_a, wait_b = lines_of(mainloop, "pipeline_a.consumer_wait")[0], lines_of(mainloop, "pipeline_b.consumer_wait")[0]
    waited = {line for b in lane_blocks(two, "role:Consumer", "wait") for line in b["lines"]}
    assert waited == {wait_a, wait_b}

    paths = one_ring(tmp_path)
    one = run(paths["two_rings_mainloop.hpp"], paths["two_rings_kernel.hpp"])
    assert not one["stopped"] and one["deadlock"] is None
    assert [lane for lane in one["lanes"] if lane.startswith("Pipeline")] == ["PipelineA.stage0", "PipelineA.stage1"]
    one_wait_a = lines_of(paths["two_rings_mainloop.hpp"], "pipeline_a.consumer_wait")[0]
    assert {line for b in lane_blocks(one, "role:Consumer", "wait") for line in b["lines"]} == {one_wait_a}
    # The second ring's copy is one more issue per k-tile on the producer.
    assert len(lane_blocks(two, "role:Producer", "issue")) == 2 * len(lane_blocks(one, "role:Producer", "issue"))
