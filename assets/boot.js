/* Waveform page start-up. The page's scripts (simulator, exporter, shared module, page) are embedded
 * gzip-compressed as base64 text to keep a page small; this decompresses them in their order with
 * the browser's DecompressionStream, keeps their text in window.KV_SOURCES (the page builds its
 * background simulation Worker from the simulator's text through a Blob URL) and runs each as a
 * classic script; a data part (`data-json`) is parsed as JSON into the global it names, never run.
 * Nothing is fetched. ASCII only.
 */
(function () {
  "use strict";
  var parts = document.querySelectorAll("script.kv-code");
  var sources = window.KV_SOURCES = {};
  function fail(message) {
    var box = document.getElementById("error");
    if (!box) return;
    box.hidden = false;
    box.textContent = "The waveform page failed to start: " + message;
  }
  if (typeof DecompressionStream === "undefined" || typeof Blob === "undefined" || !Blob.prototype.stream) {
    fail("this browser cannot decompress the page's scripts (DecompressionStream: Chrome 80, Firefox 113, Safari 16.4 or newer).");
    return;
  }
  function inflate(base64) {
    var bin = atob(base64.replace(/\s+/g, "")), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  }
  Promise.all(Array.prototype.map.call(parts, function (el) { return inflate(el.textContent); })).then(function (texts) {
    texts.forEach(function (text, i) {
      // A data part (data-json: the global it defines) is JSON, parsed, never run: it holds the
      // parsed source's own text (render_waveform.packed_programs).
      var global = parts[i].getAttribute("data-json");
      if (global) { window[global] = JSON.parse(text); return; }
      sources[parts[i].getAttribute("data-name")] = text;
      var script = document.createElement("script");
      script.textContent = text;
      document.body.appendChild(script);
    });
  }, function (e) { fail(e && e.message ? e.message : String(e)); });
})();
