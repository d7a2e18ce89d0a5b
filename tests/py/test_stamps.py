"""evalsieve.stamps: canonical JSON and the run stamp's fingerprint (hand-computed)."""

import hashlib

from evalsieve import __version__
from evalsieve.stamps import InputFile, RunStamp, canonical_json
from evalsieve.text import UNICODE_VERSION


def test_canonical_json_sorts_keys_drops_spaces_keeps_utf8():
    assert canonical_json({"b": 1, "a": ["é", None, 0.5]}) == '{"a":["é",null,0.5],"b":1}'
    assert canonical_json({"z": {"y": 1, "x": 2}}) == '{"z":{"x":2,"y":1}}'


def stamp(utc="2026-01-01T00:00:00+00:00", n=13):
    return RunStamp(
        "contamination",
        {"n": n, "field": "question"},
        (InputFile("eval", "e.jsonl", "ab" * 32, 10, "jsonl"),),
        utc,
        {"model": "v1"},
        "CPython 3.11.7",
    )


def test_fingerprint_is_sha256_of_canonical_json_without_the_time():
    d = stamp().to_dict()
    # written out by hand: every field but utc (and the fingerprint), keys sorted, no spaces
    body = (
        '{"assets":{"model":"v1"},"environment":{},"inputs":[{"bytes":10,"format":"jsonl","name":"e.jsonl",'
        '"role":"eval","sha256":"' + "ab" * 32 + '"}],"job":"contamination",'
        '"runtime":"CPython 3.11.7","settings":{"field":"question","n":13},'
        '"tool":"evalsieve","unicode_version":"'
        + UNICODE_VERSION
        + '","version":"'
        + __version__
        + '"}'
    )
    assert d["fingerprint"] == hashlib.sha256(body.encode("utf-8")).hexdigest()
    assert d["utc"] == "2026-01-01T00:00:00+00:00" and d["tool"] == "evalsieve"


def test_fingerprint_ignores_the_time_and_follows_every_setting():
    a = stamp().to_dict()["fingerprint"]
    assert stamp(utc="2030-05-05T05:05:05+00:00").to_dict()["fingerprint"] == a
    assert stamp(n=8).to_dict()["fingerprint"] != a
