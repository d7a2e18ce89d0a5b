"""What a purify run reports: its stamped settings, report rows, outputs and figures (pure).

Both drivers build their exports here, so ``evalsieve purify`` (:mod:`purify_run`) and the
page (:mod:`purify_page`) stamp the same settings and write the same ``purify-report.csv``
rows for the same input:

* :func:`purify_settings`: the stamp's settings (the contamination rule's, less what only
  ``eval.clean`` uses, plus :meth:`PurifyConfig.settings` and the self-check);
* :func:`report_rows` / :func:`report_csv`: one row per changed record;
* :func:`outputs`: the stamp's ``outputs`` (each output file beside its input);
* :func:`figures`: the summary's counts;
* :func:`rescan_changed` and :func:`check_verdict`: the ``changed`` self-check and the
  error a row still contaminated is.

Standard library only (runs in Pyodide too).
"""

from __future__ import annotations

import csv
import io
import json

from . import constants
from .corpus import is_url
from .errors import EvalsieveError, bad_input
from .ngrams import TrainingScan

REPORT, SUMMARY, STAMP = constants.PURIFY_EXPORTS
REPORT_COLUMNS = [
    "run_fingerprint",
    "file",
    "record",
    "line",
    "action",
    "reason",
    "splits",
    "matched_spans",
    "cut_spans",
    "chars_removed",
    "ngrams",
    "occurrences",
    "eval_rows",
]
#: Settings of the contamination rule that only ``eval.clean`` uses (not stamped by purify).
# settings of the contamination report that a purify run does not use: the eval side's
# exports, and the training records' id field (purify names records by number, and the page's
# scan defaults the id field for its report where the CLI's purify reads none)
_EVAL_SIDE = ("clean", "rungs", "clean_file_excludes", "train_id_field")


def purify_settings(
    rule_settings: dict, index, boilerplate: bool, cutoff: int, config, self_check: str
) -> dict:
    """The settings a purify run stamps.

    Args:
        rule_settings: :meth:`ContaminationConfig.settings` of the scan's config.
        index: the eval index (its N and how N was chosen); boilerplate: the boilerplate
            pass on or off; cutoff: the scan's boilerplate cut-off (training records).
        config: the :class:`purify.PurifyConfig`; self_check: ``"full"`` or ``"changed"``.
    Returns:
        A plain dict (JSON values), the same for the CLI and the page on the same settings.
    """
    out = {
        **rule_settings,
        "n": index.n,
        "n_how": index.n_how,
        "boilerplate_cutoff": f"> {cutoff} training records" if boilerplate else "off",
        **config.settings(),
        "self_check": self_check,
    }
    for k in _EVAL_SIDE:
        out.pop(k, None)
    return out


def rel_path(name: str) -> str:
    """A training file's path under the output folder: its name, URL scheme dropped.

    Raises:
        EvalsieveError(bad_input): the name goes up a folder (``..``).
    """
    if is_url(name):
        name = name.split("://", 1)[1]
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        raise bad_input(
            "a training file's name goes up a folder (..)",
            file=name,
            expected="training files named below their folder argument",
        )
    return "/".join(parts)


def _spans(per_segment) -> str:
    return " ".join(f"{k + 1}:{a}-{b}" for k, regs in enumerate(per_segment or []) for a, b in regs)


def report_rows(
    fingerprint: str, names: list[str], results: list[dict], rows_of: dict
) -> list[dict]:
    """The rows of ``purify-report.csv``.

    Args:
        fingerprint: the run stamp's; names: the training files' names, in corpus order;
        results: per file, its shard result (``rows``: the changed records, as
            :func:`purify_shards.purify_shard` returns them); rows_of: n-gram id -> the eval
            rows holding it (:func:`purify.counted_ngrams`).
    Returns:
        One dict per changed record, keys :data:`REPORT_COLUMNS`.
    """
    out = []
    for name, res in zip(names, results):
        for r in res["rows"]:
            evr = sorted({x for g in r["ngrams"] for x in rows_of.get(g, ())})
            out.append(
                {
                    "run_fingerprint": fingerprint,
                    "file": name,
                    "record": r["record"],
                    "line": r["line"] if r["line"] else "",
                    "action": r["action"],
                    "reason": r["reason"],
                    "splits": r["splits"],
                    "matched_spans": _spans(r.get("matched")),
                    "cut_spans": _spans(r["regions"]) if r["action"] == "cut" else "",
                    "chars_removed": r["chars_removed"],
                    "ngrams": len(r["ngrams"]),
                    "occurrences": r["occurrences"],
                    "eval_rows": " ".join(map(str, evr)),
                }
            )
    return out


def report_csv(rows: list[dict]) -> str:
    """``purify-report.csv``: a header on line 1, one row per changed record (RFC 4180)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=REPORT_COLUMNS)
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def export_texts(report: list[dict], summary: dict, stamp: dict) -> list[tuple[str, str]]:
    """The exports as ``[(name, text)]`` in the order they are written: the report, the
    summary, then the stamp (last: its presence marks a complete run)."""
    return [
        (REPORT, report_csv(report)),
        (SUMMARY, json.dumps(summary, ensure_ascii=False, indent=1) + "\n"),
        (STAMP, json.dumps(stamp, ensure_ascii=False, indent=1) + "\n"),
    ]


def outputs(names: list[str], results: list[dict]) -> list[dict]:
    """The stamp's ``outputs``: per output file its name, path under the output folder,
    sha256 and bytes as stored, its input's sha256 and the record counts."""
    return [
        {
            "name": name,
            "path": rel_path(name),
            "sha256": r["out_sha256"],
            "bytes": r["out_bytes"],
            "input_sha256": r["sha256"],
            "records": r["records"],
            "records_out": r["records_out"],
            "cut": r["cut"],
            "dropped": r["dropped"],
            "resumed": bool(r.get("resumed")),
        }
        for name, r in zip(names, results)
    ]


def figures(
    job,
    config,
    counted,
    boilerplate: frozenset,
    results: list[dict],
    report: list[dict],
    check: dict,
    self_check: str,
    training_bytes: int,
) -> dict:
    """The summary's figures (``purify-summary.json`` less the driver's own: times,
    engine, output folder).

    Args:
        job: the finished :class:`ContaminationJob` of the scan; config: the
            :class:`PurifyConfig`; counted / boilerplate: the n-gram id sets; results: the
            shard results; report: :func:`report_rows`; check: the self-check's verdict
            (:func:`purify.still_contaminated`); self_check: its mode; training_bytes: the
            training files' bytes.
    """
    want = ("clean", "contaminated") if config.rows == "scored" else ("contaminated",)
    return {
        "mode": config.mode,
        "rows": config.rows,
        "n": job.index.n,
        "boilerplate_cutoff": job.cutoff,
        "eval_rows": len(job.index.rows),
        "eval_rows_counted": sum(1 for s in job.scores if s.status in want),
        "eval_rows_contaminated_before": job.summary["rows_contaminated"],
        "ngrams_counted": len(counted),
        "ngrams_boilerplate": len(boilerplate),
        "training_files": len(results),
        "training_records": job.scan.records,
        "training_bytes": training_bytes,
        "records_cut": sum(r["cut"] for r in results),
        "records_dropped": sum(r["dropped"] for r in results),
        "records_out": sum(r["records_out"] for r in results),
        "chars_removed": sum(x["chars_removed"] for x in report),
        "files_resumed": sum(1 for r in results if r.get("resumed")),
        "self_check": {
            "mode": self_check,
            **{k: v for k, v in check.items() if k != "rows"},
            "rows_still_contaminated": check["rows"],
        },
    }


def rescan_changed(index, counts: list[int], results: list[dict]) -> list[int]:
    """Per n-gram id, the output's records holding it, from the input's counts: each changed
    record's n-grams taken away, and the n-grams of what was written for it (scanned with
    :class:`TrainingScan`, the rung itself) added. Records written as they were hold what
    the first pass found in the same bytes."""
    out = list(counts)
    batch = []
    for res in results:
        for row in res["rows"]:
            for g in row["found"]:
                out[g] -= 1
            if row["segments_after"] is not None:
                batch.append((len(batch) + 1, row["segments_after"]))
    scan = TrainingScan(index)
    for k in range(0, len(batch), 2000):
        scan.scan(batch[k : k + 2000])
    return [a + b for a, b in zip(out, scan.counts)]


def check_verdict(check: dict) -> None:
    """Raise when the self-check found a row it was asked to clean still contaminated.

    Raises:
        EvalsieveError(internal): ``check["rows_asked_contaminated"]`` is not 0.
    """
    if check["rows_asked_contaminated"]:
        raise EvalsieveError(
            "internal",
            f"the self-check found {check['rows_asked_contaminated']} eval rows "
            "still contaminated in the purified output (rows "
            f"{', '.join(map(str, check['rows'][:10]))}); no report was written",
            expected="0: please report this with the run's inputs",
        )
