"""The core suite (tests/py) run by pytest *inside* Pyodide 314 (CPython 3.14, wasm32-emscripten).

tests/py stays the single source of truth: this test zips tests/py, tests/fixtures and
tests/golden as they are on disk, boots Pyodide from --dist-dir (dist/pyodide-test; node
runtime by default, no browser), loads our evalsieve wheel and pytest with its pure-Python dependencies from that
folder's pyodide-lock.json (build.py pins them in assets.lock.json), unpacks the suite into
Pyodide's in-memory filesystem at /evalsieve and calls ``pytest.main`` there once.

What cannot run in Pyodide skips inside it with a reason: subprocesses (no processes in
wasm), ../shared/data (not copied; the ``shared`` fixture skips), onnxruntime/tokenizers and
Node-only tests. The outer test collects the same paths under CPython (``pytest
--collect-only`` in a subprocess) and fails unless every collected test passes inside Pyodide
but those named in :data:`NOT_IN_PYODIDE` (each with the reason it cannot run there), and
unless no named test passes there (the list stays exact): a test that vanishes from the
Pyodide run, or starts to skip there, fails the check by name. Its message carries the inner
counts, skip reasons and failures.
"""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What the inner run reads, relative to ROOT (tests/golden: the encoder's reference rows).
SUITE_DIRS = ("tests/py", "tests/fixtures", "tests/golden")
# Single files the core suite imports from elsewhere: the shared reader of CSV exports.
SUITE_FILES = ("tests/hostile/hostile_common.py",)
INNER_ROOT = "/evalsieve"
# The test paths, the same inside Pyodide and under CPython.
TEST_PATHS = (os.environ.get("EVALSIEVE_PYODIDE_TESTS") or "tests/py").split()
# Inner pytest: quiet, no .pytest_cache in MEMFS, skip reasons in the summary.
INNER_ARGS = [*TEST_PATHS, "-q", "-p", "no:cacheprovider", "-rs", "--color=no"]
# pexpect's wait for the inner run's answer (pytest-pyodide's node runner waits 60 s by
# default, which a loaded machine exceeds); a hang still ends.
ANSWER_TIMEOUT_S = 900


def suite_zip() -> bytes:
    """SUITE_DIRS and SUITE_FILES as a deflated zip (paths relative to ROOT)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for folder in SUITE_DIRS:
            for path in sorted((ROOT / folder).rglob("*")):
                rel = path.relative_to(ROOT)
                if (
                    path.is_file()
                    and "__pycache__" not in rel.parts
                    and not any(part.startswith(".") for part in rel.parts)
                ):
                    archive.write(path, rel.as_posix())
        for name in SUITE_FILES:
            archive.write(ROOT / name, name)
    return buffer.getvalue()


def stale_wheel_files(dist_dir: Path) -> list[str]:
    """py/evalsieve files that differ from (or are missing in) the wheel in dist_dir.

    The inner run imports the wheel that build.py put in dist/pyodide-test, not py/; after
    an edit to py/ that wheel is stale until `python3 build.py build` runs again.
    """
    lock = json.loads((dist_dir / "pyodide-lock.json").read_text(encoding="utf-8"))
    wheel = dist_dir / lock["packages"]["evalsieve"]["file_name"]
    source = ROOT / "py"
    with zipfile.ZipFile(wheel) as archive:
        shipped = {
            name: archive.read(name)
            for name in archive.namelist()
            if name.startswith("evalsieve/") and name.endswith(".py")
        }
    local = {
        path.relative_to(source).as_posix(): path.read_bytes()
        for path in sorted((source / "evalsieve").rglob("*.py"))
    }
    return sorted(
        name for name in shipped.keys() | local.keys() if shipped.get(name) != local.get(name)
    )


# Runs inside Pyodide; SUITE_B64, INNER_ROOT and INNER_ARGS are prepended as literals.
# Returns one JSON string (plain data crosses the boundary, no proxies).
INNER_RUN = r'''
import base64, contextlib, io, json, os, sys, time, zipfile

import pytest

os.makedirs(INNER_ROOT, exist_ok=True)
with zipfile.ZipFile(io.BytesIO(base64.b64decode(SUITE_B64))) as archive:
    archive.extractall(INNER_ROOT)
os.chdir(INNER_ROOT)


class Tally:
    """Collects every report: nodeids that passed, skipped (with reason), failed (with text)."""

    def __init__(self):
        self.passed, self.skipped, self.failed = [], [], []

    def pytest_runtest_logreport(self, report):
        if report.passed and report.when == "call":
            self.passed.append(report.nodeid)
        elif report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(
                report.longrepr)
            self.skipped.append([report.nodeid, reason])
        elif report.failed:
            self.failed.append([report.nodeid, report.when, report.longreprtext[-4000:]])

    def pytest_collectreport(self, report):
        if report.failed:
            self.failed.append([report.nodeid, "collect", report.longreprtext[-4000:]])
        elif report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(
                report.longrepr)
            self.skipped.append([report.nodeid, reason])


tally = Tally()
output = io.StringIO()
started = time.perf_counter()
with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
    exit_code = int(pytest.main(list(INNER_ARGS), plugins=[tally]))
json.dumps({
    "exit_code": exit_code, "seconds": round(time.perf_counter() - started, 1),
    "passed": tally.passed, "skipped": tally.skipped, "failed": tally.failed,
    "output": output.getvalue()[-6000:],
    "python": list(sys.version_info[:3]), "platform": sys.platform,
    "unidata_version": __import__("unicodedata").unidata_version,
})
'''


#: Why a test cannot pass inside Pyodide (the values of NOT_IN_PYODIDE).
PROCESSES = (
    "Pyodide has no processes, subprocesses or threads (worker pools, the CLI run "
    "as a command, purify's writer threads)"
)
NOT_COPIED = (
    "reads files the Pyodide copy does not hold (only tests/py, tests/fixtures, "
    "tests/golden and hostile_common.py go in): docs, tests/hostile, kernels/, worker/, "
    "benchmarks/, assets.lock.json, .cache"
)
SHARED = "reads ../shared/data (the real public sets; not copied into Pyodide)"
ENCODER = (
    "needs the encoder extra (numpy, onnxruntime, tokenizers; onnx at build time): not in "
    "the Pyodide test dist"
)
NUMPY = "needs numpy (the CLI's fallback filter): not in the Pyodide test dist"
WASMTIME = "needs wasmtime (the CPython host of the scan kernel)"
NODE = "runs worker/prefilter.js under Node.js"
PANDAS = "needs pandas (the API's DataFrame inputs)"
PYARROW = "needs pyarrow (the parquet extra)"
ORACLES = "checks against scipy / statsmodels (reference oracles, CPython only)"
RAY = "needs Ray"
FSSPEC = "needs fsspec (the remote extra)"
UNICODE = (
    "the published kernel table is CPython 3.11's (Unicode 14); Pyodide's Python has "
    "another Unicode version, so it computes its own"
)
HYPOTHESIS = "a property test that needs hypothesis (not in the Pyodide test dist)"

#: Tests of TEST_PATHS that cannot pass inside Pyodide, each with the reason, by node id
#: relative to tests/py (``file.py::test[param]``); an id ending in ``*`` names every id it
#: starts (a module, or every parameter of a test). Every other test CPython collects must
#: pass inside Pyodide, and none of these may (the list stays exact).
NOT_IN_PYODIDE: dict[str, str] = {
    "test_api.py::test_cancel_stops_a_pool_of_workers": PROCESSES,
    "test_api.py::test_import_loads_nothing_but_the_package": PROCESSES,
    "test_cli.py::test_fail_on_contamination_exit_1_and_entry_point": PROCESSES,
    "test_cli_faults.py::*": PROCESSES,
    "test_corpus_scan.py::test_cli_modules_import_without_optional_packages": PROCESSES,
    "test_corpus_scan.py::test_ctrl_c_leaves_no_partial_exports": PROCESSES,
    "test_corpus_scan.py::test_ctrl_c_while_the_pool_starts_terminates_it": PROCESSES,
    "test_corpus_scan.py::test_progress_counts_each_byte_of_the_corpus_once": PROCESSES,
    "test_corpus_scan.py::test_workers_and_byte_ranges_match_one_process": PROCESSES,
    "test_decoding.py::test_lines_that_are_not_utf8_are_skipped_alike_on_every_path[*": PROCESSES,
    "test_decoding.py::test_the_clean_file_keeps_the_inputs_bom[*": PROCESSES,
    "test_decoding.py::test_without_skipping_a_line_that_is_not_utf8_stops_the_run": PROCESSES,
    "test_default_fields.py::test_figures_and_reasons_do_not_depend_on_string_hashing": PROCESSES,
    "test_encoder.py::test_module_imports_without_numeric_packages": PROCESSES,
    "test_filter_equality.py::test_every_filter_and_worker_count_give_the_same_exports[*": PROCESSES,
    "test_filter_equality.py::test_ray_gives_the_same_exports": PROCESSES,
    "test_filter_equality.py::test_a_ray_worker_unpickles_the_payload_once": RAY,
    "test_filter_equality.py::test_the_corpora_hold_what_the_property_is_about": PROCESSES,
    "test_kernel.py::test_kernel_runs_in_a_process_forked_after_a_compile": PROCESSES,
    "test_lint.py::*": PROCESSES,
    "test_semantic_kernel.py::*": WASMTIME,
    "test_semantic_kernel_hostile.py::*": WASMTIME,
    "test_purify_cli.py::*": PROCESSES,
    "test_purify_page.py::test_a_file_with_nothing_to_change_is_copied_as_stored": PROCESSES,
    "test_purify_page.py::test_small_blocks_and_the_changed_records_self_check[*": PROCESSES,
    "test_purify_page.py::test_the_page_writes_what_the_cli_writes[*": PROCESSES,
    "test_skip_bad_lines.py::test_cli_skip_bad_lines_in_byte_ranges": PROCESSES,
    "test_trace.py::test_cli_training_id_by_name_and_under_every_engine[extra1]": PROCESSES,
    "test_bench_tools.py::*": NOT_COPIED,
    "test_cli_exit.py::*": NOT_COPIED,
    "test_default_fields.py::test_fields_md_field_column_is_the_rules_field": NOT_COPIED,
    "test_docs.py::*": NOT_COPIED,
    "test_filter_equality.py::test_hostile_training_files_through_every_filter[*": NOT_COPIED,
    "test_kernel.py::test_committed_spec_header_is_what_python_gives": NOT_COPIED,
    "test_kernel.py::test_committed_js_spec_is_what_python_gives": NOT_COPIED,
    "test_kernel.py::test_prefilter_js_types_no_table_or_constant_itself": NOT_COPIED,
    "test_kernel.py::test_kernel_made_probes_are_pythons[*": WASMTIME,
    "test_kernel.py::test_multibyte_characters_hash_as_the_rule_reads_them[*": WASMTIME,
    "test_kernel_tables.py::test_published_tables_are_what_python_gives": UNICODE,
    "test_paraphrases_hostile.py::*": ENCODER,
    "test_readahead.py::*": PROCESSES,
    "test_train_id_hostile.py::test_cli_object_and_list_ids_in_the_report[2]": PROCESSES,
    "test_train_id_hostile.py::test_cli_parquet_struct_id": PYARROW,
    "test_model_cache.py::test_a_wheel_with_other_bytes_is_refused": NOT_COPIED,
    "test_model_cache.py::test_derives_once_verifies_and_repairs": NOT_COPIED,
    "test_model_cache.py::test_shipped_lock_agrees_with_assets_lock": NOT_COPIED,
    "test_purify_hostile.py::*": NOT_COPIED,
    "test_cli_scores.py::test_gsm8k_test_against_train_with_a_log_samples_file": SHARED,
    "test_contamination.py::test_gsm_hard_near_copies_are_found": SHARED,
    "test_default_fields.py::test_every_mmlu_subject_defaults_to_question": SHARED,
    "test_default_fields.py::test_fields_md_table_is_what_the_code_prints": SHARED,
    "test_default_fields.py::test_public_set_default_is_the_prompt[*": SHARED,
    "test_default_fields.py::test_shared_system_turn_on_all_of_mbpp": SHARED,
    "test_default_fields.py::test_truthfulqa_reason_names_the_longer_answer_lists": SHARED,
    "test_inputs.py::test_gsm8k_default_is_question": SHARED,
    "test_inputs.py::test_truthfulqa_default_is_not_the_source_url": SHARED,
    "test_ngrams.py::test_gsm8k_test_vs_train_against_reference": SHARED,
    "test_prefilter.py::test_gsm8k_train_filter_passes_few_records[*": SHARED,
    "test_api.py::test_paraphrases_cli_bridge_api_same_exports": ENCODER,
    "test_api.py::test_the_api_doc_examples_run_as_written[*": ENCODER,
    "test_cli_paraphrases.py::*": ENCODER,
    "test_cli_scores.py::test_paraphrases_with_scores_clustered_se_matches_statsmodels": ENCODER,
    "test_cli_semantic.py::*": ENCODER,
    "test_encoder.py::test_batch_independence_bit_for_bit": ENCODER,
    "test_encoder.py::test_cosine_vs_fp32_reference": ENCODER,
    "test_encoder.py::test_encode_empty_list": ENCODER,
    "test_encoder.py::test_fp32_folding_on_a_hand_built_graph": ENCODER,
    "test_encoder.py::test_fp32_graph_agrees_with_the_int8_graph": ENCODER,
    "test_encoder.py::test_fp32_graph_cosine_vs_fp32_reference": ENCODER,
    "test_encoder.py::test_graph_builders_are_deterministic": ENCODER,
    "test_encoder.py::test_js_tokenizer_ids_equal_rust": ENCODER,
    "test_encoder.py::test_onnxruntime_web_matches_native": ENCODER,
    "test_encoder.py::test_pairs_above_and_nearest_match_brute_force": ENCODER,
    "test_encoder.py::test_reference_rejects_a_128_piece_window": ENCODER,
    "test_encoder.py::test_tile_graph_equals_numpy": ENCODER,
    "test_encoder.py::test_tokenizer_ids_equal_sentence_transformers": ENCODER,
    "test_encoder.py::test_truncation_at_256_pieces_is_counted": ENCODER,
    "test_encoder.py::test_unit_norm": ENCODER,
    "test_exports_load.py::test_paraphrase_exports_load_with_default_settings": ENCODER,
    "test_inputs.py::test_paraphrases_run_at_half": ENCODER,
    "test_skip_bad_lines.py::test_cli_paraphrases_skip_bad_lines": ENCODER,
    "test_corpus_scan.py::test_filter_and_pure_path_give_identical_exports[numpy]": NUMPY,
    "test_corpus_scan.py::test_filter_eval_units_one_byte_per_non_ascii_character": NUMPY,
    "test_corpus_scan.py::test_filter_never_drops_a_line_the_rule_matches[*": NUMPY,
    "test_corpus_scan.py::test_filter_pieces_give_identical_exports[*": NUMPY,
    "test_corpus_scan.py::test_invalid_utf8_in_a_byte_range_names_the_file_line": NUMPY,
    "test_exact.py::test_the_numpy_filter_passes_on_exact_copies[*": NUMPY,
    "test_corpus_scan.py::test_filter_and_pure_path_give_identical_exports[kernel]": WASMTIME,
    "test_corpus_scan.py::test_kernel_blocks_give_identical_exports[*": WASMTIME,
    "test_corpus_scan.py::test_a_second_byte_order_mark_is_the_first_lines_with_every_filter": (
        WASMTIME
    ),
    "test_kernel.py::test_kernel_filter_pickles_without_its_instances": WASMTIME,
    "test_kernel.py::test_kernel_checks_utf8_as_python_decodes_it": WASMTIME,
    "test_kernel.py::test_kernel_reads_every_script_as_the_rule_does": WASMTIME,
    "test_kernel.py::test_marks_after_a_character_that_recomposes_hash_as_the_rule_reads_them": (
        WASMTIME
    ),
    "test_kernel.py::test_the_kernel_passes_a_segment_that_is_an_exact_key_probe": WASMTIME,
    "test_prefilter.py::test_adversarial_records[cpython]": WASMTIME,
    "test_prefilter.py::test_every_script_with_marks[cpython]": WASMTIME,
    "test_prefilter.py::test_filtered_field_paths[cpython]": WASMTIME,
    "test_prefilter.py::test_fixture_same_exports_and_few_candidates[cpython]": WASMTIME,
    "test_prefilter.py::test_text_format_training[cpython]": WASMTIME,
    "test_prefilter.py::test_too_deep_json_is_refused_the_same_way[cpython]": WASMTIME,
    "test_prefilter.py::test_adversarial_records[js]": NODE,
    "test_prefilter.py::test_adversarial_records[wasm]": NODE,
    "test_prefilter.py::test_every_script_with_marks[js]": NODE,
    "test_prefilter.py::test_every_script_with_marks[wasm]": NODE,
    "test_prefilter.py::test_filtered_field_paths[js]": NODE,
    "test_prefilter.py::test_filtered_field_paths[wasm]": NODE,
    "test_prefilter.py::test_fixture_same_exports_and_few_candidates[js]": NODE,
    "test_prefilter.py::test_fixture_same_exports_and_few_candidates[wasm]": NODE,
    "test_prefilter.py::test_text_format_training[js]": NODE,
    "test_prefilter.py::test_text_format_training[wasm]": NODE,
    "test_prefilter.py::test_too_deep_json_is_refused_the_same_way[js]": NODE,
    "test_prefilter.py::test_too_deep_json_is_refused_the_same_way[wasm]": NODE,
    "test_api.py::test_contamination_dataframe_in_dataframe_out": PANDAS,
    "test_api.py::test_every_input_kind_gives_the_same_exports": PANDAS,
    "test_exports_load.py::test_contamination_exports_load_with_default_settings": PANDAS,
    "test_api.py::test_a_parquet_eval_file_gives_the_cli_bytes": PYARROW,
    "test_bridge_parquet.py::*": PYARROW,
    "test_corpus_fields.py::test_parquet_chat_file_and_sharegpt_jsonl_together": PYARROW,
    "test_exports_load.py::test_parquet_reports_carry_the_stamp_and_the_csv_rows": PYARROW,
    "test_hf_layouts.py::*": PYARROW,
    "test_parquet.py::*": PYARROW,
    "test_cli_scores.py::test_contamination_with_harness_samples": ORACLES,
    "test_cli_scores.py::test_csv_eval_csv_scores_key_join_and_a_continuous_metric": ORACLES,
    "test_impact.py::test_clustered_matches_statsmodels[*": ORACLES,
    "test_impact.py::test_t_cdf_and_betainc_against_scipy": ORACLES,
    "test_impact.py::test_t_quantile_against_scipy": ORACLES,
    "test_impact.py::test_wilson_by_hand_and_against_statsmodels": ORACLES,
    "test_corpus_scan.py::test_ray_engine_matches_one_process_and_survives_a_failed_task": RAY,
    "test_corpus_scan.py::test_file_urls_go_through_fsspec": FSSPEC,
    "test_purify.py::test_word_spans_give_the_rules_words_and_cover_them": HYPOTHESIS,
}


def node_key(nodeid: str) -> str:
    """A node id relative to tests/py (the inner run's rootdir is not the checkout's)."""
    path, sep, rest = nodeid.partition("::")
    path = path.replace("\\", "/")
    for prefix in ("tests/py/", INNER_ROOT.lstrip("/") + "/tests/py/"):
        if path.startswith(prefix):
            path = path[len(prefix) :]
    return path + sep + rest


def cpython_tests(paths: list[str]) -> list[str]:
    """The node ids (:func:`node_key`) CPython collects from ``paths`` (``pytest
    --collect-only`` in a subprocess, from the checkout).

    Raises:
        AssertionError: the collection failed.
    """
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    return [node_key(line.strip()) for line in run.stdout.splitlines() if "::" in line]


def parity(collected: list[str], passed: list[str]) -> list[str]:
    """What breaks the parity of the two runs, one line each (empty = none): a collected
    test neither passed in Pyodide nor named in NOT_IN_PYODIDE; a named test that passed
    there; an entry that names no collected test of its file."""
    done = {node_key(n) for n in passed}
    named = lambda n: [p for p in NOT_IN_PYODIDE if names(p, n)]
    out = [f"did not pass inside Pyodide: {n}" for n in collected if n not in done and not named(n)]
    out += [
        f"passed inside Pyodide, but NOT_IN_PYODIDE names it ({', '.join(named(n))}): {n}"
        for n in collected
        if n in done and named(n)
    ]
    files = {n.partition("::")[0] for n in collected}  # (EVALSIEVE_PYODIDE_TESTS narrows)
    out += [
        f"NOT_IN_PYODIDE names no collected test: {p}"
        for p in NOT_IN_PYODIDE
        if p.partition("::")[0] in files and not any(names(p, n) for n in collected)
    ]
    return out


def names(entry: str, nodeid: str) -> bool:
    """Does a NOT_IN_PYODIDE entry name ``nodeid``? Equal, or for an entry ending in ``*``,
    a prefix of it."""
    return nodeid.startswith(entry[:-1]) if entry.endswith("*") else nodeid == entry


def describe(result: dict, wall: float) -> str:
    """The inner run as text for a failure message: counts, failures, skip reasons, tail."""
    lines = [
        f"inner pytest in Pyodide (Python {'.'.join(map(str, result['python']))}, "
        f"{result['platform']}, Unicode {result['unidata_version']}): exit code "
        f"{result['exit_code']}, {len(result['passed'])} passed, "
        f"{len(result['skipped'])} skipped, {len(result['failed'])} failed "
        f"in {result['seconds']} s (outer wall time {wall:.1f} s)"
    ]
    for nodeid, when, text in result["failed"]:
        lines += [f"--- FAILED {nodeid} ({when})", text]
    lines += [f"skipped {nodeid}: {reason}" for nodeid, reason in result["skipped"]]
    lines += ["--- inner output (tail)", result["output"]]
    return "\n".join(lines)


@pytest.mark.driver_timeout(900)  # tests/py grew (scores, impact, semantic, corpus)
def test_core_suite_passes_inside_pyodide(request, selenium_standalone):
    selenium = selenium_standalone
    dist_dir = Path.cwd() / request.config.getoption("--dist-dir")  # as pytest-pyodide does
    stale = stale_wheel_files(dist_dir)
    if stale:
        pytest.fail(
            f"the evalsieve wheel in {dist_dir} does not match py/ ({', '.join(stale)});"
            " run `python3 build.py build` (build.py test does) and test again"
        )
    collected = cpython_tests(TEST_PATHS)
    if hasattr(selenium, "p"):  # the node runner's pexpect session
        selenium.p.timeout = ANSWER_TIMEOUT_S
    started = time.perf_counter()
    selenium.load_package(["evalsieve", "pytest"])
    prelude = (
        f"SUITE_B64 = {base64.b64encode(suite_zip()).decode()!r}\n"
        f"INNER_ROOT = {INNER_ROOT!r}\nINNER_ARGS = {INNER_ARGS!r}\n"
    )
    result = json.loads(selenium.run(prelude + INNER_RUN))
    wall = time.perf_counter() - started
    report = describe(result, wall)
    print(report)

    assert result["python"][:2] == [3, 14] and result["platform"] == "emscripten", report
    assert result["exit_code"] == 0 and not result["failed"], report
    broken = parity(collected, result["passed"])
    assert not broken, "\n".join(broken) + "\n" + report


def test_parity_names_what_vanished_and_what_the_list_wrongly_holds():
    collected = [
        "test_a.py::test_x",
        "test_a.py::test_y[1]",
        "test_a.py::test_y[2]",
        "test_lint.py::test_ruff",
    ]
    # test_lint.py::* is named (no processes in Pyodide); the rest passed: parity
    assert (
        parity(
            collected,
            ["tests/py/test_a.py::test_x", "test_a.py::test_y[1]", "test_a.py::test_y[2]"],
        )
        == []
    )
    # one test vanished from the Pyodide run
    assert parity(collected, ["test_a.py::test_x", "test_a.py::test_y[2]"]) == [
        "did not pass inside Pyodide: test_a.py::test_y[1]"
    ]
    # a named test passed inside Pyodide: the list is wrong
    assert parity(collected, [*collected]) == [
        "passed inside Pyodide, but NOT_IN_PYODIDE names it (test_lint.py::*): "
        "test_lint.py::test_ruff"
    ]
    assert names("test_y[*", "test_y[1]") and not names("test_y[1]", "test_y[10]")
