"""skatlog.ingest"""
