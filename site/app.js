// evalsieve page: one worker client shared by job sections (Contamination now,
// Paraphrases later). All data text is rendered with textContent, never innerHTML.

import * as P from './worker/protocol.js';

const { MSG, OP, ERR } = P;
const SETTINGS_KEY = 'evalsieve.settings.v1'; // localStorage holds only the settings checkboxes
const MAX_TABLE_ROWS = 2000;

// --- small DOM helpers ---------------------------------------------------------------------

const $ = (sel, root = document) => root.querySelector(sel);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k in node && typeof v !== 'string') node[k] = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const fmtInt = (n) => (typeof n === 'number' ? n.toLocaleString('en-US') : String(n ?? '–'));

function fmtBytes(n) {
  if (typeof n !== 'number') return '–';
  if (n < 1e3) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} kB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(1)} MB`;
  return `${(n / 1e9).toFixed(2)} GB`;
}

function fmtSeconds(s) {
  if (!Number.isFinite(s)) return '–';
  if (s < 60) return `${Math.max(0, Math.round(s))} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** Describe a plain protocol error for a person: what, where, what was expected. */
function describeError(e) {
  const where = [e.file, e.line ? `line ${e.line}` : null].filter(Boolean).join(', ');
  return { where, text: `${where ? `${where}: ` : ''}${e.message}${e.expected ? ` (expected ${e.expected})` : ''}` };
}

/** Parse RFC 4180 CSV text into rows of cells. */
export function parseCSV(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') { cell += '"'; i += 2; continue; }
        quoted = false; i++; continue;
      }
      cell += c; i++; continue;
    }
    if (c === '"') { quoted = true; i++; continue; }
    if (c === ',') { row.push(cell); cell = ''; i++; continue; }
    if (c === '\r' && text[i + 1] === '\n') { i++; continue; }
    if (c === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; continue; }
    cell += c; i++;
  }
  if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

// --- event log -----------------------------------------------------------------------------

class EventLog {
  constructor(list) {
    this.list = list;
    this.t0 = performance.now();
  }

  add(message, kind = 'info') {
    const t = ((performance.now() - this.t0) / 1000).toFixed(1);
    const item = el('li', { class: `log-${kind}`, dataset: { kind } }, el('time', { text: `${t} s` }), ' ', el('span', { text: message }));
    this.list.append(item);
    item.scrollIntoView?.({ block: 'nearest' });
  }
}

// --- worker client -------------------------------------------------------------------------

/**
 * One module worker, many requests. Each request gets an id and a promise; replies are
 * matched by id (never by arrival order). If the worker dies, every pending request is
 * rejected with the error and a fresh worker is started, without reloading the page.
 */
class WorkerClient {
  constructor({ url, onBoot, onReady, onFatal, maxRestarts = 3 }) {
    this.url = url;
    this.onBoot = onBoot;
    this.onReady = onReady;
    this.onFatal = onFatal;
    this.maxRestarts = maxRestarts;
    this.failuresSinceReady = 0;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, onProgress, onLog}
    this.worker = null;
    this.ready = false;
    this.versions = null;
    this.lastError = null;
  }

  start() {
    this.ready = false;
    this.worker = new Worker(this.url, { type: 'module' });
    this.worker.onmessage = (ev) => this.#onMessage(ev.data);
    this.worker.onerror = (ev) => {
      ev.preventDefault?.();
      this.#die({ code: ERR.INTERNAL, message: `the worker failed: ${ev.message || 'script error'}` });
    };
    this.worker.onmessageerror = () => this.#die({ code: ERR.INTERNAL, message: 'a worker message could not be read' });
    this.worker.postMessage(P.init());
  }

  /**
   * Send one request. Returns {id, promise}; the promise resolves with the result data or
   * rejects with a plain error object {code, message, file, line, expected, detail}.
   */
  request(op, args, files = null, { onProgress = null, onLog = null } = {}) {
    const id = `r${this.nextId++}`;
    if (!this.worker) {
      const err = this.lastError || { code: ERR.INTERNAL, message: 'the worker is not running' };
      return { id, promise: Promise.reject(err) };
    }
    const promise = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress, onLog });
    });
    this.worker.postMessage(P.run(id, op, args, files));
    return { id, promise };
  }

  cancel(id) {
    if (this.pending.has(id)) this.worker.postMessage(P.cancel(id));
  }

  #onMessage(msg) {
    const problem = P.validate(msg);
    if (problem) {
      console.warn('bad message from worker:', problem, msg);
      return;
    }
    switch (msg.type) {
      case MSG.BOOT:
        this.onBoot?.(msg);
        break;
      case MSG.READY:
        this.ready = true;
        this.failuresSinceReady = 0;
        this.versions = msg.versions;
        this.onReady?.(msg.versions);
        break;
      case MSG.PROGRESS:
        this.pending.get(msg.id)?.onProgress?.(msg);
        break;
      case MSG.LOG:
        this.pending.get(msg.id)?.onLog?.(msg);
        break;
      case MSG.RESULT: {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        p?.resolve(msg.data);
        break;
      }
      case MSG.ERROR: {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        p?.reject(msg.error);
        break;
      }
      case MSG.FATAL:
        this.#die(msg.error);
        break;
      default:
        break;
    }
  }

  #die(error) {
    const err = P.toErrorObject(error);
    this.lastError = err;
    const pending = [...this.pending.values()];
    this.pending.clear();
    try { this.worker?.terminate(); } catch { /* gone */ }
    this.worker = null;
    this.ready = false;
    this.failuresSinceReady++;
    // A missing asset will be missing again: retry it once (a flaky load), a crash up to maxRestarts.
    const limit = err.code === ERR.ASSET_LOAD_FAILED ? 1 : this.maxRestarts;
    const restart = this.failuresSinceReady <= limit;
    this.onFatal?.(err, restart);
    for (const p of pending) p.reject(err);
    if (restart) this.start();
  }
}

// --- job sections ----------------------------------------------------------------------------

/**
 * A tab of the page: one job. Subclasses fill `panel` and get the shared worker client and
 * event log. A second job (Paraphrases) is one more subclass in `SECTIONS`.
 */
class JobSection {
  constructor({ key, title, panel }) {
    this.key = key;
    this.title = title;
    this.panel = panel;
  }

  /** Called once with the shared services. */
  mount(services) {
    this.services = services;
  }

  /** Called when the worker becomes ready (again). */
  workerReady() {}

  /** Called when the worker died; pending requests have already been rejected. */
  workerDied() {}

  show(visible) {
    this.panel.hidden = !visible;
  }
}

class PlaceholderSection extends JobSection {
  constructor({ key, title, text }) {
    const panel = el('section', { id: `job-${key}`, class: 'job', role: 'tabpanel', hidden: true },
      el('p', { class: 'muted', text }));
    $('main').append(panel);
    super({ key, title, panel });
  }
}

const SIDES = ['train', 'eval'];
const SIDE_TITLE = { train: 'training', eval: 'eval' };

class ContaminationSection extends JobSection {
  constructor() {
    super({ key: 'contamination', title: 'Contamination', panel: $('#job-contamination') });
    this.sides = Object.fromEntries(SIDES.map((role) => [role, { role, file: null, label: null, info: null, inspecting: null }]));
    this.runId = null;
    this.stageStart = new Map();
    this.autoRunExample = true;
  }

  mount(services) {
    super.mount(services);
    const { log } = services;
    this.log = log;
    this.ui = {
      run: $('#run'),
      cancel: $('#cancel'),
      progress: $('#progress'),
      bar: $('#progress-bar'),
      progressText: $('#progress-text'),
      error: $('#error'),
      results: $('#results'),
      nAuto: $('#n-auto'),
      n: $('#setting-n'),
      boilerplate: $('#setting-boilerplate'),
      threshold: $('#setting-threshold'),
    };
    this.#loadSettings();
    this.ui.boilerplate.addEventListener('change', () => this.#saveSettings());
    for (const role of SIDES) {
      const input = $(`#${role}-file`);
      const zone = $(`#${role}-drop`);
      input.addEventListener('change', () => {
        if (input.files && input.files[0]) this.selectFile(role, input.files[0], null);
        input.value = '';
      });
      zone.addEventListener('dragover', (ev) => { ev.preventDefault(); zone.classList.add('dragging'); });
      zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
      zone.addEventListener('drop', (ev) => {
        ev.preventDefault();
        zone.classList.remove('dragging');
        const f = ev.dataTransfer && ev.dataTransfer.files && ev.dataTransfer.files[0];
        if (f) this.selectFile(role, f, null);
      });
    }
    this.ui.run.addEventListener('click', () => this.run());
    this.ui.cancel.addEventListener('click', () => this.cancel());
    this.#loadExample();
  }

  #loadSettings() {
    try {
      const s = JSON.parse(localStorage.getItem(SETTINGS_KEY) || '{}');
      if (typeof s.boilerplate === 'boolean') this.ui.boilerplate.checked = s.boilerplate;
    } catch { /* storage unavailable or corrupt: defaults */ }
  }

  #saveSettings() {
    try {
      localStorage.setItem(SETTINGS_KEY, JSON.stringify({ boilerplate: this.ui.boilerplate.checked }));
    } catch { /* storage unavailable */ }
  }

  async #loadExample() {
    try {
      const files = await Promise.all(SIDES.map(async (role) => {
        const res = await fetch(`example/${role}.jsonl`);
        if (!res.ok) throw new Error(`example/${role}.jsonl: HTTP ${res.status}`);
        return new File([await res.blob()], `${role}.jsonl`, { type: 'application/jsonl' });
      }));
      // The user may have chosen files while the example was loading.
      SIDES.forEach((role, i) => { if (!this.sides[role].file) this.selectFile(role, files[i], 'example'); });
      this.log.add('example loaded: example/train.jsonl + example/eval.jsonl');
    } catch (e) {
      this.autoRunExample = false;
      this.log.add(`no example: ${e.message}`, 'warn');
    }
  }

  /** Take a file for one side and list its fields (inspect in the worker). */
  async selectFile(role, file, label) {
    const side = this.sides[role];
    if (label === null) this.autoRunExample = false; // the user took over
    side.file = file;
    side.label = label;
    side.info = null;
    $(`#${role}-name`).textContent = `${label ? `${label}: ` : ''}${file.name} (${fmtBytes(file.size)})`;
    $(`#${role}-drop`).dataset.label = label || '';
    const box = $(`#${role}-fields`);
    box.dataset.state = 'loading';
    box.dataset.file = file.name;
    box.replaceChildren(el('legend', { text: role === 'train' ? 'Fields to scan' : 'Fields to score' }), el('p', { class: 'muted', text: 'reading the head of the file…' }));
    this.#updateRunButton();
    const { client } = this.services;
    const req = client.request(OP.INSPECT, { name: file.name, role }, { [role]: file });
    side.inspecting = req.id;
    try {
      const info = await req.promise;
      if (side.inspecting !== req.id) return; // superseded by another file
      side.info = info;
      this.log.add(`${SIDE_TITLE[role]} file ${label ? `(${label}) ` : ''}${file.name}: sniffed ${info.format}${info.gzip ? ' (gzip)' : ''}, ${fmtInt(info.rows_sampled)} rows sampled, ${info.fields.length} fields`);
      this.#renderFields(role, info);
      this.#hideError();
    } catch (err) {
      if (side.inspecting !== req.id) return;
      box.replaceChildren(el('legend', { text: 'Fields' }), el('p', { class: 'muted', text: 'could not read this file' }));
      box.dataset.state = 'error';
      this.#showError(err);
    } finally {
      if (side.inspecting === req.id) side.inspecting = null;
      this.#updateRunButton();
    }
    if (this.autoRunExample && SIDES.every((r) => this.sides[r].label === 'example' && this.sides[r].info)) {
      this.autoRunExample = false;
      this.run();
    }
  }

  #renderFields(role, info) {
    const box = $(`#${role}-fields`);
    const items = info.fields.map((f, i) => {
      const id = `${role}-field-${i}`;
      const checked = info.default_fields.includes(f.path);
      const input = el('input', { type: 'checkbox', id, value: f.path, dataset: { path: f.path } });
      input.checked = checked;
      input.addEventListener('change', () => this.#updateRunButton());
      const stats = `fill ${(f.fill * 100).toFixed(0)}%, avg ${fmtInt(Math.round(f.avg_chars))} chars`;
      return el('li', { class: f.constant ? 'field constant' : 'field' },
        input, ' ',
        el('label', { for: id }, el('code', { text: f.path }), ' ', el('span', { class: 'muted', text: stats }),
          f.constant || f.reason ? el('span', { class: 'reason', text: ` — ${f.reason || 'constant'}` }) : null));
    });
    box.replaceChildren(
      el('legend', { text: `${role === 'train' ? 'Fields to scan' : 'Fields to score'} (${info.format})` }),
      items.length ? el('ul', { class: 'field-list' }, ...items) : el('p', { class: 'muted', text: 'no fields found' }),
    );
    box.dataset.state = 'ready';
  }

  #chosenFields(role) {
    return [...document.querySelectorAll(`#${role}-fields input[type=checkbox]:checked`)].map((i) => i.value);
  }

  #updateRunButton() {
    const ready = SIDES.every((r) => this.sides[r].info && this.#chosenFields(r).length > 0);
    this.ui.run.disabled = !ready || this.runId !== null;
  }

  #readSettings() {
    const nRaw = this.ui.n.value.trim();
    const tRaw = this.ui.threshold.value.trim();
    const n = nRaw === '' ? null : Number(nRaw);
    const threshold = tRaw === '' ? null : Number(tRaw);
    if (n !== null && (!Number.isInteger(n) || n < 1)) throw { code: ERR.BAD_INPUT, message: 'N must be a whole number ≥ 1, or empty for auto', expected: 'an integer ≥ 1' };
    if (threshold !== null && !(threshold >= 0 && threshold <= 1)) throw { code: ERR.BAD_INPUT, message: 'the threshold must be between 0 and 1, or empty for any overlap', expected: 'a number in [0, 1]' };
    return { n, boilerplate: this.ui.boilerplate.checked, threshold };
  }

  async run() {
    if (this.runId !== null) return;
    let settings;
    try {
      settings = this.#readSettings();
    } catch (e) {
      this.#showError(e);
      return;
    }
    const train = this.sides.train;
    const ev = this.sides.eval;
    const args = {
      eval: { name: ev.file.name, format: ev.info.format, fields: this.#chosenFields('eval') },
      train: { name: train.file.name, format: train.info.format, fields: this.#chosenFields('train') },
      ...settings,
    };
    const label = train.label === 'example' && ev.label === 'example' ? 'example' : (train.label || ev.label ? 'example + your file' : 'your files');
    this.#hideError();
    this.ui.results.hidden = true;
    this.ui.progress.hidden = false;
    this.ui.bar.value = 0;
    this.ui.progressText.textContent = 'starting…';
    this.stageStart.clear();
    const { client, setStatus } = this.services;
    const req = client.request(OP.CONTAMINATION, args, { eval: ev.file, train: train.file }, {
      onProgress: (m) => this.#progress(m),
      onLog: (m) => {
        this.log.add(m.message);
        if (m.data && m.data.kind === 'n_chosen') this.#showAutoN(m.data, settings.n);
      },
    });
    this.runId = req.id;
    this.ui.cancel.disabled = false;
    this.#updateRunButton();
    setStatus('running', `Running (${label})…`);
    this.log.add(`run ${label}: eval ${ev.file.name} [${args.eval.fields.join(', ')}], training ${train.file.name} [${args.train.fields.join(', ')}]; N ${settings.n ?? 'auto'}, boilerplate ${settings.boilerplate ? 'on' : 'off'}, threshold ${settings.threshold ?? 'any overlap'}`);
    try {
      const data = await req.promise;
      this.#renderResults(data, args, label);
      const s = data.summary || {};
      this.log.add(`done (${label}): ${fmtInt(pick(s, COUNT_KEYS.contaminated))} contaminated of ${fmtInt(pick(s, COUNT_KEYS.rows))} eval rows`, 'done');
      setStatus('done', `Done (${label}).`);
    } catch (err) {
      if (err.code === ERR.CANCELLED) {
        this.log.add('cancelled', 'warn');
        setStatus('cancelled', 'Cancelled.');
      } else {
        this.#showError(err);
        this.log.add(`error: ${describeError(err).text}`, 'error');
        setStatus('error', 'Stopped with an error (see above).');
      }
    } finally {
      const status = $('#status');
      status.dataset.runs = String(Number(status.dataset.runs || 0) + 1);
      this.runId = null;
      this.ui.cancel.disabled = true;
      this.ui.progress.hidden = true;
      this.#updateRunButton();
    }
  }

  cancel() {
    if (this.runId === null) return;
    this.log.add('cancel requested');
    this.services.client.cancel(this.runId);
    this.ui.cancel.disabled = true;
  }

  #showAutoN(info, nSet) {
    const how = info.n_how ? String(info.n_how) : '';
    this.ui.nAuto.textContent = nSet === null
      ? `auto: N=${info.n}${how ? `, ${how}` : ''}`
      : `set: N=${info.n}`;
    this.ui.nAuto.dataset.n = String(info.n);
  }

  #progress(m) {
    const key = m.stage;
    const now = performance.now();
    if (!this.stageStart.has(key)) this.stageStart.set(key, { t: now, done: m.done });
    const start = this.stageStart.get(key);
    const secs = (now - start.t) / 1000;
    const rate = secs > 0.2 ? (m.done - start.done) / secs : NaN;
    const eta = m.total && rate > 0 ? (m.total - m.done) / rate : NaN;
    this.ui.bar.max = m.total || 1;
    this.ui.bar.value = Math.min(m.done, m.total || m.done);
    const stage = m.stage === 'train' ? 'Training pass' : m.stage === 'eval' ? 'Eval pass' : m.stage;
    const amount = m.unit === 'bytes' ? `${fmtBytes(m.done)} of ${fmtBytes(m.total)}` : `${fmtInt(m.done)} of ${fmtInt(m.total)} ${m.unit}`;
    const speed = Number.isFinite(rate) && m.unit === 'bytes' ? ` · ${(rate / 1e6).toFixed(1)} MB/s` : '';
    const left = Number.isFinite(eta) && m.done < m.total ? ` · ETA ${fmtSeconds(eta)}` : '';
    this.ui.progressText.textContent = `${stage}: ${amount}${speed}${left}`;
  }

  #renderResults(data, args, label) {
    const s = data.summary || {};
    $('#results-label').textContent = label;
    this.ui.results.dataset.label = label;
    const counts = [
      ['eval rows scanned', pick(s, COUNT_KEYS.rows) ?? data.eval_info?.rows],
      ['scored', pick(s, COUNT_KEYS.scored) ?? data.eval_info?.rows_scorable],
      ['too short to score', pick(s, COUNT_KEYS.tooShort) ?? data.eval_info?.rows_too_short],
      ['of which boilerplate only', pick(s, ['rows_boilerplate_only'])],
      ['contaminated', pick(s, COUNT_KEYS.contaminated)],
      ['kept', pick(s, COUNT_KEYS.kept)],
      ['training records', pick(s, COUNT_KEYS.records)],
      ['training bytes', pick(s, COUNT_KEYS.bytes) ?? data.inputs?.train?.bytes],
    ];
    $('#counts').replaceChildren(...counts.flatMap(([k, v]) => [
      el('dt', { text: k }),
      el('dd', { text: k === 'training bytes' ? `${fmtInt(v)} (${fmtBytes(v)})` : fmtInt(v), dataset: { count: k } }),
    ]));
    const n = pick(s, ['n']) ?? data.eval_info?.n;
    const nHow = s.n_how ?? data.eval_info?.n_how;
    const settingRows = [
      ['N', `${n}${args.n === null ? ` (auto${nHow ? `: ${nHow}` : ''})` : ' (set)'}`],
      ['boilerplate n-grams', args.boilerplate ? `dropped${s.boilerplate_cutoff ? ` (in more than ${fmtInt(s.boilerplate_cutoff)} training records: ${fmtInt(s.ngrams_boilerplate)} n-grams)` : ''}` : 'kept'],
      ['threshold', args.threshold === null ? 'any overlap' : `containment ≥ ${args.threshold}`],
      ['eval fields', args.eval.fields.join(', ')],
      ['training fields', args.train.fields.join(', ')],
      ['eval file', `${data.inputs?.eval?.name} · sha256 ${String(data.inputs?.eval?.sha256).slice(0, 12)}…`],
      ['training file', `${data.inputs?.train?.name} · sha256 ${String(data.inputs?.train?.sha256).slice(0, 12)}…${data.inputs?.train?.gzip ? ' · gzip' : ''}`],
    ];
    if (data.timing?.train_mbps) settingRows.push(['training scan', `${data.timing.train_mbps.toFixed(1)} MB/s`]);
    $('#run-settings').replaceChildren(...settingRows.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: String(v) })]));

    const downloads = (data.exports || []).map((x) => {
      const b = el('button', { type: 'button', class: 'download', dataset: { export: x.name } },
        `Download ${x.name}`, el('span', { class: 'muted', text: ` (${fmtBytes(new Blob([x.text]).size)})` }));
      b.addEventListener('click', () => downloadText(x.name, x.mime, x.text));
      return b;
    });
    $('#downloads').replaceChildren(...downloads);

    const report = (data.exports || []).find((x) => x.name === 'contamination-report.csv');
    this.#renderTable(report ? contaminatedRows(report.text) : []);
    this.ui.results.hidden = false;
  }

  #renderTable(rows) {
    const table = $('#contaminated');
    if (rows.length === 0) {
      table.replaceChildren(el('caption', { text: 'no report' }));
      return;
    }
    const [header, ...body] = rows;
    const shown = body.slice(0, MAX_TABLE_ROWS);
    table.replaceChildren(
      el('caption', { text: body.length === 0 ? 'No contaminated rows.' : body.length > shown.length ? `First ${shown.length} of ${body.length} rows; the CSV has them all.` : `${body.length} rows` }),
      el('thead', {}, el('tr', {}, ...header.map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, ...shown.map((r) => el('tr', {}, ...r.map((c) => el('td', { text: c }))))),
    );
  }

  #showError(err) {
    const e = P.toErrorObject(err);
    const box = this.ui.error;
    const { where } = describeError(e);
    box.replaceChildren(
      el('strong', { text: e.code === ERR.BAD_INPUT ? 'Problem with the input' : e.code === ERR.ASSET_LOAD_FAILED ? 'Could not load a part of the page' : 'Something went wrong' }),
      el('p', { class: 'error-message', text: e.message }),
      where ? el('p', { class: 'error-where' }, 'Where: ', el('span', { dataset: { file: e.file ?? '', line: e.line ?? '' }, text: where })) : null,
      e.expected ? el('p', { class: 'error-expected', text: `Expected: ${e.expected}` }) : null,
      e.detail && e.code !== ERR.INTERNAL ? el('p', { class: 'error-detail muted', text: e.detail }) : null,
    );
    box.dataset.code = e.code;
    box.hidden = false;
  }

  #hideError() {
    this.ui.error.hidden = true;
  }

  workerDied() {
    this.ui.progress.hidden = true;
  }
}

// Field names of the summary (the same JSON as the CLI's --json); the first present wins.
const COUNT_KEYS = {
  rows: ['rows_scanned'],
  scored: ['rows_scored'],
  tooShort: ['rows_too_short'],
  contaminated: ['rows_contaminated'],
  kept: ['rows_kept'],
  records: ['training_records'],
  bytes: ['training_bytes'],
};

function pick(obj, paths) {
  for (const p of paths) {
    let v = obj;
    for (const k of p.split('.')) v = v && typeof v === 'object' ? v[k] : undefined;
    if (typeof v === 'number') return v;
  }
  return undefined;
}

/** Header + the rows whose status is 'contaminated', from contamination-report.csv. */
function contaminatedRows(text) {
  const rows = parseCSV(text).filter((r) => !(r.length >= 1 && r[0].startsWith('# ')));
  if (!rows.length) return [];
  const [header, ...body] = rows;
  const col = header.indexOf('status');
  const dirty = body.filter((r) => col === -1 || r[col] === 'contaminated');
  // Show the columns a person reads; the CSV download has every column.
  const keep = TABLE_COLUMNS.map((c) => header.indexOf(c)).filter((i) => i !== -1);
  const cols = keep.length >= 3 ? keep : header.map((_, i) => i);
  return [cols.map((i) => header[i]), ...dirty.map((r) => cols.map((i) => r[i] ?? ''))];
}

const TABLE_COLUMNS = ['eval_row', 'containment', 'ngrams_matched', 'ngrams_total', 'training_record', 'shared_passage', 'training_excerpt'];

function downloadText(name, mime, text) {
  const url = URL.createObjectURL(new Blob([text], { type: mime || 'text/plain' }));
  const a = el('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// --- page -------------------------------------------------------------------------------------

function main() {
  const log = new EventLog($('#log'));
  const status = $('#status');
  const setStatus = (state, text) => {
    status.dataset.state = state;
    status.textContent = text;
  };

  const SECTIONS = [
    new ContaminationSection(),
    new PlaceholderSection({ key: 'paraphrases', title: 'Paraphrases', text: 'Paraphrase groups (sentence embeddings, cosine ≥ a threshold) will live here.' }),
  ];

  const client = new WorkerClient({
    url: new URL('worker/worker.js', document.baseURI),
    onBoot: (m) => {
      log.add(`boot: ${m.stage} (${m.done}/${m.total})`);
      if (m.stage !== 'ready') setStatus('booting', `Starting the Python runtime: ${m.stage} (${m.done}/${m.total})…`);
    },
    onReady: (versions) => {
      log.add(`ready: ${Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(', ')}`, 'done');
      if (status.dataset.state === 'booting' || status.dataset.state === 'restarting') setStatus('ready', 'Ready.');
      for (const s of SECTIONS) s.workerReady();
    },
    onFatal: (err, restarting) => {
      log.add(`worker stopped: ${describeError(err).text}${restarting ? '; starting a new one' : ''}`, 'error');
      setStatus(restarting ? 'restarting' : 'error', restarting ? 'The worker stopped; starting a new one…' : `The worker cannot start: ${err.message}`);
      for (const s of SECTIONS) s.workerDied(err);
    },
  });

  const tabs = $('#tabs');
  const select = (key) => {
    for (const s of SECTIONS) {
      s.show(s.key === key);
      const t = $(`#tab-${s.key}`);
      t.setAttribute('aria-selected', String(s.key === key));
    }
  };
  for (const s of SECTIONS) {
    const t = el('button', { type: 'button', role: 'tab', id: `tab-${s.key}`, text: s.title, 'aria-controls': s.panel.id });
    s.panel.setAttribute('aria-labelledby', t.id);
    t.addEventListener('click', () => select(s.key));
    tabs.append(t);
  }
  select(SECTIONS[0].key);

  client.start();
  for (const s of SECTIONS) s.mount({ client, log, setStatus });
  window.evalsieve = { client, sections: SECTIONS }; // for tests and the console
}

main();
