"""``python -m actuatorlab``: the command line (:func:`actuatorlab.cli.main`), as ``actuatorlab``."""

from actuatorlab.cli import main

raise SystemExit(main())
