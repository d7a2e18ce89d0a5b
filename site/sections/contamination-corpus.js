// @ts-check
// A training corpus on the Contamination tab: several dropped or chosen files, or a
// folder (the "folder" input, or a folder dropped: DataTransfer entries), scanned as one
// corpus; corpus-files.js names and orders the files as the CLI does. Each file keeps its own
// format and fields.

import * as P from '../worker/protocol.js';
import { fmtBytes } from '../lib/format.js';
import { ARROW_NOTE, CORPUS_EXTENSIONS, corpusInfo, corpusOfDrop, corpusOfInput, corpusOrder } from './corpus-files.js';

const { OP } = P;

/**
 * Take a corpus into the section's training slot: inspect every file (one at a time, as
 * the worker does), show one field list. Resolves when listed (or superseded / failed:
 * the error box says which file).
 * @param {import('./contamination.js').ContaminationSection} section @param {File[]} files
 */
async function selectCorpus(section, files) {
  const slot = section.slots.train;
  let sorted;
  const { leftOut = [], arrow = 0 } = /** @type {File[] & {leftOut?: {name: string, why: string}[], arrow?: number}} */ (files);
  try {
    sorted = corpusOrder(files);
    if (!sorted.length) throw new Error(arrow ? ARROW_NOTE : `no training file in this folder (supported: ${CORPUS_EXTENSIONS.join(' ')}, each also .gz)`);
  } catch (e) {
    section.inputError(e, slot.drop.zone);
    return;
  }
  section.autoRunExample = false;
  if (sorted.length === 1) { section.selectFile('train', sorted[0], null); return; }
  /** @type {Array<{file: File, info: Record<string, any>}>} */
  const parts = [];
  const inspectAll = async () => {
    for (const file of sorted) {
      const info = await section.services.client.request(OP.INSPECT, { name: file.name, role: 'train', ...section.inspectArgs() }, { train: file }).promise;
      parts.push({ file, info });
    }
    return corpusInfo(parts);
  };
  const size = sorted.reduce((s, f) => s + f.size, 0);
  section.updateRunButton();
  let got;
  try {
    got = await slot.take(sorted[0], null, `${sorted.length} files (${fmtBytes(size)}): ${sorted.map((f) => f.name).join(', ')}`, inspectAll);
  } catch (e) {
    section.inputError(e, slot.drop.zone);
    section.updateRunButton();
    return;
  }
  if (!got) return; // another choice superseded this one
  got.corpus = parts;
  section.log.add(`training corpus: ${parts.length} files, ${fmtBytes(size)}: ${parts.map((p) => `${p.file.name} (${p.info.format}${p.info.gzip ? ', gzip' : ''})`).join(', ')}`);
  if (leftOut.length) section.log.add(`left out of the folder: ${leftOut.map((f) => `${f.name} (${f.why})`).join(', ')}`);
  const { info } = got;
  slot.picker.render(info, { legend: `Fields to scan (${parts.length} files: ${info.format})`, checked: (path) => info.default_fields.includes(path) });
  section.inputsChanged();
  section.errors.hide();
  section.updateRunButton();
}

/**
 * Wire the training drop zone, its file input (several files) and the folder input to
 * selectCorpus; a drop or choice of one plain file keeps the ordinary path.
 * @param {import('./contamination.js').ContaminationSection} section
 * @param {{input: HTMLInputElement, folder: HTMLInputElement | null}} els
 */
export function wireCorpus(section, { input, folder }) {
  const drop = section.slots.train.drop;
  drop.onDrop = (dt) => {
    const pending = corpusOfDrop(dt);
    if (!pending) return false;
    pending.then((files) => selectCorpus(section, files), (e) => section.inputError(e, drop.zone));
    return true;
  };
  drop.onFiles = (list) => selectCorpus(section, corpusOfInput(list));
  if (folder) {
    folder.addEventListener('change', () => {
      if (folder.files && folder.files.length) selectCorpus(section, corpusOfInput(folder.files));
      folder.value = '';
    });
  }
}
