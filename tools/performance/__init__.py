"""The parts of tools/performance_tables.py: where it measures (targets), how it runs the
programs and holds their figures (runner), one module per kind of benchmark, and the page."""
