// @ts-check
// The score impact on the page: per metric, the table of figures with their 95%
// intervals and an SVG plot of points with 95% whiskers, each beside the settings that produced
// it. The figures are Python's (scores.contamination_impact / ParaphraseJob.score_figures,
// formulas in docs/SCORE_IMPACT.md); nothing is computed here but positions on the plot.

import { el, svg } from '../lib/dom.js';
import { fmtBytes, fmtInt } from '../lib/format.js';

const W = 460; // plot width (viewBox units; the plot scales down to its box)
const LABEL_CHAR = 6.4; // a label character's width at the plot's 11-unit font, generously
const RIGHT = 24; // half the last tick label, and a margin
const ROW = 26;
const TOP = 10;
const AXIS = 28; // room for the axis and its ticks

/**
 * A metric's figures as Python computes them (py/evalsieve/scores: score_figures), its JSON.
 * @typedef {Record<string, any>} Figures
 * @typedef {{key: string, label: string, mean: number | null | undefined, ci: (number | null)[] | null | undefined}} Point
 */

/** A figure for a person: 4 decimals, or "–" when missing. */
const num = (/** @type {unknown} */ v) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(4) : '–');
const ci = (/** @type {(number | null)[] | null | undefined} */ c) => (c && typeof c[0] === 'number' ? `[${num(c[0])}, ${num(c[1])}]` : '–');
/** @type {Record<string, string>} */
const METHOD = { wilson: 'Wilson', t: 't', '': '' };

/**
 * Fill `box` with the score impact of one run, or hide it without scores.
 * kind: 'contamination' | 'paraphrases'; figures: the per-metric figures; settings: the
 * bridge's score settings; context: [label, value] rows of the run's own settings to print
 * beside the figures (N and threshold, or the cosine threshold).
 * @param {HTMLElement} box @param {'contamination' | 'paraphrases'} kind @param {Figures[] | null | undefined} figures
 * @param {Record<string, any> | null | undefined} settings @param {[string, string][]} [context]
 */
export function renderScoreImpact(box, kind, figures, settings, context = []) {
  if (!figures || !figures.length) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const s = settings || {};
  const file = s.file || {};
  const join = s.score_join === 'key' ? `${s.score_key} = eval field ${s.score_eval_key}` : 'doc_id = 0-based eval row (by order)';
  const rows = [
    ['scores file', `${file.name} · ${fmtBytes(file.bytes)} · sha256 ${String(file.sha256 || '').slice(0, 12)}… · ${s.score_source}`],
    ['join', join],
    ['filter', s.score_filter ? `${s.score_filter}${s.rows_other_filter ? ` (${fmtInt(s.rows_other_filter)} rows of ${(s.filters_seen || []).filter((/** @type {string} */ f) => f !== s.score_filter).join(', ')} left out)` : ''}` : 'none (a table)'],
    ['score rows read', fmtInt(s.rows_read)],
    ['score rows matching no eval row', fmtInt(s.rows_unmatched)],
    ['eval rows without a score', fmtInt(s.rows_unscored)],
    ...context,
  ];
  box.replaceChildren(
    el('h3', { text: 'Score impact' }),
    el('dl', { class: 'run-settings score-settings' }, ...rows.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: String(v), dataset: { scoreSetting: k } })])),
    ...figures.map((f) => (kind === 'contamination' ? contaminationBlock(f) : paraphraseBlock(f))),
  );
  box.dataset.metrics = figures.map((f) => f.metric).join(' ');
  box.hidden = false;
}

/** @param {Figures} f @param {string} how */
function metricHead(f, how) {
  const rule = f.kind === 'binary' ? 'a 0/1 score: Wilson intervals' : 'a continuous score: t intervals';
  return el('h4', { text: `${f.metric} (${rule}${how ? `; ${how}` : ''})` });
}

/** A table: header cells, then rows of [key, ...cells]; each row's data-subset is its key. @param {string} caption @param {string[]} head @param {string[][]} rows */
function table(caption, head, rows) {
  return el('table', { class: 'score-table' },
    el('caption', { text: caption }),
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, ...rows.map(([key, ...cells]) => el('tr', { dataset: { subset: key } }, ...cells.map((c) => el('td', { text: String(c) }))))));
}

/** @param {Figures} f */
function contaminationBlock(f) {
  /** @type {[string, string][]} */
  const subsets = [['all', 'all joined rows'], ['clean', 'clean rows'], ['contaminated', 'contaminated rows']];
  if (f.too_short && f.too_short.n) subsets.push(['too_short', 'too short to score']);
  const d = f.difference_contaminated_minus_clean;
  const c = f.difference_clean_minus_all;
  const rows = subsets.map(([k, label]) => [k, label, fmtInt(f[k].n), num(f[k].mean), ci(f[k].ci95), METHOD[f[k].method] ?? f[k].method]);
  for (const [rung, s] of Object.entries(/** @type {Record<string, Figures>} */ (f.contaminated_by_rung ?? {}))) {
    rows.push([`contaminated_rung_${rung}`, `  of which caught first by rung ${rung}`, fmtInt(s.n), num(s.mean), ci(s.ci95), METHOD[s.method] ?? s.method]);
  }
  rows.push(['difference_contaminated_minus_clean', 'contaminated − clean', '', num(d.estimate), ci(d.ci95), 'MOVER (disjoint sets)']);
  rows.push(['difference_clean_minus_all', 'clean − all', '', num(c.estimate), ci(c.ci95), 'MOVER on the subset means (all = their weighted mean)']);
  const points = subsets.map(([k, label]) => /** @type {Point} */ ({ key: k, label: `${label} (n=${f[k].n})`, mean: f[k].mean, ci: f[k].ci95 }));
  return el('section', { class: 'score-metric', dataset: { metric: f.metric } },
    metricHead(f, `${fmtInt(f.rows_joined)} rows joined`),
    table(`Mean ${f.metric} with 95% intervals`, ['subset', 'n', 'mean', '95% interval', 'interval'], rows),
    plot(points, f.kind === 'binary', `mean ${f.metric} with 95% intervals: ${points.map((p) => p.label).join(', ')}`),
  );
}

/** @param {Figures} f */
function paraphraseBlock(f) {
  const a = f.all;
  const c = f.clustered;
  const o = f.one_per_group;
  const rows = [
    ['naive', 'all rows, naive SE', fmtInt(a.n), num(a.mean), num(c.se_naive), ci(a.ci95), `${METHOD[a.method] ?? a.method} (rows independent)`],
    ['clustered', 'all rows, clustered SE (CR1)', `${fmtInt(c.n)} in ${fmtInt(c.clusters)} clusters`, num(c.mean), num(c.se_clustered), ci(c.ci95), 't with G − 1 df (groups as clusters)'],
    ['one_per_group', 'one row per group', fmtInt(o.n), num(o.mean), num(o.se), ci(o.ci95), METHOD[o.method] ?? o.method],
  ];
  const extra = [
    ['design effect (SE_clustered² ÷ SE_naive²)', num(c.design_effect)],
    ['effective n (n ÷ design effect)', typeof c.effective_n === 'number' ? c.effective_n.toFixed(1) : '–'],
  ];
  /** @type {Point[]} */
  const points = [
    { key: 'naive', label: `naive (n=${a.n})`, mean: a.mean, ci: a.ci95 },
    { key: 'clustered', label: `clustered (G=${c.clusters})`, mean: c.mean, ci: c.ci95 },
    { key: 'one_per_group', label: `one per group (n=${o.n})`, mean: o.mean, ci: o.ci95 },
  ];
  return el('section', { class: 'score-metric', dataset: { metric: f.metric } },
    metricHead(f, `${fmtInt(f.rows_joined)} rows joined`),
    table(`Mean ${f.metric}: naive and clustered standard errors, 95% intervals`, ['estimate', 'n', 'mean', 'SE', '95% interval', 'interval'], rows),
    el('dl', { class: 'counts' }, ...extra.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v, dataset: { figure: k.split(' (')[0].replace(' ', '_') } })])),
    plot(points, f.kind === 'binary', `mean ${f.metric}, naive vs clustered 95% intervals and one row per group`),
  );
}

/** The x range: [0, 1] for a 0/1 score, else the intervals' span with a margin. @param {Point[]} points @param {boolean} binary @returns {number[]} */
function range(points, binary) {
  if (binary) return [0, 1];
  const vals = /** @type {number[]} */ (points.flatMap((p) => [p.mean, ...(p.ci || [])]).filter((v) => typeof v === 'number' && Number.isFinite(v)));
  if (!vals.length) return [0, 1];
  let lo = Math.min(...vals);
  let hi = Math.max(...vals);
  const pad = (hi - lo) * 0.05 || Math.abs(hi) * 0.05 || 1;
  lo -= pad;
  hi += pad;
  return [lo, hi];
}

/** Points with 95% whiskers (inline SVG, no script): one row per point, a shared x axis. @param {Point[]} points @param {boolean} binary @param {string} label */
function plot(points, binary, label) {
  const [lo, hi] = range(points, binary);
  // room for the longest point label, so that none is clipped ("contaminated rows (n=13)")
  const LEFT = Math.min(W / 2, 16 + Math.ceil(LABEL_CHAR * Math.max(...points.map((p) => p.label.length))));
  const x = (/** @type {number} */ v) => LEFT + ((v - lo) / (hi - lo)) * (W - LEFT - RIGHT);
  const h = TOP + points.length * ROW + AXIS;
  const root = svg('svg', { class: 'score-plot', role: 'img', 'aria-label': label, viewBox: `0 0 ${W} ${h}`, 'data-left': LEFT });
  const axisY = TOP + points.length * ROW + 4;
  root.append(svg('line', { class: 'axis', x1: LEFT, x2: W - RIGHT, y1: axisY, y2: axisY }));
  for (let i = 0; i <= 4; i++) {
    const v = lo + ((hi - lo) * i) / 4;
    root.append(svg('line', { class: 'axis', x1: x(v), x2: x(v), y1: axisY, y2: axisY + 4 }));
    root.append(svg('text', { class: 'tick', x: x(v), y: axisY + 16, 'text-anchor': 'middle' }, binary ? String(v) : v.toPrecision(3)));
  }
  points.forEach((p, i) => {
    const y = TOP + i * ROW + ROW / 2;
    const g = svg('g', { class: 'point', 'data-point': p.key, 'data-mean': p.mean ?? '', 'data-lo': p.ci?.[0] ?? '', 'data-hi': p.ci?.[1] ?? '' });
    g.append(svg('text', { class: 'label', x: LEFT - 8, y: y + 4, 'text-anchor': 'end' }, p.label));
    if (typeof p.ci?.[0] === 'number') {
      const [a, b] = [x(p.ci[0]), x(Number(p.ci[1]))]; // (a missing upper end: 0, as the arithmetic reads null)
      g.append(svg('line', { class: 'whisker', x1: a, x2: b, y1: y, y2: y }));
      g.append(svg('line', { class: 'whisker cap', x1: a, x2: a, y1: y - 5, y2: y + 5 }));
      g.append(svg('line', { class: 'whisker cap', x1: b, x2: b, y1: y - 5, y2: y + 5 }));
    }
    if (typeof p.mean === 'number') g.append(svg('circle', { class: 'mean', cx: x(p.mean), cy: y, r: 4 }, null));
    g.append(svg('title', {}, `${p.label}: mean ${num(p.mean)}, 95% interval ${ci(p.ci)}`));
    root.append(g);
  });
  return el('figure', { class: 'score-figure' }, root,
    el('figcaption', { class: 'muted', text: 'Dots: means; whiskers: 95% intervals (the table\u2019s).' }));
}
