"""Argument matching of the bindings' fast calls (python/src/fastcall.cc): positional and keyword
forms, and Python's errors for the rest, through softmax and matmul."""
import numpy as np
import pytest

import vlak


def test_argument_matching():
    x = np.zeros((2, 3), np.float32)
    y = np.empty_like(x)
    # positional and keyword forms agree
    np.testing.assert_array_equal(vlak.softmax(x, -1, False, False, "accurate", y), vlak.softmax(x=x, axis=-1))
    with pytest.raises(TypeError, match="unexpected keyword argument 'dim'"):
        vlak.softmax(x, dim=-1)
    with pytest.raises(TypeError, match="multiple values for argument 'axis'"):
        vlak.softmax(x, -1, axis=0)
    with pytest.raises(TypeError, match="missing required argument 'x'"):
        vlak.softmax()
    with pytest.raises(TypeError, match="at most 6 positional"):
        vlak.softmax(x, -1, False, False, "accurate", y, 1)
    with pytest.raises(TypeError, match="exp must be a str"):
        vlak.softmax(x, exp=1)
    with pytest.raises(TypeError):
        vlak.softmax(x, axis=1.5)
    with pytest.raises(TypeError, match="missing required argument 'b'"):
        vlak.matmul(x)
