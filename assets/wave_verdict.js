/* Waveform page part: notices, the verdict box (with the critical-path toggle) and the structure-only section (text only, via textContent).
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveVerdict = (function () {
  "use strict";
  var viewHolder = KVWaveKinds.viewHolder, percentText = KVWaveResult.percentText,
      criticalPathLine = KVWaveResult.criticalPathLine;

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

    /** Text writers over the verdict element: line(text, cls) appends a <p>, list(items, parent) a <ul>. */
    function verdictWriter(el) {
      return {
        el: el,
        line: function (text, cls) {
          var p = document.createElement("p");
          if (cls) p.className = cls;
          p.textContent = text;
          el.appendChild(p);
          return p;
        },
        list: function (items, parent) {
          var ul = document.createElement("ul");
          items.forEach(function (text) {
            var li = document.createElement("li");
            li.textContent = text;
            ul.appendChild(li);
          });
          (parent || el).appendChild(ul);
          return ul;
        }
      };
    }

    /** The verdict box: no model, no verdict, a deadlock, or the figures (cycles, waits, the view's lines, the fit's notes). */
    function renderVerdict() {
      var el = document.getElementById("verdict");
      el.textContent = "";
      el.removeAttribute("data-state");
      var w = verdictWriter(el), r = state.result, v = r && r.verdict;
      if (r && !r.error && r.model === null && r.fit) { renderNoModel(w, r); return; }
      if (!r || r.error || !v) {
        w.line("No verdict" + (r && r.error ? ": " + r.error : "."), "kv-big");
        return;
      }
      if (r.deadlock) { renderDeadlock(w, r); return; }
      var unit = r.units && r.time ? "cycles" : "steps";
      w.line("Total: " + v.total + " " + unit, "kv-big");
      if (r.units && r.time) renderUnits(w, r);
      renderWaits(w, v, unit);
      renderViewLines(w, r);
      renderFitNotes(w, r);
      P.renderCompare(el);
      el.title = v.summary ? String(v.summary) : "";
    }

    /** Honest page: no model fits; no verdict figures. */
    function renderNoModel(w, r) {
      w.el.setAttribute("data-state", "no-model");
      w.line("No schedule model fits this kernel", "kv-big");
      w.line(String(r.fit.reason));
      w.line("Below: what was parsed (pipelines, roles, operations with their lines).", "kv-muted");
    }

    /** A deadlock: the waiting roles with their barriers, phases and lines, and the knobs that make it deadlock. */
    function renderDeadlock(w, r) {
      w.el.setAttribute("data-state", "deadlock");
      var stopped = r.deadlock.afterStopped || [];
      if (stopped.length) {
        // Not the code's deadlock: a role the run could not model stopped, and the others wait for it.
        w.line("Stopped after step " + r.deadlock.step + ": what is not modelled blocks the run", "kv-big");
        w.line("Not a deadlock of the code: these roles stopped where the run does not model the source, " +
          "and the roles below wait for them.", "kv-muted");
        w.list(stopped.map(function (x) { return x.role + " stopped at line " + x.line + ": " + x.reason; }));
      } else if (r.deadlock.afterIdle) {
        // Not shown to be the code's: the waited barriers never completed, and role bindings reach no step.
        w.line("Stuck after step " + r.deadlock.step + ": a producer may be missing from the run", "kv-big");
        w.line("Not shown to be a deadlock of the code: the barriers below never completed a phase, and the role bindings " +
          r.deadlock.afterIdle.join(", ") + " reach no step of the run (their steps may be where the run does not see).", "kv-muted");
      } else {
        w.line("Deadlock after step " + r.deadlock.step + ": no role can progress", "kv-big kv-danger");
      }
      w.list(r.deadlock.waiting.map(function (x) {
        return x.lane + " waits on " + x.barrier + (x.phase === null ? "" : " (phase " + x.phase + ")") +
          (x.line === null ? "" : " at line " + x.line);
      }));
      if (r.deadlockKnobs && r.deadlockKnobs.length) {
        w.line("Made so by: " + r.deadlockKnobs.map(function (k) {
          return k.knob + " = " + k.value + " (at " + k.fine + " it runs)";
        }).join("; "), "kv-danger");
      } else if (r.deadlockKnobs && !stopped.length) {
        w.line("At the source's own settings too: the code's protocol deadlocks here.", "kv-danger");
      }
      w.el.title = r.deadlock.message;
    }

    /** A cycles run (a GPU chosen): time, throughput, the bottleneck, its critical path and the computed knobs. */
    function renderUnits(w, r) {
      var u = r.units, inp = u.inputs;
      w.line("Time: " + P.stepText(r.time.cycles).split(" \u00b7 ")[1] + " (" + Math.round(r.time.cycles) + " cycles at " + u.clockMHz + " MHz, " + u.gpu + ")", "kv-big kv-units");
      w.line("Throughput: " + r.tflops.toFixed(1) + " TFLOPS, " + pct(r.peakFraction) + " of the " + u.peakTflops.toFixed(1) + " TFLOPS " + inp.dtype + " peak" +
        (inp.problem ? " (problem " + inp.problem + ": " + inp.tiles + " tiles on " + inp.ctas + " CTAs, " + inp.waves + " waves)" : " (no problem size: this CTA's tiles on every SM, L2 reuse 0)"));
      w.line("Bottleneck: " + r.bottleneck + " (" + u.bottleneckWhy + ")", "kv-units-bottleneck");
      if (u.unpriced && u.unpriced.length) w.line("Not priced: " + u.unpriced.join("; "), "kv-danger kv-units-unpriced");
      renderCriticalPath(w, r.criticalPath);
      w.list(Object.keys(u.derivation).map(function (k) {
        return k + " = " + r.knobs[k] + " (" + u.sources[k] + (u.sources[k] === "gpu" ? ": " + u.derivation[k] : "") + ")";
      }).concat(["tile " + inp.tile + " (" + u.sources.tile + "), dtype " + inp.dtype + " (" + u.sources.dtype + ")" +
        (inp.outDtype ? ", output " + inp.outDtype + " (" + u.sources.outDtype + ")" : "") + ", cluster " + inp.cluster + " (" + u.sources.cluster + ")"]))
        .className = "kv-muted kv-units-derivation";
    }

    /**
     * The critical path's per-kind shares (criticalPathLine) and the checkbox that highlights its
     * blocks on the timeline (state.showCritical, the b key, critical=on in the URL hash).
     */
    function renderCriticalPath(w, cp) {
      var text = criticalPathLine(cp);
      if (!text) return;
      var p = w.line(text + " ", "kv-critical");
      var label = document.createElement("label");
      var toggle = document.createElement("input");
      toggle.type = "checkbox";
      toggle.id = "critical-toggle";
      toggle.checked = !!state.showCritical;
      toggle.addEventListener("change", function () { setCritical(toggle.checked); });
      label.appendChild(toggle);
      label.appendChild(document.createTextNode(" highlight on the timeline (b)"));
      label.title = "Outline the critical path's blocks on the timeline (b); the URL hash keeps it (critical=on)";
      p.appendChild(label);
    }

    /** Turn the critical path's highlight on or off (redraws; the hash follows). */
    function setCritical(on) {
      state.showCritical = !!on;
      var toggle = document.getElementById("critical-toggle");
      if (toggle) toggle.checked = state.showCritical;
      P.requestDraw();
    }
    /** The b key: toggle the highlight when the run has a critical path (a GPU chosen). */
    function toggleCritical() {
      if (state.result && state.result.criticalPath) setCritical(!state.showCritical);
    }

    /** Bubbles per lane: the total and each wait reason, in the view's reason order, then the rest by name. */
    function renderWaits(w, v, unit) {
      var order = viewHolder.current && viewHolder.current.waitReasons ? viewHolder.current.waitReasons.map(function (x) { return x.reason; }) : [];
      w.list(Object.keys(v.waits || {}).sort().map(function (lane) {
        var waits = v.waits[lane] || {};
        var reasons = order.concat(Object.keys(waits).filter(function (k) {
          return k !== "total" && order.indexOf(k) < 0;
        }).sort()).filter(function (k) { return waits[k] > 0; }).map(function (k) { return k + " " + waits[k]; });
        return lane + " bubbles: " + (waits.total || 0) + " " + unit + (reasons.length ? " (" + reasons.join(", ") + ")" : "");
      }));
    }

    /** The verdict lines the result's view names (percent, template, stages against the current knob, or the value). */
    function renderViewLines(w, r) {
      var v = r.verdict;
      (viewHolder.current && viewHolder.current.verdict ? viewHolder.current.verdict : []).forEach(function (spec) {
        var value = spec.field ? v[spec.field] : undefined, text;
        if (spec.format === "percent") text = pct(value);
        else if (spec.format === "template") {
          // A field the result does not give (a program that could not run) reads "n/a", never "undefined".
          text = String(spec.template).replace(/\{(\w+)\}/g, function (_m, name) { return v[name] === undefined || v[name] === null ? "n/a" : String(v[name]); });
        } else if (spec.format === "stages") {
          var have = spec.knob ? state.knobs[spec.knob] : undefined;
          // A null figure says why when the model gives a reason (result.notes[field], schedule.js).
          var why = r.notes && typeof r.notes[spec.field] === "string" ? r.notes[spec.field] : "";
          text = (value === null || value === undefined ? "n/a" + (why ? ": " + why : "") : String(value)) +
            (typeof value === "number" && typeof have === "number" ? (have >= value ? " (have " + have + ": hidden)" : " (have " + have + ": too few)") : "");
        } else text = String(value);
        w.line(spec.label + ": " + text);
      });
    }

    /**
     * Why this model, where the default was chosen over a hand-written model that fits (fit.handFit,
     * docs/fit.md "Default model"); then the fit's assumptions, then what the model leaves out,
     * folded under "Not modelled (n)".
     */
    function renderFitNotes(w, r) {
      if (r.fit && r.fit.handFit) w.line("Why " + r.model + ": " + String(r.fit.reason), "kv-muted kv-fit-reason");
      var assumptions = r.fit && r.fit.assumptions ? r.fit.assumptions : [];
      if (assumptions.length) {
        w.line("Assumptions:", "kv-muted");
        w.list(assumptions).className = "kv-muted";
      }
      var left = r.fit && r.fit.notModelled ? r.fit.notModelled : [];
      if (!left.length) return;
      // Folded by default (a summary with the count): the verdict stays short above the lanes.
      var fold = document.createElement("details");
      fold.className = "kv-muted kv-not-modelled";
      var summary = document.createElement("summary");
      summary.textContent = "Not modelled (" + left.length + ")";
      fold.appendChild(summary);
      w.el.appendChild(fold);
      w.list(left, fold);
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
    P.setCritical = setCritical;
    P.toggleCritical = toggleCritical;
    P.renderStructure = renderStructure;
  }

  return {install: install};
})();
