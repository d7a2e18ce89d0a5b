"""The rule constants, in one place for Python and (through the worker's ``ready``) the page.

Every number or name here is part of a rule or of the exports' contract; the Python
modules import them from here and the web worker receives :func:`as_json` in its
``ready {versions, constants}`` message (bridge op ``constants``), so the page and worker
never restate them. Engineering settings that change speed only (batch sizes, tile sizes,
chunk sizes) are not here: they live in ``worker/settings.js``.
"""

from __future__ import annotations

# -- contamination (GPT-3, Brown et al. 2020, App. C) ---------------------------------------
#: N (words per n-gram) a user may set: 1..1000 inclusive.
N_MIN, N_MAX = 1, 1000
#: The rule's own choice of N (5th-percentile eval-row length) is clamped to 8..13.
N_AUTO_MIN, N_AUTO_MAX = 8, 13
#: A row is contaminated when containment ≥ threshold, threshold in (0, 1] (None = any
#: overlap, i.e. at least one matched n-gram). 0 is refused: every row would be dirty.
THRESHOLD_MIN_EXCLUSIVE, THRESHOLD_MAX = 0.0, 1.0

# -- paraphrases (sentence-transformers all-MiniLM-L6-v2) -----------------------------------
#: The lowest cosine threshold the page's slider allows; the encoder side keeps every pair
#: with cosine ≥ this floor, so any threshold above it regroups without re-embedding. A
#: speed choice: a lower floor keeps many more candidate pairs, slow in the browser.
PARA_FLOOR = 0.75
#: The lowest threshold the CLI allows (its candidate floor follows the threshold below 0.75).
PARA_CLI_FLOOR = 0.5
#: The default and the highest cosine threshold.
PARA_THRESHOLD_DEFAULT, PARA_THRESHOLD_MAX = 0.90, 1.0
#: Word pieces per row including [CLS] and [SEP] (sentence-transformers' max_seq_length).
PARA_WINDOW = 256
#: Width of one sentence embedding (all-MiniLM-L6-v2's hidden size), float32.
EMBEDDING_DIMS = 384

# -- the semantic rung's code channel ---------------------------------------------------------
#: Tokens per code shingle (n-grams of abstracted code tokens, semantic.code_shingles) a user
#: may set: 0 turns the code channel off (code rows read as prose), else 1..8; default 3.
SEMANTIC_CODE_NGRAM_MIN, SEMANTIC_CODE_NGRAM_MAX = 0, 8
SEMANTIC_CODE_NGRAM_DEFAULT = 3

# -- exports ---------------------------------------------------------------------------------
#: What ``eval.clean.*`` keeps, by the ``clean`` setting (ContaminationConfig.clean, the CLI's
#: ``--clean``, the page's "eval.clean keeps"), in the words the stamp records; the first
#: is the default.
CLEAN_RULES = {
    "scored": "scored and not contaminated (rows too short to score are left out)",
    "not-contaminated": "every row not contaminated (rows too short to score are kept)",
}
#: The clean eval file's name after the eval file's format (it holds the kept rows' bytes).
CLEAN_NAME_BY_FORMAT = {
    "jsonl": "eval.clean.jsonl",
    "csv": "eval.clean.csv",
    "tsv": "eval.clean.tsv",
    "text": "eval.clean.txt",
    "parquet": "eval.clean.parquet",
}
#: The page's stand-in for eval.clean.parquet when a column's type cannot be written
#: faithfully in the page (worker/parquet-write.js): the kept rows' numbers.
PARQUET_KEPT_ROWS_NAME = "eval.clean.rows.csv"
#: The contamination job's reports, after the clean file, in the order the page lists them.
CONTAMINATION_REPORTS = (
    "contamination-report.csv",
    "too-short-to-score.csv",
    "overlap-report.html",
)
#: The paraphrase job's exports.
PARAPHRASE_EXPORTS = ("paraphrase-pairs.csv", "paraphrase-groups.csv")
#: The eval file with one row per paraphrase group (its own bytes, as eval.clean.*), by format,
#: and the list of the rows it leaves out (each with its group and the row kept for it).
DEDUP_NAME_BY_FORMAT = {
    "jsonl": "eval.deduplicated.jsonl",
    "csv": "eval.deduplicated.csv",
    "tsv": "eval.deduplicated.tsv",
    "text": "eval.deduplicated.txt",
    "parquet": "eval.deduplicated.parquet",
}
DEDUP_DROPPED_EXPORT = "paraphrase-dropped.csv"
#: Which row of a group eval.deduplicated.* keeps (the setting, stamped with these words).
DEDUP_KEEP_RULES = {
    "first": "the first row of each group (lowest row number)",
    "longest": "the longest row of each group (most characters of the embedded text; "
    "ties: the first)",
}
#: Added to either job's exports with ``skip_bad_lines`` (the CLI's --skip-bad-lines): the
#: skipped records' file, line and error.
SKIPPED_EXPORT = "skipped-lines.csv"
#: Added to either job's exports when per-row scores are given (docs/SCORE_IMPACT.md).
SCORE_EXPORTS = ("score-impact.csv", "scores-unmatched.csv")
#: The last of either job's exports: the run stamp as JSON (every CSV export's
#: ``run_fingerprint`` column holds its ``fingerprint``).
STAMP_EXPORT = "run-stamp.json"
#: What ``evalsieve purify`` writes beside its copy of the corpus (the stamp last).
PURIFY_EXPORTS = ("purify-report.csv", "purify-summary.json", STAMP_EXPORT)

# -- inputs ------------------------------------------------------------------------------------
#: Files refused by their first bytes (after gunzip): (magic, what it is, what to do, and an
#: optional second check (offset, bytes) that must also hold). bzip2's "BZh" is also the
#: start of some text, so it needs the block magic "1AY&SY" at offset 4 too.
BINARY_MAGIC = (
    (b"PK\x03\x04", "a ZIP archive (or .xlsx/.docx)", "unzip it, or export the sheet as CSV", None),
    (b"PK\x05\x06", "a ZIP archive (empty)", "unzip it, or export the sheet as CSV", None),
    (
        b"PAR1",
        "a Parquet file",
        "here it is read as text: the page reads a Parquet file "
        "as it is, not inside gzip; gunzip it, or use the CLI (pip install "
        "'evalsieve[parquet]'), or convert it to JSON Lines, "
        "e.g. pandas.read_parquet(F).to_json(OUT, orient='records', lines=True)",
        None,
    ),
    # UTF-32's little-endian mark starts with UTF-16's: checked first (the first match names it)
    (
        b"\xff\xfe\x00\x00",
        "UTF-32 text (little-endian byte-order mark)",
        "re-encode it as UTF-8, e.g. iconv -f UTF-32 -t UTF-8 FILE",
        None,
    ),
    (
        b"\x00\x00\xfe\xff",
        "UTF-32 text (big-endian byte-order mark)",
        "re-encode it as UTF-8, e.g. iconv -f UTF-32 -t UTF-8 FILE",
        None,
    ),
    (
        b"\xff\xfe",
        "UTF-16 text (little-endian byte-order mark)",
        "re-encode it as UTF-8, e.g. iconv -f UTF-16 -t UTF-8 FILE",
        None,
    ),
    (
        b"\xfe\xff",
        "UTF-16 text (big-endian byte-order mark)",
        "re-encode it as UTF-8, e.g. iconv -f UTF-16 -t UTF-8 FILE",
        None,
    ),
    (b"BZh", "a bzip2 file", "decompress it (bunzip2) or recompress it with gzip", (4, b"1AY&SY")),
    (b"\xfd7zXZ\x00", "an xz file", "decompress it (unxz) or recompress it with gzip", None),
    (
        b"\x28\xb5\x2f\xfd",
        "a Zstandard file",
        "decompress it (unzstd) or recompress it with gzip",
        None,
    ),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "extract it first", None),
    (
        b"ARROW1",
        "an Arrow/Feather file",
        "the CLI reads it as training data (pip install "
        "'evalsieve[parquet]'); or convert it to Parquet or JSON Lines",
        None,
    ),
    (
        b"\xff\xff\xff\xff",
        "an Arrow stream (a Hugging Face datasets cache or save_to_disk shard)",
        "the CLI reads it as training data (pip install 'evalsieve[parquet]'); or save "
        "the dataset as Parquet or JSON Lines (Dataset.to_parquet / to_json)",
        None,
    ),
    (b"SQLite format 3\x00", "an SQLite database", "export a table as CSV or JSON Lines", None),
    (b"%PDF-", "a PDF document", "extract its text first", None),
)


def binary_kind(head: bytes) -> tuple[str, str] | None:
    """``(what, what to do)`` when ``head`` (a file's first bytes, 16 are enough) starts with
    a magic of :data:`BINARY_MAGIC`, else None."""
    for magic, what, todo, also in BINARY_MAGIC:
        if head.startswith(magic) and (also is None or head[also[0] :].startswith(also[1])):
            return what, todo
    return None


def as_json() -> dict:
    """The constants as the worker posts them in ``ready.constants`` (see worker/protocol.js
    ``Constants``): plain JSON; magic bytes as lists of integers 0..255."""
    return {
        "n_min": N_MIN,
        "n_max": N_MAX,
        "n_auto_min": N_AUTO_MIN,
        "n_auto_max": N_AUTO_MAX,
        "threshold_min_exclusive": THRESHOLD_MIN_EXCLUSIVE,
        "threshold_max": THRESHOLD_MAX,
        "para_floor": PARA_FLOOR,
        "para_threshold_max": PARA_THRESHOLD_MAX,
        "para_threshold_default": PARA_THRESHOLD_DEFAULT,
        "para_window": PARA_WINDOW,
        "embedding_dims": EMBEDDING_DIMS,
        "semantic_code_ngram": {
            "min": SEMANTIC_CODE_NGRAM_MIN,
            "max": SEMANTIC_CODE_NGRAM_MAX,
            "default": SEMANTIC_CODE_NGRAM_DEFAULT,
        },
        "clean_rules": dict(CLEAN_RULES),
        "dedup_keep_rules": dict(DEDUP_KEEP_RULES),
        "export_names": {
            "clean_by_format": dict(CLEAN_NAME_BY_FORMAT),
            "contamination": list(CONTAMINATION_REPORTS),
            "paraphrases": list(PARAPHRASE_EXPORTS),
            "dedup_by_format": dict(DEDUP_NAME_BY_FORMAT),
            "dedup_dropped": DEDUP_DROPPED_EXPORT,
            "skipped": SKIPPED_EXPORT,
            "stamp": STAMP_EXPORT,
        },
        "binary_magic": [
            {
                "magic": list(m),
                "what": what,
                "todo": todo,
                "also": None if also is None else {"at": also[0], "magic": list(also[1])},
            }
            for m, what, todo, also in BINARY_MAGIC
        ],
        "purify": _purify_constants(),
    }


def _purify_constants() -> dict:
    """purify's settings for the page (defined in purify.py): the modes, which rows count
    (key: the stamp's words), the self-checks, and R / minimum piece / maximum splits as
    ``{min, max, default}``; the first mode, rows and self-check are the defaults."""
    from . import purify_core as pu

    return {
        "modes": list(pu.MODES),
        "rows": dict(pu.ROWS),
        "self_checks": list(pu.SELF_CHECKS),
        **{
            name: {"min": 0, "max": pu.SETTING_MAX, "default": default}
            for name, default in (
                ("radius", pu.RADIUS),
                ("min_piece", pu.MIN_PIECE),
                ("max_splits", pu.MAX_SPLITS),
            )
        },
    }


if __name__ == "__main__":  # the JSON for tools and the Node tests (tests/js)
    import json

    print(json.dumps(as_json(), indent=1))

#: Most contaminated rows the page's view lists (the report CSV has them all).
VIEW_ROWS = 2000
