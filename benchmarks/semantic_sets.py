"""The labelled sets of benchmarks/bench_semantic.py, built from ../shared/data (seeded: every
run builds the same files). Not a test; no numpy.

Each builder returns a :class:`BenchSet`: eval rows (dicts of the eval fields), training
records (plain text), the rows that are contaminated (``positive``) and where each planted
text sits (``where``: training record, first word, end word; hard negatives are planted too,
so the candidate stage's recall can be read on both). A row is *positive* when a reworded (or
verbatim, where said) copy of it is in the training records; every other row is clean.

Fitting sets (the defaults are chosen on them, leave-one-set-out):

* ``gsm8k``: 400 GSM8K test questions, 100 with their GPT-4 rephrasing (llm-decontaminator,
  line-aligned with test) planted inside a WikiText paragraph; 3,000 GSM8K *train* questions
  (same topic) and 1,500 WikiText paragraphs beside them.
* ``humaneval``: the 164 HumanEval programs (prompt + solution); 82 rephrased programs planted
  inside MBPP records; MBPP and the CodeAlpaca nearest neighbours beside them.
* ``gsm8k_stem``: GSM8K test rows 400..699 as *question + answer* (two eval fields, as a
  harness's doc_to_text + target reads them); training holds only the rephrased question.
* ``gsm8k_long``: GSM8K test questions 700..999; the rephrasing planted inside a document of
  1,000+ words (WikiText paragraphs with two GSM8K train questions); 200 more such documents.
* ``mrpc``: MRPC test: 150 paraphrase pairs (sentence 2 planted, sentence 1 the eval row) and
  150 non-paraphrase pairs planted the same way (hard negatives); MRPC train sentences and
  WikiText beside them.
* ``stsb``: STS-B test: 150 pairs of gold ≥ 4 planted as positives, 150 of gold ≤ 2 planted as
  hard negatives; STS-B train sentences and WikiText beside them.
* ``bigbench``: BIG-bench ``rephrase``: 78 sentences, 39 with a rewrite planted.
* ``codealpaca``: the 164 HumanEval prompts (signature and docstring, as a harness shows
  them); training holds each one's nearest CodeAlpaca-20k item (llm-decontaminator's
  retrieval, ``CodeAlpacaDB.jsonl``): 18 that GPT-4 judged rephrasings (positives, a real
  train/test case), the other 146 nearest neighbours as hard negatives, and 300 MBPP records.
* ``web``: Contamination_Detector's web matches (Bing snippets) for ARC-Challenge and MMLU:
  the contaminated items (question + answer) with their snippets as training records; clean
  items of the same sets (no web match) as negatives; the snippets of ARC items with a match
  that the detector labelled clean beside them. MMLU's held-out subjects are left out.

Held-out sets (never used to choose a setting; they check the defaults):

* ``mmlu_heldout``: 300 MMLU test rows of six subjects that no other set uses, as question +
  answer; 100 with their *question alone* planted verbatim in WikiText (the stem is in
  training, the answer is not); the other 200 rows, of the same subjects, are the clean
  negatives; 600 MMLU questions of other subjects and WikiText beside them.
* ``mmlu_rephrase`` (needs ``decontaminator``: a folder holding llm-decontaminator's
  ``data/rephrase/*_test_rephrase_english_filtered_question.jsonl``): 300 MMLU rows of
  abstract algebra, high-school US history and sociology as question + answer; 100 with
  their GPT-4 rephrasing planted in WikiText; built as ``mmlu_heldout`` otherwise.
* ``mmlu_chinese``: the same rows with the Chinese translation planted instead (a limit: the
  encoder is English-only).
"""

from __future__ import annotations

import csv
import glob
import gzip
import html
import json
import os
import random
import re
from dataclasses import dataclass, field

#: MMLU subjects of the verbatim-stem held-out set (none occurs in the web matches).
HELDOUT_SUBJECTS = (
    "college_biology",
    "human_aging",
    "logical_fallacies",
    "us_foreign_policy",
    "global_facts",
    "high_school_computer_science",
)
#: MMLU subjects with GPT-4 rephrasings in llm-decontaminator (held out as well).
REPHRASE_SUBJECTS = ("abstract_algebra", "high_school_us_history", "sociology")


@dataclass
class BenchSet:
    name: str
    rows: list[dict]  # eval rows: field -> text
    fields: tuple[str, ...]  # the eval fields, in order
    docs: list[str]  # training records
    positive: set[int]  # contaminated eval rows (0-based)
    # row -> planted span(s): (record, first word, end word), or a list of them
    where: dict = field(default_factory=dict)
    role: str = "fit"  # "fit" (defaults chosen on it) or "held-out"
    note: str = ""


def _jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _wiki(data):
    with open(os.path.join(data, "haystack", "wikitext2_raw_test.txt"), encoding="utf-8") as f:
        return [p.strip() for p in f.read().split("\n") if len(p.split()) > 40]


def _plant(host_words: list[str], text: str, rng) -> tuple[str, int, int]:
    cut = rng.randrange(len(host_words) + 1)
    before = " ".join(host_words[:cut])
    start = len(before.split())
    doc = (before + " " + text + " " + " ".join(host_words[cut:])).strip()
    return doc, start, start + len(text.split())


def _shuffle(docs, where, rng):
    order = list(range(len(docs)))
    rng.shuffle(order)
    new_pos = {old: new for new, old in enumerate(order)}
    return [docs[o] for o in order], {i: (new_pos[r], s, e) for i, (r, s, e) in where.items()}


def _planted_set(
    name, rows, fields, planted: dict[int, str], hosts, others, rng, positive=None, **kw
) -> BenchSet:
    """Plant ``planted[row]`` inside a host paragraph (drawn from ``hosts``), add ``others``,
    shuffle. ``positive`` defaults to every planted row."""
    docs, where = [], {}
    for i in sorted(planted):
        doc, s, e = _plant(rng.choice(hosts).split(), planted[i], rng)
        where[i] = (len(docs), s, e)
        docs.append(doc)
    docs += others
    docs, where = _shuffle(docs, where, rng)
    return BenchSet(
        name, rows, fields, docs, set(planted) if positive is None else positive, where, **kw
    )


def build_gsm8k(data: str) -> BenchSet:
    test = [r["question"] for r in _jsonl(os.path.join(data, "gsm8k", "test.jsonl"))]
    reph = [
        r["text"] for r in _jsonl(os.path.join(data, "llm_decontaminator", "rephrase_gsm8k.jsonl"))
    ]
    train = [r["question"] for r in _jsonl(os.path.join(data, "gsm8k", "train.jsonl"))]
    wiki = _wiki(data)
    rng = random.Random(7)
    planted_rows = sorted(rng.sample(range(400), 100))
    docs, where = [], {}
    for i in planted_rows:
        doc, s, e = _plant(rng.choice(wiki).split(), reph[i], rng)
        where[i] = (len(docs), s, e)
        docs.append(doc)
    docs += rng.sample(train, 3000) + rng.sample(wiki, 1500)
    docs, where = _shuffle(docs, where, rng)
    return BenchSet(
        "gsm8k",
        [{"text": t} for t in test[:400]],
        ("text",),
        docs,
        set(planted_rows),
        where,
        note="GSM8K rephrasings in WikiText",
    )


def build_humaneval(data: str) -> BenchSet:
    with gzip.open(os.path.join(data, "humaneval", "HumanEval.jsonl.gz"), "rt") as f:
        he = [json.loads(line) for line in f]
    ev = [h["prompt"] + h["canonical_solution"] for h in he]
    reph = [
        r["text"]
        for r in _jsonl(os.path.join(data, "llm_decontaminator", "humaneval_python.jsonl"))
    ]
    mbpp = [r["text"] + "\n" + r["code"] for r in _jsonl(os.path.join(data, "mbpp", "mbpp.jsonl"))]
    alpaca = _jsonl(os.path.join(data, "llm_decontaminator", "CodeAlpacaDB.jsonl"))
    neighbours = [t for r in alpaca if not any(r["results"]) for t in r["train"]]
    rng = random.Random(11)
    # 17 of the 164 rephrasings are empty: the planted rows are drawn from the 147 others
    plantable = [i for i in range(len(ev)) if reph[i].strip()]
    planted_rows = sorted(rng.sample(plantable, len(ev) // 2))
    hosts = rng.sample(range(len(mbpp)), len(planted_rows))
    docs, where, used = [], {}, set()
    for i, h in zip(planted_rows, hosts):
        used.add(h)
        doc, s, e = _plant(mbpp[h].split(), reph[i], rng)
        where[i] = (len(docs), s, e)
        docs.append(doc)
    docs += [m for j, m in enumerate(mbpp) if j not in used] + neighbours
    docs, where = _shuffle(docs, where, rng)
    return BenchSet(
        "humaneval",
        [{"text": t} for t in ev],
        ("text",),
        docs,
        set(planted_rows),
        where,
        note="HumanEval rephrased programs in MBPP records",
    )


def build_codealpaca(data: str) -> BenchSet:
    with gzip.open(os.path.join(data, "humaneval", "HumanEval.jsonl.gz"), "rt") as f:
        he = [json.loads(line) for line in f]
    alpaca = _jsonl(os.path.join(data, "llm_decontaminator", "CodeAlpacaDB.jsonl"))
    by_test = {r["test"]: r for r in alpaca}
    mbpp = [r["text"] + "\n" + r["code"] for r in _jsonl(os.path.join(data, "mbpp", "mbpp.jsonl"))]
    rng = random.Random(13)
    rows, positive, docs, where = [], set(), [], {}
    for i, h in enumerate(he):
        r = by_test.get(h["prompt"] + h["canonical_solution"]) or by_test.get(h["prompt"])
        rows.append({"text": h["prompt"]})
        if r is None:
            continue
        if any(r["results"]):
            positive.add(i)
            where[i] = [(len(docs) + k, 0, len(t.split())) for k, t in enumerate(r["train"])]
        docs += r["train"]
    docs += rng.sample(mbpp, 300)
    docs, where = _shuffle_many(docs, where, rng)
    return BenchSet(
        "codealpaca",
        rows,
        ("text",),
        docs,
        positive,
        where,
        note="HumanEval prompts; CodeAlpaca-20k nearest neighbours, 18 judged "
        "rephrasings by GPT-4 (llm-decontaminator)",
    )


def _shuffle_many(docs, where, rng):
    order = list(range(len(docs)))
    rng.shuffle(order)
    new_pos = {old: new for new, old in enumerate(order)}
    return [docs[o] for o in order], {
        i: [(new_pos[r], s, e) for r, s, e in ws] for i, ws in where.items()
    }


def build_gsm8k_stem(data: str) -> BenchSet:
    test = _jsonl(os.path.join(data, "gsm8k", "test.jsonl"))[400:700]
    reph = [
        r["text"] for r in _jsonl(os.path.join(data, "llm_decontaminator", "rephrase_gsm8k.jsonl"))
    ][400:700]
    train = [r["question"] for r in _jsonl(os.path.join(data, "gsm8k", "train.jsonl"))]
    wiki = _wiki(data)
    rng = random.Random(21)
    planted = {i: reph[i] for i in rng.sample(range(len(test)), 100)}
    others = rng.sample(train, 2000) + rng.sample(wiki, 1000)
    rows = [{"question": r["question"], "answer": r["answer"]} for r in test]
    return _planted_set(
        "gsm8k_stem",
        rows,
        ("question", "answer"),
        planted,
        wiki,
        others,
        rng,
        note="eval row = question + answer; training holds the rephrased question only",
    )


def _long_doc(paras, rng, inserts: list[str], min_words=1000) -> str:
    parts, n = [], 0
    while n < min_words:
        p = rng.choice(paras)
        parts.append(p)
        n += len(p.split())
    for t in inserts:
        parts.insert(rng.randrange(len(parts) + 1), t)
    return " ".join(parts)


def build_gsm8k_long(data: str) -> BenchSet:
    test = [r["question"] for r in _jsonl(os.path.join(data, "gsm8k", "test.jsonl"))][700:1000]
    reph = [
        r["text"] for r in _jsonl(os.path.join(data, "llm_decontaminator", "rephrase_gsm8k.jsonl"))
    ][700:1000]
    train = [r["question"] for r in _jsonl(os.path.join(data, "gsm8k", "train.jsonl"))]
    wiki = _wiki(data)
    rng = random.Random(31)
    planted_rows = sorted(rng.sample(range(len(test)), 100))
    docs, where = [], {}
    for i in planted_rows:
        host = _long_doc(wiki, rng, rng.sample(train, 2)).split()
        doc, s, e = _plant(host, reph[i], rng)
        where[i] = (len(docs), s, e)
        docs.append(doc)
    docs += [_long_doc(wiki, rng, rng.sample(train, 2)) for _ in range(200)]
    docs, where = _shuffle(docs, where, rng)
    return BenchSet(
        "gsm8k_long",
        [{"text": t} for t in test],
        ("text",),
        docs,
        set(planted_rows),
        where,
        note="rephrasing inside a document of 1,000+ words",
    )


def _tsv(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def _pair_set(name, pos_pairs, neg_pairs, filler, wiki, rng, note) -> BenchSet:
    pairs = [(a, b, True) for a, b in pos_pairs] + [(a, b, False) for a, b in neg_pairs]
    rng.shuffle(pairs)
    rows = [{"text": a} for a, _, _ in pairs]
    planted = {i: b for i, (_, b, _) in enumerate(pairs)}
    positive = {i for i, (_, _, p) in enumerate(pairs) if p}
    return _planted_set(name, rows, ("text",), planted, wiki, filler, rng, positive, note=note)


def build_mrpc(data: str) -> BenchSet:
    test = _tsv(os.path.join(data, "mrpc", "msr_paraphrase_test.txt"))[1:]
    train = _tsv(os.path.join(data, "mrpc", "msr_paraphrase_train.txt"))[1:]
    rng = random.Random(41)
    pos = rng.sample([(r[3], r[4]) for r in test if r[0] == "1"], 150)
    neg = rng.sample([(r[3], r[4]) for r in test if r[0] == "0"], 150)
    seen = {s for r in test for s in (r[3], r[4])}
    filler = rng.sample(sorted({s for r in train for s in (r[3], r[4])} - seen), 1500)
    wiki = _wiki(data)
    return _pair_set(
        "mrpc",
        pos,
        neg,
        filler + rng.sample(wiki, 500),
        wiki,
        rng,
        "MRPC test: paraphrase pairs planted; non-paraphrase pairs planted as hard negatives",
    )


def build_stsb(data: str) -> BenchSet:
    def read(split):
        return [r for r in _tsv(os.path.join(data, "stsb", f"sts-{split}.csv")) if len(r) >= 7]

    test, train = read("test"), read("train")
    rng = random.Random(43)
    pos = rng.sample([(r[5], r[6]) for r in test if float(r[4]) >= 4], 150)
    neg = rng.sample([(r[5], r[6]) for r in test if float(r[4]) <= 2], 150)
    seen = {s for r in test for s in (r[5], r[6])}
    filler = rng.sample(sorted({s for r in train for s in (r[5], r[6])} - seen), 1500)
    wiki = _wiki(data)
    return _pair_set(
        "stsb",
        pos,
        neg,
        filler + rng.sample(wiki, 500),
        wiki,
        rng,
        "STS-B test: gold ≥ 4 planted; gold ≤ 2 planted as hard negatives",
    )


def build_bigbench(data: str) -> BenchSet:
    with open(os.path.join(data, "bigbench", "rephrase_task.json"), encoding="utf-8") as f:
        ex = json.load(f)["examples"]
    src = [e["input"].split("\nKeyword:")[0].strip() for e in ex]
    tgt = [e["target"] if isinstance(e["target"], str) else e["target"][0] for e in ex]
    wiki = _wiki(data)
    rng = random.Random(51)
    planted = {i: tgt[i] for i in rng.sample(range(len(ex)), len(ex) // 2)}
    return _planted_set(
        "bigbench",
        [{"text": t} for t in src],
        ("text",),
        planted,
        wiki,
        rng.sample(wiki, 500),
        rng,
        note="BIG-bench rephrase: rewrites planted",
    )


_TAG = re.compile(r"<[^>]+>")


def _snippet(m: dict) -> str:
    return " ".join(html.unescape(_TAG.sub("", m["snippet"])).split())


def _mmlu(data: str, subjects=None):
    """{(subject, row): (question, answer text)} of MMLU test."""
    out = {}
    for path in sorted(glob.glob(os.path.join(data, "mmlu", "test", "*_test.csv"))):
        s = os.path.basename(path)[: -len("_test.csv")]
        if subjects is not None and s not in subjects:
            continue
        with open(path, encoding="utf-8", newline="") as f:
            for i, r in enumerate(csv.DictReader(f)):
                out[(s, i)] = (r["question"], r["choice" + r["answer"]])
    return out


def build_web(data: str) -> BenchSet:
    cd = os.path.join(data, "contamination_detector")
    with open(os.path.join(cd, "ARC_annotations.json"), encoding="utf-8") as f:
        arc_ann = json.load(f)
    arc = _jsonl(os.path.join(data, "arc_challenge", "arc_challenge_test.jsonl"))
    qa = {}
    for a in arc:
        ans = next(o["text"] for o in a["options"] if o["label"] == a["answer"])
        qa[a["question"] + " " + ans] = (a["id"], a["question"], ans)

    def matches(path, table):
        with open(path, encoding="utf-8") as f:
            ms = json.load(f)["matches"]
        return [
            (table[m[0]["query"]], [_snippet(x) for x in m])
            for m in ms
            if m and m[0]["query"] in table
        ]

    report = matches(os.path.join(cd, "ARC_report.json"), qa)  # contaminated items
    other = matches(os.path.join(cd, "ARC.json"), qa)  # some labelled clean
    rng = random.Random(61)
    rows, positive, docs, source = [], set(), [], {}

    def add(q, ans, snips=()):
        if snips:
            positive.add(len(rows))
            source[len(rows)] = list(range(len(docs), len(docs) + len(snips)))
        rows.append({"question": q, "answer": ans})
        docs.extend(snips)

    for (_aid, q, ans), snips in report:
        add(q, ans, snips)
    in_report = {aid for (aid, _, _), _ in report}
    for (aid, _, _), snips in other:  # web text of items the detector judged clean: beside
        if aid not in in_report and arc_ann[aid][0] == "clean":
            docs += snips
    with_web = in_report | {aid for (aid, _, _), _ in other}
    clean = [v for v in qa.values() if v[0] not in with_web and arc_ann[v[0]][0] == "clean"]
    for _, q, ans in rng.sample(clean, 100):
        add(q, ans)
    # MMLU: web matches of subjects that no held-out set uses
    skip = set(HELDOUT_SUBJECTS) | set(REPHRASE_SUBJECTS)
    mm = _mmlu(data)
    mtab = {q + " " + a: k for k, (q, a) in mm.items() if k[0] not in skip}
    mmatch = matches(os.path.join(cd, "mmlu.json"), mtab)
    with open(os.path.join(cd, "mmlu_annotations.json"), encoding="utf-8") as f:
        mann = json.load(f)
    mpos = rng.sample(mmatch, min(100, len(mmatch)))
    for k, snips in mpos:
        add(*mm[k], snips)
    subjects = {k[0] for k, _ in mpos}
    matched = {k for k, _ in mmatch}
    mclean = [
        k
        for k in mm
        if k[0] in subjects and k not in matched and mann.get(f"{k[0]} {k[1]}", ["?"])[0] == "clean"
    ]
    for k in rng.sample(sorted(mclean), 100):
        add(*mm[k])
    docs += rng.sample(_wiki(data), 500)
    order = list(range(len(rows)))
    rng.shuffle(order)
    rows = [rows[o] for o in order]
    new_row = {old: new for new, old in enumerate(order)}
    positive = {new_row[i] for i in positive}
    dorder = list(range(len(docs)))
    rng.shuffle(dorder)
    new_doc = {old: new for new, old in enumerate(dorder)}
    where = {
        new_row[i]: [(new_doc[d], 0, len(docs[d].split())) for d in ds] for i, ds in source.items()
    }
    docs = [docs[o] for o in dorder]
    return BenchSet(
        "web",
        rows,
        ("question", "answer"),
        docs,
        positive,
        where,
        note="ARC/MMLU items with their Bing snippets (Contamination_Detector)",
    )


def _mmlu_planted(name, data, subjects, texts_of, rng, note, role="held-out") -> BenchSet:
    mm = _mmlu(data, subjects)
    keys = sorted(mm)
    texts = texts_of(keys)
    usable = [k for k in keys if texts.get(k, "").strip()]
    ev = rng.sample(usable, min(300, len(usable)))
    planted_keys = set(rng.sample(ev, 100))
    rows = [{"question": mm[k][0], "answer": mm[k][1]} for k in ev]
    planted = {i: texts[k] for i, k in enumerate(ev) if k in planted_keys}
    skip = set(HELDOUT_SUBJECTS) | set(REPHRASE_SUBJECTS)
    other = sorted(q for (s, _), (q, _) in _mmlu(data).items() if s not in skip)
    wiki = _wiki(data)
    return _planted_set(
        name,
        rows,
        ("question", "answer"),
        planted,
        wiki,
        rng.sample(other, 600) + rng.sample(wiki, 500),
        rng,
        role=role,
        note=note,
    )


def build_mmlu_heldout(data: str) -> BenchSet:
    mm = _mmlu(data, HELDOUT_SUBJECTS)
    return _mmlu_planted(
        "mmlu_heldout",
        data,
        HELDOUT_SUBJECTS,
        lambda keys: {k: mm[k][0] for k in keys},
        random.Random(71),
        "MMLU " + ", ".join(HELDOUT_SUBJECTS) + ": question + answer; the "
        "question alone planted verbatim",
    )


def _decon_texts(folder: str, suffix: str, data: str):
    out = {}
    for s in REPHRASE_SUBJECTS:
        path = os.path.join(folder, f"{s}_test_{suffix}.jsonl")
        texts = [r["text"] for r in _jsonl(path)]
        n = len(_mmlu(data, (s,)))
        if len(texts) != n:
            raise SystemExit(f"{path}: {len(texts)} lines for {n} MMLU {s} rows")
        out.update({(s, i): t for i, t in enumerate(texts)})
    return out


def build_mmlu_rephrase(data: str, folder: str, chinese: bool = False) -> BenchSet:
    english = _decon_texts(folder, "rephrase_english_filtered_question", data)
    texts = _decon_texts(folder, "chinese_filtered_question", data) if chinese else english
    # the same rows in both: those with an English rephrasing (and, for Chinese, a translation)
    pick = {k: t for k, t in texts.items() if english.get(k, "").strip()}
    name = "mmlu_chinese" if chinese else "mmlu_rephrase"
    what = "Chinese translation" if chinese else "GPT-4 rephrasing"
    return _mmlu_planted(
        name,
        data,
        REPHRASE_SUBJECTS,
        lambda keys: pick,
        random.Random(73),
        f"MMLU {', '.join(REPHRASE_SUBJECTS)}: question + answer; the {what} "
        "of the question planted (llm-decontaminator)",
    )


FIT_SETS = {
    "gsm8k": build_gsm8k,
    "humaneval": build_humaneval,
    "gsm8k_stem": build_gsm8k_stem,
    "gsm8k_long": build_gsm8k_long,
    "mrpc": build_mrpc,
    "stsb": build_stsb,
    "bigbench": build_bigbench,
    "web": build_web,
    "codealpaca": build_codealpaca,
}


def drop_verbatim_negatives(b: BenchSet) -> BenchSet:
    """``b`` without the clean rows whose first field is in a training record verbatim (case
    and white space aside): such a row *is* in the training data (MMLU repeats 185 question
    strings; a quiz page in the web matches lists questions besides the one it was found
    for), so it is no clean negative. The count dropped goes into the note."""
    big = "\n".join(" ".join(d.lower().split()) for d in b.docs)
    drop = {
        i
        for i, r in enumerate(b.rows)
        if i not in b.positive and " ".join(r[b.fields[0]].lower().split()) in big
    }
    if not drop:
        return b
    keep = [i for i in range(len(b.rows)) if i not in drop]
    new = {old: k for k, old in enumerate(keep)}
    b.rows = [b.rows[i] for i in keep]
    b.positive = {new[i] for i in b.positive}
    b.where = {new[i]: w for i, w in b.where.items() if i in new}
    b.note += f" ({len(drop)} clean rows found verbatim in training dropped)"
    return b


def build_sets(data: str, names, decontaminator: str | None = None) -> list[BenchSet]:
    """The named sets (FIT_SETS, ``mmlu_heldout``, ``mmlu_rephrase``, ``mmlu_chinese``), each
    without its clean rows found verbatim in training (:func:`drop_verbatim_negatives`)."""
    out = []
    for n in names:
        if n in FIT_SETS:
            out.append(FIT_SETS[n](data))
        elif n == "mmlu_heldout":
            out.append(build_mmlu_heldout(data))
        elif n in ("mmlu_rephrase", "mmlu_chinese"):
            if decontaminator:
                out.append(build_mmlu_rephrase(data, decontaminator, n == "mmlu_chinese"))
        else:
            raise SystemExit(f"unknown set {n!r}")
    return [drop_verbatim_negatives(b) for b in out]
