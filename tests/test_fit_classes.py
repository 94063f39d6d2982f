"""One source per class of real kernel the fit rule must refuse or accept (docs/fit.md), written
for these tests in the style of the real code (tests/fixtures/fit/), parsed and fitted end to end.
Each must get the no-model page with its reason, or a schedule with no deadlock."""

from pathlib import Path

import pytest

import node_util
import parse_cutlass

FIT = Path(__file__).resolve().parent / "fixtures" / "fit"

CASES = [
    # (fixture, model or None, reason pattern for None)
    ("sm100_renamed_pipeline.hpp", "blackwell", None),
    ("sm100_two_rings.hpp", None, r"^its loads fill 2 pipelines \(MainloopABPipeline .*MainloopSFPipeline"),
    ("sm100_one_warp.hpp", None, r"^the same function operator\(\)\(\) at line \d+ loads \(line \d+\) and issues the MMAs"),
    ("sm100_latent_attention.hpp", None, r"^it issues MMAs on 2 tiled MMAs \(tiled_mma_qk, tiled_mma_pv\): chained GEMMs"),
    ("sm100_epilogue_only.hpp", None, r"^an epilogue collective \(TMA stores, no MMA\)"),
    ("sm90_rs_release_in_loop.hpp", None, r"^mma\(\) releases its stages \(line 16\) before its last MMA \(line 19\)"),
]


@pytest.mark.parametrize("name, model, reason", CASES, ids=[c[0] for c in CASES])
def test_fit_class(name, model, reason, validate):
    structure = validate(parse_cutlass.parse_file(FIT / name))
    got = node_util.fits([structure])[0]
    assert got["fit"]["model"] == model, got["fit"]["reason"]
    if model is None:
        assert got["total"] == 0
        import re
        assert re.search(reason, got["fit"]["reason"]), got["fit"]["reason"]
    else:
        assert not got["deadlock"] and got["total"] > 0


def test_every_fixture_is_a_case():
    assert sorted(p.name for p in FIT.glob("*.hpp")) == sorted(c[0] for c in CASES)
