"""The sweep page: predicted TFLOPS against the first swept knob, one line per setting of the
other swept knobs, each point marked with its bottleneck, and a table under it (docs/performance.md).

Model first, markup second: sweep_model() turns the JSON lines of `node schedule.js predict
--sweep ...` into a plain dict (embedded in the page as JSON), chart_geometry() works out every
coordinate from that dict alone, and render() only writes markup (inline SVG drawn here, no page
script, so the page is static, offline and byte-identical for the same rows).
"""

import html
import json

import pagekit

TEMPLATE_ASSET = "assets/sweep.html"
SWEEP_CSS_ASSET = "assets/sweep.css"
THEME_CSS_ASSET = "assets/theme.css"

# Chart geometry in SVG user units (the SVG scales to the page width).
WIDTH_PX = 760
HEIGHT_PX = 380
MARGIN_LEFT_PX = 64
MARGIN_RIGHT_PX = 20
MARGIN_TOP_PX = 16
MARGIN_BOTTOM_PX = 48
LEGEND_ROW_PX = 18
MARK_RADIUS_PX = 5
Y_TICKS = 5

# Series colours: one per line, in the order the series first appear (cycled past the last).
SERIES_COLOURS = ("#1f5fbf", "#d4572a", "#0a7d3b", "#7a3fc2", "#b8860b", "#0f8a8a", "#c2185b", "#5b6473")

# Bottleneck marks in the legend: a neutral grey (theme.css's --muted), as they have no series.
LEGEND_MARK_COLOUR = "#5b6473"

# The mark of each bottleneck (sim/perf.js classifyBottleneck's names); any other name gets "plus".
BOTTLENECK_MARKS = {
    "tensor-core": "circle",
    "tma-bandwidth": "square",
    "tma-latency": "triangle",
    "epilogue": "diamond",
    "softmax": "plus",
    "correction": "plus",
}


def _axes(rows):
    """The swept knobs with their values in the grid's order (first appearance in the rows)."""
    knobs = rows[0]["sweep"]["knobs"] if rows else []
    values = [[] for _ in knobs]
    for row in rows:
        for i, value in enumerate(row["sweep"]["values"]):
            if value not in values[i]:
                values[i].append(value)
    return [{"knob": knob, "values": vals} for knob, vals in zip(knobs, values)]


def sweep_model(rows, kernel):
    """The page's model: the grid's axes and one point per setting (JSON-ready, no markup)."""
    first = rows[0] if rows else {}
    units = first.get("units") or {}
    inputs = units.get("inputs") or {}
    points = []
    for row in rows:
        time = row.get("time")
        points.append({
            "setting": row["sweep"]["values"],
            "tflops": row.get("tflops"),
            "peakFraction": row.get("peakFraction"),
            "cycles": time["cycles"] if time else None,
            "us": time["us"] if time else None,
            "bottleneck": row.get("bottleneck"),
            "deadlock": row.get("deadlock"),
            "stagesToHide": row.get("stagesToHide"),
        })
    return {
        "kernel": kernel,
        "model": first.get("model"),
        "gpu": units.get("gpu"),
        "clockMHz": units.get("clockMHz"),
        "peakTflops": units.get("peakTflops"),
        "problem": inputs.get("problem"),
        "axes": _axes(rows),
        "points": points,
    }


def _is_number(value):
    """True for an int or float that is not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _nice_step(top):
    """A round tick step (1, 2 or 5 times a power of ten) giving about Y_TICKS ticks up to top."""
    raw = top / Y_TICKS if top > 0 else 1
    power = 1
    while power * 10 <= raw:
        power *= 10
    while power > raw:
        power /= 10
    for mult in (1, 2, 5, 10):
        if power * mult >= raw:
            return power * mult
    return power * 10


def _fmt(value):
    """A number for the chart and table: integers bare, otherwise one decimal."""
    if value is None:
        return "-"
    if _is_number(value) and float(value).is_integer():
        return str(int(value))
    return f"{value:.1f}" if _is_number(value) else str(value)


def chart_geometry(model):
    """Every coordinate of the chart, from the model alone: x ticks, y ticks, series polylines and marks."""
    axes = model["axes"]
    x_values = axes[0]["values"] if axes else []
    numeric = bool(x_values) and all(_is_number(v) for v in x_values)
    left, right = MARGIN_LEFT_PX, WIDTH_PX - MARGIN_RIGHT_PX
    top, bottom = MARGIN_TOP_PX, HEIGHT_PX - MARGIN_BOTTOM_PX
    if numeric and len(x_values) > 1:
        lo, hi = min(x_values), max(x_values)
        x_px = {v: left + (right - left) * (v - lo) / (hi - lo) for v in x_values} if hi > lo else {v: (left + right) / 2 for v in x_values}
    else:
        # Words (tiles, schedules) or one value: evenly spaced in the grid's order.
        n = len(x_values)
        x_px = {json.dumps(v): left + (right - left) * (i + 0.5) / n for i, v in enumerate(x_values)} if n else {}
    key = (lambda v: v) if numeric and len(x_values) > 1 else json.dumps

    tflops = [p["tflops"] for p in model["points"] if p["tflops"] is not None]
    y_top = max(tflops + ([model["peakTflops"]] if model.get("peakTflops") else []) + [1.0])
    step = _nice_step(y_top)
    y_max = step * -(-y_top // step)

    def y_px(v):
        """TFLOPS to a y coordinate."""
        return bottom - (bottom - top) * v / y_max

    series, order = {}, []
    for p in model["points"]:
        label = " ".join(f"{a['knob']}={_fmt(v)}" for a, v in zip(axes[1:], p["setting"][1:]))
        if label not in series:
            series[label] = []
            order.append(label)
        if p["tflops"] is not None:
            series[label].append({"x": x_px[key(p["setting"][0])], "y": y_px(p["tflops"]), "bottleneck": p["bottleneck"],
                                  "title": _point_title(axes, p)})
    lines = [{"label": label, "colour": SERIES_COLOURS[i % len(SERIES_COLOURS)], "points": series[label]}
             for i, label in enumerate(order)]
    ticks = []
    v = 0.0
    while v <= y_max + 1e-9:
        ticks.append({"y": y_px(v), "label": _fmt(v)})
        v += step
    return {
        "box": {"left": left, "right": right, "top": top, "bottom": bottom},
        "xTicks": [{"x": x_px[key(v)], "label": _fmt(v)} for v in x_values],
        "xLabel": axes[0]["knob"] if axes else "",
        "yTicks": ticks,
        "peakY": y_px(model["peakTflops"]) if model.get("peakTflops") else None,
        "lines": lines,
    }


def _point_title(axes, p):
    """A point's tooltip: its setting, TFLOPS and bottleneck."""
    setting = ", ".join(f"{a['knob']}={_fmt(v)}" for a, v in zip(axes, p["setting"]))
    return f"{setting}: {_fmt(p['tflops'])} TFLOPS, {p['bottleneck']}"


def _tag(name, attrs, body=""):
    """One element: attribute values and nothing else escaped here (body is markup already)."""
    text = "".join(f' {key}="{html.escape(_fmt(value) if _is_number(value) else str(value), quote=True)}"'
                   for key, value in attrs)
    return f"<{name}{text}>{body}</{name}>"


def _text(s):
    """HTML text, escaped."""
    return html.escape(str(s), quote=True)


def _mark(shape, x, y, colour, title):
    """A point's mark: its bottleneck's shape, in its series' colour, with a tooltip."""
    r = MARK_RADIUS_PX
    tip = _tag("title", [], _text(title))
    if shape == "circle":
        return _tag("circle", [("class", "sw-mark"), ("cx", round(x, 1)), ("cy", round(y, 1)), ("r", r), ("fill", colour)], tip)
    paths = {
        "square": [(-r, -r), (r, -r), (r, r), (-r, r)],
        "triangle": [(0, -r - 1), (r + 1, r), (-r - 1, r)],
        "diamond": [(0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)],
        "plus": [(-r, -2), (-2, -2), (-2, -r), (2, -r), (2, -2), (r, -2), (r, 2), (2, 2), (2, r), (-2, r), (-2, 2), (-r, 2)],
    }
    d = "M" + " L".join(f"{_fmt(round(x + dx, 1))} {_fmt(round(y + dy, 1))}" for dx, dy in paths[shape]) + " Z"
    return _tag("path", [("class", "sw-mark"), ("d", d), ("fill", colour)], tip)


def chart_svg(model):
    """The chart as inline SVG markup (no namespace URL: inline SVG in HTML needs none)."""
    g = chart_geometry(model)
    box = g["box"]
    parts = []
    for t in g["yTicks"]:
        parts.append(_tag("line", [("class", "sw-grid"), ("x1", box["left"]), ("x2", box["right"]), ("y1", round(t["y"], 1)), ("y2", round(t["y"], 1))]))
        parts.append(_tag("text", [("x", box["left"] - 6), ("y", round(t["y"] + 4, 1)), ("text-anchor", "end")], _text(t["label"])))
    for t in g["xTicks"]:
        parts.append(_tag("text", [("x", round(t["x"], 1)), ("y", box["bottom"] + 16), ("text-anchor", "middle")], _text(t["label"])))
    parts.append(_tag("path", [("class", "sw-axis"), ("d", f"M{box['left']} {box['top']} L{box['left']} {box['bottom']} L{box['right']} {box['bottom']}")]))
    parts.append(_tag("text", [("x", (box["left"] + box["right"]) // 2), ("y", box["bottom"] + 36), ("text-anchor", "middle")], _text(g["xLabel"])))
    parts.append(_tag("text", [("x", 14), ("y", (box["top"] + box["bottom"]) // 2), ("text-anchor", "middle"),
                               ("transform", f"rotate(-90 14 {(box['top'] + box['bottom']) // 2})")], "predicted TFLOPS"))
    if g["peakY"] is not None:
        y = round(g["peakY"], 1)
        parts.append(_tag("line", [("class", "sw-peak"), ("x1", box["left"]), ("x2", box["right"]), ("y1", y), ("y2", y)]))
        parts.append(_tag("text", [("class", "sw-muted"), ("x", box["right"]), ("y", round(y - 4, 1)), ("text-anchor", "end")],
                          _text(f"peak {_fmt(model['peakTflops'])}")))
    for line in g["lines"]:
        if len(line["points"]) > 1:
            pts = " ".join(f"{_fmt(round(p['x'], 1))},{_fmt(round(p['y'], 1))}" for p in line["points"])
            parts.append(_tag("polyline", [("class", "sw-line"), ("points", pts), ("stroke", line["colour"])]))
        for p in line["points"]:
            parts.append(_mark(BOTTLENECK_MARKS.get(p["bottleneck"], "plus"), p["x"], p["y"], line["colour"], p["title"]))
    legend = _legend(g["lines"], model)
    height = HEIGHT_PX + LEGEND_ROW_PX * len(legend)
    for i, (shape, colour, label) in enumerate(legend):
        y = HEIGHT_PX + LEGEND_ROW_PX * i + 6
        if shape is None:
            parts.append(_tag("line", [("x1", box["left"]), ("x2", box["left"] + 18), ("y1", y), ("y2", y), ("stroke", colour), ("stroke-width", 2)]))
        else:
            parts.append(_mark(shape, box["left"] + 9, y, LEGEND_MARK_COLOUR, label))
        parts.append(_tag("text", [("x", box["left"] + 26), ("y", y + 4)], _text(label)))
    return _tag("svg", [("class", "sw-chart"), ("viewBox", f"0 0 {WIDTH_PX} {height}"), ("role", "img"),
                        ("aria-label", "predicted TFLOPS against " + g["xLabel"])], "".join(parts))


def _legend(lines, model):
    """Legend rows: (shape or None for a series line, colour, label): series first, then the bottlenecks present."""
    rows = [(None, line["colour"], line["label"]) for line in lines if line["label"]]
    seen = sorted({p["bottleneck"] for p in model["points"] if p["tflops"] is not None})
    rows += [(BOTTLENECK_MARKS.get(b, "plus"), None, f"bottleneck {b}") for b in seen]
    return rows


def _hide_text(hide):
    """The "stages to hide" cell: the count, else "n/a: why" when the model says why (sim/sweep.js stagesToHide), else "-"."""
    if hide.get("stages") is not None:
        return _fmt(hide["stages"])
    return f"n/a: {hide['why']}" if hide.get("why") else "-"


def table_html(model):
    """The table under the chart: a column per swept knob, then the predicted figures (no links)."""
    heads = [a["knob"] for a in model["axes"]] + ["cycles", "us", "TFLOPS", "peak", "bottleneck", "stages to hide", "TMA cycles hidden"]
    out = ["<table class=\"sw-table\"><thead><tr>" + "".join(f"<th>{_text(h)}</th>" for h in heads) + "</tr></thead><tbody>"]
    for p in model["points"]:
        hide = p.get("stagesToHide") or {}
        cells = [_fmt(v) for v in p["setting"]]
        if p["tflops"] is None:
            cells += ["-", "-", "-", "-", p.get("deadlock") or "no prediction", "-", "-"]
        else:
            cells += [str(round(p["cycles"])), f"{p['us']:.1f}", f"{p['tflops']:.1f}", f"{100 * p['peakFraction']:.1f}%",
                      p["bottleneck"], _hide_text(hide), _fmt(hide.get("tmaCycles"))]
        words = {len(p["setting"]) + 4}
        out.append("<tr>" + "".join(f"<td class=\"sw-word\">{_text(c)}</td>" if i in words else f"<td>{_text(c)}</td>"
                                    for i, c in enumerate(cells)) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def title_of(model):
    """The page title: kernel, GPU and problem."""
    head = f"{model['kernel']}: predicted TFLOPS on {model['gpu']}"
    return head + (f", problem {model['problem']}" if model.get("problem") else "")


def render(model):
    """The complete sweep page for a model of sweep_model()."""
    axes = model["axes"]
    swept = ", ".join(f"{a['knob']} ({len(a['values'])})" for a in axes)
    note = (f"{len(model['points'])} settings of the {model['model']} model, swept over {swept}, at "
            f"{_fmt(model['clockMHz'])} MHz; from node schedule.js predict (docs/performance.md).")
    caption = ("One line per setting of " + ", ".join(a["knob"] for a in axes[1:]) + "; " if len(axes) > 1 else "") + \
        "each mark's shape is the point's bottleneck; deadlocked settings are in the table only."
    texts = {"TITLE": title_of(model), "HEADING": title_of(model), "NOTE": note, "CAPTION": caption}
    assets = {"THEME_CSS": THEME_CSS_ASSET, "SWEEP_CSS": SWEEP_CSS_ASSET}
    packed = {"CHART_SVG": chart_svg(model), "TABLE_HTML": table_html(model)}
    return pagekit.render_template(TEMPLATE_ASSET, texts, assets, model, packed)


def model_of_page(page):
    """The model embedded in a sweep page (tests re-render from it)."""
    start = page.index('<script type="application/json" id="model">') + len('<script type="application/json" id="model">')
    return json.loads(page[start:page.index("</script>", start)])
