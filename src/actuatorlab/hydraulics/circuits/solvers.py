"""The two models of a netlist: quasistatic and pressure dynamics, one step or a whole run.

Both solve the node balances of :mod:`.kernels` at each step:

- **quasistatic** (β → ∞): Σ q = Ṡ at every free node — the set-valued network of ideal
  valves read as its relaxed form: every set-valued law (relief, check, compensator,
  counterbalance) is the limit of its proportional band (:mod:`.branch`), which it keeps, so
  each step solves a piecewise-smooth system. Where every branch law depends on its own pressure
  difference only and is nondecreasing (orifices, reliefs, checks, spools, sources), G = −∇Φ of
  the convex sum Φ of the branches' co-contents: a solution exists when Φ is coercive and is
  unique where Φ is strictly convex, and damped Newton on G is Newton on Φ. Pilot-operated
  branches (counterbalance and pilot checks, compensators, LS pump, reducing valve) couple a
  branch to other nodes' pressures: G is then no gradient and we solve the piecewise-smooth
  system (the smoothed form of its complementarity problem) by the same semismooth Newton with
  the pilot columns in the Jacobian; there uniqueness is checked locally only — a singular
  Jacobian at the solution (a node whose balance does not depend on any pressure: everything at
  it closed, no leakage) is reported as not unique, naming the node;
- **pressure dynamics**: the node volumes with the bulk modulus β, V/β ṗ = Σq − Ṡ, stepped by
  backward Euler (L-stable, so stiff-safe at any step), Newton as above, the step halved on a
  failure.

Steps report a status; these drivers raise ``SimulationError`` naming the time, the node and
why. ``simulate`` runs a whole input history in one compiled loop.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ...errors import SimulationError
from ...numerics.copying import copy_into
from ..fluid import OIL_BULK_MODULUS
from .kernels import NOT_CONVERGED, OK, SCRATCH_ROWS, SINGULAR, STATUS_TEXT, flow_history, solve_nodes
from .network import Network

MODELS = ("quasistatic", "pressure")
PTC_VOLUME = 1.0e-3
"""Oil volume [m³] given to every free node by the pseudo-transient start of a cold solve."""
PTC_STEPS = (1e-5, 1e3)
"""First and last pseudo-time step [s] of that start (the step doubles after each success)."""
PTC_BULK_MODULUS = OIL_BULK_MODULUS
"""Bulk modulus [Pa] of the pseudo-transient's oil (only the pseudo-time's scale)."""
PTC_MAX_STEPS = 200
MAX_HALVINGS = 6


@nb.njit(cache=True)
def pseudo_transient(rows, vols, gas, held, u, start, p, work, dq) -> int:
    """A start Newton cannot solve directly, into ``p``: pseudo-transient continuation (Kelley &
    Keyes, SIAM J. Numer. Anal. 35, 1998): backward-Euler steps of every free node given
    PTC_VOLUME of oil at the bulk modulus PTC_BULK_MODULUS, from ``start``, the step doubling from
    PTC_STEPS[0] while it converges and quartered when it does not, up to PTC_STEPS[1], where the
    transient has died out: the end is the guess of the quasistatic Newton. Returns the status
    of the last pseudo-step."""
    n = p.size
    free = 0
    for i in range(n):
        if math.isnan(held[i]):
            free += 1
    volumes = np.empty((vols.shape[0] + free, vols.shape[1]))
    for k in range(vols.shape[0]):
        copy_into(volumes[k], vols[k])
    j = vols.shape[0]
    for i in range(n):
        if math.isnan(held[i]):
            volumes[j, 0] = i
            volumes[j, 1] = PTC_VOLUME
            volumes[j, 2] = 0.0
            volumes[j, 3] = -1.0
            j += 1
    copy_into(p, start)
    trial = np.empty(n)
    h = PTC_STEPS[0]
    status = OK
    for _ in range(PTC_MAX_STEPS):
        copy_into(trial, p)
        status, _, _ = solve_nodes(rows, volumes, gas, held, 1.0 / PTC_BULK_MODULUS, u, h, p, trial, work, dq)
        if status == OK:
            copy_into(p, trial)
            if h >= PTC_STEPS[1]:
                break
            h *= 2.0
        else:
            h *= 0.25
    return status


@nb.njit(cache=True)
def network_step(rows, vols, gas, held, compressibility, u, h, p, guess, work, dq) -> tuple[int, int, int]:
    """Advance node pressures ``p`` in place over one step h [s] (1/β = 0: quasistatic), Newton
    starting from ``guess`` (the last steps extrapolated, or ``p`` itself); on a failure retry
    from ``p`` as 2, 4, … 2^MAX_HALVINGS substeps (pressure dynamics, accumulators), and a
    quasistatic step that still fails from the pseudo-transient continuation of ``p``
    (``pseudo_transient``). ``work`` (n + SCRATCH_ROWS, n): scratch.
    Returns (status, Newton iterations, node)."""
    n = p.size
    if work.shape[0] < n + SCRATCH_ROWS or work.shape[1] != n:
        raise ValueError("network_step: give work of shape (n + SCRATCH_ROWS, n)")
    p0 = work[n + 4]
    start = work[n + 5]
    copy_into(p0, p)
    total = 0
    status, node = OK, -1
    for halvings in range(MAX_HALVINGS + 1):
        n_sub = 1 << halvings
        copy_into(p, guess if halvings == 0 else p0)
        copy_into(start, p0)
        status = OK
        for _ in range(n_sub):
            status, iterations, node = solve_nodes(
                rows, vols, gas, held, compressibility, u, h / n_sub, start, p, work, dq
            )
            total += iterations
            if status != OK:
                break
            copy_into(start, p)
        if status != NOT_CONVERGED or compressibility == 0.0 and gas.shape[0] == 0:
            break
    if status == NOT_CONVERGED and compressibility == 0.0:
        # a quasistatic step Newton cannot reach from the last state: continue to it in pseudo-time
        pseudo_transient(rows, vols, gas, held, u, p0, p, work, dq)
        status, iterations, node = solve_nodes(rows, vols, gas, held, 0.0, u, h, p0, p, work, dq)
        total += iterations
    return status, total, node


@nb.njit(cache=True)
def _run(rows, vols, gas, held, compressibility, t, u, p, out):
    """Steps over the grid ``t`` with inputs ``u`` (len(t), n_u); pressures into ``out``, each
    step's Newton started from the linear extrapolation of the last two (a third fewer
    iterations on smooth inputs than from the last state). Returns (status, sample index, node,
    Newton iterations)."""
    n = p.size
    work = np.empty((n + SCRATCH_ROWS, n))
    dq = np.empty(5)
    guess = np.empty(n)
    copy_into(out[0], p)
    total = 0
    for k in range(1, t.size):
        for i in range(n):
            guess[i] = 2.0 * p[i] - out[k - 2, i] if k > 1 else p[i]
        status, iterations, node = network_step(
            rows, vols, gas, held, compressibility, u[k], t[k] - t[k - 1], p, guess, work, dq
        )
        total += iterations
        if status != OK:
            return status, k, node, total
        copy_into(out[k], p)
    return OK, t.size, -1, total


def _compressibility(network: Network, model: str) -> float:
    """The oil's compressibility 1/β [1/Pa] the node balances use: 0 in the quasistatic model."""
    if model not in MODELS:
        raise SimulationError(f"model = {model!r}: choose one of {', '.join(MODELS)}")
    if model == "pressure":
        if network.volumes.shape[0] == 0:
            raise SimulationError("the pressure-dynamics model needs node volumes: add Line components or cylinders")
        _check_volumes(network)
    return 0.0 if model == "quasistatic" else 1.0 / network.bulk_modulus


def _check_volumes(network: Network) -> None:
    """Every free node has an oil volume in the pressure-dynamics model."""
    has = set(network.volumes[:, 0].astype(int)) | set(network.gas[:, 0].astype(int))
    for i, name in enumerate(network.nodes):
        if math.isnan(network.held[i]) and i not in has:
            raise SimulationError(f"node {name!r} has no oil volume: add a Line at it for the pressure-dynamics model")


def raise_failed_solve(network: Network, status: int, time: float, node: int) -> None:
    """Raise the ``SimulationError`` of a failed solve: the time [s], the node, why and a remedy."""
    where = f" at node {network.nodes[node]!r}" if node >= 0 else ""
    remedy = {
        SINGULAR: "declare a leakage on a valve at that node or use the pressure-dynamics model",
        NOT_CONVERGED: "check the circuit's settings or shorten the step",
    }.get(status, "check the inputs")
    raise SimulationError(f"circuit solve at t = {time:.6g} s failed{where}: {STATUS_TEXT[status]}; {remedy}")


def simulate(network: Network, t, inputs, initial=None, model: str = "quasistatic") -> np.ndarray:
    """Node pressures [Pa] of shape (len(t), n_nodes) over the grid ``t`` [s] with inputs ``inputs``
    (len(t), n_inputs) in ``network.inputs`` order, from ``initial`` pressures (default: the tank
    pressures, 0 elsewhere); the first row is ``initial`` (quasistatic without accumulators: solved
    at t[0]; an accumulator's initial pressure is its state). Raises ``SimulationError`` naming the
    time and node of a failed step."""
    compressibility = _compressibility(network, model)
    t = np.ascontiguousarray(t, dtype=np.float64)
    u = np.ascontiguousarray(inputs, dtype=np.float64).reshape(t.size, len(network.inputs))
    p = np.where(np.isnan(network.held), 0.0, network.held) if initial is None else np.array(initial, dtype=np.float64)
    if model == "quasistatic" and network.gas.shape[0] == 0:
        p = solve(network, u[0], p)
    out = np.empty((t.size, p.size))
    status, k, node, _ = _run(network.rows, network.volumes, network.gas, network.held, compressibility, t, u, p, out)
    if status != OK:
        raise_failed_solve(network, status, float(t[k]), node)
    return out


def solve(network: Network, u, guess=None, previous=None, step: float = 1.0e-3) -> np.ndarray:
    """Quasistatic node pressures [Pa] at inputs ``u`` (network.inputs order), from ``guess``;
    ``previous`` pressures and ``step`` [s] only matter for accumulators (their stored oil)."""
    u = np.ascontiguousarray(u, dtype=np.float64)
    n = len(network.nodes)
    start = np.zeros(n) if guess is None else np.array(guess, dtype=np.float64)
    prev = start.copy() if previous is None else np.asarray(previous, dtype=np.float64)
    work, dq = np.empty((n + SCRATCH_ROWS, n)), np.empty(5)
    p = start.copy()
    status, _, node = solve_nodes(
        network.rows, network.volumes, network.gas, network.held, 0.0, u, step, prev, p, work, dq
    )
    if status == NOT_CONVERGED:
        pseudo_transient(network.rows, network.volumes, network.gas, network.held, u, start, p, work, dq)
        status, _, node = solve_nodes(
            network.rows, network.volumes, network.gas, network.held, 0.0, u, step, prev, p, work, dq
        )
    if status != OK:
        raise_failed_solve(network, status, 0.0, node)
    return p


def branch_flows(network: Network, p, u) -> dict[str, np.ndarray]:
    """Flows [m³/s] of every component's branches at pressures ``p`` and inputs ``u``, by
    component name (in the order its ``branches`` lists them; q > 0 from a to b). ``p`` and
    ``u`` may be one state (n,), (n_u,) or a run (n_t, n), (n_t, n_u): then each component's
    flows are (n_t, n_branches)."""
    p = np.asarray(p, dtype=np.float64)
    u = np.asarray(u, dtype=np.float64)
    history = np.empty((1 if p.ndim == 1 else p.shape[0], network.rows.shape[0]))
    flow_history(network.rows, np.atleast_2d(p), np.atleast_2d(u), history)
    columns: dict[str, list[int]] = {}
    for k, owner in enumerate(network.owners):
        columns.setdefault(owner, []).append(k)
    return {name: history[0, ks] if p.ndim == 1 else history[:, ks] for name, ks in columns.items()}
