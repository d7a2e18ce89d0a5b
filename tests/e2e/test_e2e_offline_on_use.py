"""The service worker's `on_use` files (site/sw.js): the WebGPU runtime and graph (117 MB) are not
fetched at install; the first fetch goes to the network, is checked against its sha256 and
cached; later fetches, offline ones included, come from the cache. A file that does not match
its sha256 is refused, not cached. No GPU is needed: the page fetches the files itself.
"""

from __future__ import annotations

import hashlib

from pagekit import DistServer, close_page, open_page, wait_for_runs
from test_e2e_offline import (
    cached_paths,
    link_tree,
    precache,
    replace_file,
    sw_context,  # noqa: F401  (fixture)
    wait_for_offline_cache,
)

FETCH = """async (u) => {
    try {
        const r = await fetch(u);
        const d = await crypto.subtle.digest('SHA-256', await r.arrayBuffer());
        return [r.status, r.headers.get('X-Evalsieve-From'),
                Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('')];
    } catch (e) { return ['failed', String(e)]; }
}"""


def test_webgpu_files_are_cached_on_first_use_not_at_install(sw_context, dist_dir):
    listed = precache(dist_dir)
    lazy = {f["url"]: f["sha256"] for f in listed["on_use"]}
    graph, runtime = "assets/model/encoder-fp32.onnx", "assets/ort/ort.webgpu.min.mjs"
    assert {graph, runtime} <= set(lazy)
    server = DistServer(dist_dir)
    page = open_page(sw_context, server.url)
    try:
        assert wait_for_runs(page, 1) == "done"
        assert wait_for_offline_cache(page) == [listed["cache"]]
        cached = cached_paths(page, listed["cache"], server.url)
        assert not cached & set(lazy), "install fetched an on_use file"
        assert not [u for u in page.watch.requests if any(u.endswith(x) for x in lazy)]

        # First use: from the network, checked, cached; then from the cache, offline too.
        assert page.evaluate(FETCH, runtime) == [200, "network", lazy[runtime]]
        assert page.evaluate(FETCH, runtime) == [200, "cache", lazy[runtime]]
        assert cached_paths(page, listed["cache"], server.url) == cached | {runtime}
        server.stop()
        sw_context.set_offline(True)
        assert page.evaluate(FETCH, runtime) == [200, "cache", lazy[runtime]]
        got = page.evaluate(FETCH, graph)  # never fetched online: nothing to serve offline
        assert got[0] == "failed", got
        assert graph not in cached_paths(page, listed["cache"], server.url)
    finally:
        sw_context.set_offline(False)
        close_page(page)
        server.stop()


def test_an_on_use_file_that_fails_its_sha256_is_refused_and_not_cached(
    sw_context, dist_dir, tmp_path
):
    listed = precache(dist_dir)
    runtime = "assets/ort/ort.webgpu.min.mjs"
    site = tmp_path / "dist"
    link_tree(dist_dir, site)  # a symlink per file; one is replaced below
    server = DistServer(site)
    page = open_page(sw_context, server.url)
    try:
        assert wait_for_runs(page, 1) == "done"
        assert wait_for_offline_cache(page) == [listed["cache"]]
        good = (dist_dir / runtime).read_bytes()
        replace_file(site / runtime, good + b"\n")  # the server now sends other bytes
        got = page.evaluate(FETCH, runtime)
        assert got[0] == "failed", got
        assert runtime not in cached_paths(page, listed["cache"], server.url)
        replace_file(site / runtime, good)  # the right bytes again: fetched, checked, cached
        assert page.evaluate(FETCH, runtime) == [200, "network", hashlib.sha256(good).hexdigest()]
        assert runtime in cached_paths(page, listed["cache"], server.url)
    finally:
        close_page(page)
        server.stop()
