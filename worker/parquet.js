// @ts-check
// Parquet in the worker, with hyparquet (dist/assets/hyparquet/, pinned in assets.lock.json):
// the footer first, then one row group at a time (File.slice reads only the byte ranges
// hyparquet asks for), only the columns the chosen fields need; gzip, brotli, zstd and lz4
// pages with hyparquet-compressors' decoders and fzstd (dist/assets/hyparquet-compressors/). Values cross into Python as
// JSON text (plainValue), never as proxies. Field paths come from the schema (schemaPaths).

import { ERR, ProtocolError, messageOf } from './protocol.js';
import { assetURL } from './assets.js';
import { getSha256Factory } from './files.js';
import { mapsAsEntries, readableMetadata } from './parquet-maps.js';

const PAR1 = [0x50, 0x41, 0x52, 0x31];
const CODECS = 'assets/hyparquet-compressors/';
/** @type {any} */
let hyparquet = null;
/** @type {Record<string, (input: Uint8Array, length: number) => Uint8Array> | null} */
let codecs = null;

/** hyparquet's index module, imported once from our own dist (CSP: same origin only). */
export async function lib() {
  if (!hyparquet) hyparquet = await import(assetURL('assets/hyparquet/index.js'));
  return hyparquet;
}

/**
 * The page codecs beyond hyparquet's own (uncompressed, snappy): gzip, brotli, lz4 and
 * lz4_raw from hyparquet-compressors' decoders, zstd from fzstd; the table of
 * hyparquet-compressors' compressors.js, whose bare imports a worker cannot resolve.
 */
export async function compressors() {
  if (!codecs) {
    const [gz, br, lz, zs] = await Promise.all(['gzip.js', 'brotli.js', 'lz4.js', 'fzstd.mjs']
      .map((f) => import(assetURL(CODECS + f))));
    codecs = {
      GZIP: (input, length) => gz.gunzip(input, new Uint8Array(length)),
      BROTLI: br.decompressBrotli,
      ZSTD: (input) => zs.decompress(input),
      LZ4: lz.decompressLz4,
      LZ4_RAW: lz.decompressLz4Raw,
    };
  }
  return codecs;
}

/** True when the file starts with the Parquet magic PAR1 (the name is not consulted). */
export async function isParquet(/** @type {Blob} */ file) {
  if (file.size < 8) return false;
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  return PAR1.every((b, i) => head[i] === b);
}

/** hyparquet's AsyncBuffer over a File: byte ranges by File.slice, never the whole file. */
export function asyncBuffer(/** @type {Blob} */ file) {
  return { byteLength: file.size, slice: (/** @type {number} */ s, /** @type {number=} */ e) => file.slice(s, e).arrayBuffer() };
}

/**
 * Every leaf field path of a hyparquet schema tree, in schema order: structs become dotted
 * paths, LIST-annotated groups (and repeated fields) `[]`, maps `[].key` and `[].value` (the
 * same rule as py/evalsieve/parquet_io.py schema_paths for pyarrow).
 * @param {any} root parquetSchema(metadata)
 * @returns {string[]}
 */
export function schemaPaths(root) {
  /** @type {string[]} */
  const out = [];
  const annotation = (/** @type {any} */ e) => e.logical_type?.type || e.converted_type;
  const walk = (/** @type {any} */ node, /** @type {string} */ prefix) => {
    const e = node.element;
    const kind = annotation(e);
    const kids = node.children || [];
    if ((kind === 'LIST') && kids.length === 1) {
      const rep = kids[0];
      const item = rep.children && rep.children.length === 1 ? rep.children[0] : rep;
      walk(item === rep ? { ...rep, element: { ...rep.element, repetition_type: 'REQUIRED' } } : item, `${prefix}[]`);
    } else if ((kind === 'MAP' || kind === 'MAP_KEY_VALUE') && kids.length === 1 && (kids[0].children || []).length === 2) {
      walk(kids[0].children[0], `${prefix}[].key`);
      walk(kids[0].children[1], `${prefix}[].value`);
    } else if (e.repetition_type === 'REPEATED') {
      walk({ ...node, element: { ...e, repetition_type: 'REQUIRED' } }, `${prefix}[]`);
    } else if (kids.length) {
      for (const k of kids) walk(k, prefix ? `${prefix}.${k.element.name}` : k.element.name);
    } else {
      out.push(prefix);
    }
  };
  for (const k of root.children || []) walk(k, k.element.name);
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A hyparquet value as a JSON value, as parquet_io.plain does for pyarrow's: strings,
 * booleans and finite numbers as they are (NaN/±Infinity → null); bigint → number when it is
 * a safe integer, else its decimal text; Date → ISO text; bytes → UTF-8 text when valid, else
 * `base64:...`; arrays and objects element by element.
 * @param {any} v @returns {any}
 */
export function plainValue(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (v instanceof Uint8Array) {
    try { return utf8.decode(v); } catch { return `base64:${btoa(String.fromCharCode(...v))}`; }
  }
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(/** @type {any} */ (v), plainValue);
  if (typeof v === 'object') {
    /** @type {Record<string, any>} */
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = plainValue(x);
    return o;
  }
  return String(v);
}

/**
 * Open a Parquet file: its footer, schema paths and row-group sizes.
 * Returns {metadata, paths, rows, rowGroups: [{start, end}]} (rows: 0-based, end exclusive).
 * Raises: ProtocolError bad_input naming the file when the footer cannot be read.
 * @param {File} file @param {any} [hp] hyparquet's module (default: the served one; Node tests pass theirs)
 */
export async function openParquet(file, hp) {
  hp = hp || await lib();
  let metadata;
  try {
    metadata = await hp.parquetMetadataAsync(asyncBuffer(file));
  } catch (e) {
    throw new ProtocolError(ERR.BAD_INPUT, `not a readable Parquet file: ${messageOf(e)}`, {
      file: file.name, expected: 'a Parquet file with a valid footer (PAR1 at both ends)', detail: String(e),
    });
  }
  const paths = schemaPaths(hp.parquetSchema(metadata));
  const rowGroups = [];
  let start = 0;
  for (const g of metadata.row_groups) {
    const n = Number(g.num_rows);
    rowGroups.push({ start, end: start + n });
    start += n;
  }
  return { metadata, paths, rows: start, rowGroups };
}

/** The top-level columns that field paths need (`messages[role=user].content` → messages). */
export function topColumns(/** @type {string[]} */ fields) {
  return [...new Set(fields.map((f) => f.split(/[.[]/)[0]))];
}

/**
 * Read rows [rowStart, rowEnd) of the chosen top-level columns (all when null) as JSON-plain
 * objects; hyparquet reads only the row groups that hold them. A map is its entries
 * `[{key, value}, ...]` as the CLI reads it (parquet-maps.js), so `tags[].key` is a path here too.
 * Raises: ProtocolError bad_input naming the file (a corrupt page, or a codec none of
 * hyparquet's and compressors()' reads).
 * @param {File} file @param {any} metadata @param {number} rowStart @param {number} rowEnd
 * @param {string[] | null} columns
 */
export async function readRows(file, metadata, rowStart, rowEnd, columns) {
  const hp = await lib();
  try {
    const readable = readableMetadata(metadata);
    const rows = await hp.parquetReadObjects({
      file: asyncBuffer(file), metadata: readable.metadata, rowStart, rowEnd, columns: columns || undefined, compressors: await compressors(),
    });
    return rows.map((/** @type {any} */ r) => plainValue(mapsAsEntries(r, '', readable.maps)));
  } catch (e) {
    throw new ProtocolError(ERR.BAD_INPUT, `cannot read rows ${rowStart + 1}–${rowEnd} of this Parquet file: ${messageOf(e)}`, {
      file: file.name,
      expected: 'a valid Parquet file with pages uncompressed or in snappy, gzip, brotli, zstd, lz4 or lz4_raw (else use the CLI, which reads it with pyarrow)',
      detail: String(e),
    });
  }
}

/**
 * The sha256 (hex) and size of a file's raw bytes, streamed (File.stream), for the stamp.
 * @param {File} file @param {(done: number) => void} [onBytes]
 */
export async function hashFile(file, onBytes) {
  const factory = getSha256Factory();
  if (!factory) throw new ProtocolError(ERR.INTERNAL, 'sha256 is not available (hash-wasm not loaded)');
  const h = await factory();
  h.init();
  const reader = file.stream().getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    h.update(value);
    bytes += value.byteLength;
    if (onBytes) onBytes(bytes);
  }
  return { sha256: h.digest('hex'), bytes };
}
