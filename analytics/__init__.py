"""skatlog.analytics"""
