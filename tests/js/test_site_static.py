"""The page's source, read as text: module size, dead exports, and rule constants the page
must not restate (Python publishes them in the worker's `ready`; site/lib/constants.js)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
MAX_LINES = 300

EXPORT = re.compile(
    r"^export\s+(?:async\s+)?(?:function|class|const|let)\s+([A-Za-z_$][\w$]*)", re.M
)


def site_modules() -> list[Path]:
    return sorted(SITE.rglob("*.js"))


def test_every_page_module_is_small():
    sizes = {
        str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines())
        for p in site_modules()
    }
    assert sizes, "no JavaScript in site/"
    assert {k: v for k, v in sizes.items() if v > MAX_LINES} == {}


def test_every_export_is_used_by_another_page_module():
    """An export no other module of the page imports is dead code (tests do not count)."""
    texts = {p: p.read_text(encoding="utf-8") for p in site_modules()}
    unused = []
    for path, text in texts.items():
        for name in EXPORT.findall(text):
            word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
            if not any(word.search(other) for p, other in texts.items() if p != path):
                unused.append(f"{path.relative_to(ROOT)}: {name}")
    assert unused == []


def test_page_restates_no_rule_constant():
    """N range, slider floor/maximum/default: set from `ready.constants`, not written in HTML/JS."""
    html = (SITE / "index.html").read_text(encoding="utf-8")
    n_input = re.search(r"<input[^>]*id=\"setting-n\"[^>]*>", html).group(0)
    slider = re.search(r"<input[^>]*id=\"para-threshold\"[^>]*>", html).group(0)
    assert not re.search(r"\b(min|max)=", n_input), n_input
    assert not re.search(r"\b(min|max|value)=", slider), slider
    code = {p: p.read_text(encoding="utf-8") for p in site_modules() if p.name != "constants.js"}
    restated = [
        f"{p.relative_to(ROOT)}: {m.group(0)}"
        for p, text in code.items()
        for m in re.finditer(
            r"0\.75\b|0\.90?\b|(?<!SHA-)\b256\b|paraphrase-(pairs|groups)\.csv|contamination-report\.csv",
            text,
        )
    ]
    assert restated == []


def test_rule_text_in_index_html_matches_python():
    """The rule text keeps its numbers for a first paint; app.js overwrites each
    data-constant span from `ready.constants`. Here they are held to Python's values."""
    from evalsieve import constants

    published = constants.as_json()
    html = (SITE / "index.html").read_text(encoding="utf-8")
    spans = re.findall(r'<span data-constant="([a-z_]+)">([^<]*)</span>', html)
    assert {name for name, _ in spans} == {"n_auto_min", "n_auto_max", "para_window", "para_floor"}
    assert [(name, text) for name, text in spans if str(published[name]) != text] == []


def test_clean_rule_options_are_pythons_clean_rules():
    """The "eval.clean keeps" options are CLEAN_RULES' keys in Python's order (the first is
    selected: the default); parseSettings checks a choice against ready.constants."""
    from evalsieve import constants

    html = (SITE / "index.html").read_text(encoding="utf-8")
    select = re.search(r'<select id="setting-clean">(.*?)</select>', html, re.S).group(1)
    values = re.findall(r'<option value="([^"]+)"', select)
    assert values == list(constants.CLEAN_RULES)
    assert re.search(rf'<option value="{values[0]}" selected>', select)
