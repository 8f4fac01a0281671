"""Write the worked-example notebooks (outputs stripped)."""
import nbformat as nbf
from pathlib import Path

def nb(cells):
    n = nbf.v4.new_notebook()
    n.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for kind, src in cells:
        n.cells.append(nbf.v4.new_markdown_cell(src) if kind == "md" else nbf.v4.new_code_cell(src))
    return n

books = {
"01_damage_distributions.ipynb": [
("md", "# Damage distributions: exact vs sampled\n\nHow hard does a pikeman's pike hit a knight? The damage pipeline of RULES.md C-3 is computed exactly and sampled with the Numba kernel; the two must agree within the Monte Carlo error."),
("code", "import matplotlib.pyplot as plt\nimport montecarlo as mc\n\nd = mc.damage(\"pikeman\", \"knight\")\nd.to_frame().head(8)"),
("code", "samples = d.sample(200_000, seed=1)\nfit = mc.fit_test(samples, d)\nprint(f\"exact mean {d.mean():.4f}, sampled {samples.mean():.4f}; chi-square p = {fit.pvalue:.3f}\")\nassert fit.pvalue > 1e-3"),
("code", "ax = mc.plot_exact_vs_sampled(d, samples, xlabel=\"HP lost per hit\")\nplt.show()"),
("md", "Several weapons of one unit against the same target, overlaid, and the roster-wide table of expected hits to kill:"),
("code", "fig = mc.plot_overlay([mc.damage(f\"knight.{w}\", \"troll\") for w in (\"lance\", \"broad sword\", \"hoof\")])\nplt.show()\ntable = mc.damage_table([\"pikeman\", \"knight\"], [\"militia\", \"troll\", \"wraith\"])\ntable"),
],
"02_matchups_and_solver.ipynb": [
("md", "# Matchup odds and the army-size solver\n\nWho wins, how often, how fast; and how many militia it takes to beat a troll 90% of the time."),
("code", "import matplotlib.pyplot as plt\nimport montecarlo as mc\n\nr = mc.matchup(\"militia:5\", \"troll:1\", precision=0.01, seed=1, progress=False)\nprint(r.summary())"),
("code", "fig = r.plot()\nplt.show()"),
("md", "The battle kernel against the exact duel oracle:"),
("code", "exact = mc.duel_exact(\"troll\", \"knight\")\nsampled = mc.matchup(\"troll:1\", \"knight:1\", trials=20_000, seed=2, progress=False)\nprint(exact.summary())\nprint(\"sampled attacker wins:\", sampled.win_rate, \"within 99.9%:\", exact.agrees_with(sampled.counts))"),
("code", "req = mc.required_count(\"militia\", \"troll:1\", target=0.9, seed=3)\nprint(req.summary())\nreq.to_frame()"),
("code", "rr = mc.round_robin([\"militia\", \"pikeman\", \"heavy infantry\", \"knight\"], by=\"equal_gold\", budget=120, trials=2048, seed=4, progress=False)\nfig = rr.plot()\nplt.show()"),
],
"03_kernel_throughput.ipynb": [
("md", "# Kernel throughput and thread scaling\n\nA quick, small version of `benchmarks/`: OED rolls and whole battles per second at 1 and all threads. The same seed gives the same numbers at any thread count."),
("code", "import time\nimport numba\nimport numpy as np\nimport montecarlo as mc\n\nthreads = numba.config.NUMBA_NUM_THREADS\nd = mc.oed(5)\nd.sample(10_000, seed=0)  # compile / load the cache\nrates = {}\nfor t in sorted({1, threads}):\n    t0 = time.perf_counter()\n    x = d.sample(5_000_000, seed=1, threads=t)\n    rates[t] = x.size / (time.perf_counter() - t0)\n    print(f\"{t} thread(s): {rates[t]:,.0f} OED rolls/s\")"),
("code", "a = d.sample(300_000, seed=7, threads=1)\nb = d.sample(300_000, seed=7, threads=threads)\nassert np.array_equal(a, b)\nprint(\"bit-identical across thread counts\")"),
("code", "for t in sorted({1, threads}):\n    mc.matchup(\"militia:10\", \"knight:3\", trials=256, seed=0, threads=t, progress=False)\n    t0 = time.perf_counter()\n    r = mc.matchup(\"militia:10\", \"knight:3\", trials=20_000, seed=1, threads=t, progress=False)\n    print(f\"{t} thread(s): {r.n / (time.perf_counter() - t0):,.0f} battles/s\")"),
],
"04_shared_fantasia_encounter.ipynb": [
("md", "# A Shared†Fantasia encounter\n\nIs four goblins and an orc a fair fight for a starting party in a corridor? And what does a single attack look like, exactly?"),
("code", "import matplotlib.pyplot as plt\nfrom montecarlo import sf\n\nres = sf.fight(\"warrior:1,knight:1,archer:1,priest:1\", \"goblin:4,orc:1\", battlefield=\"corridor\", trials=20_000, seed=1, progress=False)\nprint(res.summary())"),
("code", "fig = res.plot()\nplt.show()"),
("code", "a = sf.attack(\"fencer\", \"orc\")\nprint(a.to_frame())\nprint(\"damage per attack:\", a.damage)"),
("code", "sf.friendly_fire(7)"),
],
"05_replay_and_compare.ipynb": [
("md", "# See one battle, compare two\n\nWhy did ten pikemen lose to three knights? Replay one battle of the run round by round, then ask whether one more point of knight armour is worth it with a paired comparison on the same dice."),
("code", "import matplotlib.pyplot as plt\nimport montecarlo as mc\n\nrun = mc.matchup(\"pikeman:10\", \"knight:3\", trials=2_000, seed=7, keep_trials=True, progress=False)\nupset = mc.replay(\"pikeman:10\", \"knight:3\", seed=7, first=\"attacker-wins\", trials=2_000)\nprint(upset.text()[:1500])"),
("md", "The replay is exactly the battle the run counted: same outcome, rounds and survivors."),
("code", "import numpy as np\nbattle = int(np.flatnonzero(run.trials.outcome == 0)[0])\nassert upset.outcome == \"attacker-wins\" and upset.rounds == run.trials.rounds[battle]\nhits = upset.events[upset.events.kind == \"hit\"]\nhits[[\"round\", \"actor\", \"target\", \"weapon\", \"roll\", \"step8_damage\"]].head(10)"),
("code", "ax = upset.plot_frame(0)\nplt.show()"),
("md", "Is +1 armour on the knights worth it? Both variants play the same battles on the same dice, so the difference is measured more precisely than two independent runs would."),
("code", "cmp = mc.compare((\"pikeman:20\", \"knight:3\"), \"knight.hp=+1\", trials=4_000, seed=7, progress=False)\nprint(cmp)"),
("code", "sens = mc.sensitivity((\"pikeman:10\", \"knight:3\"), trials=1_000, seed=3, progress=False)\nsens.to_frame().head(8)"),
],
}
for name, cells in books.items():
    nbf.write(nb(cells), Path("notebooks") / name)
print("ok")
