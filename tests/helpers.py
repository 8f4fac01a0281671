"""Shared test helpers: sampling tolerances derived from the sample size."""

from __future__ import annotations

import numpy as np

from montecarlo.distribution import Distribution
from montecarlo.stats import fit_test

#: Significance level of the sampled-vs-exact tests.  With fixed seeds a test
#: either always passes or always fails; at this level a correct kernel fails
#: one seed in a thousand, while a wrong pmf fails for every seed.
ALPHA = 1e-3


def assert_matches(samples: np.ndarray, exact: Distribution, alpha: float = ALPHA) -> None:
    """Assert a sample agrees with an exact law: chi-square and TV bound from n."""
    fit = fit_test(samples, exact, alpha=alpha)
    assert fit.pvalue > alpha, f"chi-square rejects {exact.name}: {fit}"
    assert fit.tv < fit.tv_bound, f"total variation too large for {exact.name}: {fit}"


def assert_rate(k: int, n: int, p: float, z: float = 3.29) -> None:
    """Assert k successes in n trials are within z standard errors of p (99.9%)."""
    se = np.sqrt(p * (1 - p) / n)
    assert abs(k / n - p) <= z * se + 1e-12, f"{k}/{n} = {k / n:.5f} vs exact {p:.5f}"


def kernel_entry_points() -> dict[str, object]:
    """The kernels' compiled functions that Python calls: ``"module.name"`` → dispatcher.

    Neither helpers (called from jitted code only) nor functions inlined before
    typing (``inline="always"``, never compiled alone).
    """
    import importlib
    import pkgutil

    from numba.core.dispatcher import Dispatcher

    import kernels
    from kernels.jit import Helper

    found = {}
    for info in pkgutil.iter_modules(kernels.__path__):
        module = importlib.import_module(f"kernels.{info.name}")
        for name, value in vars(module).items():
            if not isinstance(value, Dispatcher) or value.py_func.__module__ != module.__name__:
                continue
            if not isinstance(value, Helper) and value.targetoptions.get("inline") != "always":
                found[f"{info.name}.{name}"] = value
    return found
