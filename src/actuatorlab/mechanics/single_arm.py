"""The single-DOF arm of Kikuuwe et al. Sec. 4.3, Fig. 5, eqs. (79)–(89).

A rigid arm rotates about a pivot at the origin; θ [rad] is measured from the horizontal,
counter-clockwise positive, gravity along −y. The cylinder acts between a base pin r_b fixed
to the ground and the arm pin r_m = [−L_m cos(θ − α), −L_m sin(θ − α)] (89), behind the
pivot, so **extending the rod lowers the arm and retracting raises it**. A vertical external
force f_ey [N] (positive upward) acts at r_f = L_f [cos θ, sin θ].

(79): (J + M L_g²) θ̈ = r_g × [0, −M g] + r_m × (e·f) + r_f × [0, f_ey], with
e = (r_m − r_b)/‖r_m − r_b‖ the rod direction and f > 0 pushing the rod out; "×" is the 2-D
cross product a1 b2 − a2 b1.

The paper does not give r_b, g or the initial angle. The defaults place r_b on the line
through r_m(θ = 0) perpendicular to the lever, 1.5 m from r_m, so the lever arm is the full
L_m at θ = 0 and the pin-to-pin length is 1.5 m; g = 9.81 m/s².

The compiled geometry and torque live in :mod:`.single_arm_kernels` (layout ``K_*`` of
:mod:`.single_arm_layout`), which
``cylinder_length`` and ``torque`` import when called: a scenario's ``[arm]`` table validates
without numba.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ..errors import ParameterError
from ..numerics.layout import Layout
from ..validation import check_quantities, finite, quantity
from .single_arm_layout import ARM


def _default_base(mount_distance: float = 0.6, mount_angle: float = math.pi / 4, length: float = 1.5):
    rmx = -mount_distance * math.cos(-mount_angle)
    rmy = -mount_distance * math.sin(-mount_angle)
    # unit vector perpendicular to the lever r_m, chosen so extension lowers the arm
    nx, ny = rmy / mount_distance, -rmx / mount_distance
    return (rmx - length * nx, rmy - length * ny)


@dataclass(frozen=True)
class SingleArm:
    """Parameters of the arm of Sec. 4.3 (defaults: the paper's values plus documented choices).

    mass M [kg], inertia J [kg m²] about the centre of mass, com_distance L_g [m],
    mount_distance L_m [m], mount_angle α [rad], load_distance L_f [m],
    base (x, y) [m] the cylinder's ground pin r_b, gravity g [m/s²].
    """

    mass: float = quantity(2000.0, "kg")
    inertia: float = quantity(5000.0, "kg m^2")
    com_distance: float = quantity(1.5, "m")
    mount_distance: float = quantity(0.6, "m")
    mount_angle: float = quantity(math.pi / 4, "rad", finite)
    load_distance: float = quantity(3.0, "m")
    base: tuple[float, float] = field(default_factory=_default_base)
    gravity: float = quantity(9.81, "m/s^2", finite)
    LAYOUT: ClassVar[Layout] = ARM
    """The compiled kernels' parameter vector (:mod:`.single_arm_layout`)."""

    def __post_init__(self) -> None:
        check_quantities(self)
        base = tuple(float(x) for x in self.base)
        if len(base) != 2 or not all(map(math.isfinite, base)):
            raise ParameterError(f"base = {self.base!r} m: give the ground pin as two finite numbers [x, y]")
        if math.hypot(*base) <= self.mount_distance:
            raise ParameterError(
                f"base = {list(base)} m lies within the arm pin's circle (radius {self.mount_distance} m): "
                "the cylinder would pass through the pivot; move the base pin further out"
            )
        object.__setattr__(self, "base", base)

    @property
    def pivot_inertia(self) -> float:
        """J + M L_g² [kg m²], the inertia about the pivot."""
        return self.inertia + self.mass * self.com_distance**2

    def kernel_array(self) -> np.ndarray:
        """The float64 parameter vector of the compiled kernels (``LAYOUT``)."""
        bx, by = self.base
        return self.LAYOUT.pack(
            jp=self.pivot_inertia,
            mg=self.mass * self.gravity,
            lg=self.com_distance,
            lm=self.mount_distance,
            alpha=self.mount_angle,
            lf=self.load_distance,
            bx=bx,
            by=by,
            cos_alpha=math.cos(self.mount_angle),
            sin_alpha=math.sin(self.mount_angle),
        )

    def cylinder_length(self, theta) -> tuple[np.ndarray, np.ndarray]:
        """ℓ = ‖r_m − r_b‖ [m] (80) and the lever arm dℓ/dθ [m/rad] at angles ``theta`` [rad]."""
        from .single_arm_kernels import length_and_lever  # compiled: imported on use (see the module)

        theta = np.asarray(theta, dtype=np.float64)
        out = np.empty((2,) + theta.shape)
        length_and_lever(self.kernel_array(), theta.ravel(), out.reshape(2, -1))
        return out[0], out[1]

    def torque(self, theta, f, f_ey) -> np.ndarray:
        """Net torque about the pivot [N m] (right-hand side of (79))."""
        from .single_arm_kernels import torques  # compiled: imported on use (see the module)

        th, f, fe = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (theta, f, f_ey)))
        out = np.empty(th.size)
        torques(self.kernel_array(), th.ravel(), f.ravel(), fe.ravel(), out)
        return out.reshape(th.shape)
