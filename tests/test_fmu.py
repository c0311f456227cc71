"""The exported FMU in real clients (issue 20): FMPy validates its model description (FMI 3.0
and 2.0), replays the recorded run of ``actuatorlab run arm-relief`` through it, co-simulates it
with the arm's mechanics on the Python side, rolls it back through FMU states, runs 100 instances
and 10⁶ steps (also from a C harness without Python), and gets an error status with a message,
never a crash, for bad parameters and non-physical states. Export errors are one line, and
nothing is written then."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

fmpy = pytest.importorskip("fmpy")
from fmpy import extract, read_model_description  # noqa: E402
from fmpy.fmi2 import FMU2Slave  # noqa: E402
from fmpy.fmi3 import FMU3Slave  # noqa: E402
from fmpy.validation import validate_fmu  # noqa: E402
from fmpy.fmi1 import FMICallException  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import actuatorlab  # noqa: E402
from actuatorlab.cli import app  # noqa: E402
from actuatorlab.errors import ScenarioError  # noqa: E402
from actuatorlab.fmu import ExportError  # noqa: E402
from actuatorlab.fmu.compiler import C_DIR  # noqa: E402
from actuatorlab.fmu.export import export_scenario  # noqa: E402
from actuatorlab.fmu.model_description import xml_text  # noqa: E402
from actuatorlab.hydraulics.quasistatic import Openings  # noqa: E402
from actuatorlab.hydraulics.quasistatic.relaxation import lam, relaxed_step  # noqa: E402
from fmu_checks import assert_one_line_refusal, assert_valid_hostile_fmu, export_limited  # noqa: E402

INPUTS = ("length", "valve_command", "bleed", "regeneration")


@pytest.fixture(scope="module")
def arm_relief():
    """The built-in scenario and its recorded run (the reference of the replay and co-simulation)."""
    scenario = actuatorlab.load("arm-relief")
    return scenario, scenario.run()


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fmus")
    return {v: actuatorlab.export_fmu("arm-relief", folder / f"arm-relief-{v}.fmu", fmi=v) for v in (3, 2)}


class Client:
    """One FMPy instance of an FMU with the FMI-version differences hidden: set/get by name."""

    def __init__(self, path: Path, name: str = "actuator", messages: list | None = None):
        self.md = read_model_description(str(path))
        self.version = int(self.md.fmiVersion[0])
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.messages = messages if messages is not None else []
        cls = FMU3Slave if self.version == 3 else FMU2Slave
        self.fmu = cls(
            guid=self.md.guid,
            unzipDirectory=extract(str(path)),
            modelIdentifier=self.md.coSimulation.modelIdentifier,
            instanceName=name,
        )
        if self.version == 3:
            self.fmu.instantiate(
                logMessage=lambda env, status, category, message: self.messages.append((status, message.decode()))
            )
        else:
            self.fmu.instantiate(callbacks=None)  # FMPy prints FMI 2.0 messages; statuses are checked below
        self.started = False

    def set(self, **values):
        names = list(values)
        vrs = [self.vr[n] for n in names]
        if self.version == 3:
            self.fmu.setFloat64(vrs, [values[n] for n in names])
        else:
            self.fmu.setReal(vrs, [values[n] for n in names])

    def get(self, *names):
        vrs = [self.vr[n] for n in names]
        return self.fmu.getFloat64(vrs) if self.version == 3 else self.fmu.getReal(vrs)

    def enter(self, t0: float = 0.0):
        if self.version == 3:
            self.fmu.enterInitializationMode(startTime=t0)
        else:
            self.fmu.setupExperiment(startTime=t0)
            self.fmu.enterInitializationMode()

    def start(self, t0: float = 0.0, **values):
        self.enter(t0)
        if values:
            self.set(**values)
        self.fmu.exitInitializationMode()

    def step(self, t: float, h: float):
        self.fmu.doStep(t, h)

    def free(self):
        self.fmu.freeInstance()


@pytest.mark.parametrize("version", [3, 2])
def test_fmpy_finds_nothing_wrong_and_every_port_has_a_unit(fmus, version):
    path = fmus[version]
    assert validate_fmu(str(path)) == []
    fmpy.dump(str(path))  # FMPy's reader of the whole description
    md = read_model_description(str(path), validate=True)
    units = {u.name: u for u in md.unitDefinitions}
    real = [v for v in md.modelVariables if v.type in ("Float64", "Real")]
    assert real and all(v.unit in units for v in real), [v.name for v in real if v.unit not in units]
    assert {"MPa", "bar"} <= {d.name for d in units["Pa"].displayUnits}
    assert [d.name for d in units["m3/s"].displayUnits] == ["L/min"]
    assert (units["Pa"].baseUnit.kg, units["Pa"].baseUnit.m, units["Pa"].baseUnit.s) == (1, -1, -2)
    byname = {v.name: v for v in md.modelVariables}
    assert byname["circuit.pump_relief_pressure"].displayUnit == "MPa"
    assert float(byname["circuit.pump_flow"].start) == pytest.approx(500 / 60000, rel=1e-15)
    assert {byname[n].causality for n in ("valve_command", "bleed", "regeneration", "length", "length_rate")} == {
        "input"
    }
    assert {
        byname[n].causality
        for n in (
            "force",
            "head_pressure",
            "rod_pressure",
            "pump_pressure",
            "supply_flow",
            "relief_flow",
            "rod_position",
        )
    } == {"output"}
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
    folder = "x86_64-linux" if version == 3 else "linux64"
    assert f"binaries/{folder}/arm_relief.so" in names and "sources/quasistatic.c" in names


def _replay(client: Client, table):
    t = table["t"].to_numpy()
    h = t[1] - t[0]
    columns = {n: table[n].to_numpy() for n in INPUTS}
    client.start(**{n: columns[n][0] for n in INPUTS})
    out = np.empty((t.size, 3))
    for k in range(t.size):
        client.set(**{n: columns[n][k] for n in INPUTS})
        client.step(t[k], h)
        out[k] = client.get("force", "head_pressure", "rod_position")
    return out


@pytest.mark.parametrize("version", [3, 2])
def test_replaying_the_recorded_run_reproduces_the_force(fmus, arm_relief, version):
    """ℓ(t) and u(t) recorded by `actuatorlab run arm-relief` in, f(t) out: the run's f(t) to 1e-9."""
    _, run = arm_relief
    table = run.table
    client = Client(fmus[version])
    got = _replay(client, table)
    client.free()
    for column, name in enumerate(("force", "head_pressure", "rod_position")):
        reference = table[name].to_numpy()
        error = np.max(np.abs(got[:, column] - reference)) / np.max(np.abs(reference))
        assert error <= 1e-9, f"{name}: max relative error {error:.3g}"
    # the run crosses the relief (Fig. 6): the replay covered more than the holding branch
    assert np.min(table["force"]) < -0.99 * 0.012 * 40e6


def test_cosimulating_the_arm_reproduces_its_angle(fmus, arm_relief):
    """The arm of arm-relief on the Python side (semi-implicit Euler on (79), as simulation/arm.py),
    the actuator in the FMU: θ(t) equals the run's to 1e-6 relative."""
    scenario, run = arm_relief
    spec = scenario.spec
    arm = spec.arm.build()
    t = run.table["t"].to_numpy()
    h = t[1] - t[0]
    signals = spec.inputs.signals()
    u = {n: signals[n].sample(t) for n in ("valve_command", "bleed", "regeneration", "external_force")}
    client = Client(fmus[3])
    theta, rate = spec.arm.initial_angle, spec.arm.initial_rate
    client.start(length=float(arm.cylinder_length(theta)[0]))
    thetas = np.empty(t.size)
    for k in range(t.size):
        thetas[k] = theta
        length = float(arm.cylinder_length(theta)[0])
        client.set(
            length=length, valve_command=u["valve_command"][k], bleed=u["bleed"][k], regeneration=u["regeneration"][k]
        )
        client.step(t[k], h)
        (force,) = client.get("force")
        rate += h / arm.pivot_inertia * float(arm.torque(theta, force, u["external_force"][k]))
        theta += h * rate
    client.free()
    reference = run.table["theta"].to_numpy()
    error = np.max(np.abs(thetas - reference)) / np.max(np.abs(reference))
    assert error <= 1e-6, f"θ: max relative error {error:.3g}"


def test_variable_steps_and_the_rate_input_follow_the_kernels(fmus, arm_relief):
    """Each doStep is one step (72) of the communication step's size h; with length_rate_from_input
    it is backward Euler on the ODE (70), f̄ = K(p − ℓ) − B ℓ̇ (the compiled Λ as reference)."""
    scenario, _ = arm_relief
    circuit, relax = scenario.spec.circuit.build(), scenario.spec.relaxation.build()
    K, B = relax.stiffness, relax.damping
    rng = np.random.default_rng(20)
    n = 300
    steps = rng.uniform(1e-4, 2e-3, n)
    lengths = 1.5 + np.cumsum(rng.normal(0.0, 2e-4, n))
    commands = np.clip(np.cumsum(rng.normal(0.0, 0.05, n)), -1.0, 1.0)
    client = Client(fmus[3])
    client.start(length=lengths[0], bleed=0.3)
    p_prev, l_prev, t = lengths[0], lengths[0], 0.0
    for k in range(n):
        client.set(length=lengths[k], valve_command=commands[k])
        client.step(t, steps[k])
        t += steps[k]
        p, f = relaxed_step(
            circuit, Openings.from_command(commands[k], 0.3), K, B, steps[k], p_prev, l_prev, lengths[k]
        )
        got = client.get("rod_position", "force", "time")
        assert got[0] == pytest.approx(float(p), rel=1e-12) and got[1] == pytest.approx(float(f), rel=1e-12, abs=1e-9)
        assert got[2] == pytest.approx(t, rel=1e-15)
        p_prev, l_prev = float(p), lengths[k]
    client.free()

    rate_client = Client(fmus[3])
    if rate_client.version == 3:
        rate_client.fmu.setBoolean([rate_client.vr["length_rate_from_input"]], [True])
    rate_client.start(length=1.5, bleed=0.3)
    p = 1.5
    for k in range(50):
        length, rate, h = 1.5 + 1e-3 * k, rng.uniform(-0.2, 0.2), steps[k]
        rate_client.set(length=length, length_rate=rate, valve_command=0.2)
        rate_client.step(0.0, h)
        fbar = K * (p - length) - B * rate
        v = float(lam(circuit, Openings.from_command(0.2, 0.3), B + h * K, fbar))
        p += h * v
        assert rate_client.get("force")[0] == pytest.approx(fbar + (B + h * K) * v, rel=1e-12, abs=1e-9)
    rate_client.free()


@pytest.mark.parametrize("version", [3, 2])
def test_fmu_states_roll_back_serialize_and_reset(fmus, version):
    client = Client(fmus[version])
    client.start(length=1.5, bleed=0.3)
    drive = [(1.5 - 1e-4 * k, -0.3) for k in range(1, 41)]

    def run(c, part, t0=0.0):
        out = []
        for k, (length, command) in enumerate(part):
            c.set(length=length, valve_command=command)
            c.step(t0 + 1e-3 * k, 1e-3)
            out.append(c.get("force", "rod_position", "pump_pressure"))
        return np.array(out)

    run(client, drive[:20])
    fmu = client.fmu
    state = fmu.getFMUState() if version == 3 else fmu.getFMUstate()
    first = run(client, drive[20:], 0.02)
    (fmu.setFMUState if version == 3 else fmu.setFMUstate)(state)
    again = run(client, drive[20:], 0.02)
    np.testing.assert_array_equal(first, again)

    blob = fmu.serializeFMUState(state) if version == 3 else fmu.serializeFMUstate(state)
    other = Client(fmus[version], "other")
    copied = (other.fmu.deserializeFMUState if version == 3 else other.fmu.deSerializeFMUstate)(blob)
    (other.fmu.setFMUState if version == 3 else other.fmu.setFMUstate)(copied)
    np.testing.assert_array_equal(run(other, drive[20:], 0.02), first)

    fmu.reset()
    client.start(length=1.5, bleed=0.3)
    fresh = Client(fmus[version], "fresh")
    fresh.start(length=1.5, bleed=0.3)
    np.testing.assert_array_equal(run(client, drive), run(fresh, drive))
    for c in (client, other, fresh):
        c.free()


def test_one_hundred_instances_in_one_process_stay_independent(fmus):
    """100 instances of one FMU with 100 pump flows, stepped interleaved, equal the same instances
    stepped one after the other."""
    flows = np.linspace(50, 600, 100) / 60000

    def drive(c, k):
        c.set(length=1.5 - 2e-4 * k, valve_command=-0.4)
        c.step(1e-3 * k, 1e-3)
        return c.get("force", "rod_velocity")[1]

    clients = []
    for i, q in enumerate(flows):
        c = Client(fmus[3], f"a{i}")
        c.fmu.enterInitializationMode(startTime=0.0)
        c.set(**{"circuit.pump_flow": q, "length": 1.5, "bleed": 0.3})
        c.fmu.exitInitializationMode()
        clients.append(c)
    interleaved = np.array([[drive(c, k) for c in clients] for k in range(30)])
    for c in clients:
        c.free()
    for i in (0, 57, 99):
        alone = Client(fmus[3], "alone")
        alone.fmu.enterInitializationMode(startTime=0.0)
        alone.set(**{"circuit.pump_flow": flows[i], "length": 1.5, "bleed": 0.3})
        alone.fmu.exitInitializationMode()
        np.testing.assert_array_equal([drive(alone, k) for k in range(30)], interleaved[:, i])
        alone.free()
    # the rod retracts faster with more flow, so the instances did differ
    assert interleaved[-1, 0] > interleaved[-1, -1]


@pytest.fixture(scope="module")
def harness(fmus, tmp_path_factory):
    """The C harness (fmu/c/harness.c) built against the extracted FMI 3.0 FMU: no Python inside."""
    folder = Path(extract(str(fmus[3])))
    exe = tmp_path_factory.mktemp("harness") / "harness"
    subprocess.run(
        [
            "cc",
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{folder / 'sources'}",
            str(C_DIR / "harness.c"),
            "-o",
            str(exe),
            "-ldl",
            "-lm",
        ],
        check=True,
    )
    return exe, folder / "binaries" / "x86_64-linux" / "arm_relief.so"


def _harness(harness, *args):
    exe, library = harness
    done = subprocess.run([str(exe), str(library), *map(str, args)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return dict(item.split("=") for item in done.stdout.split()), done.stderr


def test_a_million_steps_and_a_hundred_instances_from_c(harness):
    result, _ = _harness(harness, 1_000_000, 1)
    assert result["failures"] == "0" and np.isfinite(float(result["checksum"]))
    result, _ = _harness(harness, 10_000, 100)
    assert result["failures"] == "0" and np.isfinite(float(result["checksum"]))
    result, log = _harness(harness, 10, 100, "bad")
    assert result["failures"] == "100" and "circuit.head_area = -0.024 m2: must be finite and > 0" in log
    linked = subprocess.run(["ldd", str(harness[1])], capture_output=True, text=True).stdout
    assert "python" not in linked.lower()


BAD_PARAMETERS = [
    ({"circuit.head_area": -0.024}, "circuit.head_area = -0.024 m2: must be finite and > 0"),
    ({"relaxation.damping": 0.0}, "relaxation.damping = 0 N.s/m: must be finite and > 0"),
    ({"relaxation.stiffness": -1.0}, "relaxation.stiffness = -1 N/m: must be finite and > 0"),
    ({"relaxation.stiffness": 0.0}, "relaxation.stiffness = 0 N/m: must be finite and > 0"),
    ({"circuit.rod_area": 0.03}, "rod_area = 0.03 m2 >= circuit.head_area = 0.024 m2"),
    ({"circuit.oil_density": float("nan")}, "circuit.oil_density = nan kg/m3: must be finite and > 0"),
    ({"bleed": 1.5}, "bleed = 1.5: must lie in [0, 1]"),
    ({"length": 0.0}, "length = 0 m: must be finite and > 0"),
]


@pytest.mark.parametrize("values, message", BAD_PARAMETERS)
def test_bad_parameters_give_an_error_status_and_a_message(fmus, values, message):
    messages = []
    client = Client(fmus[3], messages=messages)
    client.fmu.enterInitializationMode(startTime=0.0)
    client.set(**values)
    with pytest.raises(FMICallException) as failure:
        client.fmu.exitInitializationMode()
    assert failure.value.status == 3  # fmi3Error
    assert any(message in text for status, text in messages if status == 3), messages
    with pytest.raises(FMICallException):  # refused, not crashed, until reset
        client.step(0.0, 1e-3)
    client.fmu.reset()
    client.start(length=1.5)
    client.step(0.0, 1e-3)
    assert np.isfinite(client.get("force")[0])
    client.free()


@pytest.mark.parametrize("version", [3, 2])
def test_non_physical_states_and_inputs_give_an_error_status(fmus, version):
    """A stretch |p − ℓ| beyond max_stretch (here 10 µm, pulled 1 mm with the valves closed), a
    state that overflows (a length of 1e305 m), a NaN input and a negative step: error status and
    message; a refused step changes nothing."""
    messages = []
    client = Client(fmus[version], messages=messages)
    client.enter()
    client.set(length=1.5, bleed=0.3, max_stretch=1e-5)
    client.fmu.exitInitializationMode()
    client.step(0.0, 1e-3)
    before = client.get("force", "rod_position", "time")
    client.set(length=1.501)
    with pytest.raises(FMICallException) as failure:
        client.step(1e-3, 1e-3)
    assert failure.value.status == 3
    assert client.get("force", "rod_position", "time") == before  # the refused step changed nothing
    cases = [
        ({"length": 1e305}, 1e-3, "non-finite state"),
        ({"length": float("nan")}, 1e-3, "length = nan m: must be finite and > 0"),
        ({}, -1e-3, "communication step -0.001 s must be finite and > 0"),
    ]
    for values, h, message in cases:
        client.fmu.reset()
        client.start(length=1.5, bleed=0.3)
        client.set(**values)
        with pytest.raises(FMICallException) as failure:
            client.step(0.0, h)
        assert failure.value.status == 3, message
    if version == 3:
        texts = [text for status, text in messages if status == 3]
        assert any("the relaxed stretch |p - l| = " in t and "exceeds max_stretch = 1e-05 m" in t for t in texts), texts
        for _, _, message in cases:
            assert any(message in t for t in texts), (message, texts)
    client.free()


def test_export_errors_are_one_line_and_write_nothing(tmp_path, monkeypatch):
    with pytest.raises(ScenarioError, match="scenario kind 'gamma-map' is not exported"):
        actuatorlab.export_fmu("gamma-map", tmp_path / "map.fmu")
    with pytest.raises(ScenarioError, match="folder .* does not exist"):
        actuatorlab.export_fmu("arm-relief", tmp_path / "missing" / "arm.fmu")
    with pytest.raises(ScenarioError, match="ends in .fmu"):
        actuatorlab.export_fmu("arm-relief", tmp_path / "arm.zip")
    with pytest.raises(ScenarioError, match="choose 3 .* or 2"):
        actuatorlab.export_fmu("arm-relief", tmp_path / "arm.fmu", fmi=1)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if not os.access(locked, os.W_OK):  # root writes anywhere
            with pytest.raises(ScenarioError, match="not writable"):
                actuatorlab.export_fmu("arm-relief", locked / "arm.fmu")
    finally:
        locked.chmod(0o700)
    existing = tmp_path / "kept.fmu"
    with zipfile.ZipFile(existing, "w") as earlier:  # an earlier export, which a new one may replace
        earlier.writestr("modelDescription.xml", "<fmiModelDescription/>")
    old = existing.read_bytes()
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    with pytest.raises(ExportError, match="no C compiler found .* install one") as failure:
        actuatorlab.export_fmu("arm-relief", existing)
    assert "\n" not in str(failure.value)
    assert existing.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.fmu", "locked"]


HOSTILE_NAME = "</title><script>alert(\"name\")</script> & 'q' ]]> <!-- \x07"
HOSTILE_DESCRIPTION = '<script>alert(1)</script><img src=x onerror="f()"> & ]]> "\'\x01\tline\nline'


@pytest.mark.parametrize("version", [3, 2])
def test_a_hostile_name_and_description_stay_text(tmp_path, version):
    """Issue 28: `<`, `&`, quotes, `]]>`, a control character in the scenario's name and
    description: the model description parses (FMPy validates it), the documentation page runs
    no script, and the FMU still loads and steps."""
    scenario = actuatorlab.load("arm-relief").set("description", HOSTILE_DESCRIPTION)
    path = export_scenario(scenario.spec, HOSTILE_NAME, tmp_path / "hostile.fmu", fmi=version)
    assert_valid_hostile_fmu(path, HOSTILE_NAME, HOSTILE_DESCRIPTION)
    assert xml_text(HOSTILE_NAME) != HOSTILE_NAME  # the control character was replaced
    client = Client(path)
    client.start(length=1.5)
    client.step(0.0, 1e-3)
    assert np.isfinite(client.get("force")[0])
    client.free()


def test_an_out_path_through_something_else_than_a_folder_says_what_it_is(tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("x")
    cases = [
        ("/dev/null/a.fmu", "/dev/null is a character device, not a folder"),
        (plain / "a.fmu", f"{plain} is a file, not a folder"),
        (plain / "sub" / "a.fmu", f"{plain} is a file"),
    ]
    for out, message in cases:
        with pytest.raises(ScenarioError, match=re.escape(message)):
            actuatorlab.export_fmu("arm-relief", out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain"]


@pytest.mark.parametrize("out", ["/proc/a.fmu", "/sys/a.fmu"])
def test_a_folder_that_takes_no_file_is_one_line(out):
    done = CliRunner().invoke(app, ["export", "fmu", "arm-relief", "--out", out])
    lines = done.output.strip().splitlines()
    assert done.exit_code == 2 and len(lines) == 1 and lines[0].startswith(f"error: --out {out}"), done.output
    assert not Path(out).exists()


def test_a_compiler_that_writes_nothing_is_named(tmp_path, monkeypatch):
    """A $CC that exits 0 and writes no library: one line naming it and CC; nothing left."""
    fake = tmp_path / "bin" / "fake-cc"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    build, out = tmp_path / "build", tmp_path / "out"
    build.mkdir()
    out.mkdir()
    monkeypatch.setenv("CC", str(fake))
    monkeypatch.setattr(tempfile, "tempdir", str(build))
    with pytest.raises(
        ExportError, match="fake-cc' reported success but wrote no library arm_relief.so: set CC"
    ) as failure:
        actuatorlab.export_fmu("arm-relief", out / "arm.fmu")
    assert "\n" not in str(failure.value)
    assert list(build.iterdir()) == [] and list(out.iterdir()) == []


LARGEST_SOURCE = max(f.stat().st_size for f in C_DIR.iterdir())
FILE_SIZE_LIMITS = [  # (stage, limit in bytes, lift the soft limit in $CC, what the line says)
    (
        "sources",
        1000,
        False,
        "the FMU cannot be built in the temporary folder .* \\(the file size limit is reached\\); "
        "raise it \\(ulimit -f\\)",
    ),
    ("compiler", LARGEST_SOURCE + 4096, False, "the C compiler '.*' failed on the FMU sources: .*ulimit -f"),
    (
        "out",
        LARGEST_SOURCE + 4096,
        True,
        "--out .*arm.fmu: the FMU cannot be written in .* \\(the file size limit is "
        "reached\\); raise it \\(ulimit -f\\)",
    ),
]


@pytest.mark.parametrize("stage, limit, lift, message", FILE_SIZE_LIMITS, ids=[c[0] for c in FILE_SIZE_LIMITS])
def test_a_file_size_limit_is_one_line_at_every_stage(tmp_path, stage, limit, lift, message):
    """Under `ulimit -f` the export fails writing the sources, in the compiler, or writing the
    FMU (the compiler lifts its soft limit, the FMU is larger than any source): one line with
    the remedy, exit status 2, no partial FMU and no build folder left."""
    out, tmpdir = tmp_path / "out", tmp_path / "tmp"
    out.mkdir()
    tmpdir.mkdir()
    lift_cc = tmp_path / "cc-unlimited"
    lift_cc.write_text('#!/bin/sh\nulimit -S -f unlimited\nexec cc "$@"\n')
    lift_cc.chmod(0o755)
    done = export_limited(limit, out / "arm.fmu", tmpdir, cc=str(lift_cc) if lift else None, soft_only=lift)
    assert re.search(message, assert_one_line_refusal(done, out, tmpdir)), done.stderr


def test_the_command_line_exports_and_refuses_with_exit_status_2(tmp_path):
    runner = CliRunner()
    target = tmp_path / "arm.fmu"
    done = runner.invoke(app, ["export", "fmu", "arm-relief", "--fmi", "2", "--out", str(target)])
    assert done.exit_code == 0, done.output
    assert "wrote" in done.output and validate_fmu(str(target)) == []
    scenario = tmp_path / "bad.toml"
    scenario.write_text(
        actuatorlab.load("arm-relief").show().replace('head_area = "0.024 m^2"', 'head_area = "-0.024 m^2"')
    )
    done = runner.invoke(app, ["export", "fmu", str(scenario), "--out", str(tmp_path / "bad.fmu")])
    assert done.exit_code == 2 and "head_area" in done.output and not (tmp_path / "bad.fmu").exists()


def test_an_arm_without_stiffness_is_not_exported(tmp_path):
    """K = 0 is a valid relaxation for the ODE (70), but an exported actuator with it holds no
    static load, so export refuses it naming the field (nothing written)."""
    target = tmp_path / "soft.fmu"
    with pytest.raises(ScenarioError, match="relaxation.stiffness = 0 N/m"):
        actuatorlab.export_fmu(actuatorlab.load("arm-relief").set("relaxation.stiffness", 0.0), target)
    assert not target.exists()
