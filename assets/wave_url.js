/* Waveform page part: the URL hash, read at start and on hashchange, written (debounced) after a change.
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveUrl = (function () {
  "use strict";
  var HASH_WRITE_DELAY_MS = KVWaveConst.HASH_WRITE_DELAY_MS, formatHash = KVWaveView.formatHash,
      hashNumber = KVWaveView.hashNumber, parseHash = KVWaveView.parseHash;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var hashKeys = P.hashKeys, state = P.state;
    // -- URL hash: read at start and on hashchange, written (debounced) after every change
    // lastSeenHash: location's hash when the page last applied or wrote one (it may differ from
    // lastWrittenHash where file:// refuses replaceState). A different hash when the debounced
    // write comes due is the user's edit whose hashchange is still queued: it wins.
    var lastWrittenHash = null, lastSeenHash = null;
    P.hashTimer = 0;
    function scheduleHashWrite() {
      if (P.hashTimer) return;
      P.hashTimer = setTimeout(writeHash, HASH_WRITE_DELAY_MS);
    }
    function currentHash() { return formatHash(Object.assign({}, state, {knobs: P.simKnobs(), pinText: state.pinned ? state.pinned.text : null}), hashKeys); }
    function locationHash() { return location.hash.replace(/^#/, ""); }
    function writeHash() {
      P.hashTimer = 0;
      var now = locationHash();
      if (lastSeenHash !== null && now !== lastSeenHash) { takeEditedHash(now); return; }
      var h = currentHash();
      if (h === lastWrittenHash) return;
      lastWrittenHash = h;
      try { history.replaceState(null, "", "#" + h); } catch (e) { /* some file:// setups refuse; the view still works */ }
      lastSeenHash = locationHash();
    }
    /** Apply a hash the user (a link, the address bar, a test) set; its queued hashchange is then a no-op. */
    function takeEditedHash(now) {
      applyHash("#" + now);   // sets lastSeenHash
      lastWrittenHash = now;
    }
    function applyHash(hash) {
      // The hash being applied is the location's (at start, on hashchange, from takeEditedHash):
      // seen, so a debounced write that comes due before the page's first write still tells a
      // later edit from it (CI: the absurd-hash test's hash was overwritten by that first write).
      lastSeenHash = locationHash();
      var p = parseHash(hash, hashKeys, P.rangeOf, state.knobs.model);
      if (p.model && p.model !== state.knobs.model) {
        // Another model: its starting knobs and controls, then the hash's knobs on top.
        state.knobs = P.baseKnobs(p.model);
        P.buildControls(p.model);
      }
      Object.keys(p.knobs).forEach(function (k) { state.knobs[k] = p.knobs[k]; });
      P.syncUnits();
      state.cursor = p.cursor; state.markerA = p.markerA; state.markerB = p.markerB;
      state.follow = p.follow;
      state.showCritical = p.critical;
      // Folded lane groups: the hash's (none when it has no groups= key).
      state.collapsedGroups = new Set(p.groups || []);
      state.hashMessages = P.startMessages.concat(p.messages);
      P.startMessages = [];
      P.restorePin(p.pin);
      // The hash's view applies to the result of its knobs: now, or when the Worker answers
      // (large settings simulate there, at start-up too, so the page never blocks on them).
      state.pendingView = p.view || "fit";
      if (!P.simulateInBackground()) P.simulateNow();
      P.renderNotices();
      lastWrittenHash = null;
      P.requestDraw();
    }
    /** Apply the view a hash asked for (pendingView) to the result just taken; once. */
    function applyPendingView() {
      var view = state.pendingView;
      state.pendingView = null;
      if (!view) return;
      if (view === "fit") { P.fitView(); return; }
      state.view = {t0Step: view.t0Step, t1Step: view.t1Step};
      state.fitted = false;
      P.clampView();
      var v = state.view;
      if (Math.abs(v.t0Step - view.t0Step) > 1e-6 || Math.abs(v.t1Step - view.t1Step) > 1e-6) {
        state.hashMessages.push("URL hash: view " + hashNumber(view.t0Step) + ".." + hashNumber(view.t1Step) +
          " is outside the schedule; shown as " + hashNumber(v.t0Step) + ".." + hashNumber(v.t1Step) + ".");
      }
    }
    window.addEventListener("hashchange", function () {
      var now = locationHash();
      if (now !== lastWrittenHash) takeEditedHash(now);
    });

    P.scheduleHashWrite = scheduleHashWrite;
    P.currentHash = currentHash;
    P.writeHash = writeHash;
    P.applyHash = applyHash;
    P.applyPendingView = applyPendingView;
  }

  return {install: install};
})();
