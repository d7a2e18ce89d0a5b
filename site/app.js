// evalsieve page: one worker client shared by the job sections (one tab each). Wires the
// services (worker client, event log, header status), builds the tabs and mounts the sections.
// All data text is rendered with textContent, never innerHTML.

import { $, el } from './lib/dom.js';
import { describeError } from './lib/format.js';
import { EventLog } from './lib/event-log.js';
import { fillConstantText, ruleConstants } from './lib/constants.js';
import { WorkerClient } from './lib/worker-client.js';
import { registerOffline } from './lib/offline.js';
import { ContaminationSection } from './sections/contamination.js';
import { ParaphraseSection } from './sections/paraphrases.js';

function main() {
  const log = new EventLog($('#log'));
  const status = $('#status');
  const setStatus = (state, text) => {
    status.dataset.state = state;
    status.textContent = text;
  };

  // A new job is one more section here (and its file in sections/).
  const SECTIONS = [
    new ContaminationSection(),
    new ParaphraseSection(),
  ];

  let offlineAsked = false; // sw.js is registered after the first ready only
  const client = new WorkerClient({
    url: new URL('worker/worker.js', document.baseURI),
    onBoot: (m) => {
      log.add(`boot: ${m.stage} (${m.done}/${m.total})`);
      if (m.stage !== 'ready') setStatus('booting', `Starting the Python runtime: ${m.stage} (${m.done}/${m.total})…`);
    },
    onReady: (versions, published) => {
      log.add(`ready: ${Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(', ')}`, 'done');
      let constants;
      try {
        constants = ruleConstants(published);
      } catch (e) {
        log.add(e.message, 'error');
        setStatus('error', `The page cannot start: ${e.message}`);
        return;
      }
      fillConstantText(document, constants);
      if (status.dataset.state === 'booting' || status.dataset.state === 'restarting') setStatus('ready', 'Ready.');
      for (const s of SECTIONS) s.workerReady(constants);
      if (!offlineAsked) {
        offlineAsked = true;
        registerOffline(log);
      }
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
      $(`#tab-${s.key}`).setAttribute('aria-selected', String(s.key === key));
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
  for (const s of SECTIONS) s.mount({ client, log });
  // index.html#paraphrases opens that tab (its worked example runs when it is first shown).
  const wanted = SECTIONS.find((s) => `#${s.key}` === location.hash);
  select((wanted || SECTIONS[0]).key);
  window.evalsieve = { client, sections: SECTIONS }; // for tests and the console
}

main();
