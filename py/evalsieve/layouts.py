"""Which files a folder holds: the directory walk of TRAIN arguments (and of an EVAL
folder), with the layouts of Hugging Face datasets read as their data files.

Layouts read here (tests/py/test_hf_layouts.py builds each with pyarrow):

* ``save_to_disk``: ``dataset_dict.json`` and one folder per split holding
  ``data-00000-of-0000N.arrow``, ``dataset_info.json`` and ``state.json`` (one split:
  the folder itself);
* the ``datasets`` cache (``~/.cache/huggingface/datasets/<name>/<config>/<version>/<hash>``):
  ``dataset_info.json``, ``<name>-<split>.arrow`` or ``<name>-<split>-0000K-of-0000N.arrow``,
  ``cache-<fingerprint>.arrow`` (map/filter results), ``*.incomplete`` build folders;
* a hub repository (``push_to_hub``, ``snapshot_download``): ``README.md``,
  ``.gitattributes``, ``data/<split>-0000K-of-0000N.parquet`` (or ``<config>/...``), in
  older ones ``dataset_infos.json``; ``.cache/huggingface/`` of a ``local_dir`` download;
* the hub cache (``~/.cache/huggingface/hub/datasets--<org>--<name>``): ``blobs/``,
  ``refs/main``, ``snapshots/<revision>/...``.

Standard library only (the Arrow shards are read by arrow_io with pyarrow).
"""

from __future__ import annotations

import glob as globmod
import os

from .errors import bad_input

_GLOB = set("*?[")


def is_url(path: str) -> bool:
    """True for ``scheme://...`` (read through fsspec), False for a local path."""
    head, sep, _ = path.partition("://")
    return bool(sep) and head.isalnum() and len(head) > 1


SUPPORTED = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".tab", ".txt", ".parquet")
#: A directory walk also takes Arrow IPC shards (a datasets cache or save_to_disk folder;
#: arrow_io, CLI only: the page does not read them).
ARROW_EXT = ".arrow"
#: Files of a Hugging Face dataset folder that describe it and hold no rows: save_to_disk's
#: dataset_dict.json, state.json and dataset_info.json, the datasets cache's
#: dataset_info.json, a hub repository's dataset_infos.json. A directory walk skips them and
#: says so (README.md and .gitattributes are not data by their names anyway).
HF_METADATA = ("dataset_info.json", "dataset_infos.json", "dataset_dict.json", "state.json")


def supported(name: str) -> bool:
    """True for the extensions a directory walk takes (``.gz`` of them too)."""
    low = name.lower()
    if low.endswith(".gz"):
        low = low[:-3]
    return low.endswith(SUPPORTED)


def _skip_reason(name: str) -> str | None:
    """Why a directory walk leaves out a file it would otherwise read, or None."""
    low = name.lower()
    if name in HF_METADATA:
        return "datasets metadata"
    if name.startswith("."):
        return "hidden"
    if low.startswith("cache-") and low.endswith(ARROW_EXT):
        return "a datasets cache of a map or filter result: rows already in the dataset's files"
    return None


def _hub_snapshot(arg: str) -> str | None:
    """For a Hugging Face hub cache folder (``datasets--org--name`` holding ``blobs``,
    ``refs`` and ``snapshots``): the snapshot ``refs/main`` names (or the only one); else
    None.

    Raises:
        EvalsieveError(bad_input): several snapshots and no ``refs/main`` naming one.
    """
    snaps = os.path.join(arg, "snapshots")
    if not (os.path.isdir(snaps) and os.path.isdir(os.path.join(arg, "refs"))):
        return None
    ref = os.path.join(arg, "refs", "main")
    if os.path.isfile(ref):
        with open(ref, encoding="utf-8") as f:
            rev = f.read().strip()
        if os.path.isdir(os.path.join(snaps, rev)):
            return os.path.join(snaps, rev)
    revs = sorted(os.listdir(snaps))
    if len(revs) == 1:
        return os.path.join(snaps, revs[0])
    raise bad_input(
        f"a Hugging Face hub cache folder with {len(revs)} snapshots and no refs/main naming one",
        file=arg,
        expected="one snapshot folder: " + ", ".join(os.path.join(snaps, r) for r in revs[:5]),
    )


def walk_directory(arg: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The data files below a directory, and the files and folders it leaves out.

    A file is read when its extension is supported (:data:`SUPPORTED`, also ``.gz``) or is
    ``.arrow`` (:data:`ARROW_EXT`). Left out, with the reason: Hugging Face metadata
    (:data:`HF_METADATA`), hidden files and folders (``.cache/huggingface`` of a hub
    download, ``.git``), ``cache-*.arrow`` (a datasets cache's map/filter results),
    ``*.incomplete`` folders (an unfinished datasets build). A hub cache folder
    (``datasets--org--name``) is read as its current snapshot (:func:`_hub_snapshot`).

    Returns:
        ``(files, skipped)``: the files' paths sorted; ``(path relative to arg, reason)`` of
        what was left out that would otherwise have been read.
    """
    top = _hub_snapshot(arg) or arg
    found: list[str] = []
    skipped: list[tuple[str, str]] = []

    def rel(p: str) -> str:
        return "/".join(os.path.relpath(p, arg).split(os.sep))

    for root, dirs, files in os.walk(top):
        keep = []
        for d in sorted(dirs):
            if d.startswith(".") or d.endswith(".incomplete"):
                skipped.append(
                    (
                        rel(os.path.join(root, d)) + "/",
                        "hidden" if d.startswith(".") else "an unfinished datasets build",
                    )
                )
            else:
                keep.append(d)
        dirs[:] = keep
        for f in files:
            if not (supported(f) or f.lower().endswith(ARROW_EXT)):
                continue
            why = _skip_reason(f)
            if why:
                skipped.append((rel(os.path.join(root, f)), why))
            else:
                found.append(os.path.join(root, f))
    return sorted(found), sorted(skipped)


def listing(items: list[tuple[str, str]], most: int = 8) -> str:
    """``a (why), b (why) and 3 more``: paths with their reasons, one reason said once for
    a run of paths that share it."""
    parts: list[str] = []
    for i, (p, why) in enumerate(items[:most]):
        nxt = items[i + 1][1] if i + 1 < min(len(items), most) else None
        parts.append(p + (f" ({why})" if why and why != nxt else ""))
    more = len(items) - most
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


def eval_input(arg: str, notes: list[str] | None = None) -> tuple[str, str]:
    """The eval file an EVAL argument names: the file, or the one data file of a folder
    (a Hugging Face dataset folder of one split, say), as ``(path, name)``.

    Raises:
        EvalsieveError(bad_input): a folder with no data file or with several (listed).
    """
    if not os.path.isdir(arg):
        return arg, os.path.basename(arg.rstrip("/"))
    found, skipped = walk_directory(arg)
    if len(found) != 1:
        rels = [("/".join(os.path.relpath(p, arg).split(os.sep)), "") for p in found]
        raise bad_input(
            f"the eval folder holds {len(found)} data files"
            + (f" ({listing(rels)})" if found else ""),
            file=arg,
            expected="one eval file: name the split's file (the training side may be a folder)",
        )
    if skipped and notes is not None:
        notes.append(
            f"{arg}: reading {os.path.relpath(found[0], arg)}; left out: {listing(skipped)}"
        )
    return found[0], os.path.basename(found[0])


def expand_inputs(args: list[str], notes: list[str] | None = None) -> list[tuple[str, str]]:
    """The training files named by TRAIN arguments, in a fixed order, with their names.

    Each argument is a file (taken whatever its extension), a directory (every file below
    it with a supported extension: ``.jsonl .ndjson .json .csv .tsv .tab .txt``, each
    optionally ``.gz``, ``.parquet`` or ``.arrow``; sorted by path; see
    :func:`walk_directory` for what a Hugging Face dataset folder skips), or a glob
    (``data/train-*.jsonl.gz``, ``**`` recursive; sorted). URLs (``s3://``, ``gs://``,
    ``hf://``, ``https://``) go through fsspec the same way. A file named twice is read
    once, at its first place.

    Names (what the report's ``training_file`` and the stamp show): a file argument's base
    name (as the page names a dropped file); under a directory ``D``, ``basename(D)/relative
    path`` (as the page names the files of a dropped folder); for a glob, the path below its
    fixed leading directories; a URL as given. Names that would collide are replaced by the
    full paths.

    Args:
        args: the TRAIN arguments.
        notes: when given, a line is appended for each directory that skipped files (which
            files were read and which were skipped, and why), for the log.
    Returns:
        ``[(path or URL, name)]`` in corpus order (arguments in order, sorted within one).
    Raises:
        EvalsieveError(bad_input): an argument names nothing, or a directory holds no
        supported file.
    """
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for arg in args:
        if is_url(arg):
            from .corpus import _expand_url  # fsspec, lazily

            found = _expand_url(arg)
        else:
            found = _expand_local(arg, notes)
        for f, name in found:
            key = f if is_url(f) else os.path.normpath(os.path.abspath(f))
            if key not in seen:
                seen.add(key)
                out.append((f, name))
    names = [n for _, n in out]
    if len(set(names)) < len(names):
        dup = {n for n in names if names.count(n) > 1}
        out = [(f, f if n in dup else n) for f, n in out]
    return out


def _glob_root(pattern: str) -> str:
    """The leading directories of a glob that hold no wildcard."""
    parts = pattern.replace(os.sep, "/").split("/")
    keep = []
    for p in parts[:-1]:
        if _GLOB & set(p):
            break
        keep.append(p)
    return "/".join(keep)


def _expand_local(arg: str, notes: list[str] | None = None) -> list[tuple[str, str]]:
    if os.path.isdir(arg):
        found, skipped = walk_directory(arg)
        top = os.path.basename(os.path.normpath(arg))
        if not found:
            raise bad_input(
                "the directory holds no training file"
                + (f" (left out: {listing(skipped)})" if skipped else ""),
                file=arg,
                expected="files ending " + " ".join(SUPPORTED) + " (or .gz), or .arrow",
            )
        named = [(p, "/".join([top] + os.path.relpath(p, arg).split(os.sep))) for p in found]
        if skipped and notes is not None:
            notes.append(
                f"{arg}: reading {len(found)} data file{'s' * (len(found) != 1)} "
                f"({listing([(n.split('/', 1)[1], '') for _, n in named])}); "
                f"left out: {listing(skipped)}"
            )
        return named
    if _GLOB & set(arg):
        found = sorted(p for p in globmod.glob(arg, recursive=True) if os.path.isfile(p))
        if not found:
            raise bad_input(
                "the pattern matches no file",
                file=arg,
                expected="a glob such as data/train-*.jsonl.gz",
            )
        root = _glob_root(arg) or "."
        return [(p, "/".join(os.path.relpath(p, root).split(os.sep))) for p in found]
    if not os.path.isfile(arg):
        raise bad_input("no such file", file=arg, expected="a readable file")
    return [(arg, os.path.basename(arg))]
