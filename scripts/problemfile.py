"""What the problem scripts share: where things are, and reading a problem file."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDO = ROOT.parent / "shared/problems/tsume_edo_zukou_musou.jsonl"
KANJU = ROOT / "target/release/kanju"
# The conventions of the classical collections, whose published lengths the scripts compare
# with: a spare piece at the end outranks any length (駒余り), and a dropped piece is futile
# when, given back, the king is mated at any length (無駄合). See docs/rules.md.
CLASSICAL_RULES = ["--spare-rule", "classical", "--futile-rule", "any-length"]
# Today's composers': a defence that leaves spare pieces ranks below one without that is
# two plies shorter (二手変長); futile drops as in Kanju's default.
TWO_PLY_RULES = ["--spare-rule", "twoply"]
RULES = {"default": [], "classical": CLASSICAL_RULES, "twoply": TWO_PLY_RULES}


def rule_args(rules):
    """`kanju solve`'s arguments for a set of rules: "classical" (the collections'),
    "twoply" (today's composers') or "default" (Kanju's own, no arguments)."""
    return RULES[rules]


def add_file_and_engine(ap):
    """The --file (default: the Edo set) and --kanju (default: the release build) options."""
    ap.add_argument("--file", default=str(EDO),
                    help="a problem file, or several joined by commas")
    ap.add_argument("--kanju", default=str(KANJU))


def add_build_comparison(ap, threads, hash_mb, time, repeat):
    """The options of a script that runs builds against each other on named problems:
    the builds, --names, --threads, --hash, --time, --repeat and --file, with the
    script's own defaults."""
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--names", required=True, help="comma-separated problem names")
    ap.add_argument("--threads", type=int, default=threads)
    ap.add_argument("--hash", type=int, default=hash_mb)
    ap.add_argument("--time", default=time)
    ap.add_argument("--repeat", type=int, default=repeat)
    ap.add_argument("--file", default=str(EDO))


def read(paths):
    """The records of a JSON Lines problem file, or of several given as "A.jsonl,B.jsonl",
    in order."""
    records = []
    for path in str(paths).split(","):
        with open(path, encoding="utf-8") as f:
            records += [json.loads(line) for line in f if line.strip()]
    return records


def by_name(paths):
    """The records of `read(paths)`, by name."""
    return {r["name"]: r for r in read(paths)}
