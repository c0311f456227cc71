"""The machines of the papers and the built-in scenarios, as validated parameter data.

One module per machine; each builds the parameter classes of the physics layers
(``hydraulics``, ``mechanics``, ``electromech``) from documented values and names the source
of every number (a paper's table or equation, its spec, or a stated assumption).
"""
