"""pytest's hook file for the browser tests: the fixtures live in pagekit.py.

Test modules import their helpers from ``pagekit`` (not from ``conftest``): pytest loads every
``conftest.py`` under one module name, so ``from conftest import ...`` would find
tests/py/conftest.py when tests/py and tests/e2e are collected in one run.
"""

import sys
from pathlib import Path

# hostile_common: the CSV export readers every suite shares (read_csv_export, ...)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hostile"))

from pagekit import base_url, browser_context, dist_dir, page, playwright_sync, tab  # noqa: F401  (fixtures)
