"""The page's door into Python: JSON strings in, JSON strings out.

The worker calls ``call(op, args_json, text)`` for every step (see docs/ARCHITECTURE.md for
the ops). Nothing here holds a JS proxy: arguments arrive as JSON text (plus one bulk text
chunk), answers leave as JSON text, so no proxy object crosses the boundary and nothing
needs destroying. The module imports nothing Pyodide-specific and is tested under CPython.

Every answer is ``{"ok": true, "value": ...}`` or ``{"ok": false, "error": {code, message,
file, line, expected, detail, text}}``; an unexpected exception becomes code ``internal``.
"""

from __future__ import annotations

import json
import platform
import sys
import traceback

from array import array

from . import constants
from .contamination import ContaminationConfig, ContaminationJob
from .paraphrase import DIM, ParaphraseConfig, ParaphraseJob
from .errors import EvalsieveError, bad_input
from .sample import inspect_head
from .stamps import InputFile

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


def _job(args: dict):
    h = args.get("handle")
    if h not in _jobs:
        raise bad_input(f"no running job with handle {h!r}", expected="a handle from *.start")
    return _jobs[h]


def _op_inspect(args, text):
    return inspect_head(args["name"], text or "", complete=bool(args.get("complete")),
                        fmt=args.get("format"))


def _op_cont_start(args, text):
    ev, tr = args["eval"], args["train"]
    thr = args.get("threshold")
    cfg = ContaminationConfig(tuple(ev["fields"]), tuple(tr["fields"]), args.get("n"),
                              bool(args.get("boilerplate", True)),
                              None if thr in (None, "", "any") else float(thr),
                              args.get("clean") or "scored")
    job = ContaminationJob(cfg, ev["name"], ev["format"], tr["name"], tr["format"])
    h = _next[0]
    _next[0] += 1
    _jobs[h] = job
    return {"handle": h}


def _op_cont_background(args, text):
    return {"records": _job(args).set_background(text or "")}


def _op_cont_feed_eval(args, text):
    return {"rows": _job(args).feed_eval(text or "")}


def _op_cont_end_eval(args, text):
    return _job(args).end_eval()


def _op_cont_feed_train(args, text):
    return {"records": _job(args).feed_train(text or "")}


def _op_cont_train_file(args, text):
    return {"records": _job(args).begin_train_file(int(args["file"]), args["name"],
                                                   args["format"], list(args["fields"]))}


def _op_cont_prefilter_spec(args, text):
    return _job(args).prefilter_spec()


def _op_cont_feed_candidates(args, text):
    return {"records": _job(args).feed_train_candidates(
        args["records"], args["lines"], text or "", int(args["records_total"]),
        int(args.get("chars", 0)))}


def _input(d: dict, role: str, fmt: str) -> InputFile:
    return InputFile(role, d.get("name", ""), d.get("sha256", ""), int(d.get("bytes", 0)),
                     d.get("format", fmt))


def _op_cont_finish(args, text):
    job: ContaminationJob = _job(args)
    inputs = args.get("inputs", {})
    ev = inputs.get("eval", {})
    tr = inputs.get("train", {})
    ev.setdefault("name", job.eval_name)
    if isinstance(tr, list):   # a corpus of several training files, in scan order
        train = [_input(t, "train", t.get("format", job.train_format)) for t in tr]
    else:
        tr.setdefault("name", job.train_name)
        train = _input(tr, "train", job.train_format)
    return job.finish(_input(ev, "eval", job.eval_format), train,
                      args.get("utc", ""), args.get("assets") or {}, _runtime(),
                      args.get("environment") or {})


def _exports(job) -> list[dict]:
    """Every export of a finished job as ``{name, mime, text}`` (each built once)."""
    out = []
    for name in job.export_names():
        mime, body = job.export(name)
        out.append({"name": name, "mime": mime, "text": body})
    return out


def _op_cont_exports(args, text):
    job = _job(args)
    return _exports(job)


def _op_cont_view(args, text):
    return _job(args).view()


def _op_constants(args, text):
    return constants.as_json()


def _op_para_start(args, text):
    ev = args["eval"]
    cfg = ParaphraseConfig(ev["field"], ev.get("label_field") or None,
                           float(args.get("threshold", constants.PARA_THRESHOLD_DEFAULT)),
                           float(args.get("floor", constants.PARA_FLOOR)),
                           int(args.get("window", constants.PARA_WINDOW)))
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


def _op_para_end_eval(args, text):
    return _job(args).end_eval()


def unpack_similarity(data: bytes, rows: int, pairs: int, with_embeddings: bool):
    """Split the worker's binary similarity block (little-endian, in this order):
    I int32[pairs], J int32[pairs], C float32[pairs], NN float32[rows], NNI int32[rows],
    then, if ``with_embeddings``, EMB float32[rows × 384] (row-major unit vectors).

    Raises:
        EvalsieveError(internal): the block's size does not match.
    """
    want = 12 * pairs + 8 * rows + (4 * DIM * rows if with_embeddings else 0)
    if len(data) != want:
        raise EvalsieveError("internal", f"similarity block of {len(data)} bytes, "
                             f"expected {want}")
    parts = []
    off = 0
    for code, count in (("i", pairs), ("i", pairs), ("f", pairs), ("f", rows), ("i", rows)):
        a = array(code)
        a.frombytes(data[off:off + 4 * count])
        if sys.byteorder != "little":  # pragma: no cover
            a.byteswap()
        parts.append(a)
        off += 4 * count
    emb = None
    if with_embeddings:
        emb = array("f")
        emb.frombytes(data[off:])
    return parts, emb


def _threshold(args) -> float:
    """The op's ``threshold`` argument (every paraphrase grouping and export names its own)."""
    if args.get("threshold") is None:
        raise bad_input("no threshold given", expected="args.threshold: a cosine")
    return args["threshold"]


def _op_para_similarity(args, text, data=None):
    job: ParaphraseJob = _job(args)
    (I, J, C, NN, NNI), emb = unpack_similarity(bytes(data or b""), int(args["rows"]),
                                               int(args["pairs"]), bool(args.get("embeddings")))
    job.set_similarity((I, J, C), NN, NNI, int(args.get("truncated", 0)), emb,
                       args.get("model") or {})
    return job.group(_threshold(args))


def _op_para_group(args, text):
    return _job(args).group(_threshold(args))


def _op_para_finish(args, text):
    """Stamp and every export at ``args.threshold``: ``{stamp, exports: [{name, mime,
    text}]}``."""
    job: ParaphraseJob = _job(args)
    ev = dict(args.get("input") or {})
    eval_file = (_input(ev, "eval", job.eval_format) if ev.get("name") else
                 InputFile("eval", job.eval_name, ev.get("sha256", ""), int(ev.get("bytes", 0)),
                           job.eval_format))
    stamp = job.stamp(_threshold(args), eval_file, args.get("utc", ""),
                      args.get("assets") or {}, _runtime(), args.get("environment") or {})
    exports = []
    for name in job.export_names():
        mime, body = job.export(name, stamp)
        exports.append({"name": name, "mime": mime, "text": body})
    return {"stamp": stamp.to_dict(), "exports": exports}


def _op_close(args, text):
    _jobs.pop(args.get("handle"), None)
    return {}


OPS = {
    "constants": _op_constants,
    "inspect": _op_inspect,
    "cont.start": _op_cont_start,
    "cont.background": _op_cont_background,
    "cont.feed_eval": _op_cont_feed_eval,
    "cont.end_eval": _op_cont_end_eval,
    "cont.feed_train": _op_cont_feed_train,
    "cont.train_file": _op_cont_train_file,
    "cont.prefilter_spec": _op_cont_prefilter_spec,
    "cont.feed_candidates": _op_cont_feed_candidates,
    "cont.finish": _op_cont_finish,
    "cont.exports": _op_cont_exports,
    "cont.view": _op_cont_view,
    "para.start": _op_para_start,
    "para.example": _op_para_example,
    "para.feed_eval": _op_para_feed_eval,
    "para.end_eval": _op_para_end_eval,
    "para.similarity": _op_para_similarity,
    "para.group": _op_para_group,
    "para.finish": _op_para_finish,
    "close": _op_close,
}

_WITH_DATA = {"para.similarity"}


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
            raise EvalsieveError("internal", f"unknown bridge op {op!r}",
                                 expected=", ".join(OPS))
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
            value = fn(args, text, data)
        else:
            value = fn(args, text)
        return json.dumps({"ok": True, "value": value}, ensure_ascii=False)
    except EvalsieveError as e:
        return json.dumps({"ok": False, "error": e.to_dict()}, ensure_ascii=False)
    except Exception as e:  # a bug: say so, with the traceback for the event log
        err = {"code": "internal", "message": f"{type(e).__name__}: {e}", "file": None,
               "line": None, "expected": None, "detail": traceback.format_exc(limit=8),
               "text": f"internal error: {type(e).__name__}: {e}"}
        return json.dumps({"ok": False, "error": err}, ensure_ascii=False)
