// @ts-check
// eval.clean.parquet in the page: the kept rows of a Parquet eval file, read one row group at
// a time with hyparquet (as stored: numbers, bigints and bytes, not dates or decoded text)
// and written with hyparquet-writer (dist/assets/hyparquet-writer/, pinned in
// assets.lock.json) under the source's own schema elements and key-value metadata (so
// pyarrow reads the same Arrow schema, ARROW:schema included). A type hyparquet-writer cannot
// write back value for value is refused by name before any row is read (unsupportedType); the
// job then keeps eval.clean.rows.csv (the kept row numbers) for that file only.

import { assetURL } from './assets.js';
import { asyncBuffer, compressors, lib, openParquet } from './parquet.js';
import { mapsAsEntries, elementPaths, readableMetadata } from './parquet-maps.js';

/** The clean file's MIME type (the Parquet media type registered with IANA in 2024). */
export const PARQUET_MIME = 'application/vnd.apache.parquet';
/** What the footer's created_by says wrote the file. */
const CREATED_BY = 'evalsieve page (hyparquet-writer 0.17.0)';
/** DECIMALs up to this many digits survive hyparquet's float64 (exact below 2^53; see unsupportedType). */
const DECIMAL_MAX_DIGITS = 15;

/** @type {any} */
let writerLib = null;
/** hyparquet-writer's index module, imported once from our own dist. */
async function writer() {
  if (!writerLib) writerLib = await import(assetURL('assets/hyparquet-writer/index.js'));
  return writerLib;
}

const same = (/** @type {any} */ v) => v;
/**
 * hyparquet parsers that keep the stored value: timestamps as their integer count of the
 * unit (not a millisecond Date), dates as days, text, JSON, UUIDs and geometry as their bytes
 * (with `utf8: false`, invalid UTF-8 survives too). hyparquet-writer turns these back into
 * the same physical values (its unconvert takes bigints, day counts and bytes as they are).
 */
export const RAW_PARSERS = Object.freeze({
  timestampFromMilliseconds: same, timestampFromMicroseconds: same, timestampFromNanoseconds: same,
  dateFromDays: same, stringFromBytes: same, jsonFromBytes: same, geometryFromBytes: same,
  geographyFromBytes: same, uuidFromBytes: same,
});

/**
 * The first type in a Parquet schema that this page cannot copy value for value, as words
 * naming the type and the column, or null when every column can be written.
 *
 * Refused (hyparquet reads or hyparquet-writer writes them differently from the stored
 * value): JSON and BSON (the writer re-serialises parsed JSON; bytes would be quoted),
 * INTERVAL (hyparquet cannot read it), GEOMETRY/GEOGRAPHY (the writer encodes GeoJSON, not
 * stored WKB), VARIANT, INT96 (hyparquet-writer has no INT96 encoder) and DECIMAL with more
 * than 15 digits (hyparquet reads a DECIMAL as a float64, exact to 15 digits).
 * @param {any[]} schema metadata.schema: hyparquet's flat SchemaElement list, root first
 * @returns {string | null}
 */
export function unsupportedType(schema) {
  const names = elementPaths(schema);
  for (const [i, e] of schema.entries()) {
    const name = names[i];
    const lt = e.logical_type && e.logical_type.type;
    const ct = e.converted_type;
    const why = (ct === 'JSON' || lt === 'JSON') ? 'JSON'
      : (ct === 'BSON' || lt === 'BSON') ? 'BSON'
        : ct === 'INTERVAL' ? 'INTERVAL'
          : (lt === 'GEOMETRY' || lt === 'GEOGRAPHY') ? lt
            : lt === 'VARIANT' ? 'VARIANT'
              : e.type === 'INT96' ? 'INT96 (legacy timestamp)'
                : (ct === 'DECIMAL' && (e.precision || 0) > DECIMAL_MAX_DIGITS) ? `DECIMAL(${e.precision}, ${e.scale || 0}) (more than ${DECIMAL_MAX_DIGITS} digits)`
                  : null;
    if (why) return `${why} in column ${name}`;
  }
  return null;
}

/**
 * The schema elements as hyparquet-writer 0.17.0 writes them correctly: an INTEGER logical
 * type becomes its converted type (INT_8 … UINT_64, the same meaning in the Parquet spec; the
 * writer sends IntType.bitWidth as a Thrift i32 where the spec has i8, which pyarrow cannot
 * read). Every other field is kept. @param {any[]} schema @returns {any[]}
 */
export function writableSchema(schema) {
  return schema.map((e) => {
    const lt = e.logical_type;
    if (!lt || lt.type !== 'INTEGER') return e;
    return { ...e, logical_type: undefined, converted_type: `${lt.isSigned ? 'INT' : 'UINT'}_${lt.bitWidth}` };
  });
}

/**
 * Write the kept rows of a Parquet file as a new Parquet file with its schema.
 *
 * Reads only the row groups that hold kept rows, each once and only from its first to its
 * last kept row; writes one row group per source row group that keeps a row (snappy pages,
 * the writer's default); copies the source's key-value metadata (ARROW:schema, pandas).
 * Args: file: the Parquet eval file; keep: 0-based row positions, ascending (the job's
 * kept_rows); libs: {hp, hw} to use instead of the served hyparquet and hyparquet-writer
 * and the page codecs (Node tests: {hp, hw, codecs}); libs.between: called before each row
 * group is read (the job's cancellation check; it may throw).
 * Returns {blob, rows} (rows written), or {unsupported: words} when unsupportedType refuses
 * the schema (nothing read).
 * @param {Blob & {name?: string}} file @param {number[]} keep @param {{hp?: any, hw?: any, codecs?: any, between?: () => void}} [libs]
 * @returns {Promise<{blob: Blob, rows: number} | {unsupported: string}>}
 */
export async function writeKeptRows(file, keep, libs = {}) {
  const hp = libs.hp || await lib();
  const hw = libs.hw || await writer();
  const codecs = libs.codecs || await compressors();
  const pq = await openParquet(/** @type {File} */ (file), hp);
  const unsupported = unsupportedType(pq.metadata.schema);
  if (unsupported) return { unsupported };
  const { metadata, maps } = readableMetadata(pq.metadata);
  const paths = elementPaths(pq.metadata.schema);
  const top = pq.metadata.schema.filter((/** @type {any} */ _, /** @type {number} */ i) => paths.top[i]).map((/** @type {any} */ e) => e.name);
  const out = new hw.ByteWriter();
  /** @type {ArrayBuffer[]} */
  const parts = [];
  out.flush = () => { parts.push(out.getBuffer()); out.index = 0; };
  out.finish = out.flush;
  const w = new hw.ParquetWriter({
    writer: out, schema: writableSchema(pq.metadata.schema), kvMetadata: pq.metadata.key_value_metadata, createdBy: CREATED_BY,
  });
  let k = 0;
  for (const g of pq.rowGroups) {
    const take = /** @type {number[]} */ ([]);
    while (k < keep.length && keep[k] < g.end) take.push(keep[k++]);
    if (!take.length) continue;
    if (libs.between) libs.between();
    const rows = await hp.parquetReadObjects({
      file: asyncBuffer(file), metadata, rowStart: take[0], rowEnd: take[take.length - 1] + 1,
      parsers: RAW_PARSERS, utf8: false, compressors: codecs,
    });
    const kept = take.map((i) => rows[i - take[0]]);
    const columnData = top.map((/** @type {string} */ name) => ({ name, data: kept.map((r) => mapsAsEntries(r[name], name, maps)) }));
    w.write({ columnData, rowGroupSize: kept.length });
  }
  w.finish();
  return { blob: new Blob(parts, { type: PARQUET_MIME }), rows: keep.length };
}

/**
 * The clean export of a Parquet eval file (cont.run, after cont.exports): the entry that
 * Python gave `kept_rows` (0-based) and `clean_name` becomes `{name: 'eval.clean.parquet',
 * mime, text: '', blob}`; when a column's type cannot be written faithfully it stays the
 * rows CSV and `parquet_kept` says which type ({name, rows, reason}).
 * @param {import('./dispatch.js').JobContext} ctx @param {File} file
 * @param {(import('./protocol.js').Export & {kept_rows?: number[], clean_name?: string})[]} exports
 * @returns {Promise<{exports: import('./protocol.js').Export[], parquet_kept?: {name: string, rows: number, reason: string}}>}
 */
export async function cleanParquetExport(ctx, file, exports) {
  const i = exports.findIndex((x) => Array.isArray(x.kept_rows));
  if (i < 0) return { exports };
  const { kept_rows: keep, clean_name: name, ...csv } = exports[i];
  if (!keep || name === undefined) return { exports }; // Python sends clean_name with kept_rows
  const out = exports.slice();
  const written = await writeKeptRows(file, keep, { between: () => ctx.throwIfCancelled() });
  if ('unsupported' in written) {
    const reason = `this page cannot write ${written.unsupported} value for value`;
    ctx.log(`${name} not written: ${reason}; ${csv.name} lists the kept rows`);
    out[i] = csv;
    return { exports: out, parquet_kept: { name: csv.name, rows: keep.length, reason } };
  }
  ctx.log(`${name}: ${written.rows} rows, ${written.blob.size} bytes`);
  out[i] = { name, mime: PARQUET_MIME, text: '', blob: written.blob };
  return { exports: out };
}
