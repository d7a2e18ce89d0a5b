"""constants.py is the one source of the rule constants: the modules that apply a rule use it."""

import argparse

import pytest

from evalsieve import cli, constants, ngrams, paraphrase, records
from evalsieve.errors import EvalsieveError


def test_binary_magic_refusals_follow_the_table():
    for magic, what, todo, also in constants.BINARY_MAGIC:
        head = magic + (b"\x00" * (also[0] - len(magic)) + also[1] if also else b"") + b"rest"
        with pytest.raises(EvalsieveError) as e:
            records.refuse_binary("f.bin", head)
        assert what in e.value.message and todo in e.value.expected
    records.refuse_binary("bzip.txt", b"BZh is a word in this text")  # no block magic: text
    bzip2 = next(t for t in constants.BINARY_MAGIC if t[0] == b"BZh")
    assert constants.binary_kind(b"BZh91AY&SY...") == ("a bzip2 file", bzip2[2])


def test_auto_n_clamp_and_user_n_range():
    assert ngrams.ngram_size([1] * 50) == (8, ngrams.ngram_size([1] * 50)[1])
    assert ngrams.ngram_size([500] * 50)[0] == 13
    assert (ngrams.N_MIN, ngrams.N_MAX) == (constants.N_AUTO_MIN, constants.N_AUTO_MAX)
    with pytest.raises(EvalsieveError):
        ngrams.EvalIndex([["a b c"]], n=constants.N_MAX + 1)


def test_cli_bounds_are_the_constants():
    assert cli._n(str(constants.N_MAX)) == constants.N_MAX
    for bad in (str(constants.N_MIN - 1), str(constants.N_MAX + 1)):
        with pytest.raises(argparse.ArgumentTypeError):
            cli._n(bad)
    with pytest.raises(argparse.ArgumentTypeError):
        cli._threshold("0")
    assert cli._threshold("1") == 1.0 and cli._threshold("any") is None
    assert cli._cosine(str(constants.PARA_FLOOR)) == constants.PARA_FLOOR
    # the CLI goes below the page's slider floor, down to PARA_CLI_FLOOR
    assert cli._cosine(str(constants.PARA_CLI_FLOOR)) == constants.PARA_CLI_FLOOR == 0.5
    with pytest.raises(argparse.ArgumentTypeError):
        cli._cosine("0.4999")
    args = cli.build_parser().parse_args(["paraphrases", "e.jsonl", "--out", "o"])
    assert args.threshold == constants.PARA_THRESHOLD_DEFAULT


def test_export_names_are_the_constants():
    from evalsieve.results import clean_name

    for fmt, name in constants.CLEAN_NAME_BY_FORMAT.items():
        assert clean_name(fmt) == name
    cfg = paraphrase.ParaphraseConfig("q")
    assert (cfg.threshold, cfg.floor, cfg.window) == (
        constants.PARA_THRESHOLD_DEFAULT,
        constants.PARA_FLOOR,
        constants.PARA_WINDOW,
    )
    job = paraphrase.ParaphraseJob(cfg, "e.jsonl", "jsonl")
    job.feed_eval('{"q": "a b"}\n{"q": "c d"}\n')
    job.end_eval()
    job.set_similarity([], [0.0, 0.0], [1, 0], 0)
    from evalsieve.para_exports import export_names
    from evalsieve.stamps import InputFile

    res = job.finish(cfg.threshold, InputFile("eval", "e.jsonl", "", 0), "t")
    assert export_names(res) == [
        *constants.PARAPHRASE_EXPORTS,
        "eval.deduplicated.jsonl",
        constants.DEDUP_DROPPED_EXPORT,
        "run-stamp.json",
    ]
    assert paraphrase.DIM == constants.EMBEDDING_DIMS


def test_as_json_is_plain_json_with_every_published_key():
    import json

    v = constants.as_json()
    assert json.loads(json.dumps(v)) == v
    assert set(v) == {
        "n_min",
        "n_max",
        "n_auto_min",
        "n_auto_max",
        "threshold_min_exclusive",
        "threshold_max",
        "para_floor",
        "para_threshold_max",
        "para_threshold_default",
        "para_window",
        "embedding_dims",
        "export_names",
        "binary_magic",
        "clean_rules",
        "semantic_code_ngram",
        "purify",
        "dedup_keep_rules",
    }
    assert list(v["dedup_keep_rules"]) == ["first", "longest"]  # the first is the default
    # the semantic rung's code channel: SemanticConfig, the CLI and the page's input
    assert v["semantic_code_ngram"] == {"min": 0, "max": 8, "default": 3}
    from evalsieve.semantic import SemanticConfig

    assert SemanticConfig().code_ngram == constants.SEMANTIC_CODE_NGRAM_DEFAULT
    assert cli._code_ngram(str(constants.SEMANTIC_CODE_NGRAM_MAX)) == 8
    with pytest.raises(argparse.ArgumentTypeError):
        cli._code_ngram(str(constants.SEMANTIC_CODE_NGRAM_MAX + 1))
    # one table of clean rules: the job's, the CLI's --clean and the page's (ready.constants)
    from evalsieve.contamination_job import CLEAN_RULES

    assert CLEAN_RULES is constants.CLEAN_RULES
    assert list(v["clean_rules"]) == ["scored", "not-contaminated"]
    assert v["clean_rules"] == constants.CLEAN_RULES
    assert set(v["export_names"]) == {
        "clean_by_format",
        "contamination",
        "paraphrases",
        "skipped",
        "stamp",
        "dedup_by_format",
        "dedup_dropped",
    }
    assert v["export_names"]["dedup_by_format"]["csv"] == "eval.deduplicated.csv"
    assert v["export_names"]["skipped"] == "skipped-lines.csv"
    assert v["export_names"]["stamp"] == constants.STAMP_EXPORT == "run-stamp.json"
    assert v["binary_magic"][0] == {
        "magic": [0x50, 0x4B, 3, 4],
        "what": constants.BINARY_MAGIC[0][1],
        "todo": constants.BINARY_MAGIC[0][2],
        "also": None,
    }
    bz = [m for m in v["binary_magic"] if m["also"]]
    assert len(bz) == 1 and bz[0]["also"] == {"at": 4, "magic": list(b"1AY&SY")}
