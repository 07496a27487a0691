"""skatlog.web: the club upload web app."""
