import random
import unicodedata

from evalsieve.text import normalize_many, normalize_text, normalize_text_reference, normalize_words


def test_worked_examples():
    assert normalize_words("It's 9:30, Dr. O'Neil!") == ["its", "930", "dr", "oneil"]
    # hyphens are deleted, not split on; symbols ($, +, =) are kept
    assert normalize_words("state-of-the-art $5 + 3 = 8") == [
        "stateoftheart",
        "$5",
        "+",
        "3",
        "=",
        "8",
    ]
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
    pools = [
        range(32, 0x250),
        range(0x2000, 0x2070),
        range(0x3000, 0x3100),
        range(0xFF00, 0xFF70),
        range(0x0590, 0x0700),
    ]
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
    assert table[0xBD] == "1⁄2" and 0x0301 not in table  # accents are excluded
    assert table[0x3A9] == "ω" and table[0x416] == "ж" and table[0x4E2D] == "中"
    assert 0x03A3 not in table and 0x03C3 in table  # capital sigma: Final_Sigma
    # Hangul syllables are in; the vowel and trailing jamo, which compose with the jamo or
    # syllable before them, are not (nor the compatibility jamo that NFKC makes vowels)
    assert table[0xAC00] == "가" and table[0xD55C] == "한" and table[0x1100] == "\u1100"
    assert 0x1161 not in table and 0x11A8 not in table and 0x314F not in table
    assert table[0x0915] == "क" and table[0x094D] == "\u094d"  # Devanagari; its virama
    assert 0x093C not in table and 0x0301 not in table  # the nukta, an accent
    assert table[0x0627] == "ا" and table[0x060C] == ""  # Arabic: its comma is P*
    assert 0x09BE not in table and 0x0B3E not in table  # vowel signs that compose
    one = {
        c: (table[c] if c > 127 else normalize_text(chr(c))) for c in list(table) + list(range(128))
    }
    # every adjacent pair of half the characters of the Latin, Greek and Cyrillic blocks and
    # the symbols, and a stride of the rest of the BMP (ideographs, syllables and most scripts
    # are many code points of one kind; the square of every script below U+2400 passed
    # once, in 8 minutes); test_char_table_never_composes_across_characters covers every
    # pair that composition could join
    old = lambda c: c < 0x500 or 0x1E00 <= c < 0x2400
    chars = [c for c in one if old(c)][::2] + [c for c in one if not old(c)][::97]
    if sys.platform == "emscripten":  # the square takes ~15 s in CPython
        chars = chars[::7]
    # one call per first character: the pairs joined by "\n", which nothing in the rule
    # joins across (a starter without compositions; neither cased nor case-ignorable)
    for a in chars:  # pairs with the separator itself, one by one
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


def test_composition_seconds_by_hand():
    from evalsieve.text import composition_seconds

    sec = composition_seconds()
    assert set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3)) <= sec  # Hangul V, T
    assert {
        0x09BE,
        0x09D7,
        0x0B3E,
        0x0B56,
        0x0B57,
        0x0BBE,
        0x0BD7,
        0x0CC2,
        0x0CD5,
        0x0CD6,
        0x0D3E,
        0x0D57,
        0x0DCF,
        0x0DDF,
        0x102E,
        0x1B35,
    } <= sec
    assert {0x0301, 0x093C, 0x0DCA} <= sec  # an accent, the nukta, Sinhala's virama
    assert 0x094D not in sec and 0x0915 not in sec and 0x0041 not in sec


def test_char_table_never_composes_across_characters():
    """No character of the table starts (in NFKD) with a character that canonical
    composition joins to any starter before it: for every first element of a canonical
    composite (and every Hangul leading jamo and LV syllable), followed by the first
    character of any table character's NFKD, NFC changes nothing. Reordering cannot join
    them either (every table character starts with a starter), so with Final_Sigma kept out
    (CONTEXT_CASED) the rule on a text of table characters is the characters' own results."""
    import sys
    from evalsieve.text import char_table

    table = char_table()
    firsts = {
        int(d.split()[0], 16)
        for d in map(unicodedata.decomposition, map(chr, range(0x110000)))
        if d and d[0] != "<" and d.count(" ") == 1
    }
    firsts |= set(range(0x1100, 0x1113)) | {0xAC00 + 28 * k for k in range(0, 399, 19)}  # L, LV
    # those that can end a table character's normal form (starters in NFC, as it is)
    firsts = {
        f
        for f in firsts
        if not any(unicodedata.combining(x) for x in unicodedata.normalize("NFC", chr(f)))
    }
    # the heads; of the ideographs and Hangul syllables (uniform: none composes with what
    # comes before it), a stride
    heads = sorted({unicodedata.normalize("NFKD", chr(c))[0] for c in table})
    uniform = lambda h: 0x4E00 <= ord(h) <= 0x9FFF or 0xAC00 <= ord(h) <= 0xD7A3
    heads = [h for h in heads if not uniform(h)] + [h for h in heads if uniform(h)][::53]
    assert all(unicodedata.combining(h) in (0, 9) for h in heads)  # starters, viramas
    if sys.platform == "emscripten":
        firsts = sorted(firsts)[::5]
    for f in firsts:
        assert _nfc_pairs_unchanged(f, heads), hex(f)


def test_char_table_viramas_next_to_every_character():
    """The table's marks are the viramas (combining class 9): after every table character
    (even one whose decomposition ends in accents of a higher class, which the virama moves
    before) and before it, the rule gives the two characters' own results."""
    from evalsieve.text import char_table

    table = char_table()
    marks = [c for c in table if unicodedata.combining(chr(c))]
    assert 0x094D in marks and 0x0BCD in marks and len(marks) == 34 and 0x0DCA not in table
    one = {
        c: (table[c] if c > 127 else normalize_text(chr(c))) for c in list(table) + list(range(128))
    }
    uniform = lambda c: 0x4E00 <= c <= 0x9FFF or 0xAC00 <= c <= 0xD7A3  # a stride of these
    chars = [c for c in one if c != 0x0A and not uniform(c)] + [c for c in one if uniform(c)][::53]
    for m in marks:
        got = normalize_text("\n".join(chr(a) + chr(m) for a in chars)).split("\n")
        assert got == [one[a] + chr(m) for a in chars], hex(m)
        got = normalize_text("\n".join(chr(m) + chr(b) for b in chars)).split("\n")
        assert got == [chr(m) + one[b] for b in chars], hex(m)
    # not in the table: an accent after the virama reorders before it
    assert normalize_text("e\u094d\u0301") == "\u00e9\u094d" != "e\u094d\u0301"


def _nfc_pairs_unchanged(f: int, heads: list[str]) -> bool:
    """NFC(first + head) is NFC(first) + head for every head (joined by "\n", which no
    composition crosses: a starter that composes with nothing)."""
    a = unicodedata.normalize("NFC", chr(f))
    joined = "\n".join(chr(f) + h for h in heads if h != "\n")
    want = "\n".join(a + unicodedata.normalize("NFC", h) for h in heads if h != "\n")
    return unicodedata.normalize("NFC", joined) == want


def test_char_table_is_the_plain_per_character_definition():
    """char_table's shortcuts (NFKC identity, category Lo) and its per-process cache give
    exactly the table of the plain definition: each starter whose NFKC form holds only
    starters and no context-cased character, mapped to normalize_text of itself."""
    from evalsieve.text import CONTEXT_CASED, SAFE_BLOCKS, char_table, composition_seconds

    want = {}
    seconds = composition_seconds()
    assert SAFE_BLOCKS == ((0x80, 0xFFFF),)
    for lo, hi in SAFE_BLOCKS:
        for c in range(lo, hi + 1):
            ch = chr(c)
            if unicodedata.category(ch) in ("Cn", "Cs", "Co"):
                continue
            if unicodedata.combining(ch):  # a mark: a virama that composes with nothing
                if (
                    unicodedata.combining(ch) == 9
                    and unicodedata.normalize("NFKD", ch) == ch
                    and c not in seconds
                ):
                    want[c] = ch
                continue
            if ord(unicodedata.normalize("NFKD", ch)[0]) in seconds:
                continue
            k = unicodedata.normalize("NFKC", ch)
            if any(unicodedata.combining(x) or ord(x) in CONTEXT_CASED for x in k):
                continue
            want[c] = normalize_text_reference(ch)
    got = char_table()
    assert got == want
    got[0xE9] = "changed"  # a copy: the cache is not touched
    assert char_table() == want
    assert char_table(((0xC0, 0xC5),)) == {c: chr(c + 32) for c in range(0xC0, 0xC6)}
