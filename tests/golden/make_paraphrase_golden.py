"""Write tests/golden/paraphrase_golden.json: the paraphrase exports of the quadratic grouping
(evalsieve commit 97c32dd, before regrouping became bounded) on real embeddings, so the tests
hold the bounded grouping to the same bytes.

Rows: the 57 texts of tests/golden/minilm_reference.json (GSM8K, STS-B, TruthfulQA, MRPC,
MATH-500, two hand-written; see its provenance and licences) with their fp32
all-MiniLM-L6-v2 vectors (the empty one is skipped by the job, as any empty field). The
candidate pairs are the tile scan's: every pair with cosine ≥ the floor, the cosine rounded to
float32. The floor is 0.30 (not the page's 0.75) so that large chained groups form in 57 rows.

    git archive 97c32dd py | tar -x -C /tmp/old
    python3 tests/golden/make_paraphrase_golden.py /tmp/old/py
"""

import json
import os
import sys
from array import array

HERE = os.path.dirname(os.path.abspath(__file__))
FLOOR = 0.30
THRESHOLDS = (0.30, 0.35, 0.45, 0.55, 0.62, 0.80, 0.90)


def inputs():
    """(jsonl text, vectors array('f') of the non-empty rows, candidates, nn, nn_index)."""
    rows = json.load(open(os.path.join(HERE, "minilm_reference.json"), encoding="utf-8"))["rows"]
    text = "".join(
        json.dumps({"id": f"g{k + 1}", "text": r["text"]}) + "\n" for k, r in enumerate(rows)
    )
    vecs = [array("f", r["vector"]) for r in rows if r["text"].strip()]
    n = len(vecs)
    f32 = lambda x: array("f", [x])[0]
    dots = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            dots[i][j] = dots[j][i] = f32(sum(a * b for a, b in zip(vecs[i], vecs[j])))
    cands = [(i, j, dots[i][j]) for i in range(n) for j in range(i + 1, n) if dots[i][j] >= FLOOR]
    nn_index = [
        max((j for j in range(n) if j != i), key=lambda j: (dots[i][j], -j)) for i in range(n)
    ]
    nn = [dots[i][nn_index[i]] for i in range(n)]
    emb = array("f")
    for v in vecs:
        emb.extend(v)
    return text, emb, cands, nn, nn_index


def exports_at(job_module, stamps_module, threshold):
    text, emb, cands, nn, nn_index = inputs()
    job = job_module.ParaphraseJob(
        job_module.ParaphraseConfig("text", "id", threshold, FLOOR), "golden.jsonl", "jsonl"
    )
    job.feed_eval(text)
    job.end_eval()
    job.set_similarity(cands, nn, nn_index, 0, emb.tobytes(), {"model_sha256": "0" * 64})
    job.group(threshold)
    eval_file = stamps_module.InputFile("eval", "golden.jsonl", "0" * 64, len(text))
    if hasattr(job, "export"):  # an older tree: the job held its exports
        job.finish(eval_file, "t")
        return {name: job.export(name)[1].split("\r\n", 1)[1] for name in job.export_names()}
    # today's: finish() returns the result, and the exports are functions of it
    import importlib

    px = importlib.import_module(job_module.__name__.rsplit(".", 1)[0] + ".para_exports")
    res = job.finish(threshold, eval_file, "t")
    return {name: px.export(res, name)[1].split("\r\n", 1)[1] for name in px.export_names(res)}


def main(old_py):
    sys.path.insert(0, old_py)
    from evalsieve import paraphrase, stamps

    out = {
        "provenance": "tests/golden/make_paraphrase_golden.py run on evalsieve 97c32dd "
        "(quadratic grouping); CSV bodies without the stamp line",
        "floor": FLOOR,
        "exports": {f"{t:.2f}": exports_at(paraphrase, stamps, t) for t in THRESHOLDS},
    }
    with open(os.path.join(HERE, "paraphrase_golden.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
