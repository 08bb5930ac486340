"""The bottom floor: errors, units and tolerances, dice, sides, exact fractions."""
