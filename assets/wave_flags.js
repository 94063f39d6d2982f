/* Waveform page part: the compile-time flags panel. The program model's run reads the source's own
 * flags and settings (`if constexpr (Is_causal)`, FA4's `self.q_stage`) and lists them in its
 * verdict (verdict.flags); this panel shows each one the last run read with its value, and sets it
 * by name (knobs.flags, the hash's flag.NAME=on|off|N; docs/waveform.md "Compile-time flags").
 * A flag the user set is marked; "Reset" forgets them all. install(P) adds renderFlags to the page
 * context P (assets/waveform.js). Text only, via textContent. ASCII only.
 */
var KVWaveFlags = (function () {
  "use strict";

  /** Install this part of the page on the page context P. */
  function install(P) {
    var KS = P.KS, state = P.state;
    var panel = document.getElementById("knob-flags"), list = document.getElementById("knob-flag-list"),
        count = document.getElementById("knob-flag-count"), reset = document.getElementById("knob-flag-reset");
    var shownKey = null;

    /** The flags the last result read ({name: value}), or null where the model takes none or the run gave none. */
    function readFlags() {
      var r = state.result, v = r && r.verdict;
      if (!KS.modelTakesFlags(state.knobs.model) || !v || !v.flags || typeof v.flags !== "object") return null;
      return v.flags;
    }

    /** Set one flag (value: 1 / 0 or an integer) and simulate again. */
    function setFlag(name, value) {
      state.knobs.flags = Object.assign({}, state.knobs.flags || {});
      state.knobs.flags[name] = value;
      state.hashMessages = [];
      P.requestSimulate();
    }

    /** One flag's control: a checkbox for a 0 / 1 flag, a number box for a setting of another value. */
    function flagControl(name, value, given) {
      var label = document.createElement("label");
      label.className = "kv-flag" + (given ? " kv-flag-set" : "");
      var el = document.createElement("input"), text = document.createElement("span");
      var onOff = value === 0 || value === 1;
      el.type = onOff ? "checkbox" : "number";
      if (onOff) el.checked = value === 1; else { el.value = String(value); el.step = "1"; }
      el.setAttribute("data-flag", name);
      text.textContent = name + (given ? " (set)" : "");
      label.title = name + ": " + (given ? "set on this page" : "the source's value or the default the verdict names") +
        (onOff ? "; on or off" : "; an integer setting");
      el.addEventListener("change", function () {
        if (onOff) { setFlag(name, el.checked ? 1 : 0); return; }
        var n = Number(el.value);
        if (Number.isInteger(n)) setFlag(name, n); else el.value = String(value);
      });
      label.appendChild(el);
      label.appendChild(text);
      return label;
    }

    /** The panel: hidden without flags; rebuilt only when the flags read or set change. */
    function renderFlags() {
      var flags = readFlags(), given = state.knobs.flags || {};
      var key = flags === null ? null : JSON.stringify([flags, given]);
      if (key === shownKey) return;
      shownKey = key;
      list.textContent = "";
      panel.hidden = flags === null || !Object.keys(flags).length;
      if (panel.hidden) return;
      // The flags the run read, and any set here that it did not read (marked so: they change nothing).
      var names = Object.keys(flags).concat(Object.keys(given).filter(function (n) { return !(n in flags); })).sort();
      var set = Object.keys(given).length;
      count.textContent = Object.keys(flags).length + " read" + (set ? ", " + set + " set" : "");
      reset.hidden = set === 0;
      names.forEach(function (name) {
        var label = flagControl(name, name in flags ? flags[name] : given[name], Object.prototype.hasOwnProperty.call(given, name));
        if (!(name in flags)) { label.lastChild.textContent = name + " (set, not read by this run)"; label.className += " kv-flag-unread"; }
        list.appendChild(label);
      });
    }

    reset.addEventListener("click", function () {
      delete state.knobs.flags;
      state.hashMessages = [];
      P.requestSimulate();
    });

    P.renderFlags = renderFlags;
  }

  return {install: install};
})();
