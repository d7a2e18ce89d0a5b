"""The inputs and outputs of a run, shared by the drivers (the API, the CLI, purify): open
an input file, describe it, pick its fields, feed it to a job, stamp it; find the encoder;
the reports' Parquet versions (the CLI's :class:`outdir.OutDir` writes every export or
none; :mod:`evalsieve.progress` shows the training pass).

This module and :mod:`evalsieve.drivers` touch paths and the clock; the jobs do not.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import platform

from .errors import EvalsieveError, bad_input
from .corpus import FileSource
from .progress import Progress, _silent, check_cancel  # noqa: F401 (named here as before)
from .sample import check_fields, inspect_head, listed_paths
from .stamps import InputFile


def _utc_now() -> str:
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat()


def _runtime() -> str:
    return f"{platform.python_implementation()} {platform.python_version()}"


def open_input(path: str, name: str | None = None):
    """A :class:`corpus.FileSource` for a text file, or a ``parquet_io.ParquetSource`` for a
    Parquet one (by its magic bytes ``PAR1``), an ``arrow_io.ArrowSource`` for an Arrow IPC
    one (``ARROW1`` or ``FF FF FF FF``: a datasets shard); pyarrow needed; local paths only.

    Raises:
        EvalsieveError(bad_input): as FileSource; a Parquet URL (not supported yet).
    """
    src = FileSource(path, name=name)
    if src.parquet or src.arrow:
        from .arrow_io import open_columnar
        from .corpus import is_url

        if is_url(path):
            raise bad_input(
                f"{'Parquet' if src.parquet else 'Arrow'} files are read from local paths only",
                file=src.name,
                expected="a local copy of the file, or JSON Lines at the URL",
            )
        pq = open_columnar(path)
        pq.name = src.name
        pq.gzip = False
        return pq
    return src


def describe(src, skip_bad: bool = False) -> tuple[dict, str]:
    """``(inspect result, head text)`` of an input: format, fields, default and why (see
    ``sample.inspect_head``; ``skip_bad``: around malformed lines); for Parquet the fields
    come from the schema, described from the first rows, and the head is ''."""
    if not hasattr(src, "chunks"):
        return _describe_parquet(src), ""
    head = src.head(skip_bad)
    return inspect_head(src.name, head, skip_bad=skip_bad), head


def _describe_parquet(src) -> dict:
    from .sample import SAMPLE_ROWS, describe_values

    values = [v for batch in src.values(limit=SAMPLE_ROWS) for v in batch]
    return {**describe_values(values, src.paths), "rows": src.rows, "row_groups": src.row_groups}


def _check_parquet_fields(src, info: dict, paths: list[str]) -> None:
    from .fields import FieldExtractor, unfiltered

    known = {f["path"] for f in info["fields"]}
    for p in paths:
        if p in known:
            continue
        if p != unfiltered(p) and unfiltered(p) in known:
            ex = FieldExtractor("parquet", [p], src.name)
            if any(ex.segments(v) for b in src.values(limit=1000) for v in b):
                continue
        raise bad_input(
            f"no field {p!r} in the schema (or it selects nothing in the first rows)",
            file=src.name,
            expected="one of: " + ", ".join(sorted(known)),
        )


def _present(src, info: dict, head: str, paths: list[str], skip_bad: bool) -> list[str]:
    """The ``paths`` this input has, in their order: those its description lists (plain and
    element-filter paths), and element filters on a listed list that select something in the
    sampled rows (a role value past the listed ones)."""
    from .fields import unfiltered

    listed = set(listed_paths(info))
    out = []
    for p in paths:
        if p in listed:
            out.append(p)
        elif p != unfiltered(p) and unfiltered(p) in listed:
            try:
                if info["format"] == "parquet":
                    _check_parquet_fields(src, info, [p])
                else:
                    check_fields(src.name, info["format"], [p], head, skip_bad)
                out.append(p)
            except EvalsieveError:
                pass
    return out


def _pick_fields(
    src,
    requested: list[str] | None,
    role: str,
    log,
    any_of: bool = False,
    skip_bad: bool = False,
    described=None,
    corpus: dict[str, str] | None = None,
) -> tuple[str, list[str], str]:
    """(format, fields, head) of an input (text or Parquet).

    With ``any_of`` (a file of a corpus of several), the requested paths this file has are
    its fields (plain or element-filter paths, :func:`_present`), and a file with none of
    them is refused by name, with the paths asked for and the paths it has. ``corpus``: for
    such a file without requested paths, the corpus's defaults (``sample.corpus_defaults``:
    path -> the file whose default it is); the file is read with those it has, and the
    reason says whose default each one is. ``skip_bad``: the head is sampled around
    malformed lines (--skip-bad-lines). ``described``: ``describe(src)`` when already done.
    """
    info, head = described or describe(src, skip_bad)
    parquet = info["format"] == "parquet"
    flag = "--" + ("field" if role == "para" else f"{role}-field")
    if requested:
        known_paths = {f["path"] for f in info["fields"]}
        # (a field the head's description lists needs no second look at the head)
        check = (
            (lambda fs: _check_parquet_fields(src, info, fs))
            if parquet
            else (
                lambda fs: (
                    None
                    if set(fs) <= known_paths
                    else check_fields(src.name, info["format"], fs, head, skip_bad)
                )
            )
        )
        if any_of:
            fields = _present(src, info, head, requested, skip_bad)
            if not fields:
                has = listed_paths(info)
                raise bad_input(
                    f"this file has none of the {flag} paths asked for ({', '.join(requested)})",
                    file=src.name,
                    expected="at least one of them in every training file; this one has: "
                    + (
                        ", ".join(has[:20])
                        + (f" and {len(has) - 20} more" if len(has) > 20 else "")
                        if has
                        else "no field"
                    ),
                )
        else:
            check(requested)
            fields = requested
        why = "chosen with " + flag
        if len(fields) < len(requested):
            why += f"; this file has {len(fields)} of the {len(requested)}"
    elif corpus is not None:
        listed = set(listed_paths(info))
        fields = [p for p in corpus if p in listed]
        if not fields:
            raise bad_input(
                "no field could be chosen by default: this file has no default of "
                "its own (all are constant or empty) and none of the other "
                "files' defaults",
                file=src.name,
                expected=f"{flag} PATH",
            )
        parts = [
            f"{p}: {info['default_reason']}"
            if p in info["default_fields"]
            else f"{p}: the default of {corpus[p]}, which this file also has"
            for p in fields
        ]
        why = "default: " + ("; ".join(parts) if len(parts) > 1 else parts[0].split(": ", 1)[1])
    else:
        fields = info["default_fields"]
        if not fields:
            raise bad_input(
                "no field could be chosen by default (all are constant or empty)",
                file=src.name,
                expected=f"{flag} PATH",
            )
        why = "default: " + info["default_reason"]
    sep = {",": "comma", "\t": "tab", ";": "';'", "|": "'|'"}.get(info.get("separator"))
    log(
        f"{'eval' if role == 'para' else role}: {src.name}: "
        f"{getattr(src, 'file_format', info['format'])}"
        f"{' (gzip)' if src.gzip else ''}{f', separated by {sep}' if sep else ''}, "
        f"fields {', '.join(fields)} ({why})"
    )
    return info["format"], fields, head


def _feed(src, fmt: str, fields: list[str], text_fn, values_fn, skip_bad: bool = False) -> None:
    """Stream one input into a job: text chunks (the BOM left for the job's reader, which
    keeps it for the clean export; ``skip_bad``: lines that are not UTF-8 reach the reader
    as malformed records), or Parquet batches of the needed columns."""
    if fmt == "parquet":
        for batch in src.values(src.columns_for(fields)):
            values_fn(batch)
    else:
        for text in src.chunks(skip_bad=skip_bad, keep_bom=True):
            text_fn(text)


def _input_info(src, role: str, fmt: str) -> InputFile:
    if fmt == "parquet":
        return InputFile(
            role,
            src.name,
            _sha256_file(src.path),
            os.path.getsize(src.path),
            getattr(src, "file_format", "parquet"),
        )
    return src.info(role, fmt)


def _check_encoder_extra() -> None:
    """Stop before any pass over the files when the encoder extra is missing (a job that
    embeds: ``paraphrases``, ``contamination --semantic``).

    Raises:
        EvalsieveError(asset_load_failed): onnxruntime, tokenizers or numpy is not installed;
        the message names them and ``pip install 'evalsieve[encoder]'``.
    """
    import importlib.util

    missing = [
        m for m in ("onnxruntime", "tokenizers", "numpy") if importlib.util.find_spec(m) is None
    ]
    if missing:
        raise EvalsieveError(
            "asset_load_failed",
            f"the encoder needs {', '.join(missing)}, which "
            f"{'is' if len(missing) == 1 else 'are'} not installed",
            expected="pip install 'evalsieve[encoder]'",
        )


def find_model_dir(given: str | None, log=lambda msg: None) -> str:
    """Where encoder.onnx and tokenizer.json are: ``--model-dir``, ``$EVALSIEVE_MODEL_DIR``,
    the repository's dist/assets/model (written by ``python3 build.py build``), else the user
    cache folder, derived there on first use from the pinned PyPI model packages
    (:func:`evalsieve.model_cache.ensure_model`).

    Raises:
        EvalsieveError(asset_load_failed): a folder given with --model-dir or the variable
        lacks the files; or deriving failed (a package missing, a sha256 mismatch).
    """

    def holds(d):
        return all(os.path.isfile(os.path.join(d, f)) for f in ("encoder.onnx", "tokenizer.json"))

    for what, d in (
        ("--model-dir", given),
        ("EVALSIEVE_MODEL_DIR", os.environ.get("EVALSIEVE_MODEL_DIR")),
    ):
        if d:
            if holds(d):
                return os.path.normpath(d)
            raise EvalsieveError(
                "asset_load_failed",
                f"{what} {d} does not hold the encoder",
                expected="a folder with encoder.onnx and tokenizer.json",
            )
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "dist", "assets", "model")
    if holds(built):
        return os.path.normpath(built)
    from .model_cache import ensure_model

    return ensure_model(log)


def _sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def parquet_reports(exports: dict, log) -> dict:
    """The CSV reports' Parquet versions (parquet_io.report_writers) when pyarrow is
    installed, each with the run stamp in its key-value metadata; else none, said once."""
    import json

    from . import constants, parquet_io

    if not parquet_io.have_pyarrow():
        log(
            "reports written as CSV only: their Parquet versions need pyarrow "
            "(pip install 'evalsieve[parquet]')"
        )
        return {}
    return parquet_io.report_writers(exports, json.loads(exports[constants.STAMP_EXPORT]))


def _cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its finished child processes
    (the worker pool, once joined)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def report(args, stage: str, done: int, total: int) -> None:
    """Tell the API's ``progress(stage, done, total)`` callback (``args.progress``, absent
    from the CLI's args) how far a stage is, after checking ``args.cancel``."""
    check_cancel(getattr(args, "cancel", None))
    hook = getattr(args, "progress", None)
    if hook is not None:
        hook(stage, done, total)
