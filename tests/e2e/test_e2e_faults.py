"""Faults: a second job while one runs is queued (and says so); a cancelled queued job ends
without running; both jobs' results are right afterwards."""

from __future__ import annotations

from pathlib import Path

from pagekit import wait_for_runs

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"

DRIVE = """
async () => {
  const files = {eval: document.querySelector('#q-eval').files[0],
                 train: document.querySelector('#q-train').files[0]};
  const w = new Worker('worker/worker.js', {type: 'module'});
  const msgs = [];
  const ended = {};
  const done = new Promise((resolve) => {
    w.onmessage = (e) => {
      const m = e.data;
      msgs.push({type: m.type, id: m.id, kind: m.data && m.data.kind, stage: m.stage,
                 code: m.error && m.error.code, t: performance.now()});
      if (m.type === 'result' || m.type === 'error') {
        ended[m.id] = m;
        if (Object.keys(ended).length === 3) resolve();
      }
    };
  });
  w.postMessage({type: 'init'});
  const cont = {eval: {format: 'jsonl', fields: ['question']}, train: {format: 'jsonl', fields: ['text']},
                n: null, boilerplate: true, threshold: null};
  w.postMessage({type: 'run', id: 'a', op: 'cont.run', args: cont, files});
  w.postMessage({type: 'run', id: 'b', op: 'cont.run', args: cont, files});
  w.postMessage({type: 'run', id: 'c', op: 'cont.run', args: cont, files});
  w.postMessage({type: 'cancel', id: 'c'});
  await done;
  w.terminate();
  const out = {};
  for (const [id, m] of Object.entries(ended)) {
    out[id] = m.type === 'result' ? {contaminated: m.data.summary.rows_contaminated}
                                  : {code: m.error.code};
  }
  return {msgs, out};
}
"""


def test_second_job_is_queued_and_a_cancelled_queued_job_never_runs(page):
    wait_for_runs(page, 1)
    page.evaluate("""() => { for (const id of ['q-eval', 'q-train']) {
        const i = document.createElement('input'); i.type = 'file'; i.id = id; i.hidden = true;
        document.body.append(i); } }""")
    page.set_input_files("#q-eval", str(FIXTURES / "gsm8k_test_sample.jsonl"))
    page.set_input_files("#q-train", str(FIXTURES / "train_mix.jsonl"))
    r = page.evaluate(DRIVE)
    msgs, out = r["msgs"], r["out"]
    assert out["a"] == out["b"] == {"contaminated": 7}
    assert out["c"] == {"code": "cancelled"}
    queued = [m["id"] for m in msgs if m["type"] == "log" and m["kind"] == "queued"]
    assert "b" in queued
    # b does not start (no progress) before a has ended
    a_end = next(m["t"] for m in msgs if m["id"] == "a" and m["type"] == "result")
    b_progress = [m["t"] for m in msgs if m["id"] == "b" and m["type"] == "progress"]
    assert b_progress and min(b_progress) >= a_end
    # c never started: no progress at all
    assert not [m for m in msgs if m["id"] == "c" and m["type"] == "progress"]


def test_altered_model_is_refused_naming_the_asset(browser_context, base_url):
    """A model file whose bytes are not the manifest's: the paraphrase job reports
    asset_load_failed naming encoder.onnx, instead of loading a different model."""
    p = browser_context.new_page()
    try:

        def tamper(route):
            body = bytearray(route.fetch().body())
            body[len(body) // 2] ^= 0xFF
            route.fulfill(
                status=200, body=bytes(body), headers={"Content-Type": "application/octet-stream"}
            )

        p.route("**/assets/model/encoder.onnx", tamper)
        p.goto(base_url + "index.html")
        p.click("#tab-paraphrases")
        p.wait_for_function(
            "n => Number(document.querySelector('#para-status').dataset.runs || 0) >= n",
            arg=1,
            timeout=300_000,
        )
        assert p.get_attribute("#para-status", "data-state") == "error"
        shown = p.text_content("#para-error") + p.text_content("#log")
        assert "encoder.onnx does not match assets/manifest.json" in shown, shown[-800:]
    finally:
        p.close()
