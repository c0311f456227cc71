"""The machine kind on models the tests generate: the same boom as MJCF and as URDF, pins as sites
or as body points, and every refusal of bad input (one line, the field named, nothing written)."""

from __future__ import annotations

import struct
import numpy as np
import pytest
from typer.testing import CliRunner

from actuatorlab.cli import app
from actuatorlab.errors import ActuatorlabError
from actuatorlab.scenarios.kinds import machine as machine_kind
from actuatorlab.scenarios.loading import load_scenario
from actuatorlab.scenarios.runner import run_scenario, simulate
from clean_refusal import assert_clean_refusal
from machine_models import BOOM_POINT, CLOSED_CHAIN_LENGTH, GROUND_POINT, URDF, write_boom, write_closed_chain_boom

runner = CliRunner()


def _run(path):
    spec = load_scenario(path)
    system, kwargs, supplies, notes = machine_kind.build(spec)
    return system.simulate(**kwargs), notes


def test_urdf_and_mjcf_of_one_boom_move_alike(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    mjcf, _ = _run(write_boom(tmp_path / "a"))
    points, _ = _run(write_boom(tmp_path / "b", base=GROUND_POINT, rod=BOOM_POINT))
    urdf, notes = _run(write_boom(tmp_path / "c", urdf=True))
    assert np.ptp(mjcf["qpos_0"]) > 0.05  # the boom moves (0.5 s at u_c = 0.6)
    # the pins as sites or as body points: the same machine to round-off
    np.testing.assert_allclose(points["qpos_0"], mjcf["qpos_0"], atol=1e-12)
    # URDF: MuJoCo's default timestep is 2 ms and the visual mesh is discarded, so the motion agrees
    # to the step's discretisation error (within 1 % of the swing), not to round-off
    t = mjcf.t
    assert urdf.t[1] - urdf.t[0] == pytest.approx(0.002)
    np.testing.assert_allclose(np.interp(t, urdf.t, urdf["qpos_0"]), mjcf["qpos_0"], atol=0.01 * np.ptp(mjcf["qpos_0"]))


def test_urdf_with_the_mjcf_timestep_matches_closely(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    mjcf, _ = _run(write_boom(tmp_path / "a"))
    path = write_boom(tmp_path / "b", urdf=True, **{'duration = "1 s"': 'duration = "1 s"\ntimestep = "1 ms"'})
    urdf, _ = _run(path)
    np.testing.assert_allclose(urdf["qpos_0"], mjcf["qpos_0"], atol=1e-9)


def test_dropping_own_actuators_and_missing_meshes_is_noted(tmp_path):
    extra = (
        '<asset><mesh name="shell" file="shell.stl"/></asset><actuator><motor name="servo" joint="hinge"/></actuator>'
    )
    text = write_boom(tmp_path, extra=extra).read_text()
    model = (
        (tmp_path / "boom.xml")
        .read_text()
        .replace('<site name="boom_pin" ', '<geom type="mesh" mesh="shell"/><site name="boom_pin" ')
    )
    (tmp_path / "boom.xml").write_text(model)
    with pytest.raises(ActuatorlabError, match=r"own actuators \['servo'\].*drop_actuators = true"):
        _run(tmp_path / "boom.toml")
    (tmp_path / "boom.toml").write_text(text.replace('duration = "1 s"', 'duration = "1 s"\ndrop_actuators = true'))
    with pytest.raises(ActuatorlabError, match="shell.stl.*drop_missing_assets = true"):
        _run(tmp_path / "boom.toml")
    (tmp_path / "boom.toml").write_text(
        text.replace('duration = "1 s"', 'duration = "1 s"\ndrop_actuators = true\ndrop_missing_assets = true')
    )
    _, notes = _run(tmp_path / "boom.toml")
    assert any("servo" in n for n in notes) and any("shell" in n and "1 geoms" in n for n in notes)
    assert (tmp_path / "boom.xml").read_text() == model


PLUGIN = '<extension><plugin plugin="mujoco.not_installed_here"><instance name="terrain"/></plugin></extension>'


def test_a_plugin_that_is_not_installed_is_named_and_can_be_dropped(tmp_path):
    scenario = write_closed_chain_boom(tmp_path, extension=PLUGIN)
    model = (tmp_path / "linkage.xml").read_text()
    with pytest.raises(
        ActuatorlabError,
        match=r"plugin mujoco\.not_installed_here, which is not installed here "
        r"\(Element 'plugin', line 3\): set drop_plugins = true",
    ):
        _run(scenario)
    scenario.write_text(scenario.read_text().replace('duration = "1 s"', 'duration = "1 s"\ndrop_plugins = true'))
    result, notes = _run(scenario)
    assert "Dropped the model's plugins: mujoco.not_installed_here." in notes
    assert (tmp_path / "linkage.xml").read_text() == model  # the user's file is not touched


def test_dropping_plugins_keeps_included_parts_and_assets_beside_the_file(tmp_path):
    """A model split by <include> (as many downloaded models are) with a plugin: dropped in memory,
    the included file's bodies kept and its relative asset folder still found."""
    write_closed_chain_boom(tmp_path, extension=PLUGIN)
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "marker.obj").write_text(
        "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n"
    )
    (tmp_path / "boom_part.xml").write_text(
        '<mujoco><asset><mesh name="marker" file="marker.obj"/></asset>'
        '<worldbody><body name="tip" pos="3 0 2"><geom type="mesh" mesh="marker"/>'
        "</body></worldbody></mujoco>"
    )
    main = (
        (tmp_path / "linkage.xml")
        .read_text()
        .replace("<option ", '<compiler meshdir="assets"/><include file="boom_part.xml"/><option ')
    )
    (tmp_path / "linkage.xml").write_text(main)
    scenario = tmp_path / "linkage.toml"
    scenario.write_text(scenario.read_text().replace('duration = "1 s"', 'duration = "0.1 s"\ndrop_plugins = true'))
    spec = load_scenario(scenario)
    system, *_ = machine_kind.build(spec)
    assert system.model.body("tip").id > 0 and system.model.nmesh == 1


def test_a_closed_chain_cylinder_holds_the_boom_as_the_statics_say(tmp_path):
    """The cylinder as the model's own barrel and rod, closed on the boom by an equality constraint
    and the base welded to the world: the holding force comes from the pose with the constraint
    forces as unknowns. Reference: the boom's statics about its hinge, f = m g d ℓ / (r_x u_z ℓ − r_z u_x ℓ)
    with m = 400 kg, d = 1.2 m, the pin r = (0.8, −0.2) m from the hinge and the cylinder along
    (0.4, 0.9) m: 5 796.9 N (barrel and rod of negligible mass)."""
    spec = load_scenario(write_closed_chain_boom(tmp_path, barrel_mass=1e-6, rod_mass=1e-6))
    system, kwargs, *_ = machine_kind.build(spec)
    forces, residual, lengths = system.holding_forces(kwargs.get("qpos"))
    statics = 400 * 9.81 * 1.2 * CLOSED_CHAIN_LENGTH / (0.8 * 0.9 + 0.2 * 0.4)
    assert forces[0] == pytest.approx(statics, rel=1e-8)  # the 1e-6 kg barrel and rod: 2e-9
    assert lengths[0] == pytest.approx(CLOSED_CHAIN_LENGTH, abs=1e-12)
    assert residual < 1e-9 * statics


def test_a_constraint_that_could_carry_the_cylinders_load_is_refused(tmp_path):
    """A joint equality that locks the cylinder's own slide joint could hold the boom as well as
    the cylinder: the split of the load between them is not determined, and the pose is refused
    rather than given a least-squares share."""
    scenario = write_closed_chain_boom(tmp_path)
    model = (
        (tmp_path / "linkage.xml")
        .read_text()
        .replace("</equality>", '<joint joint1="telescope" polycoef="0 0 0 0 0"/></equality>')
    )
    (tmp_path / "linkage.xml").write_text(model)
    with pytest.raises(
        ActuatorlabError,
        match="holding forces of lift are not determined at the initial pose: the "
        "model's equality constraints could carry the same load",
    ):
        _run(scenario)


def test_a_run_stopped_at_its_stroke_on_a_limited_slide_joint_says_how_to_let_the_limit_stop_it(tmp_path):
    """Downloaded models limit their cylinders' slide joints; a stroke equal to that range stops
    the run as MuJoCo's soft limit lets the rod pass by more than that. The message gives the limit
    in pin-to-pin length and a stroke that lets it be the end stop (applied in
    ``test_machine_relaxation``)."""
    low, high = CLOSED_CHAIN_LENGTH - 0.05, CLOSED_CHAIN_LENGTH + 0.3
    scenario = write_closed_chain_boom(
        tmp_path,
        **{
            'stroke = "0.6 m"': 'stroke = "0.35 m"',
            'retracted_length = "0.8 m"': f'retracted_length = "{low!r} m"',
            "values = [0.6, 0.0]": "values = [1.0, 1.0]",
            'duration = "1 s"': 'duration = "4 s"',
        },
    )
    model = (
        (tmp_path / "linkage.xml")
        .read_text()
        .replace(
            '<joint name="telescope" type="slide" axis="1 0 0"/>',
            '<joint name="telescope" type="slide" axis="1 0 0" limited="true" range="-0.05 0.3"/>',
        )
    )
    (tmp_path / "linkage.xml").write_text(model)
    with pytest.raises(
        ActuatorlabError,
        match=rf"the slide joint's limit in the model stops ℓ at \[{low:.6g}, "
        rf"{high:.6g}\] m, and MuJoCo's soft limit lets the rod pass it by up to .* mm .* to let it be the end "
        r"stop, give retracted_length = [\d.]+ m and stroke = [\d.]+ m",
    ):
        _run(scenario)


def test_a_closed_chain_machine_starts_at_rest(tmp_path):
    """With a barrel and rod of their own weight the held machine, its valve closed, stays where
    it started: the initial state balances the constraint forces too."""
    scenario = write_closed_chain_boom(tmp_path)
    scenario.write_text(scenario.read_text().replace("values = [0.6, 0.0]", "values = [0.0, 0.0]"))
    result, _ = _run(scenario)
    # the old holding refused this model (an unbalanced load on the hinge and the free base)
    length = result["lift.length"]
    assert abs(length[-1] - length[0]) < 1e-6 and np.ptp(length) < 5e-4  # m: the cylinder holds (a 0.1 mm transient)
    assert np.ptp(result["qpos_7"]) < 5e-4  # rad: the hinge, as the constraints settle (their stiffness)


BAD = {
    "unknown site": (
        {"rod": '{ site = "no_such_pin" }'},
        r"cylinders\[0\] \(lift\): unknown site 'no_such_pin'.*"
        r"'ground_pin', 'boom_pin', 'boom_pin_2'",
    ),
    "unknown body": (
        {"rod": '{ body = "stick", point = [0, 0, 0] }'},
        r"cylinders\[0\]\.rod\.body: unknown body 'stick'.*'world', 'boom'",
    ),
    "unknown joint": (
        {"replace": {'hinge = "0 deg"': 'knee = "0 deg"'}},
        r"initial_pose\.knee.*unknown joint 'knee'.*\['hinge'\]",
    ),
    "pins on one body": ({"base": '{ site = "boom_pin_2" }'}, r"same body \('boom'\)"),
    "outside the stroke": (
        {"replace": {'retracted_length = "0.8 m"': 'retracted_length = "1.1 m"'}},
        r"ℓ = 0\.98\d* m.*spans \[1\.1, 1\.7\] m, stroke 0\.6 m",
    ),
    "unstable relaxation": (
        {"replace": {'stiffness = "5e7 N/m"': 'stiffness = "5e10 N/m"'}},
        r"stiffness = 5e\+10 N/m.*stiffness below",
    ),
    "sample time": (
        {
            "replace": {
                'command = { type = "steps", times = [0.2, 0.7], values = [0.6, 0.0] }': (
                    '[cylinders.control]\nstroke = "0.35 m"\nkp = 10.0\nsample_time = "2.5 ms"'
                )
            }
        },
        r"sample_time = 0\.0025 s is not a multiple of the model's timestep 0\.001 s; give 0\.002 s or "
        r"0\.003 s",
    ),
    "relief cannot hold": (
        {"replace": {'bore = "80 mm"': 'bore = "12 mm"', 'rod_diameter = "45 mm"': 'rod_diameter = "8 mm"'}},
        r"holding the initial pose needs f = .* beyond the chamber relief range",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_line_naming_the_field_and_writes_nothing(tmp_path, case):
    changes, pattern = BAD[case]
    path = write_boom(tmp_path, base=changes.get("base"), rod=changes.get("rod"), **changes.get("replace", {}))
    out = tmp_path / "out"
    with pytest.raises(ActuatorlabError, match=pattern):
        run_scenario(load_scenario(path), out)
    assert not out.exists()
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"])
    assert_clean_refusal(result, out, case)


def test_a_model_file_that_does_not_parse_names_the_line(tmp_path):
    path = write_boom(tmp_path)
    (tmp_path / "boom.xml").write_text(
        (tmp_path / "boom.xml").read_text().replace('<site name="boom_pin"', '<sight name="boom_pin"')
    )
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"])
    assert_clean_refusal(result, out, "parse")
    line = next(i for i, text in enumerate((tmp_path / "boom.xml").read_text().splitlines(), 1) if "<sight" in text)
    assert "cannot be parsed by MuJoCo" in result.output and f"'sight', line {line}" in result.output


def test_a_urdf_link_without_inertia_is_named(tmp_path):
    path = write_boom(tmp_path, urdf=True)
    (tmp_path / "boom.urdf").write_text(
        URDF.replace(
            '<inertial><origin xyz="1.2 0 0"/><mass value="400"/>\n'
            '      <inertia ixx="200" iyy="200" izz="200" ixy="0" ixz="0" '
            'iyz="0"/></inertial>',
            "",
        )
    )
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"])
    assert_clean_refusal(result, out, "urdf inertia")
    assert "link 'boom'" in result.output and "<inertial>" in result.output


def _tetrahedron_stl() -> bytes:
    """A tetrahedron (0.1 m edges on the axes) as binary STL, the smallest mesh MuJoCo takes."""
    corners = ((0, 0, 0), (0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.1))
    faces = ((0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3))
    body = b"".join(
        struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *corners[i]) for i in face) + b"\0\0"
        for face in faces
    )
    return b"\0" * 80 + struct.pack("<I", len(faces)) + body


def _packaged_boom(tmp_path, mesh: str, package_xml: str | None = "my_boom", folder: str = "my_boom_description"):
    """The URDF boom inside a ROS workspace: ws/src/<folder>/urdf/boom.urdf with a collision mesh
    ``mesh`` (a package:// path), the package's package.xml naming ``package_xml``, and an STL
    shell in its meshes/ folder; the scenario beside the URDF."""
    package = tmp_path / "ws" / "src" / folder
    (package / "urdf").mkdir(parents=True)
    (package / "meshes").mkdir()
    (package / "meshes" / "shell.stl").write_bytes(_tetrahedron_stl())
    if package_xml is not None:
        (package / "package.xml").write_text(
            f'<?xml version="1.0"?><package format="2"><name>{package_xml}</name><version>1.0.0</version></package>'
        )
    scenario = write_boom(package / "urdf", urdf=True)
    collision = f'<collision><geometry><mesh filename="{mesh}"/></geometry></collision>'
    (package / "urdf" / "boom.urdf").write_text(URDF.replace("</visual>", "</visual>" + collision))
    return scenario


def test_urdf_package_paths_are_found_in_the_model_files_ancestors(tmp_path):
    """A ROS URDF names its meshes package://PKG/…: the package's folder is the one whose
    package.xml names it (here my_boom_description holding my_boom), found from the model file up;
    or a folder named like the package. The mesh is then read (it is a collision geom, kept)."""
    scenario = _packaged_boom(tmp_path, "package://my_boom/meshes/shell.stl")
    system, _, _, notes = machine_kind.build(load_scenario(scenario))
    assert system.model.nmesh == 1 and system.model.ngeom == 1
    assert any("ROS package 'my_boom'" in n and "my_boom_description" in n for n in notes)
    by_name = _packaged_boom(tmp_path / "b", "package://plain_boom/meshes/shell.stl", None, "plain_boom")
    system, *_ = machine_kind.build(load_scenario(by_name))
    assert system.model.nmesh == 1


def test_a_urdf_package_not_found_names_the_mesh_and_where_it_looked(tmp_path):
    scenario = _packaged_boom(tmp_path, "package://elsewhere/meshes/shell.stl")
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(scenario), "--out", str(out), "--quiet"])
    assert_clean_refusal(result, out, "package not found")
    message = " ".join(result.output.split())
    assert "'package://elsewhere/meshes/shell.stl'" in message and "ROS package 'elsewhere'" in message
    assert str(scenario.parent) in message and "package.xml" in message
    scenario.write_text(
        scenario.read_text().replace('duration = "1 s"', 'duration = "1 s"\ndrop_missing_assets = true')
    )
    system, _, _, notes = machine_kind.build(load_scenario(scenario))
    assert system.model.nmesh == 0 and any("shell" in n and "1 geoms" in n for n in notes)


def test_a_dae_mesh_is_named_with_the_conversion_to_make_and_can_be_dropped(tmp_path):
    """MuJoCo reads no COLLADA: the .dae is named with what to do (convert it, or run without
    it); with drop_unreadable_meshes the run goes on without that geom, the link's mass and
    inertia kept from its <inertial>, and the boom moves as the MJCF boom does."""
    scenario = _packaged_boom(tmp_path, "package://my_boom/meshes/shell.dae")
    (scenario.parent.parent / "meshes" / "shell.dae").write_text("<COLLADA/>")
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(scenario), "--out", str(out), "--quiet"])
    assert_clean_refusal(result, out, "dae")
    message = " ".join(result.output.split())
    assert "MuJoCo cannot read the mesh shell.dae" in message and "convert" in message and ".stl or .obj" in message
    assert "drop_unreadable_meshes = true" in message
    text = scenario.read_text()
    scenario.write_text(text.replace('duration = "1 s"', 'duration = "1 s"\ndrop_unreadable_meshes = true'))
    result, notes = _run(scenario)
    assert any("shell.dae" in n and "1 geoms" in n for n in notes)
    system, *_ = machine_kind.build(load_scenario(scenario))
    assert system.model.nmesh == 0 and system.model.body("boom").mass[0] == pytest.approx(400.0)
    (tmp_path / "mjcf").mkdir()
    mjcf, _ = _run(write_boom(tmp_path / "mjcf"))
    np.testing.assert_allclose(
        np.interp(mjcf.t, result.t, result["qpos_0"]), mjcf["qpos_0"], atol=0.01 * np.ptp(mjcf["qpos_0"])
    )


UNLOADING = """
[[loads]]
body = "boom"
point = ["2.5 m", 0, 0]
force = [0, 0, { type = "piecewise-linear", times = ["0.2 s", "0.6 s"], values = ["-3 kN", "0 kN"] }]
"""


@pytest.mark.parametrize("model", ["quasistatic", "pressure-dynamics"])
@pytest.mark.parametrize("supply", ["pump", "constant-pressure"])
def test_a_cylinder_that_holds_still_loses_nothing_in_its_valves(tmp_path, model, supply):
    """The valves stay shut while a 3 kN load at the boom's tip is taken off: the cylinder gets no
    oil, yet its pins move apart a little and it does work on the boom (1.9 J quasistatic, 2.7 J
    pressure dynamics), given back by its compliance (the relaxed spring, or the oil in its
    chambers) that held the load at the start. That energy is the compliance's, not negative valve
    losses (they were −1.9 J and −2.7 J): the valves lose nothing, ≥ 0 to round-off, and the
    ledger closes, per cylinder and in total."""
    supply_fields = (
        'supply = "constant-pressure"\nsupply_pressure = "20 MPa"\n'
        if supply == "constant-pressure"
        else "bleed = 0.3\n"
    )
    scenario = write_boom(
        tmp_path,
        **{
            'duration = "1 s"': f'duration = "1 s"\nmodel = "{model}"',
            "bleed = 0.3\n": supply_fields,
            'command = { type = "steps", times = [0.2, 0.7], values = [0.6, 0.0] }': "command = 0.0" + UNLOADING,
        },
    )
    output = simulate(load_scenario(scenario))
    s = output.summary_dict()
    assert s["lift.hydraulic_energy_J"] == 0.0
    assert s["lift.work_J"] > 1.0  # the pins move apart as the load comes off
    assert s["lift.compliance_J"] == pytest.approx(-s["lift.work_J"], rel=1e-9)
    assert s["lift.valve_losses_J"] >= -1e-9 * s["lift.work_J"]
    assert s["total.losses_J"] >= -1e-9 * s["lift.work_J"]
    balance = s["lift.work_J"] + s["lift.compliance_J"] + s["lift.valve_losses_J"]
    assert s["lift.hydraulic_energy_J"] == pytest.approx(balance, abs=1e-12)
    total = s["total.work_J"] + s["total.compliance_J"] + s["total.losses_J"]
    assert s["total.energy_J"] == pytest.approx(total, rel=1e-12, abs=1e-12)
    valve = output.table["lift.valve_losses"]
    assert valve.min() >= -1e-6  # W, at every step


def test_a_moment_load_acts_as_a_force_of_equal_hinge_torque(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    force = '\n[[loads]]\nbody = "boom"\npoint = ["2 m", 0, 0]\nforce = [0, 0, "-1 kN"]\n'
    # (2 m, 0, 0) × (0, 0, −1 kN) = (0, 2 kN m, 0): the same torque about the hinge
    moment = '\n[[loads]]\nbody = "boom"\nmoment = [0, "2 kN m", 0]\n'
    a = write_boom(tmp_path / "a")
    a.write_text(a.read_text() + force)
    b = write_boom(tmp_path / "b")
    b.write_text(b.read_text() + moment)
    ra, _ = _run(a)
    rb, _ = _run(b)
    held = ra.t < 0.2  # valves closed: the boom stays horizontal, both loads give one torque
    np.testing.assert_allclose(ra["qpos_0"][held], rb["qpos_0"][held], atol=1e-12)
    np.testing.assert_allclose(ra["lift.force"][held], rb["lift.force"][held], rtol=1e-9)
    # as the boom rises the vertical force's lever shrinks (2 m·cos θ), the moment's does not
    assert ra["qpos_0"][-1] > rb["qpos_0"][-1] > 0.05
    plain, _ = _run(write_boom(tmp_path))
    assert abs(ra["lift.force"][0] - plain["lift.force"][0]) > 1e3  # the load is held: a different force


SCHEMA = {
    "constant supply without its pressure": (
        {'pump_flow = "100 L/min"': 'supply = "constant-pressure"'},
        r"circuits\[0\]\.supply_pressure: required",
    ),
    "both valve sizes": (
        {"bleed = 0.3": 'bleed = 0.3\nvalve_area = "1 cm^2"\nvalve_rated_flow = "60 L/min"'},
        r"circuits\[0\]: give valve_area or valve_rated_flow, not both",
    ),
    "size twice": (
        {'stroke = "0.6 m"': 'stroke = "0.6 m"\nhead_area = "50 cm^2"\nrod_area = "30 cm^2"'},
        r"cylinders\[0\]: give the size as bore and rod_diameter, or as head_area and rod_area",
    ),
    "unknown circuit": (
        {'circuit = "pump"': 'circuit = "pumps"'},
        r"cylinders\[0\]\.circuit = 'pumps' is not a circuit; the circuits are \['pump'\]",
    ),
    "regeneration, quasistatic": (
        {'retracted_length = "0.8 m"': 'retracted_length = "0.8 m"\nregeneration = 0.5'},
        r"cylinders\[0\]\.regeneration: .*pressure-dynamics",
    ),
    "stroke no cylinder has": (
        {'stroke = "0.6 m"': 'stroke = "50 m"', 'retracted_length = "0.8 m"': 'retracted_length = "1 cm"'},
        r"cylinders\[0\]: stroke = 50 m on retracted_length = 0.01 m: no cylinder fits",
    ),
    "sites and joint": (
        {'stroke = "0.6 m"': 'stroke = "0.6 m"\njoint = "hinge"'},
        r"cylinders\[0\]: give the pins \(base, rod\) or joint, not both",
    ),
}


@pytest.mark.parametrize("case", sorted(SCHEMA))
def test_schema_refusals_name_the_field(tmp_path, case):
    changes, pattern = SCHEMA[case]
    path = write_boom(tmp_path, **changes)
    with pytest.raises(ActuatorlabError, match=pattern):
        load_scenario(path)
