// @ts-check
// evalsieve page: one worker client shared by the job sections (one tab each). Wires the
// services (worker client, event log, the header's runtime status; each tab has its own run
// status), builds the tabs (ui/tabs.js) and mounts the sections.
// All data text is rendered with textContent, never innerHTML.

import { $ } from './lib/dom.js';
import { describeError } from './lib/format.js';
import { EventLog } from './lib/event-log.js';
import { fillConstantText, ruleConstants } from './lib/constants.js';
import { WorkerClient } from './lib/worker-client.js';
import { registerOffline } from './lib/offline.js';
import { Tabs } from './ui/tabs.js';
import { ContaminationSection } from './sections/contamination.js';
import { ParaphraseSection } from './sections/paraphrases.js';

function main() {
  const log = new EventLog($('#log'));
  const status = $('#runtime-status');
  const setStatus = (/** @type {string} */ state, /** @type {string} */ text) => {
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
        const why = /** @type {Error} */ (e).message; // ruleConstants throws an Error
        log.add(why, 'error');
        setStatus('error', `The page cannot start: ${why}`);
        return;
      }
      fillConstantText(document, constants);
      if (status.dataset.state === 'booting' || status.dataset.state === 'restarting') setStatus('ready', 'Python runtime ready.');
      for (const s of SECTIONS) s.workerReady(constants);
      if (!offlineAsked) {
        offlineAsked = true;
        registerOffline(log);
      }
    },
    onFatal: (err, restarting) => {
      log.add(`worker stopped: ${describeError(err).text}${restarting ? '; starting a new one' : ''}`, 'error');
      const text = restarting ? 'The worker stopped; starting a new one…' : `The worker cannot start: ${err.message}`;
      setStatus(restarting ? 'restarting' : 'error', text);
      for (const s of SECTIONS) {
        s.workerDied(err);
        if (!restarting) s.setStatus('error', text);
      }
    },
  });

  const select = (/** @type {string} */ key) => {
    tabs.select(key);
    for (const s of SECTIONS) s.show(s.key === key);
  };
  const tabs = new Tabs($('#tabs'), SECTIONS, (key) => {
    select(key);
    history.replaceState(null, '', `#${key}`);
  });
  client.start();
  for (const s of SECTIONS) s.mount({ client, log });
  // index.html#paraphrases opens that tab (its worked example runs when it is first shown).
  const wanted = SECTIONS.find((s) => `#${s.key}` === location.hash);
  select((wanted || SECTIONS[0]).key);
  /** @type {Window & {evalsieve?: unknown}} */ (window).evalsieve = { client, sections: SECTIONS }; // for tests and the console
}

main();
