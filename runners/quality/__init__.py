"""Code-quality figures of a submission, checkpoint by checkpoint (docs/quality.md).

`model` (the figures; pydantic only), `sources` (which files, bounded), `tools` (lizard, ruff,
ESLint, jscpd: static analysis in bounded processes), `measure` (cache, previous checkpoint, the
job that runs beside the tests). Imported lazily: `runners.model.results` needs only `model`.
"""
