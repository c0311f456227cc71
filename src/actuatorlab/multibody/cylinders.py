"""Hydraulic cylinders between two sites (or on a slide joint) of an MJCF model, and the packing
of their parameters into the arrays of the compiled step (:mod:`.kernels`).

A cylinder acts between two sites of the model, its pins (``base_site`` and ``rod_site``, on
two different bodies). With x_a, x_b the pin positions (world frame, m), its length is
ℓ = ‖x_a − x_b‖ [m] and e = (x_a − x_b)/ℓ the unit vector from the base pin to the rod pin.
**Signs: f > 0 pushes the pins apart (extends the cylinder), f < 0 pulls them together;
v, ℓ̇ > 0 extend.** The force acts on the rod pin as f·e and on the base pin as −f·e, so its
generalised force is f·(dℓ/dq)ᵀ with dℓ/dq = eᵀ (J_a − J_b) (J_* the site Jacobians).

A cylinder can instead sit on a **slide joint** (``joint`` = its name, ``length_offset`` c
[m]): ℓ = qpos[joint] + c, and f acts as a generalised force on the joint's degree of freedom d
(``data.qfrc_applied[d]``; f > 0 pushes towards larger qpos), so dℓ/dq is the unit vector of
d. Everything else (kernels, stability, initialisation) is the same with this ℓ and dℓ/dq;
the rate (ℓ_k − ℓ_{k−1})/h equals qvel[d] of MuJoCo's Euler/implicit update to rounding. A
slide-joint cylinder and the same cylinder between two sites along the slide axis give the
same motion. With ``rotary = True`` the joint is a hinge and the actuator a rotary one (a
hydraulic motor through its gear): ℓ is then an angle [rad], f a torque [N m] and the
relaxation's K, B rotational [N m/rad, N m s/rad].

Actuator models (all reuse the project's compiled kernels; no equation is repeated here):

- ``QuasistaticCylinder``: the relaxed quasistatic actuator of Kikuuwe et al. Sec. 4, the rod
  displacement p in series with a virtual spring–damper (K, B), f = K(p − ℓ) + B(ṗ − ℓ̇)
  (68a), stepped by algorithm (72) (``relaxed_step_scalar``) with ℓ_k, ℓ_{k−1} read from the
  sites. With ``pump`` = a name, all cylinders of that name share one pump (``PumpNetwork``,
  Sec. 6.2: ``relaxed_network_step_kernel``); otherwise each has its own pump, or with
  ``supply_pressure`` P_s [Pa] a constant-pressure supply (pressure-compensated pump or
  accumulator): Λ̂(P_s, β, f̄) of (122), the shared-pump Λ at a pump pressure that is given.
- ``PressureCylinder``: the pressure-dynamics (bulk-modulus) cylinder of
  :mod:`actuatorlab.hydraulics.pressure_dynamics`, on its own pump line or (``pump`` = a name)
  on one pump line shared with the other pressure cylinders of that name, or with
  ``supply_pressure`` on a line held at P_s. Piston position x = ℓ − ℓ₀
  (ℓ₀ = ``fluid.retracted_length``), f = A_h p_h − A_r p_r.

External forces are ``SiteLoad`` objects (a force [N] in the world frame at a site).

``pack_cylinders`` orders the cylinders for the kernel (own-pump quasistatic cylinders, then the
pressure cylinders one pump line after the other, then each quasistatic pump group) and packs
them into ``CylinderArrays``: the circuit (``I_*``) and fluid (``H_*``) vectors of each cylinder
and two tables whose columns are named below (``J_*`` integers, ``G_*`` floats).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field

import numpy as np

from ..errors import ParameterError, needs_extras
from ..hydraulics.pressure_dynamics import N_PRESSURE, PressureDynamics
from ..hydraulics.quasistatic.circuit import N_CIRCUIT, ValveCircuit
from ..hydraulics.quasistatic.network import PumpNetwork
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..numerics.layout import Layout
from ..validation import non_negative, positive

with needs_extras("actuatorlab.multibody"):
    import mujoco

# actuator kinds (column J_KIND)
KIND_QUASISTATIC = 0
KIND_NETWORK = 1
KIND_PRESSURE = 2
KIND_SUPPLY = 3  # quasistatic on a constant-pressure supply

# columns of the integer table ``ints`` (n, N_INTS): the pin sites and their bodies (−1 on a
# slide joint), the actuator kind, the slide joint's qpos and dof addresses (−1 between sites)
INTS = Layout("J_", "base_site", "rod_site", "base_body", "rod_body", "kind", "qpos", "dof")
(J_BASE_SITE, J_ROD_SITE, J_BASE_BODY, J_ROD_BODY, J_KIND, J_QPOS, J_DOF) = INTS.indices
N_INTS = len(INTS)
# columns of the float table ``gain`` (n, N_GAIN): relaxation K [N/m] and B [N s/m] (quasistatic;
# 0 for a pressure cylinder), the pin-to-pin length limits [m], the slide-joint length offset [m],
# the constant supply pressure P_s [Pa] (0: a fixed-displacement pump), the factor φ of the
# stability check along the run (1/m = φ gᵀM⁻¹g against the bound 4: 1 on a tree of bodies, set
# at the initial pose where soft equality constraints take part, :mod:`.stability`)
GAINS = Layout("G_", "stiffness", "damping", "min_length", "max_length", "offset", "supply", "mass_factor")
(G_STIFFNESS, G_DAMPING, G_MIN_LENGTH, G_MAX_LENGTH, G_OFFSET, G_SUPPLY, G_MASS_FACTOR) = GAINS.indices
N_GAIN = len(GAINS)


def _site_name(name: str, value) -> str:
    if not isinstance(value, str) or not value:
        raise ParameterError(f"{name} = {value!r}: give the name of a site of the MJCF model")
    return value


def _check_attachment(a) -> None:
    """Either two pin sites or one slide joint (with a finite ``length_offset``)."""
    if a.joint is None:
        if a.base_site is None and a.rod_site is None:
            raise ParameterError(
                f"actuator {a.name!r}: give the pin sites base_site and rod_site, or joint = the name of a slide joint"
            )
        _site_name("base_site", a.base_site)
        _site_name("rod_site", a.rod_site)
        if a.length_offset != 0.0:
            raise ParameterError(
                f"actuator {a.name!r}: length_offset = {a.length_offset!r} applies to a slide-joint actuator only "
                "(between two sites ℓ is the pin distance): drop it or give joint"
            )
        return
    if not isinstance(a.joint, str) or not a.joint:
        raise ParameterError(f"actuator {a.name!r}: joint = {a.joint!r}: give the name of a slide joint of the model")
    if a.base_site is not None or a.rod_site is not None:
        raise ParameterError(
            f"actuator {a.name!r}: give either the pin sites (base_site, rod_site) or joint = {a.joint!r}, not both"
        )
    if not (isinstance(a.length_offset, (int, float)) and math.isfinite(a.length_offset)):
        raise ParameterError(f"actuator {a.name!r}: length_offset = {a.length_offset!r}: give a finite length [m]")


@dataclass(frozen=True)
class MountedCylinder:
    """What both cylinder models share: where the cylinder sits, its circuit and its supply.

    ``name``: label of the actuator (inputs and result channels are keyed by it);
    ``base_site``, ``rod_site``: the pin sites (f > 0 pushes them apart), or instead ``joint``:
    a slide joint, with ℓ = qpos[joint] + ``length_offset`` [m] and f a generalised force on
    its degree of freedom (f > 0 pushes towards larger qpos); ``circuit``: the four-valve
    circuit; ``pump``: None for an own pump, or the name of a pump shared with the other
    cylinders of that name (their circuits must agree on the pump fields); ``supply_pressure``
    P_s [Pa]: a constant-pressure supply instead of a pump (no ``pump``; the circuit's pump flow,
    bleed and pump relief are not used); ``rotary``: ``joint`` is a hinge (module docstring).
    The fields after ``circuit`` are given by keyword; a model's own fields follow ``circuit``.
    """

    name: str
    base_site: str | None = None
    rod_site: str | None = None
    circuit: ValveCircuit = field(default_factory=ValveCircuit.paper_example)
    _: KW_ONLY
    pump: str | None = None
    joint: str | None = None
    length_offset: float = 0.0
    supply_pressure: float | None = None
    rotary: bool = False

    def __post_init__(self) -> None:
        _check_attachment(self)
        _check_supply(self)
        if not isinstance(self.circuit, ValveCircuit):
            raise ParameterError(f"actuator {self.name!r}: circuit must be a ValveCircuit")


@dataclass(frozen=True)
class QuasistaticCylinder(MountedCylinder):
    """A relaxed quasistatic cylinder (Kikuuwe et al. Secs. 3–4, 6) between two sites or on a slide joint.

    ``relaxation``: the virtual spring–damper K [N/m], B [N s/m]; ``min_length``,
    ``max_length`` [m]: optional pin-to-pin limits (fully retracted / extended), checked at the
    start and at every step; the other fields as ``MountedCylinder``.
    """

    relaxation: Relaxation = field(default_factory=Relaxation)
    min_length: float | None = None
    max_length: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.relaxation, Relaxation):
            raise ParameterError(f"actuator {self.name!r}: relaxation must be a Relaxation(K, B)")
        _check_limits(self.name, self.min_length, self.max_length)

    @property
    def length_limits(self) -> tuple[float, float]:
        """(shortest, longest) pin-to-pin length [m] the run may reach; ±inf where not given."""
        return (
            -math.inf if self.min_length is None else self.min_length,
            math.inf if self.max_length is None else self.max_length,
        )


@dataclass(frozen=True)
class PressureCylinder(MountedCylinder):
    """A pressure-dynamics cylinder (bulk modulus, chamber and pump-line volumes) between two sites
    or on a slide joint (``joint``, ``length_offset``: as for ``QuasistaticCylinder``).

    ``fluid.retracted_length`` ℓ₀ [m] is the pin-to-pin length at full retraction and
    ``fluid.stroke`` s [m] its stroke: ℓ must stay in [ℓ₀, ℓ₀ + s]. ``initial_low_pressure``
    [Pa]: the pressure of the less loaded chamber in the consistent initial state. ``pump``:
    None for an own pump line, or the name of a pump line shared with the other pressure
    cylinders of that name; their circuits must agree on the pump fields (Q, P_M, c_b) and their
    fluids on the pump-line fields (bulk_modulus, pump_line_volume, laminar_pressure,
    relief_flow_gain, check_flow_gain), which are read from the first of them.
    ``supply_pressure`` P_s [Pa]: the line is held at P_s (a constant-pressure supply; no
    ``pump``). The other fields as ``MountedCylinder``.
    """

    fluid: PressureDynamics = field(default_factory=PressureDynamics)
    initial_low_pressure: float = 2.0e6

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.fluid, PressureDynamics):
            raise ParameterError(f"actuator {self.name!r}: fluid must be a PressureDynamics")
        non_negative(f"{self.name}.initial_low_pressure", self.initial_low_pressure, "Pa")

    @property
    def length_limits(self) -> tuple[float, float]:
        """(retracted length, retracted length + stroke) [m]: the piston's travel."""
        return self.fluid.retracted_length, self.fluid.retracted_length + self.fluid.stroke


Cylinder = QuasistaticCylinder | PressureCylinder


def _check_supply(a) -> None:
    """A constant supply pressure is finite and > 0, and excludes a shared pump."""
    if a.supply_pressure is None:
        return
    positive(f"{a.name}.supply_pressure", a.supply_pressure, "Pa")
    if a.pump is not None:
        raise ParameterError(
            f"actuator {a.name!r}: supply_pressure = {a.supply_pressure:g} Pa is a constant-pressure supply, "
            f"pump = {a.pump!r} a shared fixed-displacement pump: give one of them"
        )


def _check_limits(name, lo, hi) -> None:
    for which, value in (("min_length", lo), ("max_length", hi)):
        if value is not None:
            positive(f"{name}.{which}", value, "m")
    if lo is not None and hi is not None and hi <= lo:
        raise ParameterError(f"actuator {name!r}: max_length = {hi} m must exceed min_length = {lo} m")


_LINE_FIELDS = ("bulk_modulus", "pump_line_volume", "laminar_pressure", "relief_flow_gain", "check_flow_gain")
"""PressureDynamics fields of the pump line, which the cylinders on one shared line must agree on."""


def _check_shared_line(pump: str, group: Sequence[PressureCylinder]) -> None:
    """The pressure cylinders on pump line ``pump`` agree on the pump's circuit and fluid fields."""
    try:
        PumpNetwork([a.circuit for a in group])
    except ParameterError as err:
        raise ParameterError(f"pressure cylinders on pump {pump!r}: {err}") from None
    for a in group[1:]:
        for name in _LINE_FIELDS:
            if getattr(a.fluid, name) != getattr(group[0].fluid, name):
                raise ParameterError(
                    f"pressure cylinders on pump {pump!r}: {a.name!r} has fluid.{name} = {getattr(a.fluid, name)!r} "
                    f"but {group[0].name!r} has {getattr(group[0].fluid, name)!r}; cylinders on one pump line share "
                    f"it: give them the same {name}"
                )


Signal = float | np.ndarray | Callable
"""An input: a constant, an array sampled on the step grid t_k = k·h, or a callable of t [s]."""


@dataclass(frozen=True)
class SiteLoad:
    """An external force [N] (world frame, 3 components) applied at a site, and optionally a
    moment [N m] (world frame) on the site's body; ``force`` and ``moment`` are each a constant
    3-vector, an array (n_steps, 3) or a callable t ↦ 3-vector (or (n, 3) for an array of t)."""

    site: str
    force: Signal
    moment: Signal | None = None

    def __post_init__(self) -> None:
        _site_name("site", self.site)


# --------------------------------------------------------------------------------------------
# names of the model


def body_name(model: mujoco.MjModel, body: int) -> str:
    """The body's name in the model, or ``body N`` for an unnamed one (for messages)."""
    return mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, body) or f"body {body}"


def site_id(model: mujoco.MjModel, name: str, who: str = "") -> int:
    """The id of site ``name``; ``ParameterError`` listing the model's sites if unknown."""
    site = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, name)
    if site < 0:
        known = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_SITE, s) for s in range(model.nsite)]
        where = f"actuator {who!r}: " if who else ""
        raise ParameterError(
            f"{where}unknown site {name!r}; the model's sites are {known or 'none'}: name one of them "
            "or add a <site> at the cylinder pin"
        )
    return site


def slide_joint(model: mujoco.MjModel, name: str, who: str = "", rotary: bool = False) -> tuple[int, int]:
    """(qpos address, dof address) of slide joint ``name`` (hinge joint if ``rotary``);
    ``ParameterError`` listing the model's joints of that type if it is unknown or of another."""
    wanted, what = (mujoco.mjtJoint.mjJNT_HINGE, "hinge") if rotary else (mujoco.mjtJoint.mjJNT_SLIDE, "slide")
    joints = [
        mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint {j}"
        for j in range(model.njnt)
        if model.jnt_type[j] == wanted
    ]
    joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
    where = f"actuator {who!r}: " if who else ""
    if joint < 0:
        problem = f"unknown joint {name!r}"
    elif model.jnt_type[joint] != wanted:
        kind = mujoco.mjtJoint(int(model.jnt_type[joint])).name.removeprefix("mjJNT_").lower()
        problem = f"joint {name!r} is a {kind} joint, not a {what} joint"
    else:
        return int(model.jnt_qposadr[joint]), int(model.jnt_dofadr[joint])
    remedy = "" if rotary else ", or attach the cylinder between two sites (base_site, rod_site)"
    listed = f"the model's {what} joints are {joints or 'none'}"
    raise ParameterError(f"{where}{problem}; {listed}: name one of them{remedy}")


# --------------------------------------------------------------------------------------------
# the kernel's arrays


@dataclass(frozen=True)
class CylinderArrays:
    """The cylinders of one model in the kernel's order and their packed parameters.

    ``actuators``: own-pump (or constant-supply) quasistatic cylinders, then the pressure cylinders one pump line
    after the other (an own line is a group of one), then each quasistatic pump group together;
    ``networks``: the ``PumpNetwork`` of each quasistatic pump name; ``group_edges``: the pump
    groups as consecutive [start, stop) ranges of that order; ``pgroup_edges``: likewise the
    pressure cylinders' pump lines; ``ints`` (n, N_INTS) and ``gain`` (n, N_GAIN): the tables
    of the ``J_*`` and ``G_*`` columns; ``cps`` (n, N_CIRCUIT): circuit vectors; ``hps``
    (n, N_PRESSURE): fluid vectors (zero rows for quasistatic cylinders).
    """

    actuators: tuple[Cylinder, ...]
    networks: dict[str, PumpNetwork]
    group_edges: np.ndarray
    pgroup_edges: np.ndarray
    ints: np.ndarray
    gain: np.ndarray
    cps: np.ndarray
    hps: np.ndarray


def pack_cylinders(model: mujoco.MjModel, actuators: Sequence[Cylinder]) -> CylinderArrays:
    """Check ``actuators`` against ``model`` (distinct names, known sites on two bodies or a slide
    joint, one model per pump, agreeing pump lines) and pack them (see ``CylinderArrays``)."""
    actuators = list(actuators)
    if not actuators:
        raise ParameterError("give at least one actuator (QuasistaticCylinder or PressureCylinder)")
    names = [a.name for a in actuators]
    if len(set(names)) != len(names):
        raise ParameterError(f"actuator names must be distinct; got {names}")
    for a in actuators:
        if not isinstance(a, (QuasistaticCylinder, PressureCylinder)):
            raise ParameterError(f"{a!r}: give QuasistaticCylinder or PressureCylinder objects")
    singles = [a for a in actuators if isinstance(a, QuasistaticCylinder) and a.pump is None]
    lines: dict[object, list[PressureCylinder]] = {}
    for j, a in enumerate(actuators):
        if isinstance(a, PressureCylinder):
            lines.setdefault(("pump", a.pump) if a.pump is not None else ("own", j), []).append(a)
    for key, group in lines.items():
        if key[0] == "pump":
            _check_shared_line(key[1], group)
    pumps: dict[str, list[QuasistaticCylinder]] = {}
    for a in actuators:
        if isinstance(a, QuasistaticCylinder) and a.pump is not None:
            pumps.setdefault(a.pump, []).append(a)
    mixed = sorted(set(pumps) & {key[1] for key in lines if key[0] == "pump"})
    if mixed:
        raise ParameterError(
            f"pump {mixed[0]!r} has both QuasistaticCylinder and PressureCylinder members; one pump takes one "
            "cylinder model: give them the same model or different pump names"
        )
    pressure = [a for group in lines.values() for a in group]
    ordered = singles + pressure + [a for group in pumps.values() for a in group]
    networks = {pump: PumpNetwork([a.circuit for a in group]) for pump, group in pumps.items()}
    edges = [len(singles) + len(pressure)]
    for group in pumps.values():
        edges.append(edges[-1] + len(group))
    pedges = [len(singles)]
    for group in lines.values():
        pedges.append(pedges[-1] + len(group))

    n = len(ordered)
    ints = np.zeros((n, N_INTS), dtype=np.int64)
    gain = np.zeros((n, N_GAIN))
    gain[:, G_MASS_FACTOR] = 1.0
    cps = np.zeros((n, N_CIRCUIT))
    hps = np.zeros((n, N_PRESSURE))
    for i, a in enumerate(ordered):
        if a.joint is not None:
            qadr, dadr = slide_joint(model, a.joint, a.name, a.rotary)
            base = rod = body_base = body_rod = -1
            gain[i, G_OFFSET] = a.length_offset
        else:
            qadr = dadr = -1
            base, rod = site_id(model, a.base_site, a.name), site_id(model, a.rod_site, a.name)
            body_base, body_rod = int(model.site_bodyid[base]), int(model.site_bodyid[rod])
            if body_base == body_rod:
                raise ParameterError(
                    f"actuator {a.name!r}: sites {a.base_site!r} and {a.rod_site!r} are on the same body "
                    f"({body_name(model, body_base)!r}); the pins must be on two different bodies"
                )
        if a.supply_pressure is not None:
            gain[i, G_SUPPLY] = a.supply_pressure
        if isinstance(a, QuasistaticCylinder):
            kind = (
                KIND_NETWORK
                if a.pump is not None
                else KIND_SUPPLY
                if a.supply_pressure is not None
                else KIND_QUASISTATIC
            )
            gain[i, G_STIFFNESS] = a.relaxation.stiffness
            gain[i, G_DAMPING] = a.relaxation.damping
        else:
            kind = KIND_PRESSURE
            hps[i] = a.fluid.kernel_array()
        gain[i, G_MIN_LENGTH], gain[i, G_MAX_LENGTH] = a.length_limits
        ints[i, [J_BASE_SITE, J_ROD_SITE, J_BASE_BODY, J_ROD_BODY, J_KIND, J_QPOS, J_DOF]] = (
            base,
            rod,
            body_base,
            body_rod,
            kind,
            qadr,
            dadr,
        )
        cps[i] = a.circuit.kernel_array()
    return CylinderArrays(
        actuators=tuple(ordered),
        networks=networks,
        group_edges=np.array(edges, dtype=np.int64),
        pgroup_edges=np.array(pedges, dtype=np.int64),
        ints=ints,
        gain=gain,
        cps=cps,
        hps=hps,
    )
