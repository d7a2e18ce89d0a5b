// @ts-check
// Number, size, duration and error formatting for the page. Pure functions (Node-tested in
// tests/js/site/format.test.mjs).

/** 12345 -> "12,345"; anything else -> its string, or "–" when missing. @param {unknown} n @returns {string} */
export const fmtInt = (n) => (typeof n === 'number' ? n.toLocaleString('en-US') : String(n ?? '–'));

/** Bytes in SI units: 999 -> "999 B", 1500 -> "1.5 kB", 2.5e6 -> "2.5 MB", 3e9 -> "3.00 GB".
 * @param {unknown} n @returns {string} */
export function fmtBytes(n) {
  if (typeof n !== 'number') return '–';
  if (n < 1e3) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} kB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(1)} MB`;
  return `${(n / 1e9).toFixed(2)} GB`;
}

/** Seconds for a person: 42.4 -> "42 s", 125 -> "2 min 5 s"; not finite -> "–". @param {number} s */
function fmtSeconds(s) {
  if (!Number.isFinite(s)) return '–';
  if (s < 60) return `${Math.max(0, Math.round(s))} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** "1 row" / "2 rows". @param {number} n @param {string} word */
export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Describe a plain protocol error for a person: what, where, what was expected.
 * Returns {where: "file, line 3" or "", text: "file, line 3: message (expected ...)"}.
 * @param {{message: string, file?: string | null, line?: number | null, expected?: string | null}} e  an ErrorObject (protocol.js)
 */
export function describeError(e) {
  const where = [e.file, e.line ? `line ${e.line}` : null].filter(Boolean).join(', ');
  return { where, text: `${where ? `${where}: ` : ''}${e.message}${e.expected ? ` (expected ${e.expected})` : ''}` };
}

/**
 * One progress line: "Training pass: 1.2 MB of 3.4 MB · 5.0 MB/s · ETA 1 s".
 *
 * Args: m: a progress message {stage, done, total, unit, eta_s?}; start: {t (ms), done} when
 *   this stage was first seen; now: ms; opts.stages: {stage: label}; opts.speedUnit: the unit
 *   whose rate is shown ('bytes' as MB/s, 'rows' as rows/s); opts.useWorkerEta: prefer the
 *   worker's eta_s (seconds) when it is finite.
 * The rate needs 0.2 s of the stage; the ETA is (total - done) / rate, shown while done < total.
 * @param {{stage: string, done: number, total: number | null, unit: string, eta_s?: number | null}} m  a ProgressMsg (protocol.js)
 * @param {{t: number, done: number}} start @param {number} now
 * @param {{stages?: Record<string, string>, speedUnit?: string | null, useWorkerEta?: boolean}} [opts]
 */
export function progressText(m, start, now, { stages = {}, speedUnit = null, useWorkerEta = false } = {}) {
  const secs = (now - start.t) / 1000;
  const rate = secs > 0.2 ? (m.done - start.done) / secs : NaN;
  const own = m.total && rate > 0 ? (m.total - m.done) / rate : NaN;
  const eta = useWorkerEta && typeof m.eta_s === 'number' && Number.isFinite(m.eta_s) ? m.eta_s : own;
  const stage = stages[m.stage] || m.stage;
  const amount = m.unit === 'bytes' ? `${fmtBytes(m.done)} of ${fmtBytes(m.total)}` : `${fmtInt(m.done)} of ${fmtInt(m.total)} ${m.unit}`;
  let speed = '';
  if (Number.isFinite(rate) && m.unit === speedUnit) speed = m.unit === 'bytes' ? ` · ${(rate / 1e6).toFixed(1)} MB/s` : ` · ${rate.toFixed(1)} ${m.unit}/s`;
  const left = Number.isFinite(eta) && m.done < Number(m.total) ? ` · ETA ${fmtSeconds(eta)}` : '';
  return `${stage}: ${amount}${speed}${left}`;
}
