"""TILES_PER_CTA (docs/programs.md): one hook answers every tile scheduler's validity test, and the
run's result says how many tiles one CTA ran and by which rule, which the units read (schedule.js
ctaTileCount, docs/performance.md "The program model in cycles"). On the real kernels: CUTLASS
4.2's SM90 persistent GEMM (`outputTiles`), its basic kernel layer (no tile loop), 88's forward
(its individual scheduler) and FA4's SM90 forward (its SingleTileScheduler)."""

import pytest

import parse_cutlass
import node_util
from test_parser_dsl import fa4_dir

GEMM = "include/cutlass/gemm/"
SM90 = GEMM + "collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
FMHA88 = "examples/88_hopper_fmha/"

TILES = r"""
const S = require(process.argv[1] + "/schedule.js");
const st = JSON.parse(require("fs").readFileSync(0, "utf8"));
const knobs = JSON.parse(process.argv[2]);
const out = [1, 3].map((t) => {
  const r = S.simulate(st, Object.assign({ model: "program", outputTiles: t }, knobs));
  return { tiles: r.verdict.tilesPerCta, rule: r.verdict.tilesPerCtaRule, text: r.verdict.tilesPerCtaText, total: r.total, stopped: r.verdict.stopped.length };
});
process.stdout.write(JSON.stringify(out));
"""

UNITS = r"""
const S = require(process.argv[1] + "/schedule.js");
const st = JSON.parse(require("fs").readFileSync(0, "utf8"));
const knobs = JSON.parse(process.argv[2]);
const r = S.simulate(st, Object.assign({ model: "program", gpu: "h100-sxm" }, knobs));
const steps = S.simulate(st, Object.assign({ model: "program" }, r.knobs));
process.stdout.write(JSON.stringify({ error: r.error, cycles: r.time && r.time.cycles, waves: r.units.inputs.waves,
  ctas: r.units.inputs.ctas, total: r.total, floor: r.units.hbmFloorCycles, stepsTotal: steps.total,
  tilesPerCta: r.verdict.tilesPerCta, outputTiles: r.knobs.outputTiles }));
"""


def tiles(structure, **knobs):
    return node_util.node_script(TILES, structure, knobs)


@pytest.fixture(scope="module")
def parsed(cutlass):
    return {
        "pingpong": parse_cutlass.parse_header(cutlass(SM90), cutlass(GEMM + "kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp")),
        "basic": parse_cutlass.parse_header(cutlass(SM90), cutlass(GEMM + "kernel/sm90_gemm_tma_warpspecialized.hpp")),
        "fmha88": parse_cutlass.parse_header(cutlass(FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp"),
                                             cutlass(FMHA88 + "kernel/fmha_kernel_tma_warpspecialized.hpp")),
        "fa4": parse_cutlass.parse_file(fa4_dir() / "flash_fwd_sm90.py"),
    }


def test_a_persistent_gemm_runs_the_tile_knob(parsed):
    # The static persistent scheduler's `work_tile_info.is_valid()` (static_tile_scheduler.hpp):
    # the CTA runs outputTiles tiles, and three take longer than one.
    one, three = tiles(parsed["pingpong"])
    assert (one["tiles"], one["rule"], three["tiles"], three["rule"]) == (1, "outputTiles", 3, "outputTiles")
    assert three["total"] > one["total"] and not one["stopped"] and not three["stopped"]
    assert three["text"] == "3 (the outputTiles knob: a persistent CTA's share of the tiles)"


@pytest.mark.parametrize("kernel, rule", [
    ("basic", "no tile loop"),   # sm90_gemm_tma_warpspecialized.hpp: one output tile per CTA, no tile loop
    ("fmha88", "FMHA_INDIVIDUAL_SCHEDULER"),   # kIsPersistent 0: the individual scheduler (builder 117-118)
    ("fa4", "DSL_SCHEDULER_CLASSES (SingleTileScheduler)"),   # flash_fwd_sm90.py's default tile scheduler class
])
def test_a_one_tile_cta_says_so_whatever_the_tile_knob(parsed, kernel, rule):
    one, three = tiles(parsed[kernel])
    assert one == three and (one["tiles"], one["rule"], one["stopped"]) == (1, rule, 0)
    assert one["text"].startswith("1 (" + rule)


def test_the_units_run_a_one_tile_cta_once_per_wave(parsed):
    """A one-tile CTA's problem is its waves one after another: cycles = waves x max(the run's
    total, its HBM floor / waves); a persistent CTA runs its share of the tiles in one schedule."""
    one = node_util.node_script(UNITS, parsed["fa4"], {"batch": 4, "heads": 16, "seqlen": 4096})
    assert one["error"] is None and one["tilesPerCta"] == 1 and one["waves"] > 1
    assert one["cycles"] == one["waves"] * max(one["total"], one["floor"] / one["waves"])
    gemm = node_util.node_script(UNITS, parsed["pingpong"], {"problem": "4096x4096x4096"})
    assert gemm["error"] is None and gemm["tilesPerCta"] == gemm["outputTiles"] > 1
    assert gemm["cycles"] == max(gemm["total"], gemm["floor"])
