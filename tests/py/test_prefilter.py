"""worker/prefilter.js (the page's training-pass filter) may cost time, never results.

Runs the filter under Node on real and adversarial training files and checks that the
Python rule fed only the filter's candidates gives exactly the exports of the plain
pure-Python pass. Every test runs twice: with prefilter.js on decoded text, and with the
WebAssembly kernel (kernels/prefilter.wasm, what the page's prefilter workers run) on UTF-8
bytes.
"""

import json
import os
import shutil
import subprocess

import pytest

from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
from evalsieve.stamps import InputFile
from hostile_common import without_fingerprint

HERE = os.path.dirname(os.path.abspath(__file__))
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs Node.js to run worker/prefilter.js")


@pytest.fixture(params=["js", "wasm"])
def kernel(request):
    """Which scanner prefilter_runner.mjs runs: prefilter.js, or the WebAssembly kernel."""
    return request.param


def job_for(ev, tr_fmt, eval_fields, train_fields):
    j = ContaminationJob(ContaminationConfig(tuple(eval_fields), tuple(train_fields)),
                         "eval.jsonl", "jsonl", "train", tr_fmt)
    j.feed_eval(ev)
    j.end_eval()
    return j


def finish(j):
    j.finish(InputFile("eval", "eval.jsonl", "", 0), InputFile("train", "train", "", 0), "t")
    return {n: j.export(n)[1] for n in j.export_names()}


def both_ways(tmp_path, ev, tr, tr_fmt="jsonl", eval_fields=("question",), train_fields=("text",),
              chunk=4096, kernel="js"):
    plain = job_for(ev, tr_fmt, eval_fields, train_fields)
    plain.feed_train(tr)
    a = finish(plain)
    filt = job_for(ev, tr_fmt, eval_fields, train_fields)
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(filt.prefilter_spec()))
    train = tmp_path / "train.txt"
    train.write_text(tr, encoding="utf-8", newline="")
    out = subprocess.run([NODE, os.path.join(HERE, "prefilter_runner.mjs"), str(spec), str(train),
                          str(chunk), kernel], capture_output=True, text=True, check=True).stdout
    calls = json.loads(out)
    cand = 0
    for c in calls:
        filt.feed_train_candidates(c["records"], c["lines"], c["text"], c["records_total"], c["chars"],
                                   c["offsets"])
        cand += len(c["records"])
    b = finish(filt)
    assert plain.summary["training_records"] == filt.summary["training_records"]
    # each first match's source (byte offset, length, id) is the same through the filter as
    # through the plain reader, and its bytes in the file are that record's line
    assert filt.scan.sources == plain.scan.sources
    data = tr.lstrip("\ufeff").encode("utf-8")
    for (_, rec), (off, size, _) in filt.scan.sources.items():
        line = data[off:off + size].decode("utf-8")
        assert (off == 0 or data[off - 1:off] == b"\n") and data[off + size:off + size + 1] in (b"\n", b"")
        assert "\n" not in line and (tr_fmt != "jsonl" or json.loads(line))   # one whole record
    strip = lambda d: {k: (without_fingerprint(v) if k.endswith(".csv") else
                           v.split("<h2>Run stamp</h2>")[0]) for k, v in d.items()
                       if k != "run-stamp.json"}
    assert strip(a) == strip(b)
    return plain.summary, cand


def test_fixture_same_exports_and_few_candidates(tmp_path, fixtures, kernel):
    ev = open(os.path.join(fixtures, "gsm8k_test_sample.jsonl"), encoding="utf-8").read()
    tr = open(os.path.join(fixtures, "train_mix.jsonl"), encoding="utf-8").read()
    s, cand = both_ways(tmp_path, ev, tr, kernel=kernel)
    assert s["rows_contaminated"] == 7
    assert cand < s["training_records"]


def test_adversarial_records(tmp_path, kernel):
    q = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
    ev = json.dumps({"question": q}) + "\n" + json.dumps({"question": "Café au lait, s'il vous plaît: " + q}) + "\n"
    lines = [
        json.dumps({"text": q.upper() + "!"}),                 # ASCII match after the rule
        json.dumps({"text": "x " + q.replace(" ", " - ")}),   # hyphens are deleted, not spaces
        json.dumps({"text": "café au lait sil vous plaît " + q}, ensure_ascii=False),  # non-ASCII
        json.dumps({"text": 12345}),                          # a number leaf: Python decides
        '{"text": NaN}',                                      # Python accepts NaN, JS does not
        json.dumps({"text": ["a", "b"]}),
        json.dumps({"other": q}),                             # field absent
        "\u3000",                                             # Unicode-blank line: not a record
        json.dumps({"text": "\x1c".join(q.split())}),         # \x1c splits words in Python
        json.dumps({"text": "\x00".join(q.split())}),         # NUL does not
        json.dumps({"text": q}) + "\r",
        json.dumps({"text": "no match here at all"}),
        json.dumps({"text": "deep", "x": [[[[[[[[[[0]]]]]]]]]]}),
    ]
    tr = "\n".join(lines)                                     # last line: no newline
    s, cand = both_ways(tmp_path, ev, tr, chunk=50, kernel=kernel)
    assert s["training_records"] == 12
    assert s["rows_contaminated"] == 2          # both eval rows hold q's n-grams


def test_filtered_field_paths(tmp_path, kernel):
    """A path with an element filter (messages[role=user].content) reads the chosen elements
    in Python; the filter must not drop their records (it reads every element: a superset)."""
    q = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
    ev = json.dumps({"question": q}) + "\n"
    msgs = lambda user, other: {"messages": [{"content": user, "role": "user"},
                                             {"role": "assistant", "content": other}]}
    tr = "\n".join(json.dumps(r) for r in [
        msgs(q, "x"),                        # the n-gram where the path reads: contaminated
        msgs("x", q),                        # in an element the path does not read
        {"messages": [{"role": "user", "content": 5}]},
        {"messages": {"role": "user", "content": q}},   # not a list: the filter reads nothing
        msgs("nothing to see", "here"),
    ]) + "\n"
    s, cand = both_ways(tmp_path, ev, tr, train_fields=("messages[role=user].content",),
                        kernel=kernel)
    assert s["training_records"] == 5 and s["rows_contaminated"] == 1
    assert cand == 3   # the superset: records 1 and 2 (every element read) and the number


def test_text_format_training(tmp_path, kernel):
    q = "one two three four five six seven eight nine ten eleven twelve"
    ev = json.dumps({"question": q}) + "\n"
    tr = "header line\n\n" + q.title() + ".\r\n  \nother\n"
    s, cand = both_ways(tmp_path, ev, tr, tr_fmt="text", train_fields=("text",), kernel=kernel)
    assert s["training_records"] == 3 and s["rows_contaminated"] == 1


def test_gsm8k_train_filter_passes_few_records(tmp_path, shared, kernel):
    ev = open(os.path.join(shared, "gsm8k", "test.jsonl"), encoding="utf-8").read()
    tr = open(os.path.join(shared, "gsm8k", "train.jsonl"), encoding="utf-8").read()
    s, cand = both_ways(tmp_path, ev, tr, train_fields=("question", "answer"), chunk=1 << 20,
                        kernel=kernel)
    assert s["rows_contaminated"] == 3
    # the filter defers records holding a character outside ASCII and text.char_table;
    # beyond those, only records with a real match or a hash collision pass
    from evalsieve.text import char_table
    table = char_table()
    unreadable = sum(1 for l in tr.splitlines()
                     if any(ord(c) > 127 and ord(c) not in table
                            for k in ("question", "answer") for c in json.loads(l)[k]))
    non_ascii = sum(1 for l in tr.splitlines()
                    if not "".join(json.loads(l)[k] for k in ("question", "answer")).isascii())
    assert non_ascii == 651 and unreadable < 100
    assert cand <= unreadable + 20, (cand, unreadable)


def test_too_deep_json_is_refused_the_same_way(tmp_path, kernel):
    """Python refuses JSON nested deeper than MAX_JSON_DEPTH; the filter must hand such a
    line to Python rather than skip it (else the page would accept what the CLI refuses)."""
    from evalsieve.errors import EvalsieveError
    from evalsieve.records import MAX_JSON_DEPTH
    q = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    ev = json.dumps({"question": q}) + "\n"
    deep = '{"text": "x", "y": ' + "[" * (MAX_JSON_DEPTH + 5) + "]" * (MAX_JSON_DEPTH + 5) + "}"
    tr = json.dumps({"text": "fine"}) + "\n" + deep + "\n"
    with pytest.raises(EvalsieveError) as plain:
        both_ways(tmp_path, ev, tr, kernel=kernel)
    assert plain.value.line == 2 and "nested too deeply" in plain.value.message
    filt = job_for(ev, "jsonl", ("question",), ("text",))
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(filt.prefilter_spec()))
    train = tmp_path / "train.txt"
    train.write_text(tr, encoding="utf-8")
    calls = json.loads(subprocess.run([NODE, os.path.join(HERE, "prefilter_runner.mjs"), str(spec),
                                       str(train), "4096", kernel], capture_output=True, text=True,
                                      check=True).stdout)
    assert calls[0]["lines"] == [2]
    with pytest.raises(EvalsieveError) as filtered:
        for c in calls:
            filt.feed_train_candidates(c["records"], c["lines"], c["text"], c["records_total"], c["chars"])
    assert filtered.value.line == 2 and filtered.value.message == plain.value.message
