#!/usr/bin/env python3
"""kernel-viz: parse a CUTLASS warp-specialized kernel, then render its logical pipeline schedule.

Parsing lives in parse_cutlass.py, the timeline page in render_waveform.py, the dataflow graph
in render_html.py; this module only wires the command line to them and writes the output
atomically.
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pagekit
import parse_cutlass
import render_waveform
from parse_cutlass import InputError, VizError, __version__

# The bundled canonical example: the parsed structure of CUTLASS 4.2's
# sm90_mma_tma_gmma_ss_warpspecialized.hpp with the pingpong kernel layer (facts only: names,
# line numbers and one-line statement texts), so the first command needs nothing installed.
BUNDLED_EXAMPLE = "examples/sm90_gemm_pingpong.json"
MODES = ("waveform", "graph")

EPILOG = """examples:
  %(prog)s -o pipeline.html
      render the bundled canonical example (CUTLASS 4.2 SM90 TMA GEMM, pingpong)
  %(prog)s sm90_mma_tma_gmma_ss_warpspecialized.hpp \\
      --kernel-layer sm90_gemm_tma_warpspecialized_pingpong.hpp -o gemm.html
  %(prog)s $CUTLASS_PATH/include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp \\
      --stages 6 --tiles 8 --k-tiles 16 --schedule cooperative -o coop.html
  %(prog)s sm90_mma_tma_gmma_ss_warpspecialized.hpp --mode graph -o graph.html
  %(prog)s sm90_mma_multistage_gmma_ss_warpspecialized.hpp --print-json

A HEADER that is not an existing path is looked up by name under $CUTLASS_PATH and the include
tree of an installed nvidia-cutlass package. Exit status: 0 ok, 2 usage or input error (one
line on stderr, no output file written).
"""


class OutputError(VizError):
    """The output path cannot be written (or would overwrite an input)."""


class FlagError(VizError):
    """A --flag that is not NAME=VALUE."""


class PredictError(VizError):
    """--print-prediction / --sweep cannot run (no node, a bad GPU or unit knob)."""


def build_arg_parser():
    """The kernel-viz command line."""
    ap = argparse.ArgumentParser(
        prog="kernel-viz",
        description="Render the logical pipeline schedule (timeline) or dataflow graph of a "
                    "CUTLASS warp-specialized kernel as one self-contained HTML page.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("header", nargs="?", metavar="HEADER",
                    help="collective mainloop header (default: the bundled canonical example)")
    ap.add_argument("--kernel-layer", metavar="K", help="kernel-layer header (pingpong/cooperative/basic)")
    ap.add_argument("--epilogue-collective", metavar="E", help="the epilogue collective the kernel layer instantiates "
                    "(77 FMHA: sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp); its store runs its own program")
    ap.add_argument("--params-from", metavar="TU", help="translation unit or example driver whose literal TileShape, "
                    "ClusterShape, Element* and StageCount the cycles run uses (docs/performance.md)")
    ap.add_argument("--mode", choices=MODES, default="waveform", help="page to render (default: waveform)")
    ap.add_argument("-o", "--output", metavar="OUT",
                    help="output HTML path, or - for standard output "
                         "(default: <header stem>_<mode>.html in the current directory)")
    ap.add_argument("--print-json", action="store_true", help="print the parsed JSON instead of rendering")
    ap.add_argument("--nvcc", metavar="ARGS",
                    help="compile HEADER (a .cu) with nvcc ARGS -lineinfo -ptx and read the PTX "
                         "(docs/ptx-front-end.md); a .ptx HEADER is read directly")
    ap.add_argument("--source-link", choices=render_waveform.SOURCE_LINKS, default="file",
                    help="waveform page: link each source line of the details panel to its file "
                         "(file: a file:// URL; vscode: vscode://file/PATH:LINE; none: no link and no "
                         "absolute path in the page; default: file, where the file is known)")
    knobs = ap.add_argument_group("initial knob values of the waveform page")
    for flag, name in render_waveform.KNOB_FLAGS:
        # Words (model, schedule, on/off refinements) are choices; every other knob is an integer.
        choices = render_waveform.KNOB_CHOICES.get(name)
        if choices:
            knobs.add_argument(flag, dest=name, choices=choices)
        else:
            knobs.add_argument(flag, dest=name, type=int, metavar="N")
    knobs.add_argument("--flag", metavar="NAME=VALUE", action="append", dest="flags",
                       help="a compile-time flag or setting of the program model, by its name in the verdict's "
                            "flags (on, off or an integer: --flag self.q_stage=1 --flag is_topk_gather=off); repeated")
    units = ap.add_argument_group("cycles, microseconds and TFLOPs (docs/performance.md); "
                                  "--dtype and --headdim above are read too")
    for flag, name, kind in render_waveform.UNIT_FLAGS:
        # The unit knobs come from schedule.js's KNOB_TABLE.units, like the knob flags above.
        if kind == "switch":
            units.add_argument(flag, dest=name, action="store_const", const=True, default=None)
        elif kind == "text":
            units.add_argument(flag, dest=name, metavar="NAME" if name == "gpu" else "AxB..." if name != "problem" else "MxNxK")
        else:
            units.add_argument(flag, dest=name, type=int, metavar="N")
    units.add_argument("--gpu-file", metavar="F", help="GPU presets in sim/gpus.json's format (default: sim/gpus.json)")
    units.add_argument("--print-prediction", action="store_true",
                       help="print one line: time, TFLOPs, peak share, bottleneck (needs node and --gpu)")
    units.add_argument("--sweep", metavar="KNOB=A..B", action="append",
                       help="print a table of the prediction per value of a knob (A..B or V1,V2,...); repeated, "
                            "a grid (the first varies slowest); with -o, also a page with a chart (needs node and --gpu)")
    units.add_argument("--jobs", type=int, metavar="N",
                       help="--sweep: worker threads (default: one per core)")
    ap.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return ap


def load_bundled_example():
    """The parsed structure shipped in examples/ (works with nothing installed)."""
    path = pagekit.asset_path(BUNDLED_EXAMPLE)
    return json.loads(path.read_text(encoding="utf-8")), Path(BUNDLED_EXAMPLE).stem


def resolve_output(args, stem, inputs):
    """The output path: -o, or <stem>_<mode>.html; never one of the inputs."""
    out = Path(args.output) if args.output else Path(f"{stem}_{args.mode}.html")
    if out.exists() and out.is_dir():
        raise OutputError(out, "output path is a directory")
    try:
        out_resolved = out.resolve()
    except OSError as exc:
        raise OutputError(out, f"bad output path: {exc}") from None
    for inp in inputs:
        if inp is not None and Path(inp).resolve() == out_resolved:
            raise OutputError(out, "output path is the same as an input file; refusing to overwrite it")
    parent = out.parent if str(out.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise OutputError(out, f"cannot write under {parent}: not a directory")
    if not parent.is_dir():
        raise OutputError(out, f"output directory does not exist: {parent}")
    return out


def source_files(model, header, klayer):
    """{display path in the parsed JSON: absolute path} of the files read (none for the bundled example)."""
    files = {}
    layer = model.get("kernel_layer") or {}
    for display, path in (((model.get("source") or {}).get("path"), header),
                          ((layer.get("source") or {}).get("path"), klayer)):
        if display and path is not None:
            files[display] = Path(path).resolve().as_posix()
    return files


def render(model, args, files=None):
    """HTML text of the requested page."""
    if args.mode == "graph":
        import render_html
        return render_html.render(model, getattr(args, "ptx_title", None))
    knobs = render_waveform.initial_knobs(model, knob_overrides(args))
    return render_waveform.render(model, knobs, gpus=gpu_table(args), source_link=args.source_link, source_files=files)


def knob_overrides(args):
    """The knob and unit flags given on the command line, by knob name; --flag NAME=VALUE as flags: {NAME: VALUE}."""
    names = [name for _flag, name in render_waveform.KNOB_FLAGS] + [name for _f, name, _k in render_waveform.UNIT_FLAGS]
    out = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
    if getattr(args, "flags", None):
        out["flags"] = compile_flags(args.flags)
    return out


def compile_flags(items):
    """--flag NAME=VALUE items as {NAME: VALUE}: the text after the last `=` is the value (a name may hold `==`);
    the simulator reads the value (sim/common.js normalizeFlagValues)."""
    flags = {}
    for item in items:
        name, sep, value = item.rpartition("=")
        if not sep or not name.strip() or not value.strip():
            raise FlagError("--flag", f"expects NAME=VALUE (on, off or an integer), got {item!r}")
        flags[name.strip()] = value.strip()
    return flags


def gpu_table(args):
    """The GPU presets: --gpu-file's, else sim/gpus.json; --gpu must name one of them."""
    try:
        table = render_waveform.read_gpu_table(args.gpu_file)
    except (OSError, ValueError) as exc:
        raise PredictError(args.gpu_file, f"not a GPU table: {str(exc).splitlines()[0]}") from None
    if args.gpu is not None and args.gpu not in table["gpus"]:
        raise PredictError(args.gpu_file or render_waveform.GPUS_JSON_ASSET,
                           f"unknown GPU {args.gpu!r} (one of {', '.join(sorted(table['gpus']))})")
    return table


def run_predict(model, args, sweep=None):
    """Run `node schedule.js predict` on the parsed model; returns its JSON lines as objects."""
    node = shutil.which("node")
    if node is None:
        raise PredictError("node", "not found on PATH: --print-prediction and --sweep run the simulator in Node")
    if args.gpu is None:
        raise PredictError("--gpu", "a GPU preset is needed for a prediction (e.g. --gpu h100-sxm)")
    gpu_table(args)
    cmd = [node, str(pagekit.asset_path(render_waveform.SCHEDULE_JS_ASSET)), "predict"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "parsed.json"
        path.write_text(json.dumps(model), encoding="utf-8")
        cmd += ["--structure", str(path)]
        if args.gpu_file:
            cmd += ["--gpu-file", str(Path(args.gpu_file).resolve())]
        for name, value in sorted(knob_overrides(args).items()):
            if name == "flags":
                cmd += [arg for flag in sorted(value.items()) for arg in ("--flag", "=".join(flag))]
            else:
                cmd += ["--knob", f"{name}={'true' if value is True else value}"]
        for axis in sweep or ():
            cmd += ["--sweep", axis]
        if sweep and args.jobs is not None:
            if args.jobs < 1:
                raise PredictError("--jobs", f"expects a positive integer, got {args.jobs}")
            cmd += ["--jobs", str(args.jobs)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"]
        raise PredictError("schedule.js", lines[-1].replace("schedule.js predict: ", ""))
    if sweep:
        return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return [json.loads(proc.stdout)]


def prediction_line(p):
    """One line of a prediction: time, TFLOPs, peak share, bottleneck (or the deadlock)."""
    u = p.get("units") or {}
    inputs = u.get("inputs") or {}
    head = f"{u.get('gpu')} {p.get('model')} tile {inputs.get('tile')} {inputs.get('dtype')}"
    if inputs.get("problem"):
        head += f", problem {inputs['problem']} ({inputs.get('tiles')} tiles, {inputs.get('waves')} waves)"
    if p.get("time") is None:
        why = p.get("deadlock") or p.get("error") or (p.get("verdict") or {}).get("summary") or "the run did not finish"
        return f"{head}: no prediction: {why}"
    t = p["time"]
    return (f"{head}: {t['us']:.1f} us ({round(t['cycles'])} cycles at {u.get('clockMHz'):g} MHz), "
            f"{p['tflops']:.1f} TFLOPS, {100 * p['peakFraction']:.1f}% of peak {u.get('peakTflops'):.1f}, "
            f"bottleneck {p['bottleneck']}" + "".join(f"; not priced: {x}" for x in u.get("unpriced") or ()))


def sweep_table(rows):
    """A plain-text table of a sweep or grid: a column per swept knob, then cycles, us, TFLOPS,
    peak share, the stages needed to hide the TMA load with the latency (cycles) they hide, and
    the bottleneck. A stage count the model leaves null with a reason shows "-N", N numbering the
    reasons listed under the table."""
    knobs = rows[0]["sweep"]["knobs"] if rows else ["value"]
    reasons = []
    widths = [max([10, len(k)] + [len(str(v)) for p in rows for v in p["sweep"]["values"][i:i + 1]]) for i, k in enumerate(knobs)]
    head = "  ".join(f"{k:>{w}}" for k, w in zip(knobs, widths))
    out = [f"{head}  {'cycles':>10}  {'us':>9}  {'TFLOPS':>8}  {'peak':>6}  {'hide':>5}  {'TMA cyc':>7}  bottleneck"]
    for p in rows:
        values = "  ".join(f"{v!s:>{w}}" for v, w in zip(p["sweep"]["values"], widths))
        if p.get("time") is None:
            out.append(f"{values}  {'-':>10}  {'-':>9}  {'-':>8}  {'-':>6}  {'-':>5}  {'-':>7}  {p.get('deadlock') or 'no prediction'}")
            continue
        hide = p.get("stagesToHide") or {}
        stages = "-" if hide.get("stages") is None else hide["stages"]
        if hide.get("stages") is None and hide.get("why"):
            if hide["why"] not in reasons:
                reasons.append(hide["why"])
            stages = f"-{reasons.index(hide['why']) + 1}"
        tma = "-" if hide.get("tmaCycles") is None else round(hide["tmaCycles"])
        out.append(f"{values}  {round(p['time']['cycles']):>10}  {p['time']['us']:>9.1f}  {p['tflops']:>8.1f}  "
                   f"{100 * p['peakFraction']:>5.1f}%  {stages!s:>5}  {tma!s:>7}  {p['bottleneck']}")
    out += [f"hide -{i + 1}: {why}" for i, why in enumerate(reasons)]
    return "\n".join(out)


def note_no_ops(model, stem):
    """Say on stderr when the file has no operation at all: the page can only show the structure."""
    functions = model.get("functions") or []
    if not any(fn.get("ops") for fn in functions if isinstance(fn, dict)):
        print(f"kernel-viz: {stem}: no pipeline operation was found; the page shows the parsed structure "
              "only (no schedule model fits)", file=sys.stderr)


def main(argv=None):
    """Entry point of kernel-viz; returns the exit status (errors are handled by run_cli)."""
    args = build_arg_parser().parse_args(argv)
    return parse_cutlass.run_cli(lambda: _main(args))


# The PTX front end's page title: the page says plainly that nothing is simulated.
PTX_TITLE = "{stem} (PTX) - parse only: no schedule is modelled for PTX input yet"
NVCC_TIMEOUT_S = 1800    # a hung nvcc, not a timing check (CUTLASS units take about a minute)


def compile_ptx(source, nvcc_args):
    """Parse the PTX of `nvcc ARGS -lineinfo -ptx source` (compiled in a temporary folder)."""
    import shlex
    import ptx_programs
    import ptx_lines
    nvcc = ptx_lines.find_nvcc()
    if nvcc is None:
        raise InputError(source, "--nvcc: no nvcc found ($KLV_NVCC, PATH, /usr/local/cuda/bin)")
    try:
        extra = shlex.split(nvcc_args)
    except ValueError as exc:
        raise InputError("--nvcc", f"cannot split the arguments: {exc}") from None
    with tempfile.TemporaryDirectory(prefix="kernel-viz-ptx-") as tmp:
        out = Path(tmp) / (source.stem + ".ptx")
        cmd = [nvcc, *extra, "-lineinfo", "-ptx", str(source), "-o", str(out)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=NVCC_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InputError(source, f"--nvcc: {exc}") from None
        if proc.returncode != 0 or not out.is_file():
            lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
            last = lines[-1].strip() if lines else "no output"
            raise InputError(source, f"nvcc failed (exit {proc.returncode}): {last[:200]}")
        text = out.read_text(errors="replace")
    display = parse_cutlass.display_path(source) + ".ptx"
    return ptx_programs.parse_text(text, source, display)


def _main(args):
    """The kernel-viz command once its arguments are parsed."""
    if args.nvcc is not None and not args.header:
        raise InputError("--nvcc", "needs a HEADER (the .cu file to compile)")
    if args.header:
        header = parse_cutlass.locate(args.header)
        klayer = parse_cutlass.locate(args.kernel_layer) if args.kernel_layer else None
        if args.nvcc is not None:
            if klayer is not None:
                raise InputError(klayer, "--kernel-layer applies to C++ headers, not to --nvcc")
            model = compile_ptx(header, args.nvcc)
        else:
            model = parse_cutlass.parse_file(header, klayer)
        epilogue = parse_cutlass.locate(args.epilogue_collective) if args.epilogue_collective else None
        if epilogue is not None:
            parse_cutlass.add_epilogue(model, epilogue)
        params = parse_cutlass.locate(args.params_from) if args.params_from else None
        if params is not None:
            parse_cutlass.attach_params(model, params)
        stem = header.stem
        inputs = [header, klayer, epilogue, params]
        files = source_files(model, header, klayer)
    else:
        extra = args.kernel_layer or args.epilogue_collective or args.params_from
        if extra:
            raise InputError(extra, "--kernel-layer, --epilogue-collective and --params-from need a HEADER")
        model, stem = load_bundled_example()
        inputs = []
        files = {}
    ptx = model.get("language") == "ptx"
    if ptx and (args.print_prediction or args.sweep):
        raise InputError(header, "no schedule is modelled for PTX input yet: nothing to predict "
                         "(--print-json or the graph page show the parse)")
    if ptx and not args.print_json:
        # The interpreter does not run raw-mbarrier programs: the page is the graph of the parse.
        print(f"kernel-viz: {stem}: no schedule is modelled for PTX input yet; writing the graph page "
              "of the parse", file=sys.stderr)
        args.mode = "graph"
        args.ptx_title = PTX_TITLE.format(stem=stem)
    if args.print_prediction or args.sweep:
        if args.mode != "waveform":
            raise PredictError("--mode", "a prediction is of the waveform's schedule, not --mode graph")
        if args.sweep and args.output and args.output != "-":
            out = resolve_output(args, stem, inputs)   # refuse a bad path before the simulations
        rows = run_predict(model, args, args.sweep)
        if not args.sweep:
            sys.stdout.write(prediction_line(rows[0]) + "\n")
            return 0
        if not args.output:
            sys.stdout.write(sweep_table(rows) + "\n")
            return 0
        import render_sweep
        page = render_sweep.render(render_sweep.sweep_model(rows, render_waveform.kernel_stem(model)))
        if args.output == "-":
            sys.stdout.write(page.encode("ascii", "xmlcharrefreplace").decode("ascii"))
            return 0
        sys.stdout.write(sweep_table(rows) + "\n")
        try:
            pagekit.write_atomic(out, page)
        except OSError as exc:
            raise OutputError(out, f"cannot write: {exc.strerror or exc}") from None
        print(f"wrote {out} ({len(page.encode('ascii', 'xmlcharrefreplace')) // 1024} KB, sweep chart)", file=sys.stderr)
        return 0
    if args.print_json:
        parse_cutlass.print_warnings(model)
        sys.stdout.write(parse_cutlass.dump_json(model, pretty=True) + "\n")
        return 0
    if model["kind"] == "kernel_layer" and args.header:
        # Both pages are drawn from a mainloop's pipelines; a kernel layer's own ops (its
        # epilogue pipelines) would show a misleading schedule, so refuse with the fix.
        raise InputError(header, "is a kernel layer, not a collective mainloop; pass the "
                         "mainloop header and give this file as --kernel-layer")
    if args.output == "-":
        parse_cutlass.print_warnings(model)
        note_no_ops(model, stem)
        sys.stdout.write(render(model, args, files).encode("ascii", "xmlcharrefreplace").decode("ascii"))
        return 0
    out = resolve_output(args, stem, inputs)   # before the warnings: a refusal is one line
    parse_cutlass.print_warnings(model)
    note_no_ops(model, stem)
    html = render(model, args, files)
    try:
        pagekit.write_atomic(out, html)
    except OSError as exc:
        raise OutputError(out, f"cannot write: {exc.strerror or exc}") from None
    print(f"wrote {out} ({len(html.encode('ascii', 'xmlcharrefreplace')) // 1024} KB, {args.mode})",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
