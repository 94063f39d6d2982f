/* Waveform page part: the knobs (model, GPU, problem, the model's controls), their starting values and
 * the legend. install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveKnobs = (function () {
  "use strict";
  var MAX_HASH_NUMBER = KVWaveConst.MAX_HASH_NUMBER, SELECT_MAX_VALUES = KVWaveConst.SELECT_MAX_VALUES,
      viewHolder = KVWaveKinds.viewHolder;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var KS = P.KS, UNIT_SPECS = P.UNIT_SPECS, box = P.box, gpuTable = P.gpuTable, hashKeys = P.hashKeys,
        model = P.model, parsed = P.parsed, state = P.state;
    // -- knobs: specs from the simulator (knobsFor), starting values: model defaults < embedded < hash
    var modelNames = KS.offeredModels(parsed);
    var hashKeyOf = {};
    hashKeys.forEach(function (pair) { hashKeyOf[pair[1]] = pair[0]; });

    /** What the hash and the controls accept for a knob of a model: {min, max}, {options}, {flag}, or null. */
    function rangeOf(name, modelName) {
      if (name === "model") return {options: modelNames.slice()};
      // knobs.flags: the compile-time flags by name, on a model that takes them (assets/wave_flags.js).
      if (name === "flags") return KS.modelTakesFlags(modelName || state.knobs.model) ? {compileFlags: true} : null;
      var unit = UNIT_SPECS[name];
      if (unit) return name === "gpu" ? {options: Object.keys(gpuTable.gpus)} : unit.text ? {text: true} : unit.onOff ? {flag: true} : {min: 0, max: MAX_HASH_NUMBER};
      var specs = KS.knobsFor(modelName || state.knobs.model, parsed);
      for (var i = 0; i < specs.length; i++) {
        var spec = specs[i];
        if (spec.name !== name) continue;
        if (spec.derived) return {derived: true};
        if (spec.type === "flag") return {flag: true};
        if (spec.type === "choice") return {options: spec.choices.slice()};
        return {min: spec.min, max: spec.max};
      }
      return null;
    }

    // The page's model: the embedded initial knobs' (from --model), else the structure's fit. A
    // kernel no model fits gets the no-model page and offers no model (docs/fit.md).
    var initial = model.initialKnobs || {};
    P.startMessages = [];
    var startFit = KS.fitModel(parsed);
    // No hand-written model fits: only a model that runs the code's own programs is offered
    // (KS.offeredModels(parsed, true): the program model where the kernel layer's program was
    // read), and the page starts in it (KS.pageModel, as `node schedule.js predict`).
    if (startFit.model === null) modelNames = KS.offeredModels(parsed, true);
    P.pageModel = KS.pageModel(parsed);
    var noFit = P.pageModel === null;
    if (initial.model !== undefined) {
      if (modelNames.indexOf(initial.model) >= 0) P.pageModel = initial.model;
      else if (noFit) P.startMessages.push("initial model " + String(initial.model).slice(0, 40) + " ignored: no schedule model fits this kernel.");
      else P.startMessages.push("initial model " + String(initial.model).slice(0, 40) + " ignored; using " + P.pageModel + ".");
    }

    /** Starting knobs of a model: its defaults, plus the embedded initial knobs on the page's own model. */
    function baseKnobs(modelName) {
      var knobs = {model: modelName};
      KS.knobsFor(modelName, parsed).forEach(function (spec) { knobs[spec.name] = spec["default"]; });
      if (modelName === P.pageModel) {
        Object.keys(initial).forEach(function (name) {
          if (name !== "model" && rangeOf(name, modelName)) knobs[name] = initial[name];
        });
      }
      return knobs;
    }
    Object.keys(initial).forEach(function (name) {
      if (name !== "model" && !rangeOf(name, P.pageModel)) {
        P.startMessages.push("initial knob " + name + " ignored: not a knob of the " + P.pageModel + " model.");
      }
    });

    var modelSelect = document.getElementById("knob-model");
    (noFit ? ["none"] : modelNames).forEach(function (name) {
      var opt = document.createElement("option");
      opt.value = name;
      opt.textContent = name;
      modelSelect.appendChild(opt);
    });
    if (noFit) {
      modelSelect.disabled = true;
      modelSelect.title = "No schedule model fits this kernel: " + startFit.reason;
    }
    modelSelect.addEventListener("change", function () { setModel(modelSelect.value); });
    // The GPU select (none: abstract steps) and the problem size of the cycles mode.
    var gpuSelect = document.getElementById("knob-gpu"), problemInput = document.getElementById("knob-problem");
    [""].concat(Object.keys(gpuTable.gpus)).forEach(function (name) {
      var opt = document.createElement("option");
      opt.value = name;
      opt.textContent = name || "none (steps)";
      gpuSelect.appendChild(opt);
    });
    gpuSelect.addEventListener("change", function () { setUnit("gpu", gpuSelect.value); });
    problemInput.addEventListener("change", function () { setUnit("problem", problemInput.value.trim()); });
    /** Set (or, empty, remove) a unit knob; without a GPU the computed latencies go back to the defaults. */
    function setUnit(name, value) {
      if (value) state.knobs[name] = value; else delete state.knobs[name];
      if (!state.knobs.gpu) {
        Object.keys(P.unitComputed).forEach(function (k) { if (state.knobs[k] === P.unitComputed[k]) delete state.knobs[k]; });
        P.unitComputed = {};
      }
      state.fitted = true;
      P.requestSimulate();
    }
    /** The GPU select and problem input show the knobs. */
    function syncUnits() { gpuSelect.value = state.knobs.gpu || ""; problemInput.value = state.knobs.problem || ""; }
    /** Step t as text: with a GPU, cycles and microseconds at its clock. */
    function stepText(t) {
      var u = state.result && state.result.units;
      if (!u || !state.result.time) return String(t);
      var us = t / u.clockMHz;
      return t + " \u00b7 " + (us < 10 ? us.toFixed(2) : us < 100 ? us.toFixed(1) : us.toFixed(0)) + " \u00b5s";
    }

    /** Switch the model: that model's starting knobs, its controls and legend, a fitted view. */
    function setModel(modelName) {
      if (modelNames.indexOf(modelName) < 0) return;
      var units = {};
      Object.keys(state.knobs).forEach(function (k) { if (UNIT_SPECS[k]) units[k] = state.knobs[k]; });
      state.knobs = Object.assign(baseKnobs(modelName), units);
      P.unitComputed = {};
      state.hashMessages = [];
      state.follow = null;
      state.fitted = true;
      buildControls(modelName);
      P.requestSimulate();
    }

    var controls = {};
    // Knobs the source derives from the others (FA3's Transpose_V, scheduler barrier): shown, not
    // sent: the simulator derives them again from the knobs that are.
    var derivedNames = {};
    /** state.knobs without the derived knobs: what the page simulates, hashes and exports. */
    function simKnobs() {
      var out = {};
      // With a GPU, a knob at its model default is left out too: the cycles run computes it.
      var defaults = {};
      if (state.knobs.gpu) KS.knobsFor(state.knobs.model, parsed).forEach(function (spec) { defaults[spec.name] = spec["default"]; });
      Object.keys(state.knobs).forEach(function (k) {
        if (derivedNames[k] || (P.unitComputed[k] !== undefined && P.unitComputed[k] === state.knobs[k])) return;
        if (k in defaults && defaults[k] === state.knobs[k]) return;
        out[k] = state.knobs[k];
      });
      return out;
    }
    /** Build one labelled control per knob of the model that has a hash key (CLI flag): slider, select or checkbox. */
    function buildControls(modelName) {
      var holder = document.getElementById("knob-controls");
      holder.textContent = "";
      controls = {};
      derivedNames = {};
      modelSelect.value = noFit ? "none" : modelName;
      KS.knobsFor(modelName, parsed).forEach(function (spec) {
        // Every knob has a CLI flag and hash key (KNOB_TABLE); one without would keep its default.
        if (!hashKeyOf[spec.name]) return;
        var name = spec.name, id = "knob-" + name;
        var label = document.createElement("label");
        label.className = "kv-knob";
        label.htmlFor = id;
        var text = document.createElement("span");
        text.textContent = spec.short || spec.label || name;
        var el, out = null, event = "change";
        if (spec.type === "flag") {
          el = document.createElement("input");
          el.type = "checkbox";
        } else if (spec.type === "choice" || spec.max - spec.min + 1 <= SELECT_MAX_VALUES) {
          el = document.createElement("select");
          var values = spec.type === "choice" ? spec.choices : [];
          for (var v = spec.min; spec.type !== "choice" && v <= spec.max; v++) values.push(v);
          values.forEach(function (value) {
            var opt = document.createElement("option");
            opt.value = String(value);
            opt.textContent = String(value);
            el.appendChild(opt);
          });
        } else {
          el = document.createElement("input");
          el.type = "range";
          el.min = String(spec.min);
          el.max = String(Math.min(spec.max, spec.sliderMax || spec.max));
          el.step = "1";
          out = document.createElement("output");
          out.id = "out-" + name;
          out.htmlFor = id;
          event = "input";
        }
        if (spec.derived) {
          // Derived by the source's build rule from other knobs: shown, never set.
          el.disabled = true;
          derivedNames[name] = true;
        }
        el.id = id;
        el.setAttribute("data-knob", name);
        el.title = String(spec.label || name) + (spec.doc ? ": " + spec.doc : "") +
          (spec.source ? " (the source says " + spec.source.value + (spec.source.line !== null ? " at line " + spec.source.line : "") + ")" : "") +
          (spec.derived ? " (derived: " + spec.derived.rule + (spec.derived.line !== null ? ", line " + spec.derived.line : "") + ")" : "");
        if (spec.source) label.setAttribute("data-source-line", String(spec.source.line));
        if (spec.type === "flag") { label.appendChild(el); label.appendChild(text); } else { label.appendChild(text); label.appendChild(el); }
        if (out) label.appendChild(out);
        holder.appendChild(label);
        controls[name] = el;
        el.addEventListener(event, function () {
          state.knobs[name] = spec.type === "flag" ? el.checked : (spec.type === "choice" ? el.value : Number(el.value));
          state.hashMessages = [];
          readout(name);
          P.requestSimulate();
        });
      });
    }
    document.getElementById("knobs").addEventListener("submit", function (e) { e.preventDefault(); });

    function readout(name) {
      var out = document.getElementById("out-" + name);
      if (out) out.textContent = String(state.knobs[name]);
    }

    function syncControls() {
      modelSelect.value = noFit ? "none" : state.knobs.model;
      Object.keys(controls).forEach(function (name) {
        var el = controls[name], v = state.knobs[name];
        if (el.type === "checkbox") { el.checked = v === true; return; }
        // A value beyond the slider's comfortable range (from the hash or CLI) stretches the slider.
        if (el.type === "range" && typeof v === "number" && v > Number(el.max)) el.max = String(v);
        if (v !== undefined) el.value = String(v);
        readout(name);
      });
    }

    /** The legend: the entries of the result's view (an entry with lanePrefix only when such a lane is drawn). */
    var legendKey = null;
    function renderLegend() {
      var box = document.getElementById("legend");
      var view = viewHolder.current;
      var entries = view && view.legend ? view.legend.filter(function (entry) {
        return !entry.lanePrefix || state.lanes.some(function (lane) { return lane.id.indexOf(entry.lanePrefix) === 0; });
      }) : [];
      var key = JSON.stringify([entries, view && view.note]);
      if (legendKey === key) return;  // unchanged: keep the DOM as it is
      legendKey = key;
      box.textContent = "";
      function addText(parent, parts) {
        parts.forEach(function (part) {
          if (Array.isArray(part)) {
            var code = document.createElement("code");
            code.textContent = part[0];
            parent.appendChild(code);
          } else if (part) parent.appendChild(document.createTextNode(part));
        });
      }
      entries.forEach(function (entry) {
        var item = document.createElement("span");
        item.className = "kv-legend-item";
        item.setAttribute("data-kind", entry.kind);
        entry.fills.forEach(function (key) {
          var sw = document.createElement("span");
          sw.className = "kv-swatch kv-sw-" + key;
          item.appendChild(sw);
        });
        addText(item, entry.text);
        box.appendChild(item);
      });
      if (view && view.note) {
        var note = document.createElement("span");
        note.className = "kv-legend-item kv-muted";
        addText(note, view.note);
        box.appendChild(note);
      }
      box.setAttribute("data-model", String(state.result && state.result.model));
    }

    P.rangeOf = rangeOf;
    P.noFit = noFit;
    P.baseKnobs = baseKnobs;
    P.syncUnits = syncUnits;
    P.stepText = stepText;
    P.setModel = setModel;
    P.simKnobs = simKnobs;
    P.buildControls = buildControls;
    P.syncControls = syncControls;
    P.renderLegend = renderLegend;
  }

  return {install: install};
})();
