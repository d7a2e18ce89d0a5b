import random
import unicodedata

from evalsieve.text import (normalize_many, normalize_text, normalize_text_reference,
                            normalize_words)


def test_worked_examples():
    assert normalize_words("It's 9:30, Dr. O'Neil!") == ["its", "930", "dr", "oneil"]
    # hyphens are deleted, not split on; symbols ($, +, =) are kept
    assert normalize_words("state-of-the-art $5 + 3 = 8") == ["stateoftheart", "$5", "+", "3", "=", "8"]
    # NFKC folds full-width letters; curly quotes and em dash are punctuation
    assert normalize_words("Ｆｕｌｌ—width “quote”") == ["fullwidth", "quote"]
    # final sigma (full Unicode lowercase)
    assert normalize_words("ΣΑΣ") == ["σας"]
    # NFKC turns the ﬁ ligature into "fi" and ² into 2
    assert normalize_words("ﬁne x²") == ["fine", "x2"]


def test_ascii_fast_path_equals_definition_for_every_ascii_char():
    s = "".join(chr(c) for c in range(128)) * 2
    assert normalize_text(s) == normalize_text_reference(s)


def test_fast_paths_equal_definition_on_random_unicode():
    rng = random.Random(1)
    pools = [range(32, 0x250), range(0x2000, 0x2070), range(0x3000, 0x3100),
             range(0xFF00, 0xFF70), range(0x0590, 0x0700)]
    for _ in range(300):
        chars = []
        for _ in range(rng.randrange(1, 60)):
            pool = rng.choice(pools)
            chars.append(chr(rng.choice(pool)) if rng.random() < 0.5 else rng.choice("ab ,.'-\n"))
        s = "".join(chars)
        assert normalize_text(s) == normalize_text_reference(s), repr(s)


def test_every_punctuation_codepoint_is_deleted():
    import sys
    for c in range(sys.maxunicode + 1):
        ch = chr(c)
        if unicodedata.category(ch).startswith("P") and not 0xD800 <= c < 0xE000:
            t = normalize_text("a" + ch + "b")
            assert ch not in t


def test_normalize_many_matches_one_by_one():
    texts = ["Hello, World", "", "naïve café!", "a\x00b", "Tab\there", "ÀB"]
    assert normalize_many(texts) == [normalize_text(t) for t in texts]


def test_lone_surrogate_survives():
    assert normalize_words("x \ud800 y,") == ["x", "\ud800", "y"]


def test_char_table_characters_normalise_one_by_one():
    """worker/prefilter.js normalises text made of ASCII and char_table characters one
    character at a time; that equals the rule on the whole text for every adjacent pair."""
    import sys
    from evalsieve.text import char_table
    table = char_table()
    assert table[0xE9] == "é" and table[0x2019] == "" and table[0xA0] == " "
    assert table[0xBD] == "1⁄2" and 0x0301 not in table      # combining marks are excluded
    assert table[0x3A9] == "ω" and table[0x416] == "ж" and table[0x4E2D] == "中"
    assert 0x03A3 not in table and 0x03C3 in table            # capital sigma: Final_Sigma
    assert 0xAC00 not in table                                 # Hangul composes: left out
    one = {c: (table[c] if c > 127 else normalize_text(chr(c))) for c in list(table) + list(range(128))}
    # every adjacent pair of the non-ideograph characters (the ideographs are 20,992 code
    # points of one kind: a stride of them is paired with everything else)
    chars = [c for c in one if not 0x4E00 <= c <= 0x9FFF] + list(range(0x4E00, 0xA000, 97))
    if sys.platform == "emscripten":        # the full square takes ~15 s in CPython
        chars = chars[::7]
    # one call per first character: the pairs joined by "\n", which nothing in the rule
    # joins across (a starter without compositions; neither cased nor case-ignorable)
    for a in chars:                          # pairs with the separator itself, one by one
        assert normalize_text(chr(a) + "\n") == one[a] + "\n"
        assert normalize_text("\n" + chr(a)) == "\n" + one[a]
    chars = [c for c in chars if c != 0x0A]
    seconds = [chr(b) for b in chars]
    for a in chars:
        got = normalize_text("\n".join(chr(a) + b for b in seconds)).split("\n")
        want = [one[a] + one[b] for b in chars]
        if got != want:
            bad = next(i for i, (g, w) in enumerate(zip(got, want)) if g != w)
            raise AssertionError((hex(a), hex(chars[bad]), got[bad], want[bad]))
    # the Final_Sigma case the table must avoid
    assert normalize_text("ΑΣ") == "ας" != "α" + normalize_text("Σ")
    rng = random.Random(4)
    for _ in range(2000):
        s = [rng.choice(list(one)) for _ in range(rng.randrange(1, 12))]
        assert normalize_text("".join(map(chr, s))) == "".join(one[c] for c in s)


def test_char_table_is_the_plain_per_character_definition():
    """char_table's shortcuts (NFKC identity, category Lo) and its per-process cache give
    exactly the table of the plain definition: each starter whose NFKC form holds only
    starters and no context-cased character, mapped to normalize_text of itself."""
    from evalsieve.text import CONTEXT_CASED, SAFE_BLOCKS, char_table
    want = {}
    for lo, hi in SAFE_BLOCKS:
        for c in range(lo, hi + 1):
            ch = chr(c)
            if unicodedata.category(ch) in ("Cn", "Cs", "Co") or unicodedata.combining(ch):
                continue
            k = unicodedata.normalize("NFKC", ch)
            if any(unicodedata.combining(x) or ord(x) in CONTEXT_CASED for x in k):
                continue
            want[c] = normalize_text_reference(ch)
    got = char_table()
    assert got == want
    got[0xE9] = "changed"                       # a copy: the cache is not touched
    assert char_table() == want
    assert char_table(((0xC0, 0xC5),)) == {c: chr(c + 32) for c in range(0xC0, 0xC6)}
