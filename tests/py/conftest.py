import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "py"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SHARED = os.environ.get("EVALSIEVE_SHARED_DATA",
                        os.path.join(os.path.dirname(ROOT), "shared", "data"))


@pytest.fixture
def fixtures():
    return FIXTURES


@pytest.fixture
def shared():
    if not os.path.isdir(SHARED):
        pytest.skip(f"../shared/data is absent ({SHARED}); these tests read the real public "
                    "sets that sit beside the checkout in CI")
    return SHARED
