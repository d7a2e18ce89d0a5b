// The training corpus's files, pure (no page state; Node-tested): which files of a dropped
// folder count, their names and order, one field list for all, and what a run sends.
// Names and order are the CLI's (py/evalsieve/corpus.py expand_inputs): the base name of a
// file chosen alone, the relative path (`folder/sub/file.jsonl`) of a file in a folder;
// files sorted by that name, as the CLI sorts a TRAIN directory.

/** What a folder contributes (py/evalsieve/corpus.py SUPPORTED, each also with .gz);
 *  Parquet only where the page's inspect reads it. Files chosen one by one are all taken. */
export const CORPUS_EXTENSIONS = ['.jsonl', '.ndjson', '.json', '.csv', '.tsv', '.tab', '.txt', '.parquet'];

/** @param {string} name */
function supported(name) {
  const low = name.toLowerCase().replace(/\.gz$/, '');
  return CORPUS_EXTENSIONS.some((e) => low.endsWith(e));
}

/**
 * A file under the name the report gives it (the relative path in a folder). The bytes
 * are not copied: a File built from a File refers to the same data.
 * @param {File} file @param {string} name
 */
const named = (file, name) => (file.name === name ? file : new File([file], name, { type: file.type, lastModified: file.lastModified }));

/** Every file below a dropped directory entry (readEntries answers in batches). */
async function walk(entry, out) {
  if (entry.isFile) {
    const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
    const path = entry.fullPath.replace(/^\//, '');
    if (supported(path)) out.push(named(file, path));
    return;
  }
  const reader = entry.createReader();
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
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
    const out = [];
    for (const e of entries) {
      if (e.isDirectory) await walk(e, out);
      else out.push(await new Promise((resolve, reject) => e.file(resolve, reject)));
    }
    return out;
  })();
}

/** Files of a <input type=file multiple> or <input webkitdirectory>, named by their path. */
export function corpusOfInput(list) {
  const files = [...list];
  const folder = files.some((f) => f.webkitRelativePath);
  return folder ? files.filter((f) => supported(f.webkitRelativePath)).map((f) => named(f, f.webkitRelativePath)) : files;
}

/** Sorted by name (code units, as Python sorts these paths); a name twice is an error. */
export function corpusOrder(files) {
  const out = [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = 1; i < out.length; i++) {
    if (out[i].name === out[i - 1].name) throw new Error(`${out[i].name}: the same name twice in the training corpus; drop a folder to keep paths apart`);
  }
  return out;
}

/**
 * One field list for the corpus: every field of any file (first file's figures first),
 * checked by default where some file picks it by default.
 * @param {Array<{file: File, info: Record<string, any>}>} parts
 */
export function corpusInfo(parts) {
  const fields = new Map();
  const defaults = new Set();
  for (const { info } of parts) {
    for (const f of info.fields) if (!fields.has(f.path)) fields.set(f.path, f);
    for (const d of info.default_fields || []) defaults.add(d);
  }
  const formats = [...new Set(parts.map((p) => `${p.info.format}${p.info.gzip ? ' (gzip)' : ''}`))];
  // the records' id field: the first file's (corpus order) that has one by name, as the CLI's
  const idField = parts.map((p) => p.info.default_id_field).find(Boolean) ?? null;
  return { ...parts[0].info, fields: [...fields.values()], default_fields: [...defaults], default_id_field: idField, format: formats.join(', '), corpus_size: parts.reduce((s, p) => s + p.file.size, 0) };
}

/**
 * What a run sends for the corpus: `train_files[i] = {name, format, fields}` (the chosen
 * fields this file has, at least one) and the files under 'train', 'train.1', ...
 * (worker/jobs/contamination-corpus.js).
 * @param {Array<{file: File, info: Record<string, any>}>} parts @param {string[]} chosen
 * @throws {Error} a file holds none of the chosen fields (names the file and its fields)
 */
export function corpusRequest(parts, chosen) {
  const trainFiles = parts.map(({ file, info }) => {
    const has = new Set(info.fields.map((f) => f.path));
    const fields = chosen.filter((c) => has.has(c));
    if (!fields.length) {
      throw new Error(`${file.name}: none of the chosen training fields (${chosen.join(', ')}) is in this file; its fields: ${[...has].join(', ') || 'none'}`);
    }
    return { name: file.name, format: info.format, fields };
  });
  const files = Object.fromEntries(parts.map(({ file }, i) => [i === 0 ? 'train' : `train.${i}`, file]));
  return { train_files: trainFiles, files };
}
