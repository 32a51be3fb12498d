# A factory module that calls sys.exit while it loads (test/models/export-errors.test).
import sys

sys.exit(3)


def make():
    pass
