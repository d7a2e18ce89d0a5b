"""evalsieve: is your eval set clean?

Two jobs, standard library only so the same code runs in CPython (the CLI) and in
Pyodide (the page's Web Worker):

* contamination: word n-gram containment of each eval row in a training file
  (GPT-3's recipe, Brown et al. 2020, App. C);
* paraphrases: groups of eval rows whose sentence embeddings have cosine >= a
  threshold (connected components, single linkage).
"""

__version__ = "0.1.0"
