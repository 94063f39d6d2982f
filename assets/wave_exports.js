/* Waveform page part: the export menu and downloads (Chrome trace, VCD, SVG, PNG, JSON).
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveExports = (function () {
  "use strict";
  var EXPORT_FAILED = KVWaveConst.EXPORT_FAILED, codePathLines = KVWaveResult.codePathLines;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var KS = P.KS, hashKeys = P.hashKeys, model = P.model, parsed = P.parsed, state = P.state;
    // -- export menu
    var menu = document.getElementById("export-menu"), menuButton = document.getElementById("btn-export");
    function openMenu() {
      menu.hidden = false;
      menuButton.setAttribute("aria-expanded", "true");
      menu.querySelector("button").focus();
    }
    function closeMenu() {
      if (menu.hidden) return false;
      menu.hidden = true;
      menuButton.setAttribute("aria-expanded", "false");
      menuButton.focus();
      return true;
    }
    menuButton.addEventListener("click", function () { if (menu.hidden) openMenu(); else closeMenu(); });
    menu.addEventListener("keydown", function (ev) {
      var items = Array.prototype.slice.call(menu.querySelectorAll("button")), i = items.indexOf(document.activeElement);
      if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
        ev.preventDefault();
        ev.stopPropagation();
        items[(i + (ev.key === "ArrowDown" ? 1 : items.length - 1)) % items.length].focus();
      } else if (ev.key === "Escape") {
        ev.preventDefault();
        ev.stopPropagation();
        closeMenu();
      }
    });
    menu.addEventListener("click", function (ev) {
      var btn = ev.target && ev.target.closest ? ev.target.closest("button[data-format]") : null;
      if (!btn) return;
      var format = btn.getAttribute("data-format");
      closeMenu();
      exportAs(format);
    });
    document.addEventListener("mousedown", function (ev) {
      if (!menu.hidden && !menu.contains(ev.target) && ev.target !== menuButton) { menu.hidden = true; menuButton.setAttribute("aria-expanded", "false"); }
    });
    /**
     * The download's file name (KernelExport.exportFileName): the kernel, the knobs that differ
     * from the model's defaults for this structure (by their URL-hash keys), a hash of every knob,
     * and for SVG / PNG the view's steps. Throws when it cannot be made (no exporter).
     */
    function exportName(format) {
      var KE = window.KernelExport;
      if (!KE || typeof KE.exportFileName !== "function") throw new Error("no file name: the exporter (KernelExport) is missing");
      var model = state.knobs.model, defaults = {model: KS.defaultModel(parsed)};
      KS.knobsFor(model, parsed).forEach(function (spec) { defaults[spec.name] = spec["default"]; });
      var view = format === "svg" || format === "png" ? [state.view.t0Step, state.view.t1Step] : null;
      return KE.exportFileName(KE.kernelName(parsed), P.simKnobs(), format, {defaults: defaults, keys: hashKeys, view: view});
    }
    /** Say on the page that an export failed (the notices list), replacing an earlier failure's line. */
    function exportFailed(format, e) {
      state.hashMessages = state.hashMessages.filter(function (m) { return String(m).indexOf(EXPORT_FAILED) !== 0; })
        .concat([EXPORT_FAILED + " (" + format + "): " + (e && e.message ? e.message : String(e)) + "; no file was written."]);
      P.renderNotices();
    }
    /** Hand blob to the browser as a download named name; a failed hand-off is said on the page. */
    function download(format, name, blob) {
      try {
        if (!blob) throw new Error("the " + format + " data could not be made");
        if (!name) throw new Error("no file name could be made");
        var url = URL.createObjectURL(blob);
        var a = document.createElement("a");
        a.href = url;
        a.download = name;
        document.body.appendChild(a);
        a.click();
        document.body.removeChild(a);
        setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
      } catch (e) {
        exportFailed(format, e);
        return;
      }
      state.lastExport = name;
      // A download that went out clears the line of an earlier failure.
      var before = state.hashMessages.length;
      state.hashMessages = state.hashMessages.filter(function (m) { return String(m).indexOf(EXPORT_FAILED) !== 0; });
      if (state.hashMessages.length !== before) P.renderNotices();
    }
    function exportAs(format) {
      var KE = window.KernelExport, r = state.result;
      try {
        // The name first: an export whose name cannot be made stops before any work.
        var name = exportName(format);
        if (format === "chrome" || format === "vcd") {
          // Barrier events still on their way from the Worker: export when they arrive.
          if (r && r.eventsPending) { P.pendingExport = format; return; }
          // An explicit user action: the exporter reads result.blocks (built once, here).
          if (!r || r.error || !r.columns || !r.columns.n) throw new Error("no schedule to export");
          var markers = [];
          if (state.markerA !== null) markers.push({name: "A", step: state.markerA});
          if (state.markerB !== null) markers.push({name: "B", step: state.markerB});
          // args.lines: the code path the details panel shows for each block (codePathLines).
          var kPipe = state.knobs.kPipeMmas;
          var options = {kernel: KE.kernelName(parsed), markers: markers, strings: true,
                         codePath: function (b) { return codePathLines(b, kPipe).lines; }};
          var text = format === "chrome" ? KE.chromeTraceText(r, options) : KE.vcd(r, options);
          download(format, name, new Blob([text], {type: format === "chrome" ? "application/json" : "text/plain"}));
        } else if (format === "svg") {
          download(format, name, new Blob([P.viewSvg()], {type: "image/svg+xml"}));
        } else if (format === "png") {
          P.viewPng(function (blob) { download(format, name, blob); }, function (e) { exportFailed(format, e); });
        } else {
          throw new Error("unknown export format");
        }
      } catch (e) {
        exportFailed(format, e);
      }
    }

    P.openMenu = openMenu;
    P.closeMenu = closeMenu;
    P.exportName = exportName;
    P.exportAs = exportAs;
  }

  return {install: install};
})();
