// site/lib/csv.js: RFC 4180 cases worked by hand.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseCSV } from '../../../site/lib/csv.js';

test('quoted commas, doubled quotes, newlines inside quotes, CRLF', () => {
  assert.deepEqual(parseCSV('a,b\r\n"x, y","say ""hi"""\n"two\nlines",\n'),
    [['a', 'b'], ['x, y', 'say "hi"'], ['two\nlines', '']]);
  assert.deepEqual(parseCSV('last,row'), [['last', 'row']]);
  assert.deepEqual(parseCSV(''), []);
});
