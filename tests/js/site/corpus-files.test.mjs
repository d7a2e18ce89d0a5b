// site/sections/corpus-files.js: a dropped folder's files, their names and order, and
// the per-file fields a run sends — the same names and order as the CLI's TRAIN directory.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { CORPUS_EXTENSIONS, corpusInfo, corpusOfDrop, corpusOfInput, corpusOrder, corpusRequest } from '../../../site/sections/corpus-files.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const python = process.env.EVALSIEVE_PYTHON || 'python3';

test('a folder contributes the extensions the CLI takes from a directory', () => {
  const py = JSON.parse(execFileSync(python, ['-c', 'import json; from evalsieve.corpus import SUPPORTED; print(json.dumps(list(SUPPORTED)))'], {
    env: { ...process.env, PYTHONPATH: path.join(ROOT, 'py') }, encoding: 'utf-8',
  }));
  assert.deepEqual(CORPUS_EXTENSIONS, py);
  const inFolder = (name) => Object.assign(new File(['x'], name), { webkitRelativePath: `d/${name}` });
  const kept = corpusOfInput(['a.jsonl.gz', 'b.CSV', 'c.md', 'd.txt.gz', 'e.gz', 'f.parquet'].map(inFolder));
  assert.deepEqual(kept.map((f) => f.name), ['d/a.jsonl.gz', 'd/b.CSV', 'd/d.txt.gz', 'd/f.parquet']);
});

// A fake FileSystemEntry tree, as DataTransferItem.webkitGetAsEntry gives for a dropped folder.
function fileEntry(fullPath) {
  return { isFile: true, isDirectory: false, fullPath, file: (ok) => ok(new File(['x'], fullPath.split('/').pop())) };
}
function dirEntry(fullPath, children, batch = 2) {
  return {
    isFile: false, isDirectory: true, fullPath,
    createReader() { // readEntries answers in batches, then an empty one
      let at = 0;
      return { readEntries: (ok) => { const b = children.slice(at, at + batch); at += batch; setTimeout(() => ok(b), 0); } };
    },
  };
}
const item = (entry) => ({ kind: 'file', webkitGetAsEntry: () => entry });

test('a dropped folder gives every supported file below it, named by its path, in the CLI order', async () => {
  const tree = dirEntry('/shards', [
    dirEntry('/shards/b', [fileEntry('/shards/b/part-2.csv'), fileEntry('/shards/b/notes.md')]),
    fileEntry('/shards/z.jsonl'),
    dirEntry('/shards/a', [fileEntry('/shards/a/part-1.jsonl.gz'), fileEntry('/shards/a/part-0.jsonl'), fileEntry('/shards/a/x.txt')]),
  ]);
  const files = corpusOrder(await corpusOfDrop({ items: [item(tree)], files: [] }));
  // Python: sorted(os.walk paths) -> shards/a/..., shards/b/..., shards/z.jsonl
  assert.deepEqual(files.map((f) => f.name), ['shards/a/part-0.jsonl', 'shards/a/part-1.jsonl.gz', 'shards/a/x.txt', 'shards/b/part-2.csv', 'shards/z.jsonl']);
});

test('one plain file dropped takes the ordinary path; several files are a corpus', async () => {
  const one = new File(['x'], 'a.jsonl');
  assert.equal(corpusOfDrop({ items: [item(fileEntry('/a.jsonl'))], files: [one] }), null);
  const two = await corpusOfDrop({ items: [item(fileEntry('/b.csv')), item(fileEntry('/a.jsonl'))], files: [one, one] });
  assert.deepEqual(corpusOrder(two).map((f) => f.name), ['a.jsonl', 'b.csv']);
});

test('files of a folder input are named by their relative path; unsupported ones left out', () => {
  const f = (name, rel) => Object.assign(new File(['x'], name), { webkitRelativePath: rel });
  const got = corpusOfInput([f('b.jsonl', 'd/b.jsonl'), f('r.md', 'd/r.md'), f('a.csv', 'd/s/a.csv')]);
  assert.deepEqual(got.map((x) => x.name), ['d/b.jsonl', 'd/s/a.csv']);
  assert.throws(() => corpusOrder([new File([''], 'a.jsonl'), new File([''], 'a.jsonl')]), /a\.jsonl: the same name twice/);
});

test('each file gets the chosen fields it has; a file with none is named', () => {
  const parts = [
    { file: new File([''], 'a.jsonl'), info: { format: 'jsonl', fields: [{ path: 'text' }, { path: 'id' }] } },
    { file: new File([''], 'b.csv'), info: { format: 'csv', fields: [{ path: 'content' }] } },
  ];
  const r = corpusRequest(parts, ['text', 'content']);
  assert.deepEqual(r.train_files, [{ name: 'a.jsonl', format: 'jsonl', fields: ['text'] }, { name: 'b.csv', format: 'csv', fields: ['content'] }]);
  assert.deepEqual(Object.keys(r.files), ['train', 'train.1']);
  assert.equal(r.files['train.1'], parts[1].file);
  assert.throws(() => corpusRequest(parts, ['text']), /^Error: b\.csv: none of the chosen training fields \(text\) is in this file; its fields: content$/);
});

// Two chat files as Python's inspect describes them (sample.inspect_head), for the tests below.
const USER = 'messages[role=user].content';
const HUMAN = 'conversations[from=human].value';
function inspected(name, rows) {
  const code = 'import json, sys; from evalsieve.sample import inspect_head; '
    + 'print(json.dumps(inspect_head(sys.argv[1], sys.stdin.read(), complete=True)))';
  return JSON.parse(execFileSync(python, ['-c', code, name], {
    env: { ...process.env, PYTHONPATH: path.join(ROOT, 'py') }, encoding: 'utf-8',
    input: rows.map((r) => JSON.stringify(r) + '\n').join(''),
  }));
}
const openaiRows = [0, 1, 2].map((i) => ({ messages: [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: `what is the name of river number ${i} in the north` }, { role: 'assistant', content: `river ${i}` }] }));
const sharegptRows = [0, 1].map((i) => ({ conversations: [{ from: 'human', value: `how many bridges cross the long river in town ${i} today` }, { from: 'gpt', value: `${i}` }] }));

test('element-filter paths count as fields a file has (OpenAI and ShareGPT together)', () => {
  const parts = [
    { file: new File([''], 'a.jsonl'), info: inspected('a.jsonl', openaiRows) },
    { file: new File([''], 'b.jsonl'), info: inspected('b.jsonl', sharegptRows) },
  ];
  const r = corpusRequest(parts, [USER, HUMAN]);
  assert.deepEqual(r.train_files, [{ name: 'a.jsonl', format: 'jsonl', fields: [USER] }, { name: 'b.jsonl', format: 'jsonl', fields: [HUMAN] }]);
  const c = { file: new File([''], 'c.jsonl'), info: inspected('c.jsonl', [{ prompt: 'a plain prompt of some words' }]) };
  assert.throws(() => corpusRequest([...parts, c], [USER, HUMAN]), (e) => e.message === `c.jsonl: none of the chosen training fields (${USER}, ${HUMAN}) is in this file; its fields: prompt`);
  // the corpus's field list offers both files' element filters
  const info = corpusInfo(parts);
  assert.ok(info.filter_fields.some((f) => f.path === USER) && info.filter_fields.some((f) => f.path === HUMAN));
});

test("each default field carries its own file's reason; the order is Python's corpus_defaults", () => {
  const plain = inspected('c.jsonl', [{ question: 'which of the two bridges is older and by how many years' }, { question: 'a short one here' }]);
  const parts = [
    { file: new File([''], 'a.jsonl'), info: inspected('a.jsonl', openaiRows) },
    { file: new File([''], 'b.jsonl'), info: inspected('b.jsonl', sharegptRows) },
    { file: new File([''], 'c.jsonl'), info: plain },
  ];
  const info = corpusInfo(parts);
  const code = 'import json, sys; from evalsieve.sample import corpus_defaults; '
    + 'print(json.dumps(list(corpus_defaults(json.load(sys.stdin)))))';
  const py = JSON.parse(execFileSync(python, ['-c', code], {
    env: { ...process.env, PYTHONPATH: path.join(ROOT, 'py') }, encoding: 'utf-8',
    input: JSON.stringify(parts.map((p) => [p.file.name, p.info])),
  }));
  assert.deepEqual(info.default_fields, py);
  assert.deepEqual(info.default_fields, [USER, HUMAN, 'question']);
  for (const p of parts) {
    const d = p.info.default_fields[0];
    assert.equal(info.default_reasons[d], `${p.file.name}: ${p.info.default_reason}`);
  }
  // three different reasons, each with its own file's figures
  assert.equal(new Set(Object.values(info.default_reasons)).size, 3);
  assert.match(info.default_reasons.question, /^c\.jsonl: named for the prompt \('question'\), 8\.0 prose words per row$/);
});

test('a Hugging Face dataset folder: metadata, hidden folders and unfinished builds are left out, as the CLI leaves them', () => {
  const code = 'import json; from evalsieve.layouts import HF_METADATA; print(json.dumps(list(HF_METADATA)))';
  const meta = JSON.parse(execFileSync(python, ['-c', code], { env: { ...process.env, PYTHONPATH: path.join(ROOT, 'py') }, encoding: 'utf-8' }));
  const f = (rel) => Object.assign(new File(['x'], rel.split('/').pop()), { webkitRelativePath: rel });
  const rels = ['hub/README.md', 'hub/.gitattributes', 'hub/data/train-00000-of-00001.parquet', 'hub/data/test-00000-of-00001.parquet',
    'hub/.cache/huggingface/download/data/x.json', 'hub/b.incomplete/part.jsonl', 'hub/.hidden.jsonl', ...meta.map((m) => `hub/sub/${m}`)];
  const got = corpusOfInput(rels.map(f));
  assert.deepEqual([...got].map((x) => x.name), ['hub/data/train-00000-of-00001.parquet', 'hub/data/test-00000-of-00001.parquet']);
  assert.deepEqual(got.leftOut, [
    { name: 'hub/.cache/huggingface/download/data/x.json', why: 'hidden' },
    { name: 'hub/b.incomplete/part.jsonl', why: 'an unfinished datasets build' },
    { name: 'hub/.hidden.jsonl', why: 'hidden' },
    ...meta.map((m) => ({ name: `hub/sub/${m}`, why: 'datasets metadata' })),
  ]);
  assert.equal(got.arrow, 0);
  const arrow = corpusOfInput(['ds/train/data-00000-of-00001.arrow', 'ds/train/state.json', 'ds/dataset_dict.json'].map(f));
  assert.equal(arrow.length, 0);
  assert.equal(arrow.arrow, 1);
});
