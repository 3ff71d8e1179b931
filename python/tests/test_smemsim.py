"""The Python module against the CLI and against hand-derived numbers (issue 30).

Run by CTest (python_module) with PYTHONPATH at the build's python/ folder and SMEMSIM_CLI the
built smemsim binary.
"""
import json
import os
import subprocess

import numpy as np
import pytest

import smemsim

CLI = os.environ.get("SMEMSIM_CLI", "smemsim")
CLI = os.path.abspath(CLI) if os.sep in CLI else CLI


def cli_json(*args):
    out = subprocess.run([CLI, *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_arch_presets_keys_and_overrides():
    assert "volta-v100" in smemsim.presets()
    a = smemsim.arch("volta-v100", **{"memory.banks": 16})
    assert a["memory.banks"] == 16
    assert a.derived == "memory.banks=16"
    assert smemsim.arch("volta-v100")["memory.banks"] == 32
    keys = {k[0]: k for k in smemsim.arch_keys()}
    assert "atomics.locks" in keys and keys["atomics.locks"][1]  # described


def test_a_bad_arch_key_is_a_python_exception():
    with pytest.raises(smemsim.Error, match="^arch: unknown key 'memory.bankz'"):
        smemsim.arch("volta-v100", **{"memory.bankz": 3})
    with pytest.raises(smemsim.Error, match="memory.banks"):
        smemsim.arch("volta-v100", **{"memory.banks": 0})
    with pytest.raises(ValueError):  # smemsim.Error is a ValueError
        smemsim.arch("no-such-gpu")


# Lane t of a warp reads column e of a 32 x 32 float tile stored row-major (offset 32 t + e): all 32
# lanes fall in bank e (32 banks of 4 bytes), a 32-way conflict on every element; padded to 33
# floats a row, lane t is in bank (33 t + e) % 32 = (t + e) % 32: no conflict.
def test_transposed_tile_and_its_padding():
    tile = smemsim.layout_conflicts(lambda t, e: 32 * t + e, 32, 32, arch="volta-v100")
    assert list(tile["bank_degree"]) == [32] * 32
    assert tile["bank_conflicts"].sum() == 32 * 31
    padded = smemsim.layout_conflicts(lambda t, e: 33 * t + e, 32, 32, arch="volta-v100")
    assert list(padded["bank_degree"]) == [1] * 32
    assert padded["bank_conflicts"].sum() == 0
    # The same layouts as index arrays.
    t, e = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    as_array = smemsim.layout_conflicts(32 * t + e, 32, 32, arch="volta-v100")
    assert (as_array["bank_degree"] == tile["bank_degree"]).all()


@pytest.mark.parametrize("arch,op", [("volta-v100", "ld"), ("fermi-gtx580", "atom"),
                                     ("kepler-k20", "st")])
def test_the_same_numbers_as_smemsim_analyze(arch, op):
    rng = np.random.default_rng(7)
    patterns = [
        [32 * t for t in range(32)],                   # one bank
        [33 * t for t in range(32)],                   # padded
        [0, 1024] + list(range(2, 32)),                # seed 001's long conflict
        list(rng.integers(0, 4096, 32)),              # random
        [5 * t if t % 3 else -1 for t in range(32)],   # inactive lanes
    ]
    got = smemsim.conflicts(np.array(patterns), arch=arch, unit="word", op=op)
    for i, p in enumerate(patterns):
        text = ",".join("-" if w < 0 else str(w) for w in p)
        want = cli_json("analyze", f"--pattern={text}", "--arch", arch, "--op", op)
        assert got["bank_degree"][i] == want["bank_degree"], (i, p)
        assert got["position_degree"][i] == want["position_degree"], (i, p)
        assert got["lock_degree"][i] == want["lock_degree"], (i, p)
        assert got["bank_conflicts"][i] == want["bank_conflicts"], (i, p)
        assert got["latency"][i] == want["latency_cycles"], (i, p)


def test_byte_addresses_are_words_of_four():
    words = smemsim.conflicts(np.arange(32) * 32, arch="volta-v100", unit="word")
    byte = smemsim.conflicts(np.arange(32) * 128, arch="volta-v100")
    assert words["bank_degree"][0] == byte["bank_degree"][0] == 32


def test_bad_arrays_and_layouts_raise():
    with pytest.raises(smemsim.Error, match="integers, not float64"):
        smemsim.conflicts(np.zeros((2, 32)), arch="volta-v100")
    with pytest.raises(smemsim.Error, match="not 3-D"):
        smemsim.conflicts(np.zeros((2, 2, 32), dtype=np.int64), arch="volta-v100")
    with pytest.raises(smemsim.Error, match="33 lanes per access"):
        smemsim.conflicts(np.zeros((1, 33), dtype=np.int64), arch="volta-v100")
    with pytest.raises(smemsim.Error, match="access 1, lane 0: word 24576 is outside"):
        smemsim.conflicts(np.array([[0] * 32, [24576] * 32]), arch="volta-v100", unit="word")
    with pytest.raises(smemsim.Error, match="not ld, st or atom"):
        smemsim.conflicts(np.zeros((1, 32), dtype=np.int64), op="load")
    with pytest.raises(smemsim.Error, match="shape is \\(32, 16\\)"):
        smemsim.layout_conflicts(np.zeros((32, 16), dtype=np.int64), 32, 32)
    with pytest.raises(smemsim.Error, match="layout\\(0, 0\\) returned 1.5"):
        smemsim.layout_conflicts(lambda t, e: 1.5, 32, 32)
    with pytest.raises(smemsim.Error, match="layout\\(0, 0\\) = 100000000000000000000 is outside"):
        smemsim.layout_conflicts(lambda t, e: 10**20, 32, 32)
    with pytest.raises(smemsim.Error, match="needs the study's folder"):
        smemsim.study.load("")

    def raises(t, e):
        raise RuntimeError("the layout's own error")

    with pytest.raises(RuntimeError, match="the layout's own error"):
        smemsim.layout_conflicts(raises, 32, 32)


def test_a_study_folder_loads_as_a_dataframe(tmp_path):
    subprocess.run([CLI, "study", "run", "random-patterns", "--quick", "--set", "patterns=200",
                    "--out", str(tmp_path)], check=True, capture_output=True)
    folder = tmp_path / "random-patterns"
    df = smemsim.study.load(folder)
    with open(folder / "points.csv") as f:
        header = f.readline().strip().split(",")
    assert list(df.columns) == header
    assert len(df) == 8 and list(df["size"]) == [32, 64, 128, 256, 512, 1024, 2048, 4096]
    with pytest.raises(smemsim.Error, match="no points.csv"):
        smemsim.study.load(tmp_path)


# The swizzle the search finds for the transposed tile removes every conflict, checked two ways:
# as the arch's bank hash, and applied to the layout's offsets in software (the CUDA function it
# emits, i ^ ((i >> 5) & 31) for this one) under the plain modulo banks.
def test_the_swizzle_found_for_a_transposed_tile_removes_every_conflict():
    column = lambda t, e: 32 * t + e  # noqa: E731
    found = smemsim.hash_search(column, 32, 32, arch="volta-v100")
    assert found["baseline_conflicts"] == 32 * 31
    assert found["conflicts"] == 0 and found["bijective"]
    assert "__device__" in found["cuda"] and "cute::Swizzle" in found["cute"]
    hashed = smemsim.arch("volta-v100", **{"memory.bank_hash": found["spec"]})
    assert smemsim.layout_conflicts(column, 32, 32, arch=hashed)["bank_conflicts"].sum() == 0
    t, e = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    o = 32 * t + e
    swizzled = o ^ ((o >> 5) & 31)
    assert found["spec"] == "bvxor:k1=0,k2=5,mask=31"
    assert smemsim.layout_conflicts(swizzled, 32, 32, arch="volta-v100")["bank_conflicts"].sum() == 0
    with pytest.raises(smemsim.Error):
        smemsim.hash_search(column, 32, 32, family="nonsense")


# Per-lane degrees, derived by hand: lanes 0 and 1 of [0, 32, 2..31] share bank 0 with two words (2
# each), every other lane is alone in its bank (1); lane t of 2t shares bank 2t % 32 with lane
# t + 16 (2 each); an inactive lane is 0. The largest lane degree is the access's bank degree.
def test_per_lane_degrees():
    rows = np.array([[0, 32] + list(range(2, 32)), [2 * t for t in range(32)],
                     [-1] + [33 * t for t in range(1, 32)]])
    r = smemsim.conflicts(rows, arch="volta-v100", unit="word", per_lane=True)
    lane = r["lane_bank_degree"]
    assert lane.shape == (3, 32)
    assert list(lane[0]) == [2, 2] + [1] * 30
    assert list(lane[1]) == [2] * 32
    assert list(lane[2]) == [0] + [1] * 31
    assert (lane.max(axis=1) == r["bank_degree"]).all()


# --- run, profile and sim in-process (the CLI's commands, embedded) ---

PTX = os.path.join(os.path.dirname(__file__), "..", "..", "kernels", "ptx", "transpose.ptx")
W, H = 64, 32  # transpose_naive: grid (W / 16, H / 16) of 16 x 16 threads; odata[x H + y] = idata[y W + x]


def without_wall_times(doc):
    doc = json.loads(json.dumps(doc))
    for part in (doc.get("stats", {}), doc.get("timing", {})):
        part.pop("seconds", None)
    return doc


def transposed(a):
    return a.reshape(H, W).T.ravel()


def test_a_builtin_run_and_sim_give_the_clis_documents():
    for name, args in [("run", {"variant": "naive", "width": W, "height": H}),
                       ("sim", {"size": 2048})]:
        target = "builtin:transpose" if name == "run" else "builtin:reduction"
        got = getattr(smemsim, name)(target, arch="volta-v100", **args)
        buffers = got.pop("buffers")
        flags = [x for k, v in args.items() for x in (f"--{k}", str(v))]
        want = cli_json(name, target, "--arch", "volta-v100", *flags)
        assert without_wall_times(got) == without_wall_times(want)
        assert got["reference"]["matches"]
    # The builtin's output array is the transpose of its input array (checked here with NumPy,
    # not by the driver's own reference).
    r = smemsim.run("builtin:transpose", variant="padded", width=W, height=H)
    assert (r["buffers"]["odata"] == transposed(r["buffers"]["idata"])).all()


def test_sim_threads_give_the_same_document():
    # 256 CTAs on hopper-h100's 132 SMs: most cycles tick the SMs on both threads.
    one = smemsim.sim("builtin:reduction", arch="hopper-h100", size=65536, threads=1)
    two = smemsim.sim("builtin:reduction", arch="hopper-h100", size=65536, threads=2)
    for d in (one, two):
        d.pop("buffers")
    assert without_wall_times(one) == without_wall_times(two)
    assert one["timing"]["cycles"] > 0


def test_sim_warm_l2_starts_the_inputs_in_the_l2():
    # conv's tile loads are L2 hits instead of DRAM misses: fewer cycles, the same outputs; the
    # L2 holds the sectors a cold run had to fetch (docs/timing.md "Caches").
    cold = smemsim.sim("builtin:conv", arch="hopper-h100", threads=1)
    warm = smemsim.sim("builtin:conv", arch="hopper-h100", threads=1, warm_l2=True)
    assert warm["timing"]["cycles"] < cold["timing"]["cycles"]
    assert warm["timing"]["units"]["l2_hit_sectors"] > cold["timing"]["units"]["l2_hit_sectors"]
    for name, b in cold["buffers"].items():
        assert (warm["buffers"][name] == b).all()


def test_a_ptx_kernels_buffers_from_and_to_numpy_equal_the_clis(tmp_path):
    spec = tmp_path / "t.toml"
    spec.write_text(f"""kernel = "transpose_naive"
grid = [{W // 16}, {H // 16}]
block = [16, 16]
args = ["odata", "idata", {W}, {H}]
[buffers.odata]
type = "f32"
count = {W * H}
write = "{tmp_path / 'out.bin'}"
[buffers.idata]
type = "f32"
count = {W * H}
init = "random"
seed = 5
""")
    subprocess.run([CLI, "run", PTX, "--launch", str(spec)], check=True, capture_output=True,
                   cwd=tmp_path)
    cli_out = np.fromfile(tmp_path / "out.bin", dtype=np.float32)
    from_file = smemsim.run(PTX, launch=spec)
    assert (from_file["buffers"]["odata"] == cli_out).all()
    # The same launch as a dict, its input from NumPy (declared from the array), the output read
    # back: the transpose of the input.
    x = np.random.default_rng(3).standard_normal(W * H).astype(np.float32)
    r = smemsim.run(PTX, launch={"kernel": "transpose_naive", "grid": [W // 16, H // 16],
                                 "block": [16, 16], "args": ["odata", "idata", W, H],
                                 "buffers": {"odata": {"type": "f32", "count": W * H}}},
                    buffers={"idata": x})
    assert (r["buffers"]["odata"] == transposed(x)).all()
    assert (r["buffers"]["idata"] == x).all()
    assert r["kernel"] == "transpose_naive" and r["grid"] == [W // 16, H // 16, 1]
    # profile and sim take the same launch: the naive kernel's 16-word-stride reads of the tile are
    # 8-way conflicts on 32 banks (seed 002 §3.2.2, kernels/transpose.cu's header).
    p = smemsim.profile(PTX, launch=spec, arch="volta-v100")
    assert p["totals"]["bank_degree_max"] == 8
    s = smemsim.sim(PTX, launch=spec, arch="volta-v100")
    assert s["timing"]["cycles"] > 0 and (s["buffers"]["odata"] == cli_out).all()


def test_bad_launches_raise_the_clis_messages(tmp_path):
    launch = {"kernel": "transpose_naive", "grid": [4, 2], "block": [16, 16],
              "args": ["odata", "idata", W, H],
              "buffers": {"odata": {"type": "f32", "count": W * H},
                          "idata": {"type": "f32", "count": W * H}}}
    with pytest.raises(smemsim.Error, match=r"buffers\['idata'\]: the launch spec makes it f32; "
                                            r"the array is int32"):
        smemsim.run(PTX, launch=launch, buffers={"idata": np.zeros(W * H, dtype=np.int32)})
    with pytest.raises(smemsim.Error, match=r"gives it 2048 elements; the array has 10"):
        smemsim.run(PTX, launch=launch, buffers={"idata": np.zeros(10, dtype=np.float32)})
    with pytest.raises(smemsim.Error, match=r"dtype complex128 is no buffer type"):
        smemsim.run(PTX, launch=launch, buffers={"idata": np.zeros(W * H, dtype=complex)})
    with pytest.raises(smemsim.Error, match="makes its own inputs"):
        smemsim.run("builtin:transpose", buffers={"idata": np.zeros(4)})
    # A TOML file's spec declares its buffers; an array for another is an error naming them.
    spec = tmp_path / "spec.toml"
    spec.write_text(smemsim.launch_toml(launch))
    with pytest.raises(smemsim.Error, match=r"the launch has no buffer 'nope' \(its buffers: "
                                            r"idata, odata\)"):
        smemsim.run(PTX, launch=spec, buffers={"nope": np.zeros(4, dtype=np.float32)})
    bad = dict(launch, args=["odata", "idata", W])
    with pytest.raises(smemsim.Error, match=r"takes 4 parameters, the launch gives 3"):
        smemsim.run(PTX, launch=bad)
    # A spec's error names the line of launch_toml's text.
    odd = dict(launch, buffers=dict(launch["buffers"], odata={"type": "f32", "colour": 1}))
    with pytest.raises(smemsim.Error, match=r"^launch dict:\d+: .*colour"):
        smemsim.run(PTX, launch=odd)
    with pytest.raises(smemsim.Error, match="unknown option '--nosuch' for smemsim run"):
        smemsim.run(PTX, launch=launch, nosuch=1)
    with pytest.raises(smemsim.Error, match="--bins does not apply to builtin:transpose"):
        smemsim.run("builtin:transpose", bins=4)
    with pytest.raises(smemsim.Error, match="no-such.ptx"):
        smemsim.run(str(tmp_path / "no-such.ptx"), launch=launch)
    with pytest.raises(smemsim.Error, match="launch: a dict or a TOML file's path"):
        smemsim.run(PTX, launch=42)
    with pytest.raises(smemsim.Error, match=r"launch: buffers.idata.init is a set"):
        smemsim.run(PTX, launch=dict(launch, buffers={"idata": {"init": {1}}}))


def test_launch_toml_writes_tables_inline_tables_and_launches():
    text = smemsim.launch_toml({"grid": [2, 1], "args": [{"fields": [{"type": "s32", "value": 1}]},
                                                         0.5, "a b"],
                                "buffers": {"a": {"type": "f16", "count": 4}},
                                "launch": [{"kernel": "k", "block": 32}, {"kernel": "m"}]})
    assert text == ('grid = [2, 1]\n'
                    'args = [{ fields = [{ type = "s32", value = 1 }] }, 0.5, "a b"]\n'
                    '[buffers.a]\ntype = "f16"\ncount = 4\n'
                    '[[launch]]\nkernel = "k"\nblock = 32\n[[launch]]\nkernel = "m"\n')


# A note the CLI prints on stderr is a smemsim.Note warning: convolution's filter taps are a
# __constant__ array that this launch never sets (they read zeros, so the output is all zero).
def test_a_note_is_a_warning():
    conv = os.path.join(os.path.dirname(PTX), "convolution.ptx")
    n = 256 * 64
    with pytest.warns(smemsim.Note, match="__constant__ 'c_filter'.* it reads zeros"):
        r = smemsim.run(conv, kernel="conv_rows", grid=(2, 16), block=(16, 4),
                        launch={"args": ["out", "in", 256, 64, 0, 0]},
                        buffers={"out": np.ones(n, dtype=np.float32),
                                 "in": np.ones(n, dtype=np.float32)})
    assert not r["buffers"]["out"].any()


# docs/python.md's examples run as written, in order, in one namespace, from a folder with the
# kernel suite and a swept study where the page expects them. The block that plots needs
# matplotlib and is skipped without it (the rest still run).
def test_the_docs_examples_run(tmp_path, monkeypatch):
    import importlib.util
    import re

    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "docs", "python.md")) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert len(blocks) >= 7
    os.symlink(os.path.abspath(os.path.join(root, "kernels")), tmp_path / "kernels")
    subprocess.run([CLI, "study", "run", "random-patterns", "--quick", "--no-plots", "--sweep",
                    "atomics.locks=256,1024", "--out", str(tmp_path / "out")], check=True,
                   capture_output=True)
    monkeypatch.chdir(tmp_path)
    ns = {}
    plotting = importlib.util.find_spec("matplotlib") is not None
    for block in blocks:
        if "matplotlib" in block and not plotting:
            block = block[:block.index("import matplotlib")]
        exec(compile(block, "docs/python.md", "exec"), ns)
    assert (ns["r"]["buffers"]["odata"] == ns["x"].reshape(32, 64).T.ravel()).all()
    assert ns["p"]["totals"]["bank_degree_max"] == 8
    assert list(ns["curves"].columns) == [256, 1024]
    if plotting:
        assert (tmp_path / "locks.png").stat().st_size > 10_000


DEBUGGING = os.path.join(os.path.dirname(__file__), "..", "..", "kernels", "ptx", "debugging.ptx")


def test_printf_output_and_races_are_in_the_document():
    # kernels/debugging.cu: printf_misc prints "no arguments\n" (thread 0) and "shared memory
    # [    42]\n" (thread 1: "%s memory [%*d]" with "shared", 6, 42); race_raw's warp 1 reads the
    # slot warp 0 writes with no barrier between: one read-after-write hazard, in each block.
    r = smemsim.run(DEBUGGING, launch={"kernel": "printf_misc", "grid": 1, "block": 2,
                                       "args": ["out"],
                                       "buffers": {"out": {"type": "s32", "count": 2}}})
    assert r["printf"]["output"] == "no arguments\nshared memory [    42]\n"
    assert r["buffers"]["out"].tolist() == [0, 3]
    h = smemsim.racecheck(DEBUGGING, launch={"kernel": "race_raw", "grid": 2, "block": 64,
                                             "args": ["out"],
                                             "buffers": {"out": {"type": "f32", "count": 32}}})
    assert [x["kind"] for x in h["racecheck"]["hazards"]] == ["read after write"]
    assert h["racecheck"]["hazards"][0]["blocks"] == 2
    with pytest.raises(smemsim.Error, match=r"Assertion `a\[t\] >= 0` failed"):
        smemsim.run(DEBUGGING, launch={"kernel": "assert_positive", "grid": 1, "block": 4,
                                       "args": ["a", "out"],
                                       "buffers": {"a": {"type": "s32", "count": 4, "init": "values",
                                                         "values": [1, -1, 2, 3]},
                                                   "out": {"type": "s32", "count": 4}}})


COUNT_FOREVER = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "examples",
                             "count_forever.ptx")


@pytest.mark.parametrize("command", ["run", "sim"])
def test_ctrl_c_stops_a_run_with_keyboard_interrupt(command):
    """Issue 48: Ctrl-C was ignored until the run ended (at the step limit). A child interpreter
    runs a kernel that counts forever and sends itself SIGINT after 0.5 s: it must end in
    KeyboardInterrupt, not in the step or cycle limit's smemsim.Error (which is what ignoring the
    signal gives: the run would go on to 2^27 instructions or 10^8 cycles and fail so)."""
    ptx = os.path.abspath(COUNT_FOREVER)
    child = f"""
import os, signal, threading, time
import smemsim
threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    smemsim.{command}({str(ptx)!r}, launch={{"args": ["out"],
                      "buffers": {{"out": {{"type": "u64", "count": 1}}}}}}, grid=1, block=32)
    print("finished")
except KeyboardInterrupt:
    print("interrupted")
except smemsim.Error as e:
    print("error:", e)
"""
    out = subprocess.run([os.sys.executable, "-c", child], capture_output=True, text=True,
                         timeout=600)
    assert out.stdout.strip() == "interrupted", out.stdout + out.stderr


# scale(float* x, int n): x[i] *= 2 for i < n (its mangled name carries the C++ signature).
SCALE_PTX = """.version 7.0
.target sm_75
.address_size 64

.visible .entry _Z5scalePfi(.param .u64 x, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [x];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.s32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [%rd3];
  add.f32 %f2, %f1, %f1;
  st.global.f32 [%rd3], %f2;
DONE:
  ret;
}
"""


def test_arrays_are_checked_against_the_kernels_signature(tmp_path):
    """Issue 48: NumPy's default float64 given for a `float*` made an f64 buffer the kernel read as
    floats, and garbage came back without a word. A buffer typed from its array is checked against
    the pointer parameter of the mangled name; a declared type is the user's choice."""
    ptx = tmp_path / "scale.ptx"
    ptx.write_text(SCALE_PTX)
    spec = {"grid": 1, "block": 64, "args": ["x", 64]}
    with pytest.raises(smemsim.Error, match=r"buffers\['x'\]: a float64 array for parameter 1 "
                       r"\(float\*\) of scale\(float\*, int\): give it as x.astype\(np.float32\)"):
        smemsim.run(ptx, launch=spec, buffers={"x": np.ones(64)})
    r = smemsim.run(ptx, launch=spec, buffers={"x": np.arange(64, dtype=np.float32)})
    np.testing.assert_array_equal(r["buffers"]["x"], 2 * np.arange(64, dtype=np.float32))
    r["buffers"]["x"][0] = 7  # the result owns its memory and can be written
    declared = dict(spec, buffers={"x": {"type": "f64"}})
    smemsim.run(ptx, launch=declared, buffers={"x": np.ones(64)})  # declared: runs


def test_arguments_that_would_give_a_wrong_result_are_errors(tmp_path):
    """Issue 48, item 10: each of these returned a result (0 conflicts, a truncated launch, a
    dropped override) or a TypeError/ValueError/RecursionError from inside the module."""
    row = lambda t, e: t * 32 + e  # noqa: E731  a 32-way conflict: 31 x 32 = 992 in all
    assert smemsim.layout_conflicts(row)["bank_conflicts"].sum() == 992
    for eb in (0, -4):
        with pytest.raises(smemsim.Error, match=f"element_bytes: {eb} is less than 1"):
            smemsim.layout_conflicts(row, element_bytes=eb)
        with pytest.raises(smemsim.Error, match="element_bytes"):
            smemsim.hash_search(row, element_bytes=eb)
    with pytest.raises(smemsim.Error, match="threads: 32.9 is not an integer"):
        smemsim.layout_conflicts(row, threads=32.9)
    ptx = tmp_path / "scale.ptx"
    ptx.write_text(SCALE_PTX)
    spec = {"args": ["x", 64], "buffers": {"x": {"type": "f32", "count": 64}}}
    with pytest.raises(smemsim.Error, match=r"grid\[0\]: 4.9 is not an integer"):
        smemsim.run(ptx, launch=spec, grid=(4.9, 2.2), block=32)
    with pytest.raises(smemsim.Error, match="the target is a PTX file's path"):
        smemsim.run(None)
    with pytest.raises(smemsim.Error, match="buffers: a dict"):
        smemsim.run(ptx, launch=spec, buffers=[np.zeros(64)], grid=1, block=64)
    deep = cur = {}
    for _ in range(5000):
        cur["a"] = {}
        cur = cur["a"]
    with pytest.raises(smemsim.Error, match="nests more than 32 tables deep"):
        smemsim.run(ptx, launch=deep)
    with pytest.raises(smemsim.Error, match="op: 'ld', 'st' or 'atom', not None"):
        smemsim.conflicts(np.arange(32), op=None)
    with pytest.raises(smemsim.Error, match="per_lane: True or False"):
        smemsim.conflicts(np.arange(32), per_lane=1)
    # Overrides compose: the inner arch's keep theirs.
    a = smemsim.arch(smemsim.arch("volta-v100", **{"memory.banks": 16}),
                     **{"memory.bank_hash": "xor"})
    assert a["memory.banks"] == 16 and a["memory.bank_hash"] == "xor"
    assert a.derived == "memory.banks=16, memory.bank_hash=xor"
    # A binary points.csv.
    (tmp_path / "points.csv").write_bytes(b"\xff\xfe\x00point\x00,\x80\x81\n\x00\x01")
    with pytest.raises(smemsim.Error, match="not a study's points.csv"):
        smemsim.study.load(tmp_path)


def test_the_type_stubs_declare_every_public_name():
    """Issue 47: the package ships __init__.pyi and _core.pyi; a name added to __all__ or to the
    compiled core without a stub would be invisible to mypy and editors."""
    import ast
    import inspect

    folder = os.path.dirname(smemsim.__file__)
    declared = set()
    for node in ast.walk(ast.parse(open(os.path.join(folder, "__init__.pyi")).read())):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            declared.update(a.asname or a.name for a in node.names)
    assert set(smemsim.__all__) <= declared, set(smemsim.__all__) - declared
    core = ast.parse(open(os.path.join(folder, "_core.pyi")).read())
    core_declared = {n.name for n in core.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    public = {n for n, v in vars(smemsim._core).items()
              if not n.startswith("_") and (callable(v) or inspect.isclass(v))}
    assert public <= core_declared, public - core_declared
    assert os.path.isfile(os.path.join(folder, "py.typed"))


def test_byte_addresses_are_not_copied():
    """Issue 48: conflicts() on byte addresses made two int64 copies of the array (a // 4 and the
    np.where result), so 3 M accesses (768 MB) peaked at 2.4 GB. The core divides by 4 as it
    reads. Bound by bytes, not time: 100,000 accesses x 32 lanes of int64 are 25.6 MB; the
    results are six arrays of 100,000 (four int32, two int64: 3.2 MB). Traced NumPy allocations
    during the call stay under 8 MB (one copy alone would be 25.6 MB), and the answer is the
    word path's."""
    import tracemalloc

    w = np.random.default_rng(3).integers(-8, 4 * 4096, size=(100_000, 32)).astype(np.int64)
    tracemalloc.start()
    tracemalloc.reset_peak()
    r = smemsim.conflicts(w, "volta-v100")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 8_000_000, peak
    words = smemsim.conflicts(np.where(w >= 0, w // 4, -1), "volta-v100", unit="word")
    for k in r:
        assert (r[k] == words[k]).all(), k
