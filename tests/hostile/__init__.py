"""Hostile submissions: what no submission may do to the harness or its grade (see
docs/SECURITY.md)."""
