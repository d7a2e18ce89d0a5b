"""The Python API: both jobs on paths or in-memory tables, for notebooks and scripts.

    import evalsieve
    res = evalsieve.contamination(eval_df, "train/*.jsonl.gz", eval_fields=["question"])
    res.summary["rows_contaminated"], res.to_pandas(), res.clean_rows(), res.write("out")

Inputs (:func:`inputs.input_paths`): a path, several paths or globs (training side), a
pandas or polars DataFrame, a pyarrow Table, a Hugging Face ``Dataset`` or
``IterableDataset``, or any iterable of dicts. An in-memory input is written as JSON Lines
to a temporary folder (``eval.jsonl``, ``train.jsonl``: the names and hashes the stamp
records) and read by the same driver as the CLI's (:mod:`evalsieve.drivers`), so the
exports are the CLI's for the same files.

Settings are the CLI's options by their argparse names (``n``, ``threshold``, ``workers``,
``engine``, ``filter``, ``clean``, ``semantic``, ``scores``, ...; see ``evalsieve
contamination --help``), checked by the CLI's own parser types. Every library is imported
lazily: this module needs only the standard library.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile

from .inputs import input_paths
from .results import ContaminationResult, ParaphraseResult

__all__ = ["contamination", "paraphrases"]


def _silent(msg: str) -> None:
    pass


def _namespace(command: str, positional: list[str], settings: dict) -> argparse.Namespace:
    """The CLI's parsed args for ``command`` with ``settings`` applied (checked with the
    parser's own types and choices).

    Raises:
        TypeError: a setting the command does not have.
        ValueError: a value its option refuses (the parser's message).
    """
    from .cli import build_parser

    parser = build_parser()
    args = parser.parse_args([command, *positional, "--out", "."])
    sub = parser._subparsers._group_actions[0].choices[command]
    actions = {a.dest: a for a in sub._actions}
    internal = {"out", "json", "quiet", "command", "eval", "train", "fail_on_contamination"}
    for key, value in settings.items():
        if key in internal or key not in actions:
            known = sorted(k for k in actions if k not in internal and k != "help")
            raise TypeError(
                f"{command}() got an unknown setting {key!r}; the settings are: " + ", ".join(known)
            )
        act = actions[key]
        many = isinstance(act, argparse._AppendAction)  # --score-field F (repeatable)
        if value is not None and many and isinstance(value, str):
            value = [value]
        if value is not None and not many and isinstance(value, (list, tuple)):
            value = ",".join(map(str, value))  # a LIST option (--exclude-rungs a,b)
        if value is not None and act.type is not None:
            try:
                value = (
                    [act.type(str(v)) for v in value]
                    if many
                    else act.type(value if isinstance(value, str) else str(value))
                )
            except (argparse.ArgumentTypeError, ValueError) as e:
                raise ValueError(f"{key}={value!r}: {e}") from None
        if value is not None and act.choices is not None:
            bad = [
                v for v in (value if isinstance(value, list) else [value]) if v not in act.choices
            ]
            if bad:
                raise ValueError(
                    f"{key}={value!r}: choose from " + ", ".join(map(str, act.choices))
                )
        setattr(args, key, value)
    return args


def _fields(given):
    if given is None:
        return None
    return [given] if isinstance(given, str) else list(given)


def contamination(
    eval,
    train,
    *,
    eval_fields=None,
    train_fields=None,
    progress=None,
    cancel=None,
    log=None,
    **settings,
) -> ContaminationResult:
    """Run the contamination ladder of ``eval`` against ``train``.

    Args:
        eval: the eval set (one input; see the module docstring).
        train: the training side: a path, a glob, a list of them, or one in-memory input.
        eval_fields, train_fields: field paths (a name or a list; default: chosen as the CLI
            chooses them, ``--eval-field``/``--train-field``).
        progress: ``progress(stage, done, total)``; stages "eval" (rows), "train" (bytes
            read), "semantic" (0 or 1 of 1).
        cancel: anything with ``is_set()`` (``threading.Event``): when set, the run stops
            with ``EvalsieveError(cancelled)`` at the next block (one worker) or task;
            the semantic rung's pass within a block or a quarter second (docs/API.md).
        log: ``log(message)`` for the CLI's progress lines (default: none).
        settings: the CLI's options, e.g. ``n=8``, ``threshold=0.5``, ``workers=4``,
            ``engine="ray"``, ``semantic=True``, ``clean="not-contaminated"``.

    Returns:
        a :class:`results.ContaminationResult`.

    Raises:
        EvalsieveError: as the CLI (bad input named by file and line, a missing extra,
        cancelled). TypeError/ValueError: an unknown setting or a refused value.
    """
    with tempfile.TemporaryDirectory(prefix="evalsieve-api-") as tmp:
        ev_paths, ev_rows = input_paths(eval, "eval", tmp)
        if len(ev_paths) != 1:
            raise ValueError(f"eval is one input, not {len(ev_paths)} paths")
        tr_paths, _ = input_paths(train, "train", tmp)
        args = _namespace("contamination", [ev_paths[0], *tr_paths], settings)
        args.eval_field = _fields(eval_fields)
        args.train_field = _fields(train_fields)
        args.progress, args.cancel = progress, cancel
        from .drivers import contamination_run

        res, files = contamination_run(args, log or _silent)
        # a Parquet clean file is written from the eval file: keep it as bytes
        return dataclasses.replace(
            res,
            files={k: _materialise(v, tmp, k) for k, v in files.items()},
            source=eval,
            source_rows=ev_rows,
            source_kind=_kind(eval, ev_rows),
        )


def paraphrases(
    rows, *, field=None, progress=None, cancel=None, log=None, **settings
) -> ParaphraseResult:
    """Group the paraphrases inside one eval set (needs the encoder extra:
    ``pip install 'evalsieve[encoder]'``).

    Args:
        rows: the eval set (one input; see the module docstring).
        field: the text field (default: chosen as the CLI chooses it, ``--field``).
        progress, cancel, log: as :func:`contamination`; stages "embed" (rows).
        settings: the CLI's options, e.g. ``threshold=0.9``, ``label_field="id"``,
            ``model_dir=...``, ``scores=...``.

    Returns:
        a :class:`results.ParaphraseResult`.

    Raises:
        EvalsieveError: as the CLI (asset_load_failed without the encoder extra).
    """
    with tempfile.TemporaryDirectory(prefix="evalsieve-api-") as tmp:
        paths, _ = input_paths(rows, "eval", tmp)
        if len(paths) != 1:
            raise ValueError(f"rows is one input, not {len(paths)} paths")
        args = _namespace("paraphrases", [paths[0]], settings)
        args.field = field
        args.progress, args.cancel = progress, cancel
        from .drivers import paraphrase_run

        res, files = paraphrase_run(args, log or _silent)
        return dataclasses.replace(
            res, files={k: _materialise(v, tmp, k) for k, v in files.items()}
        )


def _materialise(export, tmp: str, name: str):
    if not callable(export):
        return export
    import os

    path = os.path.join(tmp, "out-" + name)
    export(path)
    with open(path, "rb") as f:
        return f.read()


def _kind(obj, rows) -> str:
    from .inputs import kind_of

    return "path" if rows is None else kind_of(obj)
