"""The encoder graph builder moved to ``py/evalsieve/encoder_graph.py`` (the CLI derives the
encoder from the pinned PyPI model package on first use); this name stays for scripts and
tests: ``python tools/encoder_graph.py SRC_MODEL_ONNX OUT_DIR``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))

from evalsieve.encoder_graph import (  # noqa: E402,F401
    DIM,
    MASK_EPS,
    NORM_EPS,
    OPSET,
    SOURCE_SHA256,
    build_encoder_graph,
    build_fp32_encoder_graph,
    build_tile_graph,
    main,
)

if __name__ == "__main__":
    sys.exit(main())
