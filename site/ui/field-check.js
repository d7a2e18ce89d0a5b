// @ts-check
// The too-short warning of an eval field list: how many sampled rows the chosen fields leave
// without N words in one value at the rule's own N. Python counts (evidence.py short_check,
// in the worker's `inspect` answer); a new choice of fields asks `inspect` again with
// `fields` (the file's head is read again: about a megabyte, well under a second).

import { fmtInt } from '../lib/format.js';

/**
 * The warning for a short_check ({fields, rows, rows_with_words, n, n_how, rows_too_short,
 * mostly_short}), or null when most rows can be scored.
 * @param {Record<string, any> | null} c
 */
function shortWarning(c) {
  if (!c || !c.mostly_short) return null;
  const what = c.fields.join(' + ');
  if (c.n === null) return `${what}: no sampled row has a word here; choose another field.`;
  return `${what}: ${fmtInt(c.rows_too_short)} of ${fmtInt(c.rows_with_words)} sampled rows have no run of N = ${c.n} words (auto N), so most rows would be too short to score. Choose a longer field, score fields together, or set a smaller N.`;
}

export class FieldCheck {
  /**
   * slot: the eval InputSlot (ui/input-slot.js); request(fields): a promise of the inspect
   * answer for the slot's current file with those fields; onCheck(check): a check for the
   * current file and fields arrived (also called with the first inspect's check).
   * @param {import('./input-slot.js').InputSlot} slot
   * @param {(file: File, fields: string[]) => Promise<{short_check?: Record<string, any> | null}>} request
   * @param {((check: Record<string, any> | null | undefined) => void) | null} [onCheck]
   */
  constructor(slot, request, onCheck = null) {
    this.slot = slot;
    this.request = request;
    this.onCheck = onCheck;
    this.asked = 0;
  }

  /** Show the check that came with the file's first inspect answer. @param {Record<string, any> | null} check */
  shown(check) {
    this.asked += 1; // an older answer still on its way is dropped
    this.slot.picker.warn(shortWarning(check));
    this.onCheck?.(check);
  }

  /** The chosen fields changed: ask again (the latest answer for the current file wins). */
  async want() {
    const entry = this.slot.current;
    const fields = this.slot.picker.chosen();
    if (!entry || !entry.info || entry.corpus || !fields.length) {
      this.slot.picker.warn(null);
      return;
    }
    const ask = ++this.asked;
    try {
      const info = await this.request(entry.file, fields);
      if (ask !== this.asked || this.slot.current !== entry) return;
      this.slot.picker.warn(shortWarning(info.short_check ?? null));
      this.onCheck?.(info.short_check);
    } catch {
      // the file read a moment ago cannot be read now: the run will say why
    }
  }
}
