"""The page's door into Python: JSON strings in, JSON strings out.

The worker calls ``call(op, args_json, text)`` for every step (see docs/ARCHITECTURE.md for
the ops). Nothing here holds a JS proxy: arguments arrive as JSON text (plus one bulk text
chunk), answers leave as JSON text, so no proxy object crosses the boundary and nothing
needs destroying. It imports nothing Pyodide-specific at import time (``pyodide`` only inside
``_runtime``, for its version; a ``JsProxy`` buffer is recognised by its ``to_bytes``), so it
imports and is tested under CPython (tests/py/test_docs.py checks the import).

Every answer is ``{"ok": true, "value": ...}`` or ``{"ok": false, "error": {code, message,
file, line, expected, detail, text}}``; an unexpected exception becomes code ``internal``.
"""

from __future__ import annotations

import json
import platform
import sys
import traceback

from . import constants
from .cont_table import contamination_source, open_record
from .contamination_exports import export as cont_export, export_names as cont_export_names
from .contamination_exports import view as cont_view
from .contamination_job import ContaminationConfig, ContaminationJob
from .para_exports import export as para_export, export_names as para_export_names
from .para_table import para_source
from .paraphrase import ParaphraseConfig, ParaphraseJob
from .purify_page import bridge_ops as _purify_ops
from .errors import EvalsieveError, bad_input
from .exports import write_csv
from .ladder import ladder_view
from .record_id import default_id_field
from .result_table import query_rows
from .semantic_config import semantic_config_of
from .sample import describe_values, inspect_head
from .stamps import InputFile
from .worker_blocks import unpack_float32, unpack_similarity

_jobs: dict[int, object] = {}
_next = [1]


def _runtime() -> str:
    if sys.platform == "emscripten":
        try:
            import pyodide  # noqa: F401  (only to read its version)

            return f"Pyodide {pyodide.__version__} (Python {platform.python_version()})"
        except Exception:  # pragma: no cover
            return f"Pyodide (Python {platform.python_version()})"
    return f"{platform.python_implementation()} {platform.python_version()}"


def _register(obj) -> int:
    """Keep ``obj`` under a new handle (``close`` releases it)."""
    h = _next[0]
    _next[0] += 1
    _jobs[h] = obj
    return h


def _job(args: dict):
    h = args.get("handle")
    if h not in _jobs:
        raise bad_input(f"no running job with handle {h!r}", expected="a handle from *.start")
    return _jobs[h]


def _result(args: dict):
    """The finished run of the job under ``args.handle`` (its ``result``)."""
    res = getattr(_job(args), "result", None)
    if res is None:
        raise bad_input("the run has not finished", expected="finish first")
    return res


def _op_inspect(args, text):
    """A file's head (text) -> its format and fields; with ``parquet: {paths, rows,
    row_groups}`` the text is a JSON array of a Parquet file's first rows (read by the
    worker) and the answer adds ``rows`` and ``row_groups``; ``fields`` (optional) are the
    chosen fields for the answer's ``short_check`` (default: the default fields)."""
    pq = args.get("parquet")
    check = list(args.get("fields") or []) or None
    if pq is not None:
        info = {
            **describe_values(
                _values(text),
                list(pq.get("paths") or []),
                check=check,
                name=args.get("name") or "input",
            ),
            "rows": pq.get("rows"),
            "row_groups": pq.get("row_groups"),
        }
    else:
        info = inspect_head(
            args["name"],
            text or "",
            complete=bool(args.get("complete")),
            fmt=args.get("format"),
            check=check,
            skip_bad=bool(args.get("skip_bad_lines")),
        )
    # the id field a training record is named by (record_id.default_id_field), or None
    info = {**info, "default_id_field": default_id_field(info.get("fields") or [])}
    if args.get("role") == "scores" and pq is None:  # the harness filters, with their rows
        from .scores import harness_filters

        info["score_filters"] = harness_filters(text or "")
    return info


def _values(text) -> list:
    """A JSON array of parsed records (a Parquet row group read by the worker)."""
    values = json.loads(text or "[]")
    if not isinstance(values, list):
        raise bad_input("parsed values must be a JSON array", expected="[{...}, ...]")
    return values


def _op_cont_start(args, text):
    ev, tr = args["eval"], args["train"]
    thr = args.get("threshold")
    ex = args.get("exclude_rungs")
    cfg = ContaminationConfig(
        tuple(ev["fields"]),
        tuple(tr["fields"]),
        args.get("n"),
        bool(args.get("boilerplate", True)),
        None if thr in (None, "", "any") else float(thr),
        args.get("clean") or "scored",
        semantic_config_of(args.get("semantic")),
        None if ex is None else tuple(ex),
        skip_bad_lines=bool(args.get("skip_bad_lines")),
        train_id_field=tr.get("id_field") or None,
    )
    job = ContaminationJob(cfg, ev["name"], ev["format"], tr["name"], tr["format"])
    h = _next[0]
    _next[0] += 1
    _jobs[h] = job
    return {"handle": h}


def _op_cont_background(args, text):
    return {"records": _job(args).set_background(text or "")}


def _op_cont_feed_eval(args, text):
    return {"rows": _job(args).feed_eval(text or "")}


def _op_cont_feed_eval_values(args, text):
    return {"rows": _job(args).feed_eval_values(_values(text))}


def _op_cont_end_eval(args, text):
    return _job(args).end_eval()


def _op_cont_feed_train(args, text):
    return {"records": _job(args).feed_train(text or "")}


def _op_cont_train_file(args, text):
    return {
        "records": _job(args).begin_train_file(
            int(args["file"]), args["name"], args["format"], list(args["fields"])
        )
    }


def _op_cont_prefilter_spec(args, text):
    return _job(args).prefilter_spec()


def _op_cont_feed_candidates(args, text):
    return {
        "records": _job(args).feed_train_candidates(
            args["records"],
            args["lines"],
            text or "",
            int(args["records_total"]),
            int(args.get("chars", 0)),
            args.get("offsets"),
        )
    }


def _input(d: dict, role: str, fmt: str) -> InputFile:
    return InputFile(
        role, d.get("name", ""), d.get("sha256", ""), int(d.get("bytes", 0)), d.get("format", fmt)
    )


def _op_cont_finish(args, text):
    job: ContaminationJob = _job(args)
    inputs = args.get("inputs", {})
    ev = inputs.get("eval", {})
    tr = inputs.get("train", {})
    ev.setdefault("name", job.eval_name)
    if isinstance(tr, list):  # a corpus of several training files, in scan order
        train = [_input(t, "train", t.get("format", job.train_format)) for t in tr]
    else:
        tr.setdefault("name", job.train_name)
        train = _input(tr, "train", job.train_format)
    return job.finish(
        _input(ev, "eval", job.eval_format),
        train,
        args.get("utc", ""),
        args.get("assets") or {},
        _runtime(),
        args.get("environment") or {},
    ).summary


def kept_rows_csv(res) -> str:
    """``eval.clean.rows.csv`` for a Parquet eval file: ``eval_row``
    (1-based row of the Parquet file) of every row ``eval.clean.parquet`` keeps, in file
    order (what the page offers when it cannot write the file's types faithfully)."""
    return write_csv(res.run_stamp, ["eval_row"], ([i + 1] for i in res.kept))


def _exports(res) -> list[dict]:
    """Every export of a finished run as ``{name, mime, text}`` (each built once). For a
    Parquet eval file the clean entry is :func:`kept_rows_csv` plus ``kept_rows`` (0-based
    positions, ascending) and ``clean_name`` (``eval.clean.parquet``): the worker writes
    that file from the kept rows (worker/parquet-write.js) and drops the CSV, or keeps the
    CSV when a column's type cannot be written faithfully."""
    out = []
    for name in cont_export_names(res):
        if name == res.clean_name and res.eval_format == "parquet":
            out.append(
                {
                    "name": constants.PARQUET_KEPT_ROWS_NAME,
                    "mime": "text/csv",
                    "text": kept_rows_csv(res),
                    "kept_rows": list(res.kept),
                    "clean_name": name,
                }
            )
            continue
        mime, body = cont_export(res, name)
        out.append({"name": name, "mime": mime, "text": body})
    return out


def _op_cont_exports(args, text):
    return _exports(_result(args))


def _op_cont_view(args, text):
    res = _result(args)
    limit = int(args.get("limit", constants.VIEW_ROWS))  # the page pages with cont.rows: limit 0
    v = {**cont_view(res, limit), "ladder": ladder_view(res, limit)}
    if res.score_run is not None:  # the score impact, every metric (after cont.finish)
        v["score_figures"] = res.score_run.figures
        v["score_settings"] = _score_settings(res.score_run)
    return v


def _op_cont_rows(args, text):
    """One page of the run's rows (cont_table.contamination_source, result_table.query_rows)."""
    return query_rows(contamination_source(_result(args)), args)


def _op_cont_record(args, text):
    """A training record the page read again by its offset (text), parsed and marked."""
    return open_record(_result(args), args["row"], args["file"], args["record"], text or "")


def _score_settings(run) -> dict:
    """What the page prints beside the score figures: the stamp's score settings, the
    scores file, the filters met, the rows of other filters, the score exports' names and,
    once joined, the join's counts."""
    t = run.table
    f = run.file
    out = {
        **run.settings(),
        "file": {"name": f.name, "sha256": f.sha256, "bytes": f.bytes, "format": f.format},
        "filters_seen": list(t.filters_seen),
        "rows_other_filter": t.rows_other_filter,
        "rows_read": len(t.keys),
        "exports": list(constants.SCORE_EXPORTS),
    }
    if run.join is not None:
        out["rows_unmatched"] = len(run.join.unmatched)
        out["rows_unscored"] = len(run.join.unscored)
    return out


def _set_scores(job, args, text) -> dict:
    """Read a whole scores file (args: {handle, name, format, sha256, bytes, metrics?, key?,
    eval_key?, filter?}; text: the file) and attach it to the job (set_scores)."""
    from .scores import score_run_from_json

    run = score_run_from_json(args, text or "")
    job.set_scores(run)
    return _score_settings(run)


def _op_cont_scores(args, text):
    return _set_scores(_job(args), args, text)


def _op_para_scores(args, text):
    return _set_scores(_job(args), args, text)


def _op_cont_semantic_request(args, text):
    """Close the training pass; what the worker embeds: ``{eval_texts, window_texts, pairs,
    figures, scan_seconds}`` (ContaminationJob.semantic_request plus the candidate stage's
    figures and the window scan's own seconds: not in any export, the time varies)."""
    job: ContaminationJob = _job(args)
    req = job.semantic_request()
    return {**req, "figures": job.semantic.figures(), "scan_seconds": job.semantic.scan_seconds}


class _JsKernelMemory:
    """A kernel instance of the page (a JS ``WebAssembly.Instance`` of worker/prefilter.wasm,
    proxied by Pyodide) with :class:`kernel.WasmMemory`'s calls, for
    :class:`semantic_kernel.KernelWindowScan`."""

    def __init__(self, instance):
        import js  # Pyodide's module: this class runs only in the page

        self._u8 = js.Uint8Array
        self.ex = instance.exports
        self.mem = self.ex.memory

    def size(self) -> int:
        return int(self.mem.buffer.byteLength)

    def grow(self, end: int) -> None:
        have = self.size()
        if end > have:
            self.mem.grow((end - have + 65535) // 65536)

    def call(self, name: str, *args: int) -> int:
        r = getattr(self.ex, name)(*args)
        return 0 if r is None else int(r)  # a void export gives undefined

    def write(self, at: int, data: bytes) -> None:
        if data:
            self._u8.new(self.mem.buffer, at, len(data)).assign(data)

    def read(self, at: int, n: int) -> bytes:
        return self._u8.new(self.mem.buffer, at, n).to_bytes() if n else b""

    def zero(self, at: int, n: int) -> None:
        if n:
            self._u8.new(self.mem.buffer, at, n).fill(0)


def _op_cont_semantic_kernel(args, text, instance=None):
    """The semantic rung's window scan in the page's kernel (``instance``: a JS object
    ``{instance: WebAssembly.Instance of worker/prefilter.wasm, clock: () => seconds}``, the
    clock timing the scan for the log; under CPython, a kernel memory as
    :class:`kernel.WasmMemory`), called after ``cont.end_eval`` and before the training pass.
    Returns ``{kernel: bool, why: str | null}``: where the scan runs, and why not in the kernel
    (a code row; no rung)."""
    job = _job(args)
    if job.semantic is None:
        return {"kernel": False, "why": "the semantic rung is off"}
    if instance is None:
        raise bad_input("no kernel instance", expected="a WebAssembly.Instance of prefilter.wasm")
    if hasattr(instance, "zero"):  # a kernel memory already (CPython: the tests)
        memory = instance
    else:
        memory = _JsKernelMemory(instance.instance)
        job.semantic.clock = instance.clock  # the worker's clock: the scan's seconds, logged
    why = job.semantic.use_kernel(memory)
    return {"kernel": why is None, "why": why}


def _op_cont_semantic_cosines(args, text, data=None):
    """The cosine of every requested pair (data: float32[pairs], little-endian, in the
    request's order); runs the verifier. Returns ``{pairs, rows_caught}``."""
    job: ContaminationJob = _job(args)
    cos = unpack_float32(bytes(data or b""), int(args["pairs"]), "cosine")
    job.set_semantic_cosines(cos)
    return {"pairs": len(cos), "rows_caught": sum(1 for m in job.semantic.matches if m.caught)}


def _op_constants(args, text):
    return constants.as_json()


def _op_para_start(args, text):
    ev = args["eval"]
    fields = ev.get("fields") or [ev.get("field")]  # several: embedded together
    cfg = ParaphraseConfig(
        fields[0] if len(fields) == 1 else tuple(fields),
        ev.get("label_field") or None,
        args.get("threshold", constants.PARA_THRESHOLD_DEFAULT),
        args.get("floor", constants.PARA_FLOOR),
        args.get("window", constants.PARA_WINDOW),
        bool(args.get("skip_bad_lines")),
    )
    job = ParaphraseJob(cfg, ev["name"], ev["format"])
    h = _next[0]
    _next[0] += 1
    _jobs[h] = job
    return {"handle": h}


def _op_para_example(args, text):
    from .paraphrase import worked_example_jsonl

    return {"name": "worked-example.jsonl", "text": worked_example_jsonl()}


def _op_para_feed_eval(args, text):
    return {"rows": _job(args).feed_eval(text or "")}


def _op_para_feed_eval_values(args, text):
    return {"rows": _job(args).feed_eval_values(_values(text))}


def _op_para_end_eval(args, text):
    return _job(args).end_eval()


def _threshold(args) -> float:
    """The op's ``threshold`` argument (every paraphrase grouping and export names its own)."""
    if args.get("threshold") is None:
        raise bad_input("no threshold given", expected="args.threshold: a cosine")
    return args["threshold"]


def _op_para_similarity(args, text, data=None):
    job: ParaphraseJob = _job(args)
    (I, J, C, NN, NNI), emb = unpack_similarity(
        bytes(data or b""), int(args["rows"]), int(args["pairs"]), bool(args.get("embeddings"))
    )
    job.set_similarity(
        (I, J, C), NN, NNI, int(args.get("truncated", 0)), emb, args.get("model") or {}
    )
    job.cuts = {int(i): int(at) for i, at in args.get("cuts") or []}  # where windows ended
    return _para_figures(job, _threshold(args))


def _para_figures(job: ParaphraseJob, threshold: float) -> dict:
    """The grouping's figures at ``threshold``; with scores also ``score_figures`` (per
    metric, :meth:`ParaphraseJob.score_figures`) and ``score_settings``."""
    fig = job.group(threshold)
    if job.score_run is not None:
        fig = {
            **fig,
            "score_figures": job.score_figures(threshold),
            "score_settings": _score_settings(job.score_run),
        }
    return fig


def _op_para_group(args, text):
    return _para_figures(_job(args), _threshold(args))


def _op_para_rows(args, text):
    """One page of the pairs or groups at ``args.threshold`` (para_table, query_rows)."""
    return query_rows(para_source(_job(args), args.get("table"), _threshold(args)), args)


def _op_para_finish(args, text):
    """Stamp and every export at ``args.threshold`` (``args.keep``: the row a group keeps in
    eval.deduplicated.*, default "first"): ``{stamp, exports: [{name, mime, text}]}``; for a
    Parquet eval file the deduplicated entry is its rows CSV plus ``kept_rows`` and
    ``clean_name``, from which the worker writes the Parquet file (as for eval.clean)."""
    job: ParaphraseJob = _job(args)
    ev = dict(args.get("input") or {})
    eval_file = (
        _input(ev, "eval", job.eval_format)
        if ev.get("name")
        else InputFile(
            "eval", job.eval_name, ev.get("sha256", ""), int(ev.get("bytes", 0)), job.eval_format
        )
    )
    res = job.finish(
        _threshold(args),
        eval_file,
        args.get("utc", ""),
        args.get("assets") or {},
        _runtime(),
        args.get("environment") or {},
        keep=args.get("keep") or "first",
    )
    exports = []
    for name in para_export_names(res):
        if name == res.dedup_name and res.eval_format == "parquet":  # the worker writes it
            exports.append(
                {
                    "name": "eval.deduplicated.rows.csv",
                    "mime": "text/csv",
                    "text": write_csv(res.run_stamp, ["eval_row"], ([i + 1] for i in res.kept)),
                    "kept_rows": list(res.kept),
                    "clean_name": name,
                }
            )
            continue
        mime, body = para_export(res, name)
        exports.append({"name": name, "mime": mime, "text": body})
    return {"stamp": res.stamp, "exports": exports}


def _op_close(args, text):
    _jobs.pop(args.get("handle"), None)
    return {}


OPS = {
    "constants": _op_constants,
    "inspect": _op_inspect,
    "cont.start": _op_cont_start,
    "cont.background": _op_cont_background,
    "cont.feed_eval": _op_cont_feed_eval,
    "cont.feed_eval_values": _op_cont_feed_eval_values,
    "cont.end_eval": _op_cont_end_eval,
    "cont.feed_train": _op_cont_feed_train,
    "cont.train_file": _op_cont_train_file,
    "cont.prefilter_spec": _op_cont_prefilter_spec,
    "cont.feed_candidates": _op_cont_feed_candidates,
    "cont.finish": _op_cont_finish,
    "cont.exports": _op_cont_exports,
    "cont.view": _op_cont_view,
    "cont.rows": _op_cont_rows,
    "cont.record": _op_cont_record,
    "cont.scores": _op_cont_scores,
    "cont.semantic_request": _op_cont_semantic_request,
    "cont.semantic_cosines": _op_cont_semantic_cosines,
    "cont.semantic_kernel": _op_cont_semantic_kernel,
    "para.start": _op_para_start,
    "para.example": _op_para_example,
    "para.scores": _op_para_scores,
    "para.feed_eval": _op_para_feed_eval,
    "para.feed_eval_values": _op_para_feed_eval_values,
    "para.end_eval": _op_para_end_eval,
    "para.similarity": _op_para_similarity,
    "para.group": _op_para_group,
    "para.rows": _op_para_rows,
    "para.finish": _op_para_finish,
    "close": _op_close,
}
# purify in the page (purify_page.py): purify.begin, .plan, .feed, .end, .check, .finish
OPS.update(_purify_ops(_job, _register, _runtime))

_WITH_DATA = {"para.similarity", "cont.semantic_cosines", "purify.feed"}
_WITH_OBJECT = {"cont.semantic_kernel"}  # data is a JS object, passed as it is


def call(op: str, args_json: str = "{}", text: str | None = None, data=None) -> str:
    """Run one bridge op.

    Args:
        op: a key of ``OPS``.
        args_json: the op's arguments as a JSON object.
        text: bulk text (a chunk of a file), or None.
        data: bulk binary (``bytes``, or in Pyodide a JS ``Uint8Array`` proxy, copied with
            ``to_bytes()``, released here), or None.
    Returns:
        JSON text: ``{"ok": true, "value": ...}`` or ``{"ok": false, "error": {...}}``.
    """
    try:
        fn = OPS.get(op)
        if fn is None:
            raise EvalsieveError("internal", f"unknown bridge op {op!r}", expected=", ".join(OPS))
        args = json.loads(args_json) if args_json else {}
        if op in _WITH_DATA:
            if data is not None and hasattr(data, "to_bytes"):  # a Pyodide JsProxy
                proxy = data
                data = proxy.to_bytes()
                # Pyodide 314's JsProxy of a Uint8Array has no destroy() (it is released when
                # Python drops it); call it only where a runtime offers one.
                release = getattr(proxy, "destroy", None)
                if callable(release):
                    release()
                del proxy
        if op in _WITH_DATA or op in _WITH_OBJECT:
            value = fn(args, text, data)
        else:
            value = fn(args, text)
        return json.dumps({"ok": True, "value": value}, ensure_ascii=False)
    except EvalsieveError as e:
        return json.dumps({"ok": False, "error": e.to_dict()}, ensure_ascii=False)
    except Exception as e:  # a bug: say so, with the traceback for the event log
        err = {
            "code": "internal",
            "message": f"{type(e).__name__}: {e}",
            "file": None,
            "line": None,
            "expected": None,
            "detail": traceback.format_exc(limit=8),
            "text": f"internal error: {type(e).__name__}: {e}",
        }
        return json.dumps({"ok": False, "error": err}, ensure_ascii=False)
