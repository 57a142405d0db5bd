"""Adapters run the submission on a case: `cli` (one process per case), `api` (a server per group,
HTTP requests per case), `browser` (a server per group, headless Chromium per case)."""
