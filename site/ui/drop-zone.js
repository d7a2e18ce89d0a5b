// @ts-check
// A file drop zone: a <label> around a hidden file input; click or drop a file.

export class DropZone {
  /**
   * zone: the .dropzone label; input: its <input type=file>; name: where the chosen file's
   * name is shown; onFile(file): called with the file a person chose or dropped.
   * @param {{zone: HTMLElement, input: HTMLInputElement, name: HTMLElement}} els @param {(file: File) => void} onFile
   */
  constructor({ zone, input, name }, onFile) {
    this.zone = zone;
    this.name = name;
    /** @type {((dt: DataTransfer) => boolean) | null} */
    this.onDrop = null; // (DataTransfer) => true when it takes the drop itself (a folder, several files)
    /** @type {((files: FileList) => void) | null} */
    this.onFiles = null; // (FileList) => void: several files chosen (an input with `multiple`)
    input.addEventListener('change', () => {
      if (input.files && input.files.length > 1 && this.onFiles) this.onFiles(input.files);
      else if (input.files && input.files[0]) onFile(input.files[0]);
      input.value = '';
    });
    zone.addEventListener('dragover', (ev) => { ev.preventDefault(); zone.classList.add('dragging'); });
    zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
    zone.addEventListener('drop', (ev) => {
      ev.preventDefault();
      zone.classList.remove('dragging');
      if (ev.dataTransfer && this.onDrop && this.onDrop(ev.dataTransfer)) return;
      const f = ev.dataTransfer && ev.dataTransfer.files && ev.dataTransfer.files[0];
      if (f) onFile(f);
    });
  }

  /** Show what is chosen; label ('example', 'pasted', or '' for the person's own file) goes to data-label. @param {string} text @param {string | null} [label] */
  show(text, label) {
    this.name.textContent = text;
    this.zone.dataset.label = label || '';
  }
}
