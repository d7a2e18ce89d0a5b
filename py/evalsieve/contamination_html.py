"""``overlap-report.html``: a finished contamination run's report, a pure function of its
:class:`evalsieve.results.ContaminationResult` (self-contained HTML: no script, no external
reference).
"""

from __future__ import annotations

import html

from .contamination_exports import histogram, marked_eval_text
from .exports import fmt_float, html_page, html_table, score_impact_section, stamp_section
from .ladder import ladder_sections
from .results import ContaminationResult

#: The n-gram rung's rule, as overlap-report.html states it.
RULE = (
    "Words: Unicode NFKC, lowercase, every character of Unicode category punctuation (P*) "
    "deleted, split on white space. N = the 5th-percentile word count of the non-empty "
    "eval rows (nearest rank), clamped to 8..13. Boilerplate: eval n-grams found in more "
    "than max(10, ⌈0.001 × training records⌉) training records are dropped from both "
    "sides. Containment of an eval row = its distinct n-grams found in training ÷ its "
    "distinct scorable n-grams. Source: GPT-3, Brown et al. 2020, App. C."
)


def report_html(res: ContaminationResult) -> str:
    """``overlap-report.html``: self-contained (no script, no external reference), the
    figures beside every setting, a containment histogram, the contaminated rows."""
    s = res.summary
    head = [
        ("rows scanned", s["rows_scanned"]),
        ("rows scored", s["rows_scored"]),
        ("rows too short to score", s["rows_too_short"]),
        ("  of which boilerplate only", s["rows_boilerplate_only"]),
        ("rows contaminated", s["rows_contaminated"]),
        ("rows kept (eval.clean)", s["rows_kept"]),
        ("training files", s["training_files"]),
        ("eval.clean keeps", s["clean_rule"]),
        ("training records", s["training_records"]),
        ("training bytes", s["training_bytes"]),
        ("N (words per n-gram)", f"{s['n']} — {s['n_how']}"),
        (
            "boilerplate cut-off",
            (
                f"n-grams in more than {res.cutoff} training records "
                f"dropped ({s['ngrams_boilerplate']} dropped)"
            )
            if res.cutoff
            else "off",
        ),
        (
            "threshold",
            "any overlap (≥ 1 matched n-gram)"
            if s["threshold"] is None
            else f"containment ≥ {s['threshold']}",
        ),
    ]
    scored = [r for r in res.scores if r.scored]
    bins = histogram(res)["counts"]
    zero = sum(1 for r in scored if r.ngrams_matched == 0)
    big = max(bins) or 1
    hist_rows = []
    for i, b in enumerate(bins):
        label = f"[{i / 10:.1f}, {(i + 1) / 10:.1f})" if i < 9 else "[0.9, 1.0]"
        hist_rows.append(
            (label, b, f'<span class="bar" style="width:{b / big * 30:.2f}em"></span>')
        )
    hist = ["<table><thead><tr><th>containment</th><th>rows</th><th></th></tr></thead><tbody>"]
    for label, b, bar in hist_rows:
        hist.append(f'<tr><td>{label}</td><td class="num">{b}</td><td>{bar}</td></tr>')
    hist.append("</tbody></table>")
    dirty = res.contaminated()  # the page's order (eval-file order), grouped by rung
    records = res.training_records()
    columns = [
        "eval_row",
        "containment",
        "matched/total",
        "eval text (chosen fields)",
        "training_file",
        "training_record",
        "shared passage (normalised words)",
        "training excerpt (normalised)",
    ]
    groups = []
    for rung in res.config.rungs:
        rows = [
            (
                r.eval_row,
                fmt_float(r.containment),
                f"{r.ngrams_matched}/{r.ngrams_total}",
                marked_eval_text(res, i),
                *records[i],
                r.shared_passage,
                r.excerpt,
            )
            for i, r in dirty
            if r.rung == rung
        ]
        groups.append(f"<h3>Caught first by the {rung} rung ({len(rows)})</h3>")
        groups.append(
            html_table(columns, rows, frozenset({0, 1, 2, 5})) if rows else "<p>None.</p>"
        )
    names = list(res.train_names) or [res.train_name]
    against = (
        f"training file <b>{_esc(names[0])}</b>"
        if len(names) == 1
        else f"{len(names)} training files (<b>{_esc(names[0])}</b> … "
        f"<b>{_esc(names[-1])}</b>; every one is listed in the run stamp)"
    )
    sections = [
        "<h1>evalsieve — eval/training overlap report</h1>",
        f"<p>Eval file <b>{_esc(res.eval_name)}</b> against {against}.</p>",
        f'<p class="rule">{_esc(RULE)}</p>',
        "<h2>Figures, with the settings that produced them</h2>",
        html_table(["figure", "value"], head, frozenset({1}), cls="settings"),
        f"<h2>Containment of the scored rows</h2><p>{zero} of {len(scored)} scored rows "
        "have no matched n-gram.</p>" + "".join(hist),
        f"<h2>Contaminated rows ({len(dirty)})</h2><p>Every row a rung caught, under the "
        "first rung that caught it (exact → ngram → semantic), each group in eval-file "
        "order as the page lists them; the eval text is the chosen fields' values as the "
        "file holds them, with the words of the shared passage <mark>highlighted</mark> as "
        "on the page. The training record is the first holding a matched n-gram, else the "
        "exact copy (the semantic rung's is in its section below).</p>",
        *groups,
    ] + ladder_sections(res)
    if res.score_run is not None:
        sections.append(
            score_impact_section(
                res.score_run.figures, res.score_run.file.name, res.score_run.settings()
            )
        )
    sections.append(stamp_section(res.run_stamp))
    return html_page("evalsieve overlap report", sections)


def _esc(s: str) -> str:
    return html.escape(s)
