"""CLI command modules; each defines ``register(app: typer.Typer)``."""
