"""Stand-in of TRex's package for the tests only (see stl/api.py)."""
