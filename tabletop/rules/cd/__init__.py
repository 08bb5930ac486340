"""Command Decision: Test of Battle, advanced rules (seed 001), one module per rule area."""
