"""The documentation holds together: docs/index.md lists every page, every relative link of README.md
and docs/ reaches an existing file (and heading), and the README's quick start stays the two
commands it promises."""

import subprocess
import sys
from pathlib import Path

import pytest

from docs_util import DOCS, README, ROOT, anchors, doc_files, docs_page, docs_section, links

# Pages other branches of issue 22 are writing while this index already links them: a link to one
# of these is not an error while the page is absent, and is checked like any other once it exists.
PAGES_IN_PROGRESS = set()


def _docs_name(path):
    return path.relative_to(DOCS).as_posix()


def test_index_links_every_page():
    linked = {(DOCS / target.split("#")[0]).resolve() for _, target in links(DOCS / "index.md")
              if "://" not in target and not target.startswith("#")}
    pages = [p for p in sorted(DOCS.rglob("*.md")) if p.name != "index.md" or p.parent != DOCS]
    missing = [_docs_name(p) for p in pages if p.resolve() not in linked]
    assert not missing, f"docs/index.md does not link {missing}"
    pending = [name for name in sorted(PAGES_IN_PROGRESS) if (DOCS / name).resolve() not in linked]
    assert not pending, f"docs/index.md does not link {pending}"


def test_every_relative_link_resolves():
    broken = []
    for path in doc_files():
        for line, target in links(path):
            if "://" in target or target.startswith("mailto:"):
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path.resolve()
            where = f"{path.relative_to(ROOT)}:{line}: {target}"
            if not dest.exists():
                if dest.parent == DOCS.resolve() and dest.name in PAGES_IN_PROGRESS:
                    continue
                broken.append(where + " (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(where + " (no such heading)")
    assert not broken, "\n".join(broken)


def test_link_checker_sees_a_broken_link(tmp_path, monkeypatch):
    """The checks above can fail: a missing file, a missing heading and an unlisted page are found."""
    import docs_util
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Index\n\n- [a](a.md#there)\n- [gone](gone.md)\n", encoding="utf-8")
    (docs / "a.md").write_text("# A\n\n## Here\n\n```\n[not a link](nowhere.md)\n```\n", encoding="utf-8")
    (docs / "b.md").write_text("# B\n", encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("[docs](docs/index.md) `[code](x.md)`\n", encoding="utf-8")
    monkeypatch.setattr(docs_util, "DOCS", docs)
    monkeypatch.setattr(docs_util, "README", readme)
    monkeypatch.setattr(sys.modules[__name__], "DOCS", docs)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "doc_files", docs_util.doc_files)
    assert anchors(docs / "a.md") == {"a", "here"}
    assert links(readme) == [(1, "docs/index.md")]
    with pytest.raises(AssertionError, match=r"(?s)index.md:3: a.md#there \(no such heading\).*gone.md \(no such file\)"):
        test_every_relative_link_resolves()
    with pytest.raises(AssertionError, match=r"does not link \['b.md'\]"):
        test_index_links_every_page()


def test_sections_are_found_once_and_whole():
    dsl = docs_section("dsl")
    assert dsl.startswith("<!-- section: dsl -->") and "# CuTe DSL (Python) front end" in dsl
    assert "<!-- /section" not in dsl
    with pytest.raises(AssertionError, match="exactly one docs file"):
        docs_section("no-such-section")
    with pytest.raises(AssertionError, match="does not exist"):
        docs_page("no-such-page.md")


def test_readme_quick_start_writes_outside_the_working_tree(tmp_path):
    """The README's quick start is `python3 viz.py -o /tmp/...` and the one test command; the
    first renders the bundled example to the path it names and leaves nothing where it ran."""
    text = README.read_text(encoding="utf-8")
    assert "```sh\npython3 viz.py -o /tmp/pipeline.html\n```" in text
    assert "```sh\nbash scripts/test.sh\n```" in text
    out = tmp_path / "out" / "pipeline.html"
    out.parent.mkdir()
    run_dir = tmp_path / "cwd"
    run_dir.mkdir()
    proc = subprocess.run([sys.executable, str(ROOT / "viz.py"), "-o", str(out)], cwd=run_dir,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 10000
    assert list(run_dir.iterdir()) == []


def test_readme_links_the_screenshot_it_ships():
    text = README.read_text(encoding="utf-8")
    assert "](docs/img/waveform.png)" in text
    png = ROOT / "docs" / "img" / "waveform.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size < 200 * 1024, "keep the README's screenshot small"


def test_every_test_module_is_listed_in_testing_md():
    # issue 22: "Every test module is listed" (docs/testing.md's tables).
    text = docs_page("testing.md")
    tests = ROOT / "tests"
    modules = sorted(p.name for p in tests.glob("test_*.py")) + sorted(p.name for p in (tests / "js").glob("*.js"))
    missing = [name for name in modules if f"`{name}`" not in text and f"→ `{name}`" not in text and name not in text]
    assert not missing, f"docs/testing.md does not list {missing}"


def test_pyproject_ships_every_module_and_simulator_file():
    """An installed copy has every root module and every sim/ file (a module or a simulator file
    added without its pyproject line breaks `pip install .` only, where no checkout test looks)."""
    import re
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    modules = set(re.findall(r'"(\w+)"', re.search(r"py-modules = \[(.*?)\]", text, re.S).group(1)))
    assert {p.stem for p in ROOT.glob("*.py")} == modules
    shipped = set(re.findall(r'"(sim/[^"]+)"', re.search(r'"share/kernel_logical_visualizer/sim" = \[(.*?)\]', text, re.S).group(1)))
    assert shipped == {f"sim/{p.name}" for p in (ROOT / "sim").iterdir() if p.is_file()}
    parts = set(re.findall(r'"(sim/interpret/[^"]+)"',
                           re.search(r'"share/kernel_logical_visualizer/sim/interpret" = \[(.*?)\]', text, re.S).group(1)))
    assert parts == {f"sim/interpret/{p.name}" for p in (ROOT / "sim" / "interpret").iterdir() if p.is_file()}


def test_interpreter_parts_load_in_the_packed_order():
    """The page packs the interpreter's parts in render_waveform.INTERPRET_JS_ASSETS order and Node
    require()s each part's predecessor: the two orders are one (a part packed before the one it
    binds would fail only on the page), and every part is packed."""
    import re
    import render_waveform
    order = render_waveform.INTERPRET_JS_ASSETS
    assert order[-1] == "sim/interpret.js"
    assert set(order[:-1]) == {f"sim/interpret/{p.name}" for p in (ROOT / "sim" / "interpret").glob("*.js")}
    for before, part in zip(("",) + order[:-1], order):
        text = (ROOT / part).read_text(encoding="utf-8")
        bound = re.findall(r'require\("\./(?:interpret/)?([\w.]+)"\)\);', text)
        assert bound == ([before.rsplit("/", 1)[-1]] if before else []), (part, bound)


def _function_lengths(path):
    """(name, first line, lines) of each function of a simulator file: from its header to the
    first line at the header's indent that closes it (a header whose braces balance is one line)."""
    import re
    lines = path.read_text(encoding="utf-8").split("\n")
    header = re.compile(r"^(\s*)(?:function (\w+)|(?:[\w.]+\.)?(\w+)\s*[:=]\s*function\b)")
    out = []
    for i, line in enumerate(lines):
        m = header.match(line)
        if not m:
            continue
        if line.count("{") and line.count("{") == line.count("}"):
            continue
        close = re.compile(r"^%s\}" % re.escape(m.group(1)))
        end = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), len(lines))
        out.append((m.group(2) or m.group(3), i + 1, end - i + 1))
    return out


def test_simulator_files_and_functions_stay_small():
    """docs/simulator.md "Layout" (issue 19, section 4): no simulator file over 800 lines, no
    function over 100."""
    files = [ROOT / "schedule.js"] + sorted((ROOT / "sim").glob("*.js")) + sorted((ROOT / "sim" / "interpret").glob("*.js"))
    long_files = [(p.name, n) for p in files if (n := len(p.read_text(encoding="utf-8").split("\n"))) > 800]
    assert not long_files, long_files
    long_functions = [(p.name,) + f for p in files for f in _function_lengths(p) if f[2] > 100]
    assert not long_functions, long_functions


def test_every_knob_of_the_knob_table_has_its_control_row():
    """docs/waveform.md's control table names every model knob of schedule.js's KNOB_TABLE with
    its hash key and flag (a knob added without its row fails here)."""
    sys.path.insert(0, str(ROOT))
    import render_waveform
    page = (DOCS / "waveform.md").read_text(encoding="utf-8")
    rows = {line for line in page.splitlines() if line.startswith("| ")}
    missing = []
    for knob in render_waveform.read_knob_table()["knobs"]:
        flag = knob["flag"]
        if not any(f"`{knob['name']}`" in r and f"`{flag[2:]}` / `{flag}" in r for r in rows):
            missing.append(knob["name"])
    assert not missing, f"docs/waveform.md has no control row for {missing}"
