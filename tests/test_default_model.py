"""The default model where a hand-written model fits but does not follow the code (docs/fit.md
"Default model"): on the installed CUTLASS 4.2 headers, the FP8 blockwise-scaling GEMM and the RS
mixed-input mainloop (each MMA function waits on its WGMMAs several times) start in the program
model, which runs their own programs complete, with the reason, and still offer the GEMM model;
the plain SS and RS mainloops, a collective parsed alone, an array collective whose programs stop
with this kernel layer, the bundled examples and a header changed at test time (never committed)
whose extra waits are removed keep the hand fit."""

import json
import subprocess

import pytest

import parse_cutlass
from node_util import ROOT, node

COLLECTIVES = "include/cutlass/gemm/collective/"
BLOCKWISE = COLLECTIVES + "sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp"
MIXED = COLLECTIVES + "sm90_mma_tma_gmma_rs_warpspecialized_mixed_input.hpp"
SS = COLLECTIVES + "sm90_mma_tma_gmma_ss_warpspecialized.hpp"
RS = COLLECTIVES + "sm90_mma_tma_gmma_rs_warpspecialized.hpp"
ARRAY_BLOCKWISE = COLLECTIVES + "sm90_mma_array_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp"
KERNELS = {
    "cooperative": "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp",
    "pingpong": "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp",
}

# For each structure on stdin: the default fit, the models offered, the default run (no knobs)
# and an explicit GEMM run's fit and messages.
NODE_DEFAULT = r"""
const KS = require(process.argv[1] + "/schedule.js");
const structures = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(structures.map((s) => {
  const fit = KS.fitModel(s), run = KS.simulate(s, {}, { events: false });
  const gemm = KS.simulate(s, { model: "gemm" }, { events: false });
  return { fit, offered: KS.offeredModels(s), defaultModel: KS.defaultModel(s),
    run: { model: run.model, fit: run.fit, stopped: run.verdict.stopped || [], deadlock: run.deadlock, total: run.total },
    gemm: { fit: gemm.fit, messages: gemm.messages, total: gemm.total } };
})));
"""


def defaults(*structures):
    """What schedule.js decides for each structure (one Node process)."""
    proc = subprocess.run([node(), "-e", NODE_DEFAULT, str(ROOT)], input=json.dumps(list(structures)),
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def parse(cutlass):
    """parse(collective, kernel name or None), cached for the module."""
    cache = {}

    def get(collective, kernel=None):
        key = (collective, kernel)
        if key not in cache:
            cache[key] = parse_cutlass.parse_header(cutlass(collective), cutlass(KERNELS[kernel]) if kernel else None)
        return cache[key]
    return get


@pytest.mark.parametrize("collective, lines", [(BLOCKWISE, [897, 976, 1052]), (MIXED, [905, 937, 990])])
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_a_diverging_hand_fit_gives_the_program_model_with_the_reason(parse, collective, lines, kernel):
    (out,) = defaults(parse(collective, kernel))
    fit = out["fit"]
    assert fit["model"] == out["defaultModel"] == "program"
    # The hand fit the default was chosen over, with the divergence its notModelled flags.
    hand = fit["handFit"]
    assert hand["model"] == "gemm" and [d["lines"] for d in hand["divergences"]] == [lines]
    assert hand["divergences"][0]["text"] in hand["notModelled"]
    assert "the gemm model fits but does not follow the code here (mma() waits on its WGMMAs %d times" % len(lines) in fit["reason"]
    assert "run complete at the source's settings" in fit["reason"]
    # The hand model stays in the model choice; the default run is the program's, complete.
    assert "gemm" in out["offered"] and "program" in out["offered"]
    run = out["run"]
    assert run["model"] == "program" and run["fit"]["reason"] == fit["reason"]
    assert run["stopped"] == [] and run["deadlock"] is None and run["total"] > 0
    # Asked for, the GEMM model runs with its own fit, and says why it is not the default.
    assert out["gemm"]["fit"] == hand and out["gemm"]["total"] > 0
    assert any(m.startswith("model gemm was asked for; the default is the program model, because this one does not follow the code here: mma() waits")
               for m in out["gemm"]["messages"]), out["gemm"]["messages"]


@pytest.mark.parametrize("collective, kernel, model, diverges", [
    (SS, "cooperative", "gemm", False), (SS, "pingpong", "gemm", False),
    # No hand-written model fits the plain RS mainloop (it releases inside the k-block loop): no default.
    (RS, "pingpong", None, False),
    # Parsed alone (no kernel layer's program), the program model does not cover them: rule (b) fails.
    (BLOCKWISE, None, "gemm", True), (MIXED, None, "gemm", True),
    # The array collective with the non-array kernel layer: its programs stop there (rule (b)).
    (ARRAY_BLOCKWISE, "cooperative", "gemm", True),
])
def test_other_kernels_keep_their_fit(parse, collective, kernel, model, diverges):
    (out,) = defaults(parse(collective, kernel))
    fit = out["fit"]
    assert fit["model"] == model and "handFit" not in fit
    assert bool(fit["divergences"]) == diverges
    assert out["run"]["model"] == model


def test_the_bundled_examples_keep_their_models():
    names = ["sm90_gemm_pingpong", "sm90_gemm_cooperative", "sm100_gemm", "fa3_fwd", "fa4_fwd_sm90", "fa4_fwd_sm100", "sm100_fmha_fwd"]
    structures = [json.loads((ROOT / "examples" / (n + ".json")).read_text(encoding="utf-8")) for n in names]
    got = {n: (o["fit"]["model"], "handFit" in o["fit"]) for n, o in zip(names, defaults(*structures))}
    assert got == {"sm90_gemm_pingpong": ("gemm", False), "sm90_gemm_cooperative": ("gemm", False),
                   "sm100_gemm": ("blackwell", False), "fa3_fwd": ("attention", False),
                   "fa4_fwd_sm90": ("attention", False), "fa4_fwd_sm100": (None, False),
                   "sm100_fmha_fwd": (None, False)}


def test_the_blockwise_header_without_its_extra_waits_falls_back_to_the_gemm_model(cutlass, tmp_path):
    """The FP8 blockwise mainloop with its first k-tile's and its tail's warpgroup_wait<0> (897,
    1052) blanked (lines kept): one wait per k-tile is left (976), no divergence, the GEMM model."""
    lines = cutlass(BLOCKWISE).read_text().split("\n")
    for n in (897, 1052):
        assert lines[n - 1].strip() == "warpgroup_wait<0>();"
        lines[n - 1] = ""
    header = tmp_path / "sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp"
    header.write_text("\n".join(lines))
    (out,) = defaults(parse_cutlass.parse_header(header, cutlass(KERNELS["cooperative"])))
    fit = out["fit"]
    assert fit["model"] == "gemm" and fit["divergences"] == [] and "handFit" not in fit
    assert out["run"]["model"] == "gemm"
