// @ts-check
// The pairs and the groups of a paraphrase result at the shown threshold: every one of them,
// paged in Python (para.rows: py/evalsieve/para_table.py), searched and sorted; a pair marks
// the words its two texts do not share (lib/word-diff.js), a group lists its members.

import * as P from '../worker/protocol.js';
import { el } from '../lib/dom.js';
import { fmtInt } from '../lib/format.js';
import { wordDiff } from '../lib/word-diff.js';
import { markedText } from '../ui/data-table.js';
import { PagedTable } from '../ui/paged-table.js';
import { narrow } from './cont-rows.js';

const { OP } = P;

/**
 * Rows of para.rows (py/evalsieve/result_table.py), Python's JSON.
 * @typedef {import('../lib/table-rows.js').Column} Column
 * @typedef {{row_a: number, row_b: number, text_a: string, text_b: string, cut_a?: number | null, cut_b?: number | null}} PairRow
 * @typedef {{row: number, label?: string, text: string, cut?: number | null}} Member
 * @typedef {{group: number, members: Member[], more?: number, lowest?: number, lowest_pair?: [number, number] | null, chained: boolean}} GroupRow
 */

/**
 * `text` with `spans` marked and, for a row the encoder truncated, a ✂ where its window
 * ended (`cut`: a UTF-16 offset from the worker's tokenizer; the words after it, not
 * embedded, are greyed).
 * @param {string} text @param {number[][]} spans @param {number | null | undefined} cut @param {string | null} [markClass]
 */
function withCut(text, spans, cut, markClass = null) {
  if (cut === null || cut === undefined || cut >= text.length) return markedText(text, spans, markClass);
  const before = spans.filter(([a]) => a < cut).map(([a, b]) => [a, Math.min(b, cut)]);
  const after = spans.filter(([, b]) => b > cut).map(([a, b]) => [Math.max(a, cut) - cut, b - cut]);
  return el('span', { class: 'truncated-text', dataset: { cut: String(cut) } },
    el('span', { class: 'sub muted', text: `✂ truncated: the encoder read the first ${fmtInt(cut)} characters` }),
    markedText(text.slice(0, cut), before, markClass),
    el('span', { class: 'window-cut', title: "the encoder's window ends here: the words after it were not embedded", text: ' ✂ ' }),
    el('span', { class: 'after-window' }, markedText(text.slice(cut), after, markClass)));
}

/** The pair's two texts, each with the words the other lacks marked. @param {PairRow} p @param {'a' | 'b'} side */
function diffCell(p, side) {
  const d = wordDiff(p.text_a, p.text_b);
  return side === 'a' ? withCut(p.text_a, d.a, p.cut_a, 'diff') : withCut(p.text_b, d.b, p.cut_b, 'diff');
}

/** @param {boolean} labels @returns {Column[]} */
function pairColumns(labels) {
  const col = (/** @type {string} */ key, /** @type {string} */ label, /** @type {Partial<Column>} */ more = {}) => ({ key, label, ...more });
  return [col('group', 'group', { num: true }), col('row_a', 'row a', { num: true }), col('row_b', 'row b', { num: true }),
    ...(labels ? [col('label_a', 'label a', { sortable: false }), col('label_b', 'label b', { sortable: false })] : []),
    col('cosine', 'cosine', { num: true }),
    col('text_a', 'text a (words b lacks marked)', { sortable: false, long: true, cell: (p) => diffCell(p, 'a') }),
    col('text_b', 'text b (words a lacks marked)', { sortable: false, long: true, cell: (p) => diffCell(p, 'b') })];
}

/** A group's members as a list: row number, label (when the file has one) and the text. @param {GroupRow} g */
function memberList(g) {
  return el('ul', { class: 'members' }, ...g.members.map((m) => el('li', { dataset: { row: String(m.row) } },
    el('span', { class: 'member-row', text: `row ${m.row}` }),
    m.label ? el('span', { class: 'member-label', text: ` [${m.label}]` }) : null,
    el('span', { class: 'member-text' }, ' ', withCut(m.text, [], m.cut)))),
  g.more ? el('li', { class: 'muted', text: `… and ${fmtInt(g.more)} more (in the CSV)` }) : null);
}

/** @type {Column[]} */
const GROUP_COLUMNS = [
  { key: 'group', label: 'group', num: true },
  { key: 'size', label: 'size', num: true },
  { key: 'members', label: 'members (row, label, text)', sortable: false, long: true, cell: memberList },
  { key: 'lowest', label: 'lowest cosine inside', sortable: false,
    cell: (g) => document.createTextNode(g.lowest_pair ? `${g.lowest} (rows ${g.lowest_pair[0]}–${g.lowest_pair[1]})` : 'large group: in the CSV') },
  { key: 'chained', label: 'chained', sortable: false,
    cell: (g) => (g.chained ? el('span', { class: 'chained', title: 'some members are below the threshold with each other and joined only through other members', text: 'chained' }) : el('span', { class: 'muted', text: 'no' })) },
];

/** The two tables (#para-pairs, #para-groups), made once; show() gives them a result. */
export class ParaphraseRows {
  /** @param {{client: Pick<import('../lib/worker-client.js').WorkerClient, 'request'>}} opts */
  constructor({ client }) {
    /** @type {{handle: number, threshold: number} | null} */
    this.at = null; // {handle, threshold} of the result shown
    // (the tables fetch only after show() set `at`)
    const fetch = (/** @type {string} */ table) => (/** @type {Record<string, any>} */ q) => client.request(OP.PARA_ROWS, { handle: this.at?.handle, threshold: this.at?.threshold, table, ...q }).promise;
    this.chained = el('select', { id: 'para-groups-chained' }, ...[['any', 'any'], ['yes', 'chained'], ['no', 'not chained']]
      .map(([v, t]) => el('option', { value: v, text: t })));
    this.chained.addEventListener('change', () => this.groups.setFilters({ where: this.chained.value === 'any' ? null : { chained: [this.chained.value] } }));
    this.pairs = new PagedTable(/** @type {HTMLTableElement} */ (document.getElementById('para-pairs')), {
      columns: pairColumns(false), label: 'pairs', pageSize: narrow() ? 20 : 50, fetch: fetch('pairs'),
      rowData: (p) => ({ rowA: String(p.row_a), rowB: String(p.row_b) }),
      caption: (pg) => (pg.total === 0 ? 'No pair at or above the threshold.' : 'Closest first; every pair at or above the threshold.'),
    });
    this.groups = new PagedTable(/** @type {HTMLTableElement} */ (document.getElementById('para-groups')), {
      columns: GROUP_COLUMNS, label: 'groups', pageSize: narrow() ? 10 : 25, fetch: fetch('groups'),
      tools: [el('label', { class: 'table-filter-choice', for: 'para-groups-chained' }, 'Chained ', this.chained)],
      rowData: (g) => ({ group: String(g.group), chained: g.chained ? 'yes' : 'no', members: g.members.map((/** @type {Member} */ m) => m.row).join(' ') }),
      caption: (pg) => (pg.total === 0 ? 'No groups at this threshold.' : 'Largest first; every group at this threshold.'),
    });
  }

  /** A result (its held handle) at `threshold`; labels: the run names rows by a field. @param {number} handle @param {number} threshold @param {boolean} labels */
  show(handle, threshold, labels) {
    this.at = { handle, threshold };
    this.pairs.setColumns(pairColumns(labels));
    return Promise.all([this.pairs.restart(), this.groups.restart()]);
  }
}
