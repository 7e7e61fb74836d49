"""Argument errors shared by the row normalisations' Python tests (src/ops/layernorm and rmsnorm):
imported by name, as conftest.py puts this folder on sys.path."""
import numpy as np
import pytest


def check_gamma_and_eps_errors(norm, x):
    """norm(x, gamma, eps=...) on float32 rows x of 4 columns: a negative or NaN eps is an invalid
    argument (ValueError), a gamma of another length a ValueError, one of another dtype a TypeError."""
    for eps in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="invalid argument"):
            norm(x, eps=eps)
    with pytest.raises(ValueError, match="gamma has shape"):
        norm(x, np.ones(3, np.float32))
    with pytest.raises(TypeError, match="gamma must be float32"):
        norm(x, np.ones(4, np.float64))
