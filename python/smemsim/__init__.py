"""smemsim from Python (issue 30; docs/python.md).

Arch presets and keys, the bank, position and lock conflicts and the latency of warp accesses
given as NumPy arrays (the numbers of ``smemsim analyze``), the conflicts of a shared-memory layout
function, kernels run, profiled and simulated with their buffers as NumPy arrays (``smemsim run``,
``profile`` and ``sim`` in-process), and study results as pandas DataFrames. Bad input raises :class:`smemsim.Error`, a
``ValueError`` carrying the CLI's one-line message.
"""
import json as _json
import math as _math
import os as _os
import warnings as _warnings

import numpy as _np

from . import _core
from ._core import Arch, Error, arch_keys, presets

__all__ = ["Arch", "Error", "Note", "arch", "arch_keys", "presets", "conflicts",
           "layout_conflicts", "hash_search", "run", "profile", "sim", "racecheck", "launch_toml",
           "study"]


def _integer(what, v, least=None):
    """``v`` as an int: an int or NumPy integer only (issue 48: ``threads=32.9`` ran as 32 and
    ``grid=(4.9, 2.2)`` as (4, 2), without a word); ``least``: its smallest allowed value."""
    if isinstance(v, bool) or not isinstance(v, (int, _np.integer)):
        raise Error(f"{what}: {v!r} is not an integer")
    if least is not None and v < least:
        raise Error(f"{what}: {int(v)} is less than {least}")
    return int(v)


def _changes(a):
    """The keys of an Arch that differ from its preset's, {key: value}."""
    base = _core.arch(a.name, {}).keys
    return {k: v for k, v in a.keys.items() if base.get(k) != v}


def arch(name="ampere-a100", **overrides):
    """A preset (``smemsim arch list``) with ``key=value`` overrides, keys as in the arch TOML.

    Keys have dots, so give them as a dict: ``smemsim.arch("volta-v100", **{"memory.banks": 64})``.
    Given an :class:`Arch`, the overrides apply on top of its own: ``arch(arch("v100", **a), **b)``
    keeps ``a``.
    """
    if isinstance(name, Arch):
        if not overrides:
            return name
        return _core.arch(name.name, {**_changes(name), **overrides})
    if not isinstance(name, str):
        raise Error(f"arch: a preset's name (smemsim.presets()) or an Arch, not a "
                    f"{type(name).__name__}")
    return _core.arch(name, overrides)


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
    if not isinstance(op, str):
        raise Error(f"op: 'ld', 'st' or 'atom', not {op!r}")
    if not isinstance(per_lane, (bool, _np.bool_)):
        raise Error(f"per_lane: True or False, not {per_lane!r}")
    a = _np.asarray(addresses)
    if a.dtype.kind not in "iu":
        raise Error(f"addresses must be integers, not {a.dtype} (a NumPy integer array)")
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise Error(f"addresses must be 1-D (one access) or 2-D (accesses x lanes), not {a.ndim}-D")
    if a.dtype.kind == "u" and a.size and a.max() >= 2**62:
        raise Error(f"address {int(a.max())} is outside any shared memory")
    if unit not in ("byte", "word"):
        raise Error(f"unit '{unit}' is not byte or word")
    # Bytes are divided into words in the core, not here: an int64 array is passed without a copy
    # (issue 48: 3 M accesses, 768 MB, peaked at 2.4 GB through two NumPy copies).
    return _core.conflicts(_as_arch(arch), _np.ascontiguousarray(a, dtype=_np.int64), op,
                           bool(per_lane), unit)


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
    threads, elements = _integer("threads", threads, 1), _integer("elements", elements, 1)
    element_bytes = _integer("element_bytes", element_bytes, 1)
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
    ``cute_reason``), and the other fields of ``smemsim hash search --json`` (docs/json.md).
    """
    threads, elements = _integer("threads", threads, 1), _integer("elements", elements, 1)
    element_bytes = _integer("element_bytes", element_bytes, 1)
    a = arch if isinstance(arch, Arch) else globals()["arch"](arch)
    warp = int(a["warp.size"])
    if threads % warp:
        raise Error(f"threads ({threads}) must be a positive multiple of the warp size ({warp}), "
                    f"elements ({elements}) positive")
    byte_addr = _layout_accesses(_offsets(layout, threads, elements), warp, element_bytes)
    return _core.hash_search(a, _np.ascontiguousarray(byte_addr // 4, dtype=_np.int64), family,
                             heuristic)


class Note(UserWarning):
    """What the CLI prints as ``smemsim: note: ...`` on stderr (a constant that reads zeros, ...)."""


def _toml_value(v, where):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, _np.integer)):
        return str(int(v))
    if isinstance(v, (float, _np.floating)):
        f = float(v)
        if _math.isnan(f):
            return "nan"
        if _math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return repr(f)
    if isinstance(v, (str, _os.PathLike)):
        return _json.dumps(_os.fspath(v))  # a JSON string is a TOML basic string
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k, where)} = {_toml_value(x, f'{where}.{k}')}"
                                for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple, _np.ndarray)):
        return "[" + ", ".join(_toml_value(x, f"{where}[{i}]") for i, x in enumerate(v)) + "]"
    raise Error(f"launch: {where} is a {type(v).__name__}; a launch spec holds numbers, strings, "
                "booleans, lists and dicts")


def _toml_key(k, where):
    if not isinstance(k, str):
        raise Error(f"launch: key {k!r} in {where or 'the spec'} is not a string")
    bare = k and all(c.isalnum() or c in "_-" for c in k) and k.isascii()
    return k if bare else _json.dumps(k)


def launch_toml(spec):
    """A launch spec given as a dict, as the TOML text ``smemsim run --launch`` reads (docs/exec.md).

    Dicts at the top level and under them are tables (``{"buffers": {"a": {...}}}`` is
    ``[buffers.a]``), a list of dicts under ``launch`` is ``[[launch]]`` tables; dicts inside lists
    (a struct argument's ``fields``) are inline tables. The line numbers of an error about a dict
    spec are this text's.
    """
    if not isinstance(spec, dict):
        raise Error(f"launch: a dict or a TOML file's path, not a {type(spec).__name__}")
    lines = []

    def table(d, path):
        if len(path) > 32:  # a spec is a few levels deep; a runaway one would overflow the stack
            raise Error(f"launch: {'.'.join(path[:3])}... nests more than 32 tables deep")
        subs = []
        for k, v in d.items():
            key = _toml_key(k, ".".join(path))
            if isinstance(v, dict):
                subs.append((path + [key], v))
            elif not path and k == "launch" and isinstance(v, (list, tuple)) and v and all(
                    isinstance(x, dict) for x in v):
                subs.extend((["[launch]"], x) for x in v)
            else:
                lines.append(f"{key} = {_toml_value(v, '.'.join(path + [str(k)]))}")
        for p, v in subs:
            scalars = any(not isinstance(x, dict) for x in v.values())
            if p == ["[launch]"]:
                lines.append("[[launch]]")
            elif scalars or not v:
                lines.append(f"[{'.'.join(p)}]")
            table(v, p if p != ["[launch]"] else [])
        return lines

    return "\n".join(table(spec, [])) + "\n"


_BUFFER_TYPES = {"uint8": "u8", "int8": "s8", "uint16": "u16", "int16": "s16", "uint32": "u32",
                 "int32": "s32", "uint64": "u64", "int64": "s64", "float16": "f16",
                 "float32": "f32", "float64": "f64"}


def _flag(key, value):
    """``grid=(8, 8)`` as ``["--grid", "8,8"]``, ``timing=True`` as ``["--timing"]``."""
    flag = "--" + key.replace("_", "-")
    if value is None or value is False:
        return []
    if value is True:
        return [flag]
    if isinstance(value, (list, tuple)):
        return [flag, ",".join(str(_integer(f"{key}[{i}]", x)) for i, x in enumerate(value))]
    return [flag, str(value)]  # the command checks it as its own option (--block: '32.9' is ...)


def _command(name, target, launch, buffers, arch, options):
    if not isinstance(target, (str, _os.PathLike)):
        raise Error(f"{name}: the target is a PTX file's path or 'builtin:NAME', not a "
                    f"{type(target).__name__}")
    target = _os.fspath(target)
    args = [name, target, "--json"]
    spec_text = ""
    if buffers is not None and not isinstance(buffers, dict):
        raise Error(f"buffers: a dict {{name: array}}, not a {type(buffers).__name__}")
    buffers = dict(buffers or {})
    for bname in buffers:
        if not isinstance(bname, str):
            raise Error(f"buffers: the key {bname!r} is not a buffer's name")
    inferred = []
    if buffers and target.startswith("builtin:"):
        raise Error(f"buffers: {target} makes its own inputs (its options set them); arrays go to a "
                    "PTX file's launch")
    if isinstance(launch, dict):
        spec = dict(launch)
        declared = dict(spec.get("buffers") or {})
        for bname, arr in buffers.items():
            a = _np.asarray(arr)
            entry = dict(declared.get(bname) or {})
            if "type" not in entry and a.dtype.name in _BUFFER_TYPES:
                entry["type"] = _BUFFER_TYPES[a.dtype.name]
                inferred.append(bname)  # checked against the kernel's C++ signature
            entry.setdefault("count", int(a.size))
            declared[bname] = entry
        if declared:
            spec["buffers"] = declared
        spec_text = launch_toml(spec)
        args += ["--launch", "launch dict"]
    elif launch is not None:
        if not isinstance(launch, (str, _os.PathLike)):
            raise Error(f"launch: a dict or a TOML file's path, not a {type(launch).__name__}")
        args += ["--launch", _os.fspath(launch)]
    if arch is not None:
        a = _as_arch(arch)
        args += ["--arch", a.name]
        for k, v in _changes(a).items():
            args += ["--set", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
    for k, v in options.items():
        if k in ("json", "help", "version"):
            raise Error(f"{k}: not an option of smemsim.{name} (its result is the --json document)")
        args += _flag(k, v)
    doc, notes, out = _core.command(args, spec_text, buffers, inferred)
    for n in notes:
        _warnings.warn(n, Note, stacklevel=3)
    result = _json.loads(doc)
    result["buffers"] = out
    return result


def run(target, launch=None, buffers=None, arch=None, **options):
    """``smemsim run`` in-process: a PTX file's kernel (or ``builtin:NAME``) on the SIMT executor.

    ``launch``: the launch spec as a dict (:func:`launch_toml`) or a TOML file's path.
    ``buffers``: ``{name: array}`` put into the launch's buffers before the run; with a dict spec a
    buffer it does not declare is declared from the array (its type and count). ``arch``: a preset
    name or an :func:`arch`; without it, the preset of the PTX's ``.target``. Other keywords are the
    command's options: ``kernel="k"``, ``grid=(8, 8)``, ``block=256``, a builtin's ``size=2048``,
    ``variant="padded"``, ``max_steps=...``.

    Returns ``smemsim run --json``'s document (docs/json.md) as a dict, with ``buffers``: every
    buffer after the run as a NumPy array (``bf16`` as its bits, ``uint16``). The GIL is released
    while the kernel runs.
    """
    return _command("run", target, launch, buffers, arch, options)


def profile(target, launch=None, buffers=None, arch=None, **options):
    """``smemsim profile`` in-process: :func:`run`, with the document's ``rows`` and
    ``cuda_lines`` (one per shared-memory instruction and per CUDA line: degrees, latency, hints)
    and ``totals``. ``timing=True`` runs the cycle-level model and adds ``timing``."""
    return _command("profile", target, launch, buffers, arch, options)


def sim(target, launch=None, buffers=None, arch=None, **options):
    """``smemsim sim`` in-process: :func:`run` on the cycle-level GPU model; the document's
    ``timing`` holds cycles, IPC, the issue-slot stalls (``issue_stalls``, by Nsight Compute's
    warp-state names: ``long_scoreboard``, ``short_scoreboard``, ``wait``, ...; the old names
    ``scoreboard``, ``memory``, ``issued``, ``control`` and ``dispatch`` repeat them as aliases
    for schema 1, so leave them out of a sum) and the units' counts. Options as the
    command's: ``pipeline``, ``scheduler``, ``barrel``, ``max_cycles``, ``regs``, ``timeline``,
    ``threads`` (the SMs tick on that many threads, default the cores; the document is the same
    for any count), ``warm_l2=True`` (the launch's buffers start in the L2, as a copy from the
    host just before the launch leaves them; default: every line starts in DRAM)."""
    return _command("sim", target, launch, buffers, arch, options)


def racecheck(target, launch=None, buffers=None, arch=None, **options):
    """``smemsim racecheck`` in-process: :func:`run`, checking shared memory for races between
    the warps of a block. The document's ``racecheck["hazards"]`` lists each hazard (kind, the two
    instructions with their CUDA lines, the array, counts); a hazard is not an exception."""
    return _command("racecheck", target, launch, buffers, arch, options)


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
        try:
            return pd.read_csv(path)
        except (UnicodeDecodeError, ValueError) as e:  # pandas' ParserError is a ValueError
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise Error(f"{path}: not a study's points.csv ({first[:80]})") from None


study = _Study()
