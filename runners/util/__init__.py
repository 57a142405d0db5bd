"""Utilities every layer uses: host process facts, the janitor, progress lines, remembered
probes and small text helpers. Nothing here knows about problems or results.
"""
