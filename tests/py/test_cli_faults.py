"""Faults of the machine under a CLI run: a worker killed as the out-of-memory killer does,
a Ray worker or node lost, stdout closed early (`| head`). Each stops within seconds with
one `evalsieve: error:` line and status 3, or is retried exactly; none hangs."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from evalsieve import corpus, engines, errors
from evalsieve.errors import EvalsieveError

needs_processes = pytest.mark.skipif(
    sys.platform == "emscripten", reason="Pyodide has no processes, threads or subprocesses"
)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures")
EVAL = os.path.join(FIX, "gsm8k_test_sample.jsonl")
Q = [json.loads(line)["question"] for line in open(EVAL, encoding="utf-8")]
FILLER = "the cat sat on the mat while a dog ran around the old garden and the bird sang"


def corpus_files(tmp_path, n=2, rows=3000):
    """`n` training files, each with a few eval questions among filler."""
    paths = []
    for k in range(n):
        p = tmp_path / f"train-{k}.jsonl"
        with open(p, "w", encoding="utf-8") as f:
            for i in range(rows):
                text = Q[(i // 100 + k) % 40] if i % 100 == 7 else f"{FILLER} {i}"
                f.write(json.dumps({"text": text}) + "\n")
        paths.append(str(p))
    return paths


def cli(argv, env=None, **kw):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "py"), **(env or {}))
    # SIGINT at its default, as a terminal starts the CLI (see test_corpus_scan)
    return subprocess.Popen(
        [sys.executable, "-m", "evalsieve.cli", *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        **kw,
    )


def descendants(pid):
    """Process ids below `pid`, with their command names, from /proc."""
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            kids.setdefault(ppid, []).append((int(d), name))
    out, todo = [], [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            out.append(child)
            todo.append(child[0])
    return out


def wait_for(p, text, seconds=120):
    """Read the CLI's stderr until a line holds `text`; returns what was read."""
    seen = []
    deadline = time.time() + seconds
    while time.time() < deadline:
        line = p.stderr.readline().decode()
        seen.append(line)
        if text in line or not line:
            break
    return "".join(seen)


def finish(p, seconds):
    """(status, stdout, stderr) of the CLI within `seconds`, else kill it and fail."""
    try:
        out, err = p.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        for pid, _ in descendants(p.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        p.kill()
        p.communicate()
        pytest.fail(f"the CLI still ran {seconds} s after the fault: it hangs")
    return p.returncode, out.decode(), err.decode()


def error_lines(err):
    assert "Traceback" not in err, err
    return [ln for ln in err.splitlines() if ln.startswith("evalsieve: error:")]


def alive(pid):
    """Whether process `pid` still runs (a zombie has ended)."""
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def start_with_workers(tmp_path, delay="60"):
    """A --workers 2 run whose tasks sleep `delay` s first, once both workers exist."""
    out = tmp_path / "out"
    p = cli(
        [
            "contamination",
            EVAL,
            *corpus_files(tmp_path),
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(out),
            "--workers",
            "2",
        ],
        env={"EVALSIEVE_TASK_DELAY_S": delay},
    )
    wait_for(p, "eval: 40 rows")
    deadline = time.time() + 60
    while len(descendants(p.pid)) < 2 and time.time() < deadline:
        time.sleep(0.2)
    workers = [pid for pid, _ in descendants(p.pid)]
    assert len(workers) == 2, workers
    time.sleep(0.5)
    return p, out, workers


# -- a local worker killed -----------------------------------------------------------------------
@needs_processes
def test_a_worker_killed_by_sigkill_stops_the_run_within_seconds(tmp_path):
    """What the out-of-memory killer does: SIGKILL one of the --workers 2 processes while it
    scans. multiprocessing.Pool replaced it and waited for its task forever (0% CPU)."""
    p, out, workers = start_with_workers(tmp_path)
    os.kill(workers[0], signal.SIGKILL)
    killed = time.time()
    rc, stdout, err = finish(p, 60)
    assert time.time() - killed < 30  # not the 60 s the other worker still sleeps
    assert rc == 3, err
    [line] = error_lines(err)
    assert (
        f"worker process {workers[0]} of the training pass was killed by signal 9 "
        "(SIGKILL, which the out-of-memory killer sends)" in line
    ), line
    assert "train-" in line and "fewer --workers (this run had 2)" in line, line
    assert stdout == "" and not out.exists()
    assert descendants(p.pid) == []


@needs_processes
def test_sigterm_stops_the_workers_and_ends_with_143(tmp_path):
    """`kill`, `timeout` or a batch scheduler: the run cleans up as after Ctrl-C. With no
    handler the driver died at once and its workers slept on, then blocked in their pipes
    forever (each held its own pipe's driver end open)."""
    p, out, workers = start_with_workers(tmp_path)
    p.send_signal(signal.SIGTERM)
    sent = time.time()
    rc, stdout, err = finish(p, 30)
    assert time.time() - sent < 10  # not the 60 s the tasks sleep
    assert rc == errors.EXIT_TERMINATED == 143, err
    assert error_lines(err) == ["evalsieve: error: terminated (SIGTERM); no export was written"]
    assert stdout == "" and not out.exists()
    assert not any(alive(w) for w in workers)


@needs_processes
def test_workers_of_a_driver_killed_with_sigkill_exit_within_seconds(tmp_path):
    """A driver killed with SIGKILL runs no cleanup: each worker sees it is gone (its parent
    changed) and exits, inside its task; they slept 60 s and then waited forever."""
    p, out, workers = start_with_workers(tmp_path)
    p.kill()
    p.wait()  # not communicate(): the workers hold the CLI's stderr
    deadline = time.time() + 10
    while any(alive(w) for w in workers) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(alive(w) for w in workers), "the workers outlived their driver"
    p.communicate()
    assert not out.exists() or not any(n.endswith(".csv") for n in os.listdir(out))


@needs_processes
def test_a_worker_whose_driver_is_gone_sees_eof_at_once(monkeypatch):
    """Between tasks a worker waits on its pipe: it must not hold the driver's end of it (nor
    of the earlier workers' pipes), or a driver that is gone is never EOF to it."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    pool = engines._Workers(ctx, {}, fn=lambda payload, task, progress=None: {})
    monkeypatch.setattr(engines, "ORPHAN_POLL_S", 3600)  # EOF alone must end them
    pool.start(3)
    try:
        for c in pool.conns:
            c.close()  # what the driver's death does to its ends
        for proc in pool.procs:
            proc.join(timeout=10)
        assert [proc.exitcode for proc in pool.procs] == [0, 0, 0]
    finally:
        for proc in pool.procs:
            if proc.exitcode is None:
                proc.kill()
                proc.join()


@needs_processes
def test_run_local_names_the_task_of_a_worker_that_died(tmp_path, monkeypatch):
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("needs fork")
    train = corpus_files(tmp_path, n=3, rows=200)
    files = [
        {
            "path": p,
            "name": os.path.basename(p),
            "fmt": "jsonl",
            "fields": ["text"],
            "gzip": False,
            "size": os.path.getsize(p),
        }
        for p in train
    ]
    tasks = corpus.plan_tasks(files, 2)
    monkeypatch.setenv("EVALSIEVE_KILL_ONCE", str(tmp_path))  # fault_hooks.py
    from evalsieve.ngrams import EvalIndex

    payload = {"index": EvalIndex([[q] for q in Q], None), "filters": {}}
    results = []
    before = set(mp.active_children())
    with pytest.raises(EvalsieveError) as e:
        engines.run_local(payload, tasks, 2, results.append, lambda n: None)
    assert e.value.code == "environment"
    assert e.value.file in {t.name for t in tasks} and "the whole file" in e.value.message
    assert "signal 9 (SIGKILL" in e.value.message
    assert [p for p in mp.active_children() if p not in before] == []


# -- Ray -----------------------------------------------------------------------------------------
@needs_processes
def test_a_ray_worker_killed_is_retried_and_stdout_stays_one_json_document(tmp_path):
    pytest.importorskip("ray")
    train = corpus_files(tmp_path)
    args = [
        "contamination",
        EVAL,
        *train,
        "--eval-field",
        "question",
        "--train-field",
        "text",
        "--json",
    ]
    rc, local, err = finish(cli(args + ["--out", str(tmp_path / "one"), "--workers", "1"]), 120)
    assert rc == 0, err
    p = cli(
        args + ["--out", str(tmp_path / "ray"), "--engine", "ray", "--workers", "2"],
        env={"EVALSIEVE_KILL_ONCE": str(tmp_path)},
    )
    rc, stdout, err = finish(p, 300)
    assert rc == 0, err
    assert os.path.exists(tmp_path / "killed")  # a Ray worker did die (and Ray said so)
    assert "(raylet)" in err and "(raylet)" not in stdout
    on_ray = json.loads(stdout)  # the whole of stdout is the summary
    one = json.loads(local)
    for k in ("rows_contaminated", "rows_kept", "training_records", "rows_contaminated_by_rung"):
        assert on_ray[k] == one[k], k
    assert on_ray["rows_contaminated"] > 0
    for name in ("contamination-report.csv", "eval.clean.jsonl"):
        a = (tmp_path / "one" / name).read_text(encoding="utf-8").split("\n", 1)[1]
        b = (tmp_path / "ray" / name).read_text(encoding="utf-8").split("\n", 1)[1]
        assert a == b, name


@needs_processes
def test_losing_the_ray_node_is_one_error_line_and_status_3(tmp_path):
    """The raylet killed mid-pass. Either Ray's C++ code ends the driver (status 1, no
    message, unless the CLI watches it from outside) or the driver's ray.get raises
    (LocalRayletDiedError), whichever comes first: both are status 3 and one line."""
    pytest.importorskip("ray")
    train = corpus_files(tmp_path, rows=300)
    out = tmp_path / "out"
    p = cli(
        [
            "contamination",
            EVAL,
            *train,
            "--eval-field",
            "question",
            "--train-field",
            "text",
            "--out",
            str(out),
            "--engine",
            "ray",
            "--workers",
            "2",
            "--json",
        ],
        env={"EVALSIEVE_TASK_DELAY_S": "120"},
    )
    wait_for(p, "Started a local Ray instance", 180)
    deadline = time.time() + 60
    raylet = []
    while not raylet and time.time() < deadline:
        raylet = [pid for pid, name in descendants(p.pid) if name == "raylet"]
        time.sleep(0.5)
    assert raylet, descendants(p.pid)
    time.sleep(3)  # the tasks are submitted and waiting
    os.kill(raylet[0], signal.SIGKILL)
    rc, stdout, err = finish(p, 180)
    assert rc == 3, err[-3000:]
    [line] = error_lines(err)
    assert (
        "the Ray driver process ended with status 1: Ray ends its driver so when it loses its node"
        in line
        or "Ray failed while it ran the task (LocalRayletDiedError" in line
    ), line
    assert stdout == "" and not out.exists()


# -- stdout closed early -------------------------------------------------------------------------
@needs_processes
@pytest.mark.parametrize(
    "argv, status",
    [
        (["fields", EVAL], 0),
        (
            [
                "contamination",
                EVAL,
                os.path.join(FIX, "train_mix.jsonl"),
                "--eval-field",
                "question",
                "--threshold",
                "0.01",
                "--json",
                "--fail-on-contamination",
            ],
            1,
        ),
        (
            [
                "contamination",
                EVAL,
                os.path.join(FIX, "train_mix.jsonl"),
                "--eval-field",
                "question",
            ],
            0,
        ),
    ],
)
def test_a_closed_stdout_ends_quietly_with_the_runs_own_status(argv, status, tmp_path):
    """`evalsieve ... | head -1`: the reader goes away; no BrokenPipeError traceback, and the
    status is the run's (its exports are written; only the printing stopped)."""
    if argv[0] != "fields":
        argv = argv + ["--out", str(tmp_path / "o")]
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the CLI prints (as `head` after its lines)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "py"))
    p = subprocess.Popen(
        [sys.executable, "-m", "evalsieve.cli", *argv], env=env, stdout=w, stderr=subprocess.PIPE
    )
    os.close(w)
    _, err = p.communicate(timeout=120)
    err = err.decode()
    assert p.returncode == status, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "error" not in err, err
    if argv[0] != "fields":
        assert "contamination-report.csv" in os.listdir(tmp_path / "o")


@needs_processes
def test_a_ray_address_where_no_cluster_answers_stops_instead_of_waiting(tmp_path, monkeypatch):
    """Ray retries an address where nothing answers for minutes on end; the run stops
    after ray_engine.CONNECT_S (here 10 s) with an environment error."""
    pytest.importorskip("ray")
    import multiprocessing as mp
    from evalsieve import ray_engine

    monkeypatch.setattr(ray_engine, "CONNECT_S", 10)
    train = corpus_files(tmp_path, n=1, rows=50)
    files = [
        {
            "path": train[0],
            "name": "train-0.jsonl",
            "fmt": "jsonl",
            "fields": ["text"],
            "gzip": False,
            "size": os.path.getsize(train[0]),
        }
    ]
    before = set(mp.active_children())
    t0 = time.time()
    with pytest.raises(EvalsieveError) as e:
        ray_engine.run_ray(
            {"index": None, "filters": {}},
            corpus.plan_tasks(files, 2),
            "127.0.0.1:1",
            None,
            lambda r: None,
            lambda n: None,
        )
    assert time.time() - t0 < 60
    assert e.value.code == "environment"
    assert e.value.message == "Ray did not start or answer within 10 s at --ray-address 127.0.0.1:1"
    assert [p for p in mp.active_children() if p not in before] == []


@needs_processes
def test_sigterm_raises_only_over_the_default_and_restores_it():
    """The CLI's SIGTERM handler is set only where SIGTERM is at its default (a caller that
    ignores or handles it keeps its own), raises once, and is taken away after the run."""
    from evalsieve.failures import sigterm_raises

    before = signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with sigterm_raises():
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGTERM)  # ignored: no exception
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with pytest.raises(errors.Terminated):
            with sigterm_raises():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1)  # the handler runs at the next bytecode
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        with sigterm_raises():
            handler = signal.getsignal(signal.SIGTERM)
            with pytest.raises(errors.Terminated):
                handler(signal.SIGTERM, None)
            handler(signal.SIGTERM, None)  # a second one while cleaning up: ignored
    finally:
        signal.signal(signal.SIGTERM, before)


def _killed(payload, task, progress=None):
    os.kill(os.getpid(), signal.SIGKILL)


@needs_processes
@pytest.mark.parametrize(
    "fn, words",
    [
        ("semantic", "of the semantic rung's pass was killed by signal 9"),
        ("purify", "of purify's copy of the corpus was killed by signal 9"),
    ],
)
def test_a_killed_worker_of_the_other_passes_is_named_for_its_pass(fn, words, tmp_path):
    """The semantic rung's shards and purify's writers run on the same engine: a killed
    worker's message names their pass (not "the training pass"), and a purify shard (which
    has no byte range) is a whole file, not an internal error."""
    from evalsieve import purify_shards, semantic_pass

    real = {"semantic": semantic_pass.semantic_task, "purify": purify_shards.purify_shard}[fn]
    _killed.pass_name, _killed.pass_verb = engines.pass_name(real)
    path = corpus_files(tmp_path, n=1, rows=10)[0]
    if fn == "purify":
        tasks = [
            purify_shards.ShardTask(
                file=k,
                path=path,
                name=f"train-{k}.jsonl",
                fmt="jsonl",
                fields=("text",),
                gzip=False,
                size=10,
                out=str(tmp_path / f"out-{k}"),
                targets=(),
                records=10,
            )
            for k in range(2)
        ]
    else:
        size = os.path.getsize(path)
        tasks = [
            corpus.Task(k, 0, path, f"train-{k}.jsonl", "jsonl", ("text",), 0, -1, False, size)
            for k in (0, 1)
        ]
    with pytest.raises(EvalsieveError) as e:
        engines.run_local({}, tasks, 2, lambda r: None, lambda n: None, fn=_killed)
    assert e.value.code == "environment"
    assert words in e.value.message and "the whole file" in e.value.message, e.value.message
    assert e.value.message.endswith("the run stopped and wrote no export")
    verb = "copied" if fn == "purify" else "scanned"
    assert f"while it {verb} the whole file" in e.value.message


@needs_processes
def test_sigterm_during_the_renames_waits_for_the_whole_set(tmp_path, monkeypatch, capsys):
    """A SIGTERM that comes while the exports are moved into place (here: right after the
    first rename) is handled once the last is in: the folder holds the run's whole set,
    and the error line says the exports were written (it said none were, over a folder
    holding one)."""
    from evalsieve import outdir

    train = tmp_path / "train.jsonl"
    train.write_text(
        "".join(json.dumps({"text": "prefix words " + q}) + "\n" for q in Q), encoding="utf-8"
    )
    argv = ["contamination", EVAL, str(train), "--eval-field", "question"]
    argv += ["--train-field", "text", "--quiet"]
    from evalsieve.cli import main

    assert main(argv + ["--out", str(tmp_path / "whole")]) == 0
    whole = sorted(os.listdir(tmp_path / "whole"))
    out = tmp_path / "out"
    real, moved = os.replace, []

    def replace(src, dst, *a, **k):
        real(src, dst, *a, **k)
        if os.path.dirname(dst) == str(out):
            moved.append(dst)
            if len(moved) == 1:
                os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(outdir.os, "replace", replace)
    capsys.readouterr()
    # another thread of the process may take the signal (a mask held the main one only)
    import threading

    idle = threading.Event()
    threading.Thread(target=idle.wait, daemon=True).start()
    try:
        status = main(argv + ["--out", str(out)])
    finally:
        idle.set()
    assert status == errors.EXIT_TERMINATED
    err = capsys.readouterr().err
    assert error_lines(err) == ["evalsieve: error: terminated (SIGTERM); the exports were written"]
    assert sorted(os.listdir(out)) == whole and len(moved) == len(whole)


@needs_processes
def test_sigterm_to_the_group_as_workers_start_prints_no_traceback(tmp_path):
    """`kill -- -PGID` and `timeout` signal every process of the group: a worker forked
    just then still has the CLI's handler; it ends as SIGTERM's default ends it (it raised
    Terminated inside multiprocessing's start-up and printed a traceback)."""
    code = (
        "import os, signal, sys\n"
        "import multiprocessing.util as u\n"
        "real = u._close_stdin\n"
        "def close_stdin():  # in the forked worker, before its own handler is set\n"
        "    os.kill(os.getppid(), signal.SIGTERM)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    real()\n"
        "u._close_stdin = close_stdin\n"
        "from evalsieve import cli\n"
        "sys.exit(cli.main(sys.argv[1:]))\n"
    )
    train = corpus_files(tmp_path, rows=2000)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "py"))
    argv = ["contamination", EVAL, *train, "--eval-field", "question", "--train-field"]
    argv += ["text", "--out", str(tmp_path / "out"), "--workers", "2", "--quiet"]
    p = subprocess.run(
        [sys.executable, "-c", code, *argv], env=env, capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 143, p.stderr
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr, p.stderr
    assert error_lines(p.stderr) == [
        "evalsieve: error: terminated (SIGTERM); no export was written"
    ]
    assert not (tmp_path / "out").exists()
