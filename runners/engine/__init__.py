"""The engine: one run, end to end. `protocol.execute` is the run protocol (one named phase
per step); the other modules are what it drives: the submission's copy, the workspace, the
checks of every run (trust, blame), categorizing and the run's artifacts.
"""
