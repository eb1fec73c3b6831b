"""Speed of γ (metrics.spans.gamma) against pygamma-agreement on the same data.

Run from the repository root::

    python benchmarks/bench_gamma.py                      # 100 documents × 3 coders × 20 units
    python benchmarks/bench_gamma.py --documents 20       # quicker

Prints, from one run, γ of synthetic span data (30 random continua, seed 0): our time, and,
when pygamma-agreement is installed in a separate virtual environment (``--pygamma-python``,
default /work/venv-gamma/bin/python; it needs other numpy and numba versions than this
project), pygamma's time on the same data as a subprocess of that interpreter, side by side
with the ratio and both values.

pygamma takes one continuum, and laying 100 documents side by side would make its candidate
enumeration (the product of every annotator's units) impossible, so the peer computes what
we compute: the best alignment of each document (``Continuum.get_best_alignment``) summed as
we sum them, and 30 random continua from its ``StatisticalContinuumSampler`` given the
statistics pooled over documents (``init_sampling_custom``), each best-aligned. Observed
disorders agree to pygamma's float32 precision; expected ones within sampling error.
Times exclude imports and numba's compilation (pygamma aligns a small continuum first).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.spans.data import SpanData
from metrics.spans.gamma import gamma_agreement

# Runs under pygamma's interpreter: reads {"documents": {doc: [[coder, begin, end, label]]},
# "coders": [...], "samples": n, "seed": s} and prints {"observed", "expected", "seconds"}.
PEER_SCRIPT = r"""
import json, logging, sys, time
logging.disable(logging.WARNING)
import numpy as np
from pyannote.core import Segment
from pygamma_agreement import Continuum, CombinedCategoricalDissimilarity
from pygamma_agreement import StatisticalContinuumSampler

spec = json.load(open(sys.argv[1]))
coders = spec["coders"]
dissimilarity = CombinedCategoricalDissimilarity()

def continuum(units):
    result = Continuum()
    for coder in coders:
        result.add_annotator(coder)
    for coder, begin, end, label in units:
        result.add(coder, Segment(begin, end), label)
    return result

warm = continuum([[coders[0], 0, 1, "x"], [coders[1], 0, 2, "x"]])
warm.get_best_alignment(dissimilarity)

start = time.perf_counter()
documents = [continuum(units) for units in spec["documents"].values()]
cost = weight = 0.0
for document in documents:
    alignment = document.get_best_alignment(dissimilarity)
    cost += alignment.disorder * document.avg_num_annotations_per_annotator
    weight += document.avg_num_annotations_per_annotator

# Statistics pooled over documents, as metrics.spans.gamma pools them (documents start at 0).
counts, gaps, lengths, labels = [], [0.0], [], []
for document in documents:
    for coder in coders:
        units = list(document[coder])
        counts.append(len(units))
        if units and units[0].segment.start > 0:
            gaps.append(units[0].segment.start)
        for previous, unit in zip(units, units[1:]):
            gaps.append(unit.segment.start - previous.segment.end)
        lengths += [unit.segment.duration for unit in units]
        labels += [unit.annotation for unit in units]
categories = sorted(set(labels))
weights = [labels.count(c) / len(labels) for c in categories]
sampler = StatisticalContinuumSampler()
sampler.init_sampling_custom(
    coders, float(np.mean(counts)), float(np.std(counts)), float(np.mean(gaps)),
    float(np.std(gaps)), float(np.mean(lengths)), float(np.std(lengths)), categories, weights,
)
np.random.seed(spec["seed"])
disorders = [
    sampler.sample_from_continuum.get_best_alignment(dissimilarity).disorder
    for _ in range(spec["samples"])
]
seconds = time.perf_counter() - start
print(json.dumps({"observed": float(cost / weight), "expected": float(np.mean(disorders)),
                  "seconds": seconds}))
"""


def synthetic(documents: int, coders: int, units: int, seed: int) -> SpanData:
    """Coders who mostly agree: each copies a shared layout with jitter, misses ~10% of its
    units and relabels ~15% of them."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(documents):
        begin = np.sort(rng.uniform(0, 1000, units))
        length = rng.uniform(5, 30, units)
        label = rng.integers(0, 3, units)
        for c in range(coders):
            kept = rng.random(units) > 0.1
            b = np.maximum(begin + rng.normal(0, 3, units), 0)
            e = b + np.maximum(length + rng.normal(0, 3, units), 1)
            k = np.where(rng.random(units) < 0.15, rng.integers(0, 3, units), label)
            rows += [(f"d{d}", f"c{c}", b[i], e[i], "abc"[k[i]]) for i in np.flatnonzero(kept)]
    return SpanData.from_units(rows, complete=True)


def peer(data: SpanData, python: str, samples: int, seed: int) -> dict[str, float] | None:
    documents: dict[str, list[list[object]]] = {str(name): [] for name in data.documents}
    for document, coder, begin, end, label in data.units():
        documents[str(document)].append([str(coder), begin, end, str(label)])
    spec = {
        "documents": documents,
        "coders": [str(c) for c in data.coders],
        "samples": samples,
        "seed": seed,
    }
    with tempfile.TemporaryDirectory() as folder:
        spec_path = Path(folder) / "spec.json"
        script_path = Path(folder) / "peer.py"
        spec_path.write_text(json.dumps(spec))
        script_path.write_text(PEER_SCRIPT)
        done = subprocess.run(
            [python, str(script_path), str(spec_path)], capture_output=True, text=True
        )
    if done.returncode != 0:
        print(f"pygamma failed:\n{done.stderr[-2000:]}")
        return None
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100)
    parser.add_argument("--coders", type=int, default=3)
    parser.add_argument("--units", type=int, default=20)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--pygamma-python", default="/work/venv-gamma/bin/python")
    args = parser.parse_args()
    data = synthetic(args.documents, args.coders, args.units, seed=0)
    print(
        f"data: {args.documents} documents × {args.coders} coders × {args.units} units "
        f"({data.n_units} units kept), {args.samples} random continua"
    )
    gamma_agreement(synthetic(2, args.coders, 5, seed=1), samples=2)  # imports, first calls
    start = time.perf_counter()
    ours = gamma_agreement(data, samples=args.samples, seed=0)
    ours_time = time.perf_counter() - start
    print(
        f"metrics.spans.gamma   {ours_time:8.3f} s   gamma={ours.value:.4f} "
        f"Do={ours.observed:.6f} De={ours.expected:.4f}"
    )
    if not Path(args.pygamma_python).exists():
        print(f"pygamma-agreement: no interpreter at {args.pygamma_python}; peer skipped")
        return
    theirs = peer(data, args.pygamma_python, args.samples, seed=0)
    if theirs is None:
        return
    value = 1 - theirs["observed"] / theirs["expected"]
    print(
        f"pygamma-agreement     {theirs['seconds']:8.3f} s   gamma={value:.4f} "
        f"Do={theirs['observed']:.6f} De={theirs['expected']:.4f}"
    )
    print(f"ratio pygamma / ours  {theirs['seconds'] / ours_time:8.1f} ×")


if __name__ == "__main__":
    main()
