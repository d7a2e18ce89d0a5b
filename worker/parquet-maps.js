// @ts-check
// Parquet maps as their entries, in the page as in the CLI: hyparquet assembles a MAP column
// into an object keyed by text (entries' order, repeated keys and non-text keys lost), where
// pyarrow gives a list of (key, value) pairs (parquet_io.plain: `[{key, value}, ...]`). Read
// with readableMetadata (the MAP annotation dropped, so a map arrives as its key_value
// entries) and passed through mapsAsEntries, every map is `[{key, value}, ...]`: field paths
// `tags[].key` / `tags[].value` in both, and the exact entries for the clean Parquet file
// (worker/parquet-write.js). Pure functions of hyparquet's flat schema list and values.

/**
 * Every element's path in the shape hyparquet assembles values, root first (''): struct
 * fields dotted, a LIST's items `[]` (its repeated wrapper and element add no name), a MAP's
 * entries `{}` (`tags{}.key`); so `messages[].role`, `lm[]{}.value`. `top[i]`: element i is
 * a column (a child of the root). @param {any[]} schema @returns {string[] & {top: boolean[]}}
 */
export function elementPaths(schema) {
  const out = Object.assign(/** @type {string[]} */ ([]), { top: /** @type {boolean[]} */ ([]) });
  /** @type {{path: string, left: number, kind: string}[]} */
  const open = [];
  for (const [i, e] of schema.entries()) {
    while (open.length && open[open.length - 1].left === 0) open.pop();
    const parent = open[open.length - 1];
    if (parent) parent.left -= 1;
    const path = !parent ? ''
      : parent.kind === 'LIST' ? `${parent.path}[]`
        : parent.kind === 'MAP' ? `${parent.path}{}`
          : parent.kind === 'WRAP' ? parent.path
            : parent.path ? `${parent.path}.${e.name}` : e.name;
    out.push(path);
    out.top.push(open.length === 1);
    const lt = e.logical_type && e.logical_type.type;
    const kind = (e.converted_type === 'LIST' || lt === 'LIST') ? 'LIST'
      : (e.converted_type === 'MAP' || e.converted_type === 'MAP_KEY_VALUE' || lt === 'MAP') ? 'MAP'
        : (parent && parent.kind === 'LIST' && e.num_children === 1) ? 'WRAP' : '';
    if (e.num_children) open.push({ path, left: e.num_children, kind });
  }
  return out;
}

/**
 * A copy of the file's metadata for reading rows as they are stored: MAP groups lose their
 * annotation, so hyparquet reads a map as its repeated key_value entries (in order, with
 * repeated keys and non-text keys) instead of an object keyed by text. `maps` holds their
 * paths (elementPaths) for mapsAsEntries.
 * @param {any} metadata @returns {{metadata: any, maps: Set<string>}}
 */
export function readableMetadata(metadata) {
  const maps = new Set();
  const names = elementPaths(metadata.schema);
  const schema = metadata.schema.map((/** @type {any} */ e, /** @type {number} */ i) => {
    if (e.converted_type !== 'MAP' && !(e.logical_type && e.logical_type.type === 'MAP')) return e;
    maps.add(names[i]);
    return { ...e, converted_type: undefined, logical_type: undefined };
  });
  return { metadata: { ...metadata, schema }, maps };
}

/**
 * A row value read with readableMetadata as the CLI reads it and hyparquet-writer takes it: each map (read as
 * `{key_value: [{key, value}, ...]}`) becomes its array of `{key, value}` entries; values
 * pass through as they are. `path` is the value's path in elementPaths' spelling.
 * @param {any} v @param {string} path @param {Set<string>} maps @returns {any}
 */
export function mapsAsEntries(v, path, maps) {
  if (v === null || v === undefined || !maps.size) return v; // no map in the schema: as read
  if (maps.has(path)) {
    const entries = Object.values(v)[0] || [];
    return entries.map((/** @type {any} */ kv) => ({
      key: mapsAsEntries(kv.key, `${path}{}.key`, maps), value: mapsAsEntries(kv.value, `${path}{}.value`, maps),
    }));
  }
  if (Array.isArray(v)) return v.map((x) => mapsAsEntries(x, `${path}[]`, maps));
  if (typeof v === 'object' && v.constructor === Object) {
    /** @type {Record<string, any>} */
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = mapsAsEntries(x, path ? `${path}.${k}` : k, maps);
    return o;
  }
  return v;
}
