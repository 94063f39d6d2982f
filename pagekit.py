"""Shared page plumbing: find assets, inline them at markers, embed JSON safely, write atomically."""

import html
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Installed (non-editable) copies keep the assets under <prefix>/share/kernel_logical_visualizer.
SHARE = Path(sys.prefix) / "share" / "kernel_logical_visualizer"


class AssetError(RuntimeError):
    """A page asset is missing or a template marker is wrong: a packaging bug, not bad input."""


def asset_path(relpath):
    """Return the path of a shipped asset (relative to the repository root), wherever it is installed."""
    for base in (HERE, SHARE):
        path = base / relpath
        if path.is_file():
            return path
    raise AssetError(f"asset not found: {relpath} (looked in {HERE} and {SHARE})")


def read_asset(relpath):
    """Return the text of a shipped asset."""
    return asset_path(relpath).read_text(encoding="utf-8")


def fill_markers(template, replacements):
    """Replace each marker (which must occur exactly once) by its text; no format() on JS/CSS."""
    for marker, text in replacements.items():
        count = template.count(marker)
        if count != 1:
            raise AssetError(f"template marker {marker!r} occurs {count} times, expected 1")
    # Split on every marker first so text inserted for one marker is never searched for the next.
    pieces = [template]
    for marker, text in replacements.items():
        out = []
        for piece in pieces:
            if isinstance(piece, str) and marker in piece:
                before, after = piece.split(marker, 1)
                out.extend([before, (text,), after])
            else:
                out.append(piece)
        pieces = out
    return "".join(p[0] if isinstance(p, tuple) else p for p in pieces)


# Inlined CSS/JS must not be able to close its own element or open an HTML comment.
FORBIDDEN_IN_INLINE = ("</script", "</style", "<!--")


def inline_asset(relpath):
    """Read an asset meant for inlining and refuse text that could end its element early."""
    text = read_asset(relpath)
    lowered = text.lower()
    for bad in FORBIDDEN_IN_INLINE:
        if bad in lowered:
            raise AssetError(f"{relpath} contains {bad!r}, which would break out of its inline element")
    return text


def render_template(template_relpath, texts, assets, model, packed=None):
    """Fill a page template: every `@@NAME@@` of `texts` with HTML-escaped text, every
    `/*@@NAME@@*/` of `assets` with that asset file inlined, every `@@NAME@@` of `packed` with
    text the caller has already made safe for its element (base64, as the waveform page's
    compressed scripts), and `@@MODEL_JSON@@` with the model serialized by json_for_script.
    Each marker must occur exactly once."""
    replacements = {f"@@{name}@@": html.escape(str(value), quote=True) for name, value in texts.items()}
    replacements.update({f"/*@@{name}@@*/": inline_asset(rel) for name, rel in assets.items()})
    replacements.update({f"@@{name}@@": text for name, text in (packed or {}).items()})
    replacements["@@MODEL_JSON@@"] = json_for_script(model)
    return fill_markers(read_asset(template_relpath), replacements)


def json_for_script(obj):
    """Serialize obj for a <script type="application/json"> element: deterministic and unbreakable.

    `<`, `>` and `&` become \\u escapes so `</script>` or `<!--` in parsed source text cannot end
    the element, and U+2028/U+2029 are escaped so the text is also a valid JS literal.
    """
    # ensure_ascii: every non-ASCII character (U+2028 included) becomes a \\u escape, so the
    # element's raw text stays ASCII and write_atomic's character references never touch it.
    text = json.dumps(obj, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def write_atomic(path, text):
    """Write text to path via a temporary file in the same directory and a rename.

    An interrupted run never leaves a half-written page; on any failure the temporary file is
    removed and the OSError propagates to the caller. A symbolic link is followed, so the file
    it points to is replaced and the link stays a link. An existing target that is not a
    regular file (a terminal, a pipe: `-o /dev/stdout`) is written to directly: renaming over
    it would replace the device node instead of writing to it.
    """
    # ASCII with character references: the page survives any encoding it is opened with.
    data = text.encode("ascii", "xmlcharrefreplace")
    path = Path(os.path.realpath(path))
    if path.exists() and not path.is_file():
        with open(path, "wb") as handle:
            handle.write(data)
        return
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
