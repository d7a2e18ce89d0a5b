// @ts-check
// The training corpus's files, pure (no page state; Node-tested): which files of a dropped
// folder count, their names and order, one field list for all, and what a run sends.
// Names and order are the CLI's (py/evalsieve/corpus.py expand_inputs): the base name of a
// file chosen alone, the relative path (`folder/sub/file.jsonl`) of a file in a folder;
// files sorted by that name, as the CLI sorts a TRAIN directory.

/** What a folder contributes (py/evalsieve/corpus.py SUPPORTED, each also with .gz);
 *  Parquet only where the page's inspect reads it. Files chosen one by one are all taken. */
export const CORPUS_EXTENSIONS = ['.jsonl', '.ndjson', '.json', '.csv', '.tsv', '.tab', '.txt', '.parquet'];

/** Files of a Hugging Face dataset folder that hold no rows (py/evalsieve/layouts.py
 *  HF_METADATA): a folder leaves them out, as the CLI's walk does. */
const HF_METADATA = ['dataset_info.json', 'dataset_infos.json', 'dataset_dict.json', 'state.json'];

/** What the page says of a folder holding Arrow shards (a datasets cache or save_to_disk). */
export const ARROW_NOTE = 'this folder holds Arrow shards (a Hugging Face datasets cache or save_to_disk folder), which the page does not read: use the CLI (pip install \'evalsieve[parquet]\'), or save the dataset as Parquet or JSON Lines (Dataset.to_parquet / to_json)';

/** @param {string} name */
function supported(name) {
  const low = name.toLowerCase().replace(/\.gz$/, '');
  return CORPUS_EXTENSIONS.some((e) => low.endsWith(e));
}

/**
 * Why a folder leaves out a file it would otherwise read (layouts.py _skip_reason and the
 * walk's folder rule), or null. `path` starts with the dropped folder's own name.
 * @param {string} path
 */
function leftOutReason(path) {
  const parts = path.split('/').slice(1);
  const base = parts[parts.length - 1] || '';
  if (parts.slice(0, -1).some((p) => p.startsWith('.'))) return 'hidden';
  if (parts.slice(0, -1).some((p) => p.endsWith('.incomplete'))) return 'an unfinished datasets build';
  if (HF_METADATA.includes(base)) return 'datasets metadata';
  if (base.startsWith('.')) return 'hidden';
  return null;
}

/**
 * The files of a folder the page reads, in the order given, with what it left out:
 * `files.leftOut` ([{name, why}], supported files only) and `files.arrow` (Arrow shards
 * seen, which only the CLI reads).
 * @param {File[]} named files named by their path in the folder
 * @returns {File[] & {leftOut: Array<{name: string, why: string}>, arrow: number}}
 */
function keepFolderFiles(named) {
  const leftOut = [];
  const kept = [];
  let arrow = 0;
  for (const f of named) {
    if (/\.arrow$/i.test(f.name)) { arrow++; continue; }
    if (!supported(f.name)) continue;
    const why = leftOutReason(f.name);
    if (why) leftOut.push({ name: f.name, why });
    else kept.push(f);
  }
  return Object.assign(kept, { leftOut, arrow });
}

/**
 * A file under the name the report gives it (the relative path in a folder). The bytes
 * are not copied: a File built from a File refers to the same data.
 * @param {File} file @param {string} name
 */
const named = (file, name) => (file.name === name ? file : new File([file], name, { type: file.type, lastModified: file.lastModified }));

/**
 * Every file below a dropped directory entry (readEntries answers in batches).
 * @param {FileSystemEntry} entry @param {File[]} out
 */
async function walk(entry, out) {
  if (entry.isFile) {
    const fileEntry = /** @type {FileSystemFileEntry} */ (entry);
    const file = await new Promise(/** @param {(f: File) => void} resolve @param {(e: DOMException) => void} reject */ (resolve, reject) => fileEntry.file(resolve, reject));
    out.push(named(file, entry.fullPath.replace(/^\//, '')));
    return;
  }
  const reader = /** @type {FileSystemDirectoryEntry} */ (entry).createReader();
  for (;;) {
    const batch = await new Promise(/** @param {(b: FileSystemEntry[]) => void} resolve @param {(e: DOMException) => void} reject */ (resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) break;
    for (const e of batch) await walk(e, out);
  }
}

/**
 * The files of a drop, when it is a corpus: several items or a folder. Must be called
 * during the drop event (the entries die with it); returns a promise of the files, or
 * null for a drop of one plain file (the ordinary path).
 * @param {DataTransfer} dt
 * @returns {Promise<File[]> | null}
 */
export function corpusOfDrop(dt) {
  const items = [...(dt.items || [])].filter((i) => i.kind === 'file');
  const entries = items.map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null));
  const folder = entries.some((e) => e && e.isDirectory);
  if (!folder && (dt.files?.length || 0) <= 1) return null;
  if (entries.some((e) => !e)) return Promise.resolve([...dt.files]);
  return (async () => {
    /** @type {File[]} */
    const inFolders = [];
    /** @type {File[]} */
    const loose = [];
    for (const e of /** @type {FileSystemEntry[]} */ (entries)) { // none is null here (checked above)
      if (e.isDirectory) await walk(e, inFolders);
      else loose.push(await new Promise(/** @param {(f: File) => void} resolve @param {(e: DOMException) => void} reject */ (resolve, reject) => /** @type {FileSystemFileEntry} */ (e).file(resolve, reject)));
    }
    const kept = keepFolderFiles(inFolders);
    return Object.assign([...kept, ...loose], { leftOut: kept.leftOut, arrow: kept.arrow });
  })();
}

/** Files of a <input type=file multiple> or <input webkitdirectory>, named by their path
 *  (a folder's: only those it reads, with `leftOut` and `arrow` as keepFolderFiles). @param {FileList | File[]} list */
export function corpusOfInput(list) {
  const files = [...list];
  const folder = files.some((f) => f.webkitRelativePath);
  return folder ? keepFolderFiles(files.map((f) => named(f, f.webkitRelativePath))) : files;
}

/** Sorted by name (code units, as Python sorts these paths); a name twice is an error. @param {File[]} files */
export function corpusOrder(files) {
  const out = [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = 1; i < out.length; i++) {
    if (out[i].name === out[i - 1].name) throw new Error(`${out[i].name}: the same name twice in the training corpus; drop a folder to keep paths apart`);
  }
  return out;
}

/**
 * One field list for the corpus: every field of any file, plain then element-filter paths
 * (the first file's figures for a path several files have), ticked by default where some
 * file picks it by default: each file's default in corpus order, each path once, as
 * py/evalsieve/sample.py corpus_defaults orders them for the CLI. `default_reasons` gives,
 * per default path, the reason of the file whose default it is, named (each file's own
 * figures; the picker shows it under that field).
 * @param {Array<{file: File, info: Record<string, any>}>} parts
 */
export function corpusInfo(parts) {
  const fields = new Map();
  const filters = new Map();
  /** @type {Record<string, string>} */
  const reasons = {};
  for (const { file, info } of parts) {
    for (const f of info.fields) if (!fields.has(f.path)) fields.set(f.path, f);
    for (const f of info.filter_fields || []) if (!filters.has(f.path)) filters.set(f.path, f);
    for (const d of info.default_fields || []) if (!(d in reasons)) reasons[d] = `${file.name}: ${info.default_reason}`;
  }
  const formats = [...new Set(parts.map((p) => `${p.info.format}${p.info.gzip ? ' (gzip)' : ''}`))];
  const defaults = Object.keys(reasons);
  // the records' id field: the first file's (corpus order) that has one by name, as the CLI's
  const idField = parts.map((p) => p.info.default_id_field).find(Boolean) ?? null;
  return {
    ...parts[0].info, fields: [...fields.values()], filter_fields: [...filters.values()], default_fields: defaults,
    default_reasons: reasons, default_reason: defaults.length ? 'each file\'s own default' : parts[0].info.default_reason,
    default_id_field: idField, format: formats.join(', '), corpus_size: parts.reduce((s, p) => s + p.file.size, 0),
  };
}

/** Every path a file's `inspect` lists: plain fields, then element-filter paths. */
const listedPaths = (/** @type {Record<string, any>} */ info) => [...info.fields, ...(info.filter_fields || [])].map((f) => f.path);

/**
 * What a run sends for the corpus: `train_files[i] = {name, format, fields}` (the chosen
 * fields this file lists, element filters included, at least one: the CLI's rule for the
 * --train-field paths, py/evalsieve/cli.py _present) and the files under 'train',
 * 'train.1', ... (worker/jobs/contamination-corpus.js).
 * @param {Array<{file: File, info: Record<string, any>}>} parts @param {string[]} chosen
 * @throws {Error} a file holds none of the chosen fields (names the file, the fields chosen
 *   and its own)
 */
export function corpusRequest(parts, chosen) {
  const trainFiles = parts.map(({ file, info }) => {
    const listed = listedPaths(info);
    const has = new Set(listed);
    const fields = chosen.filter((c) => has.has(c));
    if (!fields.length) {
      throw new Error(`${file.name}: none of the chosen training fields (${chosen.join(', ')}) is in this file; its fields: ${listed.join(', ') || 'none'}`);
    }
    return { name: file.name, format: info.format, fields };
  });
  const files = Object.fromEntries(parts.map(({ file }, i) => [i === 0 ? 'train' : `train.${i}`, file]));
  return { train_files: trainFiles, files };
}
