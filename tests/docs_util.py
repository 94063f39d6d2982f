"""The documentation the tests read: README.md and the pages under docs/.

Tests that check the docs against the code (cited source lines, every op kind named, the tree's
warning counts) read the text through this module, so a section can move between pages without
its tests going blind: `docs_section(name)` finds `<!-- section: NAME -->` ... `<!-- /section: NAME
-->` in whichever file holds it, `docs_page(path)` reads one page whole.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"

# A Markdown link or image: [text](target) / ![alt](target "title"); the target is group 1.
RE_LINK = re.compile(r"""
    !?\[ [^\]\n]* \]        # [text] or ![alt]
    \( ([^()\s]+)           # (target
    (?: \s+ "[^"\n]*" )?    #  optional "title"
    \)                      # )
""", re.VERBOSE)
RE_CODE_SPAN = re.compile(r"`[^`\n]*`")
RE_HEADING = re.compile(r"^(#{1,6}) +(.+?) *#*$")


def doc_files():
    """README.md and every docs/**/*.md, in a fixed order."""
    return [README] + sorted(DOCS.rglob("*.md"))


def docs_page(name):
    """The text of docs/NAME (e.g. "models/gemm.md"); fails when the page does not exist."""
    path = DOCS / name
    assert path.is_file(), f"docs/{name} does not exist"
    return path.read_text(encoding="utf-8")


def docs_section(name):
    """The text from `<!-- section: NAME -->` to `<!-- /section: NAME -->` in the one docs file
    holding it; fails when no file or several hold it, or when its end marker is missing."""
    begin, end = f"<!-- section: {name} -->", f"<!-- /section: {name} -->"
    holders = [(path, path.read_text(encoding="utf-8")) for path in doc_files()]
    holders = [(path, text) for path, text in holders if begin in text]
    where = [str(path.relative_to(ROOT)) for path, _ in holders]
    assert len(holders) == 1, f"section {name!r} should be in exactly one docs file, found in {where}"
    path, text = holders[0]
    assert text.count(begin) == 1 and text.count(end) == 1, f"{where[0]}: section {name!r} needs one begin and one end marker"
    start = text.index(begin)
    stop = text.index(end)
    assert start < stop, f"{where[0]}: section {name!r} ends before it begins"
    return text[start:stop]


def prose_lines(text, blank_code=True):
    """(line number, line) of the text outside fenced code blocks, inline code spans blanked
    unless blank_code is false."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, RE_CODE_SPAN.sub("``", line) if blank_code else line


def links(path):
    """(line number, target) of every Markdown link and image in a docs file, outside code."""
    return [(number, m.group(1)) for number, line in prose_lines(path.read_text(encoding="utf-8"))
            for m in RE_LINK.finditer(line)]


def anchors(path):
    """The heading anchors of a Markdown file, as GitHub derives them (lower case, punctuation
    dropped, spaces to hyphens, -1, -2 ... on repeats)."""
    seen, out = {}, set()
    for _, line in prose_lines(path.read_text(encoding="utf-8"), blank_code=False):
        m = RE_HEADING.match(line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(2).strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out
