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

from .contamination import ContaminationConfig, ContaminationJob
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
                              None if thr in (None, "", "any") else float(thr))
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


def _input(d: dict, role: str, fmt: str) -> InputFile:
    return InputFile(role, d.get("name", ""), d.get("sha256", ""), int(d.get("bytes", 0)),
                     d.get("format", fmt))


def _op_cont_finish(args, text):
    job: ContaminationJob = _job(args)
    inputs = args.get("inputs", {})
    ev = inputs.get("eval", {})
    tr = inputs.get("train", {})
    ev.setdefault("name", job.eval_name)
    tr.setdefault("name", job.train_name)
    return job.finish(_input(ev, "eval", job.eval_format), _input(tr, "train", job.train_format),
                      args.get("utc", ""), args.get("assets") or {}, _runtime())


def _op_cont_export(args, text):
    job = _job(args)
    mime, body = job.export(args["name"])
    return {"name": args["name"], "mime": mime, "text": body}


def _op_cont_exports(args, text):
    job = _job(args)
    return [{"name": n, "mime": job.export(n)[0], "text": job.export(n)[1]}
            for n in job.export_names()]


def _op_close(args, text):
    _jobs.pop(args.get("handle"), None)
    return {}


OPS = {
    "inspect": _op_inspect,
    "cont.start": _op_cont_start,
    "cont.background": _op_cont_background,
    "cont.feed_eval": _op_cont_feed_eval,
    "cont.end_eval": _op_cont_end_eval,
    "cont.feed_train": _op_cont_feed_train,
    "cont.finish": _op_cont_finish,
    "cont.export": _op_cont_export,
    "cont.exports": _op_cont_exports,
    "close": _op_close,
}


def call(op: str, args_json: str = "{}", text: str | None = None) -> str:
    """Run one bridge op.

    Args:
        op: a key of ``OPS``.
        args_json: the op's arguments as a JSON object.
        text: bulk text (a chunk of a file), or None.
    Returns:
        JSON text: ``{"ok": true, "value": ...}`` or ``{"ok": false, "error": {...}}``.
    """
    try:
        fn = OPS.get(op)
        if fn is None:
            raise EvalsieveError("internal", f"unknown bridge op {op!r}",
                                 expected=", ".join(OPS))
        args = json.loads(args_json) if args_json else {}
        value = fn(args, text)
        return json.dumps({"ok": True, "value": value}, ensure_ascii=False)
    except EvalsieveError as e:
        return json.dumps({"ok": False, "error": e.to_dict()}, ensure_ascii=False)
    except Exception as e:  # a bug: say so, with the traceback for the event log
        err = {"code": "internal", "message": f"{type(e).__name__}: {e}", "file": None,
               "line": None, "expected": None, "detail": traceback.format_exc(limit=8),
               "text": f"internal error: {type(e).__name__}: {e}"}
        return json.dumps({"ok": False, "error": err}, ensure_ascii=False)
