"""`runners report`: one static HTML page from a batch's or a Promptfoo eval's results
(docs/report.md). `links` (where a row's place on the page is: imported by the providers),
`model` (the rows, whatever their source), `load` (a batch directory, a Promptfoo export or
Promptfoo's own store), `figures` (plotly), `page` (the HTML).
"""
