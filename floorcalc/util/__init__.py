"""Infrastructure every stage may use, and which uses no stage: the errors and their exit
codes (:mod:`~floorcalc.util.errors`), whole-or-nothing output files
(:mod:`~floorcalc.util.output`), progress reporting (:mod:`~floorcalc.util.progress`), and the
garbage collector paused over large record builds (:mod:`~floorcalc.util.gcpause`), the code of
the records' dataclass methods kept between runs of the command (:mod:`~floorcalc.util.methodcache`),
and the command's C heap told to keep the memory it frees (:mod:`~floorcalc.util.heap`).
"""
