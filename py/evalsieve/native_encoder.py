"""Sentence embeddings and cosine tiles under CPython (the CLI's paraphrase job, and tests).

CPython only: ``onnxruntime``, ``numpy`` and ``tokenizers`` (the ``encoder`` extra) are
imported inside functions, never at module import, so ``import evalsieve.native_encoder``
works in Pyodide and in a bare CPython (it fails only when you build an encoder).

The model is ``encoder.onnx`` from ``tools/encoder_graph.py``: all-MiniLM-L6-v2 with int8
weights, mean pooling over the attention mask and L2 normalisation, so cosine = dot product.
The page runs the same graph with onnxruntime-web (``worker/embed/encoder.js``) and the same
tokenisation rule:

* word pieces from ``tokenizer.json`` (BERT uncased WordPiece), no special tokens;
* keep the first ``window - 2`` pieces (a *truncated* row had more), then wrap in
  [CLS] ... [SEP]: at most ``window`` = 256 pieces per row. That is sentence-transformers'
  ``max_seq_length`` = 256 for this model (``sentence_bert_config.json``); the shipped
  tokenizer.json says truncation 128 / padding 128, which we switch off and replace.

Every row's vector is bit-identical whatever other rows share its batch: the graph sums with
CumSum (see ``tools/encoder_graph.py``), and batches hold rows of one length only, because
onnxruntime-web's WASM kernels (unlike native onnxruntime's) change a row's last bits when it
is padded. So batching is only a speed choice, on both engines.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import constants

#: Word pieces per row including [CLS] and [SEP] (sentence-transformers max_seq_length).
WINDOW = constants.PARA_WINDOW
#: Embedding width of all-MiniLM-L6-v2.
DIM = constants.EMBEDDING_DIMS


def _require(module: str):
    """Import an optional CPython dependency, or raise a clear ImportError."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"the native encoder needs {module!r}; install the encoder extra: "
            "pip install 'evalsieve[encoder]'"
        ) from exc


@dataclass(frozen=True)
class Tokenized:
    """Token ids of a list of texts under the 256-piece rule.

    Attributes:
      ids: one list of int word-piece ids per text, each ``[CLS] ... [SEP]``,
        2 <= len <= window.
      truncated: number of texts that had more than ``window - 2`` pieces.
    """

    ids: list
    truncated: int


class NativeEncoder:
    """all-MiniLM-L6-v2 (int8 ONNX) under onnxruntime: texts -> unit vectors.

    Args:
      model_path: ``encoder.onnx`` built by ``tools/encoder_graph.build_encoder_graph``
        (inputs ``input_ids``, ``attention_mask`` int64 [batch, seq]; output
        ``sentence_embedding`` float32 [batch, 384]).
      tokenizer_path: the model's ``tokenizer.json`` (its truncation/padding are ignored).
      window: pieces per row including [CLS] and [SEP]; 3..512 (the position table has 512).
      batch_size: most rows per onnxruntime call (>= 1). By default a batch holds rows of one
        word-piece count only (see :meth:`batches`), so nothing is padded.
      threads: onnxruntime intra-op threads; 0 lets onnxruntime choose (one per core).
        Results are bit-identical for any value.
      tile_path: optional ``tile.onnx`` (``build_tile_graph``) for :meth:`tile`.
      providers: onnxruntime execution providers (default CPU only; the CLI's semantic rung
        passes CUDA first when onnxruntime-gpu sees a GPU). Bit-identity is tested on CPU.

    Raises:
      ImportError: onnxruntime, numpy or tokenizers is missing.
      FileNotFoundError: a model or tokenizer file does not exist.
      ValueError: ``window`` or ``batch_size`` out of range, or the graph lacks the
        expected input/output names.
    """

    def __init__(
        self,
        model_path,
        tokenizer_path,
        window: int = WINDOW,
        batch_size: int = 32,
        threads: int = 0,
        tile_path=None,
        providers=None,
    ):
        import os

        if not 3 <= int(window) <= 512:
            raise ValueError(f"window must be in 3..512 word pieces, got {window}")
        if int(batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        for p in (model_path, tokenizer_path) + ((tile_path,) if tile_path else ()):
            if not os.path.isfile(p):
                raise FileNotFoundError(f"encoder asset not found: {p}")
        ort = _require("onnxruntime")
        tokenizers = _require("tokenizers")
        self.np = _require("numpy")
        self.window = int(window)
        self.batch_size = int(batch_size)

        tok = tokenizers.Tokenizer.from_file(str(tokenizer_path))
        tok.no_truncation()
        tok.no_padding()
        self.tokenizer = tok
        self.cls_id = tok.token_to_id("[CLS]")
        self.sep_id = tok.token_to_id("[SEP]")
        self.pad_id = tok.token_to_id("[PAD]")
        if None in (self.cls_id, self.sep_id, self.pad_id):
            raise ValueError(f"{tokenizer_path}: no [CLS]/[SEP]/[PAD] token in the vocabulary")

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        self.session = ort.InferenceSession(
            str(model_path), opts, providers=list(providers or ["CPUExecutionProvider"])
        )
        names_in = sorted(i.name for i in self.session.get_inputs())
        names_out = [o.name for o in self.session.get_outputs()]
        if names_in != ["attention_mask", "input_ids"] or "sentence_embedding" not in names_out:
            raise ValueError(
                f"{model_path}: inputs {names_in}, outputs {names_out}; expected "
                "input_ids, attention_mask -> sentence_embedding "
                "(build it with tools/encoder_graph.py)"
            )
        self.tile_session = (
            ort.InferenceSession(str(tile_path), opts, providers=["CPUExecutionProvider"])
            if tile_path
            else None
        )

    def tokenize(self, texts) -> Tokenized:
        """Word-piece ids of ``texts`` under the window rule (see the module docstring).

        Args:
          texts: a sequence of str.

        Returns:
          :class:`Tokenized` with one id list per text, in input order.
        """
        texts = list(texts)
        keep = self.window - 2
        pieces = self.tokenizer.encode_batch(texts, add_special_tokens=False) if texts else []
        ids, truncated = [], 0
        for enc in pieces:
            body = enc.ids
            if len(body) > keep:
                truncated += 1
                body = body[:keep]
            ids.append([self.cls_id, *body, self.sep_id])
        return Tokenized(ids, truncated)

    def batches(self, ids, sort: bool = True) -> list:
        """Row indices per onnxruntime call.

        Args:
          ids: list of id lists.
          sort: True (default): longest first, and a batch holds rows of *one* piece count
            only (at most ``batch_size``), so nothing is padded. False: input order,
            ``batch_size`` rows per batch, padded to the batch's longest row.

        Returns:
          list of lists of row indices covering ``range(len(ids))`` once each.
        """
        n = len(ids)
        if not sort:
            size = self.batch_size
            return [list(range(s, min(s + size, n))) for s in range(0, n, size)]
        order = sorted(range(n), key=lambda i: (-len(ids[i]), i))
        out, cur = [], []
        for i in order:
            if cur and (len(cur) == self.batch_size or len(ids[cur[0]]) != len(ids[i])):
                out.append(cur)
                cur = []
            cur.append(i)
        if cur:
            out.append(cur)
        return out

    def encode_ids(self, ids, sort: bool = True):
        """Embed pre-tokenised rows (each ``[CLS] ... [SEP]``, len <= window).

        Args:
          ids: list of int lists, e.g. ``tokenize(texts).ids``.
          sort: see :meth:`batches`. Equal-length batches are what the page does too:
            onnxruntime-web's WASM kernels change a row's last bits when it is padded, so
            only unpadded batches are batch-independent on both engines. Under native
            onnxruntime the vectors are bit-identical either way (tested).

        Returns:
          float32 ndarray ``[len(ids), 384]``, unit L2 norm, rows in input order.
        """
        np = self.np
        out = np.empty((len(ids), DIM), dtype=np.float32)
        for rows in self.batches(ids, sort):
            width = max(len(ids[i]) for i in rows)
            input_ids = np.full((len(rows), width), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                input_ids[r, : len(ids[i])] = ids[i]
                mask[r, : len(ids[i])] = 1
            emb = self.session.run(
                ["sentence_embedding"], {"input_ids": input_ids, "attention_mask": mask}
            )[0]
            out[rows] = emb
        return out

    def encode(self, texts, sort: bool = True):
        """Embed ``texts``.

        Args:
          texts: a sequence of str (empty strings are fine: [CLS] [SEP] only).
          sort: see :meth:`encode_ids`.

        Returns:
          ``(embeddings, truncated_count)``: float32 ndarray ``[n, 384]`` with unit L2 norm
          (cosine = dot product), rows in input order; and how many texts had more than
          ``window - 2`` word pieces and were cut to their first ``window - 2``.
        """
        tok = self.tokenize(texts)
        return self.encode_ids(tok.ids, sort=sort), tok.truncated

    def tile(self, a, b):
        """``a . b^T`` with ``tile.onnx`` (the page's cosine tile), as float32 ``[m, k]``.

        Args:
          a: float32 ``[m, 384]``; b: float32 ``[k, 384]``.

        Raises:
          ValueError: no ``tile_path`` was given, or the widths are not 384.
        """
        np = self.np
        if self.tile_session is None:
            raise ValueError("NativeEncoder was built without tile_path")
        a = np.ascontiguousarray(a, dtype=np.float32)
        b = np.ascontiguousarray(b, dtype=np.float32)
        if a.ndim != 2 or b.ndim != 2 or a.shape[1] != DIM or b.shape[1] != DIM:
            raise ValueError(f"tile needs [m,{DIM}] and [k,{DIM}], got {a.shape} and {b.shape}")
        return self.tile_session.run(["C"], {"A": a, "B": b})[0]


def _check_embeddings(np, emb):
    emb = np.asarray(emb)
    if emb.ndim != 2 or emb.shape[1] != DIM:
        raise ValueError(f"embeddings must be [n, {DIM}], got shape {emb.shape}")
    return np.ascontiguousarray(emb, dtype=np.float32)


def pairs_above(emb, threshold: float, tile: int = 1024, matmul=None) -> list:
    """Every pair of rows whose cosine is >= ``threshold``, without holding n x n.

    Args:
      emb: float32 ``[n, 384]`` unit vectors (from :meth:`NativeEncoder.encode`).
      threshold: cosine in [-1, 1]; a pair is an edge when cosine >= threshold (the
        paraphrase job's single-linkage rule).
      tile: rows per block; peak extra memory is ``tile * tile * 4`` bytes (4 MiB at 1024).
      matmul: optional ``f(A, B) -> A . B^T`` (e.g. ``NativeEncoder.tile``); numpy otherwise.

    Returns:
      list of ``(i, j, cos)`` with ``i < j`` (row indices) and ``cos`` a Python float,
      sorted by ``(i, j)``.

    Raises:
      ValueError: bad shape, threshold outside [-1, 1], or tile < 1.
    """
    np = _require("numpy")
    emb = _check_embeddings(np, emb)
    if not -1.0 <= float(threshold) <= 1.0:
        raise ValueError(f"threshold is a cosine in [-1, 1], got {threshold}")
    if int(tile) < 1:
        raise ValueError(f"tile must be >= 1, got {tile}")
    mm = matmul or (lambda a, b: a @ b.T)
    n = emb.shape[0]
    found = []
    for i0 in range(0, n, tile):
        a = emb[i0 : i0 + tile]
        for j0 in range(i0, n, tile):
            c = mm(a, emb[j0 : j0 + tile])
            # Compare in float64, as JavaScript compares a Float32Array element with a number.
            hit = np.asarray(c, dtype=np.float64) >= float(threshold)
            if j0 == i0:
                hit &= np.triu(np.ones(hit.shape, dtype=bool), k=1)
            ii, jj = np.nonzero(hit)
            found.extend(zip((ii + i0).tolist(), (jj + j0).tolist(), c[ii, jj].tolist()))
    found.sort(key=lambda t: (t[0], t[1]))
    return found


def nearest_neighbours(emb, tile: int = 1024, matmul=None):
    """Each row's most similar *other* row, tile by tile.

    Args:
      emb: float32 ``[n, 384]`` unit vectors.
      tile: rows per block (peak extra memory ``tile * tile * 4`` bytes).
      matmul: optional ``f(A, B) -> A . B^T``; numpy otherwise.

    Returns:
      ``(cos, index)``: float32 ``[n]`` best cosine and int64 ``[n]`` its row (the lowest
      index on ties); for n == 1 the cosine is NaN and the index -1.

    Raises:
      ValueError: bad shape or tile < 1.
    """
    np = _require("numpy")
    emb = _check_embeddings(np, emb)
    if int(tile) < 1:
        raise ValueError(f"tile must be >= 1, got {tile}")
    mm = matmul or (lambda a, b: a @ b.T)
    n = emb.shape[0]
    best = np.full(n, -np.inf, dtype=np.float32)
    arg = np.full(n, -1, dtype=np.int64)
    for i0 in range(0, n, tile):
        a = emb[i0 : i0 + tile]
        rows = np.arange(i0, i0 + a.shape[0])
        for j0 in range(0, n, tile):
            c = np.array(mm(a, emb[j0 : j0 + tile]), dtype=np.float32, copy=True)
            if j0 == i0:
                np.fill_diagonal(c, -np.inf)
            j = np.argmax(c, axis=1)
            v = c[np.arange(c.shape[0]), j]
            better = v > best[rows]  # strict: an earlier tile keeps ties (lowest index)
            best[rows[better]] = v[better]
            arg[rows[better]] = j[better] + j0
    if n == 1:
        best[:] = np.nan
    return best, arg
