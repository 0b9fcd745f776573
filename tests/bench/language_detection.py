"""How often the product's language detector (text.languages.detect_language) names the
language of a question: held-out XQuAD-es and FaQuAD-pt questions (their opening "¿"/"¡"
removed, as people type on a phone) and 40 English ones (tests/data), whole and cut to
their first four words. Counts right, "too little to tell" (None: the hints decide) and
wrong.

    .venv/bin/python -m tests.bench.language_detection [--questions 400]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETS = {"es": "xquad-es", "pt": "faquad-pt"}


def questions(language: str, count: int, shared: Path) -> list[str]:
    if language == "en":
        return (ROOT / "tests" / "data" / "english_questions.txt").read_text().split("\n")[:-1]
    rows = (shared / SETS[language] / "queries.jsonl").read_text().splitlines()
    texts = [json.loads(row)["text"].lstrip("¿¡") for row in rows]
    random.Random(1).shuffle(texts)
    return texts[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=400)
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "bench")
    args = parser.parse_args()

    from text.languages import detect_language

    report: dict[str, dict[str, dict[str, int]]] = {}
    for language in ("es", "pt", "en"):
        asked = questions(language, args.questions, args.shared)
        for cut in ("whole", "first_four_words"):
            found = [
                detect_language(" ".join(q.split()[:4]) if cut != "whole" else q) for q in asked
            ]
            report.setdefault(language, {})[cut] = {
                "questions": len(asked),
                "right": found.count(language),
                "too_little_to_tell": found.count(None),
                "wrong": len(found) - found.count(language) - found.count(None),
            }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
