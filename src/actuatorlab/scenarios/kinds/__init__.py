"""Scenario kinds: each module turns a validated scenario into a ``ScenarioOutput``."""
