import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "py"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# hostile_common.read_csv_export: the one reader of CSV exports the tests share
sys.path.insert(0, os.path.join(ROOT, "tests", "hostile"))

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SHARED = os.environ.get(
    "EVALSIEVE_SHARED_DATA", os.path.join(os.path.dirname(ROOT), "shared", "data")
)


@pytest.fixture
def fixtures():
    return FIXTURES


@pytest.fixture
def shared():
    if not os.path.isdir(SHARED):
        pytest.skip(
            f"../shared/data is absent ({SHARED}); these tests read the real public "
            "sets that sit beside the checkout in CI"
        )
    return SHARED


@pytest.fixture(scope="module")
def model_dir():
    """The encoder folder (dist/assets/model after a build, or the user cache); the test is
    skipped, with the reason, when there is none or the encoder extra is missing."""
    pytest.importorskip("onnxruntime", reason="the encoder extra (pip install -e .[encoder])")
    pytest.importorskip("tokenizers", reason="the encoder extra (pip install -e .[encoder])")
    from evalsieve.cli import find_model_dir

    try:
        return find_model_dir(None)
    except Exception as e:
        pytest.skip(f"no model: {e} (python3 build.py build writes dist/assets/model)")
