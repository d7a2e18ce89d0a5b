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

typedef unsigned char u8;
typedef unsigned short u16;
typedef int i32;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

/* 16-byte masks: bit k set when byte k of p is >= 0x80 (HIGH16), == c (EQ16) or, read as a
 * signed byte, < c (LTS16). The
 * compilers' own headers, no libc: WebAssembly SIMD for the committed .wasm; SSE2 or plain C
 * for a native build of the same source (benchmarks/bench_kernel_cpython.py --native). */
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define LOAD16(p) wasm_v128_load(p)
#define HIGH16(v) ((u32)wasm_i8x16_bitmask(v))
#define EQ16(v, c) ((u32)wasm_i8x16_bitmask(wasm_i8x16_eq((v), wasm_i8x16_splat(c))))
#define LTS16(v, c) ((u32)wasm_i8x16_bitmask(wasm_i8x16_lt((v), wasm_i8x16_splat(c))))
typedef v128_t v16;
#elif defined(__SSE2__)
#include <emmintrin.h>
#define LOAD16(p) _mm_loadu_si128((const __m128i *)(p))
#define HIGH16(v) ((u32)_mm_movemask_epi8(v))
#define EQ16(v, c) ((u32)_mm_movemask_epi8(_mm_cmpeq_epi8((v), _mm_set1_epi8((char)(c)))))
#define LTS16(v, c) ((u32)_mm_movemask_epi8(_mm_cmplt_epi8((v), _mm_set1_epi8((char)(c)))))
typedef __m128i v16;
#else
typedef const u8 *v16;
#define LOAD16(p) (p)
static inline u32 HIGH16(v16 p) { u32 m = 0; for (int k = 0; k < 16; k++) m |= (u32)(p[k] >> 7) << k; return m; }
static inline u32 EQ16(v16 p, u8 c) { u32 m = 0; for (int k = 0; k < 16; k++) m |= (u32)(p[k] == c) << k; return m; }
static inline u32 LTS16(v16 p, int c) { u32 m = 0; for (int k = 0; k < 16; k++) m |= (u32)((signed char)p[k] < c) << k; return m; }
#endif

/* The host passes addresses as offsets into the kernel's memory: a WebAssembly module's
 * linear memory (BASE 0), or a native build's buffer (pf_base). */
#ifdef __wasm__
#define EXPORT(name) __attribute__((export_name(name)))
#define AT(type, off) ((type)(unsigned long)(u32)(off))
#else
#define EXPORT(name) __attribute__((visibility("default")))
static u8 *BASE;
EXPORT("pf_base") void pf_base(u8 *base) { BASE = base; }
#define AT(type, off) ((type)(BASE + (u32)(off)))
#endif

#define EXT_GONE (-2)
#define MAX_PATHS 64
#define KEY_UNITS 256

/* CLASS, LOW, SKIP, the hash constants, MAX_BRACKETS and PY_SPACE_HIGH: generated from
 * Python's rule (evalsieve.kernel_spec; python3 build.py wasm writes it). */
#include "spec.h"
_Static_assert(L_SPACE < L_PUNCT && L_PUNCT < L_STOP, "string_scan tests the LOW classes by order");

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
static const u32 *FLAGS;  /* by UTF-16 code unit: the kernel table's context flags, or 0:
                           * then EXT holds only characters read whatever their neighbours */
static const u32 *EXACT; /* the exact-key probes (pf_exact), open addressing, EXACT_MASK + 1 slots */
static u32 EXACT_MASK;

static i32 s_cand; /* 1: the record is a candidate (hit, unsure or malformed): stop */

/* A segment being read; a local, so that its fields live in registers (linear-memory
 * globals would be reloaded after every RING store). cand: a hit, or a character outside
 * the table; mk: see MK_FIRST; eh: the polynomial of all its words (the
 * exact-key probe, at its end). */
#define PEND 8 /* marks held back: canonical reordering of a run of marks */
typedef struct { u32 words, slot, roll, h, in, cand, eh, mk, np, floor; u16 pend[PEND]; u8 pcc[PEND]; } Seg;

/* Seg.mk: what the next character could join (FLAGS, kernel_spec.kernel_table): the last
 * combining class of the previous character's NFKD (bits 0-7), MK_FIRST when the last
 * starter is a composition first, and MK_KSTARTER when the previous character is flagged
 * F_KSTARTER (a mark below its last class that composes with nothing only follows it).
 * ASCII counts as a first (a letter can take an accent). The F_* bits: spec.h. */
#define MK_FIRST 0x100u
#define MK_KSTARTER 0x200u

#define INLINE static inline __attribute__((always_inline))

/* Point the kernel at its tables. cfg (i32 words): n, top, table, mask, bits, ext, pool,
 * npaths, psteps, pstep0, steps, text_format, ring, flags (addresses in this module's memory;
 * flags 0: EXT is text.char_table alone).
 * Returns 0, or -1 when there are more than MAX_PATHS field paths (prefilter.js then scans). */
EXPORT("pf_configure") i32 pf_configure(i32 cfg_at) {
  const i32 *cfg = AT(const i32 *, cfg_at);
  N = (u32)cfg[0];
  TOP = (u32)cfg[1];
  TABLE = AT(u32 *, cfg[2]);
  MASK = (u32)cfg[3];
  BITS = AT(u32 *, cfg[4]);
  EXT = AT(const i32 *, cfg[5]);
  POOL = AT(const u16 *, cfg[6]);
  NPATHS = cfg[7];
  PSTEPS = AT(const i32 *, cfg[8]);
  PSTEP0 = AT(const i32 *, cfg[9]);
  STEPS = AT(const i32 *, cfg[10]);
  TEXT_FORMAT = cfg[11];
  RING = AT(u32 *, cfg[12]);
  FLAGS = cfg[13] ? AT(const u32 *, cfg[13]) : 0;
  return NPATHS > MAX_PATHS ? -1 : 0;
}

/* BITS is a blocked Bloom filter in front of TABLE: 2^15 words of 32 bits (128 KiB, in
 * the L2 cache), the word chosen by the top 15 bits of p = hash * PROBE_MUL and two bits of
 * it by bits 12-16 and 7-11. One load per window; a window that is not an eval n-gram
 * reaches TABLE (1 MiB and more, out of cache) about 1 time in 90 for 45,000 n-grams,
 * where one bit let 1 in 23 through. prefilter.js builds the same bits. */
INLINE u32 bloom_bits(u32 p) { return (1u << ((p >> 12) & 31)) | (1u << ((p >> 7) & 31)); }

/* Hash the eval n-grams into TABLE and BITS (zeroed by the host; MASK + 1 >= 4x their
 * number, as prefilter.js sizes it). `units`: the n-grams' UTF-16 code units, words joined by
 * one ' ', each n-gram ended by '\n' (normalised words hold neither). Each n-gram's hash is
 * prefilter.js's: FNV-1a per word, h = h * MIX + word, 0 stored as 1. */
EXPORT("pf_add_ngrams") void pf_add_ngrams(i32 units_at, i32 len) {
  const u16 *units = AT(const u16 *, units_at);
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
    BITS[p >> 17] |= bloom_bits(p);
    h = 0;
  }
}

/* The exact rung's probes (evalsieve.exact: a segment whose words are a prefix of an eval
 * row's key, or the key of a text line): `table`, built by prefilter.js (its exact table:
 * probe values, 0 = empty, slot = value * PROBE_MUL), of mask + 1 slots. pf_scan refuses
 * to run before this is called (every record would be read as if no key existed). */
EXPORT("pf_exact") void pf_exact(i32 table_at, u32 mask) {
  EXACT = AT(const u32 *, table_at);
  EXACT_MASK = mask;
}

/* One probe value into the exact table (open addressing, slot x * PROBE_MUL, 0 stored as 1). */
static void exact_insert(u32 *table, u32 mask, u32 x) {
  if (x == 0) x = 1;
  u32 k = (x * PROBE_MUL) & mask;
  while (table[k] != 0 && table[k] != x) k = (k + 1) & mask;
  table[k] = x;
}

/* The exact rung's probe table built here from the eval rows' keys, for a host that holds the
 * keys rather than their probes (the CLI: evalsieve.kernel); then as pf_exact. The probes are
 * evalsieve.exact.prefilter_exact's: `units`, the keys' UTF-16 code units, words joined by
 * one ' ', each key ended by '\n'; `last[i]`, key i's last probe start m (exact.probe_starts:
 * the probes are every non-empty prefix of its words from each m = 0..last[i]), or -1 for a
 * text file (the whole key is the one probe). `scratch`: room for the longest key's word
 * hashes (u32 each); `table`: zeroed, mask + 1 slots, at least twice the probes. */
EXPORT("pf_exact_keys") void pf_exact_keys(i32 units_at, i32 len, i32 last_at, i32 scratch_at,
                                           i32 table_at, u32 mask) {
  const u16 *units = AT(const u16 *, units_at);
  const i32 *last = AT(const i32 *, last_at);
  u32 *wh = AT(u32 *, scratch_at);
  u32 *table = AT(u32 *, table_at);
  u32 nw = 0, w = FNV_OFFSET, inw = 0;
  i32 key = 0;
  for (i32 i = 0; i < len; i++) {
    u32 c = units[i];
    if (c != ' ' && c != '\n') { w = (w ^ c) * FNV_PRIME; inw = 1; continue; }
    if (inw) { wh[nw++] = w; w = FNV_OFFSET; inw = 0; }
    if (c == ' ') continue;
    i32 ms = last[key++];
    if (ms < 0) { /* text: the whole key (exact.segment_probe) */
      u32 h = 0;
      for (u32 k = 0; k < nw; k++) h = h * MIX + wh[k];
      exact_insert(table, mask, h + nw * COUNT_MIX);
    } else {
      for (u32 m = 0; m <= (u32)ms && m < nw; m++) {
        u32 h = 0;
        for (u32 k = m; k < nw; k++) {
          h = h * MIX + wh[k];
          exact_insert(table, mask, h + (k - m + 1) * COUNT_MIX);
        }
      }
    }
    nw = 0;
  }
  pf_exact(table_at, mask);
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
  u32 want = bloom_bits(p);
  if ((BITS[p >> 17] & want) != want) return 0; /* surely not there */
  for (u32 k = p & MASK;; k = (k + 1) & MASK) {
    u32 v = TABLE[k];
    if (v == x) return 1;
    if (v == 0) return 0;
  }
}

INLINE void seg_start(Seg *s) {
  s->words = 0; s->slot = 0; s->roll = 0; s->h = FNV_OFFSET; s->in = 0; s->cand = 0; s->mk = 0;
  s->eh = 0;
  s->np = 0;
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
/* The held-back marks, in canonical order, into the word. */
static void flush(Seg *s) {
  for (u32 k = 0; k < s->np; k++) unit(s, s->pend[k]);
  s->np = 0;
}

static void feed(Seg *s, u32 c) {
  if (s->np && c < 128) flush(s);
  if (c < 128) { s->mk = MK_FIRST; unit(s, c); return; }
  if (c > 0xffff) { s->cand = 1; return; }
  i32 m = EXT[c];
  if (FLAGS && m != -1) {
    u32 f = FLAGS[c], fc = f & 0xff, lc = (f >> 8) & 0xff;
    /* composing this character with the starter before it: Python decides */
    if ((f & F_SECOND) && (s->mk & MK_FIRST)) { s->cand = 1; return; }
    /* a mark of one unit that decomposes to itself is held back (the rule sorts a run of
     * marks by class, stably); one that would sort before a character already in the
     * word (a starter's own marks) is Python's */
    int mark = (f & F_NOSTARTER) && m >= 0 && fc == lc;
    /* below the floor: reordered. Held back after an F_KSTARTER character when it composes
     * with nothing (the NFKC is that character's, then the marks: kernel_spec.kernel_table) */
    if (fc && fc < (mark && s->np ? s->floor : (s->mk & 0xff))
        && !(mark && s->np < PEND && (s->mk & MK_KSTARTER) && !(f & F_SECOND))) {
      s->cand = 1;
      return;
    }
    if (mark && s->np < PEND) {
      if (!s->np) s->floor = s->mk & 0xff; /* the last class of what came before the run */
      u32 k = s->np++;
      while (k && s->pcc[k - 1] > fc) { s->pend[k] = s->pend[k - 1]; s->pcc[k] = s->pcc[k - 1]; k--; }
      s->pend[k] = (u16)m;
      s->pcc[k] = (u8)fc;
      s->mk = (s->mk & (MK_FIRST | MK_KSTARTER)) | s->pcc[s->np - 1];
      return;
    }
    if (s->np) flush(s);
    if (fc && fc < (s->mk & 0xff)) { s->cand = 1; return; }
    s->mk = (f & F_NOSTARTER) ? (s->mk & MK_FIRST) | lc
                              : ((f & F_FIRST) ? MK_FIRST : 0) | ((f & F_KSTARTER) ? MK_KSTARTER : 0) | lc;
  }
  if (m >= 0) { unit(s, (u32)m); return; }
  if (m == EXT_GONE) return;
  if (m == -1) { s->cand = 1; return; }
  const u16 *r = POOL + (-m - 3);
  for (u32 k = 1, len = r[0]; k <= len && !s->cand; k++) unit(s, r[k]);
}

INLINE void seg_end(Seg *s) {
  if (s->np) flush(s);
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
  const u8 *slow = p; /* the end of the last character read by the slow path */
  for (;;) {
    /* the hot loop: printable ASCII, no escapes (LOW: the lowered word byte, or a class).
     * No bounds test: the byte at END is '\n' or the 0 that pf_scan's caller puts after the
     * chunk, both L_STOP. A word's bytes go round the inner loop. */
    /* The segment's hot fields in locals: `s` escapes (feed, flush), so its fields live in
     * memory (WebAssembly's shadow stack), and every RING store would reload them. */
    u32 h = s.h, in = s.in, words = s.words, slot = s.slot, roll = s.roll, eh = s.eh;
    for (;;) {
      u32 t = LOW[*p];
      if (t < 0x80) {
        do { h = (h ^ t) * FNV_PRIME; t = LOW[*++p]; } while (t < 0x80);
        in = 1;
      }
      /* t is L_SPACE, L_PUNCT or L_STOP here: tested by order, not equality (which the
       * compiler turns into a jump table, an indirect branch per word) */
      if (t > L_PUNCT) {
        /* A run of multi-byte characters that the table maps to one unit of a word each
         * and that nothing joins or reorders (no composition second, no mark, first class
         * 0; no marks held back): hashed here, as feed would (the last one's flags set
         * what the next character may join). Anything else: the slow path below. */
        if (*p >= 0xc2 && !s.np) {
          const u8 *q = p;
          u32 f = 0;
          for (;;) {
            u32 b0 = q[0], cp;
            const u8 *r;
            if (b0 < 0xe0) {
              if (b0 < 0xc2) break; /* ASCII (a continuation byte starts no character) */
              cp = ((b0 & 0x1f) << 6) | (q[1] & 0x3f);
              r = q + 2;
            } else if (b0 < 0xf0) {
              cp = ((b0 & 0x0f) << 12) | ((q[1] & 0x3f) << 6) | (q[2] & 0x3f);
              r = q + 3;
            } else {
              break; /* above U+FFFF */
            }
            i32 m = EXT[cp];
            u32 g = FLAGS ? FLAGS[cp] : 0;
            if (m < 0x80 || (g & (F_SECOND | F_NOSTARTER | 0xffu))) break;
            h = (h ^ (u32)m) * FNV_PRIME;
            f = g;
            q = r;
          }
          if (q != p) {
            if (FLAGS)
              s.mk = ((f & F_FIRST) ? MK_FIRST : 0) | ((f & F_KSTARTER) ? MK_KSTARTER : 0)
                     | ((f >> 8) & 0xff);
            in = 1;
            p = slow = q;
            continue;
          }
        }
        break;
      }
      p++;
      if (t == L_PUNCT) continue;
      if (in) { /* word_end, on the locals */
        if (words >= N) roll -= RING[slot] * TOP;
        roll = roll * MIX + h;
        eh = eh * MIX + h;
        RING[slot] = h;
        slot = slot + 1 == N ? 0 : slot + 1;
        words++;
        in = 0;
        h = FNV_OFFSET;
        if (words >= N && probe(roll)) { s_cand = 1; return 0; }
      }
    }
    s.h = h; s.in = in; s.words = words; s.slot = slot; s.roll = roll; s.eh = eh;
    if (p >= END) { s_cand = 1; return 0; }
    u32 c = *p;
    if (c == '"') {
      seg_end(&s);
      if (s.cand) { s_cand = 1; return 0; }
      return p + 1;
    }
    if (c < 0x20) { s_cand = 1; return 0; } /* a raw control character: not JSON */
    if (p != slow) s.mk = MK_FIRST; /* ASCII (the hot loop) came before */
    u32 cp;
    if (c == '\\') {
      i32 u;
      p = escape(p, &u);
      if (!p || (u >= 0xd800 && u <= 0xdfff)) { s_cand = 1; return 0; } /* malformed; a surrogate */
      cp = (u32)u;
    } else {
      cp = utf8_at(&p); /* c >= 128: a multi-byte character */
    }
    slow = p;
    feed(&s, cp);
    if (s.cand) { s_cand = 1; return 0; }
    if (s.np && (*p < 0x80)) { flush(&s); if (s.cand) { s_cand = 1; return 0; } } /* ASCII next */
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
    const u16 *want = AT(const u16 *, st[1]);
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

/* Python's str.isspace() set: is the line only these? */
static int blank(const u8 *p, const u8 *end) {
  while (p < end) {
    u32 c = utf8_at(&p);
    if (c < 128 ? CLASS[c] == 1 : PY_SPACE_HIGH(c)) continue;
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
 * *units gets the text's length in UTF-16 code units (a 4-byte sequence is two), *points in
 * code points. Byte by byte: invalid_utf8 below answers the same, faster; this one names
 * the byte when it finds the text invalid. */
static i32 invalid_utf8_at(const u8 *b, i32 n, u32 *units, u32 *points) {
  i32 i = 0;
  u32 less = 0; /* bytes beyond a sequence's UTF-16 units */
  u32 four = 0; /* 4-byte sequences: two UTF-16 units, one code point */
  *units = 0;
  *points = 0;
  while (i < n) {
    while (i + 16 <= n && !HIGH16(LOAD16(b + i))) i += 16; /* ASCII */
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
    four += need == 3;
  }
  *units = (u32)n - less;
  *points = *units - four;
  return -1;
}

/* UTF-8 well-formedness (Unicode Table 3-7) as a shift DFA: a state is a multiple of 6, the
 * next state is (DFA[byte] >> state) & 63, so a byte costs one shift on the dependency
 * chain. Built once from the table's byte ranges (utf8_dfa_init). */
enum { U_OK = 0, U_1 = 6, U_2 = 12, U_3 = 18, U_E0 = 24, U_ED = 30, U_F0 = 36, U_F4 = 42, U_BAD = 48 };
static u64 DFA[256];

static void dfa_set(u32 state, u32 lo, u32 hi, u32 next) {
  for (u32 b = lo; b <= hi; b++) DFA[b] = (DFA[b] & ~(63ull << state)) | ((u64)next << state);
}

static void utf8_dfa_init(void) {
  static const u32 states[] = {U_OK, U_1, U_2, U_3, U_E0, U_ED, U_F0, U_F4, U_BAD};
  for (u32 k = 0; k < sizeof states / sizeof states[0]; k++) dfa_set(states[k], 0, 255, U_BAD);
  dfa_set(U_OK, 0x00, 0x7f, U_OK);
  dfa_set(U_OK, 0xc2, 0xdf, U_1);
  dfa_set(U_OK, 0xe0, 0xe0, U_E0);
  dfa_set(U_OK, 0xe1, 0xec, U_2);
  dfa_set(U_OK, 0xed, 0xed, U_ED); /* not the surrogates D800-DFFF */
  dfa_set(U_OK, 0xee, 0xef, U_2);
  dfa_set(U_OK, 0xf0, 0xf0, U_F0);
  dfa_set(U_OK, 0xf1, 0xf3, U_3);
  dfa_set(U_OK, 0xf4, 0xf4, U_F4); /* not past U+10FFFF */
  dfa_set(U_1, 0x80, 0xbf, U_OK);
  dfa_set(U_2, 0x80, 0xbf, U_1);
  dfa_set(U_3, 0x80, 0xbf, U_2);
  dfa_set(U_E0, 0xa0, 0xbf, U_1); /* not overlong */
  dfa_set(U_ED, 0x80, 0x9f, U_1);
  dfa_set(U_F0, 0x90, 0xbf, U_2); /* not overlong */
  dfa_set(U_F4, 0x80, 0x8f, U_2);
}

/* As invalid_utf8_at. 16 bytes at a time: a block of ASCII between characters is skipped;
 * any other block goes through the DFA, its continuation bytes and 4-byte leads counted
 * from two masks. When the DFA ends anywhere but between characters, invalid_utf8_at names
 * the byte. */
static i32 invalid_utf8(const u8 *b, i32 n, u32 *units, u32 *points) {
  if (!DFA[0x80]) utf8_dfa_init(); /* 0x80 leads nowhere: U_BAD in every state, never 0 */
  u64 st = U_OK;
  u32 cont = 0, four = 0;
  i32 i = 0;
  for (; i + 16 <= n; i += 16) {
    v16 v = LOAD16(b + i);
    u32 high = HIGH16(v);
    if (!high && st == U_OK) continue;
    /* bytes 80-BF are below -64 as signed, F0-FF at or above -16 */
    cont += (u32)__builtin_popcount(LTS16(v, -64));
    four += (u32)__builtin_popcount(high & ~LTS16(v, -16));
    for (i32 k = 0; k < 16; k++) st = (DFA[b[i + k]] >> (st & 63)) & 63;
  }
  for (; i < n; i++) {
    u32 c = b[i];
    cont += (c & 0xc0) == 0x80;
    four += c >= 0xf0;
    st = (DFA[c] >> (st & 63)) & 63;
  }
  if (st != U_OK) return invalid_utf8_at(b, n, units, points);
  *units = (u32)n - cont + four;
  *points = *units - four;
  return -1;
}

/* The end of the line at p (its '\n', or end) and, in *brackets, its '{' and '[' count. */
static const u8 *line_end(const u8 *p, const u8 *end, u32 *brackets) {
  u32 br = 0;
  while (end - p >= 16) {
    v16 v = LOAD16(p);
    u32 lf = EQ16(v, '\n');
    u32 bm = EQ16(v, '{') | EQ16(v, '[');
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
 * `cap` of them. `res` gets [candidates, records, lines, UTF-16 units, invalid byte, code
 * points]. Returns 0; -1 when the chunk is not UTF-8 (res[4] = the first invalid byte); -2
 * when more than `cap` candidates (call again with more room); -3 before pf_exact.
 * Arguments are offsets in the kernel's memory (AT). */
EXPORT("pf_scan") i32 pf_scan(i32 buf_at, i32 len, i32 out_at, i32 cap, i32 res_at) {
  if (!EXACT) return -3; /* pf_exact was not called */
  const u8 *buf = AT(const u8 *, buf_at);
  i32 *out = AT(i32 *, out_at), *res = AT(i32 *, res_at);
  u32 units, points;
  i32 bad = invalid_utf8(buf, len, &units, &points);
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
  res[5] = (i32)points;
  return 0;
}

/* ------------------------------------------------------------ the semantic window scan */
#include "semantic.c"
