"""Airborne operations (CD 7), by rule area.

- ``drop``: the drop height, hitting the drop zone, the parachute drop and its scatter
  (CD 7.1, 7.2);
- ``aa``: AA fire at the transports and gliders (CD 7.2.2, 7.3.1, 9.1.6);
- ``gliders``: glider landings, deviation and crashes (CD 7.3);
- ``descent``: fire at paratroopers on their way down (CD 7.2.2);
- ``assemble``: a parachuted gun's crew and ammunition joining it (CD 7.1);
- ``stick``: choosing a stick's stands and settling them where they land;
- ``common``: chart lookups, results, aircraft and weather shared by the others;
- ``odds``: the exact odds of a drop (square by square) and of glider landings (glider by
  glider), from the same stage functions the drop and the landings roll with.

A stick is one company's parachute (or glider) stands. Each square of a parachute stick (a
stand; a towed gun is three: crew, ammunition, weapon, CD 7.1) has its own transport, and
each glider carries one stand. AA within reach of the zone fires first; a transport's
forced-back results raise its drop height, a glider's hits lower its landing number, and
enough of them abort it. The drop itself is simulated as the head of ``airborne.yaml``
describes: squares laid along the flight path, each drifting by a circular normal vector
scaled by its height, drawn from two d100 rolls; a d10 decides which side it lands.
Every number is in ``charts/airborne.yaml``; every roll goes through ``ctx.dice``.
"""
