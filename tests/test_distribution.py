"""Properties of the exact Distribution object, on random laws (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import montecarlo as mc

weights = st.lists(st.integers(0, 50), min_size=1, max_size=12).filter(lambda w: sum(w) > 0)


def law(ws: list[int], lo: int) -> mc.Distribution:
    p = np.array(ws, dtype=float)
    return mc.Distribution(p / p.sum(), lo)


@settings(max_examples=60, deadline=None)
@given(a=weights, b=weights, lo_a=st.integers(-5, 5), lo_b=st.integers(-5, 5))
def test_sum_of_independent_laws(a, b, lo_a, lo_b):
    x, y = law(a, lo_a), law(b, lo_b)
    z = x.convolve(y)
    assert z.mean() == pytest.approx(x.mean() + y.mean(), abs=1e-9)
    assert z.var() == pytest.approx(x.var() + y.var(), abs=1e-9)
    assert z.probabilities.sum() == pytest.approx(1.0)
    assert z.lo == x.lo + y.lo and z.hi == x.hi + y.hi


@settings(max_examples=60, deadline=None)
@given(a=weights, lo=st.integers(-5, 5), q=st.floats(0.0, 1.0))
def test_ppf_inverts_cdf(a, lo, q):
    x = law(a, lo)
    k = x.ppf(q)
    assert x.cdf(k) >= q - 1e-9
    assert x.cdf(k - 1) < q or k == x.lo
    assert x.sf(k) == pytest.approx(1 - x.cdf(k))


@settings(max_examples=40, deadline=None)
@given(a=weights, b=weights, w=st.floats(0.0, 1.0))
def test_mixture_and_map(a, b, w):
    x, y = law(a, 0), law(b, 3)
    m = mc.Distribution.mixture([w, 1 - w], [x, y])
    assert m.mean() == pytest.approx(w * x.mean() + (1 - w) * y.mean(), abs=1e-9)
    doubled = x.map(lambda v: 2 * v)
    assert doubled.mean() == pytest.approx(2 * x.mean(), abs=1e-9)
    assert doubled.pmf(2 * x.lo) == pytest.approx(x.pmf(x.lo))
