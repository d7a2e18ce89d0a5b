"""Run stamps: every figure travels with the settings and inputs that produced it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field

from . import __version__
from .text import UNICODE_VERSION


def canonical_json(obj) -> str:
    """JSON with sorted keys, no spaces, UTF-8 kept: the form fingerprints are taken of."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class InputFile:
    """One input file as the run saw it.

    Attributes:
        role: ``"eval"`` or ``"train"``.
        name: the file's name (no directories).
        sha256: hex digest of the file's bytes as given (compressed, if it was gzip).
        bytes: size in bytes as given.
        format: the parsed format (jsonl/csv/tsv/text), with ``+gzip`` if inflated.
    """

    role: str
    name: str
    sha256: str
    bytes: int
    format: str = ""


@dataclass(frozen=True)
class RunStamp:
    """Tool version, asset versions, every setting, each input's sha256 and size, UTC time.

    Attributes:
        job: ``"contamination"`` or ``"paraphrases"``.
        settings: every setting of the run (plain JSON values).
        inputs: the input files.
        utc: ISO-8601 UTC time of the run, passed in by the driver (core code reads no clock).
        assets: ``{name: version or sha256}`` of the runtime assets (Pyodide, models...).
        runtime: where the Python ran (e.g. ``"CPython 3.11.7"``, ``"Pyodide 314.0.7"``).
        environment: how the page ran, passed in by its worker (``{}`` in the CLI):
            ``assets_from`` (``"cache"``: the service worker's offline cache, or
            ``"network"``), and for the encoder ``threads``, ``cross_origin_isolated`` and
            ``execution_provider`` (``"wasm"`` or ``"webgpu"``).
    """

    job: str
    settings: dict
    inputs: tuple
    utc: str
    assets: dict = field(default_factory=dict)
    runtime: str = ""
    environment: dict = field(default_factory=dict)
    tool: str = "evalsieve"
    version: str = __version__
    unicode_version: str = UNICODE_VERSION

    def to_dict(self) -> dict:
        """A plain dict with a ``fingerprint``: sha256 of the canonical JSON of everything but
        ``utc`` (two runs with equal fingerprints had the same tool, settings and inputs)."""
        d = asdict(self)
        d["inputs"] = [asdict(i) if not isinstance(i, dict) else i for i in self.inputs]
        body = {k: v for k, v in d.items() if k != "utc"}
        d["fingerprint"] = hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()
        return d
