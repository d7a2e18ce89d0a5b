// @ts-check
// The ladder of a contamination result: rows per rung (exact -> ngram -> semantic), which
// rungs' rows left eval.clean, the semantic rung's figures and its measured quality. A rung's
// name is a button that lists its rows in the rows table (sections/cont-rows.js). `ladder`
// is Python's view (py/evalsieve/ladder.py via cont.view), so the page parses no CSV.

import { el, definitionRows } from '../lib/dom.js';
import { fmtInt } from '../lib/format.js';

/**
 * Fill `root` (#ladder) with the ladder of one run; onRung(rung or 'none') lists its rows.
 * @param {HTMLElement} root @param {import('../worker/protocol.js').LadderView | null | undefined} ladder @param {(rung: string) => void} onRung
 */
export function renderLadder(root, ladder, onRung) {
  if (!ladder) {
    root.replaceChildren();
    return;
  }
  const by = ladder.by_rung;
  const rungButton = (/** @type {string} */ key, /** @type {string} */ text) => {
    const b = el('button', { type: 'button', class: 'link-button', dataset: { rung: key }, text });
    b.addEventListener('click', () => onRung(key));
    return b;
  };
  const rungRows = /** @type {import('../worker/protocol.js').Rung[]} */ (['exact', 'ngram', 'semantic']).map((k) => el('tr', { dataset: { rung: k } },
    el('th', { scope: 'row' }, by[k] ? rungButton(k, k) : k),
    el('td', { class: 'num', text: by[k] === null ? 'did not run' : fmtInt(by[k]) }),
    el('td', { text: ladder.rungs.includes(k) ? (ladder.excluded.includes(k) ? 'yes' : 'no') : '' })));
  rungRows.push(el('tr', { dataset: { rung: 'none' } }, el('th', { scope: 'row' }, rungButton('none', 'none (clean at these rungs)')),
    el('td', { class: 'num', text: fmtInt(ladder.clean_at_these_rungs) }), el('td', { text: '' })));
  root.replaceChildren(
    el('h3', { text: 'The ladder: which rung caught each row first' }),
    el('p', { class: 'muted', text: 'Rungs run in order exact → ngram → semantic; a row counts under the first rung that caught it. A row no rung caught is clean at these rungs, not clean. Click a rung to list its rows below.' }),
    el('table', { id: 'ladder-rungs' },
      el('thead', {}, el('tr', {}, ...['rung', 'rows caught first here', 'rows leave eval.clean'].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, ...rungRows)),
    semanticPart(ladder.semantic),
  );
}
/** The semantic rung's figures, rule and measured quality, or why it did not run. @param {import('../worker/protocol.js').LadderView['semantic']} sem */
function semanticPart(sem) {
  if (!sem) {
    return el('p', { id: 'ladder-semantic', class: 'muted', text: 'Semantic rung: did not run. Reworded copies of eval rows that share no n-gram with the training data are not looked for.' });
  }
  const f = sem.figures || {};
  const share = f.windows ? ` (${(100 * f.windows_embedded / f.windows).toFixed(1)}%)` : '';
  /** @type {[string, string][]} */
  const rows = [
    ['window', `${f.window_words} words (${f.window_how}), stride ${Math.ceil(f.window_words / 2)} words`],
    ['windows scanned', fmtInt(f.windows)],
    ['windows sharing a key term with some probe', fmtInt(f.windows_sharing_a_key_term)],
    ['probes (eval rows and their field values)', fmtInt(f.probes)],
    ['spans embedded (fitted in the candidate windows)', `${fmtInt(f.windows_embedded)}${share}`],
    ['(probe, span) pairs verified', fmtInt(f.pairs_verified)],
    ['candidate windows per probe', fmtInt(sem.candidates)],
    ['threshold', `verifier probability ≥ ${sem.threshold} (prose rows), ≥ ${sem.code_threshold} (code rows)`],
    ['IDF background of key terms', String(f.idf_background)],
    ['encoder', sem.encoder],
  ];
  return el('div', { id: 'ladder-semantic' },
    el('h3', { text: 'Semantic rung' }),
    el('dl', { class: 'run-settings' }, ...definitionRows(rows)),
    el('p', { class: 'rule', id: 'semantic-quality', text: `Measured quality at these defaults: ${sem.quality_note}.` }),
    el('p', { class: 'muted', id: 'semantic-rule', text: sem.rule }));
}
