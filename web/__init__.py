"""skatlog.web: the club upload web app (``skatlog serve``).

Modules: :mod:`.app` (FastAPI routes and pages), :mod:`.clubs` (clubs and hashed tokens),
:mod:`.auth` (who is asking), :mod:`.receive` (streaming multipart upload with a size cap),
:mod:`.unpack` (decompression with bomb, binary and line-length guards), :mod:`.process`
(unpack -> validate -> atomic ingest), :mod:`.backend` (the only calls into ingest, analytics
and reports), :mod:`.reports_site` (per-club report pages), :mod:`.progress`,
:mod:`.samples` (engine-played sample logs) and :mod:`.settings`.
"""
