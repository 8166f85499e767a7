"""chrF's memory on one long line stays within README's bound (issue 28).

README ("Reliability", "Bounded"): chrF holds about 24 bytes per character of a long hypothesis and of its
reference at its peak. The call runs in a child process, whose peak resident memory (``ru_maxrss``) after the
call, less its peak before it (the interpreter, the imports and the two strings), is the call's own peak.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nlpeval

# the folder holding the nlpeval this test imported (the installed package in CI, a checkout's python/ with
# its compiled core in development): a fresh clone's python/ has no compiled core
PYTHON_DIR = Path(nlpeval.__file__).resolve().parents[1]

# README's bound: bytes per character of the hypothesis plus its reference, and the allowance for the
# interpreter's own allocations during the call (NumPy's result arrays, the extension's buffers)
BYTES_PER_CHARACTER = 24
ALLOWANCE = 16 * 2**20

CHILD = """
import json, random, resource, time
import nlpeval
words = [''.join(random.Random(i).choices('abcdefghijklmnopqrstuvwxyz', k=1 + i % 9)) for i in range(5000)]
rng = random.Random(28)
def line(size):
    return ' '.join(rng.choices(words, k=size // 6))[:size]
hyp, ref = line(4_000_000), line(1_000_000)
nlpeval.chrf(['warm up the extension'], ['warm the extension up'])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
score = nlpeval.chrf([hyp], [ref]).score
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
characters = sum(len(s.replace(' ', '')) for s in (hyp, ref))
print(json.dumps({'before': before * 1024, 'peak': peak * 1024, 'characters': characters, 'bytes': len(hyp),
                  'score': score, 'wall': wall}))
"""


def test_chrf_on_a_4_mb_line_stays_within_the_stated_memory_bound() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(PYTHON_DIR), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["bytes"] >= 3_900_000
    assert 0.0 < result["score"] < 1.0
    added = result["peak"] - result["before"]
    bound = BYTES_PER_CHARACTER * result["characters"] + ALLOWANCE
    assert added <= bound, f"chrF on a {result['bytes']:,}-byte line added {added:,} bytes (bound {bound:,})"
