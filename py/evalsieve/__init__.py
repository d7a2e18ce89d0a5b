"""evalsieve: is your eval set clean?

Two jobs, standard library only so the same code runs in CPython (the CLI) and in
Pyodide (the page's Web Worker):

* contamination: word n-gram containment of each eval row in a training file
  (GPT-3's recipe, Brown et al. 2020, App. C);
* paraphrases: groups of eval rows whose sentence embeddings have cosine >= a
  threshold (connected components, single linkage).

The Python API (:mod:`evalsieve.api`, docs/API.md): ``evalsieve.contamination(eval,
train, ...)``, ``evalsieve.paraphrases(rows, ...)``, ``evalsieve.purify(eval, train,
out, ...)``; loaded on first use, so importing evalsieve imports nothing else.
"""

__version__ = "0.1.0"

_API = {
    "contamination": "api",
    "paraphrases": "api",
    "purify": "purify_run",
    "ContaminationResult": "results",
    "ParaphraseResult": "results",
    "EvalsieveError": "errors",
}
__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name in _API:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{_API[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
