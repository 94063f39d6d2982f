/* Shared page module of kernel_logical_visualizer, inlined into every page before the page's own
 * script (global KVCommon). DOM helpers, source-line lists, tooltip placement that avoids what the
 * user is looking at, one key map that also writes the `?` help overlay, Escape's order (close an
 * overlay, then let the page clear its selection), a copy helper and start-up error reporting.
 * Nothing here knows which page it is on. ASCII only; parsed text is inserted with textContent.
 */
var KVCommon = (function () {
  "use strict";

  // ---- Constants shared by the pages ---------------------------------------------------------
  var TIP_OFFSET_PX = 14;        // gap between the pointer and the tooltip
  var TIP_MAX_LINES = 14;        // longer source lists end with "+N more"
  var HELP_ID = "kc-help";

  // ---- DOM helpers ---------------------------------------------------------------------------
  /** A new HTML element with a class and text (textContent, never markup), appended to parent. */
  function html(tag, cls, text, parent) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (parent) parent.appendChild(node);
    return node;
  }

  /** "file.hpp:12" or "file.hpp:12-14" for one source reference {path, line, end_line}. */
  function whereText(ref) {
    var name = String(ref.path || "").split("/").pop();
    return name + ":" + ref.line + (ref.end_line && ref.end_line !== ref.line ? "-" + ref.end_line : "");
  }

  /**
   * Append a list of source references to parent: where (file:line), the statement text and the
   * op (with its function). limit > 0 shows that many and a "+N more" line with moreText.
   */
  function sourceList(parent, refs, limit, moreText) {
    var ul = html("ul", "kc-src", null, parent);
    var shown = limit ? refs.slice(0, limit) : refs;
    shown.forEach(function (ref) {
      var li = html("li", null, null, ul);
      html("span", "kc-where", whereText(ref), li);
      var body = html("span", null, null, li);
      html("code", null, ref.text, body);
      if (ref.op) html("span", "kc-op", "  " + ref.op + (ref["function"] ? " in " + ref["function"] + "()" : ""), body);
    });
    if (limit && refs.length > limit) html("p", "kc-more", "+" + (refs.length - limit) + " more" + (moreText ? " (" + moreText + ")" : ""), parent);
    return ul;
  }

  /** Plain text of source references, one per line (for copying). */
  function sourceText(refs) {
    return refs.map(function (ref) {
      return whereText(ref) + "  " + (ref.text || "") + (ref.op ? "  [" + ref.op + (ref["function"] ? " in " + ref["function"] + "()" : "") + "]" : "");
    }).join("\n");
  }

  // ---- Tooltip placement ---------------------------------------------------------------------
  function intersects(a, b) {
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }

  /**
   * Place an absolutely positioned tooltip (a child of container) next to the pointer (clientX,
   * clientY): below-right, below-left, above-right or above-left, the first that stays inside the
   * container and covers none of the avoid rectangles (client coordinates, e.g. the highlighted
   * nodes). anchor (optional, a client rectangle: the hovered item's box) is avoided too; then
   * places that clear it wherever the pointer is inside it are tried, each offset from the pointer
   * by the anchor's own height or width so the tooltip keeps following the pointer (below, above,
   * right of, left of it), and last the container's four corners. When every place covers one,
   * the tooltip is hidden: the highlight matters more. Returns whether it is shown.
   */
  function placeTooltip(tip, clientX, clientY, container, avoid, anchor) {
    var box = container.getBoundingClientRect();
    tip.hidden = false;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    var right = clientX + TIP_OFFSET_PX, left = clientX - TIP_OFFSET_PX - w;
    var below = clientY + TIP_OFFSET_PX, above = clientY - TIP_OFFSET_PX - h;
    var candidates = [[right, below], [left, below], [right, above], [left, above]];
    var blocked = (avoid || []).slice();
    if (anchor) {
      blocked.push(anchor);
      var aw = anchor.right - anchor.left, ah = anchor.bottom - anchor.top;
      candidates.push([right, below + ah], [left, below + ah], [right, above - ah], [left, above - ah],
                      [right + aw, below], [right + aw, above], [left - aw, below], [left - aw, above],
                      [box.left, box.top], [box.right - w, box.top], [box.left, box.bottom - h], [box.right - w, box.bottom - h]);
    }
    for (var i = 0; i < candidates.length; i++) {
      var x = candidates[i][0], y = candidates[i][1];
      // Keep inside the container (shift back when a side would be cut).
      x = Math.max(box.left, Math.min(x, box.right - w));
      y = Math.max(box.top, Math.min(y, box.bottom - h));
      var r = {left: x, top: y, right: x + w, bottom: y + h};
      // Never under the pointer itself, so the pointer keeps what it hovers.
      if (clientX >= r.left && clientX <= r.right && clientY >= r.top && clientY <= r.bottom) continue;
      var clear = true;
      for (var j = 0; j < blocked.length && clear; j++) if (intersects(r, blocked[j])) clear = false;
      if (clear) {
        tip.style.left = (x - box.left) + "px";
        tip.style.top = (y - box.top) + "px";
        return true;
      }
    }
    tip.hidden = true;
    return false;
  }

  // ---- Key map and help overlay ---------------------------------------------------------------
  /**
   * Install one keydown handler for a page. bindings: [{keys: ["+", "="], label: "+ / =",
   * help: "zoom in", run: function (ev) {}}] (without run: listed in the help only); `?` opens
   * the help overlay listing them, Escape closes an open overlay and only otherwise runs the
   * page's Escape binding. Keys typed into form fields and Ctrl/Meta/Alt combinations are left
   * alone. options: {title, mouse: [text]}.
   */
  function installKeys(bindings, options) {
    options = options || {};
    var table = {};
    // Entries without run only document a key the browser handles (Tab).
    bindings.forEach(function (b) { if (b.run) b.keys.forEach(function (k) { table[k] = b; }); });
    var help = [{label: "?", help: "this help"}, {label: "Escape", help: "close this help or an overlay first; then: " +
      ((table.Escape && table.Escape.help) || "nothing")}].concat(bindings.filter(function (b) { return b.keys[0] !== "Escape"; }));
    document.addEventListener("keydown", function (ev) {
      var t = ev.target;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      if (ev.key === "?") { toggleHelp(help, options); ev.preventDefault(); return; }
      if (ev.key === "Escape" && closeOverlays()) { ev.preventDefault(); return; }
      var b = table[ev.key];
      if (!b) return;
      ev.preventDefault();
      b.run(ev);
    });
    return {openHelp: function () { openHelp(help, options); }, closeOverlays: closeOverlays};
  }

  /** The help overlay element, built on first use from the key map. */
  function helpElement(help, options) {
    var overlay = document.getElementById(HELP_ID);
    if (overlay) return overlay;
    overlay = html("div", "kc-overlay", null, document.body);
    overlay.id = HELP_ID;
    overlay.hidden = true;
    overlay.setAttribute("role", "dialog");
    overlay.setAttribute("aria-modal", "true");
    overlay.setAttribute("aria-label", "Keyboard and mouse help");
    var box = html("div", "kc-help-box", null, overlay);
    box.tabIndex = -1;
    var head = html("div", "kc-help-head", null, box);
    html("h2", null, options.title || "Keyboard and mouse", head);
    var close = html("button", "kc-help-close", "Close", head);
    close.type = "button";
    close.addEventListener("click", closeOverlays);
    var dl = html("dl", "kc-keys", null, box);
    help.forEach(function (b) {
      // help: null marks a second key of the row before (listed in that row's label).
      if (b.help === null) return;
      var row = html("div", null, null, dl);
      var dt = html("dt", null, null, row);
      String(b.label || b.keys.join(" / ")).split(" / ").forEach(function (k, i) {
        if (i) dt.appendChild(document.createTextNode(" / "));
        html("kbd", null, k, dt);
      });
      html("dd", null, b.help, row);
    });
    (options.mouse || []).forEach(function (line) { html("p", "kc-help-mouse", line, box); });
    overlay.addEventListener("mousedown", function (ev) { if (ev.target === overlay) closeOverlays(); });
    return overlay;
  }

  var lastFocus = null;

  function openHelp(help, options) {
    var overlay = helpElement(help, options);
    lastFocus = document.activeElement;
    overlay.hidden = false;
    overlay.querySelector(".kc-help-box").focus();
  }

  function toggleHelp(help, options) {
    var overlay = document.getElementById(HELP_ID);
    if (overlay && !overlay.hidden) closeOverlays();
    else openHelp(help, options);
  }

  /** Close every open overlay (help, or any element with class kc-overlay); true if one was open. */
  function closeOverlays() {
    var closed = false;
    var open = document.querySelectorAll(".kc-overlay");
    for (var i = 0; i < open.length; i++) {
      if (!open[i].hidden) { open[i].hidden = true; closed = true; }
    }
    if (closed && lastFocus && lastFocus.focus) lastFocus.focus();
    return closed;
  }

  // ---- Copy and start-up ------------------------------------------------------------------------
  /** Copy text to the clipboard (the async API, else a selected hidden textarea); returns a Promise. */
  function copyText(text) {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      return navigator.clipboard.writeText(text).catch(function () { return legacyCopy(text); });
    }
    return Promise.resolve(legacyCopy(text));
  }

  function legacyCopy(text) {
    var area = html("textarea", "kc-copy-buffer", null, document.body);
    area.value = text;
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }

  /** Run a page's start-up; on failure show "what could not be drawn: why" in errorBox and rethrow. */
  function startup(what, errorBoxId, fn) {
    try {
      fn();
    } catch (e) {
      var box = document.getElementById(errorBoxId);
      if (box) {
        box.textContent = what + " could not be drawn: " + (e && e.message ? e.message : String(e));
        box.hidden = false;
      }
      throw e;
    }
  }

  /** Show a start-up message (not an exception: e.g. nothing parsed) in the error box. */
  function showError(errorBoxId, message) {
    var box = document.getElementById(errorBoxId);
    box.textContent = message;
    box.hidden = false;
  }

  return {
    TIP_OFFSET_PX: TIP_OFFSET_PX, TIP_MAX_LINES: TIP_MAX_LINES, HELP_ID: HELP_ID,
    html: html, whereText: whereText, sourceList: sourceList, sourceText: sourceText,
    placeTooltip: placeTooltip, installKeys: installKeys, closeOverlays: closeOverlays,
    copyText: copyText, startup: startup, showError: showError
  };
})();
