// @ts-check
// The service worker: the page works offline after its first visit (a classic worker
// script, registered by lib/offline.js once the Python runtime is ready).
//
// build.py writes sw-precache.js beside this file: self.EVALSIEVE_PRECACHE = {cache, files:
// [{url, sha256}]}, the app shell (every page and worker file, the examples) and every asset
// of assets/manifest.json, each with its sha256; the cache name is "evalsieve-" + a hash of
// that list. A new build changes sw-precache.js, so the browser installs a new service
// worker, which fills its own cache (each file checked against its sha256) and, once the old
// one has no page left, deletes every other evalsieve cache on activate.
//
// Responses are cached whole (status and headers: COOP/COEP/CORP, CSP and MIME types hold
// offline) plus two headers: X-Evalsieve-From: cache, which the worker reads for the run
// stamp's `assets_from`, and X-Evalsieve-Sha256, so that the next build's install copies
// the files it did not change from this cache instead of downloading them again. Anything
// not in the list goes to the network as usual.
//
// `on_use` files (the WebGPU runtime and graph, ~117 MB that only a browser with a WebGPU
// adapter ever loads) are not fetched at install: the first fetch of one goes to the network,
// is checked against its sha256 and is cached (that response says X-Evalsieve-From:
// network); later ones come from the cache. Install copies them from the previous build's
// cache when their sha256 did not change.

/* global importScripts */
importScripts('sw-precache.js');

/**
 * This script's global scope; EVALSIEVE_PRECACHE: what sw-precache.js (build.py) set.
 * @typedef {{url: string, sha256: string}} Listed
 * @typedef {ServiceWorkerGlobalScope & {EVALSIEVE_PRECACHE: {cache: string, files: Listed[], on_use?: Listed[]}}} Scope
 */
const scope = /** @type {Scope} */ (/** @type {unknown} */ (self));
const { cache: CACHE, files: FILES, on_use: ON_USE = [] } = scope.EVALSIEVE_PRECACHE;
const PREFIX = 'evalsieve-';
const FROM_HEADER = 'X-Evalsieve-From';
const SHA_HEADER = 'X-Evalsieve-Sha256';
const PARALLEL = 4;

/** absolute URL (no query, no fragment) of a path relative to dist/ */
const key = (/** @type {string} */ path) => new URL(path, self.location.href).href;
const LISTED = new Map(FILES.map((f) => [key(f.url), f.sha256]));
const LAZY = new Map(ON_USE.map((f) => [key(f.url), f.sha256]));

const hex = (/** @type {ArrayBuffer} */ buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');

/** Fetch one listed file from the network, check its sha256, return the response to cache. @param {string} url @param {string} sha256 */
async function fetchChecked(url, sha256) {
  const res = await fetch(url, { cache: 'no-store' });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const bytes = await res.arrayBuffer();
  const got = hex(await crypto.subtle.digest('SHA-256', bytes));
  if (got !== sha256) throw new Error(`${url}: sha256 ${got}, expected ${sha256} (a build changed under the install?)`);
  const headers = new Headers(res.headers);
  headers.set(FROM_HEADER, 'cache');
  headers.set(SHA_HEADER, sha256);
  return new Response(bytes, { status: res.status, statusText: res.statusText, headers });
}

/** An on_use file: from the cache, else fetched, checked, cached, answered as "network". @param {string} url @param {string} sha256 */
async function onUse(url, sha256) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(url);
  if (hit) return hit;
  const res = await fetchChecked(url, sha256);
  await cache.put(url, res.clone());
  const headers = new Headers(res.headers);
  headers.set(FROM_HEADER, 'network');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

scope.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const todo = [...LISTED];
    // The name is a hash of the list: whatever a failed earlier install put here is valid.
    const worker = async () => {
      for (let next = todo.pop(); next; next = todo.pop()) {
        const [url, sha256] = next;
        if (await cache.match(url)) continue;
        // An unchanged file is taken from the previous build's cache, not downloaded again.
        const old = await caches.match(url);
        const reuse = old && old.headers.get(SHA_HEADER) === sha256;
        await cache.put(url, reuse ? old : await fetchChecked(url, sha256));
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    for (const [url, sha256] of LAZY) { // kept from the previous build, never downloaded here
      const old = await caches.match(url);
      if (old && old.headers.get(SHA_HEADER) === sha256 && !(await cache.match(url))) await cache.put(url, old);
    }
  })());
});

scope.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await scope.clients.claim();
  })());
});

scope.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  url.search = '';
  url.hash = '';
  if (req.mode === 'navigate' && url.pathname.endsWith('/')) url.pathname += 'index.html';
  if (LAZY.has(url.href)) {
    event.respondWith(onUse(url.href, /** @type {string} */ (LAZY.get(url.href))));
    return;
  }
  if (!LISTED.has(url.href)) return;
  event.respondWith((async () => {
    const hit = await (await caches.open(CACHE)).match(url.href);
    return hit || fetch(req);
  })());
});
