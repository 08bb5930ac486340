"""Scenario authoring: shapes, SVG import, rosters and formation templates (over data/)."""
