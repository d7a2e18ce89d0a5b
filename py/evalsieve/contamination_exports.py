"""The contamination job's outputs: ``eval.clean.*``, the report CSVs, ``skipped-lines.csv``,
``overlap-report.html`` and the page's view, all read from a finished
:class:`evalsieve.contamination_job.ContaminationJob` (this module imports no job).
"""

from __future__ import annotations

import html

from . import constants
from .errors import bad_input
from .exports import (MarkedText, fmt_float, html_page, html_table, score_impact_csv,
                      score_impact_section, stamp_json, stamp_section, unmatched_csv,
                      write_csv)
from .highlight import passage_spans
from .ladder import RUNG_COLUMNS, ladder_sections
from .ngrams import RowScore, source_id
from .raw_rows import refuse_parquet, rows_text
from .records import SKIPPED_COLUMNS, split_format
from .verdict import report_records

#: The n-gram rung's rule, as overlap-report.html states it.
RULE = ("Words: Unicode NFKC, lowercase, every character of Unicode category punctuation (P*) "
        "deleted, split on white space. N = the 5th-percentile word count of the non-empty "
        "eval rows (nearest rank), clamped to 8..13. Boilerplate: eval n-grams found in more "
        "than max(10, ⌈0.001 × training records⌉) training records are dropped from both "
        "sides. Containment of an eval row = its distinct n-grams found in training ÷ its "
        "distinct scorable n-grams. Source: GPT-3, Brown et al. 2020, App. C.")

def containment_bin(c: float) -> int:
    """The histogram's bin of a containment in [0, 1]: ``min(9, int(c × 10))`` (ten bins of
    0.1 from 0, the last one closed)."""
    return min(9, int(c * 10))


#: The export columns and reasons of the contamination job.
REPORT_COLUMNS = ["eval_row", "status", "containment", "ngrams_matched", "ngrams_total",
                  "ngrams_boilerplate", "words", "training_file", "training_record",
                  "training_id", "shared_passage",
                  "training_excerpt"]
TOO_SHORT_COLUMNS = ["eval_row", "words", "n", "reason"]
#: The export listing skipped records (with ``skip_bad_lines`` only).
SKIPPED_EXPORT = constants.SKIPPED_EXPORT
SEMANTIC_COLUMNS = ["semantic_score", "semantic_cosine", "semantic_lexical", "semantic_numbers",
                    "semantic_code", "semantic_docstring_cosine", "semantic_rival",
                    "semantic_code_runner_up", "semantic_part", "semantic_training_file",
                    "semantic_training_record", "training_window"]

_REASONS = {
    "empty": "empty: no words in the chosen fields",
    "too_short": "fewer than N words",
    "no_ngram": "no single field value has N words (n-grams never span two fields)",
    "boilerplate_only": "boilerplate only: every n-gram is in more training records than the cut-off",
}





class ContaminationExports:
    """The contamination job's exports, page view and HTML report, and the bookkeeping of
    skipped records they list; mixed into :class:`ContaminationJob`, whose state they read."""

    def _take_train_skips(self) -> None:
        """The current training reader's skipped records, into the run's list."""
        r = self._train_reader
        self.add_skipped(max(self._train_next - 1, 0), r.name, r.skipped)
        r.skipped = []

    def add_skipped(self, file: int, name: str, lines) -> None:
        """Note skipped records of training file ``file`` (0-based; ``name``): ``lines`` are
        ``(line, error)`` pairs (the CLI's tasks and the page's prefiltered pass report them
        here; records this job's own readers skip are noted by the job)."""
        self._skipped += [(file, name, ln, m) for ln, m in lines]

    @property
    def skipped(self) -> list[tuple[str, int, str]]:
        """``(file, line, error)`` of every skipped record: the eval file's first, then each
        training file's in corpus order, lines ascending (the rows of skipped-lines.csv)."""
        return [(n, ln, m) for _, n, ln, m in sorted(self._skipped, key=lambda t: (t[0], t[2]))]

    def skipped_counts(self) -> dict[str, int]:
        """Skipped records per file name, every input listed (0 when none was skipped)."""
        out = {self.eval_name: 0}
        out.update({f.name: 0 for f in self.train_files} or {self.train_name: 0})
        for name, _, _ in self.skipped:
            out[name] = out.get(name, 0) + 1
        return out

    @property
    def clean_name(self) -> str:
        """``eval.clean.jsonl``, or ``.csv``/``.tsv``/``.txt``/``.parquet`` after the eval
        file's format (``csv-semicolon`` is ``.csv``)."""
        base = "parquet" if self.eval_format == "parquet" else split_format(self.eval_format)[0]
        return constants.CLEAN_NAME_BY_FORMAT[base]

    def export_names(self) -> list[str]:
        """The names :meth:`export` accepts, in the order the page lists them
        (``skipped-lines.csv`` only with ``skip_bad_lines``; ``run-stamp.json`` last)."""
        extra = list(constants.SCORE_EXPORTS) if self.score_run else []
        if self.config.skip_bad_lines:
            extra.append(SKIPPED_EXPORT)
        return [self.clean_name, *constants.CONTAMINATION_REPORTS, *extra,
                constants.STAMP_EXPORT]

    def export(self, name: str) -> tuple[str, str]:
        """One export's ``(mime type, text)``.

        Raises:
            EvalsieveError(bad_input): unknown name, or called before :meth:`finish`.
        """
        if self.scores is None:
            raise bad_input("the run has not finished", expected="finish before export")
        if name == self.clean_name:
            return "application/octet-stream", self.clean_text()
        if name == "contamination-report.csv":
            return "text/csv", self.report_csv()
        if name == "too-short-to-score.csv":
            return "text/csv", self.too_short_csv()
        if name == "overlap-report.html":
            return "text/html", self.report_html()
        if name == SKIPPED_EXPORT and self.config.skip_bad_lines:
            return "text/csv", write_csv(self.stamp, SKIPPED_COLUMNS, self.skipped)
        if name == "score-impact.csv" and self.score_run:
            return "text/csv", score_impact_csv(self.stamp, self.score_run.figures)
        if name == "scores-unmatched.csv" and self.score_run:
            return "text/csv", unmatched_csv(self.stamp, self.score_run.join)
        if name == constants.STAMP_EXPORT:
            return "application/json", stamp_json(self.stamp)
        raise bad_input(f"no export named {name!r}", expected=", ".join(self.export_names()))

    def histogram(self) -> dict:
        """Containment of the scored rows in ten bins of 0.1, the last one closed ([0.9, 1.0]):
        ``{bin_width: 0.1, counts: [10 ints]}`` (the overlap report's histogram)."""
        counts = [0] * 10
        for r in self.scores:
            if r.scored:
                counts[containment_bin(r.containment)] += 1
        return {"bin_width": 0.1, "counts": counts}

    def view(self, limit: int = constants.VIEW_ROWS) -> dict:
        """What the page shows of a finished run, so it does not parse the CSV it downloads.

        Args:
            limit: most rows listed (the report CSV has them all).
        Returns:
            ``{rows, rows_total, histogram}``: ``rows`` are the contaminated rows (caught by
            any rung: :mod:`evalsieve.verdict`) in report order (eval-file order), at most
            ``limit``, each ``{eval_row, status ("contaminated"), rung (the first rung that
            caught it), containment (float, or None when the row has no n-gram),
            containment_text (as the CSV prints it), ngrams_matched, ngrams_total,
            training_record (as the CSV's; 0 = none), shared_passage, training_excerpt,
            eval_text (the chosen fields' values joined with a newline), eval_marks (where
            eval_text holds the shared passage: :func:`evalsieve.highlight.passage_spans`,
            UTF-16 offsets)}``;
            ``rows_total`` counts them all;
            ``histogram`` is :meth:`histogram`.
        Raises:
            EvalsieveError(bad_input): called before :meth:`finish`.
        """
        if self.scores is None:
            raise bad_input("the run has not finished", expected="finish before view")
        rows, total = [], 0
        records = self._training_records()
        for i, r in self.contaminated():
            total += 1
            if len(rows) < limit:
                rows.append({"eval_row": r.eval_row, "status": r.status, "rung": r.rung,
                             "containment": r.containment,
                             "containment_text": fmt_float(r.containment),
                             "ngrams_matched": r.ngrams_matched, "ngrams_total": r.ngrams_total,
                             "training_record": records[i][1] or 0,
                             "shared_passage": r.shared_passage, "training_excerpt": r.excerpt,
                             **self.eval_text_marks(i)})
        return {"rows": rows, "rows_total": total, "histogram": self.histogram()}

    def contaminated(self) -> list[tuple[int, RowScore]]:
        """``(position, score)`` of every contaminated row (caught by any rung) in the order
        the page lists them and ``overlap-report.html`` prints them (by first rung there):
        eval-file order (ascending ``eval_row``)."""
        return [(i, r) for i, r in enumerate(self.scores) if r.status == "contaminated"]

    def _training_records(self) -> list[tuple[str, int | str]]:
        """Per row, the report's ``(training_file, training_record)`` (verdict.report_records)."""
        return report_records(self.scores, self.scan.exact, self.scan.file_names, self.train_name)

    def training_id(self, i: int) -> str:
        """Row ``i``'s (0-based) training record's own id (``training_id``; "" = none): of the
        record :meth:`_training_records` names (the n-gram rung's first match, else the exact
        copy)."""
        r = self.scores[i]
        if r.training_record:
            return r.training_id
        at = self.scan.exact.get(i)
        return source_id(self.scan.sources.get(at)) if at else ""

    def eval_text(self, i: int) -> str:
        """Row ``i``'s (0-based) chosen fields' values, joined with a newline: the eval text
        the page and the report show beside the training excerpt."""
        return "\n".join(self._eval_segments[i])

    def eval_text_marks(self, i: int) -> dict:
        """Row i's (0-based) own text and where it holds its shared passage, for the page.

        Returns:
            ``{eval_text: the chosen fields' values joined with a newline, eval_marks:
            [[start, end], ...] in UTF-16 code units (highlight.passage_spans; [] when the
            row shares no n-gram)}``.
        """
        segs = self._eval_segments[i]
        return {"eval_text": self.eval_text(i),
                "eval_marks": passage_spans(segs, self.scores[i].shared_passage)}

    def _marked_eval_text(self, i: int) -> MarkedText:
        """Row i's eval text for the report's table: its shared passage inside <mark>, as
        the page marks it (:meth:`eval_text_marks`)."""
        m = self.eval_text_marks(i)
        return MarkedText(m["eval_text"], m["eval_marks"])

    def _keeps(self, i: int) -> bool:
        """Does eval.clean keep row i (0-based)? Not when a rung whose rows leave the clean
        file caught it; and, under the default clean rule, only scored rows."""
        if self._excluded(i):
            return False
        return self.config.clean == "not-contaminated" or self.scores[i].scored

    def kept_rows(self) -> list[int]:
        """0-based positions of the eval rows ``eval.clean.*`` keeps, in file order (the
        driver uses them to write a Parquet clean file)."""
        if self.scores is None:
            raise bad_input("the run has not finished", expected="finish before export")
        return [i for i in range(len(self.scores)) if self._keeps(i)]

    def clean_text(self) -> str:
        """The kept rows' exact text (header line first for CSV/TSV), after the input's
        byte-order mark if it had one (and anything is kept); UTF-8 = input bytes."""
        refuse_parquet(self.eval_format, "clean file")
        text = rows_text(self._eval_reader.header_raw, self._eval_reader.cr, self._eval_raw,
                         self.kept_rows())
        return self._eval_reader.bom + text if text else text

    def report_csv(self) -> str:
        """``contamination-report.csv``: one row per eval row that was scored or that a rung
        caught (columns :meth:`report_columns`). ``status`` is the ladder's
        (:mod:`evalsieve.verdict`); a caught row with no n-gram (an exact copy too short to
        score) has an empty containment, 0 of 0 n-grams and the exact copy as its training
        record; it is listed in too-short-to-score.csv as well."""
        records = self._training_records()
        rows = ([r.eval_row, r.status, fmt_float(r.containment), r.ngrams_matched,
                 r.ngrams_total, r.ngrams_boilerplate, r.words, records[i][0], records[i][1],
                 self.training_id(i), r.shared_passage, r.excerpt] + self._rung_cells(i)
                for i, r in enumerate(self.scores) if r.scored or r.rung)
        return write_csv(self.stamp, self.report_columns(), rows)

    def report_columns(self) -> list[str]:
        """``contamination-report.csv``'s header: REPORT_COLUMNS, ``rung``, and the semantic
        rung's columns when it ran."""
        return REPORT_COLUMNS + RUNG_COLUMNS + (SEMANTIC_COLUMNS if self.semantic else [])

    def _rung_cells(self, i: int) -> list:
        cells = [self.rung[i]]
        if self.semantic is not None:
            m = self.semantic.matches[i]
            cells += [fmt_float(m.score), fmt_float(m.cosine), fmt_float(m.lexical),
                      fmt_float(m.numbers), fmt_float(m.code), fmt_float(m.docstring_cosine),
                      fmt_float(m.rival), fmt_float(m.code_runner_up), _part(m.part),
                      (m.training_file or self.train_name) if m.training_record else "",
                      m.training_record or "", m.window]
        return cells

    def too_short_csv(self) -> str:
        """``too-short-to-score.csv``: every row the n-gram rung could not score, its word
        count and reason, and the rung that caught it anyway ('' = none: an exact copy too
        short for n-grams says ``exact``, and is contaminated in the report)."""
        n = self.index.n
        rows = ([r.eval_row, r.words, n, _REASONS[r.ngram_status], self.rung[i]]
                for i, r in enumerate(self.scores) if not r.scored)
        return write_csv(self.stamp, TOO_SHORT_COLUMNS + RUNG_COLUMNS, rows)

    def report_html(self) -> str:
        """``overlap-report.html``: self-contained (no script, no external reference), the
        figures beside every setting, a containment histogram, the contaminated rows."""
        s = self.summary
        head = [("rows scanned", s["rows_scanned"]), ("rows scored", s["rows_scored"]),
                ("rows too short to score", s["rows_too_short"]),
                ("  of which boilerplate only", s["rows_boilerplate_only"]),
                ("rows contaminated", s["rows_contaminated"]),
                ("rows kept (eval.clean)", s["rows_kept"]),
                ("training files", s["training_files"]),
                ("eval.clean keeps", s["clean_rule"]),
                ("training records", s["training_records"]),
                ("training bytes", s["training_bytes"]),
                ("N (words per n-gram)", f"{s['n']} — {s['n_how']}"),
                ("boilerplate cut-off", (f"n-grams in more than {self.cutoff} training records "
                                         f"dropped ({s['ngrams_boilerplate']} dropped)")
                 if self.cutoff else "off"),
                ("threshold", "any overlap (≥ 1 matched n-gram)" if s["threshold"] is None
                 else f"containment ≥ {s['threshold']}")]
        scored = [r for r in self.scores if r.scored]
        bins = self.histogram()["counts"]
        zero = sum(1 for r in scored if r.ngrams_matched == 0)
        big = max(bins) or 1
        hist_rows = []
        for i, b in enumerate(bins):
            label = f"[{i / 10:.1f}, {(i + 1) / 10:.1f})" if i < 9 else "[0.9, 1.0]"
            hist_rows.append((label, b, f"<span class=\"bar\" style=\"width:{b / big * 30:.2f}em\">"
                              "</span>"))
        hist = ["<table><thead><tr><th>containment</th><th>rows</th><th></th></tr></thead><tbody>"]
        for label, b, bar in hist_rows:
            hist.append(f"<tr><td>{label}</td><td class=\"num\">{b}</td><td>{bar}</td></tr>")
        hist.append("</tbody></table>")
        dirty = self.contaminated()   # the page's order (eval-file order), grouped by rung
        records = self._training_records()
        columns = ["eval_row", "containment", "matched/total", "eval text (chosen fields)",
                   "training_file", "training_record", "shared passage (normalised words)",
                   "training excerpt (normalised)"]
        groups = []
        for rung in self.config.rungs:
            rows = [(r.eval_row, fmt_float(r.containment), f"{r.ngrams_matched}/{r.ngrams_total}",
                     self._marked_eval_text(i), *records[i], r.shared_passage, r.excerpt)
                    for i, r in dirty if r.rung == rung]
            groups.append(f"<h3>Caught first by the {rung} rung ({len(rows)})</h3>")
            groups.append(html_table(columns, rows, frozenset({0, 1, 2, 5})) if rows else
                          "<p>None.</p>")
        names = [f.name for f in self.train_files] or [self.train_name]
        against = (f"training file <b>{_esc(names[0])}</b>" if len(names) == 1 else
                   f"{len(names)} training files (<b>{_esc(names[0])}</b> … "
                   f"<b>{_esc(names[-1])}</b>; every one is listed in the run stamp)")
        sections = [
            "<h1>evalsieve — eval/training overlap report</h1>",
            f"<p>Eval file <b>{_esc(self.eval_name)}</b> against {against}.</p>",
            f"<p class=\"rule\">{_esc(RULE)}</p>",
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
        ] + ladder_sections(self)
        if self.score_run is not None:
            sections.append(score_impact_section(self.score_run.figures,
                                                 self.score_run.file.name,
                                                 self.score_run.settings()))
        sections.append(stamp_section(self.stamp))
        return html_page("evalsieve overlap report", sections)


def _part(part: int | None) -> str:
    """The ``semantic_part`` cell: ``row`` (the whole row matched), ``value K`` (its K-th
    field value alone), or "" (no candidate)."""
    return "" if part is None else "row" if part == 0 else f"value {part}"


def _esc(s: str) -> str:
    return html.escape(s)
