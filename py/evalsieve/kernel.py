"""The CLI's candidate filter: the page's scan kernel (kernels/prefilter.wasm) under wasmtime.

One compiled implementation of the scan serves both runtimes: the page runs
kernels/prefilter.wasm in its prefilter workers (worker/prefilter-wasm.js), and the CLI runs
the same bytes in CPython through wasmtime (``pip install 'evalsieve[fast]'``: wheels for
Linux, macOS and Windows, so no compiler on the user's machine). This module is that host:
it lays out the kernel's tables from Python's spec (the eval n-grams, the field paths, the
:func:`kernel_spec.kernel_table`: text.char_table and the marks, with their context
flags, published in :mod:`kernel_tables`; the exact rung's probes, which the kernel makes
from the eval keys with :func:`exact.prefilter_exact`'s values) in the module's memory as
prefilter-wasm.js does, and hands it whole blocks of lines, one wasmtime call each. The
kernel decides which *records* can be skipped because they provably hold no eval n-gram in a
chosen field and no segment whose words are an exact-key probe; Python reads every other record
(:mod:`evalsieve.corpus`), so the filter can cost time, never results.

wasmtime is imported lazily (the package stays standard library only, and runs in Pyodide,
where the page's own host is used instead); :func:`unavailable` says why the kernel cannot
run here, and the CLI then names its fallback in the log. Engines and instances are made
per process on first use (a forked worker makes its own, compiling on one thread: see
:func:`_memory`), so a :class:`KernelFilter` is cheap to pickle (Ray's object store) and to
fork (``--workers``).
"""

from __future__ import annotations

import atexit
import ctypes
import os
import weakref
from array import array
from pathlib import Path

from .exact import probe_starts
from .kernel_spec import MIX, PROBE_MUL
from .kernel_tables import EXT_GONE, EXT_NONE, ext_tables  # noqa: F401 (re-exported)
from .kernel_tables import utf16 as _utf16

_HERE = Path(__file__).resolve().parent
#: where the kernel is looked for: next to this module (the wheel), then the source tree
KERNEL_PATHS = (_HERE / "prefilter.wasm", _HERE.parent.parent / "kernels" / "prefilter.wasm")
MAX_PATHS = 64  # the kernel's own limit (prefilter.c MAX_PATHS)


def kernel_path() -> Path | None:
    """The prefilter.wasm this install carries, or None."""
    return next((p for p in KERNEL_PATHS if p.is_file()), None)


def unavailable() -> str | None:
    """Why the kernel cannot run in this process (None: it can)."""
    if kernel_path() is None:
        return "kernels/prefilter.wasm is not in this install"
    try:
        import wasmtime  # noqa: F401
    except ImportError:
        return "wasmtime is not installed (pip install 'evalsieve[fast]')"
    return None


def _i32(v: int) -> int:
    """An unsigned 32-bit value as the i32 a WebAssembly call takes."""
    return v - (1 << 32) if v >= 1 << 31 else v


def exact_table(probes: list[int]) -> tuple[array, int]:
    """The exact rung's probe table as worker/prefilter-exact.js builds it: the probe values
    (1..2**32-1) by open addressing, slot ``value * PROBE_MUL``, 0 = empty, at least twice
    as many slots as probes (a power of two). Returns ``(table, mask)``."""
    size = 2
    while size < len(probes) * 2:
        size <<= 1
    mask = size - 1
    table = array("I", [0]) * size
    for v in probes:
        k = (v * PROBE_MUL) & mask
        while table[k] not in (0, v):
            k = (k + 1) & mask
        table[k] = v
    return table, mask


class WasmMemory:
    """kernels/prefilter.wasm instantiated in a wasmtime store of this process."""

    def __init__(self, engine, module):
        import wasmtime

        self.store = wasmtime.Store(engine)
        _STORES.add(self.store)
        ex = wasmtime.Instance(self.store, module, []).exports(self.store)
        self.mem = ex["memory"]
        self._fns = {
            k: ex[k]
            for k in (
                "pf_configure",
                "pf_add_ngrams",
                "pf_exact",
                "pf_exact_keys",
                "pf_scan",
                "sem_configure",
                "sem_words",
                "sem_terms_region",
                "sem_split",
                "sem_lookup",
                "sem_set_terms",
                "sem_scan",
            )
        }

    def size(self) -> int:
        return self.mem.data_len(self.store)

    def grow(self, end: int) -> None:
        have = self.size()
        if end > have:
            self.mem.grow(self.store, (end - have + 65535) // 65536)

    def address(self) -> int:
        return ctypes.addressof(self.mem.data_ptr(self.store).contents)

    def call(self, name: str, *args: int) -> int:
        return self._fns[name](self.store, *args)

    def write(self, at: int, data: bytes) -> None:
        """Copy ``data`` to offset ``at`` (within the memory's size)."""
        ctypes.memmove(self.address() + at, data, len(data))

    def read(self, at: int, n: int) -> bytes:
        """``n`` bytes from offset ``at``."""
        return ctypes.string_at(self.address() + at, n)

    def zero(self, at: int, n: int) -> None:
        """Zero ``n`` bytes from offset ``at``."""
        ctypes.memset(self.address() + at, 0, n)


class KernelScanner:
    """One configured kernel: n-grams hashed in, field paths and the char map laid out.

    Args:
        memory: a :class:`WasmMemory` (or a benchmark's native build with the same calls).
        ngrams: the eval n-grams (normalised words joined by one space).
        n: words per n-gram; fmt: ``"jsonl"`` or ``"text"``.
        paths: the field paths as :class:`fields.FieldExtractor` splits them (keys, ``"[]"``,
            filter steps: every element is read, a superset).
        probes: the exact rung's probe values (:func:`exact.prefilter_exact`'s ``probes``
            for the same format): a segment with one of them makes its record a candidate.
            ``None``: give ``keys`` instead.
        keys: the eval rows' exact keys (``EvalIndex.exact_keys``): the kernel makes their
            probes itself (``pf_exact_keys``: the same values, without Python's loop).
    Raises:
        ValueError: more than MAX_PATHS field paths.
    """

    def __init__(
        self,
        memory,
        ngrams: list[str],
        n: int,
        fmt: str,
        paths: list[list],
        probes: list[int] | None,
        keys: list[str] | None = None,
    ):
        self.m = memory
        exact_keys = list(keys or ())
        size = 1
        while size < len(ngrams) * 4:
            size <<= 1
        ext, pool, flags = ext_tables()
        keys, psteps, pstep0, steps = [], [], [], []
        for path in paths:
            pstep0.append(len(steps) // 2)
            psteps.append(len(path))
            for s in path:
                s = s if isinstance(s, str) else "[]"
                steps += [-1, 0] if s == "[]" else [len(_utf16(s)), 0]
                keys.append(s)
        self.at = (self.m.size() + 15) & ~15
        t_at = self._zeros(size * 4)
        b_at = self._zeros((1 << 15) * 4)
        e_at = self._place(ext.tobytes())
        f_at = self._place(flags.tobytes())
        p_at = self._place(pool.tobytes())
        for i, s in enumerate(keys):
            if s != "[]":
                steps[2 * i + 1] = self._place(array("H", _utf16(s)).tobytes())
        ps_at = self._place(array("i", psteps or [0]).tobytes())
        p0_at = self._place(array("i", pstep0 or [0]).tobytes())
        st_at = self._place(array("i", steps or [0]).tobytes())
        ring_at = self._zeros(max(n, 1) * 4)
        self.res_at = self._zeros(8 * 4)
        cfg = [
            n,
            pow(MIX, n - 1, 1 << 32),
            t_at,
            size - 1,
            b_at,
            e_at,
            p_at,
            len(paths),
            ps_at,
            p0_at,
            st_at,
            1 if fmt == "text" else 0,
            ring_at,
            f_at,
        ]
        cfg_at = self._place(
            array("i", [v - (1 << 32) if v >= 1 << 31 else v for v in cfg]).tobytes()
        )
        if self.m.call("pf_configure", cfg_at) != 0:
            raise ValueError(
                f"the kernel takes at most {MAX_PATHS} field paths ({len(paths)} given)"
            )
        grams = "".join(g + "\n" for g in ngrams).encode("utf-16-le", "surrogatepass")
        if grams:
            self.m.call("pf_add_ngrams", self._place(grams), len(grams) // 2)
        if probes is None:
            self._exact_keys(exact_keys, fmt)
        else:
            exact, exact_mask = exact_table(probes)  # kept: the kernel reads it in every scan
            self.exact_at = (self._place(exact.tobytes()), exact_mask + 1)
            self.m.call("pf_exact", self.exact_at[0], _i32(exact_mask))
        self.out_at = self.at  # the candidates, then the block
        self.cap = 4096

    def _exact_keys(self, keys: list[str], fmt: str) -> None:
        """The exact probe table made by the kernel from the keys (pf_exact_keys): sized for
        every probe before duplicates go (twice that, a power of two, as exact_table)."""
        last, most, longest = array("i"), 0, 1
        for key in keys:
            words = key.split()
            longest = max(longest, len(words))
            if fmt == "text":
                last.append(-1)
                most += 1
                continue
            starts = probe_starts(words, fmt)
            last.append(starts[-1])
            most += sum(len(words) - m for m in starts)
        size = 2
        while size < most * 2:
            size <<= 1
        units = "".join(k + "\n" for k in keys).encode("utf-16-le", "surrogatepass")
        u_at = self._place(units or b"\0\0")
        l_at = self._place(last.tobytes() or b"\0" * 4)
        s_at = self._zeros(longest * 4)
        t_at = self._zeros(size * 4)
        self.m.call("pf_exact_keys", u_at, len(units) // 2, l_at, s_at, t_at, _i32(size - 1))
        self.exact_at = (t_at, size)

    def exact_values(self) -> set[int]:
        """The probe values in the kernel's exact table (for the tests)."""
        at, slots = self.exact_at
        return set(array("I", ctypes.string_at(self.m.address() + at, slots * 4))) - {0}

    def _zeros(self, nbytes: int) -> int:
        a = self.at
        self.m.grow(a + nbytes + 16)
        ctypes.memset(self.m.address() + a, 0, nbytes)
        self.at = (a + nbytes + 15) & ~15
        return a

    def _place(self, data: bytes) -> int:
        a = self.at
        self.m.grow(a + len(data) + 16)
        ctypes.memmove(self.m.address() + a, data, len(data))
        self.at = (a + len(data) + 15) & ~15
        return a

    def scan(self, block: bytes, end: int | None = None, head: bytes = b""):
        """Filter one block of whole lines (valid or not: the kernel checks UTF-8).

        The block is ``head + block[:end]``, copied once into the kernel's memory (no
        joined or sliced copy in Python).

        Returns:
            ``None`` when the block is not valid UTF-8 (the caller decodes it to name the
            byte), else ``(records, lines, points, cands)``: the records (non-blank lines)
            and lines in the block (a last line without ``\\n`` counts), its code points,
            and the candidates as a flat ``array('i')`` of ``[record, line, start, end]``
            (block-local, 1-based; bytes ``start:end`` of the block are the line without its
            ``\\n``: :meth:`line`, until the next scan).
        """
        m = self.m
        end = len(block) if end is None else end
        size = len(head) + end
        while True:
            chunk_at = (self.out_at + self.cap * 16 + 15) & ~15
            m.grow(chunk_at + size + 1)
            base = m.address()
            ctypes.memmove(base + chunk_at, head, len(head))
            # bytes passed to memmove are read in place (c_char_p: the object's own buffer)
            ctypes.memmove(base + chunk_at + len(head), block, end)
            ctypes.memset(base + chunk_at + size, 0, 1)  # the kernel's sentinel
            rc = m.call("pf_scan", chunk_at, size, self.out_at, self.cap, self.res_at)
            if rc != -2:
                break
            self.cap *= 2
        self.chunk_at = chunk_at
        if rc == -1:
            return None
        if rc != 0:
            raise RuntimeError(f"the kernel's pf_scan returned {rc}")
        base = m.address()
        res = array("i", ctypes.string_at(base + self.res_at, 24))
        count = res[0]
        cands = array("i", ctypes.string_at(base + self.out_at, 16 * count))
        return res[1], res[2], res[5], cands

    def line(self, start: int, end: int) -> bytes:
        """Bytes ``start:end`` of the block the last :meth:`scan` read (a candidate's line)."""
        return ctypes.string_at(self.m.address() + self.chunk_at + start, end - start)


class KernelFilter:
    """The kernel for one eval index and training format, in whatever process scans.

    Holds only Python data (pickled into Ray's object store, inherited by forked workers);
    each process instantiates the kernel on first use and keeps one configured
    :class:`KernelScanner` per field path set.

    Args:
        ngrams, n, fmt: as :class:`KernelScanner` (n >= 1; fmt jsonl or text).
        exact_keys: the eval rows' exact keys (``EvalIndex.exact_keys``); each process's
            kernel makes their probes (:func:`exact.prefilter_exact`'s values) itself.
    Raises:
        ValueError: another format.
    """

    name = "kernel"

    def __init__(self, ngrams: list[str], n: int, fmt: str, exact_keys: list[str]):
        if fmt not in ("jsonl", "text"):
            raise ValueError("the kernel reads JSONL or text")
        self.ngrams, self.n, self.fmt = list(ngrams), n, fmt
        self.keys, self.probes = list(exact_keys), None  # the kernel makes the probes
        self._local: dict = {}

    @classmethod
    def from_spec(cls, spec: dict) -> KernelFilter:
        """The kernel of a prefilter spec (``ContaminationJob.prefilter_spec``: its n-grams,
        and its exact probes as the page's kernel takes them)."""
        kf = cls(spec["ngrams"], spec["n"], spec["format"], ())
        kf.probes = list(spec["exact"]["probes"])
        return kf

    def __getstate__(self):
        return {
            "ngrams": self.ngrams,
            "n": self.n,
            "fmt": self.fmt,
            "probes": self.probes,
            "keys": self.keys,
        }

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._local = {}

    def scanner(self, paths: list[list]) -> KernelScanner:
        """This process's kernel for ``paths`` (made on first use)."""
        key = (os.getpid(), repr(paths))
        sc = self._local.get(key)
        if sc is None:
            if len(self._local) and next(iter(self._local))[0] != os.getpid():
                self._local = {}  # forked: the parent's instances are not ours
            sc = self._local[key] = KernelScanner(
                _memory(), self.ngrams, self.n, self.fmt, paths, self.probes, self.keys
            )
        return sc


_WASM: dict = {}
#: every live store of this process, closed at exit before the module and the engine
_STORES: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _close_wasm() -> None:
    """Free the wasmtime objects while the interpreter still runs: left to the garbage
    collector at shutdown, wasmtime's finalizers find its C bindings already torn down and
    print "Exception ignored in Managed.__del__" after the run's own output."""
    for store in list(_STORES):
        store.close()
    for key in ("module", "engine"):
        obj = _WASM.pop(key, None)
        if obj is not None:
            obj.close()
    _WASM.clear()


def _memory() -> WasmMemory:
    """A fresh kernel instance (one per scanner: each has its own tables), from this
    process's engine and compiled module (made once per process, after any fork)."""
    import wasmtime

    if _WASM.get("pid") != os.getpid():
        path = kernel_path()
        if path is None:
            raise FileNotFoundError("kernels/prefilter.wasm is not in this install")
        # one compiler thread: cranelift's parallel compilation starts a thread pool that a
        # forked process inherits without its threads, and the child's compile then waits
        # forever (the --workers hang; tests/py/test_kernel.py forks after a compile)
        config = wasmtime.Config()
        config.parallel_compilation = False
        engine = wasmtime.Engine(config)
        _WASM.update(
            pid=os.getpid(), engine=engine, module=wasmtime.Module(engine, path.read_bytes())
        )
    return WasmMemory(_WASM["engine"], _WASM["module"])
