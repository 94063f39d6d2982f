/* Waveform page part: notices, the verdict box and the structure-only section (text only, via textContent).
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveVerdict = (function () {
  "use strict";
  var viewHolder = KVWaveKinds.viewHolder, percentText = KVWaveResult.percentText;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var box = P.box, parsed = P.parsed, state = P.state;
    // -- notices and verdict (text only, via textContent)
    function renderNotices() {
      var errorBox = document.getElementById("error");
      var list = document.getElementById("messages");
      var err = state.result && state.result.error;
      errorBox.hidden = !err;
      errorBox.textContent = err ? "No schedule drawn: " + err : "";
      var msgs = state.hashMessages.concat(state.simMessages);
      list.textContent = "";
      msgs.forEach(function (m) {
        var li = document.createElement("li");
        li.textContent = String(m);
        list.appendChild(li);
      });
      list.hidden = msgs.length === 0;
    }

    function pct(x) { return percentText(x); }

    function renderVerdict() {
      var el = document.getElementById("verdict");
      el.textContent = "";
      el.removeAttribute("data-state");
      function line(text, cls) {
        var p = document.createElement("p");
        if (cls) p.className = cls;
        p.textContent = text;
        el.appendChild(p);
        return p;
      }
      function list(items, parent) {
        var ul = document.createElement("ul");
        items.forEach(function (text) {
          var li = document.createElement("li");
          li.textContent = text;
          ul.appendChild(li);
        });
        (parent || el).appendChild(ul);
        return ul;
      }
      var r = state.result, v = r && r.verdict;
      if (r && !r.error && r.model === null && r.fit) {
        // Honest page: no model fits; no verdict figures.
        el.setAttribute("data-state", "no-model");
        line("No schedule model fits this kernel", "kv-big");
        line(String(r.fit.reason));
        line("Below: what was parsed (pipelines, roles, operations with their lines).", "kv-muted");
        return;
      }
      if (!r || r.error || !v) {
        line("No verdict" + (r && r.error ? ": " + r.error : "."), "kv-big");
        return;
      }
      if (r.deadlock) {
        el.setAttribute("data-state", "deadlock");
        line("Deadlock after step " + r.deadlock.step + ": no role can progress", "kv-big kv-danger");
        list(r.deadlock.waiting.map(function (w) {
          return w.lane + " waits on " + w.barrier + (w.phase === null ? "" : " (phase " + w.phase + ")") +
            (w.line === null ? "" : " at line " + w.line);
        }));
        if (r.deadlockKnobs && r.deadlockKnobs.length) {
          line("Made so by: " + r.deadlockKnobs.map(function (k) {
            return k.knob + " = " + k.value + " (at " + k.fine + " it runs)";
          }).join("; "), "kv-danger");
        } else if (r.deadlockKnobs) {
          line("At the source's own settings too: the code's protocol deadlocks here.", "kv-danger");
        }
        el.title = r.deadlock.message;
        return;
      }
      var unit = r.units && r.time ? "cycles" : "steps";
      line("Total: " + v.total + " " + unit, "kv-big");
      if (r.units && r.time) {
        var u = r.units, inp = u.inputs;
        line("Time: " + P.stepText(r.time.cycles).split(" \u00b7 ")[1] + " (" + Math.round(r.time.cycles) + " cycles at " + u.clockMHz + " MHz, " + u.gpu + ")", "kv-big kv-units");
        line("Throughput: " + r.tflops.toFixed(1) + " TFLOPS, " + pct(r.peakFraction) + " of the " + u.peakTflops.toFixed(1) + " TFLOPS " + inp.dtype + " peak" +
          (inp.problem ? " (problem " + inp.problem + ": " + inp.tiles + " tiles on " + inp.ctas + " CTAs, " + inp.waves + " waves)" : " (no problem size: this CTA's tiles on every SM, L2 reuse 0)"));
        line("Bottleneck: " + r.bottleneck + " (" + u.bottleneckWhy + ")", "kv-units-bottleneck");
        list(Object.keys(u.derivation).map(function (k) {
          return k + " = " + r.knobs[k] + " (" + u.sources[k] + (u.sources[k] === "gpu" ? ": " + u.derivation[k] : "") + ")";
        }).concat(["tile " + inp.tile + " (" + u.sources.tile + "), dtype " + inp.dtype + " (" + u.sources.dtype + "), cluster " + inp.cluster]))
          .className = "kv-muted kv-units-derivation";
      }
      var order = viewHolder.current && viewHolder.current.waitReasons ? viewHolder.current.waitReasons.map(function (w) { return w.reason; }) : [];
      var ul = document.createElement("ul");
      Object.keys(v.waits || {}).sort().forEach(function (lane) {
        var w = v.waits[lane] || {};
        var reasons = order.concat(Object.keys(w).filter(function (k) {
          return k !== "total" && order.indexOf(k) < 0;
        }).sort()).filter(function (k) { return w[k] > 0; }).map(function (k) { return k + " " + w[k]; });
        var li = document.createElement("li");
        li.textContent = lane + " bubbles: " + (w.total || 0) + " " + unit + (reasons.length ? " (" + reasons.join(", ") + ")" : "");
        ul.appendChild(li);
      });
      el.appendChild(ul);
      (viewHolder.current && viewHolder.current.verdict ? viewHolder.current.verdict : []).forEach(function (spec) {
        var value = spec.field ? v[spec.field] : undefined, text;
        if (spec.format === "percent") text = pct(value);
        else if (spec.format === "template") {
          text = String(spec.template).replace(/\{(\w+)\}/g, function (_m, name) { return String(v[name]); });
        } else if (spec.format === "stages") {
          var have = spec.knob ? state.knobs[spec.knob] : undefined;
          // A null figure says why when the model gives a reason (result.notes[field], schedule.js).
          var why = r.notes && typeof r.notes[spec.field] === "string" ? r.notes[spec.field] : "";
          text = (value === null || value === undefined ? "n/a" + (why ? ": " + why : "") : String(value)) +
            (typeof value === "number" && typeof have === "number" ? (have >= value ? " (have " + have + ": hidden)" : " (have " + have + ": too few)") : "");
        } else text = String(value);
        line(spec.label + ": " + text);
      });
      var assumptions = r.fit && r.fit.assumptions ? r.fit.assumptions : [];
      if (assumptions.length) {
        line("Assumptions:", "kv-muted");
        list(assumptions).className = "kv-muted";
      }
      var left = r.fit && r.fit.notModelled ? r.fit.notModelled : [];
      if (left.length) {
        // Folded by default (a summary with the count): the verdict stays short above the lanes.
        var fold = document.createElement("details");
        fold.className = "kv-muted kv-not-modelled";
        var summary = document.createElement("summary");
        summary.textContent = "Not modelled (" + left.length + ")";
        fold.appendChild(summary);
        el.appendChild(fold);
        list(left, fold);
      }
      P.renderCompare(el);
      el.title = v.summary ? String(v.summary) : "";
    }

    /** Structure-only listing (pipelines, roles, ops with lines) for a kernel no model fits. */
    function renderStructure() {
      var box = document.getElementById("structure");
      if (!box) return;
      var r = state.result;
      var show = !!(r && !r.error && r.model === null && r.fit);
      box.hidden = !show;
      document.body.classList.toggle("kv-no-model", show);
      if (!show || box.getAttribute("data-filled") === "1") return;
      box.setAttribute("data-filled", "1");
      box.textContent = "";
      function el(tag, text, parent) {
        var e = document.createElement(tag);
        if (text !== undefined) e.textContent = text;
        (parent || box).appendChild(e);
        return e;
      }
      el("h2", "Parsed structure");
      var pipes = Array.isArray(parsed && parsed.pipelines) ? parsed.pipelines : [];
      el("h3", "Pipelines");
      var pl = el("ul");
      if (!pipes.length) el("li", "none found", pl);
      pipes.forEach(function (p) {
        var cls = Array.isArray(p.class) ? p.class.join(" | ") : p.class;
        el("li", String(p.alias) + (cls ? " = " + cls : "") + (p.stages ? "<" + p.stages + ">" : "") + (p.line ? " (line " + p.line + ")" : ""), pl);
      });
      el("h3", "Roles and operations");
      var fns = Array.isArray(parsed && parsed.functions) ? parsed.functions : [];
      var fl = el("ul");
      if (!fns.length) el("li", "no functions found", fl);
      fns.forEach(function (fn) {
        var li = el("li", String(fn.name) + "() [" + String(fn.role) + "]" + (fn.line ? " line " + fn.line : ""), fl);
        var ops = Array.isArray(fn.ops) ? fn.ops : [];
        if (!ops.length) return;
        var ol = el("ul", undefined, li);
        ops.forEach(function (op) {
          el("li", "line " + op.line + ": " + op.op + ((op.object || op.pipeline) ? " (" + (op.object || op.pipeline) + ")" : "") +
            (op.text ? " \u2014 " + op.text : ""), ol);
        });
      });
      var warnings = Array.isArray(parsed && parsed.warnings) ? parsed.warnings : [];
      if (warnings.length) {
        el("h3", "Parser warnings");
        var wl = el("ul");
        warnings.forEach(function (w) { el("li", String(w), wl); });
      }
    }

    P.renderNotices = renderNotices;
    P.pct = pct;
    P.renderVerdict = renderVerdict;
    P.renderStructure = renderStructure;
  }

  return {install: install};
})();
