"""Fields: which parts of a record are text to score.

A *field path* names a leaf of a record: nested JSON objects are flattened with dots
(``meta.source``) and list elements are written ``[]`` (``messages[].content``); CSV/TSV
fields are header names; plain-text files have the single field ``text``.

A path may hold several values in one record (``messages[].content`` on a chat with five
messages); each value is a separate *segment*, and an n-gram never spans two segments.

An *element filter* ``[key=value]`` in place of ``[]`` keeps only the list elements (objects)
whose ``key`` equals ``value``: ``messages[role=user].content`` is the user turns of a chat.
Discovery offers these paths when a list of objects has a role-like key (``ROLE_KEYS``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from .constants import N_AUTO_MIN
from .errors import bad_input
from .field_names import KIND_TEXT, name_kind, prompt_rank
from .records import split_format
from .text import normalize_many

#: Keys of chat-turn objects whose value names the turn's role (``role`` in OpenAI-style
#: messages, ``from`` in ShareGPT, ``speaker``/``author``/``sender`` elsewhere).
ROLE_KEYS = ("role", "from", "speaker", "author", "sender")
#: Role values offered as filters must be short plain labels (no ``[ ] . =``).
_LABEL = re.compile(r"^[^\[\].=]{1,40}$")
#: At most this many distinct values of one role key become filter paths.
MAX_ROLE_VALUES = 8
_STEP = re.compile(r"\[(?:([^\[\]=]+)=([^\[\]]*))?\]")


class FieldInfo(NamedTuple):
    """What the sample of a file's head says about one field.

    Attributes:
        path: the field path (see module docstring).
        fill: share of sampled records with a non-empty value, in [0, 1].
        avg_chars: mean length in characters of the field's text over the records that have
            it (all segments of a record added up).
        kind: ``"text"`` if every value is a JSON string (or CSV/TSV/text cell), else
            ``"other"`` (numbers, booleans; these are scored as their JSON text).
        constant: True when one value is shared by more than half of the sampled records
            (a system prompt, an instruction template): shown, but never selected by default.
        reason: why the field is not selected by default, or "".
        avg_words: mean count of *prose words* per sampled record (records without the field
            count 0): words under the contamination rule (NFKC, lowercase, punctuation
            deleted) that hold at least one letter, so numbers, sums and URLs (one word
            once punctuation is gone) count little.
        text_share: share of sampled records whose value is non-empty text (a string).
        filter: True for an element-filter path (``messages[role=user].content``).
        named: what the name says the field holds (:func:`evalsieve.field_names.name_kind`:
            ``prompt``, ``user_turn``, ``neutral``, ``answer``, ``code``, ``meta``,
            ``turn``), or ``looks_code`` for a neutral name whose values look like code.
        shared: for a field that is not constant but holds a part shared by more than half
            of the sampled records: ``"the same element on 974 of 974 sampled rows ('You
            are…')"`` (one value of a list, such as a chat's system turn) or ``"a 12-word
            passage on 980 of 1000 sampled rows ('below is an…')"`` (a run of at least
            :data:`PASSAGE_WORDS` words under the rule); else "".
        shared_rows: the sampled records holding that part (0 without one).
    """

    path: str
    fill: float
    avg_chars: float
    kind: str
    constant: bool
    reason: str
    avg_words: float = 0.0
    text_share: float = 0.0
    filter: bool = False
    named: str = ""
    shared: str = ""
    shared_rows: int = 0


#: A run of at least this many words (under the rule) shared by more than half of the
#: sampled rows is a template: it is N_AUTO_MIN, the smallest N the rule picks itself, so
#: such a run makes n-grams that every one of those rows holds.
PASSAGE_WORDS = N_AUTO_MIN
#: A field named for the prompt (or a user turn) counts as one with at least this many
#: prose words per row; with fewer (a one-word ``question_concept``) its name says nothing.
PHRASE_WORDS = 3
#: Shared parts are quoted in reasons cut to this many characters.
QUOTE_CHARS = 48


def _leaf_text(v) -> str | None:
    if v is None or isinstance(v, (dict, list)):
        return None
    if isinstance(v, str):
        return v
    return json.dumps(v, ensure_ascii=False)


def flatten(value, prefix: str = "", filters: bool = False) -> Iterator[tuple[str, object]]:
    """Yield ``(path, leaf)`` for every leaf of a parsed JSON value.

    With ``filters``, a list element that is an object with a role-like key (``ROLE_KEYS``)
    whose value is a short label also yields its other leaves under the filtered path
    (``messages[role=user].content``), after the plain ``[]`` ones.

    Example:
        >>> list(flatten({"q": "hi", "messages": [{"content": "a"}, {"content": "b"}]}))
        [('q', 'hi'), ('messages[].content', 'a'), ('messages[].content', 'b')]
    """
    if isinstance(value, dict):
        for k, v in value.items():
            yield from flatten(v, f"{prefix}.{k}" if prefix else str(k), filters)
    elif isinstance(value, list):
        for v in value:
            yield from flatten(v, prefix + "[]", filters)
        if filters:
            for v in value:
                if not isinstance(v, dict):
                    continue
                key = next(
                    (k for k in ROLE_KEYS if isinstance(v.get(k), str) and _LABEL.match(v[k])), None
                )
                if key is None:
                    continue
                sel = f"{prefix}[{key}={v[key]}]"
                for k, x in v.items():
                    if k != key:
                        yield from flatten(x, f"{sel}.{k}", False)
    else:
        yield prefix, value


def _is_prose(w: str) -> bool:
    return not w.isdigit() and any(c.isalpha() for c in w)


def prose_words(texts: list[str]) -> list[int]:
    """How many prose words each text holds: words of the contamination rule
    (:func:`evalsieve.text.normalize_many`) holding at least one letter.

    Example: ``prose_words(["Natalia sold 48/2 = <<48/2=24>>24 clips", "https://x.org/a"])``
    is ``[3, 1]`` (the sums are numbers; the URL is one word).
    """
    return [sum(1 for w in t.split() if _is_prose(w)) for t in normalize_many(texts)]


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= QUOTE_CHARS else flat[: QUOTE_CHARS - 1].rstrip() + "…")


def shared_passage(
    rows: list[list[list[str]]], total: int, n: int = PASSAGE_WORDS
) -> tuple[int, list[str]]:
    """The run of at least ``n`` words most rows share, if more than half of ``total`` do.

    Args:
        rows: per sampled row holding the field, its segments' words under the rule (an
            n-gram never spans two segments, as in the run).
        total: rows sampled (rows without the field count against "more than half").
        n: the shortest run that counts.
    Returns:
        ``(rows holding it, its words)``: the ``n``-gram held by the most rows (the first
        seen on a tie), extended both ways through the other ``n``-grams held by more than
        half of the rows; ``(0, [])`` when no ``n``-gram is held by more than half (or by
        fewer than 2 rows).
    """
    need = total // 2 + 1  # more than half of the sampled rows
    if len(rows) < max(2, need):
        return 0, []
    # a run on `need` of the rows is on at least one of the first len(rows) - need + 1: only
    # runs seen there are counted in the later rows
    first = len(rows) - need + 1
    df: dict[tuple, int] = {}
    for k, segs in enumerate(rows):
        # (in order of appearance, so "the first seen" does not depend on string hashing)
        grams = dict.fromkeys(tuple(ws[i : i + n]) for ws in segs for i in range(len(ws) - n + 1))
        if k < first:
            for g in grams:
                df[g] = df.get(g, 0) + 1
        else:
            for g in grams:
                if g in df:
                    df[g] += 1
    top = max(df.values(), default=0)
    if top < need:
        return 0, []
    top_gram = next(g for g, c in df.items() if c == top)  # the first seen among equals
    common = [g for g, c in df.items() if c * 2 > total]  # in order of appearance
    after = {g[:-1]: g for g in common}
    before = {g[1:]: g for g in common}
    words, seen = list(top_gram), {top_gram}
    while (g := after.get(tuple(words[-(n - 1) :]))) is not None and g not in seen:
        seen.add(g)
        words.append(g[-1])
    while (g := before.get(tuple(words[: n - 1]))) is not None and g not in seen:
        seen.add(g)
        words.insert(0, g[0])
    return top, words


def _looks_like_code(texts: list[str]) -> bool:
    """True when more than half of ``texts`` (a field's values, one per row) are code: at
    least 2 non-empty lines, and at least 60% of them indented or ending in ``: ; { } )``
    (Python, C-like and JavaScript bodies; prose lines end in words and full stops)."""
    code = 0
    for t in texts:
        lines = [ln for ln in t.splitlines() if ln.strip()]
        if len(lines) >= 2 and 10 * sum(
            1 for ln in lines if ln[:1] in " \t" or ln.rstrip()[-1:] in (":", ";", "{", "}", ")")
        ) >= 6 * len(lines):
            code += 1
    return code * 2 > len(texts)


def discover_fields(values: Iterable[dict], filters: bool = True) -> list[FieldInfo]:
    """Describe every leaf field seen in a sample of records.

    Args:
        values: the ``value`` dicts of the sampled records (the head of the file).
        filters: also describe element-filter paths (``messages[role=user].content``).
    Returns:
        One :class:`FieldInfo` per path, plain paths in first-seen order, then the filter
        paths in first-seen order. The constant flag is per path (a system turn shared by
        every record makes ``messages[role=system].content`` constant, not the user
        turns); ``shared`` finds the same turn inside ``messages[].content`` (an element
        shared by more than half of the rows) and a template inside one string (a shared
        run of :data:`PASSAGE_WORDS` words, :func:`shared_passage`).
    """
    order: list[str] = []
    filled: dict[str, int] = {}
    texts: dict[str, int] = {}
    chars: dict[str, int] = {}
    texty: dict[str, bool] = {}
    seen_vals: dict[str, dict[str, int]] = {}
    elems: dict[str, dict[str, int]] = {}
    multi: dict[str, bool] = {}
    row_segs: dict[str, list[list[str]]] = {}
    total = 0
    for value in values:
        total += 1
        per: dict[str, list[str]] = {}
        strs: dict[str, bool] = {}
        for path, leaf in flatten(value, filters=filters):
            if path not in filled:
                order.append(path)
                filled[path] = texts[path] = chars[path] = 0
                texty[path] = True
                multi[path] = False
                seen_vals[path], elems[path], row_segs[path] = {}, {}, []
            if leaf is not None and not isinstance(leaf, str):
                texty[path] = False
            elif isinstance(leaf, str) and leaf.strip():
                strs[path] = True
            t = _leaf_text(leaf)
            if t is not None:
                per.setdefault(path, []).append(t)
        for path in strs:
            texts[path] += 1
        for path, segs in per.items():
            joined = "\x1f".join(segs)
            if joined.strip():
                filled[path] += 1
                chars[path] += sum(len(s) for s in segs)
                row_segs[path].append(segs)
                counts = seen_vals[path]
                if len(counts) < 10000:
                    counts[joined] = counts.get(joined, 0) + 1
                if len(segs) > 1:
                    multi[path] = True
                ec = elems[path]
                for s in dict.fromkeys(segs):  # each once, in order (not hash order)
                    if s.strip() and (s in ec or len(ec) < 10000):
                        ec[s] = ec.get(s, 0) + 1
    out = []
    plain = [p for p in order if "=" not in p]
    filtered = [p for p in order if "=" in p]
    for path in plain + filtered:
        f = filled[path]
        top = max(seen_vals[path].values(), default=0)
        constant = top >= 2 and top * 2 > total
        segs = row_segs[path]
        flat = normalize_many([s for r in segs for s in r])
        words_of: list[list[list[str]]] = []
        i = 0
        for r in segs:
            words_of.append([w.split() for w in flat[i : i + len(r)]])
            i += len(r)
        vocab = Counter(w for r in words_of for ws in r for w in ws)
        words = sum(c for w, c in vocab.items() if _is_prose(w))
        reason, shared, shared_rows = "", "", 0
        if constant:
            reason = f"the same value on {top} of {total} sampled rows (a shared template)"
        elif f == 0:
            reason = "empty on every sampled row"
        else:
            if multi[path]:
                val, k = max(elems[path].items(), key=lambda kv: kv[1], default=("", 0))
                if k >= 2 and k * 2 > total:
                    shared, shared_rows = (
                        (f"the same element on {k} of {total} sampled rows ({_quote(val)})"),
                        k,
                    )
            if not shared and texts[path] * 2 > total and sum(vocab.values()) >= PASSAGE_WORDS * f:
                k, run = shared_passage(words_of, total)
                if k:
                    shared, shared_rows = (
                        (
                            f"a {len(run)}-word passage on {k} of {total} "
                            f"sampled rows ({_quote(' '.join(run))})"
                        ),
                        k,
                    )
            if shared:
                reason = f"holds {shared}: a shared system turn, template or preamble"
        named = name_kind(path)[0]
        if named == "neutral" and f and _looks_like_code(["\n".join(r) for r in segs]):
            named = "looks_code"
        if not reason and named in KIND_TEXT:
            reason = KIND_TEXT[named]
        out.append(
            FieldInfo(
                path,
                f / total if total else 0.0,
                chars[path] / f if f else 0.0,
                "text" if texty[path] else "other",
                constant,
                reason,
                words / total if total else 0.0,
                texts[path] / total if total else 0.0,
                path in filtered,
                named,
                shared,
                shared_rows,
            )
        )
    return out


#: The order of the kinds a default may be, within a group (user turns first).
_TIER = {"user_turn": 0, "prompt": 1, "neutral": 2}


def _kind(f: FieldInfo) -> str:
    """The field's kind for the default: its name's (``named``), where a prompt or user
    turn of fewer than :data:`PHRASE_WORDS` prose words per row counts as neutral."""
    k = f.named or name_kind(f.path)[0]
    if k in ("user_turn", "prompt") and f.avg_words < PHRASE_WORDS:
        return "neutral"
    return k


def _rank(f: FieldInfo) -> tuple:
    """Sort key of a candidate for the default, best first: fields that may hold the prompt
    (user turns, then fields named for it, then neutral names) without a shared part; the
    same with one; then the rest (answers, labels, code, ids); within a kind, a prompt's
    name (:func:`evalsieve.field_names.prompt_rank`), then more prose words per row, then
    more characters of text."""
    k = _kind(f)
    group = (0 if k in _TIER else 2) + (1 if f.shared else 0)
    return (
        group,
        _TIER.get(k, 3),
        prompt_rank(f.path) if k == "prompt" else (0, 0),
        -f.avg_words,
        -f.avg_chars * f.fill,
    )


def _passed(f: FieldInfo, best_kind: str) -> str:
    """Why a field with more words than the chosen one (of kind ``best_kind``) was passed
    over."""
    k = _kind(f)
    if f.shared:
        return "holds " + f.shared
    if k in KIND_TEXT:
        return KIND_TEXT[k]
    if k == "prompt" and best_kind == "prompt":
        return f"named for the prompt too ({name_kind(f.path)[1]!r}), later in the rule's order"
    if k == "prompt":
        return "named for the prompt, after the user turns"
    return "not named for the prompt"


def _why(best: FieldInfo, text: list[FieldInfo], infos: list[FieldInfo]) -> str:
    """The reason for ``best`` among the candidates ``text``, in words a person can check."""
    k = _kind(best)
    w = f"{best.avg_words:.1f} prose words per row"
    if k == "user_turn":
        m = re.search(r"\[([^\[\]=]+)=([^\[\]]*)\]", best.path)
        why = f"the user turns of a chat ({m.group(1)}={m.group(2)}), {w}"
        whole = next((f for f in infos if f.path == unfiltered(best.path)), None)
        if whole is not None and whole.shared:
            why += f"; {whole.path} also holds {whole.shared}, and"
        why += " the other turns are answers or instructions"
    elif k == "prompt":
        why = f"named for the prompt ({name_kind(best.path)[1]!r}), {w}"
    elif k == "neutral":
        why = (
            f"no text field is named for the prompt; the most prose words per row "
            f"({best.avg_words:.1f}) among the others"
        )
    else:
        why = (
            f"no text field may hold the prompt by its name; this one is "
            f"{KIND_TEXT[k]}, with the most prose words per row ({best.avg_words:.1f})"
        )
    said = unfiltered(best.path) if k == "user_turn" else best.path
    over = sorted(
        (
            f
            for f in text
            if f.path not in (best.path, said) and not f.filter and f.avg_words > best.avg_words
        ),
        key=lambda f: -f.avg_words,
    )
    if over and _rank(best)[0] < 2:
        why += (
            "; passed over: "
            + ", ".join(f"{f.path} ({f.avg_words:.1f} words: {_passed(f, k)})" for f in over[:3])
            + (f" and {len(over) - 3} more" if len(over) > 3 else "")
        )
    if best.shared:
        why += (
            f"; warning: it holds {best.shared}, so a training record holding that "
            "part matches every such row: choose a field without it if one holds the "
            "prompt"
        )
    return why


def default_choice(infos: list[FieldInfo]) -> tuple[list[str], str]:
    """The preselected field and why: ``([path], reason)``, or ``([], reason)``.

    Rule (one for the CLI, ``evalsieve fields`` and the page): the candidates are the
    fields that are text on most sampled rows (text share > 0.5) and not constant; element
    filters only on a user role. Best first (:func:`_rank`):

    1. without a part shared by most rows (:attr:`FieldInfo.shared`): the user turns of a
       chat (``messages[role=user].content``, ``conversations[from=human].value``), then
       a field named for the prompt (``question``, ``problem``, ``prompt``, ...; see
       :mod:`evalsieve.field_names`; the exact name before a compound one, then the word's
       priority), then a neutral name; a prompt or user turn needs :data:`PHRASE_WORDS`
       prose words per row;
    2. the same with a shared part (the reason then warns);
    3. answers, labels, choices, code, ids, other chat turns, and neutral fields whose
       values look like code.

    Within a step: more prose words per row (:attr:`FieldInfo.avg_words`), then more
    characters. With no text field on most rows: the non-constant field with the most
    words of any kind; none at all: ``[]`` (choose). The reason names the fields passed
    over that have more words, and why.
    """
    usable = [
        f
        for f in infos
        if not f.constant and f.fill > 0 and (not f.filter or _kind(f) == "user_turn")
    ]
    text = [f for f in usable if f.text_share > 0.5]
    if text:
        best = min(text, key=_rank)
        return [best.path], _why(best, text, infos)
    if usable:
        best = max(usable, key=lambda f: (f.avg_words, f.avg_chars * f.fill))
        return [best.path], (
            "no field is text on most rows; the non-constant field with the "
            f"most words per row ({best.avg_words:.1f})"
        )
    return [], "every field is constant or empty: choose one"


def default_fields(infos: list[FieldInfo]) -> list[str]:
    """The preselected field (see :func:`default_choice`), or ``[]``."""
    return default_choice(infos)[0]


class FieldExtractor:
    """Pulls the chosen fields' text out of records, as a list of segments per record.

    Args:
        fmt: the file's format (``jsonl`` and ``parquet`` walk nested paths; others look up
            flat keys).
        paths: the chosen field paths (at least one).
        name: the file's name, for errors.
    Raises:
        EvalsieveError(bad_input): no field chosen.
    """

    def __init__(self, fmt: str, paths: list[str], name: str = "input"):
        if not paths:
            raise bad_input(
                "no field chosen",
                file=name,
                expected="at least one text field (see the field list)",
            )
        self.paths = list(paths)
        self.nested = split_format(fmt)[0] in ("jsonl", "parquet")
        self._steps = [self._split(p) for p in self.paths]

    @staticmethod
    def _split(path: str) -> list:
        """Steps of a path: key strings, ``"[]"``, and ``("=", key, value)`` for a filter.

        ``"a.b[role=user][].c"`` -> ``["a", "b", ("=", "role", "user"), "[]", "c"]``.
        """
        steps: list = []
        for part in _split_dots(path):
            m = _STEP.search(part)
            base = part[: m.start()] if m else part
            if base or not m:
                steps.append(base)
            while m:
                steps.append("[]" if m.group(1) is None else ("=", m.group(1), m.group(2)))
                m2 = _STEP.match(part, m.end())
                if m2 is None and m.end() != len(part):
                    steps.append(part[m.end() :])  # not a bracket after all: a plain key
                m = m2
        return steps

    def segments(self, value: dict, leaf=_leaf_text) -> list[str]:
        """The text segments of one record: every value at every chosen path, in order.

        ``leaf(v) -> str | None`` turns a value at the end of a path into its segment (None:
        none); the default gives strings and the JSON text of numbers and booleans, and
        none for null, objects and lists. Flat formats (CSV/TSV, text) hold strings only.
        """
        out: list[str] = []
        if not self.nested:
            for p in self.paths:
                v = value.get(p)
                if v:
                    out.append(v)
            return out
        for steps in self._steps:
            _walk(value, steps, 0, out, leaf)
        return out


def _walk(v, steps: list[str], i: int, out: list[str], leaf=_leaf_text) -> None:
    if i == len(steps):
        t = leaf(v)
        if t:
            out.append(t)
        return
    s = steps[i]
    if s == "[]":
        if isinstance(v, list):
            for x in v:
                _walk(x, steps, i + 1, out, leaf)
    elif isinstance(s, tuple):
        if isinstance(v, list):
            _, key, want = s
            for x in v:
                if isinstance(x, dict) and _leaf_text(x.get(key)) == want:
                    _walk(x, steps, i + 1, out, leaf)
    elif isinstance(v, dict):
        if s in v:
            _walk(v[s], steps, i + 1, out, leaf)


def _split_dots(path: str) -> list[str]:
    """Split a path at dots outside brackets (a filter value may not hold one, but be safe)."""
    parts, depth, cur = [], 0, []
    for c in path:
        if c == "[":
            depth += 1
        elif c == "]":
            depth = max(0, depth - 1)
        if c == "." and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


def unfiltered(path: str) -> str:
    """The path with every element filter written ``[]``: ``m[role=user].c`` -> ``m[].c``."""
    return _STEP.sub("[]", path)
