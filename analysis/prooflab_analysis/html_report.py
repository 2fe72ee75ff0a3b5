"""report.html: the report.md of a run, an experiment or a log as one self-contained page.

The page is made from report.md itself (Python-Markdown with its `tables` and
`fenced_code` extensions), so it holds exactly the markdown report's sections — config,
host, provenance, integrity issues, headline, tables — and cannot drift from it. Every
image the report shows (`![..](figure.png)`) is embedded as a data: URI, so the page opens
anywhere on its own; links to other reports of the same tree (`x/report.md`) point to their
`report.html`. A figure the report names that is not on disk is an error naming it.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import markdown

MIME = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1400px;
       padding: 0 1.5em; color: #1d1d1d; line-height: 1.45; }
h1 { font-size: 1.6em; border-bottom: 2px solid #ddd; padding-bottom: .3em; }
h2 { font-size: 1.25em; margin-top: 1.8em; border-bottom: 1px solid #eee; padding-bottom: .2em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: .9em; }
th, td { border: 1px solid #d0d0d0; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
tr:nth-child(even) td { background: #fafafa; }
img { max-width: 100%; height: auto; border: 1px solid #e5e5e5; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .88em; }
pre { background: #f6f6f6; padding: .8em; overflow-x: auto; }
"""
_IMG_SRC = re.compile(r'(<img\b[^>]*\bsrc=")([^"]+)(")')
_MD_HREF = re.compile(r'(<a\b[^>]*\bhref=")([^"#:]+\.md)(")')


def _embed_images(body: str, base_dir: Path, source: Path) -> str:
    def embed(m: re.Match[str]) -> str:
        src = html.unescape(m.group(2))
        if src.startswith(("data:", "http:", "https:")):
            return m.group(0)
        path = base_dir / src
        mime = MIME.get(path.suffix.lower())
        if mime is None:
            raise ValueError(f"{source}: image {src!r} has no known type (one of {sorted(MIME)})")
        if not path.is_file():
            raise ValueError(f"{source}: image {src!r} not found at {path}")
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return f"{m.group(1)}data:{mime};base64,{data}{m.group(3)}"

    return _IMG_SRC.sub(embed, body)


def _link_pages(body: str, base_dir: Path) -> str:
    """`x/report.md` -> `x/report.html` where that page exists."""
    def relink(m: re.Match[str]) -> str:
        target = Path(html.unescape(m.group(2))).with_suffix(".html")
        return f"{m.group(1)}{target.as_posix()}{m.group(3)}" if (base_dir / target).is_file() else m.group(0)

    return _MD_HREF.sub(relink, body)


def markdown_page(text: str, base_dir: Path, source: Path) -> str:
    """A complete HTML document for markdown `text` whose relative paths start at `base_dir`."""
    body = markdown.markdown(text, extensions=["tables", "fenced_code"], output_format="html")
    body = _link_pages(_embed_images(body, base_dir, source), base_dir)
    first = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), "prooflab report")
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(first)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def write_html(report_md: str | Path) -> Path:
    """Write `report.html` beside `report_md`; returns its path."""
    report_md = Path(report_md)
    page = markdown_page(report_md.read_text(encoding="utf-8"), report_md.parent, report_md)
    out = report_md.with_suffix(".html")
    out.write_text(page, encoding="utf-8")
    return out
