"""The measuring helpers of the encoder benchmarks: per-op profile aggregation and
the browser's CPU time. Benchmarks print figures, never pass/fail; these check the arithmetic
the figures rest on."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if sys.platform == "emscripten" or not (ROOT / "benchmarks").is_dir():
    pytest.skip(
        "the benchmark scripts are not in Pyodide's file system (benchmarks/ is not "
        "copied) and need processes",
        allow_module_level=True,
    )
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_paraphrases_page  # noqa: E402
import profile_encoder_ops  # noqa: E402


def _node(name, op, ts, dur):
    return {
        "cat": "Node",
        "name": f"{name}_kernel_time",
        "ts": ts,
        "dur": dur,
        "ph": "X",
        "args": {"op_name": op},
    }


def test_per_op_drops_the_warm_up_and_takes_each_nodes_fastest_run():
    # Three model_run events: the first is the warm-up (its 1,000,000 us MatMul must not count).
    ev = [
        {"cat": "Session", "name": "model_run", "ts": 0, "dur": 2_000_000},
        _node("mm1", "MatMul", 10, 1_000_000),
        _node("erf", "Erf", 20, 900_000),
        {"cat": "Session", "name": "model_run", "ts": 3_000_000, "dur": 1_000},
        _node("mm1", "MatMul", 3_000_010, 300),
        _node("mm2", "MatMul", 3_000_400, 200),
        _node("erf", "Erf", 3_000_700, 50),
        {"cat": "Session", "name": "model_run", "ts": 4_000_000, "dur": 1_000},
        _node("mm1", "MatMul", 4_000_010, 250),
        _node("mm2", "MatMul", 4_000_400, 400),
        _node("erf", "Erf", 4_000_700, 70),
    ]
    secs, count, runs = profile_encoder_ops.per_op(ev)
    assert runs == 2
    # MatMul: min(300, 250) + min(200, 400) = 450 us; Erf: min(50, 70) = 50 us.
    assert secs == pytest.approx({"MatMul": 450e-6, "Erf": 50e-6})
    assert count == {"MatMul": 2, "Erf": 1}


def test_events_reads_the_array_out_of_a_log():
    # onnxruntime-web prints the profile after other lines on stdout.
    text = 'create 12 ms\n[\n{"cat": "Session", "name": "model_run", "ts": 1, "dur": 2}\n]\n'
    assert profile_encoder_ops._events(text) == [
        {"cat": "Session", "name": "model_run", "ts": 1, "dur": 2}
    ]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_tree_cpu_seconds_counts_a_child_that_burns_cpu():
    before = bench_paraphrases_page.tree_cpu_seconds()
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nt = time.process_time()\n"
            "while time.process_time() - t < 0.5: pass\n"
            "import sys; sys.stdout.write('done'); sys.stdout.flush()\n"
            "time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert child.stdout.read(4) == b"done"  # 0.5 CPU-second spent, child still alive
        used = bench_paraphrases_page.tree_cpu_seconds() - before
        # The child's own 0.5 s (clock ticks: 1/100 s), plus its interpreter start-up.
        assert 0.45 <= used <= 5.0, used
        # A process outside this tree does not count.
        assert bench_paraphrases_page.tree_cpu_seconds(root=child.pid) == 0.0
    finally:
        child.kill()
        child.wait()
