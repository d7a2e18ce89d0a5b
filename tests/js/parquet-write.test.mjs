// worker/parquet-write.js and worker/parquet-maps.js under Node: element paths of a flat
// Parquet schema, maps read as their entries, the types the page refuses to write, the
// writer's schema fix, and a round trip of the chat fixture through hyparquet-writer (the
// served copies in dist/assets; pyarrow's view of the same file is checked in
// tests/e2e/test_e2e_parquet_clean.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { Blob } from 'node:buffer';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { elementPaths, mapsAsEntries, readableMetadata } from '../../worker/parquet-maps.js';
import { RAW_PARSERS, unsupportedType, writableSchema, writeKeptRows } from '../../worker/parquet-write.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = process.env.EVALSIEVE_DIST || path.join(ROOT, 'dist');

// What pyarrow writes for id: int64, messages: list<struct<role, content>>,
// tags: map<string, int16>, lm: list<map<string, string>> (flat, root first).
const SCHEMA = [
  { name: 'schema', repetition_type: 'REQUIRED', num_children: 4 },
  { name: 'id', type: 'INT64', repetition_type: 'OPTIONAL' },
  { name: 'messages', repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  { name: 'element', repetition_type: 'OPTIONAL', num_children: 2 },
  { name: 'role', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8' },
  { name: 'content', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8' },
  { name: 'tags', repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'MAP', logical_type: { type: 'MAP' } },
  { name: 'key_value', repetition_type: 'REPEATED', num_children: 2 },
  { name: 'key', type: 'BYTE_ARRAY', repetition_type: 'REQUIRED', converted_type: 'UTF8' },
  { name: 'value', type: 'INT32', repetition_type: 'OPTIONAL', converted_type: 'INT_16', logical_type: { type: 'INTEGER', bitWidth: 16, isSigned: true } },
  { name: 'lm', repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  { name: 'element', repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'MAP' },
  { name: 'key_value', repetition_type: 'REPEATED', num_children: 2 },
  { name: 'key', type: 'BYTE_ARRAY', repetition_type: 'REQUIRED' },
  { name: 'value', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' },
];

test('element paths follow the assembled values: lists [], map entries {}, columns marked', () => {
  const p = elementPaths(SCHEMA);
  assert.deepEqual([...p], [
    '', 'id', 'messages', 'messages[]', 'messages[]', 'messages[].role', 'messages[].content',
    'tags', 'tags{}', 'tags{}.key', 'tags{}.value', 'lm', 'lm[]', 'lm[]', 'lm[]{}', 'lm[]{}.key', 'lm[]{}.value',
  ]);
  assert.deepEqual(SCHEMA.filter((_, i) => p.top[i]).map((e) => e.name), ['id', 'messages', 'tags', 'lm']);
});

test('maps are read as entries, in order, with repeated keys; nulls and empty maps kept', () => {
  const { metadata, maps } = readableMetadata({ schema: SCHEMA, row_groups: [] });
  assert.deepEqual([...maps], ['tags', 'lm[]']);
  assert.equal(metadata.schema[7].converted_type, undefined); // read as a plain group
  assert.equal(SCHEMA[7].converted_type, 'MAP'); // the file's own schema is untouched
  const row = {
    id: 1n,
    messages: [{ role: 'user', content: 'hi' }],
    tags: { key_value: [{ key: 'b', value: 1 }, { key: 'a', value: 2 }, { key: 'b', value: 3 }] },
    lm: [{ key_value: [{ key: 'k', value: 'v' }] }, null, { key_value: [] }],
  };
  assert.deepEqual(mapsAsEntries(row, '', maps), {
    id: 1n,
    messages: [{ role: 'user', content: 'hi' }],
    tags: [{ key: 'b', value: 1 }, { key: 'a', value: 2 }, { key: 'b', value: 3 }],
    lm: [[{ key: 'k', value: 'v' }], null, []],
  });
  assert.equal(mapsAsEntries({ tags: undefined }, '', maps).tags, undefined);
});

test('types the page cannot write value for value are named with their column', () => {
  assert.equal(unsupportedType(SCHEMA), null);
  const withLeaf = (leaf) => [{ name: 'schema', num_children: 2 }, { name: 'q', type: 'BYTE_ARRAY', converted_type: 'UTF8' }, leaf];
  assert.equal(unsupportedType(withLeaf({ name: 'doc', type: 'BYTE_ARRAY', converted_type: 'JSON' })), 'JSON in column doc');
  assert.equal(unsupportedType(withLeaf({ name: 't', type: 'INT96' })), 'INT96 (legacy timestamp) in column t');
  assert.equal(unsupportedType(withLeaf({ name: 'g', type: 'BYTE_ARRAY', logical_type: { type: 'GEOMETRY' } })), 'GEOMETRY in column g');
  assert.equal(unsupportedType(withLeaf({ name: 'd', type: 'FIXED_LEN_BYTE_ARRAY', converted_type: 'DECIMAL', precision: 20, scale: 2 })),
    'DECIMAL(20, 2) (more than 15 digits) in column d');
  assert.equal(unsupportedType(withLeaf({ name: 'd', type: 'FIXED_LEN_BYTE_ARRAY', converted_type: 'DECIMAL', precision: 15, scale: 2 })), null);
  const nested = SCHEMA.map((e) => (e.name === 'content' ? { ...e, converted_type: 'JSON' } : e));
  assert.equal(unsupportedType(nested), 'JSON in column messages[].content');
});

test('the writer gets INTEGER logical types as their converted type (same meaning)', () => {
  const w = writableSchema(SCHEMA);
  assert.deepEqual(w[10], { name: 'value', type: 'INT32', repetition_type: 'OPTIONAL', converted_type: 'INT_16', logical_type: undefined });
  assert.equal(writableSchema([{ name: 'u', type: 'INT64', logical_type: { type: 'INTEGER', bitWidth: 64, isSigned: false } }])[0].converted_type, 'UINT_64');
  assert.deepEqual(w.filter((_, i) => i !== 10), SCHEMA.filter((_, i) => i !== 10));
});

const served = existsSync(path.join(DIST, 'assets/hyparquet-writer/index.js'));
test('the chat fixture round-trips: kept rows, in order, as stored; schema and metadata kept', { skip: !served && 'dist/ is not built' }, async () => {
  const hp = await import(path.join(DIST, 'assets/hyparquet/index.js'));
  const hw = await import(path.join(DIST, 'assets/hyparquet-writer/index.js'));
  const bytes = readFileSync(path.join(ROOT, 'tests/fixtures/chat_eval.parquet'));
  const keep = [0, 2, 3, 5];
  const out = await writeKeptRows(new Blob([bytes]), keep, { hp, hw, codecs: {} });
  assert.equal(out.rows, 4);
  const written = await out.blob.arrayBuffer();
  const source = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const read = async (file) => hp.parquetReadObjects({ file, parsers: RAW_PARSERS, utf8: false });
  const [src, got] = [await read(source), await read(written)];
  assert.deepEqual(got, keep.map((i) => src[i]));
  const [ms, mg] = [hp.parquetMetadata(source), hp.parquetMetadata(written)];
  assert.deepEqual(mg.schema, ms.schema);
  assert.deepEqual(mg.key_value_metadata, ms.key_value_metadata); // ARROW:schema included
  assert.deepEqual(mg.row_groups.map((g) => Number(g.num_rows)), [2, 2]); // rows 1, 3 | 4, 6
  assert.match(mg.created_by, /^evalsieve page \(hyparquet-writer 0\.17\.0\)$/);
});
