"""Small machine models the machine tests generate: one boom on a hinge lifted by one cylinder,
written as MJCF and as URDF (the same mechanism), and a scenario file for it.

The boom: 400 kg, centre of mass 1.2 m from its pivot (2.0 m above the ground), inertia 200 kg m²
about the centre of mass; the cylinder from a ground pin at (0.4, 0, 0.9) to a boom pin at
(0.8, 0, −0.2) in the boom frame (ℓ = 0.985 m with the boom horizontal). Values chosen for the
tests (no machine of record).
"""

from __future__ import annotations

from pathlib import Path

MJCF = """<mujoco model="boom">
  <option timestep="0.001" integrator="Euler"><flag contact="disable"/></option>
  <worldbody>
    <site name="ground_pin" pos="0.4 0 0.9"/>
    <body name="boom" pos="0 0 2.0">
      <joint name="hinge" type="hinge" axis="0 -1 0"/>
      <inertial pos="1.2 0 0" mass="400" diaginertia="200 200 200"/>
      <geom type="capsule" fromto="0 0 0 2.5 0 0" size="0.08" mass="0"/>
      <site name="boom_pin" pos="0.8 0 -0.2"/>
      <site name="boom_pin_2" pos="1.0 0 -0.2"/>
    </body>
  </worldbody>
  {extra}
</mujoco>
"""

URDF = """<robot name="boom">
  <link name="ground"/>
  <link name="boom">
    <inertial><origin xyz="1.2 0 0"/><mass value="400"/>
      <inertia ixx="200" iyy="200" izz="200" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="not_shipped.stl"/></geometry></visual>
  </link>
  <joint name="hinge" type="continuous">
    <parent link="ground"/><child link="boom"/><origin xyz="0 0 2.0"/><axis xyz="0 -1 0"/>
  </joint>
</robot>
"""

SCENARIO = """kind = "machine"
name = "boom"
description = "one boom, one cylinder"
model_file = "{model}"
duration = "{duration}"
initial_pose = {{ hinge = "0 deg" }}

[relaxation]
stiffness = "5e7 N/m"
damping = "5e5 N s/m"

[[circuits]]
name = "pump"
pump_flow = "100 L/min"
pump_relief_pressure = "25 MPa"
bleed = 0.3

[[cylinders]]
name = "lift"
circuit = "pump"
base = {base}
rod = {rod}
bore = "80 mm"
rod_diameter = "45 mm"
stroke = "0.6 m"
retracted_length = "0.8 m"
command = {{ type = "steps", times = [0.2, 0.7], values = [0.6, 0.0] }}
"""

GROUND_PIN = '{ site = "ground_pin" }'
BOOM_PIN = '{ site = "boom_pin" }'
GROUND_POINT = '{ body = "world", point = ["0.4 m", 0, "0.9 m"] }'
BOOM_POINT = '{ body = "boom", point = ["0.8 m", 0, "-0.2 m"] }'


def write_boom(
    folder: Path,
    urdf: bool = False,
    extra: str = "",
    duration: str = "1 s",
    base: str | None = None,
    rod: str | None = None,
    **replace: str,
) -> Path:
    """Write the boom model and its scenario into ``folder``; returns the scenario file. ``extra``:
    MJCF text after the worldbody; ``replace``: text substitutions in the scenario."""
    model = folder / ("boom.urdf" if urdf else "boom.xml")
    model.write_text(URDF if urdf else MJCF.replace("{extra}", extra))
    if urdf:  # URDF has no sites: the pins are body points
        base, rod = base or GROUND_POINT, rod or BOOM_POINT
    text = SCENARIO.format(model=model.name, duration=duration, base=base or GROUND_PIN, rod=rod or BOOM_PIN)
    for old, new in replace.items():
        text = text.replace(old, new)
    scenario = folder / "boom.toml"
    scenario.write_text(text)
    return scenario


PEER_ARM_SCENARIO = """kind = "machine"
name = "peer-arm"
description = "the peers' one-arm mechanism on a constant-pressure supply"
model_file = "arm.xml"
model = "pressure-dynamics"
duration = "{t_end} s"

[[circuits]]
name = "supply"
supply = "constant-pressure"
supply_pressure = "{supply!r} Pa"
valve_rated_flow = "{rated_flow!r} m^3/s"
valve_rated_pressure_drop = "{supply!r} Pa"
head_relief_pressure = "100 MPa"
rod_relief_pressure = "100 MPa"
laminar_pressure = "1 kPa"
bulk_modulus = "{beta!r} Pa"

[[cylinders]]
name = "cylinder"
circuit = "supply"
base = {{ site = "base" }}
rod = {{ site = "rod" }}
head_area = "{a0!r} m^2"
rod_area = "{a1!r} m^2"
stroke = "{stroke!r} m"
retracted_length = "{offset!r} m"
head_dead_volume = "{dead!r} m^3"
rod_dead_volume = "{dead!r} m^3"
initial_low_pressure = "{p0!r} Pa"
command = {{ type = "steps", times = [{t_open!r}, {t_close!r}], values = [-{u!r}, 0.0] }}
"""


def write_peer_arm(folder: Path, P, h: float) -> Path:
    """Write the one-arm mechanism of the peers (``../shared/peers/arm_params.py``: ``P`` is that
    module or an object with its names) as ``arm.xml`` and the scenario ``arm.toml`` (the
    constant-pressure pressure-dynamics cylinder, MuJoCo step ``h`` [s]); returns the scenario."""
    (folder / "arm.xml").write_text(f"""<mujoco><option timestep="{h!r}" gravity="0 0 -{P.G!r}" integrator="Euler">
<flag contact="disable"/></option><worldbody><site name="base" pos="{P.BASE[0]!r} 0 {P.BASE[1]!r}"/>
<body name="arm"><joint name="theta" type="hinge" axis="0 -1 0"/>
<inertial pos="{P.LG!r} 0 0" mass="{P.M!r}" diaginertia="{P.J_COM!r} {P.J_COM!r} {P.J_COM!r}"/>
<site name="rod" pos="{P.R_LOC[0]!r} 0 {P.R_LOC[1]!r}"/></body></worldbody></mujoco>""")
    scenario = folder / "arm.toml"
    scenario.write_text(
        PEER_ARM_SCENARIO.format(
            t_end=P.T_END,
            supply=P.P_SUPPLY,
            rated_flow=P.valve_coefficient("supply") * P.P_SUPPLY**0.5,
            beta=P.BETA,
            a0=P.A0,
            a1=P.A1,
            stroke=P.L_STROKE,
            offset=P.L_OFFSET,
            dead=P.V_DEAD,
            p0=P.P0_INIT,
            t_open=P.T_OPEN,
            t_close=P.T_CLOSE,
            u=P.U_OPEN,
        )
    )
    return scenario


CLOSED_CHAIN_MJCF = """<mujoco model="boom-linkage">
  <option timestep="0.001" integrator="Euler"><flag contact="disable"/></option>
  {extension}
  <default><equality solref="0.002 1"/></default>
  <worldbody>
    <body name="base" pos="0 0 0">
      <joint name="float" type="free"/>
      <inertial pos="0 0 0.5" mass="2000" diaginertia="500 500 500"/>
      <body name="boom" pos="0 0 2.0">
        <joint name="hinge" type="hinge" axis="0 -1 0"/>
        <inertial pos="1.2 0 0" mass="400" diaginertia="200 200 200"/>
        <geom type="capsule" fromto="0 0 0 2.5 0 0" size="0.08" mass="0"/>
      </body>
      <body name="barrel" pos="0.4 0 0.9" xyaxes="0.4 0 0.9 0 1 0">
        <joint name="barrel_pivot" type="hinge" axis="0 1 0"/>
        <inertial pos="0.2 0 0" mass="{barrel_mass}" diaginertia="0.1 0.1 0.1"/>
        <body name="rod">
          <joint name="telescope" type="slide" axis="1 0 0"/>
          <inertial pos="0.7 0 0" mass="{rod_mass}" diaginertia="0.1 0.1 0.1"/>
        </body>
      </body>
    </body>
  </worldbody>
  <equality>
    <weld body1="world" body2="base"/>
    <connect body1="rod" body2="boom" anchor="{length!r} 0 0"/>
  </equality>
</mujoco>
"""
"""The boom of ``MJCF`` on a base held by a weld, its cylinder modelled as the model's own bodies
(a barrel on a pivot at the ground pin, a rod on a slide joint whose end is connected to the boom
pin by an equality constraint), as downloaded excavator models are built: a closed chain, its
constraints stiffened to twice the step (MuJoCo's default time constant, 20 ms, lets the boom sag
by 0.4° under its load). The rod end is at ``CLOSED_CHAIN_LENGTH`` from the pivot at qpos0 (the
boom horizontal)."""
CLOSED_CHAIN_LENGTH = (0.4**2 + 0.9**2) ** 0.5
"""ℓ at qpos0 [m]: from the ground pin (0.4, 0, 0.9) to the boom pin (0.8, 0, 1.8), as in ``MJCF``."""


def write_closed_chain_boom(
    folder: Path, barrel_mass: float = 30.0, rod_mass: float = 20.0, extension: str = "", **replace: str
) -> Path:
    """Write the closed-chain boom and its scenario (the cylinder on the slide joint) into
    ``folder``; returns the scenario file. ``extension``: MJCF text before the worldbody."""
    (folder / "linkage.xml").write_text(
        CLOSED_CHAIN_MJCF.format(
            extension=extension, barrel_mass=barrel_mass, rod_mass=rod_mass, length=CLOSED_CHAIN_LENGTH
        )
    )
    text = (
        SCENARIO.format(model="linkage.xml", duration="1 s", base="{}", rod="{}")
        .replace("base = {}\nrod = {}", f'joint = "telescope"\nlength_offset = "{CLOSED_CHAIN_LENGTH!r} m"')
        .replace('stiffness = "5e7 N/m"', 'stiffness = "2e6 N/m"')
        .replace('damping = "5e5 N s/m"', 'damping = "2e4 N s/m"')
    )
    for old, new in replace.items():
        text = text.replace(old, new)
    scenario = folder / "linkage.toml"
    scenario.write_text(text)
    return scenario
