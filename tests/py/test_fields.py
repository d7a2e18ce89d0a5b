from evalsieve.fields import FieldExtractor, default_fields, discover_fields, flatten


def test_flatten_paths():
    v = {
        "q": "hi",
        "meta": {"src": "x", "n": 3},
        "messages": [{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}],
    }
    assert list(flatten(v)) == [
        ("q", "hi"),
        ("meta.src", "x"),
        ("meta.n", 3),
        ("messages[].role", "user"),
        ("messages[].content", "a"),
        ("messages[].role", "bot"),
        ("messages[].content", "b"),
    ]


def test_discover_fill_length_constant_and_default():
    rows = [
        {"system": "You are helpful.", "q": "What is two plus two?", "id": 1},
        {"system": "You are helpful.", "q": "Name a prime.", "id": 2},
        {"system": "You are helpful.", "q": "", "id": 3},
        {"system": "Other", "id": 4},
    ]
    infos = {f.path: f for f in discover_fields(rows)}
    assert infos["q"].fill == 2 / 4
    assert infos["q"].avg_chars == (21 + 13) / 2
    assert infos["system"].constant and "3 of 4" in infos["system"].reason
    assert not infos["q"].constant
    assert infos["id"].kind == "other" and infos["q"].kind == "text"
    # the longest non-constant text field; "system" is longer but constant
    assert default_fields(list(infos.values())) == ["q"]


def test_extract_segments_nested_and_flat():
    ex = FieldExtractor("jsonl", ["messages[].content", "meta.n"])
    v = {"messages": [{"content": "a"}, {"content": ""}, {"content": "b"}], "meta": {"n": 3}}
    assert ex.segments(v) == ["a", "b", "3"]
    flat = FieldExtractor("csv", ["question"])
    assert flat.segments({"question": "x", "other": "y"}) == ["x"]
    assert flat.segments({"question": ""}) == []
