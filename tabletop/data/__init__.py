"""Data: the schema checker, the rule charts, the scenario file, and the table built from them."""
