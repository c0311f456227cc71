"""Control: controllers that take models and return commands (MPC, PID, VDC)."""
