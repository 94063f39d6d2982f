/* Waveform page: the one time<->pixel mapper (TimeScale), ruler ticks, and the URL hash (knobs, view,
 * cursor, markers, follow, folded group, pinned run) parsed and formatted.
 * Pure and DOM-free: a global KVWaveView in the page, module.exports in Node. ASCII only.
 */
var KVWaveView = (function (KVWaveConst, KVWaveIndex) {
  "use strict";
  var MAX_HASH_LENGTH = KVWaveConst.MAX_HASH_LENGTH, MAX_HASH_NUMBER = KVWaveConst.MAX_HASH_NUMBER,
      TICK_MIN_SPACING_PX = KVWaveConst.TICK_MIN_SPACING_PX, VIEW_DECIMALS = KVWaveConst.VIEW_DECIMALS,
      RE_GROUP_KEY = KVWaveIndex.RE_GROUP_KEY;

  /** One time<->pixel mapper: steps [t0Step, t1Step] onto pixels [x0Px, x1Px]; never divides by 0. */
  function TimeScale(t0Step, t1Step, x0Px, x1Px) {
    var spanSteps = Math.max(t1Step - t0Step, 1e-9);
    var spanPx = Math.max(x1Px - x0Px, 1);
    this.t0Step = t0Step;
    this.t1Step = t0Step + spanSteps;
    this.x0Px = x0Px;
    this.x1Px = x0Px + spanPx;
    this.pxPerStep = spanPx / spanSteps;
  }
  TimeScale.prototype.xPx = function (tStep) { return this.x0Px + (tStep - this.t0Step) * this.pxPerStep; };
  TimeScale.prototype.tStep = function (xPx) { return this.t0Step + (xPx - this.x0Px) / this.pxPerStep; };
  TimeScale.prototype.widthPx = function (durationSteps) { return durationSteps * this.pxPerStep; };

  /** A "nice" tick step (1, 2, 5 x 10^n steps, at least 1) for the given pixels per step. */
  function niceTickStep(pxPerStep) {
    var raw = TICK_MIN_SPACING_PX / Math.max(pxPerStep, 1e-12);
    if (raw <= 1) return 1;
    var pow = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var mults = [1, 2, 5, 10];
    for (var i = 0; i < mults.length; i++) if (mults[i] * pow >= raw) return mults[i] * pow;
    return 10 * pow;
  }

  /** Format a number for the hash: integers as is, others with at most 3 decimals. */
  function hashNumber(x) { return String(Math.round(x * VIEW_DECIMALS) / VIEW_DECIMALS); }

  var RE_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
  var RE_FOLLOW = /^(\d{1,9})\.(\d{1,9})$|^e(\d{1,9})$/;
  // Accepted spellings of an on/off knob in the hash (written as on / off).
  var HASH_FLAG_WORDS = {on: true, off: false, "true": true, "false": false, "1": true, "0": false, yes: true, no: false};

  /**
   * The program model's compile-time flags in the hash: one key per flag the user set,
   * `flag.NAME=on|off|N` (NAME URI-encoded; knobs.flags, sim/common.js normalizeFlagValues).
   */
  var FLAG_KEY_PREFIX = "flag.";
  /** A flag's hash text: on / off for 1 / 0 (or booleans), else the integer. */
  function flagText(v) { return v === 1 || v === true ? "on" : v === 0 || v === false ? "off" : encodeURIComponent(String(v)); }
  /** A flag's value from its hash text: on/off words are 1 / 0, digits an integer; null for anything else. */
  function flagValue(text) {
    var word = String(text).toLowerCase();
    if (Object.prototype.hasOwnProperty.call(HASH_FLAG_WORDS, word)) return HASH_FLAG_WORDS[word] ? 1 : 0;
    return /^-?\d{1,9}$/.test(word) ? Number(word) : null;
  }

  /**
   * Parse "#k=v&..." into the model, knob values, view, cursor, markers and messages for refused or
   * clamped values. hashKeys: [[hashKey, knobName], ...]; the hash's own model key (else
   * currentModel) decides which knobs apply. ranges(knobName, model) -> {min, max}, {options},
   * {flag: true}, or null for a knob the model does not have.
   */
  function parseHash(hash, hashKeys, ranges, currentModel) {
    var out = {model: null, knobs: {}, view: null, cursor: null, markerA: null, markerB: null, follow: null, pin: null, groups: null, critical: false, messages: []};
    var text = String(hash || "").replace(/^#/, "");
    if (!text) return out;
    if (text.length > MAX_HASH_LENGTH) {
      out.messages.push("URL hash ignored: longer than " + MAX_HASH_LENGTH + " characters.");
      return out;
    }
    var knobOf = {};
    hashKeys.forEach(function (pair) { knobOf[pair[0]] = pair[1]; });
    // Decode every part first: the model key must be known before other knobs are checked.
    var entries = [];
    text.split("&").forEach(function (part) {
      if (!part) return;
      var eq = part.indexOf("=");
      var key = eq < 0 ? part : part.slice(0, eq), raw = eq < 0 ? "" : part.slice(eq + 1);
      try {
        entries.push({key: decodeURIComponent(key), value: decodeURIComponent(raw.replace(/\+/g, " ")).trim()});
      } catch (e) {
        out.messages.push("URL hash: ignored " + part.slice(0, 40) + " (bad % escape).");
      }
    });
    var model = currentModel;
    entries.forEach(function (e) {
      if (knobOf[e.key] !== "model") return;
      var models = ranges("model", currentModel).options;
      if (models.indexOf(e.value) >= 0) { out.model = e.value; model = e.value; }
      else if (models.length === 0) out.messages.push("URL hash: ignored " + e.key + "=" + e.value.slice(0, 40) + " (no schedule model fits this kernel).");
      else out.messages.push("URL hash: ignored " + e.key + "=" + e.value.slice(0, 40) + " (expected one of " + models.join(", ") + ").");
    });
    var view = {};
    entries.forEach(function (e) {
      var key = e.key, value = e.value;
      var shown = key + "=" + value.slice(0, 40);
      if (key.indexOf(FLAG_KEY_PREFIX) === 0 && key.length > FLAG_KEY_PREFIX.length) {
        var fv = flagValue(value);
        if (!ranges("flags", model)) out.messages.push("URL hash: ignored " + shown.slice(0, 60) + " (the " + model + " model takes no compile-time flags).");
        else if (fv === null) out.messages.push("URL hash: ignored " + shown.slice(0, 60) + " (expected on, off or an integer).");
        else { out.knobs.flags = out.knobs.flags || {}; out.knobs.flags[key.slice(FLAG_KEY_PREFIX.length)] = fv; }
      } else if (Object.prototype.hasOwnProperty.call(knobOf, key)) {
        var name = knobOf[key];
        if (name === "model") return;
        var range = ranges(name, model);
        if (!range) { out.messages.push("URL hash: ignored " + shown + " (not a knob of the " + model + " model)."); return; }
        if (range.derived) { out.messages.push("URL hash: ignored " + shown + " (the source derives it from the other knobs)."); return; }
        if (range.text) { out.knobs[name] = value; return; }
        if (range.flag) {
          var word = value.toLowerCase();
          if (!Object.prototype.hasOwnProperty.call(HASH_FLAG_WORDS, word)) {
            out.messages.push("URL hash: ignored " + shown + " (expected on or off).");
          } else out.knobs[name] = HASH_FLAG_WORDS[word];
          return;
        }
        if (range.options) {
          var match = null;
          range.options.forEach(function (opt) { if (String(opt) === value) match = opt; });
          if (match === null) {
            out.messages.push("URL hash: ignored " + shown + " (expected one of " + range.options.join(", ") + ").");
          } else out.knobs[name] = match;
          return;
        }
        if (!RE_NUMBER.test(value)) { out.messages.push("URL hash: ignored " + shown + " (not a number)."); return; }
        var num = Math.round(Number(value));
        if (!isFinite(num)) { out.messages.push("URL hash: ignored " + shown + " (not a finite number)."); return; }
        if (num < range.min || num > range.max) {
          var clamped = Math.min(Math.max(num, range.min), range.max);
          out.messages.push("URL hash: " + shown + " is outside " + range.min + ".." + range.max + "; clamped to " + clamped + ".");
          num = clamped;
        }
        out.knobs[name] = num;
      } else if (key === "t0" || key === "t1" || key === "cursor" || key === "a" || key === "b") {
        var x = Number(value);
        if (!RE_NUMBER.test(value) || !isFinite(x)) { out.messages.push("URL hash: ignored " + shown + " (not a number)."); return; }
        if (Math.abs(x) > MAX_HASH_NUMBER) { out.messages.push("URL hash: ignored " + shown + " (beyond +/-" + MAX_HASH_NUMBER + " steps)."); return; }
        if (key === "t0" || key === "t1") view[key] = x;
        else if (key === "cursor") out.cursor = x;
        else if (key === "a") out.markerA = x;
        else out.markerB = x;
      } else if (key === "pin") {
        // The pinned run's knobs (formatPin), read by parsePin once the live model is known.
        out.pin = value;
      } else if (key === "groups") {
        // Collapsed lane groups (groupRows' keys), comma-separated; an empty value: none.
        out.groups = [];
        value.split(",").forEach(function (g) {
          g = g.trim();
          if (!g) return;
          if (!RE_GROUP_KEY.test(g)) out.messages.push("URL hash: ignored lane group " + g.slice(0, 40) + " (letters, digits, _ and - only).");
          else if (out.groups.indexOf(g) < 0) out.groups.push(g);
        });
        out.groups.sort();
      } else if (key === "critical") {
        // The critical path's highlight on the timeline (written as critical=on; off is no key).
        var on = value.toLowerCase();
        if (!Object.prototype.hasOwnProperty.call(HASH_FLAG_WORDS, on)) out.messages.push("URL hash: ignored " + shown + " (expected on or off).");
        else out.critical = HASH_FLAG_WORDS[on];
      } else if (key === "follow") {
        var m = RE_FOLLOW.exec(value);
        if (!m) { out.messages.push("URL hash: ignored " + shown + " (expected tile.k or e<tile>)."); return; }
        out.follow = m[3] !== undefined ? {tile: Number(m[3]), k: null, epilogue: true} : {tile: Number(m[1]), k: Number(m[2]), epilogue: false};
      } else {
        out.messages.push("URL hash: ignored unknown key " + key.slice(0, 40) + ".");
      }
    });
    if (view.t0 !== undefined && view.t1 !== undefined) {
      if (view.t1 > view.t0) out.view = {t0Step: view.t0, t1Step: view.t1};
      else out.messages.push("URL hash: ignored t0/t1 (t1 must be greater than t0).");
    } else if (view.t0 !== undefined || view.t1 !== undefined) {
      out.messages.push("URL hash: ignored t0/t1 (both are needed).");
    }
    return out;
  }

  /** One knob value as hash text: on / off for booleans, else the value itself (URI-encoded). */
  function hashValue(v) { return typeof v === "boolean" ? (v ? "on" : "off") : encodeURIComponent(String(v)); }

  /** Serialise knobs and view into "k=v&..." (knobs in hashKeys order, then view, cursor, markers, follow, collapsed groups, pin, the critical-path highlight). */
  function formatHash(s, hashKeys) {
    var parts = [];
    hashKeys.forEach(function (pair) {
      if (s.knobs[pair[1]] !== undefined) parts.push(pair[0] + "=" + hashValue(s.knobs[pair[1]]));
    });
    var flags = s.knobs.flags || {};
    Object.keys(flags).sort().forEach(function (f) { parts.push(FLAG_KEY_PREFIX + encodeURIComponent(f) + "=" + flagText(flags[f])); });
    if (s.view) parts.push("t0=" + hashNumber(s.view.t0Step), "t1=" + hashNumber(s.view.t1Step));
    if (s.cursor !== null && s.cursor !== undefined) parts.push("cursor=" + hashNumber(s.cursor));
    if (s.markerA !== null && s.markerA !== undefined) parts.push("a=" + hashNumber(s.markerA));
    if (s.markerB !== null && s.markerB !== undefined) parts.push("b=" + hashNumber(s.markerB));
    if (s.follow) parts.push("follow=" + (s.follow.epilogue ? "e" + s.follow.tile : s.follow.tile + "." + s.follow.k));
    // Collapsed lane groups, sorted, so one layout has one spelling.
    var groups = s.collapsedGroups ? Array.from(s.collapsedGroups).sort() : [];
    if (groups.length) parts.push("groups=" + groups.join(","));
    if (s.pinText) parts.push("pin=" + s.pinText);
    if (s.showCritical) parts.push("critical=on");
    return parts.join("&");
  }

  /**
   * The pinned run's knobs as the URL hash's pin= value: "model:<m>" then key:value for every
   * knob (hash key, value as in the hash) that differs from defaults (the pinned model's
   * starting knobs), comma-separated: `pin=model:gemm,stages:6`. Derived knobs are never passed in.
   * Each compile-time flag is `flag.NAME:on|off|N`, NAME URI-encoded twice: the hash decodes the
   * pin once, and the name (`tuple_element_t<0, Shape>`) may hold the pin's `,` and `:`.
   */
  function formatPin(knobs, defaults, hashKeys) {
    var parts = ["model:" + hashValue(knobs.model)];
    hashKeys.forEach(function (pair) {
      var name = pair[1], v = knobs[name];
      if (name === "model" || v === undefined || (defaults && defaults[name] === v)) return;
      parts.push(pair[0] + ":" + hashValue(v));
    });
    var flags = knobs.flags || {};
    Object.keys(flags).sort().forEach(function (f) { parts.push(FLAG_KEY_PREFIX + encodeURIComponent(encodeURIComponent(f)) + ":" + flagText(flags[f])); });
    return parts.join(",");
  }

  /**
   * Read a pin= value (formatPin) with the hash's own rules (parseHash: refused and clamped
   * values become messages, prefixed "URL hash pin:"): {model, knobs, messages}. Only knob keys
   * are accepted.
   */
  function parsePin(text, hashKeys, ranges, currentModel) {
    var knobKeys = {}, messages = [], pairs = [];
    hashKeys.forEach(function (pair) { knobKeys[pair[0]] = true; });
    String(text || "").split(",").forEach(function (item) {
      if (!item) return;
      var colon = item.indexOf(":"), key = colon < 0 ? item : item.slice(0, colon), isFlag = key.indexOf(FLAG_KEY_PREFIX) === 0;
      if (colon < 0 || !(knobKeys[key] || isFlag)) { messages.push("URL hash pin: ignored " + item.slice(0, 40) + " (expected knob:value)."); return; }
      // A flag's name is still URI-encoded once (formatPin): parseHash decodes it.
      pairs.push((isFlag ? key : encodeURIComponent(key)) + "=" + encodeURIComponent(item.slice(colon + 1)));
    });
    var p = parseHash(pairs.join("&"), hashKeys, ranges, currentModel);
    return {model: p.model || currentModel, knobs: p.knobs,
            messages: messages.concat(p.messages.map(function (m) { return String(m).replace(/^URL hash:/, "URL hash pin:"); }))};
  }

  return {TimeScale: TimeScale, niceTickStep: niceTickStep, hashNumber: hashNumber, RE_NUMBER: RE_NUMBER, RE_FOLLOW: RE_FOLLOW, HASH_FLAG_WORDS: HASH_FLAG_WORDS, parseHash: parseHash, hashValue: hashValue, formatHash: formatHash, formatPin: formatPin, parsePin: parsePin, FLAG_KEY_PREFIX: FLAG_KEY_PREFIX, flagValue: flagValue, flagText: flagText};
})(typeof KVWaveConst !== "undefined" ? KVWaveConst : require("./wave_const.js"),
   typeof KVWaveIndex !== "undefined" ? KVWaveIndex : require("./wave_index.js"));
if (typeof module !== "undefined" && module.exports) module.exports = KVWaveView;
