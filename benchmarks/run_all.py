"""Run every benchmark in turn (each also runs on its own)."""

import bench_arm
import bench_lam

if __name__ == "__main__":
    bench_lam.main()
    bench_arm.main()
