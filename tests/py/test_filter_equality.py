"""Property: a candidate filter, the worker count and the engine cost time, never results.

Random corpora from a seeded generator (:func:`make_case`): eval rows (long, short, empty,
duplicated, split over two eval fields, Unicode: non-Latin scripts, combining marks,
characters NFKC rewrites, punctuation the rule deletes) and training data holding their
copies in the ways that have fooled filters: the words of a row split over two training
fields (in either key order, a number leaf first), over two user turns of a chat, a row
inside a longer record, a one-word record, a text file's lines, JSON escapes, duplicated
records. Every setting must give the exports of ``--filter off --workers 1``:

* the CLI with ``--filter kernel`` (the scan kernel under wasmtime, when installed) and
  ``--filter numpy``, and the filters with ``--workers 2`` over byte ranges;
* the page's path: ``ContaminationJob.feed_train_candidates`` fed by worker/prefilter.js
  and by the WebAssembly kernel (tests/py/prefilter_runner.mjs, under Node);
* Ray (once, on a few corpora), and the hostile corpus (tests/hostile/corpus) as training
  data through the filters.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import evalsieve.contamination_exports as cx
from evalsieve import corpus
from evalsieve.cli import main
from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
from evalsieve.errors import EvalsieveError
from evalsieve.kernel import unavailable
from evalsieve.record_id import default_id_field
from evalsieve.sample import inspect_head
from evalsieve.stamps import InputFile

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "hostile"))


def read_csv_export(text: str):
    """hostile_common.read_csv_export (imported here: Pyodide's run holds tests/py only, and
    skips this module before any test needs it)."""
    from hostile_common import read_csv_export as read

    return read(text)


NODE = shutil.which("node")
needs_processes = pytest.mark.skipif(
    sys.platform == "emscripten", reason="no processes in Pyodide (CLI pools, Node)"
)
pytestmark = needs_processes

# words every filter reads itself (ASCII, and characters of text.char_table: Latin, Cyrillic,
# CJK; punctuation the rule deletes), and words that make a filter pass the record to Python
# whatever it holds (characters outside the table, NFKC rewrites of several characters, a
# combining mark, a character beyond U+FFFF, an escaped backslash): a row of the first kind
# only is where a filter can drop a copy
PLAIN = [
    "alpha",
    "Beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "theta",
    "kappa",
    "lambda",
    "sigma",
    "omega",
    "river",
    "stone",
    "lamp",
    "harbour",
    "winter",
    "copper",
    "garden",
    "café",
    "naïve",
    "Straße",
    "日本語",
    "中文",
    "Привет",
    "İstanbul",
    "don't",
    "state-of-the-art",
    "“quoted”",
    "$5",
    "x1",
    "tab\there",
    "ß",
    "학교",
    "كتاب",
    "किताब",
    "ДОМ",
]  # Hangul, Arabic, Devanagari: the kernel's hot loop
ODD = [
    "ΣΟΦΙΑ",
    "Σοφία",
    "שלום",
    "مرحبا",
    "ﬁnal",
    "Ｆｕｌｌ",
    "①",
    "e\u0301clair",
    "😀",
    "back\\slash",
    "가\u11a8",
    "क\u093c",
    "كِتَّاب",
]  # joined by NFKC; harakat
EVAL_FIELDS = ["q", "extra"]
#: Two corpora per case: records with fields a and b plus a text file, and a chat file (alone:
#: a corpus of several files uses only the plain paths each file's head shows).
RUNS = {
    "fields": (["train.jsonl", "notes.txt"], ["a", "b", "text"]),
    "chat": (["chat.jsonl"], ["messages[role=user].content"]),
}
FORMATS = {"train.jsonl": "jsonl", "chat.jsonl": "jsonl", "notes.txt": "text"}


def _words(rng: random.Random, k: int, odd: float = 0.0) -> list[str]:
    return [rng.choice(ODD if rng.random() < odd else PLAIN) for _ in range(k)]


def _noisy(rng: random.Random, words: list[str]) -> str:
    """The words as a training file may hold them: case changed, punctuation added (the
    rule lowercases and deletes punctuation, so the normalised words stay the same)."""
    out = []
    for w in words:
        r = rng.random()
        out.append(
            w.upper()
            if r < 0.15 and w.isascii()
            else w + rng.choice([",", "?", "!", ".", ";"])
            if r < 0.3
            else w
        )
    return (" " if rng.random() < 0.8 else "  ").join(out)


def make_case(seed: int) -> dict:
    """One random corpus: {eval (bytes), train {name: bytes}, n}."""
    rng = random.Random(seed)
    rows: list[list[str]] = []
    for _ in range(rng.randint(12, 30)):
        kind = rng.random()
        odd = 0.2 if rng.random() < 0.25 else 0.0
        if kind < 0.12 and rows:
            rows.append(list(rng.choice(rows)))  # a duplicate
        elif kind < 0.35:
            rows.append(_words(rng, rng.randint(1, 4), odd))  # short
        elif kind < 0.42:
            rows.append([])  # empty
        elif kind < 0.5:
            rows.append([str(rng.randint(1, 99))] + _words(rng, rng.randint(2, 12), odd))
        else:
            rows.append(_words(rng, rng.randint(6, 26), odd))
    ev = []
    for w in rows:
        if w and rng.random() < 0.2:  # over two eval fields
            cut = rng.randint(1, len(w))
            rec = {"q": " ".join(w[:cut]), "extra": " ".join(w[cut:])}
        else:
            rec = {"q": " ".join(w) if w or rng.random() < 0.5 else "—", "extra": ""}
        ev.append(json.dumps(rec, ensure_ascii=rng.random() < 0.5))
    records, chats, lines = [], [], []
    for w in rows:
        if not w:
            continue
        kind = rng.random()
        # a cut near the middle leaves each part shorter than N more often (no n-gram)
        cut = (
            rng.randint(0, len(w))
            if rng.random() < 0.4
            else rng.randint(len(w) // 3, (2 * len(w) + 2) // 3)
        )
        p1, p2 = _noisy(rng, w[:cut]), _noisy(rng, w[cut:])
        if kind < 0.2:
            records.append({"a": p1, "b": p2})
        elif kind < 0.3:
            records.append({"b": p2, "a": p1})
        elif kind < 0.45:
            chats.append(p1 + " " + p2 if rng.random() < 0.2 else (p1, p2))
        elif kind < 0.55 and w[0].isdigit():
            records.append({"a": int(w[0]), "b": _noisy(rng, w[1:])})  # a number leaf first
        elif kind < 0.65:
            records.append({"a": _noisy(rng, _words(rng, 4, 0.1) + w + _words(rng, 3))})
        elif kind < 0.72:
            records.append({"a": p1})  # part of a row only
        elif kind < 0.85:
            lines.append(_noisy(rng, w))  # a text file's line
    for k in range(rng.randint(3, 12)):
        records.append({"a": _noisy(rng, _words(rng, rng.randint(1, 14), 0.1)), "id": k})
        chats.append(_noisy(rng, _words(rng, rng.randint(1, 12), 0.1)))
    records += rng.sample(records, min(3, len(records)))  # duplicated records
    rng.shuffle(records)
    rng.shuffle(chats)
    convs = []
    for c in chats:  # a user question in one or two turns, around other roles' turns
        turns = [{"role": "system", "content": "You answer briefly."}]
        for k, part in enumerate(c if isinstance(c, tuple) else (c,)):
            if k:
                turns.append({"role": "assistant", "content": _noisy(rng, _words(rng, 3))})
            turns.append({"role": "user", "content": part})
        convs.append({"messages": turns})
    lines += [_noisy(rng, _words(rng, rng.randint(1, 10))) for _ in range(4)] + ["", "   "]
    rng.shuffle(lines)
    train = "".join(json.dumps(r, ensure_ascii=rng.random() < 0.5) + "\n" for r in records)
    text = "".join(ln.replace("\n", " ") + "\n" for ln in lines)
    chat = "".join(json.dumps(c, ensure_ascii=rng.random() < 0.5) + "\n" for c in convs)
    return {
        "eval": ("\n".join(ev) + "\n").encode(),
        "train": {
            "train.jsonl": train.encode(),
            "notes.txt": text.encode(),
            "chat.jsonl": chat.encode(),
        },
        "n": rng.choice([None, 3, 6, 8, 13]),
    }


def write_case(case: dict, folder: Path) -> Path:
    """The case's files in ``folder``; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "eval.jsonl").write_bytes(case["eval"])
    for name, data in case["train"].items():
        (folder / name).write_bytes(data)
    return folder


def argv_of(folder: Path, run: str, n) -> list[str]:
    names, fields = RUNS[run]
    argv = [
        "contamination",
        str(folder / "eval.jsonl"),
        *(str(folder / f) for f in names),
        "--quiet",
        "--json",
    ]
    for f in EVAL_FIELDS:
        argv += ["--eval-field", f]
    for f in fields:
        argv += ["--train-field", f]
    return argv + (["--n", str(n)] if n else [])


def results(out: Path, stdout: str = "") -> dict:
    """What must be equal: every CSV export's rows, the clean file's bytes, the HTML report
    before its run stamp, and the --json summary without the stamp, its timings and the
    engine's own figures (filter, workers, candidate lines)."""
    got = {}
    for p in sorted(out.iterdir()):
        if p.suffix == ".csv":
            got[p.name] = read_csv_export(p.read_text(encoding="utf-8"))[1]
        elif p.suffix == ".html":
            got[p.name] = p.read_text(encoding="utf-8").split("<h2>Run stamp</h2>")[0]
        elif p.name.startswith("eval.clean"):
            got[p.name] = p.read_bytes()
    if stdout:
        s = json.loads(stdout.strip().splitlines()[-1])
        got["summary"] = {
            k: v
            for k, v in s.items()
            if k not in ("stamp", "training_engine")
            and not k.startswith(("seconds_", "cpu_seconds_"))
        }
    return got


def cli(folder: Path, run: str, n, name: str, capsys, *flags) -> dict:
    out = folder / f"{run}-{name}"
    capsys.readouterr()
    assert main(argv_of(folder, run, n) + ["--out", str(out), *flags]) == 0
    return results(out, capsys.readouterr().out)


def page_path(case: dict, folder: Path, run: str, kernel: str | None) -> dict:
    """The page's training pass on the same inputs: each training file's prefilter spec
    through prefilter_runner.mjs (``kernel``: "js" for prefilter.js, "wasm" for the
    WebAssembly kernel), its candidates into the job (as worker/jobs/contamination-corpus.js
    drives it); None: every record into the job, no prefilter."""
    names, fields = RUNS[run]
    fmt = FORMATS
    # the id field as the page defaults it: by name, from the first training file's fields
    # (bridge's inspect answer, site/ui/id-field.js), as the CLI defaults --train-id-field
    head = inspect_head(
        names[0], case["train"][names[0]].decode("utf-8"), complete=True, fmt=fmt[names[0]]
    )
    cfg = ContaminationConfig(
        tuple(EVAL_FIELDS),
        tuple(fields),
        n=case["n"],
        train_id_field=default_id_field(head.get("fields") or []),
    )
    job = ContaminationJob(cfg, "eval.jsonl", "jsonl", names[0], fmt[names[0]])
    job.feed_eval(case["eval"].decode("utf-8"))
    job.end_eval()
    for i, name in enumerate(names):
        job.begin_train_file(
            i,
            name,
            fmt[name],
            ["text"] if fmt[name] == "text" else [f for f in fields if f != "text"],
        )
        if kernel is None:  # every record, no prefilter
            job.feed_train(case["train"][name].decode("utf-8"))
            continue
        spec, train = folder / f"spec-{i}.json", folder / name
        spec.write_text(json.dumps(job.prefilter_spec()), encoding="utf-8")
        calls = json.loads(
            subprocess.run(
                [NODE, str(HERE / "prefilter_runner.mjs"), str(spec), str(train), "700", kernel],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for c in calls:
            job.feed_train_candidates(
                c["records"], c["lines"], c["text"], c["records_total"], c["chars"], c["offsets"]
            )
    files = [
        InputFile("train", name, "0" * 64, len(case["train"][name]), fmt[name]) for name in names
    ]
    job.finish(InputFile("eval", "eval.jsonl", "0" * 64, len(case["eval"])), files, "t")
    return {
        name: read_csv_export(cx.export(job.result, name)[1])[1]
        for name in ("contamination-report.csv", "too-short-to-score.csv")
    } | {"eval.clean.jsonl": cx.export(job.result, "eval.clean.jsonl")[1].encode("utf-8")}


# the CLI's scan kernel runs where wasmtime is installed (evalsieve.kernel.unavailable)
KERNEL = unavailable() is None

# a dozen corpora of 12 to 30 eval rows, two runs each (the numpy and JS/wasm filters, one
# and two workers on each): a few hundred rows through every setting
SEEDS = list(range(12))


@pytest.mark.parametrize("seed", SEEDS)
def test_every_filter_and_worker_count_give_the_same_exports(seed, tmp_path, capsys, monkeypatch):
    pytest.importorskip("numpy")
    case = make_case(seed)
    folder = write_case(case, tmp_path)
    n = case["n"]
    for run in RUNS:
        ref = cli(folder, run, n, "off", capsys, "--filter", "off", "--workers", "1")
        assert cli(folder, run, n, "numpy", capsys, "--filter", "numpy", "--workers", "1") == ref
        if KERNEL:
            assert (
                cli(folder, run, n, "kernel", capsys, "--filter", "kernel", "--workers", "1") == ref
            ), run
        with monkeypatch.context() as m:
            m.setattr(corpus, "SPLIT_MIN_BYTES", 1200)  # byte ranges of small files
            filt = ("numpy", "off", "kernel" if KERNEL else "numpy")[seed % 3]
            assert (
                cli(folder, run, n, f"{filt}-2", capsys, "--filter", filt, "--workers", "2") == ref
            ), (run, filt)
        if NODE is None:
            continue
        for kernel in (None, "js", "wasm"):
            got = page_path(case, folder, run, kernel)
            assert got == {k: ref[k] for k in got}, (run, kernel)
    if NODE is None:
        pytest.skip("needs Node.js to run worker/prefilter.js and the WebAssembly kernel")


def test_the_corpora_hold_what_the_property_is_about(tmp_path, capsys):
    """Not vacuous: over the seeds, the exact rung catches rows the n-gram rung cannot (words
    split over fields and turns, rows shorter than N), the n-gram rung catches rows, and some
    rows stay clean."""
    rungs: dict[str, int] = {}
    short_exact = 0
    for seed in SEEDS:
        case = make_case(seed)
        folder = write_case(case, tmp_path / str(seed))
        for run in RUNS:
            got = cli(folder, run, case["n"], "off", capsys, "--filter", "off", "--workers", "1")
            for r in got["contamination-report.csv"]:
                k = (run, r["rung"] or r["status"])
                rungs[k] = rungs.get(k, 0) + 1
            short_exact += sum(r["rung"] == "exact" for r in got["too-short-to-score.csv"])
            assert all(
                r["status"] == "contaminated" for r in got["contamination-report.csv"] if r["rung"]
            )
    assert rungs[("fields", "exact")] >= 20 and rungs[("chat", "exact")] >= 10, rungs
    assert rungs[("fields", "ngram")] >= 10 and rungs[("fields", "clean")] >= 30, rungs
    assert short_exact >= 10


def test_ray_gives_the_same_exports(tmp_path, capsys, monkeypatch):
    ray = pytest.importorskip("ray")
    pytest.importorskip("numpy")
    cases = [(make_case(s), write_case(make_case(s), tmp_path / str(s))) for s in (3, 7, 11)]
    refs = {
        (i, run): cli(folder, run, c["n"], "off", capsys, "--filter", "off", "--workers", "1")
        for i, (c, folder) in enumerate(cases)
        for run in RUNS
    }
    monkeypatch.setattr(corpus, "SPLIT_MIN_BYTES", 1200)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT / "py")}},
    )
    try:
        for i, (c, folder) in enumerate(cases):
            for run in RUNS:
                assert (
                    cli(folder, run, c["n"], "ray", capsys, "--engine", "ray", "--workers", "2")
                    == refs[(i, run)]
                ), (i, run)
    finally:
        ray.shutdown()


def test_a_ray_worker_unpickles_the_payload_once(tmp_path):
    """The payload (the eval index and its kernel) reaches each Ray worker process once, not
    once per task: on one CPU, six tasks run in one worker and all see one payload object."""
    ray = pytest.importorskip("ray")
    from evalsieve.ray_engine import run_ray

    def fn(payload, task):  # nested, so that Ray pickles it by value
        import os
        import sys

        seen = sys.__dict__.setdefault("_evalsieve_payloads_seen", [])
        seen.append(payload)  # kept alive, so that no two payloads share an id()
        return {"bytes": 0, "who": (os.getpid(), len({id(p) for p in seen}), payload["n"])}

    tasks = [
        corpus.Task(0, k, str(tmp_path / "x.jsonl"), "x.jsonl", "jsonl", ("text",), 0, -1, False, 0)
        for k in range(6)
    ]
    got = []
    # started here and used in place (as a library caller's Ray is): a Ray started in a
    # child forked from this process, which earlier tests ran Ray in, may never answer
    ray.init(
        num_cpus=1,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT / "py")}},
    )
    try:
        run_ray({"n": 1319}, tasks, None, 1, lambda r: got.append(r["who"]), lambda b: None, fn=fn)
    finally:
        ray.shutdown()
    assert len(got) == 6
    assert {g[1:] for g in got} == {(1, 1319)}, got
    assert len({g[0] for g in got}) == 1, got


# -- the hostile corpus as training data --------------------------------------------------
HOSTILE = ROOT / "tests" / "hostile" / "corpus"
HOSTILE_CASES = (
    sorted(p.name for p in HOSTILE.iterdir() if not p.name.startswith(("_", "README")))
    if HOSTILE.is_dir()
    else []
)


def _outcome(argv: list[str], out: Path, capsys) -> tuple:
    """(exit status, results or the error text, the run's settings or None)."""
    capsys.readouterr()
    rc = main(argv + ["--out", str(out)])
    o, err = capsys.readouterr()
    if rc != 0:
        return rc, err, None
    settings = json.loads(o.strip().splitlines()[-1])["stamp"]["settings"]
    return rc, results(out, o), settings


@pytest.mark.parametrize("name", HOSTILE_CASES)
def test_hostile_training_files_through_every_filter(name, tmp_path, capsys, monkeypatch):
    """Each hostile file as the training file (default fields, as tests/hostile runs it):
    the same exports, or the same error, whatever the filter and the worker count; and for
    the UTF-8 JSONL and text files, the page's filters give the plain pass's exports."""
    pytest.importorskip("numpy")
    argv = [
        "contamination",
        str(HOSTILE / "_eval-partner.jsonl"),
        str(HOSTILE / name),
        "--json",
        "--quiet",
    ]
    ref = _outcome(argv + ["--filter", "off", "--workers", "1"], tmp_path / "off", capsys)
    got = _outcome(argv + ["--filter", "numpy", "--workers", "1"], tmp_path / "numpy", capsys)
    assert got[:2] == ref[:2]
    if KERNEL:
        got = _outcome(argv + ["--filter", "kernel", "--workers", "1"], tmp_path / "kernel", capsys)
        assert got[:2] == ref[:2]
    monkeypatch.setattr(corpus, "SPLIT_MIN_BYTES", 1200)
    assert _outcome(argv + ["--workers", "2"], tmp_path / "two", capsys)[:2] == ref[:2]
    if NODE is None or ref[0] != 0 or not name.endswith((".jsonl", ".txt")):
        return
    try:
        text = (HOSTILE / name).read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return
    if "\r" in text.replace("\r\n", ""):
        return  # lone-CR text: read whole, without a prefilter (as the CLI's filter)
    text = text.removeprefix("\ufeff")
    fmt = "jsonl" if name.endswith(".jsonl") else "text"
    ev = (HOSTILE / "_eval-partner.jsonl").read_text(encoding="utf-8")
    fields = (ref[2]["eval_fields"], ref[2]["train_fields"])
    plain = _page_one(ev, text, fmt, fields, tmp_path, None)
    for kernel in ("js", "wasm"):
        assert _page_one(ev, text, fmt, fields, tmp_path, kernel) == plain, kernel


def _page_one(ev: str, train: str, fmt: str, fields, folder: Path, kernel: str | None):
    """One training file through the job as the page drives it: whole (kernel None) or
    behind prefilter.js / the WebAssembly kernel. The exports (CSV rows, clean file, HTML
    before its stamp), or the error."""
    job = ContaminationJob(
        ContaminationConfig(tuple(fields[0]), tuple(fields[1])), "eval.jsonl", "jsonl", "train", fmt
    )
    job.feed_eval(ev)
    job.end_eval()
    try:
        if kernel is None:
            job.feed_train(train)
        else:
            spec, path = folder / "spec.json", folder / "train.txt"
            spec.write_text(json.dumps(job.prefilter_spec()), encoding="utf-8")
            path.write_text(train, encoding="utf-8", newline="")
            calls = json.loads(
                subprocess.run(
                    [NODE, str(HERE / "prefilter_runner.mjs"), str(spec), str(path), "512", kernel],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            for c in calls:
                job.feed_train_candidates(
                    c["records"], c["lines"], c["text"], c["records_total"], c["chars"]
                )
        f = InputFile("eval", "eval.jsonl", "0" * 64, 1)
        job.finish(f, InputFile("train", "train", "0" * 64, 1), "t")
    except EvalsieveError as e:
        return ("error", e.code, str(e), e.line)
    out = {}
    for name in cx.export_names(job.result):
        text = cx.export(job.result, name)[1]
        out[name] = (
            read_csv_export(text)[1]
            if name.endswith(".csv")
            else text.split("<h2>Run stamp</h2>")[0]
        )
    return out
