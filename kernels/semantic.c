/* The semantic rung's window scan (evalsieve.semantic.SemanticScan.scan, step 2) compiled:
 * white-space words, windows of W words (stride ceil(W/2)), each window's set of eval-vocabulary
 * terms, the terms' window counts, each probe's candidate sum and its heap of the k best
 * windows. Part of prefilter.c's module (included at its end: one module, one memory).
 *
 * What a word means stays in Python: a word's terms (evalsieve.semantic_terms.word_terms:
 * NFKC, lowercase, letter and digit runs, light stemming, number words) are computed there
 * once per distinct word and handed back as vocabulary term ids (sem_lookup, then
 * sem_set_terms). This kernel keeps the table raw word -> term ids and does the rest, the
 * per-word and per-window work that grows with the corpus. evalsieve.semantic_kernel is the
 * host; the Python scan is the oracle it is tested against (tests/py/test_semantic_kernel.py).
 *
 * Input of a batch: the records' texts (each the " "-joined field values, as the Python scan
 * reads them) as UTF-8 (lone surrogates as surrogatepass writes them), each ended by a 0xFF
 * byte, which UTF-8 never holds. Words split where str.split() splits (CLASS and
 * PY_SPACE_HIGH from spec.h). */

/* configuration (sem_configure): i32 words at cfg */
static u32 S_P, S_K, S_W;   /* probes, candidates per probe, window words */
static const i32 *S_UNITS;  /* per term: its key units, round(idf * KEY_UNITS) (key terms) */
static const i32 *S_POFF;   /* per term: its first posting; S_POFF[V] = the postings' count */
static const i32 *S_POST;   /* the postings: probe numbers, in probe order per term */
static u32 *S_DF;           /* per term: windows that hold it */
static u32 *S_TSTAMP;       /* per term: the last window that counted it */
static i64 *S_ACC;          /* per probe: its candidate sum in the current window */
static u32 *S_ASTAMP;       /* per probe: the window its S_ACC belongs to */
static i32 *S_TOUCH;        /* the current window's probes */
static i64 *S_HX;           /* per probe, k slots: a min-heap of (sum, serial) */
static u32 *S_HS;
static i32 *S_HN;           /* per probe: its heap's size */
static i64 *S_FLOOR;        /* per probe: its heap's least sum when full, else -1 (a window
                               that does not beat it is not offered: a dense copy of the
                               roots, read for every probe a window touches) */
static u32 *S_STATE;        /* [windows seen, windows sharing a key term, words, entries,
                               pool bytes used, term ids used] */

/* the word table (sem_words): open addressing on the FNV-1a hash of a word's bytes */
static u32 *W_SLOT;         /* 4 per slot: tag (hash, length), entry + 1 (0: empty), and the
                               word's first 8 bytes (zero-padded): a word of up to 8 bytes is
                               matched in its slot, without a visit to the pool */
static u32 W_SMASK;
static u32 *W_ENT;          /* 2 per entry: pool offset, bytes */
static u8 *W_POOL;
static u32 W_ECAP, W_PCAP;   /* entries and pool bytes the table has room for */
static u64 *W_RES;          /* per entry: its terms as a word's res holds them (the first term
                               id's index in W_TERMS, the count in the high half; 0: none), or
                               PENDING in the high half until sem_set_terms gives them */
static i32 *W_TERMS;        /* the entries' term ids (sem_set_terms) */
#define PENDING 0xffffffffu /* an entry whose terms Python has not given yet */
#define RES_PENDING ((u64)PENDING << 32)

EXPORT("sem_configure") void sem_configure(i32 cfg_at) {
  const i32 *c = AT(const i32 *, cfg_at);
  S_P = (u32)c[0]; S_K = (u32)c[1]; S_W = (u32)c[2];
  S_UNITS = AT(const i32 *, c[3]); S_POFF = AT(const i32 *, c[4]); S_POST = AT(const i32 *, c[5]);
  S_DF = AT(u32 *, c[6]); S_TSTAMP = AT(u32 *, c[7]);
  S_ACC = AT(i64 *, c[8]); S_ASTAMP = AT(u32 *, c[9]); S_TOUCH = AT(i32 *, c[10]);
  S_HX = AT(i64 *, c[11]); S_HS = AT(u32 *, c[12]); S_HN = AT(i32 *, c[13]);
  S_STATE = AT(u32 *, c[14]); S_FLOOR = AT(i64 *, c[15]);
}

/* Point the kernel at an empty word table (slots zeroed by the host; smask + 1 a power of
 * two, at least twice ecap; room for ecap entries of 8 bytes at ent_at and at eres_at), or at
 * a term-id region holding the S_STATE[5] ids used so far (copied by the host). */
EXPORT("sem_words") void sem_words(i32 slot_at, i32 smask, i32 ent_at, i32 ecap, i32 pool_at, i32 pcap,
                                   i32 eres_at) {
  W_SLOT = AT(u32 *, slot_at); W_SMASK = (u32)smask; W_RES = AT(u64 *, eres_at);
  W_ENT = AT(u32 *, ent_at); W_POOL = AT(u8 *, pool_at);
  W_ECAP = (u32)ecap; W_PCAP = (u32)pcap;
  S_STATE[3] = 0; S_STATE[4] = 0; S_STATE[5] = 0;
}
EXPORT("sem_terms_region") void sem_terms_region(i32 terms_at) { W_TERMS = AT(i32 *, terms_at); }

static inline u32 fnv(const u8 *p, u32 n) {
  u32 h = FNV_OFFSET;
  for (u32 i = 0; i < n; i++) h = (h ^ p[i]) * FNV_PRIME;
  return h;
}

/* 4 bytes at p, unaligned (the host's memory holds at least 8 bytes past any word it hands
 * over: a batch's text is followed by its word ids). */
static inline u32 load32(const u8 *p) { u32 v; __builtin_memcpy(&v, p, 4); return v; }

static inline int same(const u8 *a, const u8 *b, u32 n) {
  u32 i = 0;
  for (; i + 4 <= n; i += 4) if (load32(a + i) != load32(b + i)) return 0;
  for (; i < n; i++) if (a[i] != b[i]) return 0;
  return 1;
}

/* A slot's tag: the hash's high 24 bits and the length (255: 255 bytes or more). */
static inline u32 tag_of(u32 h, u32 n) { return (h & 0xffffff00u) | (n < 255 ? n : 255); }

/* The first n of 4 bytes at p, zero above. */
static inline u32 head32(const u8 *p, u32 n) {
  return n >= 4 ? load32(p) : load32(p) & ((1u << (8 * n)) - 1u);
}

/* The first 8 bytes of a word (zero-padded), as two words. */
static inline void prefix_of(const u8 *p, u32 n, u32 *lo, u32 *hi) {
  *lo = head32(p, n);
  *hi = n > 4 ? head32(p + 4, n - 4) : 0;
}

/* A word's first slot: FNV-1a's low bits mix poorly, so murmur3's finaliser first. */
static inline u32 home(u32 h) {
  u32 k = h ^ (h >> 16);
  k *= 0x85ebca6bu; k ^= k >> 13; k *= 0xc2b2ae35u; k ^= k >> 16;
  return k & W_SMASK;
}

/* The entry of the word at p (n bytes, FNV-1a hash h, first slot k), or -1; *slot = where
 * it is or would go; *lo, *hi = its prefix. */
static i32 find(const u8 *p, u32 n, u32 h, u32 k, u32 *slot, u32 *lo, u32 *hi) {
  u32 tag = tag_of(h, n);
  prefix_of(p, n, lo, hi);
  for (;;) {
    const u32 *sl = W_SLOT + 4 * k;
    u32 e = sl[1];
    if (!e) { *slot = k; return -1; }
    if (sl[0] == tag && sl[2] == *lo && sl[3] == *hi) {
      if (n <= 8) { *slot = k; return (i32)(e - 1); }
      const u32 *ent = W_ENT + 2 * (e - 1);
      if (ent[1] == n && same(W_POOL + ent[0] + 8, p + 8, n - 8)) { *slot = k; return (i32)(e - 1); }
    }
    k = (k + 1) & W_SMASK;
  }
}

/* Byte classes of a batch's text: a word byte, white space, the first byte of a UTF-8
 * sequence that may be white space beyond ASCII (PY_SPACE_HIGH: U+0085 and U+00A0 begin with
 * 0xC2, the others with 0xE1..0xE3), or 0xFF, which UTF-8 never holds: the end of a record. */
enum { B_WORD, B_SPACE, B_MAYBE, B_END };
static u8 BYTE_CLASS[256];
static void byte_classes(void) {
  for (u32 b = 0; b < 128; b++) BYTE_CLASS[b] = CLASS[b] == 1 ? B_SPACE : B_WORD;
  for (u32 b = 128; b < 256; b++) BYTE_CLASS[b] = B_WORD;
  BYTE_CLASS[0xc2] = BYTE_CLASS[0xe1] = BYTE_CLASS[0xe2] = BYTE_CLASS[0xe3] = B_MAYBE;
  BYTE_CLASS[0xff] = B_END;
}

/* Is the sequence at p (its first byte B_MAYBE) white space? *len = its length. */
static inline int high_space(const u8 *p, const u8 *end, u32 *len) {
  u32 b = p[0], c;
  if (b == 0xc2) {
    *len = 2;
    if (p + 1 >= end) return 0;
    c = ((b & 0x1f) << 6) | (p[1] & 0x3f);
  } else {
    *len = 3;
    if (p + 2 >= end) return 0;
    c = ((b & 0x0f) << 12) | ((u32)(p[1] & 0x3f) << 6) | (p[2] & 0x3f);
  }
  return PY_SPACE_HIGH(c);
}

/* Pass 1 of a batch, in two calls. sem_split reads only the batch and the byte classes, so
 * a host may run it in an instance of its own (the CLI: on its reader thread) and hand its
 * output to sem_lookup in the scan's instance. */

/* The batch's words, split where str.split() splits, records ended by 0xFF: each word's
 * first byte's offset in the batch to offs, its bytes to lens, its FNV-1a hash to hashes
 * (one u32 each, in order), each record's word count to counts. Returns the word count. */
EXPORT("sem_split") i32 sem_split(i32 blob_at, i32 nbytes, i32 offs_at, i32 lens_at,
                                  i32 hashes_at, i32 counts_at) {
  const u8 *const blob = AT(const u8 *, blob_at), *p = blob, *end = p + nbytes;
  u32 *offs = AT(u32 *, offs_at), *lens = AT(u32 *, lens_at), *hashes = AT(u32 *, hashes_at);
  u32 *counts = AT(u32 *, counts_at);
  u32 nw = 0, rec_first = 0, r = 0;
  if (!BYTE_CLASS[' ']) byte_classes();
  for (;;) {
    /* white space, record ends */
    while (p < end) {
      u32 c = BYTE_CLASS[*p], len;
      if (c == B_WORD) break;
      if (c == B_MAYBE) { if (!high_space(p, end, &len)) break; p += len; continue; }
      if (c == B_END) { counts[r++] = nw - rec_first; rec_first = nw; }
      p++;
    }
    if (p >= end) break;
    const u8 *q = p;
    u32 h = FNV_OFFSET;
    while (p < end) {
      u32 c = BYTE_CLASS[*p], len;
      if (c == B_SPACE || c == B_END) break;
      if (c == B_MAYBE) {
        if (high_space(p, end, &len)) break;
        for (u32 i = 0; i < len && p < end; i++) h = (h ^ *p++) * FNV_PRIME;
        continue;
      }
      h = (h ^ *p++) * FNV_PRIME;
    }
    offs[nw] = (u32)(q - blob); lens[nw] = (u32)(p - q); hashes[nw] = h;
    nw++;
  }
  counts[r] = nw - rec_first;
  return (i32)nw;
}

/* Words are looked up GROUP at a time: their first slots read first, then each found or
 * added. The slot reads do not depend on one another, so the cache misses of a table bigger
 * than the cache overlap instead of queueing one by one (WebAssembly has no prefetch
 * instruction: a plain load serves). */
#define GROUP 16
static u32 S_TOUCHED; /* the group loads' sum, kept so that they are not optimised away */

/* The terms of the batch's nw words (sem_split's offs, lens and hashes) to res, one u64 a
 * word as W_RES holds them; a word not in the table is added (pending, its terms to come:
 * sem_set_terms), and its res is RES_PENDING | its entry until sem_scan resolves it. New
 * entries are numbered on from the table's count. Returns the number of new entries, or -3
 * when the table is full (the host empties it, or gives a bigger one, and calls again). */
EXPORT("sem_lookup") i32 sem_lookup(i32 blob_at, i32 nw, i32 offs_at, i32 lens_at,
                                    i32 hashes_at, i32 res_at) {
  const u8 *const blob = AT(const u8 *, blob_at);
  const u32 *offs = AT(const u32 *, offs_at), *lens = AT(const u32 *, lens_at);
  const u32 *hashes = AT(const u32 *, hashes_at);
  u64 *res = AT(u64 *, res_at);
  u32 e0 = S_STATE[3], t = 0;
  for (u32 g0 = 0; g0 < (u32)nw; g0 += GROUP) {
    u32 ng = (u32)nw - g0 < GROUP ? (u32)nw - g0 : GROUP, gk[GROUP];
    for (u32 g = 0; g < ng; g++) { gk[g] = home(hashes[g0 + g]); t += W_SLOT[4 * gk[g] + 1]; }
    for (u32 g = 0; g < ng; g++) {
      u32 w = g0 + g, len = lens[w], h = hashes[w], slot, lo, hi;
      const u8 *q = blob + offs[w];
      i32 e = find(q, len, h, gk[g], &slot, &lo, &hi);
      if (e < 0) {
        if (S_STATE[3] >= W_ECAP || S_STATE[4] + len > W_PCAP) return -3;
        e = (i32)S_STATE[3]++;
        u32 *ent = W_ENT + 2 * (u32)e;
        ent[0] = S_STATE[4]; ent[1] = len;
        for (u32 i = 0; i < len; i++) W_POOL[S_STATE[4] + i] = q[i];
        S_STATE[4] += len;
        u32 *sl = W_SLOT + 4 * slot;
        sl[0] = tag_of(h, len); sl[1] = (u32)e + 1; sl[2] = lo; sl[3] = hi;
        W_RES[e] = RES_PENDING;
      }
      u64 r = W_RES[e];
      res[w] = r == RES_PENDING ? RES_PENDING | (u32)e : r;
    }
  }
  S_TOUCHED += t;
  return (i32)(S_STATE[3] - e0);
}

/* The terms of the entries sem_lookup added (e0, e0 + 1, ...): per entry, the number of its
 * term ids and then the ids. */
EXPORT("sem_set_terms") void sem_set_terms(i32 at, i32 count, i32 e0) {
  const i32 *t = AT(const i32 *, at);
  for (i32 i = 0; i < count; i++) {
    u32 n = (u32)*t++;
    W_RES[e0 + i] = n ? (u64)S_STATE[5] | (u64)n << 32 : 0;
    for (u32 j = 0; j < n; j++) W_TERMS[S_STATE[5]++] = *t++;
  }
}

/* (x, s) below (y, t) in a probe's min-heap: the lower sum, then the later window (the heap
 * keeps the k best windows by sum, the earlier of equal sums: Python's (sum, -serial)). */
static inline int below(i64 x, u32 s, i64 y, u32 t) { return x < y || (x == y && s > t); }

/* Returns the serial of the window the heap let go (0: none). */
static u32 heap_offer(u32 i, i64 x, u32 serial) {
  i64 *hx = S_HX + i * S_K;
  u32 *hs = S_HS + i * S_K;
  u32 n = (u32)S_HN[i], k, gone = 0;
  if (n < S_K) { /* push, sift up */
    k = n;
    S_HN[i] = (i32)(n + 1);
    while (k) {
      u32 up = (k - 1) / 2;
      if (!below(x, serial, hx[up], hs[up])) break;
      hx[k] = hx[up]; hs[k] = hs[up]; k = up;
    }
  } else { /* replace the root, sift down */
    k = 0;
    gone = hs[0];
    for (;;) {
      u32 c = 2 * k + 1;
      if (c >= n) break;
      if (c + 1 < n && below(hx[c + 1], hs[c + 1], hx[c], hs[c])) c++;
      if (!below(hx[c], hs[c], x, serial)) break;
      hx[k] = hx[c]; hs[k] = hs[c]; k = c;
    }
  }
  hx[k] = x; hs[k] = serial;
  if (n + (n < S_K) == S_K) S_FLOOR[i] = hx[0];
  return gone;
}

/* The batch's windows so far, from serial S_FIRST on: per window, how many heaps hold it. */
static u32 S_FIRST;
static i32 *S_WREF;

/* One window, words [s, e) of the batch's record r, of n words (their terms in res: the
 * first term id's index in W_TERMS, and the count in the high half; 0 for a word without
 * terms; their first bytes in offs): the terms it holds are counted, its probes' sums offered
 * to their heaps. When the window entered a heap, writes [serial, r, s, e, lo, hi] to *out
 * and advances it: lo and hi the bytes of its context (W words either side), hi -1 when the
 * context runs to the record's end. */
static void window(const u64 *res, const u32 *offs, u32 n, u32 s, u32 e, u32 r, i32 **out) {
  u32 serial = ++S_STATE[0], nt = 0;
  /* the tables in locals: a store through one cannot be read by the compiler as a change
   * of another's address, so none is reloaded in the inner loop */
  const i32 *const wterms = W_TERMS, *const poff = S_POFF, *const post = S_POST;
  const i32 *const units = S_UNITS;
  u32 *const tstamp = S_TSTAMP, *const df = S_DF, *const astamp = S_ASTAMP;
  i64 *const acc = S_ACC;
  i32 *const touch = S_TOUCH;
  for (u32 w = s; w < e; w++) {
    u64 rw = res[w];
    if (!rw) continue;
    const i32 *t = wterms + (u32)rw;
    for (u32 j = 0, nj = (u32)(rw >> 32); j < nj; j++) {
      u32 id = (u32)t[j];
      if (tstamp[id] == serial) continue;
      tstamp[id] = serial;
      df[id]++;
      i32 q0 = poff[id], q1 = poff[id + 1];
      i64 x = units[id];
      for (i32 q = q0; q < q1; q++) {
        u32 i = (u32)post[q];
        if (astamp[i] != serial) { astamp[i] = serial; acc[i] = x; touch[nt++] = (i32)i; }
        else acc[i] += x;
      }
    }
  }
  if (!nt) return;
  S_STATE[1]++;
  i32 refs = 0;
  const i64 *const floor = S_FLOOR;
  for (u32 j = 0; j < nt; j++) {
    u32 i = (u32)touch[j];
    i64 x = acc[i];
    if (x <= floor[i]) continue; /* full, and holds better */
    u32 gone = heap_offer(i, x, serial);
    if (gone >= S_FIRST) S_WREF[gone - S_FIRST]--;
    refs++;
  }
  S_WREF[serial - S_FIRST] = refs;
  if (refs) {
    i32 *o = *out;
    u32 c0 = s > S_W ? s - S_W : 0, c1 = e + S_W;
    o[0] = (i32)serial; o[1] = (i32)r; o[2] = (i32)s; o[3] = (i32)e;
    o[4] = (i32)offs[c0]; o[5] = c1 < n ? (i32)offs[c1] : -1;
    *out = o + 6;
  }
}

/* Pass 2 of a batch (after sem_split, sem_lookup and sem_set_terms on it): every record's windows
 * (evalsieve.semantic_config.window_spans) through the candidate stage. `res` holds one u64
 * per word of the batch (sem_lookup's: each word's terms, looked up once, so that a window
 * reads them from there, not from the word table; a new word's resolved here from W_RES);
 * `offs` holds the words' offsets (sem_split); `out` gets
 * [serial, record, start word, end word, context's first byte, its end or -1] of each
 * window of the batch that a heap still holds at its end; `wref` is room for one i32 per
 * window of the batch. Returns their count, or -1 (nothing scanned) when a word's terms are
 * pending. */
EXPORT("sem_scan") i32 sem_scan(i32 res_at, i32 counts_at, i32 offs_at, i32 nrec, i32 wref_at,
                                i32 out_at) {
  const u32 *counts = AT(const u32 *, counts_at);
  const u32 *offs = AT(const u32 *, offs_at);
  u64 *res = AT(u64 *, res_at);
  i32 *out0 = AT(i32 *, out_at), *out = out0;
  u32 total = 0;
  for (i32 r = 0; r < nrec; r++) total += counts[r];
  for (u32 w = 0; w < total; w++) {
    if ((u32)(res[w] >> 32) != PENDING) continue;
    u64 r = W_RES[(u32)res[w]];
    if (r == RES_PENDING) return -1;
    res[w] = r;
  }
  S_FIRST = S_STATE[0] + 1;
  S_WREF = AT(i32 *, wref_at);
  for (i32 r = 0; r < nrec; r++) {
    u32 n = counts[r];
    S_STATE[2] += n;
    if (n) {
      if (n <= S_W) {
        window(res, offs, n, 0, n, (u32)r, &out);
      } else {
        u32 stride = (S_W + 1) / 2, s = 0;
        while (s + S_W < n) { window(res, offs, n, s, s + S_W, (u32)r, &out); s += stride; }
        window(res, offs, n, n - S_W, n, (u32)r, &out);
      }
    }
    res += n;
    offs += n;
  }
  i32 *keep = out0; /* the windows no heap holds any more are dropped */
  for (i32 *o = out0; o < out; o += 6)
    if (S_WREF[(u32)o[0] - S_FIRST] > 0) {
      for (u32 j = 0; j < 6; j++) keep[j] = o[j];
      keep += 6;
    }
  return (i32)((keep - out0) / 6);
}
