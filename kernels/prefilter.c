/* The training pass's candidate filter (worker/prefilter.js) as one WebAssembly kernel that
 * reads a chunk's UTF-8 bytes directly: no TextDecoder, no JSON.parse, no strings.
 *
 * Same rule, same decisions as prefilter.js (tests/js/prefilter-wasm.test.mjs and
 * tests/py/test_prefilter.py hold it to that): a record is a *candidate* for Python when a
 * window of N normalised words of a chosen field hashes into the eval n-gram table, or when
 * this kernel cannot read it exactly (malformed JSON, a number or boolean at a field path, a
 * character outside ASCII and text.char_table, JSON nested past 400 brackets), or when the
 * words of a segment are an exact-key probe (pf_exact). Where the two
 * could differ this kernel only adds candidates (a proven superset): with duplicate keys it
 * reads every value of the key (JSON.parse keeps the last). Python confirms every candidate,
 * so the filter can cost time, never results.
 *
 * The host (worker/prefilter-wasm.js in the page, benchmarks/bench_kernel_cpython.py under
 * wasmtime) lays out zeroed tables and the data of Python's spec (the char_table map, the
 * field paths) in this module's memory, points the kernel at them (`pf_configure`) and hands
 * it the eval n-grams (`pf_add_ngrams`), which it hashes into the table itself: the hash
 * code is prefilter.js's, in one more place, held to it by the tests.
 *
 * Freestanding C (no libc); build: python3 build.py wasm (clang --target=wasm32, wasm-ld).
 */

#include <wasm_simd128.h> /* clang's own header: SIMD intrinsics, no libc */

typedef unsigned char u8;
typedef unsigned short u16;
typedef int i32;
typedef unsigned int u32;
typedef unsigned long long u64;

#define EXPORT(name) __attribute__((export_name(name)))

#define FNV_OFFSET ((u32)0x811c9dc5u)
#define FNV_PRIME ((u32)0x01000193u)
#define MIX ((u32)0x9e3779b1u)
#define PROBE_MUL ((u32)0x27d4eb2du)
#define COUNT_MIX ((u32)0x85ebca6bu) /* evalsieve.exact.HASH count_mix */
#define EXT_GONE (-2)
#define MAX_BRACKETS 400 /* evalsieve.records.MAX_JSON_DEPTH */
#define MAX_PATHS 64
#define KEY_UNITS 256

/* Per ASCII code: 0 = part of a word, 1 = white space (Python str.split), 2 = punctuation
 * (Unicode category P*: deleted), 3 = upper-case letter (lowercased). As prefilter.js CLASS:
 * white space = \t \n \v \f \r \x1c-\x1f ' '; punctuation = !"#%&'()*,-./:;?@[\\]_{}. */
static const u8 CLASS[128] = {
  0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,
  1, 2, 2, 2, 0, 2, 2, 2, 2, 2, 2, 0, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 2,
  2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 0, 2,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0,
};

/* LOW[byte] for the hot loop of a JSON string: < 0x80 = a word byte, lowered (CLASS 0 and 3);
 * L_SPACE / L_PUNCT = CLASS 1 / 2; L_STOP = '"', '\\', a control byte or a non-ASCII byte
 * (the slow path). SKIP[byte] = 1 for the bytes an unread string passes over. Both follow from
 * CLASS and JSON's string grammar (RFC 8259 section 7). */
#define L_SPACE 0x80
#define L_PUNCT 0x81
#define L_STOP 0x82
#define W L_SPACE
#define P L_PUNCT
#define S L_STOP
static const u8 LOW[256] = {
  S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
  S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
  W, P, S, P, 36, P, P, P, P, P, P, 43, P, P, P, P,
  48, 49, 50, 51, 52, 53, 54, 55, 56, 57, P, P, 60, 61, 62, P,
  P, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111,
  112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, P, S, P, 94, P,
  96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111,
  112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, P, 124, P, 126, 127,
  S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
  S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
  S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
  S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
  S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
  S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
  S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
  S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
};
#undef W
#undef P
#undef S
static const u8 SKIP[256] = {
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* configuration (pf_configure) */
static u32 N;          /* words per n-gram */
static u32 TOP;        /* MIX^(N-1) */
static u32 *TABLE;      /* open addressing, MASK + 1 slots, 0 = empty (pf_add_ngrams) */
static u32 MASK;
static u32 *BITS;       /* 2^20 bits over the top bits of each probe hash */
static const i32 *EXT; /* by UTF-16 code unit: >= 0 one unit, -1 unknown, -2 deleted, <= -3 many */
static const u16 *POOL; /* a "many" replacement at POOL[-m - 3]: length, then its units */
static i32 NPATHS;
static const i32 *PSTEPS; /* per path: number of steps */
static const i32 *PSTEP0; /* per path: index of its first step in STEPS */
static const i32 *STEPS;  /* per step: [key length in units or -1 for '[]', address of units] */
static i32 TEXT_FORMAT;   /* 1: a line of a text file is the one segment; 0: JSONL */
static u32 *RING;
static const u32 *EXACT; /* the exact-key probes (pf_exact), open addressing, EXACT_MASK + 1 slots */
static u32 EXACT_MASK;

static i32 s_cand; /* 1: the record is a candidate (hit, unsure or malformed): stop */

/* A segment being read; a local, so that its fields live in registers (linear-memory
 * globals would be reloaded after every RING store). cand: a hit, or a character outside
 * the table. eh: the polynomial of all its words (the exact-key probe, at its end). */
typedef struct { u32 words, slot, roll, h, in, cand, eh; } Seg;

#define INLINE static inline __attribute__((always_inline))

/* Point the kernel at its tables. cfg (i32 words): n, top, table, mask, bits, ext, pool,
 * npaths, psteps, pstep0, steps, text_format, ring (addresses in this module's memory).
 * Returns 0, or -1 when there are more than MAX_PATHS field paths (prefilter.js then scans). */
EXPORT("pf_configure") i32 pf_configure(const i32 *cfg) {
  N = (u32)cfg[0];
  TOP = (u32)cfg[1];
  TABLE = (u32 *)cfg[2];
  MASK = (u32)cfg[3];
  BITS = (u32 *)cfg[4];
  EXT = (const i32 *)cfg[5];
  POOL = (const u16 *)cfg[6];
  NPATHS = cfg[7];
  PSTEPS = (const i32 *)cfg[8];
  PSTEP0 = (const i32 *)cfg[9];
  STEPS = (const i32 *)cfg[10];
  TEXT_FORMAT = cfg[11];
  RING = (u32 *)cfg[12];
  return NPATHS > MAX_PATHS ? -1 : 0;
}

/* Hash the eval n-grams into TABLE and BITS (zeroed by the host; MASK + 1 >= 4x their
 * number, as prefilter.js sizes it). `units`: the n-grams' UTF-16 code units, words joined by
 * one ' ', each n-gram ended by '\n' (normalised words hold neither). Each n-gram's hash is
 * prefilter.js's: FNV-1a per word, h = h * MIX + word, 0 stored as 1. */
EXPORT("pf_add_ngrams") void pf_add_ngrams(const u16 *units, i32 len) {
  u32 h = 0, w = FNV_OFFSET;
  for (i32 i = 0; i < len; i++) {
    u32 c = units[i];
    if (c != ' ' && c != '\n') { w = (w ^ c) * FNV_PRIME; continue; }
    h = h * MIX + w;
    w = FNV_OFFSET;
    if (c == ' ') continue;
    if (h == 0) h = 1;
    u32 p = h * PROBE_MUL;
    u32 k = p & MASK;
    while (TABLE[k] != 0 && TABLE[k] != h) k = (k + 1) & MASK;
    TABLE[k] = h;
    BITS[p >> 17] |= 1u << ((p >> 12) & 31);
    h = 0;
  }
}

/* The exact rung's probes (evalsieve.exact: a segment whose words are a prefix of an eval
 * row's key, or the key of a text line): `table`, built by prefilter.js (its exact table:
 * probe values, 0 = empty, slot = value * PROBE_MUL), of mask + 1 slots. pf_scan refuses
 * to run before this is called (every record would be read as if no key existed). */
EXPORT("pf_exact") void pf_exact(const u32 *table, u32 mask) {
  EXACT = table;
  EXACT_MASK = mask;
}

/* Is a segment of `words` words, polynomial `eh`, an exact-key probe? (prefilter.js) */
static int exact_probe(u32 words, u32 eh) {
  u32 x = eh + words * COUNT_MIX;
  if (x == 0) x = 1;
  for (u32 k = (x * PROBE_MUL) & EXACT_MASK;; k = (k + 1) & EXACT_MASK) {
    u32 v = EXACT[k];
    if (v == x) return 1;
    if (v == 0) return 0;
  }
}

/* Is the window hash `roll` in the table? (prefilter.js probe) */
static inline int probe(u32 roll) {
  u32 x = roll == 0 ? 1 : roll;
  u32 p = x * PROBE_MUL;
  if ((BITS[p >> 17] & (1u << ((p >> 12) & 31))) == 0) return 0;
  for (u32 k = p & MASK;; k = (k + 1) & MASK) {
    u32 v = TABLE[k];
    if (v == x) return 1;
    if (v == 0) return 0;
  }
}

INLINE void seg_start(Seg *s) {
  s->words = 0; s->slot = 0; s->roll = 0; s->h = FNV_OFFSET; s->in = 0; s->cand = 0; s->eh = 0;
}

/* A word ended: roll it into the window of the last N words; probe a full window. */
INLINE void word_end(Seg *s) {
  if (s->words >= N) s->roll -= RING[s->slot] * TOP;
  s->roll = s->roll * MIX + s->h;
  s->eh = s->eh * MIX + s->h;
  RING[s->slot] = s->h;
  s->slot = s->slot + 1 == N ? 0 : s->slot + 1;
  s->words++;
  s->in = 0;
  s->h = FNV_OFFSET;
  if (s->words >= N && probe(s->roll)) s->cand = 1;
}

/* One normalised UTF-16 code unit (table text beyond ASCII is word characters). */
INLINE void unit(Seg *s, u32 c) {
  u32 cls = c < 128 ? CLASS[c] : 0;
  if (cls == 0) { s->h = (s->h ^ c) * FNV_PRIME; s->in = 1; return; }
  if (cls == 3) { s->h = (s->h ^ (c + 32)) * FNV_PRIME; s->in = 1; return; }
  if (cls == 2 || !s->in) return;
  word_end(s);
}

/* One character of a segment (a code point; above U+FFFF, or a surrogate, is unknown). */
static void feed(Seg *s, u32 c) {
  if (c < 128) { unit(s, c); return; }
  if (c > 0xffff) { s->cand = 1; return; }
  i32 m = EXT[c];
  if (m >= 0) { unit(s, (u32)m); return; }
  if (m == EXT_GONE) return;
  if (m == -1) { s->cand = 1; return; }
  const u16 *r = POOL + (-m - 3);
  for (u32 k = 1, len = r[0]; k <= len && !s->cand; k++) unit(s, r[k]);
}

INLINE void seg_end(Seg *s) {
  if (s->in) word_end(s); /* the last word ends with the segment */
  if (s->words && exact_probe(s->words, s->eh)) s->cand = 1;
}

/* Decode one UTF-8 sequence at p (the chunk is valid UTF-8: pf_scan checked it). */
static inline u32 utf8_at(const u8 **pp) {
  const u8 *p = *pp;
  u32 b = p[0];
  if (b < 0x80) { *pp = p + 1; return b; }
  if (b < 0xe0) { *pp = p + 2; return ((b & 0x1f) << 6) | (p[1] & 0x3f); }
  if (b < 0xf0) { *pp = p + 3; return ((b & 0x0f) << 12) | ((p[1] & 0x3f) << 6) | (p[2] & 0x3f); }
  *pp = p + 4;
  return ((b & 0x07) << 18) | ((p[1] & 0x3f) << 12) | ((p[2] & 0x3f) << 6) | (p[3] & 0x3f);
}

/* ------------------------------------------------------------------------- JSON */

static const u8 *END; /* end of the line being parsed */
static u16 KEY[KEY_UNITS]; /* the key being matched (used before the value is read) */

static inline const u8 *ws(const u8 *p) {
  while (p < END && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  return p;
}

static inline int hexval(u32 c) {
  if (c >= '0' && c <= '9') return (int)(c - '0');
  c |= 0x20;
  if (c >= 'a' && c <= 'f') return (int)(c - 'a' + 10);
  return -1;
}

/* \uXXXX at p (after the 'u'): its unit, or -1. */
static inline i32 hex4(const u8 *p) {
  if (END - p < 4) return -1;
  i32 v = 0;
  for (int k = 0; k < 4; k++) {
    int d = hexval(p[k]);
    if (d < 0) return -1;
    v = (v << 4) | d;
  }
  return v;
}

/* The unit a one-letter escape stands for, or -1. */
static inline i32 escape1(u32 c) {
  switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return 8;
    case 'f': return 12;
    case 'n': return 10;
    case 'r': return 13;
    case 't': return 9;
    default: return -1;
  }
}

/* After a '\\' at p: the escape's unit and the byte after it, or 0 when malformed. */
INLINE const u8 *escape(const u8 *p, i32 *u) {
  if (END - p < 2) return 0;
  u32 e = p[1];
  if (e == 'u') {
    *u = hex4(p + 2);
    return *u < 0 ? 0 : p + 6;
  }
  *u = escape1(e);
  return *u < 0 ? 0 : p + 2;
}

/* A JSON string (opening '"' at p[-1]) that is a segment. Returns the byte after the closing
 * '"', or 0 with s_cand set (a hit, a character the filter cannot read, or malformed). */
static const u8 *string_scan(const u8 *p) {
  Seg s;
  seg_start(&s);
  for (;;) {
    /* the hot loop: printable ASCII, no escapes (LOW: the lowered word byte, or a class).
     * No bounds test: the byte at END is '\n' or the 0 that pf_scan's caller puts after the
     * chunk, both L_STOP. A word's bytes go round the inner loop. */
    for (;;) {
      u32 t = LOW[*p];
      if (t < 0x80) {
        u32 h = s.h;
        do { h = (h ^ t) * FNV_PRIME; t = LOW[*++p]; } while (t < 0x80);
        s.h = h;
        s.in = 1;
      }
      if (t == L_PUNCT) { p++; continue; }
      if (t != L_SPACE) break;
      p++;
      if (s.in) {
        word_end(&s);
        if (s.cand) { s_cand = 1; return 0; }
      }
    }
    if (p >= END) { s_cand = 1; return 0; }
    u32 c = *p;
    if (c == '"') {
      seg_end(&s);
      if (s.cand) { s_cand = 1; return 0; }
      return p + 1;
    }
    if (c < 0x20) { s_cand = 1; return 0; } /* a raw control character: not JSON */
    u32 cp;
    if (c == '\\') {
      i32 u;
      p = escape(p, &u);
      if (!p || (u >= 0xd800 && u <= 0xdfff)) { s_cand = 1; return 0; } /* malformed; a surrogate */
      cp = (u32)u;
    } else {
      cp = utf8_at(&p); /* c >= 128: a multi-byte character */
    }
    feed(&s, cp);
    if (s.cand) { s_cand = 1; return 0; }
  }
}

/* A JSON string (opening '"' at p[-1]) that is not read: checked only. As string_scan. */
static const u8 *string_skip(const u8 *p) {
  for (;;) {
    while (p < END && SKIP[*p]) p++;
    if (p >= END) { s_cand = 1; return 0; }
    u32 c = *p;
    if (c == '"') return p + 1;
    if (c < 0x20) { s_cand = 1; return 0; }
    i32 u;
    p = escape(p, &u); /* c == '\\' */
    if (!p) { s_cand = 1; return 0; }
  }
}

/* A key whose opening '"' is at p[-1]: decoded into `key` as UTF-16 units (at most
 * KEY_UNITS; *len = KEY_UNITS + 1 when longer: it matches no path). */
static const u8 *key_string(const u8 *p, u16 *key, i32 *len) {
  i32 n = 0;
  for (;;) {
    if (p >= END) { s_cand = 1; return 0; }
    u32 c = *p;
    u32 cp;
    if (c == '"') { *len = n > KEY_UNITS ? KEY_UNITS + 1 : n; return p + 1; }
    if (c < 0x20) { s_cand = 1; return 0; }
    if (c == '\\') {
      i32 u;
      p = escape(p, &u);
      if (!p) { s_cand = 1; return 0; }
      cp = (u32)u;
    } else {
      cp = utf8_at(&p);
    }
    if (cp > 0xffff) { /* a surrogate pair in UTF-16 */
      cp -= 0x10000;
      if (n < KEY_UNITS) key[n] = (u16)(0xd800 + (cp >> 10));
      n++;
      cp = 0xdc00 + (cp & 0x3ff);
    }
    if (n < KEY_UNITS) key[n] = (u16)cp;
    n++;
  }
}

static const u8 *number(const u8 *p) {
  if (p < END && *p == '-') p++;
  if (p >= END) return 0;
  if (*p == '0') p++;
  else if (*p >= '1' && *p <= '9') { while (p < END && *p >= '0' && *p <= '9') p++; }
  else return 0;
  if (p < END && *p == '.') {
    p++;
    if (p >= END || *p < '0' || *p > '9') return 0;
    while (p < END && *p >= '0' && *p <= '9') p++;
  }
  if (p < END && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < END && (*p == '+' || *p == '-')) p++;
    if (p >= END || *p < '0' || *p > '9') return 0;
    while (p < END && *p >= '0' && *p <= '9') p++;
  }
  return p;
}

static const u8 *literal(const u8 *p, const char *word) {
  for (; *word; word++, p++) if (p >= END || *p != (u8)*word) return 0;
  return p;
}

/* Paths of `active` whose step at `depth` is `key` (len units), or '[]' when key == 0. */
static u64 descend(u64 active, i32 depth, const u16 *key, i32 len) {
  u64 out = 0;
  for (i32 q = 0; active; q++, active >>= 1) {
    if (!(active & 1) || depth >= PSTEPS[q]) continue;
    const i32 *st = STEPS + 2 * (PSTEP0[q] + depth);
    if (key == 0) { if (st[0] == -1) out |= (u64)1 << q; continue; }
    if (st[0] != len) continue;
    const u16 *want = (const u16 *)st[1];
    i32 k = 0;
    while (k < len && want[k] == key[k]) k++;
    if (k == len) out |= (u64)1 << q;
  }
  return out;
}

/* Paths of `active` that end at `depth` (the value there is a leaf of the field walk). */
static u64 ending(u64 active, i32 depth) {
  u64 out = 0;
  for (i32 q = 0; active; q++, active >>= 1) if ((active & 1) && PSTEPS[q] == depth) out |= (u64)1 << q;
  return out;
}

/* One JSON value at p (white space skipped before it); `active` = the paths that reach it,
 * at `depth` steps. As evalsieve.fields' walk (prefilter.js collect): a string where a path
 * ends is a segment; a number or boolean there is unsure; a missing key, a type that does not
 * fit the step, null, or an object or array where a path ends hold no text. Returns the byte
 * after the value, or 0 (s_cand set). */
static const u8 *value(const u8 *p, u64 active, i32 depth) {
  p = ws(p);
  if (p >= END) { s_cand = 1; return 0; }
  u64 leaf = active ? ending(active, depth) : 0;
  u32 c = *p;
  if (c == '"') return leaf ? string_scan(p + 1) : string_skip(p + 1);
  if (c == '{') {
    p = ws(p + 1);
    if (p < END && *p == '}') return p + 1;
    for (;;) {
      if (p >= END || *p != '"') { s_cand = 1; return 0; }
      u64 sub = 0;
      if (active & ~leaf) {
        i32 len;
        p = key_string(p + 1, KEY, &len);
        if (!p) return 0;
        if (len <= KEY_UNITS) sub = descend(active & ~leaf, depth, KEY, len);
      } else {
        p = string_skip(p + 1);
        if (!p) return 0;
      }
      p = ws(p);
      if (p >= END || *p != ':') { s_cand = 1; return 0; }
      p = value(p + 1, sub, depth + 1);
      if (!p) return 0;
      p = ws(p);
      if (p < END && *p == ',') { p = ws(p + 1); continue; }
      if (p < END && *p == '}') return p + 1;
      s_cand = 1;
      return 0;
    }
  }
  if (c == '[') {
    u64 sub = active & ~leaf ? descend(active & ~leaf, depth, 0, 0) : 0;
    p = ws(p + 1);
    if (p < END && *p == ']') return p + 1;
    for (;;) {
      p = value(p, sub, depth + 1);
      if (!p) return 0;
      p = ws(p);
      if (p < END && *p == ',') { p++; continue; }
      if (p < END && *p == ']') return p + 1;
      s_cand = 1;
      return 0;
    }
  }
  const u8 *q;
  if (c == 't') q = literal(p, "true");
  else if (c == 'f') q = literal(p, "false");
  else if (c == 'n') { q = literal(p, "null"); if (q) return q; }
  else q = number(p);
  if (!q || leaf) { s_cand = 1; return 0; } /* malformed, or a number/boolean leaf: unsure */
  return q;
}

/* ------------------------------------------------------------------------- lines */

/* Python's str.isspace() set (prefilter.js PY_BLANK): is the line only these? */
static int blank(const u8 *p, const u8 *end) {
  while (p < end) {
    u32 c = utf8_at(&p);
    if (c < 128) { if (c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f)) continue; return 0; }
    if (c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
        c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000) continue;
    return 0;
  }
  return 1;
}

/* Is this record (one non-blank line, without its '\n') a candidate? */
static int candidate(const u8 *p, const u8 *end, u32 brackets) {
  s_cand = 0;
  END = end;
  if (TEXT_FORMAT) {
    while (end > p && end[-1] == '\r') end--; /* Python's raw.rstrip("\r\n") */
    Seg s;
    seg_start(&s);
    while (p < end && !s.cand) feed(&s, utf8_at(&p));
    if (!s.cand) seg_end(&s);
    return (i32)s.cand;
  }
  if (brackets > MAX_BRACKETS) return 1; /* Python refuses deep JSON: it must see the line */
  const u8 *q = ws(p);
  if (q >= end || *q != '{') return 1; /* JSON, but not an object, or not JSON */
  u64 all = NPATHS >= 64 ? ~(u64)0 : (((u64)1 << NPATHS) - 1);
  q = value(q, all, 0);
  if (!q) return 1;
  q = ws(q);
  return q != end;
}

/* Index of the first byte of an invalid UTF-8 sequence, or -1 (files.js firstInvalidUtf8).
 * *units gets the text's length in UTF-16 code units (a 4-byte sequence is two). */
static i32 invalid_utf8(const u8 *b, i32 n, u32 *units) {
  i32 i = 0;
  u32 less = 0; /* bytes beyond a sequence's UTF-16 units */
  *units = 0;
  while (i < n) {
    while (i + 16 <= n && !wasm_i8x16_bitmask(wasm_v128_load(b + i))) i += 16; /* ASCII */
    if (i >= n) break;
    if (i >= n) break;
    u32 c = b[i];
    if (c < 0x80) { i++; continue; }
    i32 need;
    u32 min;
    if (c >= 0xc2 && c <= 0xdf) { need = 1; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { need = 2; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 3; min = 0x10000; }
    else return i;
    u32 cp = c & (0x3f >> need);
    for (i32 k = 1; k <= need; k++) {
      if (i + k >= n) return i;
      u32 d = b[i + k];
      if ((d & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
    less += need == 3 ? 2 : (u32)need;
  }
  *units = (u32)n - less;
  return -1;
}

/* The end of the line at p (its '\n', or end) and, in *brackets, its '{' and '[' count. */
static const u8 *line_end(const u8 *p, const u8 *end, u32 *brackets) {
  u32 br = 0;
  const v128_t nl = wasm_i8x16_splat('\n'), ob = wasm_i8x16_splat('{'), sb = wasm_i8x16_splat('[');
  while (end - p >= 16) {
    v128_t v = wasm_v128_load(p);
    u32 lf = wasm_i8x16_bitmask(wasm_i8x16_eq(v, nl));
    u32 bm = wasm_i8x16_bitmask(wasm_v128_or(wasm_i8x16_eq(v, ob), wasm_i8x16_eq(v, sb)));
    if (lf) {
      u32 k = (u32)__builtin_ctz(lf);
      *brackets = br + (u32)__builtin_popcount(bm & ((1u << k) - 1));
      return p + k;
    }
    br += (u32)__builtin_popcount(bm);
    p += 16;
  }
  while (p < end && *p != '\n') { br += (*p == '{') | (*p == '['); p++; }
  *brackets = br;
  return p;
}

/* Filter one chunk of complete lines at `buf` (`len` bytes; buf[len] must be 0, a sentinel
 * for the hot loop). Candidates go to `out` as
 * [record, line, first byte, end byte] (chunk-local, records and lines 1-based), at most
 * `cap` of them. `res` gets [candidates, records, lines, UTF-16 units, invalid byte].
 * Returns 0; -1 when the chunk is not UTF-8 (res[4] = the first invalid byte); -2 when more
 * than `cap` candidates (call again with more room); -3 before pf_exact. */
EXPORT("pf_scan") i32 pf_scan(const u8 *buf, i32 len, i32 *out, i32 cap, i32 *res) {
  if (!EXACT) return -3; /* pf_exact was not called */
  u32 units;
  i32 bad = invalid_utf8(buf, len, &units);
  res[4] = bad;
  if (bad >= 0) return -1;
  i32 count = 0, records = 0, lines = 0;
  const u8 *p = buf, *end = buf + len;
  while (p < end) {
    u32 brackets;
    const u8 *e = line_end(p, end, &brackets);
    lines++;
    if (!blank(p, e)) {
      records++;
      if (candidate(p, e, brackets)) {
        if (count == cap) return -2;
        out[4 * count] = records;
        out[4 * count + 1] = lines;
        out[4 * count + 2] = (i32)(p - buf);
        out[4 * count + 3] = (i32)(e - buf);
        count++;
      }
    }
    p = e + 1;
  }
  res[0] = count;
  res[1] = records;
  res[2] = lines;
  res[3] = (i32)units;
  return 0;
}
