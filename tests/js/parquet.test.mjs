// worker/parquet.js's pure parts under Node: schema paths from a hyparquet schema tree (the
// same rule as parquet_io.schema_paths for pyarrow), values made JSON-plain (as
// parquet_io.plain), the top-level columns of field paths, and the streamed sha256.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { File } from 'node:buffer';

import { hashFile, isParquet, plainValue, schemaPaths, topColumns } from '../../worker/parquet.js';
import { setSha256Factory } from '../../worker/files.js';

const leaf = (name, extra = {}) => ({ element: { name, repetition_type: 'OPTIONAL', ...extra }, children: [] });
const group = (name, children, extra = {}) => ({ element: { name, repetition_type: 'OPTIONAL', ...extra }, children });

test('schema paths: structs dotted, LIST groups [], maps [].key/[].value, bare repeated []', () => {
  // What pyarrow writes for id: int64, meta: struct<source, year>, messages:
  // list<struct<role, content>>, tags: map<string, int32>, plus a legacy repeated field.
  const root = group('schema', [
    leaf('id'),
    group('meta', [leaf('source'), leaf('year')]),
    group('messages', [group('list', [group('element', [leaf('role'), leaf('content')])], { repetition_type: 'REPEATED' })], { converted_type: 'LIST' }),
    group('tags', [group('key_value', [leaf('key', { repetition_type: 'REQUIRED' }), leaf('value')], { repetition_type: 'REPEATED' })], { converted_type: 'MAP' }),
    group('words', [group('list', [leaf('element')], { repetition_type: 'REPEATED' })], { logical_type: { type: 'LIST' } }),
    leaf('legacy', { repetition_type: 'REPEATED' }),
  ]);
  assert.deepEqual(schemaPaths(root), [
    'id', 'meta.source', 'meta.year', 'messages[].role', 'messages[].content',
    'tags[].key', 'tags[].value', 'words[]', 'legacy[]',
  ]);
});

test('plain values: bigint, dates, bytes, non-finite numbers, nesting', () => {
  assert.equal(plainValue(42n), 42);
  assert.equal(plainValue(2n ** 60n), '1152921504606846976'); // past 2^53: exact text
  assert.equal(plainValue(Number.NaN), null);
  assert.equal(plainValue(Infinity), null);
  assert.equal(plainValue(new Date(Date.UTC(2020, 0, 2, 3, 4, 5))), '2020-01-02T03:04:05.000Z');
  assert.equal(plainValue(new TextEncoder().encode('héllo')), 'héllo');
  assert.equal(plainValue(new Uint8Array([0xff, 0x00])), 'base64:/wA=');
  assert.deepEqual(plainValue({ a: [1n, { b: null, c: 'x' }], d: undefined }), { a: [1, { b: null, c: 'x' }], d: null });
  assert.deepEqual(plainValue(new Float64Array([1.5, 2])), [1.5, 2]);
});

test('top-level columns of field paths, element filters included', () => {
  assert.deepEqual(topColumns(['messages[role=user].content', 'meta.source', 'messages[].role', 'id']), ['messages', 'meta', 'id']);
});

test('PAR1 magic and the streamed sha256', async () => {
  const bytes = Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(100, 7), Buffer.from('PAR1')]);
  const file = new File([bytes], 'x.parquet');
  assert.equal(await isParquet(file), true);
  assert.equal(await isParquet(new File([Buffer.from('{"a": 1}\n')], 'x.parquet')), false);
  setSha256Factory(async () => {
    let h;
    return { init() { h = createHash('sha256'); }, update(b) { h.update(b); }, digest() { return h.digest('hex'); } };
  });
  const got = await hashFile(file);
  assert.deepEqual(got, { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });
});
