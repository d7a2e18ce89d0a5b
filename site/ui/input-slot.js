// One input of a job: a drop zone plus the field list of the file chosen there. Holds the
// current choice {file, label, info}; a file chosen while an earlier one is still being
// inspected supersedes it (the earlier reply is dropped).

import { DropZone } from './drop-zone.js';
import { FieldPicker } from './field-picker.js';

export class InputSlot {
  /**
   * drop: {zone, input, name} elements (ui/drop-zone.js); fields: the <fieldset>;
   * picker: FieldPicker options; onFile(file): a person chose or dropped a file.
   */
  constructor({ drop, fields, picker }, onFile) {
    this.drop = new DropZone(drop, onFile);
    this.picker = new FieldPicker(fields, picker);
    this.current = null; // {file, label, info}
  }

  /**
   * Take `file` and inspect it with `inspect()` (a promise of the worker's inspect result).
   * Returns the choice with its info, or null when another file superseded this one meanwhile.
   * Throws the inspect error (after marking the field list failed) when this file is still current.
   */
  async take(file, label, shownAs, inspect) {
    const entry = { file, label, info: null };
    this.current = entry;
    this.drop.show(shownAs, label);
    this.picker.loading(file.name);
    try {
      const info = await inspect();
      if (this.current !== entry) return null;
      entry.info = info;
      return entry;
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
