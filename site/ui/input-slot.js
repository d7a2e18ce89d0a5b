// @ts-check
// One input of a job: a drop zone plus the field list of the file chosen there. Holds the
// current choice {file, label, info}; a file chosen while an earlier one is still being
// inspected supersedes it (the earlier reply is dropped).

import { DropZone } from './drop-zone.js';
import { FieldPicker } from './field-picker.js';

/**
 * A chosen file and its inspect answer (null until it arrives); `corpus`: set by
 * sections/corpus-files.js when the slot holds several training files.
 * @typedef {Record<string, any> & {fields: import('./field-picker.js').FieldInfo[]}} Inspected  an inspect answer (Python's JSON)
 * @typedef {{file: File, label: string | null, info: Inspected | null, corpus?: {file: File, info: Record<string, any>}[]}} SlotEntry
 * @typedef {SlotEntry & {info: Inspected}} InspectedEntry
 */

export class InputSlot {
  /**
   * drop: {zone, input, name} elements (ui/drop-zone.js); fields: the <fieldset>;
   * picker: FieldPicker options; onFile(file): a person chose or dropped a file.
   * @param {{drop: ConstructorParameters<typeof DropZone>[0], fields: HTMLElement, picker: ConstructorParameters<typeof FieldPicker>[1]}} els
   * @param {(file: File) => void} onFile
   */
  constructor({ drop, fields, picker }, onFile) {
    this.drop = new DropZone(drop, onFile);
    this.picker = new FieldPicker(fields, picker);
    /** @type {SlotEntry | null} */
    this.current = null; // {file, label, info}
  }

  /**
   * Take `file` and inspect it with `inspect()` (a promise of the worker's inspect result).
   * Returns the choice with its info, or null when another file superseded this one meanwhile.
   * Throws the inspect error (after marking the field list failed) when this file is still current.
   * @param {File} file @param {string | null} label @param {string} shownAs @param {() => Promise<Inspected>} inspect
   * @returns {Promise<InspectedEntry | null>}
   */
  async take(file, label, shownAs, inspect) {
    /** @type {SlotEntry} */
    const entry = { file, label, info: null };
    this.current = entry;
    this.drop.show(shownAs, label);
    this.picker.loading(file.name);
    try {
      const info = await inspect();
      if (this.current !== entry) return null;
      entry.info = info;
      return /** @type {InspectedEntry} */ (entry);
    } catch (err) {
      if (this.current !== entry) return null;
      this.picker.failed();
      throw err;
    }
  }

  /** True when a file is chosen, inspected, and at least one field is picked. */
  get ready() {
    return Boolean(this.current && this.current.info && this.picker.chosen().length > 0);
  }
}
