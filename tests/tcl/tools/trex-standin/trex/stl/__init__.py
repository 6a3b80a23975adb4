"""Stand-in of trex.stl for the tests only (see api.py)."""
