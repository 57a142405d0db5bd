"""The model: what a problem, an environment and a result are, and the pure rules over them
(pass policies, groups, limits, exit codes). No I/O of runs; every other layer reads it.
"""
