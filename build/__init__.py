# -----------------------------------------------------------------------------
# build/__init__.py
# -----------------------------------------------------------------------------
#
# build/ as the package `build`: its Python (the project-wide layer check,
# the family-list check) is imported and run as build.NAME, from the
# workspace root, like every other Python module of the project.
