"""Thread use: served without COOP/COEP (a host without cross-origin isolation), the page
says beside the paraphrase result that the encoder ran on one thread, and the stamp says so;
served with them (build.py's server), it uses navigator.hardwareConcurrency threads and no
notice is shown (checked in test_e2e_offline.py and here on the session's server)."""

from __future__ import annotations

import pytest

from pagekit import DistServer, close_page, open_page
from test_e2e_paraphrases import stamped_pairs, wait_para_runs


@pytest.fixture
def not_isolated_url(dist_dir):
    server = DistServer(dist_dir, isolated=False)
    yield server.url
    server.stop()


def test_not_isolated_page_says_it_runs_on_one_thread(browser_context, not_isolated_url, tmp_path):
    p = open_page(browser_context, not_isolated_url, "index.html#paraphrases")
    try:
        assert wait_para_runs(p, 1) == "done", p.text_content("#para-error")
        assert p.evaluate("crossOriginIsolated") is False
        cores = p.evaluate("navigator.hardwareConcurrency")
        notice = p.locator("#para-threads-notice")
        assert notice.is_visible()
        text = notice.text_content()
        assert "Not cross-origin isolated" in text
        assert f"ran on 1 thread, not {cores}" in text
        assert "1 thread " in p.text_content('#para-settings dd[data-setting="encoder"]')
        stamp, _ = stamped_pairs(p, tmp_path)
        env = stamp["environment"]
        assert (env["cross_origin_isolated"], env["threads"], env["hardware_concurrency"]) == (
            False,
            1,
            cores,
        )
    finally:
        close_page(p)


def test_isolated_page_uses_every_core_and_shows_no_notice(browser_context, base_url):
    p = open_page(browser_context, base_url, "index.html#paraphrases")
    try:
        assert wait_para_runs(p, 1) == "done", p.text_content("#para-error")
        assert p.evaluate("crossOriginIsolated") is True
        cores = p.evaluate("navigator.hardwareConcurrency")
        assert p.is_hidden("#para-threads-notice")
        threads = "1 thread " if cores == 1 else f"{cores} threads"
        assert threads in p.text_content('#para-settings dd[data-setting="encoder"]')
    finally:
        close_page(p)
