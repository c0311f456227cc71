"""Flows and the energy ledger of a simulated netlist run.

From the node pressures p (n_t, n_nodes) and inputs u (n_t, n_inputs) of
:func:`~.solvers.simulate`:

- ``run_flows``: every branch's flow [m³/s] at every sample, named ``"component"`` (one branch)
  or ``"component.branch"`` (:func:`~.branch_ports.branch_ports`), q > 0 from its first port to
  its second;
- ``energy_ledger``: per component, with P_b = q_b (p_a − p_b) [W] the power a branch takes from
  the oil (outside the network: 0 Pa) and E = Σ_k P(t_k) (t_k − t_{k−1}) (the backward-Euler
  step's own rule),

  * a pump's ``delivered`` energy −Σ_b E_b (> 0 while it pumps);
  * a cylinder's ``work`` on its load, ∫ f v dt with f = A_h p_h − A_r p_r (its piston
    branches), and its piston leakage ``dissipated``; a motor's ``work`` ∫ T ω dt, T = η_m D
    Δp / 2π, and the rest of its hydraulic power ``dissipated``; a tank at a pressure p_T ≠ 0
    (an ideal load) the ``work`` ∫ p_T q_in dt it absorbs (< 0: it supplies);
  * every other part (valves, orifices, compensators, shuttles) ``dissipated`` Σ_b E_b ≥ 0;

  and the oil ``stored``: Σ_k Σ_n p_n [V_n/β (p_n,k − p_n,k−1) + S_n(p_k) − S_n(p_{k−1})]
  over the node volumes V_n (pressure dynamics only) and gas accumulators S_n, from the
  volumes and pressures alone. The node balances make delivered = dissipated + work + stored;
  ``balance_error`` is what the solver's tolerance leaves of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .actuators import Cylinder, Motor
from .branch_ports import branch_ports
from .kernels import stored_history
from .network import Network
from .solvers import branch_flows
from .sources import FixedPump, Tank, VariablePump

PUMPS = (FixedPump, VariablePump)


def run_flows(network: Network, p: np.ndarray, u: np.ndarray) -> dict[str, np.ndarray]:
    """Flow [m³/s] of every branch over the run, ``"component"`` or ``"component.branch"``."""
    flows = branch_flows(network, p, u)
    out = {}
    for name, (component, _) in network.parts.items():
        for j, (branch, _, _) in enumerate(branch_ports(component)):
            out[_key(name, branch)] = flows[name][:, j]
    return out


def _key(name: str, branch: str) -> str:
    return f"{name}.{branch}" if branch else name


def tank_flows(network: Network, flows: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Flow [m³/s] into each tank (the net branch flow into its node; < 0: it supplies), the
    first tank of a node taking all of it."""
    n_t = next(iter(flows.values())).size if flows else 0
    inflow = np.zeros((n_t, len(network.nodes)))
    for name, (component, ports) in network.parts.items():
        for branch, a, b in branch_ports(component):
            if a is not None:
                inflow[:, network.node(ports[a])] -= flows[_key(name, branch)]
            if b is not None:
                inflow[:, network.node(ports[b])] += flows[_key(name, branch)]
    out, seen = {}, set()
    for name, (component, ports) in network.parts.items():
        if isinstance(component, Tank) and ports["port"] not in seen:
            seen.add(ports["port"])
            out[name] = inflow[:, network.node(ports["port"])]
    return out


@dataclass(frozen=True)
class Ledger:
    """Energies [J] of a run (module docstring): component → ``delivered`` (pumps), ``work``
    (actuators, loaded tanks), ``dissipated`` (everything that loses energy); ``stored`` in the
    oil and gas; ``balance_error`` = Σ delivered − Σ dissipated − Σ work − stored."""

    delivered: dict[str, float]
    work: dict[str, float]
    dissipated: dict[str, float]
    stored: float

    @property
    def balance_error(self) -> float:
        """Σ delivered − Σ dissipated − Σ work − stored [J]: what the solver's tolerance leaves."""
        total = sum(self.delivered.values()) - sum(self.dissipated.values()) - sum(self.work.values())
        return total - self.stored


def _pressure_at(network: Network, p: np.ndarray, node: str | None) -> np.ndarray:
    return np.zeros(p.shape[0]) if node is None else p[:, network.node(node)]


def energy_ledger(network: Network, t: np.ndarray, p: np.ndarray, u: np.ndarray, flows, model: str) -> Ledger:
    """The ledger of a run of ``model`` ("quasistatic" or "pressure") with the ``flows`` of
    :func:`run_flows` (see the module docstring for the signs)."""
    h = np.diff(t, prepend=t[0])
    delivered, work, dissipated = {}, {}, {}
    for name, (component, ports) in network.parts.items():
        powers = [
            flows[_key(name, branch)]
            * (_pressure_at(network, p, ports.get(a)) - _pressure_at(network, p, ports.get(b)))
            for branch, a, b in branch_ports(component)
        ]
        absorbed = float(np.sum(sum(powers, np.zeros_like(t)) * h))
        if isinstance(component, PUMPS):
            delivered[name] = -absorbed
        elif isinstance(component, Cylinder):
            work[name] = float(np.sum((powers[0] + powers[1]) * h))
            dissipated[name] = absorbed - work[name]
        elif isinstance(component, Motor):
            pressures = (_pressure_at(network, p, ports[port]) for port in ("inlet", "outlet"))
            torque = component.torque(*pressures)
            work[name] = float(np.sum(torque * u[:, network.inputs.index(f"{name}.speed")] * h))
            dissipated[name] = absorbed - work[name]
        elif powers:
            dissipated[name] = absorbed
    for name, q in tank_flows(network, flows).items():
        pressure = network.parts[name][0].pressure
        if pressure != 0.0:
            work[name] = float(np.sum(pressure * q * h))
    return Ledger(delivered, work, dissipated, _stored(network, p, u, model))


def _stored(network: Network, p: np.ndarray, u: np.ndarray, model: str) -> float:
    """Σ_k p_k·(oil volume stored from k − 1 to k) [J] over node volumes and gas accumulators."""
    total = 0.0
    dp = np.diff(p, axis=0)
    for name, (component, ports) in network.parts.items():
        nodes = {port: network.node(node) for port, node in ports.items()}
        signals = {s: network.inputs.index(f"{name}.{s}") for s in component.INPUTS}
        if model == "pressure":
            for v in component.volumes(nodes, signals):
                volume = v.volume + (v.gain * u[1:, v.input] if v.input >= 0 else 0.0)
                total += float(np.sum(p[1:, v.node] * volume * dp[:, v.node])) / network.bulk_modulus
        for g in component.gas_stores(nodes):
            s = np.empty(p.shape[0])
            stored_history(
                np.ascontiguousarray(p[:, g.node]), g.precharge_pressure, g.gas_volume, g.polytropic_index, s
            )
            total += float(np.sum(p[1:, g.node] * np.diff(s)))
    return total
