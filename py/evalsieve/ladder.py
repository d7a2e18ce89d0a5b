"""What the page shows of the ladder (exact → ngram → semantic) of a finished contamination run.

The page parses no CSV: :func:`ladder_view` hands it, as plain JSON values, the counts per rung,
which rungs' rows leave ``eval.clean.*``, every caught row with the rung that caught it first
and that rung's figures, and (when the semantic rung ran) its settings, figures, rule and the
measured quality note. The values are the report CSV's (same formatting of numbers).
"""

from __future__ import annotations

import html
from .constants import VIEW_ROWS
from .exports import fmt_float, html_table
from .semantic import RULE as SEMANTIC_RULE

# the ladder's order and a row's first rung; verdict.py derives status and rung
from .verdict import RUNGS, assign_rungs  # noqa: F401 (re-exported)

#: Columns appended to both CSV reports (the ladder), and to the report with the semantic rung.
RUNG_COLUMNS = ["rung"]

#: Measured recall and false positives of the semantic rung, each set at defaults chosen
#: without it (leave-one-set-out; benchmarks/bench_semantic.py, docs/SEMANTIC.md), printed
#: beside every semantic result.
QUALITY_NOTE = (
    "Measured with each set scored at settings chosen without it (recall, false "
    "positives): GSM8K rephrasings 0.94 at 0.3%; GSM8K question-only copies of "
    "question + answer rows 0.93 at 1.0%; GSM8K in 1,000-word documents 0.95 at "
    "0.5%; HumanEval rephrased programs 0.81 at 1.2%; Bing snippets of ARC/MMLU "
    "0.99 at 3.5%; BIG-bench rephrase 0.82 at 0%; MRPC and STS-B paraphrases 0.71 "
    "and 0.61, their near-paraphrase negatives caught at 47% and 12%. Held out "
    "from every choice: MMLU GPT-4 rephrasings 0.38 at 2.0% (the worst English "
    "set), MMLU question-only verbatim copies 0.90 at 1.5%, Chinese translations "
    "0.00 (benchmarks/bench_semantic.py; docs/SEMANTIC.md)"
)


def encoder_text(stamp: dict) -> str:
    """The encoder that gave the semantic rung's cosines and where it ran, from a run stamp:
    ``"all-MiniLM-L6-v2 int8 (encoder.onnx) on CPUExecutionProvider"`` (the CLI) or ``"... on
    webgpu (WebGPU on ...: all 16 sample rows agree with WASM ...)"`` (the page, with the
    provider's reason). A stamp without an encoder is a page run that had no pair to embed
    (the CLI embeds the probes even then)."""
    assets, env = stamp.get("assets") or {}, stamp.get("environment") or {}
    if not assets.get("encoder"):
        return "none: no (probe, window) pair to score, so nothing was embedded"
    where = env.get("execution_provider") or assets.get("encoder_provider") or "?"
    reason = env.get("provider_reason")
    return f"{assets['encoder']} on {where}" + (f" ({reason})" if reason else "")


def ladder_view(res, limit: int = VIEW_ROWS) -> dict:
    """The ladder of a finished run, for the page (``cont.view``'s ``ladder``).

    Args:
        res: a finished run's :class:`evalsieve.results.ContaminationResult`.
        limit: most caught rows listed (the report CSV has them all).
    Returns:
        ``{rungs, excluded, by_rung {exact, ngram, semantic: int or None (did not run)},
        clean_at_these_rungs, rows, rows_total, semantic}``. ``rows``: the eval rows any rung
        caught, in eval-file order, at most ``limit``, each ``{eval_row, rung (the first rung
        that caught it), leaves_clean (bool), containment_text, training_record (the n-gram
        rung's first record, or the exact rung's), semantic_score, semantic_cosine,
        semantic_training_record, training_window, eval_text, eval_marks}`` (numbers as the CSV
        prints them, '' when absent; eval_text and eval_marks as in ``contamination_exports.view``:
        the row's own text and where it holds its n-gram shared passage). ``semantic``: None
        when the rung did not run, else ``{figures (the summary's
        ``semantic``), threshold, candidates, encoder (:func:`encoder_text`), rule,
        quality_note}``.
    """
    c = res.config
    excluded = set(c.excluded)  # a row leaves when any rung that caught it is excluded
    exact_rec = res.exact_record
    sem = res.semantic
    rows, total = [], 0
    for i, rung in enumerate(res.rungs):
        if not rung:
            continue
        total += 1
        if len(rows) >= limit:
            continue
        r = res.scores[i]
        m = sem[i] if sem is not None else None
        rows.append(
            {
                "eval_row": r.eval_row,
                "rung": rung,
                "leaves_clean": res.excluded(i),
                "containment_text": fmt_float(r.containment) if r.scored else "",
                "training_record": (exact_rec[i] if rung == "exact" else r.training_record) or "",
                "semantic_score": fmt_float(m.score) if m else "",
                "semantic_cosine": fmt_float(m.cosine) if m else "",
                "semantic_training_record": (m.training_record or "") if m else "",
                "training_window": m.window if m else "",
                **res.eval_text_marks(i),
            }
        )
    semantic = None
    if res.semantic is not None:
        semantic = {
            "figures": res.summary.get("semantic"),
            "threshold": c.semantic.threshold,
            "code_threshold": c.semantic.code_threshold,
            "candidates": c.semantic.candidates,
            "encoder": encoder_text(res.stamp),
            "rule": SEMANTIC_RULE,
            "quality_note": QUALITY_NOTE,
        }
    by = res.summary["rows_contaminated_by_rung"]
    return {
        "rungs": list(c.rungs),
        "excluded": [k for k in RUNGS if k in excluded],
        "by_rung": dict(by),
        "clean_at_these_rungs": sum(1 for x in res.rungs if not x),
        "rows": rows,
        "rows_total": total,
        "semantic": semantic,
    }


def ladder_sections(res) -> list[str]:
    """overlap-report.html's ladder (of a ContaminationResult): rows per rung, the exact
    rung, the semantic rung."""
    s, c = res.summary, res.config
    by = s["rows_contaminated_by_rung"]
    ladder = [
        (
            k,
            by[k] if by[k] is not None else "did not run",
            "yes" if k in c.excluded else ("no" if k in c.rungs else ""),
        )
        for k in RUNGS
    ]
    ladder.append(("none (clean at these rungs)", sum(1 for x in res.rungs if not x), ""))
    out = [
        "<h2>The ladder: which rung caught each row first</h2>",
        "<p>Rungs run in order exact → ngram → semantic; a row counts under the first "
        "rung that caught it. A row no rung caught is <b>clean at these rungs</b>, not "
        "clean: what the rungs cannot see is listed below.</p>",
        html_table(
            ["rung", "rows caught first here", "rows leave eval.clean"], ladder, frozenset({1})
        ),
    ]
    exact = [
        (res.eval_numbers[i], f, rec)
        for i, (f, rec) in enumerate(zip(res.exact_file, res.exact_record))
        if rec
    ]
    out += [
        f"<h2>Rung exact ({len(exact)})</h2><p>The eval row's words, after the "
        "normalisation above, equal a whole training record's words (the chosen fields "
        "of both, joined; every row with a word, rows too short for n-grams too).</p>",
        html_table(["eval_row", "training_file", "training_record"], exact, frozenset({0, 2})),
    ]
    if res.semantic is None:
        out.append(
            "<h2>Rung semantic</h2><p>Did not run (CLI: <code>--semantic</code>). "
            "Reworded copies of eval rows that share no n-gram with the training "
            "data are not looked for.</p>"
        )
        return out
    f = s["semantic"]
    m = res.semantic
    caught = sorted(
        ((i, x) for i, x in enumerate(m) if x.caught), key=lambda t: (-t[1].score, t[0])
    )
    fig = [
        (
            "window",
            f"{f['window_words']} words ({f['window_how']}), stride "
            f"{(f['window_words'] + 1) // 2} words",
        ),
        ("windows scanned", f["windows"]),
        ("windows sharing a key term with some probe", f["windows_sharing_a_key_term"]),
        ("probes (eval rows and their field values)", f["probes"]),
        ("spans embedded (fitted in the candidate windows)", f["windows_embedded"]),
        ("(probe, span) pairs verified", f["pairs_verified"]),
        ("candidate windows per probe", c.semantic.candidates),
        (
            "threshold",
            f"verifier probability ≥ {c.semantic.threshold} (prose rows), "
            f"≥ {c.semantic.code_threshold} (code rows)",
        ),
        ("IDF background of key terms", f["idf_background"]),
        ("encoder", encoder_text(res.stamp)),
        ("measured quality at these defaults", QUALITY_NOTE),
    ]
    rows = [
        (
            res.eval_numbers[i],
            res.rungs[i],
            fmt_float(x.score),
            fmt_float(x.cosine),
            fmt_float(x.lexical),
            fmt_float(x.numbers),
            x.training_record,
            x.window,
        )
        for i, x in caught
    ]
    out += [
        f"<h2>Rung semantic ({len(caught)} rows caught)</h2>",
        f'<p class="rule">{_esc(SEMANTIC_RULE)}</p>',
        html_table(["figure", "value"], fig, frozenset({1}), cls="settings"),
        html_table(
            [
                "eval_row",
                "first rung",
                "score",
                "cosine",
                "lexical",
                "numbers",
                "training_record",
                "training window",
            ],
            rows,
            frozenset({0, 2, 3, 4, 5, 6}),
        ),
    ]
    return out


def _esc(s: str) -> str:
    return html.escape(s)
