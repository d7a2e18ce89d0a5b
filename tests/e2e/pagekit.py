"""Fixtures and helpers for the browser tests (conftest.py registers the fixtures): dist/ built
once, served on 127.0.0.1, Debian's chromium. Test modules import helpers from here.

Environment:
    EVALSIEVE_DIST: a dist/ that is already built (``build.py test`` sets it); used as is.
    EVALSIEVE_SKIP_BUILD: set to use ./dist as it is instead of running ``build.py build``.
    EVALSIEVE_CHROMIUM: the browser binary (default /usr/bin/chromium; never a downloaded one).
    EVALSIEVE_SHARED: the shared data folder (default ../shared next to the repository).
"""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
BOOT_TIMEOUT_MS = 180_000


def shared_data_dir() -> Path | None:
    """The shared data folder (GSM8K, WikiText, ...), or None when it is not there."""
    base = Path(os.environ.get("EVALSIEVE_SHARED", ROOT.parent / "shared"))
    data = base / "data"
    return data if (data / "gsm8k" / "test.jsonl").is_file() else None


@pytest.fixture(scope="session")
def dist_dir() -> Path:
    """A built dist/: $EVALSIEVE_DIST, or ./dist (built here unless EVALSIEVE_SKIP_BUILD)."""
    given = os.environ.get("EVALSIEVE_DIST")
    if given:
        dist = Path(given)
    else:
        dist = ROOT / "dist"
        if not os.environ.get("EVALSIEVE_SKIP_BUILD"):
            subprocess.run([sys.executable, str(ROOT / "build.py"), "build"], cwd=ROOT, check=True)
    if not (dist / "index.html").is_file():
        pytest.fail(f"{dist}/index.html is missing: run `python3 build.py build` first")
    return dist


def build_module():
    """The repository's build.py as a module."""
    sys.path.insert(0, str(ROOT))
    try:
        import build  # noqa: PLC0415  (the repository's build.py)
    finally:
        sys.path.remove(str(ROOT))
    build.DistHandler.log_message = lambda *a, **k: None  # keep pytest output readable
    return build


class DistServer:
    """build.py's server on a free port in a thread: `url`, `stop()`. With isolated=False
    it sends every header but COOP/COEP/CORP (a host without cross-origin isolation)."""

    def __init__(self, dist: Path, isolated: bool = True):
        build = build_module()
        server = build.make_server(dist, 0)
        if not isolated:

            class NotIsolated(build.DistHandler):
                def end_headers(self):
                    for name, value in build.SECURITY_HEADERS.items():
                        if not name.startswith("Cross-Origin-"):
                            self.send_header(name, value)
                    http.server.SimpleHTTPRequestHandler.end_headers(self)

            server.RequestHandlerClass = lambda *a, **kw: NotIsolated(*a, directory=str(dist), **kw)
        self.server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()
        host, port = server.server_address[:2]
        self.url = f"http://{host}:{port}/"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def base_url(dist_dir: Path):
    """Serve dist/ with build.py's server (same COOP/COEP/CSP headers as `build.py serve`)."""
    server = DistServer(dist_dir)
    yield server.url
    server.stop()


def chromium_path() -> Path:
    return Path(os.environ.get("EVALSIEVE_CHROMIUM", "/usr/bin/chromium"))


@pytest.fixture(scope="session")
def playwright_sync():
    """The one Playwright (sync API) of the session: a second one cannot start inside it."""
    chromium = chromium_path()
    if not chromium.exists():
        pytest.skip(f"{chromium} is missing (apt-get install -y chromium); browser tests skipped")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as pw:
        yield pw


def launch(pw, profile: str, **kwargs):
    """A persistent context on Debian's chromium with the project's flags.

    Service workers are blocked unless `service_workers="allow"` is passed: a page served
    from the offline cache would hide what the other tests check on the network (routes that
    tamper with an asset, missing files); tests/e2e/test_e2e_offline.py allows them."""
    kwargs.setdefault("service_workers", "block")
    return pw.chromium.launch_persistent_context(
        profile,
        executable_path=str(chromium_path()),
        headless=True,
        args=CHROMIUM_FLAGS,
        accept_downloads=True,
        **kwargs,
    )


@pytest.fixture(scope="session")
def browser_context(playwright_sync):
    """A Playwright persistent context on Debian's chromium with a fresh profile."""
    profile = tempfile.TemporaryDirectory(prefix="evalsieve-chromium-")
    context = launch(playwright_sync, profile.name, viewport={"width": 1280, "height": 1000})
    yield context
    context.close()
    profile.cleanup()


class PageWatch:
    """What a page did: requests (to check nothing leaves the origin), errors, worker messages."""

    def __init__(self, page, origin: str):
        self.page = page
        self.origin = origin
        self.requests: list[str] = []
        self.page_errors: list[str] = []
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))

    def foreign_requests(self) -> list[str]:
        return [
            u
            for u in self.requests
            if not u.startswith(self.origin) and not u.startswith(("blob:", "data:"))
        ]


RECORD_WORKER_MESSAGES = """
    window.__workerMessages = [];
    const NativeWorker = window.Worker;
    window.Worker = class extends NativeWorker {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (e) => window.__workerMessages.push(e.data));
      }
    };
"""


def open_page(context, base_url: str, path: str = "index.html"):
    """A new tab on `path` that records every worker -> page message (tests check the
    protocol's invariants) and, in `p.watch`, its requests and uncaught errors."""
    p = context.new_page()
    p.watch = PageWatch(p, base_url)
    p.add_init_script(RECORD_WORKER_MESSAGES)
    p.goto(base_url + path)
    return p


def close_page(p) -> None:
    """Close a tab from open_page; fail on uncaught errors or requests that left the origin."""
    p.close()
    assert not p.watch.page_errors, f"uncaught errors in the page: {p.watch.page_errors}"
    assert not p.watch.foreign_requests(), f"requests left the origin: {p.watch.foreign_requests()}"


@pytest.fixture
def page(browser_context, base_url):
    """A fresh tab on index.html."""
    p = open_page(browser_context, base_url)
    yield p
    close_page(p)


def wait_for_runs(page, count: int, timeout_ms: int = BOOT_TIMEOUT_MS) -> str:
    """Wait until `count` runs have ended (done, cancelled or error); returns the status state."""
    page.wait_for_function(
        "n => Number(document.querySelector('#status').dataset.runs || 0) >= n",
        arg=count,
        timeout=timeout_ms,
    )
    return page.get_attribute("#status", "data-state")


def runs_so_far(page) -> int:
    return int(page.get_attribute("#status", "data-runs") or 0)


def choose_file(
    page, role: str, path: Path, fields: list[str] | None = None, timeout_ms: int = 60_000
) -> None:
    """Give the page a file for one side and, optionally, tick exactly `fields`."""
    page.set_input_files(f"#{role}-file", str(path))
    page.wait_for_selector(
        f'#{role}-fields[data-file="{path.name}"][data-state="ready"], '
        f'#{role}-fields[data-file="{path.name}"][data-state="error"]',
        timeout=timeout_ms,
    )
    if fields is None:
        return
    for box in page.query_selector_all(f"#{role}-fields input[type=checkbox]"):
        want = box.get_attribute("data-path") in fields
        if box.is_checked() != want:
            box.click()
    for f in fields:
        assert page.is_checked(f'#{role}-fields input[data-path="{f}"]'), f"no field {f} in {path}"


@pytest.fixture(scope="module")
def tab(browser_context, base_url):
    """One tab for every test of a module (the runtime boots once); the example run is awaited."""
    p = open_page(browser_context, base_url)
    wait_for_runs(p, 1)
    yield p
    p.close()
    assert not p.watch.page_errors, p.watch.page_errors
    assert not p.watch.foreign_requests(), p.watch.foreign_requests()


def download(page, name: str, folder: Path) -> bytes:
    """Click the export button `name`, save the download into `folder`; its bytes."""
    with page.expect_download() as info:
        page.click(f'button[data-export="{name}"]')
    target = folder / name
    info.value.save_as(target)
    return target.read_bytes()
