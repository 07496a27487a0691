"""skatlog.reports"""
