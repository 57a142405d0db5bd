"""Outputs: results as a person or another tool reads them (terminal tables, JUnit XML and
CTRF, the static report page).
"""
