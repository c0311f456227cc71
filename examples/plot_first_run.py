"""
First run
=========

Load a built-in scenario, change a field with its unit, run it in memory and plot.
"""
import actuatorlab
result = actuatorlab.load("arm-relief").run()
result.plot(show=False)
