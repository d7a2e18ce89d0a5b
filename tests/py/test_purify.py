"""The purify core: words back to characters, cut regions, pieces, record plans, the rows
that count, the self-check's verdict, and the raw-record rewriter. Expectations are worked
by hand on small fixtures (offsets written out in the comments)."""

import json

import pytest

from evalsieve.errors import EvalsieveError
from evalsieve.ngrams import EvalIndex, TrainingScan, containment_scores
from evalsieve.purify_core import (
    PurifyConfig,
    boilerplate_ids,
    counted_ngrams,
    cut_regions,
    kept_pieces,
    plan_record,
    segment_matches,
    still_contaminated,
    word_spans,
)
from evalsieve.purify_records import RecordRewriter, csv_cells
from evalsieve.text import normalize_text

# offsets: w00 0-2, w01 4-6, w02 8-10, w03 12-14, "One," 16-19, two 21-23, three 25-29,
# w04 31-33, w05 35-37 ... w09 51-53; 54 characters
TEXT_A = "w00 w01 w02 w03 One, two three w04 w05 w06 w07 w08 w09"
# One 0-2, two 4-6, three 8-12, aa 14-15, bb 17-18, cc 20-21, dd 23-24, ee 26-27, ff 29-30,
# gg 32-33, four 35-38, five 40-43, six 45-47, seven 49-53; 54 characters
TEXT_B = "One two three aa bb cc dd ee ff gg four five six seven"


@pytest.fixture(scope="module")
def index():
    return EvalIndex([["one two three"], ["four five six seven"]], n=3)


def everything(index):
    return frozenset(range(len(index.ngrams)))


# -- word spans ------------------------------------------------------------------------------
def test_word_spans_skip_punctuation_at_a_words_edges():
    assert word_spans("(Don't, stop) it") == [("dont", 1, 6), ("stop", 8, 12), ("it", 14, 16)]
    assert word_spans("... --- !!") == []


def test_word_spans_map_nfkc_back_to_the_original_characters():
    # x0 x1 _2 «3 Ｏ4 ｎ5 ｅ6 »7 ,8 _9 ｔ10 ｗ11 ｏ12 _13 (14 t15 h16 r17 e18 e19 )20 _21 y22 y23
    t = "xx «Ｏｎｅ», ｔｗｏ (three) yy"
    assert word_spans(t) == [
        ("xx", 0, 2),
        ("one", 4, 7),
        ("two", 10, 13),
        ("three", 15, 20),
        ("yy", 22, 24),
    ]
    # a ligature is one character of two letters; a combining accent stays with its letter
    assert word_spans("ﬁne cafe\u0301") == [("fine", 0, 3), ("café", 4, 9)]
    # NFKC turns the diaeresis into a space and a combining mark: two words in one token
    assert word_spans("a\u00a8b") == [("a", 0, 1), ("\u0308b", 1, 3)]
    # a final sigma depends on its neighbours: the token is one unit
    assert word_spans("ΑΣ. x") == [("ας", 0, 3), ("x", 4, 5)]


def test_white_space_is_a_boundary_of_the_rule():
    """Normalising white-space-separated tokens alone gives the text's words: every white
    space character stays white space, and nothing composes or case-maps across it."""
    spaces = [chr(c) for c in range(0x110000) if chr(c).isspace()]
    assert len(spaces) == 29
    hard = ["AΣ", "Σ", "e\u0301", "\u0301", "\u1100", "\u1161", "İ", "x\u00a8", "ﬁ", ""]
    for w in spaces:
        assert normalize_text(w).isspace(), hex(ord(w))
        for a in hard:
            for b in hard:
                assert normalize_text(a + w + b) == normalize_text(a) + normalize_text(
                    w
                ) + normalize_text(b), (a, w, b)


_CHARS = list("ab Z9.,'-\t\n") + [
    "\u00a0",
    "\u3000",
    "Σ",
    "σ",
    "é",
    "e\u0301",
    "\u0301",
    "ﬁ",
    "Ｆ",
    "\u00a8",
    "\u1100",
    "\u1161",
    "\u11a8",
    "İ",
    "—",
    "«",
    "»",
    "½",
    "\u200b",
    "\ufeff",
    "😀",
    "\u0663",
]


def test_word_spans_give_the_rules_words_and_cover_them():
    pytest.importorskip(
        "hypothesis", reason="the property test needs hypothesis (not in the Pyodide suite)"
    )
    from hypothesis import given, settings, strategies as st

    @settings(max_examples=400, deadline=None)
    @given(st.lists(st.sampled_from(_CHARS), max_size=30).map("".join))
    def check(text):
        ws = word_spans(text)
        assert [w for w, _, _ in ws] == normalize_text(text).split()
        for w, a, b in ws:
            assert 0 <= a < b <= len(text)
            assert w in normalize_text(text[a:b]).split()

    check()


# -- matches, regions, pieces -----------------------------------------------------------------
def test_segment_matches_find_the_span_of_each_occurrence(index):
    g = index.id_of("one two three")
    found, matches = segment_matches(TEXT_A, index, everything(index))
    assert found == {g} and matches == [(16, 30, g)]
    found, matches = segment_matches(TEXT_A, index, frozenset())
    assert found == {g} and matches == []  # found, but not counted: no cut


def test_cut_regions_widen_to_whole_tokens():
    span = [(16, 30)]
    assert cut_regions(TEXT_A, span, 0) == [(16, 30)]
    # [11, 35): 11 and 34 are spaces, so the tokens w03 .. w04
    assert cut_regions(TEXT_A, span, 5) == [(12, 34)]
    # [10, 36): 10 is inside w02 and 35 starts w05: back to 8, on to 38
    assert cut_regions(TEXT_A, span, 6) == [(8, 38)]
    assert cut_regions(TEXT_A, span, 1000) == [(0, 54)]
    # TEXT_B: "one two three" (0, 13) and "four five six" (35, 48), "five six seven" (40, 54)
    spans = [(0, 13), (35, 48), (40, 54)]
    assert cut_regions(TEXT_B, spans, 2) == [(0, 16), (32, 54)]
    # R = 10: [0, 23) ends on the space at 22, [25, 54) starts on the space at 25; " dd "
    # (22..26) stays between them. R = 11: [0, 24) ends inside dd, [24, 54) starts in it
    assert cut_regions(TEXT_B, spans, 10) == [(0, 22), (26, 54)]
    assert cut_regions(TEXT_B, spans, 11) == [(0, 54)]


def test_kept_pieces_leave_out_short_ones():
    assert kept_pieces(54, [(12, 34)], 10) == [(0, 12), (34, 54)]
    assert kept_pieces(54, [(12, 34)], 13) == [(34, 54)]
    assert kept_pieces(54, [(0, 16), (32, 54)], 16) == [(16, 32)]
    assert kept_pieces(54, [(0, 16), (32, 54)], 17) == []
    assert kept_pieces(5, [], 0) == [(0, 5)]


# -- record plans -----------------------------------------------------------------------------
def test_cut_plan_of_a_quoted_copy(index):
    plan = plan_record([TEXT_A], index, everything(index), PurifyConfig(radius=5, min_piece=10))
    assert plan.action == "cut" and plan.reason == ""
    assert plan.regions == [[(12, 34)]] and plan.matched == [[(16, 30)]]
    assert plan.values == ["w00 w01 w02  w05 w06 w07 w08 w09"]
    assert plan.values[0] == TEXT_A[0:12] + TEXT_A[34:54]
    assert plan.chars_removed == 22 and plan.splits == 1 and plan.occurrences == 1


def test_cut_plan_near_the_start_and_the_end(index):
    counted = everything(index)
    plan = plan_record([TEXT_B], index, counted, PurifyConfig(radius=2, min_piece=16))
    assert plan.regions == [[(0, 16), (32, 54)]] and plan.splits == 2
    assert plan.values == [" bb cc dd ee ff "] and plan.chars_removed == 38
    assert plan.occurrences == 3
    short = plan_record([TEXT_B], index, counted, PurifyConfig(radius=2, min_piece=17))
    assert (short.action, short.reason) == ("dropped", "no word left")
    assert short.chars_removed == 54
    split = plan_record([TEXT_B], index, counted, PurifyConfig(radius=2, min_piece=0, max_splits=1))
    assert (split.action, split.reason) == ("dropped", "split 2 times (more than 1)")


def test_cut_plan_keeps_nfkc_offsets(index):
    t = "xx «Ｏｎｅ», ｔｗｏ (three) yy"
    plan = plan_record([t], index, everything(index), PurifyConfig(radius=0, min_piece=0))
    assert plan.matched == [[(4, 20)]] and plan.regions == [[(3, 21)]]
    assert plan.values == ["xx  yy"]


def test_split_across_fields_cuts_each_field(index):
    segs = ["lead one two three", "four five six seven tail"]
    plan = plan_record(segs, index, everything(index), PurifyConfig(radius=0, min_piece=0))
    assert plan.regions == [[(5, 18)], [(0, 19)]]
    assert plan.values == ["lead ", " tail"] and plan.splits == 2
    # an n-gram never spans two fields: "three four five" is not one
    assert (
        plan_record(["one two", "three four"], index, everything(index), PurifyConfig()).action
        == ""
    )


def test_drop_mode_and_untouched_records(index):
    counted = everything(index)
    plan = plan_record([TEXT_A, "other"], index, counted, PurifyConfig("drop"))
    assert (plan.action, plan.reason, plan.chars_removed) == ("dropped", "drop mode", 59)
    clean = plan_record(["nothing to see here at all"], index, counted, PurifyConfig())
    assert clean.action == "" and clean.values == [None] and clean.found == set()


def test_joined_pieces_that_form_an_eval_ngram_drop_the_record():
    idx = EvalIndex([["p q r"], ["a b c"]], n=3)
    # a0 b2 zzzz4-7 p9 q11 r13 zzzz15-18 c20: the cut (4, 19) leaves "a b " + " c"
    plan = plan_record(
        ["a b zzzz p q r zzzz c"], idx, everything(idx), PurifyConfig(radius=5, min_piece=0)
    )
    assert plan.regions == [[(4, 19)]]
    assert (plan.action, plan.reason) == ("dropped", "the joined pieces hold an eval n-gram")


def test_config_is_checked():
    for bad in (
        {"mode": "trim"},
        {"rows": "all"},
        {"radius": -1},
        {"min_piece": 1.5},
        {"max_splits": True},
    ):
        with pytest.raises(EvalsieveError) as e:
            PurifyConfig(**bad)
        assert e.value.code == "bad_input"
    s = PurifyConfig().settings()
    assert (
        s["purify_mode"],
        s["purify_radius_chars"],
        s["purify_min_piece_chars"],
        s["purify_max_splits"],
    ) == ("cut", 200, 200, 10)


# -- which rows count, boilerplate, the self-check's verdict ---------------------------------
def _scored(rows, train_records, threshold=None):
    idx = EvalIndex([[r] for r in rows], n=3)
    scan = TrainingScan(idx)
    scan.scan([(i + 1, [t]) for i, t in enumerate(train_records)])
    scan.records = len(train_records)
    scores, cutoff = containment_scores(idx, scan, threshold=threshold)
    return idx, scan, scores, cutoff


def test_boilerplate_ngrams_cut_nothing():
    # "the end now" is in 11 records (> cut-off 10): boilerplate
    train = ["the end now"] * 11 + ["x one two three y"]
    idx, scan, scores, cutoff = _scored(["one two three", "so the end now"], train)
    bp = boilerplate_ids(scan.counts, cutoff)
    assert bp == {idx.id_of("the end now")}
    counted, rows_of = counted_ngrams(idx, scores, bp, "scored")
    assert idx.id_of("the end now") not in counted
    assert plan_record(["the end now"], idx, counted, PurifyConfig()).action == ""
    assert plan_record(["x one two three y"], idx, counted, PurifyConfig()).action == "dropped"
    assert rows_of[idx.id_of("one two three")] == [1]


def test_rows_choice_scored_or_contaminated_only():
    # row 2 has 2 n-grams, one found: containment 0.5, clean at threshold 0.8
    idx, scan, scores, _ = _scored(
        ["one two three", "four five six seven"], ["one two three", "four five six"], threshold=0.8
    )
    assert [s.status for s in scores] == ["contaminated", "clean"]
    scored, _ = counted_ngrams(idx, scores, frozenset(), "scored")
    only, rows_of = counted_ngrams(idx, scores, frozenset(), "contaminated")
    assert scored == set(range(3)) and only == {idx.id_of("one two three")}
    assert rows_of == {idx.id_of("one two three"): [1]}
    counts = list(scan.counts)
    check = still_contaminated(idx, scores, counts, frozenset(), 0.8, "contaminated")
    assert check == {
        "rows_contaminated": 1,
        "rows_asked": 1,
        "rows_asked_contaminated": 1,
        "rows": [1],
    }
    counts[idx.id_of("one two three")] = 0
    check = still_contaminated(idx, scores, counts, frozenset(), 0.8, "contaminated")
    assert check["rows_contaminated"] == check["rows_asked_contaminated"] == 0
    # with any overlap counted, row 2 is still contaminated, but it was not asked
    check = still_contaminated(idx, scores, counts, frozenset(), None, "contaminated")
    assert (check["rows"], check["rows_asked_contaminated"]) == ([2], 0)


# -- the raw-record rewriter -----------------------------------------------------------------
def test_json_rewrite_changes_only_the_chosen_tokens():
    rw = RecordRewriter("jsonl", ["text", "messages[role=user].content"], "t.jsonl")
    raw = (
        '{"id": 1.0, "z":"caf\\u00e9" ,"text": "caf\\u00e9 au lait", "messages":'
        '[{"role":"user","content":"h\u00e9 there"},{"role":"bot","content":"no"}], '
        '"text": "dup \\/ wins", "n": 1e5}\r\n'
    )
    value = rw.parse_line(raw, 1)
    segs = rw.segments(value)
    assert segs == ["dup / wins", "h\u00e9 there"]
    new = rw.rewrite(raw, segs, ["dup", "h\u00e9"])
    # the last duplicate key is the value (as json.loads reads it); only it changes
    assert new == raw.replace('"dup \\/ wins"', '"dup"').replace('"h\u00e9 there"', '"h\u00e9"')
    # a token that escaped its non-ASCII characters is written escaped
    raw2 = '{"text": "caf\\u00e9 au lait"}\n'
    assert rw.rewrite(raw2, ["caf\u00e9 au lait"], ["caf\u00e9"]) == '{"text": "caf\\u00e9"}\n'
    assert json.loads(new)["text"] == "dup"
    assert rw.rewrite(raw, segs, [None, None]) == raw


def test_json_rewrite_of_a_number_leaf_is_refused():
    rw = RecordRewriter("jsonl", ["n"], "t.jsonl")
    raw = '{"n": 12345}\n'
    assert rw.rewrite(raw, ["12345"], ["1"]) is None


def test_json_rewrite_checks_the_raw_text_against_the_values():
    rw = RecordRewriter("jsonl", ["text"], "t.jsonl")
    with pytest.raises(EvalsieveError) as e:
        rw.rewrite('{"text": "a"}\n', ["b"], ["c"])
    assert e.value.code == "internal"


def test_csv_cells_and_rewrite_keep_the_other_cells_quoting():
    body = '1,"x, ""y""",z,'
    assert csv_cells(body, ",") == [(0, 1, False), (2, 12, True), (13, 14, False), (15, 15, False)]
    rw = RecordRewriter("csv", ["b", "c"], "t.csv")
    header = ["a", "b", "c", "d"]
    raw = '"1","x, ""y""",z,\r\n'
    assert rw.rewrite(raw, ['x, "y"', "z"], ["new", None], header) == '"1","new",z,\r\n'
    assert rw.rewrite(raw, ['x, "y"', "z"], [None, 'q"t'], header) == '"1","x, ""y""","q""t",\r\n'
    tsv = RecordRewriter("tsv", ["b"], "t.tsv")
    assert tsv.rewrite("1\tlong text\n", ["long text"], ["a\tb"], ["a", "b"]) == '1\t"a\tb"\n'


def test_text_rewrite_keeps_the_line_end():
    rw = RecordRewriter("text", ["text"], "t.txt")
    assert rw.rewrite("hello world\r\n", ["hello world"], ["hi"]) == "hi\r\n"
    assert rw.rewrite("last", ["last"], [""]) == ""
