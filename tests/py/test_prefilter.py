"""worker/prefilter.js (the page's training-pass filter) may cost time, never results.

Runs the filter under Node on real and adversarial training files and checks that the
Python rule fed only the filter's candidates gives exactly the exports of the plain
pure-Python pass. Every test runs three times: with prefilter.js on decoded text, with the
WebAssembly kernel (kernels/prefilter.wasm, what the page's prefilter workers run) on UTF-8
bytes, and with the same kernel in CPython under wasmtime (evalsieve.kernel, the CLI's
filter; skipped without wasmtime).
"""

import json
import os
import shutil
import subprocess

import pytest

import evalsieve.contamination_exports as cx
from evalsieve.contamination_job import ContaminationConfig, ContaminationJob
from evalsieve.stamps import InputFile
from hostile_common import without_fingerprint

HERE = os.path.dirname(os.path.abspath(__file__))
NODE = shutil.which("node")


@pytest.fixture(params=["js", "wasm", "cpython"])
def kernel(request):
    """Which scanner runs: prefilter.js or the WebAssembly kernel under Node
    (prefilter_runner.mjs), or the kernel in CPython (evalsieve.kernel)."""
    if request.param == "cpython":
        pytest.importorskip("wasmtime", reason="the CPython host of the kernel needs wasmtime")
    elif NODE is None:
        pytest.skip("needs Node.js to run worker/prefilter.js")
    return request.param


def cpython_calls(spec, tr: str, chunk: int):
    """The kernel in CPython (evalsieve.kernel) over pieces of about ``chunk`` characters
    cut after a line end, as prefilter_runner.mjs cuts them; the same call shape."""
    from evalsieve.kernel import KernelFilter

    ks = KernelFilter.from_spec(spec).scanner(spec["paths"])
    text = tr[1:] if tr.startswith("\ufeff") else tr
    calls, records, lines, start, nbytes = [], 0, 0, 0, 0
    while start < len(text):
        end = len(text) if start + chunk >= len(text) else text.rfind("\n", 0, start + chunk)
        if end < start:
            end = text.find("\n", start + chunk)
        end = len(text) if end == -1 else end + 1 if end < len(text) else end
        piece = text[start:end].encode("utf-8")
        r_in, l_in, points, c = ks.scan(piece)
        calls.append(
            {
                "records": [records + x for x in c[0::4]],
                "lines": [lines + x for x in c[1::4]],
                "text": "\n".join(piece[a:b].decode("utf-8") for a, b in zip(c[2::4], c[3::4])),
                "records_total": records + r_in,
                "chars": points,
                "offsets": [nbytes + a for a in c[2::4]],
            }
        )  # in the file, after its BOM
        nbytes += len(piece)
        records += r_in
        lines += l_in
        start = end
    return calls


def run_scanner(spec, tr: str, train_path, chunk: int, kernel: str):
    """The calls of one scanner over the training text (see both_ways)."""
    if kernel == "cpython":
        return cpython_calls(spec, tr, chunk)
    spec_path = train_path.parent / "spec.json"
    spec_path.write_text(json.dumps(spec))
    return json.loads(
        subprocess.run(
            [
                NODE,
                os.path.join(HERE, "prefilter_runner.mjs"),
                str(spec_path),
                str(train_path),
                str(chunk),
                kernel,
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )


def job_for(ev, tr_fmt, eval_fields, train_fields):
    j = ContaminationJob(
        ContaminationConfig(tuple(eval_fields), tuple(train_fields)),
        "eval.jsonl",
        "jsonl",
        "train",
        tr_fmt,
    )
    j.feed_eval(ev)
    j.end_eval()
    return j


def finish(j):
    j.finish(InputFile("eval", "eval.jsonl", "", 0), InputFile("train", "train", "", 0), "t")
    return {n: cx.export(j.result, n)[1] for n in cx.export_names(j.result)}


def both_ways(
    tmp_path,
    ev,
    tr,
    tr_fmt="jsonl",
    eval_fields=("question",),
    train_fields=("text",),
    chunk=4096,
    kernel="js",
):
    plain = job_for(ev, tr_fmt, eval_fields, train_fields)
    plain.feed_train(tr)
    a = finish(plain)
    filt = job_for(ev, tr_fmt, eval_fields, train_fields)
    train = tmp_path / "train.txt"
    train.write_text(tr, encoding="utf-8", newline="")
    calls = run_scanner(filt.prefilter_spec(), tr, train, chunk, kernel)
    cand = 0
    for c in calls:
        filt.feed_train_candidates(
            c["records"], c["lines"], c["text"], c["records_total"], c["chars"], c["offsets"]
        )
        cand += len(c["records"])
    b = finish(filt)
    assert plain.summary["training_records"] == filt.summary["training_records"]
    # each first match's source (byte offset, length, id) is the same through the filter as
    # through the plain reader, and its bytes in the file are that record's line
    assert filt.scan.sources == plain.scan.sources
    data = tr.lstrip("\ufeff").encode("utf-8")
    for off, size, _ in filt.scan.sources.values():
        line = data[off : off + size].decode("utf-8")
        assert (off == 0 or data[off - 1 : off] == b"\n") and data[off + size : off + size + 1] in (
            b"\n",
            b"",
        )
        assert "\n" not in line and (tr_fmt != "jsonl" or json.loads(line))  # one whole record
    strip = lambda d: {
        k: (without_fingerprint(v) if k.endswith(".csv") else v.split("<h2>Run stamp</h2>")[0])
        for k, v in d.items()
        if k != "run-stamp.json"
    }
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
    ev = (
        json.dumps({"question": q})
        + "\n"
        + json.dumps({"question": "Café au lait, s'il vous plaît: " + q})
        + "\n"
    )
    lines = [
        json.dumps({"text": q.upper() + "!"}),  # ASCII match after the rule
        json.dumps({"text": "x " + q.replace(" ", " - ")}),  # hyphens are deleted, not spaces
        json.dumps({"text": "café au lait sil vous plaît " + q}, ensure_ascii=False),  # non-ASCII
        json.dumps({"text": 12345}),  # a number leaf: Python decides
        '{"text": NaN}',  # Python accepts NaN, JS does not
        json.dumps({"text": ["a", "b"]}),
        json.dumps({"other": q}),  # field absent
        "\u3000",  # Unicode-blank line: not a record
        json.dumps({"text": "\x1c".join(q.split())}),  # \x1c splits words in Python
        json.dumps({"text": "\x00".join(q.split())}),  # NUL does not
        json.dumps({"text": q}) + "\r",
        json.dumps({"text": "no match here at all"}),
        json.dumps({"text": "deep", "x": [[[[[[[[[[0]]]]]]]]]]}),
    ]
    tr = "\n".join(lines)  # last line: no newline
    s, cand = both_ways(tmp_path, ev, tr, chunk=50, kernel=kernel)
    assert s["training_records"] == 12
    assert s["rows_contaminated"] == 2  # both eval rows hold q's n-grams


def test_filtered_field_paths(tmp_path, kernel):
    """A path with an element filter (messages[role=user].content) reads the chosen elements
    in Python; the filter must not drop their records (it reads every element: a superset)."""
    q = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
    ev = json.dumps({"question": q}) + "\n"
    msgs = lambda user, other: {
        "messages": [{"content": user, "role": "user"}, {"role": "assistant", "content": other}]
    }
    tr = (
        "\n".join(
            json.dumps(r)
            for r in [
                msgs(q, "x"),  # the n-gram where the path reads: contaminated
                msgs("x", q),  # in an element the path does not read
                {"messages": [{"role": "user", "content": 5}]},
                {
                    "messages": {"role": "user", "content": q}
                },  # not a list: the filter reads nothing
                msgs("nothing to see", "here"),
            ]
        )
        + "\n"
    )
    s, cand = both_ways(
        tmp_path, ev, tr, train_fields=("messages[role=user].content",), kernel=kernel
    )
    assert s["training_records"] == 5 and s["rows_contaminated"] == 1
    assert cand == 3  # the superset: records 1 and 2 (every element read) and the number


def test_text_format_training(tmp_path, kernel):
    q = "one two three four five six seven eight nine ten eleven twelve"
    ev = json.dumps({"question": q}) + "\n"
    tr = "header line\n\n" + q.title() + ".\r\n  \nother\n"
    s, cand = both_ways(tmp_path, ev, tr, tr_fmt="text", train_fields=("text",), kernel=kernel)
    assert s["training_records"] == 3 and s["rows_contaminated"] == 1


def test_gsm8k_train_filter_passes_few_records(tmp_path, shared, kernel):
    ev = open(os.path.join(shared, "gsm8k", "test.jsonl"), encoding="utf-8").read()
    tr = open(os.path.join(shared, "gsm8k", "train.jsonl"), encoding="utf-8").read()
    s, cand = both_ways(
        tmp_path, ev, tr, train_fields=("question", "answer"), chunk=1 << 20, kernel=kernel
    )
    assert s["rows_contaminated"] == 3
    # the filter defers records holding a character outside ASCII and text.char_table;
    # beyond those, only records with a real match or a hash collision pass
    from evalsieve.text import char_table

    table = char_table()
    unreadable = sum(
        1
        for l in tr.splitlines()
        if any(
            ord(c) > 127 and ord(c) not in table
            for k in ("question", "answer")
            for c in json.loads(l)[k]
        )
    )
    non_ascii = sum(
        1
        for l in tr.splitlines()
        if not "".join(json.loads(l)[k] for k in ("question", "answer")).isascii()
    )
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
    train = tmp_path / "train.txt"
    train.write_text(tr, encoding="utf-8")
    calls = run_scanner(filt.prefilter_spec(), tr, train, 4096, kernel)
    assert calls[0]["lines"] == [2]
    with pytest.raises(EvalsieveError) as filtered:
        for c in calls:
            filt.feed_train_candidates(
                c["records"], c["lines"], c["text"], c["records_total"], c["chars"]
            )
    assert filtered.value.line == 2 and filtered.value.message == plain.value.message


def test_every_script_with_marks(tmp_path, kernel):
    """Marks the rule reorders or composes (Arabic shadda before or after its vowel, the
    nukta after na, which it composes with, and after da, which it does not, Hangul jamo,
    an accent after ASCII), in records that hold an eval row and in records that do not:
    the exports of the plain pass whichever scanner reads them."""
    hi = "\u0915\u094d\u0937\u092e\u093e \u0921\u093c\u093e \u0928\u093c\u092f\u093e"  # conjunct, nukta
    ar = "\u0645\u064f\u062d\u064e\u0645\u0651\u064e\u062f"  # damma, fatha, shadda + fatha
    ko = "\ud55c\uad6d\uc5b4 \u1100\u1161\u11a8"
    q = f"{hi} {ar} {ko} caf\u00e9 e\u0301t\u00e9 alpha beta gamma delta epsilon zeta"
    ev = json.dumps({"question": q}, ensure_ascii=False) + "\n"
    swapped = q.replace("\u0651\u064e", "\u064e\u0651")  # the order NFC gives
    lines = [
        json.dumps({"text": t}, ensure_ascii=a)
        for t in (
            q,
            swapped,
            q.replace("\u0921", "\u0928"),
            "x " + q + " y",
            hi + " " + ar,
            ko * 20,
            "no match " + ar * 30,
        )
        for a in (True, False)
    ]
    s, cand = both_ways(tmp_path, ev, "\n".join(lines) + "\n", kernel=kernel)
    assert s["training_records"] == 14 and s["rows_contaminated"] == 1
