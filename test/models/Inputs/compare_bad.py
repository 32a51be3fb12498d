# Factories that fail in the ways a user's do, for compare-errors.test: each must
# give remat.compare one FAIL line, never a traceback.
import sys


def raises():
    raise RuntimeError("the factory's own error")


def exits():
    sys.exit("the factory gave up")


def not_a_pair():
    return 42
