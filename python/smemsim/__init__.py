"""smemsim from Python (issue 30; docs/python.md).

Arch presets and keys, the bank, position and lock conflicts and the latency of warp accesses
given as NumPy arrays (the numbers of ``smemsim analyze``), the conflicts of a shared-memory layout
function, and study results as pandas DataFrames. Bad input raises :class:`smemsim.Error`, a
``ValueError`` carrying the CLI's one-line message.
"""
import numpy as _np

from . import _core
from ._core import Arch, Error, arch_keys, presets

__all__ = ["Arch", "Error", "arch", "arch_keys", "presets", "conflicts", "layout_conflicts",
           "hash_search", "study"]


def arch(name="ampere-a100", **overrides):
    """A preset (``smemsim arch list``) with ``key=value`` overrides, keys as in the arch TOML.

    Keys have dots, so give them as a dict: ``smemsim.arch("volta-v100", **{"memory.banks": 64})``.
    """
    if isinstance(name, Arch):
        if not overrides:
            return name
        name = name.name
    return _core.arch(str(name), overrides)


def _as_arch(a):
    return a if isinstance(a, Arch) else arch(a)


def conflicts(addresses, arch="ampere-a100", unit="byte", op="ld", per_lane=False):
    """Conflicts and latency of warp accesses.

    ``addresses``: integers, one row per access and one column per lane (a 1-D array is one access);
    a negative entry is a lane that does not take part. ``unit``: ``"byte"`` (divided into 4-byte
    words) or ``"word"``. ``op``: ``"ld"``, ``"st"`` or ``"atom"``.

    Returns a dict of NumPy arrays, one entry per access: ``bank_degree``, ``position_degree``,
    ``lock_degree`` (the largest over the access's transactions), ``bank_conflicts`` (the sum of
    bank degree - 1 over them), ``latency`` (cycles, the arch's model) and ``transactions``.
    With ``per_lane``, also ``lane_bank_degree`` (accesses x lanes): the degree of the bank each
    lane falls in, within its transaction (0 for an inactive lane).
    """
    a = _np.asarray(addresses)
    if a.dtype.kind not in "iu":
        raise Error(f"addresses must be integers, not {a.dtype} (a NumPy integer array)")
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise Error(f"addresses must be 1-D (one access) or 2-D (accesses x lanes), not {a.ndim}-D")
    if a.dtype.kind == "u" and a.size and a.max() >= 2**62:
        raise Error(f"address {int(a.max())} is outside any shared memory")
    a = a.astype(_np.int64, copy=False)
    if unit == "byte":
        words = _np.where(a >= 0, a // 4, -1)
    elif unit == "word":
        words = a
    else:
        raise Error(f"unit '{unit}' is not byte or word")
    return _core.conflicts(_as_arch(arch), _np.ascontiguousarray(words, dtype=_np.int64), op,
                           bool(per_lane))


def _layout_accesses(offsets, warp, element_bytes):
    """accesses[w * elements + e]: the byte addresses of warp w's threads at element e."""
    threads, elements = offsets.shape
    rows = offsets.reshape(threads // warp, warp, elements).transpose(0, 2, 1)
    return rows.reshape(-1, warp) * int(element_bytes)


def _offsets(layout, threads, elements):
    """A layout as a (threads, elements) array of offsets, checked."""
    if callable(layout):
        offsets = _np.empty((threads, elements), dtype=_np.int64)
        for t in range(threads):
            for e in range(elements):
                v = layout(t, e)
                if not isinstance(v, (int, _np.integer)):
                    raise Error(f"layout({t}, {e}) returned {v!r}, not an integer offset")
                if not 0 <= v < 2**40:
                    raise Error(f"layout({t}, {e}) = {v} is outside any shared memory")
                offsets[t, e] = v
    else:
        offsets = _np.asarray(layout)
        if offsets.dtype.kind not in "iu":
            raise Error(f"a layout array holds integers, not {offsets.dtype}")
        if offsets.shape != (threads, elements):
            raise Error(f"the layout array's shape is {offsets.shape}, not (threads, elements) = "
                        f"({threads}, {elements})")
        offsets = offsets.astype(_np.int64)
    bad = (offsets < 0) | (offsets >= 2**40)
    if bad.any():
        t, e = map(int, _np.argwhere(bad)[0])
        raise Error(f"layout({t}, {e}) = {int(offsets[t, e])} is outside any shared memory")
    return offsets


def layout_conflicts(layout, threads=32, elements=32, arch="ampere-a100", element_bytes=4,
                     op="ld"):
    """Conflicts of a shared-memory layout: the question a Triton or CuTe author asks.

    ``layout`` maps (thread, element) to an offset in elements: a callable ``layout(t, e)`` or an
    integer array of shape (threads, elements). Every warp (32 consecutive threads) accesses
    element e together, for each e: ``threads // 32 * elements`` accesses.

    Returns :func:`conflicts`'s dict, with ``warp`` and ``element`` arrays naming each access, and
    ``offsets`` (threads x elements) as the layout gave them.
    """
    threads, elements = int(threads), int(elements)
    if threads <= 0 or elements <= 0:
        raise Error(f"threads ({threads}) and elements ({elements}) must be positive")
    a = arch if isinstance(arch, Arch) else globals()["arch"](arch)
    warp = int(a["warp.size"])
    if threads % warp:
        raise Error(f"threads ({threads}) must be a multiple of the warp size ({warp})")
    offsets = _offsets(layout, threads, elements)
    byte_addr = _layout_accesses(offsets, warp, element_bytes)
    out = conflicts(byte_addr, arch=a, unit="byte", op=op)
    out["warp"] = _np.repeat(_np.arange(threads // warp), elements)
    out["element"] = _np.tile(_np.arange(elements), threads // warp)
    out["offsets"] = offsets
    return out


def hash_search(layout, threads=32, elements=32, arch="ampere-a100", element_bytes=4,
                family="bvxor", heuristic=""):
    """The bank hash (an XOR swizzle) with the fewest conflicts for a layout's accesses.

    ``layout`` as for :func:`layout_conflicts`; ``family`` and ``heuristic`` as ``smemsim hash
    search`` takes them (bv, bvxor, bits, bitsxor, xormask). Only hashes that lose no data as a
    software swizzle are searched. Returns a dict: ``spec`` (usable as the arch's
    ``memory.bank_hash``), ``baseline_conflicts`` (under mod), ``conflicts``, ``reduction``,
    ``cuda`` (a ``__device__`` function) and ``cute`` (a ``cute::Swizzle``, or None with
    ``cute_reason``).
    """
    threads, elements = int(threads), int(elements)
    a = arch if isinstance(arch, Arch) else globals()["arch"](arch)
    warp = int(a["warp.size"])
    if threads <= 0 or elements <= 0 or threads % warp:
        raise Error(f"threads ({threads}) must be a positive multiple of the warp size ({warp}), "
                    f"elements ({elements}) positive")
    byte_addr = _layout_accesses(_offsets(layout, threads, elements), warp, element_bytes)
    return _core.hash_search(a, _np.ascontiguousarray(byte_addr // 4, dtype=_np.int64), family,
                             heuristic)


class _Study:
    """Study results (``smemsim study run``'s folder) as pandas DataFrames."""

    @staticmethod
    def load(folder):
        """The study's points.csv as a DataFrame (one row per point and row; docs/studies.md)."""
        import os

        import pandas as pd

        if not os.fspath(folder):
            raise Error("study.load needs the study's folder (smemsim study run's OUT/NAME)")
        path = os.path.join(os.fspath(folder), "points.csv")
        if not os.path.isfile(path):
            raise Error(f"{folder}: no points.csv (is it the folder of smemsim study run?)")
        return pd.read_csv(path)


study = _Study()
