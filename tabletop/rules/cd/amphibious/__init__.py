"""Amphibious operations (CD 8), by rule area.

- ``landing``: the approach, beaching, unloading, amphibious vehicles ashore, scatter
  (CD 8.1, 8.1.1-8.1.3);
- ``wading``: troops wading ashore (CD 8.1.4);
- ``obstacles``: beach mines and obstacles (CD 8.1.5, 8.1.6);
- ``attacks``: attacks on the landing wave by stage (CD 8.2);
- ``lift``: amphibious lift points and their losses (CD 8.3);
- ``naval``: preliminary bombardment, warship ratings, naval fire support (CD 8.4);
- ``odds``: exact odds of the scatter (company by company), the run in (craft by craft),
  the bombardment and naval fire (stand by stand), from the functions they roll with;
- ``common``: chart lookups, results, the shore's geometry, craft and cargo shared by the
  others (its docstring lists a craft's stages).
"""
