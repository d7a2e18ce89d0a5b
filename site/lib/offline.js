// @ts-check
// Offline after the first visit: register the service worker (sw.js, beside index.html) once
// the page has started, and say in the event log when every file is cached. A browser
// without service workers (or one that refuses them) just keeps using the network.

import { messageOf } from '../worker/protocol.js';

/**
 * Register sw.js; log what happens. Called once the worker is ready, so the service
 * worker's install (it downloads every asset once more, into its cache) does not slow the
 * first boot.
 * @param {{add(text: string, kind?: string): void}} log
 */
export async function registerOffline(log) {
  if (!('serviceWorker' in navigator)) {
    log.add('offline use: this browser has no service workers; the page needs the network on each visit');
    return;
  }
  const controlled = Boolean(navigator.serviceWorker.controller);
  try {
    const reg = await navigator.serviceWorker.register(new URL('sw.js', document.baseURI), { scope: './' });
    if (!reg) throw new Error('registration refused');
    if (controlled) {
      log.add('offline use: this page was loaded from the cache (works offline)');
      return;
    }
    await navigator.serviceWorker.ready;
    log.add(`offline use: every file is cached (${reg.scope}); later visits work offline`, 'done');
  } catch (e) {
    log.add(`offline use: the service worker was not installed (${messageOf(e)}); the page needs the network on each visit`);
  }
}
