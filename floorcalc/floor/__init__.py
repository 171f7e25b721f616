"""Floor stage: the hardware floor of counted work on a device, ``max(F/P, B/W) + k·L``, and a
collective's, by its link (:mod:`floorcalc.floor.roofline`)."""
