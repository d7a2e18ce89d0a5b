"""What a field's name says it holds: the name half of the default-field rule.

The default field (:func:`evalsieve.fields.default_choice`) is the prompt of each row: the
text an eval asks, which is what a training set would have copied. A field's *path* says a
lot about that, and the rule reads it by words, never by a table of datasets:

* the words of a path are its keys split at ``_``, ``-``, spaces, digits and camelCase
  (``Best Incorrect Answer`` -> ``best incorrect answer``; ``choice0`` -> ``choice``;
  ``answerKey`` -> ``answer key``);
* the *leaf* is the last key (``messages[role=user].content`` -> ``content``); the keys
  before it are its *parents*;
* an element filter's value is the chat role of the turns it keeps
  (``conversations[from=human].value``: ``human``).

Kinds, first match wins:

=============  =====================================================================
``user_turn``  an element filter on a user role (:data:`USER_ROLES`): the user turns
``turn``       an element filter on another known role (:data:`OTHER_ROLES`): answers,
               system prompts, tool output
``meta``       a leaf word of :data:`META_WORDS` (``task_id``, ``source``, ``category``)
``answer``     a leaf word of :data:`ANSWER_WORDS` (``answer``, ``Correct Answers``,
               ``choice0``, ``label``, ``answer_text``)
``code``       a leaf word of :data:`CODE_WORDS` (``code``, ``test_list``, ``entry_point``)
               (of several such words in the leaf, the last one, its head noun, decides:
               ``question_id`` is ``meta``, ``canonical_solution`` an ``answer``)
``answer``     a parent word of :data:`ANSWER_WORDS` (``options[].text``,
               ``choices.text[]``: the choices of a multiple-choice row)
``prompt``     a leaf word of :data:`PROMPT_WORDS` (``question``, ``Question``,
               ``problem``, ``prompt``, ``doc.question``, ``original_question``)
``neutral``    anything else (``content``, ``passage``, ``turns[]``, ``arg_0``)
=============  =====================================================================

Standard library only.
"""

from __future__ import annotations

import re

#: Chat roles whose turns are the user's (OpenAI ``user``, ShareGPT ``human``, OpenAssistant
#: ``prompter``), compared case-insensitively.
USER_ROLES = ("user", "human", "prompter")
#: Other chat roles: the model's answers, system prompts and tool output.
OTHER_ROLES = (
    "assistant",
    "gpt",
    "bot",
    "model",
    "ai",
    "chatgpt",
    "system",
    "tool",
    "function",
    "ipython",
    "observation",
)
#: Leaf words naming the prompt, in priority order (an earlier word wins a tie between two
#: prompt fields: ``question`` before ``context``-like ``input`` or ``text``).
PROMPT_WORDS = (
    "question",
    "problem",
    "prompt",
    "instruction",
    "query",
    "input",
    "text",
    "ctx",
    "sentence",
    "premise",
    "hypothesis",
    "goal",
    "stem",
    "statement",
    "claim",
    "request",
    "utterance",
    "description",
    "q",
)
#: Leaf (or parent) words naming an answer, a label or the choices of a row.
ANSWER_WORDS = frozenset(
    "answer answers solution solutions output outputs target targets label labels "
    "completion completions response responses reference references gold correct "
    "incorrect choice choices option options ending endings candidate candidates "
    "rationale explanation explanations chosen rejected reply replies resps result results "
    "prediction predictions pred preds score scores verdict feedback critique distractor "
    "distractors".split()
)
#: Leaf words naming code or tests.
CODE_WORDS = frozenset(
    "code codes test tests testcase testcases canonical program programs snippet starter "
    "declaration entry setup imports assert asserts unittest unittests signature func "
    "impl implementation".split()
)
#: Leaf words naming an id, a source, a category or other bookkeeping.
META_WORDS = frozenset(
    "id ids idx index uuid guid hash url urls uri link links source sources src "
    "category categories type types subject subjects split tag tags meta metadata canary "
    "license lang language date time timestamp author authors domain level difficulty "
    "file filename path role roles speaker sender version num count length".split()
)

_CAMEL = re.compile(r"([a-z])([A-Z])")
_NOT_LETTER = re.compile(r"[^a-z]+")
_FILTER = re.compile(r"\[([^\[\]=]+)=([^\[\]]*)\]")


def name_words(key: str) -> list[str]:
    """The words of one key: lowercase letters only, split at everything else and at
    camelCase. ``"Best Incorrect Answer"`` -> ``["best", "incorrect", "answer"]``,
    ``"choice0"`` -> ``["choice"]``, ``"answerKey"`` -> ``["answer", "key"]``."""
    return [w for w in _NOT_LETTER.split(_CAMEL.sub(r"\1 \2", key).lower()) if w]


def _parts(path: str) -> tuple[list[list[str]], list[str]]:
    """(words of each key of the path, in order; the element filters' values)."""
    roles = [m.group(2) for m in _FILTER.finditer(path)]
    bare = _FILTER.sub("", path).replace("[]", "")
    keys = [k for k in re.split(r"\.", bare) if k]
    return [name_words(k) for k in keys], roles


def name_kind(path: str) -> tuple[str, str]:
    """``(kind, word)``: what the path's name says the field holds, and the word that says
    it (see the module docstring; ``word`` is "" for ``neutral``).

    Examples: ``"question"`` -> ``("prompt", "question")``; ``"Incorrect Answers"`` ->
    ``("answer", "incorrect")``; ``"messages[role=user].content"`` -> ``("user_turn",
    "user")``; ``"options[].text"`` -> ``("answer", "options")``; ``"task_id"`` ->
    ``("meta", "id")``; ``"turns[]"`` -> ``("neutral", "")``.
    """
    keys, roles = _parts(path)
    for r in roles:
        if r.strip().lower() in USER_ROLES:
            return "user_turn", r
    for r in roles:
        if r.strip().lower() in OTHER_ROLES:
            return "turn", r
    leaf = keys[-1] if keys else []
    parents = [w for k in keys[:-1] for w in k]
    for w in reversed(leaf):  # the last word is the head noun: question_id is an id
        for words, kind in ((META_WORDS, "meta"), (ANSWER_WORDS, "answer"), (CODE_WORDS, "code")):
            if w in words:
                return kind, w
    hit = next((w for w in parents if w in ANSWER_WORDS), None)
    if hit:
        return "answer", hit
    hit = next((w for w in leaf if w in PROMPT_WORDS), None)
    if hit:
        return "prompt", hit
    return "neutral", ""


def prompt_rank(path: str) -> tuple[int, int]:
    """How well a prompt field's name says so, smaller first: ``(0, i)`` when its leaf is
    exactly the prompt word ``PROMPT_WORDS[i]`` (``question``, ``Question``), ``(1, i)``
    when the word is one of several (``original_question``, ``question_stem``)."""
    keys, _ = _parts(path)
    leaf = keys[-1] if keys else []
    ranks = [PROMPT_WORDS.index(w) for w in leaf if w in PROMPT_WORDS]
    if not ranks:
        return (2, len(PROMPT_WORDS))
    return (0 if len(leaf) == 1 else 1, min(ranks))


#: What each kind is called in a reason.
KIND_TEXT = {
    "answer": "named for an answer, a label or the choices",
    "code": "named for code or tests",
    "meta": "named for an id, a source or a category",
    "turn": "a chat turn that is not the user's",
    "looks_code": "looks like code (indented lines, or lines ending in : ; { } ))",
}
