"""The typed parameter classes, one module per rule area, each loaded when a command first
asks for one of its classes (``tabletop.data.chart_params`` is the index)."""
