"""Run every benchmark in turn (each also runs on its own)."""

import bench_arm
import bench_calibration
import bench_circuits
import bench_crane
import bench_emla
import bench_emla_optimisation
import bench_excavator
import bench_fmu
import bench_machine
import bench_identification
import bench_identification_uncertainty
import bench_ieha
import bench_lam
import bench_models
import bench_network
import bench_peers
import bench_runs
import bench_sensitivity
import bench_startup
import bench_sweep

if __name__ == "__main__":
    bench_lam.main()
    bench_arm.main()
    bench_startup.main()
    bench_models.main()
    bench_network.main()
    bench_circuits.main()
    bench_peers.main()
    bench_runs.main()
    bench_sweep.main()
    bench_sensitivity.main()
    bench_identification.main()
    bench_identification_uncertainty.main()
    bench_calibration.main()
    bench_crane.main()
    bench_ieha.main()
    bench_emla.main()
    bench_emla_optimisation.main()
    bench_excavator.main()
    bench_fmu.main()
    bench_machine.main()
