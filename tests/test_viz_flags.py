"""viz.py --flag NAME=VALUE (docs/waveform.md "Compile-time flags"): the program model's
compile-time flags and settings, by name, reach the page's starting knobs, --print-prediction and
`node schedule.js predict --flag`; a malformed one is one stderr line and exit 2. Without --model,
a prediction runs the model the page starts in (KernelSchedule.pageModel). On the installed
flash-attn-4."""

import json
import subprocess
import sys
from pathlib import Path

from test_parser_dsl import fa4_dir

ROOT = Path(__file__).resolve().parent.parent


def viz(*args):
    return subprocess.run([sys.executable, str(ROOT / "viz.py"), *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def test_a_malformed_flag_is_one_line_and_exit_2(tmp_path):
    out = tmp_path / "x.html"
    proc = viz(fa4_dir() / "flash_fwd_sm90.py", "--flag", "no_value", "-o", out)
    assert proc.returncode == 2 and not out.exists()
    assert proc.stderr.strip().splitlines()[-1] == "error: --flag: expects NAME=VALUE (on, off or an integer), got 'no_value'"


def test_a_flag_moves_the_prediction(tmp_path):
    src = fa4_dir() / "flash_fwd_sm90.py"
    common = ("--model", "program", "--gpu", "h100-sxm", "--batch", 1, "--heads", 16, "--seqlen", 4096, "--print-prediction")
    on, off = (viz(src, *common, *extra) for extra in ((), ("--flag", "self.intra_wg_overlap=off")))
    assert on.returncode == 0 and off.returncode == 0, (on.stderr, off.stderr)
    assert "TFLOPS" in on.stdout and "TFLOPS" in off.stdout
    assert on.stdout.splitlines()[-1] != off.stdout.splitlines()[-1]
    # The page starts with the flag as given; the simulator reads the word (normalizeFlagValues).
    page = tmp_path / "fa4.html"
    assert viz(src, "--model", "program", "--flag", "self.intra_wg_overlap=off", "-o", page).returncode == 0
    assert '"initialKnobs":{"flags":{"self.intra_wg_overlap":"off"},"model":"program"}' in page.read_text()


def test_predict_without_a_model_runs_the_pages_model(tmp_path):
    """FA4's SM100 forward fits no hand-written model: the page runs the program model, and so does
    the prediction (before: the no-model result, 'the run did not finish'). --flag self.q_stage=1
    runs the constructor's setting as 1, not as "on"."""
    src = fa4_dir() / "flash_fwd_sm100.py"
    parsed = tmp_path / "fa4.json"
    parsed.write_text(subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), str(src)], capture_output=True,
                                     text=True, cwd=ROOT, check=True).stdout)
    node = ["node", str(ROOT / "schedule.js"), "predict", "--structure", str(parsed), "--knob", "gpu=b200",
            "--knob", "batch=1", "--knob", "heads=16", "--knob", "seqlen=4096"]
    base = json.loads(subprocess.run(node, capture_output=True, text=True, check=True, timeout=600).stdout)
    assert base["model"] == "program" and base["tflops"] > 0
    one = json.loads(subprocess.run(node + ["--flag", "self.q_stage=1"], capture_output=True, text=True, check=True,
                                    timeout=600).stdout)
    assert one["knobs"]["flags"] == {"self.q_stage": 1}
    assert one["tflops"] is None and "not shown to be the code's" in one["deadlock"]
