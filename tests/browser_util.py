"""Headless Chromium for the browser tests and the page benchmark: Debian's /usr/bin/chromium via playwright.

Never runs `playwright install`: the browser is the system one. Without it (or without the
playwright package) tests skip with a reason, unless the CI environment variable is set, in which
case they fail, so a CI run can never pass by skipping the browser.
"""

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
# Generous timeouts that only catch hangs; tests never assert wall-clock speed.
HANG_TIMEOUT_MS = 30000


def unavailable_reason():
    """Return why the browser tests cannot run here, or None when they can."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"{CHROMIUM} is missing (install Debian's chromium package)"
    try:
        import playwright.sync_api  # noqa: F401  (import check only)
    except ImportError:
        return "the playwright Python package is missing (pip install playwright; no browser download needed)"
    return None


def require_browser():
    """Skip (locally) or fail (when CI is set) if headless Chromium cannot be driven."""
    import pytest

    reason = unavailable_reason()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run and CI is set: {reason}")
    pytest.skip(f"browser tests skipped: {reason}")


@contextlib.contextmanager
def launch_browser():
    """Yield a launched headless Chromium (playwright Browser); closes it and the driver afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


class PageWatch:
    """Collects console errors, uncaught page errors and every request that is not the file:// page."""

    def __init__(self, page):
        self.console_errors = []
        self.page_errors = []
        self.requests = []
        self.foreign_requests = []
        page.on("console", self._on_console)
        page.on("pageerror", lambda err: self.page_errors.append(str(err)))
        page.on("request", self._on_request)

    def _on_console(self, msg):
        if msg.type in ("error", "assert"):
            self.console_errors.append(msg.text)

    def _on_request(self, request):
        self.requests.append(request.url)
        # blob: URLs are made by the page from its own text (the waveform page's simulation Worker).
        if not request.url.startswith(("file://", "blob:")):
            self.foreign_requests.append(request.url)

    def problems(self):
        """Return a list of human-readable problems (empty when the page behaved)."""
        out = [f"console error: {t}" for t in self.console_errors]
        out += [f"page error: {t}" for t in self.page_errors]
        out += [f"network request: {u}" for u in self.foreign_requests]
        return out


# The waveform page is ready once it drew a frame and no simulation runs (large settings in the
# URL hash simulate in a Worker at start-up; the page draws before that result arrives).
WAVE_READY_JS = "window.__kv && window.__kv.state.frames > 0 && !window.__kv.simulating()"


def new_page(browser, url, color_scheme="light", viewport=(1280, 800), ready_js=WAVE_READY_JS, init_script=None):
    """Open url in a fresh context; return (context, page, watch) once ready_js is true.

    init_script: JavaScript run in the page before its own scripts (a test's stand-in for a browser API).
    """
    context = browser.new_context(color_scheme=color_scheme, viewport={"width": viewport[0], "height": viewport[1]})
    context.set_default_timeout(HANG_TIMEOUT_MS)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    watch = PageWatch(page)
    page.goto(url)
    page.wait_for_function(ready_js, timeout=HANG_TIMEOUT_MS)
    return context, page, watch


def artifact_path(name):
    """Return tests/artifacts/<name>, creating the (gitignored) directory."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name


def chromium_version():
    """Return the system Chromium's version string (for benchmark output), or 'unknown'."""
    path = shutil.which(CHROMIUM) or CHROMIUM
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def kv(page, expr):
    """Evaluate a JS expression against the test hook window.__kv."""
    return page.evaluate(f"(() => {{ const kv = window.__kv; return {expr}; }})()")


def flush(page):
    """Run the pending re-simulation and redraw now."""
    page.evaluate("window.__kv.flush()")


def render_page(tmp_path_factory, source, name):
    """Render the waveform page of a parsed JSON file (an example) into a fresh temp dir; its file:// URL."""
    import json
    import pagekit
    import render_waveform
    out = tmp_path_factory.mktemp("pages") / name
    pagekit.write_atomic(out, render_waveform.render(json.loads(source.read_text(encoding="utf-8"))))
    return out.as_uri()
