"""skatlog.reports: the HTML report of ``skatlog report``.

:mod:`.build` orchestrates, :mod:`.parts` splits the games by origin, bot line-up and rule
set, :mod:`.pages` builds each part's pages, :mod:`.html` and :mod:`.figures` write the
markup and the Plotly charts, :mod:`.output` replaces the output folder whole.
"""
