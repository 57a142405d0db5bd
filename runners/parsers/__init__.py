"""Parsers: one per report format, each turning a report into `ParsedReport` records."""
