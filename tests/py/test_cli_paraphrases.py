"""The CLI's paraphrase job end to end (needs the encoder extra and dist/assets/model)."""

import json
import os

import pytest

from evalsieve.cli import main
from hostile_common import read_csv_export

pytest.importorskip(
    "onnxruntime",
    reason="the paraphrase CLI needs the encoder extra "
    "(pip install -e .[encoder]); python3 build.py test installs it",
)
pytest.importorskip("tokenizers", reason="needs the encoder extra")


def rows_of(text):
    return read_csv_export(text)[1]


def test_worked_example_groups_and_chain(tmp_path, model_dir, capsys):
    from evalsieve.paraphrase import worked_example_jsonl

    f = tmp_path / "ex.jsonl"
    f.write_text(worked_example_jsonl())
    code = main(
        [
            "paraphrases",
            str(f),
            "--field",
            "text",
            "--label-field",
            "id",
            "--out",
            str(tmp_path / "o"),
            "--json",
            "--quiet",
        ]
    )
    assert code == 0
    s = json.loads(capsys.readouterr().out)
    assert s["rows_scanned"] == 6 and s["rows_truncated"] == 0 and s["threshold"] == 0.9
    assert (s["groups"], s["groups_chained"], s["rows_in_groups"]) == (2, 1, 5)
    assert s["effective_rows"] == 6 - 5 + 2 == 3 and s["duplicate_share"] == 83.3
    groups = rows_of(open(tmp_path / "o" / "paraphrase-groups.csv", newline="").read())
    assert [g["member_rows"] for g in groups] == ["1 2 3", "4 5"]
    g1, g2 = groups
    assert g1["chained"] == "yes" and g1["lowest_pair"] == "1 3"
    assert 0.80 < float(g1["lowest_internal_cosine"]) < 0.86
    assert g1["representative_row"] == "2"  # the middle of the chain
    assert g2["chained"] == "no" and g2["member_labels"] == "ex4 | ex5"
    pairs = rows_of(open(tmp_path / "o" / "paraphrase-pairs.csv", newline="").read())
    assert [(p["row_a"], p["row_b"]) for p in pairs] == [("4", "5"), ("1", "2"), ("2", "3")]
    cos = [float(p["cosine"]) for p in pairs]
    assert cos == sorted(cos, reverse=True) and min(cos) >= 0.90
    assert s["closest_pair"]["row_a"] == 4 and s["closest_pair"]["row_b"] == 5


def test_gsm8k_rephrasings_pair_with_their_source(tmp_path, model_dir, shared, capsys):
    """50 GSM8K test questions + their row-aligned GPT-4 rephrasings (llm-decontaminator):
    a found pair must join a question with its own rephrasing (row i with row 50 + i)."""
    qs = [json.loads(l)["question"] for l in open(os.path.join(shared, "gsm8k", "test.jsonl"))][:50]
    rs = [
        json.loads(l)["text"]
        for l in open(os.path.join(shared, "llm_decontaminator", "rephrase_gsm8k.jsonl"))
    ][:50]
    f = tmp_path / "mix.jsonl"
    f.write_text("".join(json.dumps({"text": t}) + "\n" for t in qs + rs))
    assert main(["paraphrases", str(f), "--out", str(tmp_path / "o"), "--json", "--quiet"]) == 0
    s = json.loads(capsys.readouterr().out)
    pairs = rows_of((tmp_path / "o" / "paraphrase-pairs.csv").read_text())
    assert len(pairs) >= 15
    aligned = sum(1 for p in pairs if int(p["row_b"]) - int(p["row_a"]) == 50)
    assert aligned / len(pairs) >= 0.9
    assert s["groups"] >= 15 and s["duplicate_share"] == round(100 * s["rows_in_groups"] / 100, 1)
