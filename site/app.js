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
  constructor({ key, title, panel, logPrefix = '' }) {
    this.key = key;
    this.title = title;
    this.panel = panel;
    this.logPrefix = logPrefix; // what this section's event-log lines start with
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

  /** Ask the worker to stop this section's running request (the reply ends the run). */
  cancel() {
    if (this.runId === null || this.runId === undefined) return;
    this.log.add(`${this.logPrefix}cancel requested`);
    this.services.client.cancel(this.runId);
    this.ui.cancel.disabled = true;
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

// --- paraphrases -----------------------------------------------------------------------------

const SVG_NS = 'http://www.w3.org/2000/svg';
const PARA_MODEL = 'all-MiniLM-L6-v2 (int8 weights, ONNX)';
const LABEL_GUESSES = ['id', 'idx', 'uid', 'qid', 'task_id', 'question_id', 'key'];

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

/**
 * The Paraphrases tab: one eval set (file, or pasted text), one text field, Run; then the
 * figures, a threshold slider that regroups the job the worker holds (no re-embedding), the
 * pair and group tables, a histogram of nearest-neighbour cosines and the two CSV exports.
 * Until the user runs their own input it shows the worked example, computed live.
 */
class ParaphraseSection extends JobSection {
  constructor() {
    super({ key: 'paraphrases', title: 'Paraphrases', panel: $('#job-paraphrases'), logPrefix: 'paraphrases: ' });
    this.input = null; // {file, label: 'example' | 'pasted' | null, info}
    this.inspecting = null;
    this.runId = null;
    this.autoRun = false;
    this.exampleStarted = false;
    this.shown = null; // {handle, figures, data, args, label, exports: Map threshold -> exports}
    this.grouping = false;
    this.pendingThreshold = null;
    this.stageStart = new Map();
  }

  mount(services) {
    super.mount(services);
    this.log = services.log;
    this.ui = {
      file: $('#para-file'),
      drop: $('#para-drop'),
      paste: $('#para-paste'),
      fields: $('#para-fields'),
      run: $('#para-run'),
      cancel: $('#para-cancel'),
      slider: $('#para-threshold'),
      sliderValue: $('#para-threshold-value'),
      progress: $('#para-progress'),
      bar: $('#para-progress-bar'),
      progressText: $('#para-progress-text'),
      status: $('#para-status'),
      error: $('#para-error'),
      results: $('#para-results'),
      stale: $('#para-stale'),
    };
    this.ui.file.addEventListener('change', () => {
      if (this.ui.file.files && this.ui.file.files[0]) this.selectFile(this.ui.file.files[0], null);
      this.ui.file.value = '';
    });
    const zone = this.ui.drop;
    zone.addEventListener('dragover', (ev) => { ev.preventDefault(); zone.classList.add('dragging'); });
    zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
    zone.addEventListener('drop', (ev) => {
      ev.preventDefault();
      zone.classList.remove('dragging');
      const f = ev.dataTransfer && ev.dataTransfer.files && ev.dataTransfer.files[0];
      if (f) this.selectFile(f, null);
    });
    let pasteTimer = null;
    this.ui.paste.addEventListener('input', () => {
      clearTimeout(pasteTimer);
      pasteTimer = setTimeout(() => this.#takePaste(), 400);
    });
    this.ui.run.addEventListener('click', () => this.run());
    this.ui.cancel.addEventListener('click', () => this.cancel());
    this.ui.slider.addEventListener('input', () => this.#sliderMoved());
    this.ui.slider.addEventListener('change', () => this.#sliderMoved());
  }

  show(visible) {
    super.show(visible);
    if (visible && !this.exampleStarted) {
      this.exampleStarted = true;
      this.#loadExample();
    }
  }

  get threshold() {
    return Number(this.ui.slider.value);
  }

  #setStatus(state, text) {
    this.ui.status.dataset.state = state;
    this.ui.status.textContent = text;
  }

  async #loadExample() {
    try {
      const ex = await this.services.client.request(OP.PARA_EXAMPLE, {}).promise;
      if (this.input) return; // the user chose something meanwhile
      this.autoRun = true;
      this.log.add(`paraphrases: worked example loaded (${ex.name})`);
      await this.selectFile(new File([ex.text], ex.name, { type: 'application/jsonl' }), 'example');
    } catch (e) {
      this.log.add(`paraphrases: no worked example: ${describeError(P.toErrorObject(e)).text}`, 'warn');
    }
  }

  #takePaste() {
    const text = this.ui.paste.value;
    if (!text.trim()) return;
    const name = /^\s*[{[]/.test(text) ? 'pasted.jsonl' : 'pasted.txt';
    this.selectFile(new File([text.endsWith('\n') ? text : `${text}\n`], name, { type: 'text/plain' }), 'pasted');
  }

  /** Take an eval file (or the example, or pasted text) and list its fields. */
  async selectFile(file, label) {
    if (label !== 'example') this.autoRun = false; // the user took over
    this.input = { file, label, info: null };
    const input = this.input;
    $('#para-name').textContent = label === 'pasted' ? `pasted text (${fmtBytes(file.size)})` : `${label ? `${label}: ` : ''}${file.name} (${fmtBytes(file.size)})`;
    this.ui.drop.dataset.label = label || '';
    const box = this.ui.fields;
    box.dataset.state = 'loading';
    box.dataset.file = file.name;
    box.replaceChildren(el('legend', { text: 'Text field' }), el('p', { class: 'muted', text: 'reading the head of the file…' }));
    this.#updateRunButton();
    const req = this.services.client.request(OP.INSPECT, { name: file.name, role: 'eval' }, { eval: file });
    this.inspecting = req.id;
    try {
      const info = await req.promise;
      if (this.input !== input) return;
      input.info = info;
      this.log.add(`paraphrases: ${label === 'pasted' ? 'pasted text' : file.name}: ${info.format}, ${fmtInt(info.rows_sampled)} rows sampled, ${info.fields.length} fields`);
      this.#renderFields(info, label === 'example' ? { field: 'text', label: 'id' } : null);
      this.#hideError();
      this.#markStale(null);
    } catch (err) {
      if (this.input !== input) return;
      box.replaceChildren(el('legend', { text: 'Text field' }), el('p', { class: 'muted', text: 'could not read this input' }));
      box.dataset.state = 'error';
      this.#showError(err);
      this.#markStale('The input is not valid (see the message above).');
    } finally {
      if (this.inspecting === req.id) this.inspecting = null;
      this.#updateRunButton();
    }
    if (this.autoRun && input.label === 'example' && input.info && this.input === input) {
      this.autoRun = false;
      this.run();
    }
  }

  #renderFields(info, pick) {
    const texts = info.fields.filter((f) => !f.constant);
    const fallback = (info.default_fields && info.default_fields[0]) || (texts[0] && texts[0].path) || (info.fields[0] && info.fields[0].path);
    const chosen = pick && info.fields.some((f) => f.path === pick.field) ? pick.field : fallback;
    const items = info.fields.map((f, i) => {
      const id = `para-field-${i}`;
      const input = el('input', { type: 'radio', name: 'para-field', id, value: f.path, dataset: { path: f.path } });
      input.checked = f.path === chosen;
      input.addEventListener('change', () => this.#updateRunButton());
      const stats = `fill ${(f.fill * 100).toFixed(0)}%, avg ${fmtInt(Math.round(f.avg_chars))} chars`;
      return el('li', { class: f.constant ? 'field constant' : 'field' }, input, ' ',
        el('label', { for: id }, el('code', { text: f.path }), ' ', el('span', { class: 'muted', text: stats }),
          f.constant || f.reason ? el('span', { class: 'reason', text: ` — ${f.reason || 'constant'}` }) : null));
    });
    const guess = pick && info.fields.some((f) => f.path === pick.label) ? pick.label
      : (LABEL_GUESSES.find((g) => info.fields.some((f) => f.path === g)) || '');
    const select = el('select', { id: 'para-label' }, el('option', { value: '', text: '(none: rows are numbered)' }),
      ...info.fields.map((f) => el('option', { value: f.path, text: f.path })));
    select.value = guess;
    this.ui.fields.replaceChildren(
      el('legend', { text: `Text field to compare (${info.format})` }),
      items.length ? el('ul', { class: 'field-list' }, ...items) : el('p', { class: 'muted', text: 'no fields found' }),
      el('label', { class: 'label-field', for: 'para-label' }, 'Label field (names rows in the tables)', select),
    );
    this.ui.fields.dataset.state = 'ready';
  }

  #chosen() {
    const r = this.ui.fields.querySelector('input[name=para-field]:checked');
    const l = this.ui.fields.querySelector('#para-label');
    return { field: r ? r.value : null, label_field: l && l.value ? l.value : null };
  }

  #updateRunButton() {
    const ok = this.input && this.input.info && this.#chosen().field;
    this.ui.run.disabled = !ok || this.runId !== null;
  }

  async run() {
    if (this.runId !== null || !this.input || !this.input.info) return;
    const { file, label, info } = this.input;
    const chosen = this.#chosen();
    const args = {
      eval: { name: file.name, format: info.format, field: chosen.field, label_field: chosen.label_field },
      threshold: this.threshold,
    };
    const runLabel = label === 'example' ? 'example' : label === 'pasted' ? 'pasted text' : 'your file';
    this.#hideError();
    this.ui.progress.hidden = false;
    this.ui.bar.value = 0;
    this.ui.progressText.textContent = 'starting…';
    this.stageStart.clear();
    const req = this.services.client.request(OP.PARAPHRASES, args, { eval: file }, {
      onProgress: (m) => this.#progress(m),
      onLog: (m) => this.log.add(`paraphrases: ${m.message}`),
    });
    this.runId = req.id;
    this.ui.cancel.disabled = false;
    this.#updateRunButton();
    this.#setStatus('running', `Running (${runLabel})…`);
    this.log.add(`paraphrases: run ${runLabel}: ${file.name} [${chosen.field}${chosen.label_field ? `, label ${chosen.label_field}` : ''}], threshold ${args.threshold.toFixed(2)}`);
    try {
      const data = await req.promise;
      const previous = this.shown;
      this.shown = { handle: data.handle, figures: data.figures, data, args, label: runLabel, exports: new Map() };
      if (previous && previous.handle !== data.handle) this.shown.replaced = previous.handle;
      this.#markStale(null);
      this.#render();
      const f = data.figures;
      this.log.add(`paraphrases: done (${runLabel}): ${fmtInt(f.groups)} groups (${fmtInt(f.groups_chained)} chained), ${fmtInt(f.rows_in_groups)} of ${fmtInt(f.rows_scanned)} rows in groups, effective rows ${fmtInt(f.effective_rows)}`, 'done');
      this.#setStatus('done', `Done (${runLabel}).`);
      // A threshold moved while the run was going: apply it now.
      if (Math.abs(this.threshold - f.threshold) > 1e-9) this.#sliderMoved();
    } catch (err) {
      if (err.code === ERR.CANCELLED) {
        this.log.add('paraphrases: cancelled', 'warn');
        this.#setStatus('cancelled', 'Cancelled.');
        this.#markStale(this.shown ? 'The run was cancelled.' : null);
      } else {
        this.#showError(err);
        this.log.add(`paraphrases: error: ${describeError(err).text}`, 'error');
        this.#setStatus('error', 'Stopped with an error (see above).');
        this.#markStale('The last run failed (see the message above).');
      }
    } finally {
      this.ui.status.dataset.runs = String(Number(this.ui.status.dataset.runs || 0) + 1);
      this.runId = null;
      this.ui.cancel.disabled = true;
      this.ui.progress.hidden = true;
      this.#updateRunButton();
    }
  }

  #progress(m) {
    const now = performance.now();
    if (!this.stageStart.has(m.stage)) this.stageStart.set(m.stage, { t: now, done: m.done });
    const start = this.stageStart.get(m.stage);
    const secs = (now - start.t) / 1000;
    const rate = secs > 0.2 ? (m.done - start.done) / secs : NaN;
    // The worker's ETA counts padded word pieces left (rows are embedded longest first, so
    // rows/s rises as it goes); fall back to rows left / rows per second.
    const eta = Number.isFinite(m.eta_s) ? m.eta_s : (m.total && rate > 0 ? (m.total - m.done) / rate : NaN);
    this.ui.bar.max = m.total || 1;
    this.ui.bar.value = Math.min(m.done, m.total || m.done);
    const stage = { read: 'Reading', embed: 'Embedding', tiles: 'Comparing' }[m.stage] || m.stage;
    const amount = m.unit === 'bytes' ? `${fmtBytes(m.done)} of ${fmtBytes(m.total)}` : `${fmtInt(m.done)} of ${fmtInt(m.total)} ${m.unit}`;
    const speed = Number.isFinite(rate) && m.unit === 'rows' ? ` · ${rate.toFixed(1)} rows/s` : '';
    const left = Number.isFinite(eta) && m.done < m.total ? ` · ETA ${fmtSeconds(eta)}` : '';
    this.ui.progressText.textContent = `${stage}: ${amount}${speed}${left}`;
    this.ui.progress.dataset.stage = m.stage;
  }

  // --- slider --------------------------------------------------------------------------------

  #sliderMoved() {
    const t = this.threshold;
    this.ui.sliderValue.textContent = t.toFixed(2);
    if (!this.shown) return;
    this.#drawHistogram(this.shown.figures.nn_histogram, t);
    if (this.grouping) {
      this.pendingThreshold = t;
      return;
    }
    if (Math.abs(t - this.shown.figures.threshold) < 1e-9) return;
    this.#regroup(t);
  }

  async #regroup(t) {
    const shown = this.shown;
    this.grouping = true;
    this.ui.results.dataset.busy = '1';
    const t0 = performance.now();
    try {
      const v = await this.services.client.request(OP.PARA_GROUP, { handle: shown.handle, threshold: t }).promise;
      if (this.shown !== shown) return;
      shown.figures = v.figures;
      const ms = performance.now() - t0;
      this.ui.results.dataset.groupMs = ms.toFixed(1);
      this.ui.results.dataset.workerMs = v.ms.toFixed(1);
      this.#render();
      this.log.add(`paraphrases: threshold ${t.toFixed(2)}: ${fmtInt(v.figures.groups)} groups, effective rows ${fmtInt(v.figures.effective_rows)} (regrouped in ${ms.toFixed(0)} ms)`);
    } catch (err) {
      this.#showError(err);
      this.#markStale('Could not regroup at the new threshold; the figures below are for the threshold they name.');
    } finally {
      this.grouping = false;
      delete this.ui.results.dataset.busy;
      const next = this.pendingThreshold;
      this.pendingThreshold = null;
      if (next !== null && this.shown && Math.abs(next - this.shown.figures.threshold) > 1e-9) this.#regroup(next);
    }
  }

  // --- results -------------------------------------------------------------------------------

  #markStale(reason) {
    const s = this.ui.stale;
    if (!reason || !this.shown) {
      s.hidden = true;
      delete this.ui.results.dataset.stale;
      return;
    }
    s.textContent = `${reason} Still showing the last valid result (${this.shown.label}, ${this.shown.args.eval.name}).`;
    s.hidden = false;
    this.ui.results.dataset.stale = '1';
  }

  #render() {
    const { figures: f, data, args, label } = this.shown;
    $('#para-results-label').textContent = label;
    this.ui.results.dataset.label = label;
    const cp = f.closest_pair;
    const figures = [
      ['rows_scanned', 'rows scanned', fmtInt(f.rows_scanned)],
      ['rows_empty', 'rows with an empty field (skipped)', fmtInt(f.rows_empty)],
      ['groups', 'groups', fmtInt(f.groups)],
      ['groups_chained', 'chained groups', fmtInt(f.groups_chained)],
      ['rows_in_groups', 'rows in groups', fmtInt(f.rows_in_groups)],
      ['duplicate_share', 'duplicate share', `${f.duplicate_share.toFixed(1)} %`],
      ['effective_rows', 'effective rows', fmtInt(f.effective_rows)],
      ['pairs', 'pairs at or above the threshold', fmtInt(f.pairs)],
      ['closest_pair', 'closest pair', cp ? `rows ${cp.row_a} and ${cp.row_b}, cosine ${cp.cosine.toFixed(3)}` : '–'],
      ['rows_truncated', 'rows truncated to 256 word pieces', fmtInt(f.rows_truncated)],
    ];
    $('#para-figures').replaceChildren(...figures.flatMap(([key, k, v]) => [
      el('dt', { text: k }), el('dd', { text: v, dataset: { figure: key } })]));
    const input = data.input || {};
    const settings = [
      ['threshold', `cosine ≥ ${f.threshold.toFixed(2)}`],
      ['model', `${PARA_MODEL} · sha256 ${String(data.encoder?.model_sha256 || '').slice(0, 12)}…`],
      ['pooling', 'mean over the word pieces, L2-normalised (cosine = dot product)'],
      ['window', '256 word pieces incl. [CLS] and [SEP]'],
      ['field', args.eval.field + (args.eval.label_field ? ` (labels: ${args.eval.label_field})` : '')],
      ['input', `${label === 'pasted text' ? 'pasted text' : input.name} · ${fmtBytes(input.bytes)} · sha256 ${String(input.sha256).slice(0, 12)}…${input.gzip ? ' · gzip' : ''}`],
      ['encoder', `onnxruntime-web, ${data.encoder?.threads ?? 1} thread${data.encoder?.threads === 1 ? '' : 's'} · ${data.timing ? `${data.timing.rows_per_s.toFixed(1)} rows/s` : ''}`],
    ];
    $('#para-settings').replaceChildren(...settings.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v, dataset: { setting: k } })]));
    this.ui.results.dataset.threshold = f.threshold.toFixed(2);
    this.#drawHistogram(f.nn_histogram, this.threshold);
    this.#renderDownloads();
    this.#renderPairs(f.view);
    this.#renderGroups(f.view);
    this.ui.results.hidden = false;
  }

  #renderDownloads() {
    const names = ['paraphrase-pairs.csv', 'paraphrase-groups.csv'];
    $('#para-downloads').replaceChildren(...names.map((name) => {
      const b = el('button', { type: 'button', class: 'download', dataset: { export: name } }, `Download ${name}`);
      b.addEventListener('click', () => this.#download(name, b));
      return b;
    }));
  }

  /** Exports are built on demand for the threshold shown (the worker stamps them). */
  async #download(name, button) {
    const shown = this.shown;
    const key = shown.figures.threshold.toFixed(2);
    button.disabled = true;
    try {
      let v = shown.exports.get(key);
      if (!v) {
        v = await this.services.client.request(OP.PARA_EXPORTS, { handle: shown.handle, threshold: shown.figures.threshold }).promise;
        shown.exports.set(key, v);
      }
      const x = v.exports.find((e) => e.name === name);
      downloadText(x.name, x.mime, x.text);
    } catch (err) {
      this.#showError(err);
    } finally {
      button.disabled = false;
    }
  }

  #renderPairs(view) {
    const table = $('#para-pairs');
    const pairs = view.pairs;
    const labels = pairs.some((p) => p.label_a || p.label_b);
    const cols = ['group', 'row_a', 'row_b', ...(labels ? ['label_a', 'label_b'] : []), 'cosine', 'text_a', 'text_b'];
    table.replaceChildren(
      el('caption', { text: view.pairs_total === 0 ? 'No pair at or above the threshold.' : view.pairs_total > pairs.length ? `The ${pairs.length} closest of ${fmtInt(view.pairs_total)} pairs; the CSV has them all.` : `${pairs.length} pair${pairs.length === 1 ? '' : 's'}` }),
      el('thead', {}, el('tr', {}, ...cols.map((c) => el('th', { scope: 'col', text: c.replace('_', ' ') })))),
      el('tbody', {}, ...pairs.map((p) => el('tr', { dataset: { rowA: p.row_a, rowB: p.row_b } }, ...cols.map((c) => el('td', { text: String(p[c]) }))))),
    );
    table.dataset.total = String(view.pairs_total);
  }

  #renderGroups(view) {
    const table = $('#para-groups');
    const groups = view.groups;
    table.replaceChildren(
      el('caption', { text: view.groups_total === 0 ? 'No groups at this threshold.' : view.groups_total > groups.length ? `The ${groups.length} largest of ${fmtInt(view.groups_total)} groups; the CSV has them all.` : `${groups.length} group${groups.length === 1 ? '' : 's'}` }),
      el('thead', {}, el('tr', {}, ...['group', 'size', 'members (row: label or text)', 'lowest cosine inside', 'chained'].map((c) => el('th', { scope: 'col', text: c })))),
      el('tbody', {}, ...groups.map((g) => el('tr', { dataset: { group: g.group, chained: g.chained ? 'yes' : 'no', members: g.members.map((m) => m.row).join(' ') } },
        el('td', { text: String(g.group) }),
        el('td', { text: String(g.size) }),
        el('td', {}, el('ul', { class: 'members' }, ...g.members.map((m) => el('li', { text: `${m.row}: ${m.label || m.text}`, title: m.text })),
          g.more ? el('li', { class: 'muted', text: `… and ${g.more} more` }) : null)),
        el('td', { text: g.lowest_pair ? `${g.lowest} (rows ${g.lowest_pair[0]}–${g.lowest_pair[1]})` : 'large group: in the CSV' }),
        el('td', {}, g.chained ? el('span', { class: 'chained', title: 'some members are below the threshold with each other and joined only through other members', text: 'chained' }) : el('span', { class: 'muted', text: 'no' }))))),
    );
    table.dataset.total = String(view.groups_total);
  }

  /** 20 bars of nearest-neighbour cosines over [0, 1] and the threshold as a vertical line. */
  #drawHistogram(hist, threshold) {
    const box = $('#para-histogram');
    const W = 420;
    const H = 150;
    const L = 34;
    const R = 10;
    const T = 8;
    const B = 22;
    const counts = hist.counts;
    const max = Math.max(1, ...counts);
    const bw = (W - L - R) / counts.length;
    const x = (c) => L + c * (W - L - R);
    const nodes = [svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B })];
    counts.forEach((n, i) => {
      const h = ((H - T - B) * n) / max;
      const lo = i * hist.bin_width;
      const bar = svg('rect', { class: lo + hist.bin_width > threshold ? 'bar above' : 'bar', x: (L + i * bw + 0.5).toFixed(1), y: (H - B - h).toFixed(1), width: (bw - 1).toFixed(1), height: h.toFixed(1), 'data-bin': i, 'data-count': n });
      bar.append(svg('title', {}, `${lo.toFixed(2)}–${(lo + hist.bin_width).toFixed(2)}: ${n} row${n === 1 ? '' : 's'}`));
      nodes.push(bar);
    });
    for (const c of [0, 0.25, 0.5, 0.75, 1]) nodes.push(svg('text', { class: 'tick', x: x(c), y: H - 6, 'text-anchor': 'middle' }, String(c)));
    nodes.push(svg('text', { class: 'tick', x: L - 4, y: T + 8, 'text-anchor': 'end' }, String(max)));
    nodes.push(svg('line', { class: 'threshold', x1: x(threshold).toFixed(1), x2: x(threshold).toFixed(1), y1: T, y2: H - B, 'data-threshold': threshold.toFixed(2) }));
    box.replaceChildren(...nodes);
  }

  #showError(err) {
    const e = P.toErrorObject(err);
    const { where } = describeError(e);
    this.ui.error.replaceChildren(
      el('strong', { text: e.code === ERR.BAD_INPUT ? 'Problem with the input' : e.code === ERR.ASSET_LOAD_FAILED ? 'Could not load a part of the page' : 'Something went wrong' }),
      el('p', { class: 'error-message', text: e.message }),
      where ? el('p', { class: 'error-where', text: `Where: ${where}` }) : null,
      e.expected ? el('p', { class: 'error-expected', text: `Expected: ${e.expected}` }) : null,
      e.detail && e.code !== ERR.INTERNAL ? el('p', { class: 'error-detail muted', text: e.detail }) : null,
    );
    this.ui.error.dataset.code = e.code;
    this.ui.error.hidden = false;
  }

  #hideError() {
    this.ui.error.hidden = true;
  }

  workerDied() {
    this.ui.progress.hidden = true;
    if (this.shown) this.#markStale('The worker restarted, so the slider cannot regroup this result; run again.');
  }
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
    new ParaphraseSection(),
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
    t.addEventListener('click', () => {
      select(s.key);
      history.replaceState(null, '', `#${s.key}`);
    });
    tabs.append(t);
  }
  client.start();
  for (const s of SECTIONS) s.mount({ client, log, setStatus });
  // index.html#paraphrases opens that tab (its worked example runs when it is first shown).
  const wanted = SECTIONS.find((s) => `#${s.key}` === location.hash);
  select((wanted || SECTIONS[0]).key);
  window.evalsieve = { client, sections: SECTIONS }; // for tests and the console
}

main();
