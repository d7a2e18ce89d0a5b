// @ts-check
// "Skip malformed lines" (the CLI's --skip-bad-lines) of the Contamination tab (under the
// training and eval drop zones) and of the Paraphrases tab (under its eval drop zone). Ticked,
// a JSON Lines / CSV / TSV record that cannot be read is skipped instead of stopping the run:
// Python (records.RecordReader) lists each in skipped-lines.csv (file, line, error), counts
// them per file in the run stamp; a skipped eval line is not in eval.clean (contamination) and
// is not compared (paraphrases). Parquet is not line-based: the option does not apply.
// Ticking it re-inspects a chosen file whose inspection stopped at a malformed line.

import { el } from '../lib/dom.js';
import { fmtInt } from '../lib/format.js';

const CONTAMINATION_HINT = 'a skipped eval line is not in eval.clean';

class SkipBadLines {
  /**
   * after: the element the option is placed after (the drop zones' row);
   * onChange(checked): called when a person ticks or unticks it;
   * prefix: '' (Contamination: #setting-skip-bad-lines, #skipped-note) or 'para-'
   * (#para-skip-bad-lines, #para-skipped-note); hint: what skipping means for the job.
   * @param {Element} after @param {(checked: boolean) => void} onChange @param {{prefix?: string, hint?: string}} [opts]
   */
  constructor(after, onChange, { prefix = '', hint = CONTAMINATION_HINT } = {}) {
    this.box = el('input', { type: 'checkbox', id: prefix ? `${prefix}skip-bad-lines` : 'setting-skip-bad-lines' });
    this.note = el('p', { class: 'skipped-note', id: `${prefix}skipped-note`, 'aria-live': 'polite' });
    this.root = el('div', { class: 'skip-bad-lines' },
      el('p', {}, el('label', {}, this.box, ' skip malformed lines (JSONL, CSV, TSV) and count them'),
        ' ', el('span', { class: 'muted', text: `(each is listed in skipped-lines.csv; ${hint}; Parquet is not line-based, so the option does not apply to it)` })),
      this.note);
    after.after(this.root);
    this.box.addEventListener('change', () => onChange(this.box.checked));
  }

  /** Whether malformed lines are skipped (the request's skip_bad_lines). */
  get checked() {
    return this.box.checked;
  }

  /** The arguments a request adds: {skip_bad_lines: true} when ticked, else {}. */
  args() {
    return this.box.checked ? { skip_bad_lines: true } : {};
  }

  /**
   * After a run: the skipped count per file (summary.skipped_lines, present when the option
   * was on) next to the option, and as the returned log line (null when the option was off).
   * @param {{skipped_lines?: Record<string, number>} | null | undefined} summary
   */
  showResult(summary) {
    const per = summary && summary.skipped_lines;
    if (!per) {
      this.note.textContent = '';
      return null;
    }
    const total = Object.values(per).reduce((a, b) => a + b, 0);
    const text = `${fmtInt(total)} malformed line${total === 1 ? '' : 's'} skipped (${Object.entries(per).map(([k, v]) => `${k}: ${fmtInt(v)}`).join(', ')})`;
    this.note.textContent = text;
    this.note.dataset.skipped = String(total);
    return `${text}; listed in skipped-lines.csv`;
  }
}

/**
 * Wire the option into the Contamination section: the checkbox after the drop zones' row,
 * and, when it changes, a new inspection of each side whose file could not be read.
 * @param {import('./contamination.js').ContaminationSection} section @param {Element} after
 */
export function wireSkipBadLines(section, after) {
  return new SkipBadLines(after, () => {
    for (const [role, slot] of Object.entries(section.slots)) {
      const cur = slot.current;
      if (cur && !cur.info && !cur.corpus) section.selectFile(/** @type {'train' | 'eval'} */ (role), cur.file, cur.label); // the slots' keys
    }
  });
}

/**
 * Wire the option into the Paraphrases section: the checkbox after its inputs' row, and, when
 * it changes, a new inspection of the chosen file if it could not be read (pasted text too).
 * @param {import('./paraphrases.js').ParaphraseSection} section @param {Element} after
 */
export function wireParaSkipBadLines(section, after) {
  return new SkipBadLines(after, () => {
    const cur = section.slot.current;
    if (cur && !cur.info) section.selectFile(cur.file, cur.label);
  }, { prefix: 'para-', hint: 'a skipped line is not compared' });
}
