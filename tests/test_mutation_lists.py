"""The mutation lists stay usable: every mutation still applies to today's code.

The runner itself (``tools/mutate.py``) is a developer tool: each mutant
recompiles a kernel, far too slow for CI.  What CI can check cheaply is that the
lists do not rot: each ``find`` still occurs exactly once in its file, each rule
id is a leaf rule id, and every leaf rule has a mutation or a stated exemption.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LISTS = sorted(p for p in (ROOT / "tools" / "mutations").glob("*.toml") if p.stem != "leaf_rules")


def _load_runner():
    spec = importlib.util.spec_from_file_location("mutate", ROOT / "tools" / "mutate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutate"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


mutate = _load_runner()


@pytest.mark.parametrize("path", LISTS, ids=[p.stem for p in LISTS])
def test_every_mutation_applies_and_every_leaf_rule_is_covered(path: Path) -> None:
    assert mutate.problems(mutate.load(path)) == []


def test_a_find_that_no_longer_occurs_once_is_reported(tmp_path: Path) -> None:
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "k.py").write_text("x = 1\nx = 1\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_k.py").write_text("")
    listing = tmp_path / "sf.toml"
    listing.write_text(
        'default_tests = ["tests/test_k.py"]\n'
        "[[mutation]]\n"
        'id = "S-4-x"\nrule = "S-4"\nfile = "kernels/k.py"\nfind = "x = 1"\nreplace = "x = 2"\n'
        "[[mutation]]\n"
        'id = "S-9-gone"\nrule = "S-9"\nfile = "kernels/k.py"\nfind = "y = 1"\nreplace = "y = 2"\n'
    )
    found = mutate.problems(mutate.load(listing), root=tmp_path)
    assert any("S-4-x" in p and "2 times" in p for p in found)
    assert any("S-9-gone" in p and "0 times" in p for p in found)
    # Leaf rules of part 2 with neither a mutation nor an exemption are listed too.
    assert any("leaf rule S-1.1 has no mutation" in p for p in found)


def test_a_mutated_kernel_invalidates_every_kernel_that_imports_it() -> None:
    importers = mutate.kernel_importers(ROOT)
    # Numba's cache would keep serving the old code to these modules otherwise.
    stale = mutate.affected_modules("kernels/rng.py", importers)
    assert {"rng", "coe5_battle", "coe5_damage", "coe5_dice", "sf_fight"} <= stale
    assert mutate.affected_modules("kernels/sf_fight.py", importers) == {"sf_fight"}
    assert mutate.affected_modules("montecarlo/sf/exact.py", importers) == set()


def test_an_also_edit_is_checked_like_the_main_one_and_blind_lists_sample(tmp_path: Path) -> None:
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "a.py").write_text("x = 1\n")
    (tmp_path / "kernels" / "b.py").write_text("y = 1\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_k.py").write_text("")
    listing = tmp_path / "coe5_blind.toml"
    listing.write_text(
        'ruleset = "coe5"\nblind = true\nauthor = "a helper"\n'
        'default_tests = ["tests/test_k.py"]\n'
        "[[mutation]]\n"
        'id = "C-4.8-x"\nrule = "C-4.8"\nfile = "kernels/a.py"\nfind = "x = 1"\nreplace = "x = 2"\n'
        'also = [{ file = "kernels/b.py", find = "z = 1", replace = "z = 2" }]\n'
    )
    mlist = mutate.load(listing)
    assert mlist.ruleset == "coe5" and mlist.blind
    assert [e.file for e in mlist.mutations[0].edits] == ["kernels/a.py", "kernels/b.py"]
    assert mlist.mutations[0].section == "C-4"
    found = mutate.problems(mlist, root=tmp_path)
    # The second edit's find is missing; a blind list need not cover every leaf rule.
    # Two edits of one file are allowed: they apply in turn.
    assert found == [
        "coe5_blind.toml: C-4.8-x: `find` occurs 0 times in kernels/b.py, expected exactly once"
    ]


def test_a_mutant_with_two_edits_of_one_file_is_run_with_both(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "kernels").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "kernels" / "k.py").write_text("A = 1\nB = 2\n")
    (repo / "tests" / "test_k.py").write_text(
        "from kernels.k import A, B\n\ndef test_k():\n    assert (A, B) != (10, 20)\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    both = mutate.Mutation(
        id="C-1.1-both", rule="C-1.1", file="kernels/k.py", find="A = 1", replace="A = 10",
        tests=("tests/test_k.py",), also=(mutate.Edit("kernels/k.py", "B = 2", "B = 20"),),
    )  # fmt: skip
    one = mutate.Mutation(
        id="C-1.1-one", rule="C-1.1", file="kernels/k.py", find="A = 1", replace="A = 10",
        tests=("tests/test_k.py",),
    )  # fmt: skip
    box = mutate.Sandbox(repo, tmp_path / "box")
    assert box.run(both, timeout=120).status == "killed"
    assert box.run(one, timeout=120).status == "survived"
    assert (box.tree / "kernels" / "k.py").read_text() == "A = 1\nB = 2\n"
