"""`voicecoach pack check`: validate a domain pack (`pack new`, which writes one, is packnew.py).

    check_pack(folder, train=False) -> [Finding]   every problem of the pack, not only the first
    findings_table(folder, findings) -> str        the markdown table the command prints

The loader (`voicecoach.domain.pack.load_pack_from`) stops at the first problem, so a session never
starts on a broken pack. A game developer writing a pack wants the whole list instead, so the
check reads the files (`read_pack`), lists every cross-reference problem the loader would raise
(`pack_problems`), and then checks what the loader does not: the Φ tools are served and called
with their parameters, Φ binds only decision fields (s_ic / s_fs), every Φ pair can be answered
(answer steps or `answers`, each with a sentence to say), every Φ pair has paraphrases for the
intent prior and a narration phrase, the out-of-domain pair is taught and answered, every W3
branch Φ routes to has a candidate pool, no text is left marked TODO, and the prior file was
trained on this pack's data (with `train`, the prior is retrained in memory and its held-out pair
accuracy reported).

Statuses: ``ok``; ``warning`` (said, and the pack still passes: a prefill threshold of 0);
``missing`` (something a complete pack has is not there yet); ``error`` (something there is
wrong). Kernel module: no Pipecat.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from voicecoach.core.console import DefaultsHelpFormatter
from voicecoach.domain.pack import (
    OUT_OF_DOMAIN,
    Pack,
    PackError,
    pack_folder,
    pack_problems,
    pack_ref,
    read_pack,
)
from voicecoach.perception.phi import decision_fields
from voicecoach.perception.prior import PRIOR_FILE, IntentPrior, PriorError, prior_labels, training_data
from voicecoach.tools.registry import tool_spec

Status = Literal["ok", "warning", "missing", "error"]

# Each Φ pair's paraphrases are the intent prior's training data; with 5 folds, 15 leave 3 per pair
# in every held-out fold, so the prior's held-out accuracy (and its prefill threshold) means something.
MIN_PARAPHRASES = 15
# The slices a game pushes: Φ may wait only on these (s_sh and s_static are the coach's own).
DECISION_SLICES = ("ic", "fs")
# Text an author marks as still to write: any JSON string starting with it is reported.
TODO = "TODO"


@dataclass(frozen=True)
class Finding:
    check: str
    status: Status
    detail: str


# The table's rows in this order; a loader problem goes to the row of the file it names.
CHECKS = ("files", "catalog", "Φ table", "templates", "paraphrases", "narrations", "W3 pools",
          "skeleton text", "intent prior")  # fmt: skip
_FILE_CHECK = {
    "phi.json": "Φ table",
    "templates.json": "templates",
    "paraphrases.json": "paraphrases",
    "narrations.json": "narrations",
    "w3.json": "W3 pools",
}


def resolve(path: str) -> Path:
    """A pack folder: `path` itself, or the installed pack of that id (`pet_arena`)."""
    try:
        return pack_folder(path)
    except PackError:  # neither: check_pack says it is not a pack folder
        return Path(path)


def _relative(folder: Path, message: str) -> tuple[str, str]:
    """(file, message naming the file relative to the pack folder) of a PackError's message."""
    prefix = f"{folder}/"
    if message.startswith(prefix):
        message = message[len(prefix) :]
    return message.split(":", 1)[0], message


def check_pack(folder: Path, train: bool = False) -> list[Finding]:
    """Every finding on the pack in `folder` (ok rows summarise a check that found nothing)."""
    if not folder.is_dir():
        return [Finding("files", "error", f"{folder}: not a pack folder")]
    try:
        pack = read_pack(folder)
    except PackError as err:
        _, detail = _relative(folder, str(err))
        later = "the other checks need every file to read"
        return [Finding("files", "missing" if "file missing" in detail else "error", f"{detail} ({later})")]
    found: dict[str, list[Finding]] = {name: [] for name in CHECKS}
    problems: list[PackError] = []
    try:
        problems += pack_problems(pack, folder)
    except PackError as err:  # a check that raises rather than yields still names its problem
        problems.append(err)
    for problem in problems:
        file, detail = _relative(folder, str(problem))
        check = _FILE_CHECK.get(file, "catalog")
        found[check].append(Finding(check, "error", detail))
    for run in _CHECKS:
        for finding in run(pack, folder):
            found[finding.check].append(finding)
    found["intent prior"] += _prior(pack, folder, train)
    summary = _summaries(pack)
    rows = [Finding("files", "ok", summary["files"])]
    for check in CHECKS[1:]:
        rows += found[check] or [Finding(check, "ok", summary.get(check, ""))]
    return rows


def failed(findings: list[Finding]) -> bool:
    """A pack fails on anything missing or wrong; a warning is said and passes."""
    return any(f.status in ("missing", "error") for f in findings)


# --- the checks the loader does not make ---------------------------------------------------------


def _phi(pack: Pack, folder: Path) -> Iterator[Finding]:
    """Each Φ pair's tools are served and called with their parameters; Φ waits on decision fields."""
    for e in pack.phi:
        where = f"phi.json: entry {e.intent + '/' + e.sub_intent!r}"
        for use in e.tools:
            spec = tool_spec(pack, use.tool)
            if spec is None:
                if use.tool in pack.tools:  # (an undeclared tool is the loader's finding)
                    yield Finding(
                        "Φ table", "missing", f"{where}: tool {use.tool!r} is declared but not served"
                    )
                continue
            params = spec.parameters["properties"]
            for arg in sorted(set(use.args) - set(params)):
                yield Finding("Φ table", "error", f"{where}: {use.tool} has no parameter {arg!r}")
            for arg in spec.parameters["required"]:
                if arg not in use.args:
                    # W1 validates Φ's calls before the early dispatch: this one would always be refused.
                    yield Finding(
                        "Φ table", "error", f"{where}: {use.tool} needs {arg!r}, Φ does not bind it"
                    )
        for path in decision_fields(e):
            if path.split(".", 1)[0] not in DECISION_SLICES:
                yield Finding("Φ table", "error", f"{where}: {path!r} is not a decision field (ic.* or fs.*)")
    for tool in pack.tools:
        if tool_spec(pack, tool) is None:
            yield Finding("Φ table", "missing", f"manifest.json: entry 'tools': {tool!r} is not served")


def _paraphrases(pack: Pack, folder: Path) -> Iterator[Finding]:
    counts = {(p.intent, p.sub_intent): len(set(p.utterances)) for p in pack.paraphrases}
    for e in pack.phi:
        n = counts.get((e.intent, e.sub_intent), 0)
        if n < MIN_PARAPHRASES:
            yield Finding(
                "paraphrases",
                "missing",
                f"paraphrases.json: entry {e.intent + '/' + e.sub_intent!r}: {n} paraphrases, "
                f"at least {MIN_PARAPHRASES} needed",
            )


def _narrations(pack: Pack, folder: Path) -> Iterator[Finding]:
    have = {(n.intent, n.sub_intent) for n in pack.narrations}
    for e in pack.phi:
        if (e.intent, e.sub_intent) not in have:
            pair = e.intent + "/" + e.sub_intent
            yield Finding("narrations", "missing", f"narrations.json: entry {pair!r}: no narration phrase")


def _w3(pack: Pack, folder: Path) -> Iterator[Finding]:
    """A branch Φ routes to with no candidate makes W3 abstain on every such turn; a candidate
    waits, as Φ does, only on decision fields."""
    for branch, cfg in pack.w3.branches.items():
        for cand in cfg.pool:
            for path in cand.requires:
                if path.split(".", 1)[0] not in DECISION_SLICES:
                    where = f"w3.json: entry {branch + '/' + cand.id!r}"
                    yield Finding(
                        "W3 pools", "error", f"{where}: {path!r} is not a decision field (ic.* or fs.*)"
                    )
    for branch in sorted({e.branch for e in pack.phi}):
        routed = pack.w3.branches.get(branch)
        if routed is None or not routed.pool:
            users = sum(e.branch == branch for e in pack.phi)
            yield Finding(
                "W3 pools",
                "missing",
                f"w3.json: entry {branch!r}: empty pool, W3 abstains on the branch's {users} Φ pair(s)",
            )


def _todo(pack: Pack, folder: Path) -> Iterator[Finding]:
    """JSON strings the author marked as still to write (they start with TODO)."""

    def walk(node: Any, at: str) -> Iterator[str]:
        if isinstance(node, str) and node.startswith(TODO):
            yield at
        elif isinstance(node, dict):
            for key, value in node.items():
                yield from walk(value, f"{at}.{key}" if at else str(key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                # A catalog entry is named by its id, as the loader names entries.
                label = value.get("id", i) if isinstance(value, dict) else i
                yield from walk(value, f"{at}[{label!r}]" if isinstance(label, str) else f"{at}[{i}]")

    for path in sorted(folder.glob("*.json")):
        if path.name == PRIOR_FILE:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as err:  # a file read_pack does not read
            yield Finding("skeleton text", "error", f"{path.name}: not valid JSON ({err})")
            continue
        for at in walk(data, ""):
            yield Finding("skeleton text", "missing", f"{path.name}: {at}: still {TODO}")


def _answers(pack: Pack, folder: Path) -> Iterator[Finding]:
    """Every Φ pair can be answered: a tool-using pair says how (`answer` steps) unless templates.json
    `answers` words it, and whatever answers it has a sentence to say. A key with no sentence, or an
    `answers` entry with none, leaves the pair its paragraph's generic line on every turn."""
    paragraphs = pack.templates.paragraphs
    for e in pack.phi:
        pair = f"{e.intent}/{e.sub_intent}"
        where = f"phi.json: entry {pair!r}"
        worded = pair in pack.templates.answers
        if worded and not _said(pack.templates.answers[pair]):
            yield Finding(
                "templates",
                "error",
                f"templates.json: answers {pair!r}: no sentence, the pair cannot be answered",
            )
        if e.tools and e.answer is None and not worded:
            yield Finding("templates", "missing", f"{where}: uses tools and has no answer steps")
        if not e.tools and e.answer is None and not worded:
            yield Finding(
                "templates",
                "error",
                f"{where}: no tools, no answer steps and no templates.json answers: it cannot be answered",
            )
        for i, step in enumerate(e.answer or []):
            group = paragraphs.get(step.paragraph)
            if group is None:  # (an unknown paragraph is the loader's finding)
                continue
            for key in (step.key, step.none_key):
                if key is not None and key in group.templates and not _said(group.templates[key]):
                    template = f"{step.paragraph}/{key}"
                    detail = f"{where}: answer[{i}] ({step.recipe}): template {template} has no sentence"
                    yield Finding("templates", "error", detail)


def _said(variants: list[str]) -> bool:
    return any(v.strip() for v in variants)


def _out_of_domain(pack: Pack, folder: Path) -> Iterator[Finding]:
    """The out-of-domain pair (other/other): the prior learns what is outside the game from its
    paraphrases, and templates.json `answers` says so. Without it an off-topic question ("what's the
    weather") is labelled one of Φ's pairs and answered as that."""
    pair = "/".join(OUT_OF_DOMAIN)
    taught = {(p.intent, p.sub_intent): len(set(p.utterances)) for p in pack.paraphrases}.get(
        OUT_OF_DOMAIN, 0
    )
    if taught < MIN_PARAPHRASES:
        yield Finding(
            "paraphrases",
            "error",
            f"paraphrases.json: entry {pair!r}: {taught} off-topic utterances, at least {MIN_PARAPHRASES} "
            "needed: without them an off-topic question is answered as one of the game's pairs",
        )
    if not _said(pack.templates.answers.get(pair, [])):
        yield Finding(
            "templates", "error", f"templates.json: answers {pair!r}: no sentence for an off-topic question"
        )


# Each yields findings of the check it names (the table's row).
_CHECKS: tuple[Callable[[Pack, Path], Iterator[Finding]], ...] = (
    _phi, _answers, _paraphrases, _out_of_domain, _narrations, _w3, _todo
)  # fmt: skip


def _prior(pack: Pack, folder: Path, train: bool) -> list[Finding]:
    """The prior file was trained on this pack's data; with `train`, retrain it in memory."""
    out = []
    path = folder / PRIOR_FILE
    how = f"--pack {pack_ref(pack)}"
    retrain = f"python -m voicecoach.bench.prior train {how}"
    if not path.exists():
        out.append(Finding("intent prior", "missing", f"{PRIOR_FILE}: not trained yet ({retrain})"))
    else:
        try:
            prior = IntentPrior.load(pack, path)
        except PriorError as err:
            _, detail = _relative(folder, str(err))
            out.append(Finding("intent prior", "error", detail))
        except (KeyError, TypeError, ValueError) as err:  # the right stamps, a body edited by hand
            out.append(
                Finding("intent prior", "error", f"{PRIOR_FILE}: not a valid prior ({err!r}); {retrain}")
            )
        else:
            pairs = prior_labels(pack)  # Φ's pairs, and other/other when the paraphrases teach it
            labels = sorted(f"{a}/{b}" for a, b in prior.labels)
            if labels != pairs:
                gone = sorted(set(pairs) - set(labels))
                unknown = ", ".join(gone) or "-"
                detail = f"{PRIOR_FILE}: trained on other Φ pairs (cannot predict {unknown}); {retrain}"
                out.append(Finding("intent prior", "error", detail))
            else:
                acc = prior.heldout.get("pair_accuracy")
                held = (
                    f"held-out pair accuracy {100 * acc:.1f} %" if acc is not None else "no held-out figures"
                )
                out.append(
                    Finding(
                        "intent prior",
                        "ok",
                        f"{PRIOR_FILE} matches the pack data ({held}, "
                        f"prefill threshold {prior.threshold:.3f})",
                    )  # fmt: skip
                )
                if prior.threshold <= 0.0:
                    detail = (
                        f"{PRIOR_FILE}: prefill threshold 0.000: its held-out folds found no confidence "
                        "below which its guesses go wrong (too few paraphrases per pair?), so with an LLM "
                        "endpoint it prefills every turn, sure or not"
                    )
                    out.append(Finding("intent prior", "warning", detail))
    if train:
        out.append(_retrain(pack))
    return out


def _retrain(pack: Pack) -> Finding:
    from voicecoach.bench.prior import train

    try:
        doc = train(pack)
    except ImportError as err:
        return Finding("intent prior", "error", f"--train needs scikit-learn (the dev extra): {err}")
    except (PriorError, ValueError) as err:
        return Finding("intent prior", "error", f"retraining failed: {err}")
    held = doc["heldout"]
    return Finding(
        "intent prior",
        "ok",
        f"retrained in memory on {doc['examples']} examples: held-out pair accuracy "
        f"{100 * held['pair_accuracy']:.1f} % ({held['folds']} folds), coverage above the threshold "
        f"{100 * held['coverage']:.1f} %",
    )


def _summaries(pack: Pack) -> dict[str, str]:
    counts = [n for n in (len(set(p.utterances)) for p in pack.paraphrases)] or [0]
    pools = ", ".join(f"{b} {len(c.pool)}" for b, c in pack.w3.branches.items())
    sentences = sum(len(v) for g in pack.templates.paragraphs.values() for v in g.templates.values())
    catalog, schema = pack.catalog, pack.catalog.schema
    # The units, options and groups by the pack's own kinds (pet: creatures, skills, lineups).
    kinds = [k for role in ("unit", "option", "group") if (k := schema.kind(role)) is not None]
    entities = ", ".join(f"{len(catalog.entities.get(k, {}))} {schema.plural(k)}" for k in kinds)
    return {
        "files": f"{pack.pack_id} {pack.version}: {len(pack.phi)} Φ pairs, {entities}, "
        f"{len(pack.tools)} tools",
        "catalog": f"every {', '.join(schema.kinds)}, role and style reference resolves",
        "Φ table": f"{len(pack.phi)} pairs: tools declared and served, arguments bound, decision "
        "fields known",
        "templates": f"{sentences} sentences and {len(pack.templates.answers)} answers, every placeholder "
        "one the realizer fills",
        "paraphrases": f"{len(training_data(pack))} training utterances, {min(counts)}-{max(counts)} "
        "paraphrases per pair",
        "narrations": f"{sum(len(n.phrases) for n in pack.narrations)} phrases, every pair has one",
        "W3 pools": f"candidates per branch: {pools}",
        "skeleton text": f"no {TODO} left",
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table_rows(findings: list[Finding]) -> list[str]:
    """The findings as a markdown table: a header, then a row each."""
    return ["| check | status | detail |", "|---|---|---|"] + [
        f"| {f.check} | {f.status} | {_cell(f.detail)} |" for f in findings
    ]


def findings_table(folder: Path, findings: list[Finding]) -> str:
    """The markdown table `pack check` prints, and a closing line."""
    lines = [f"Pack check: {folder}", "", *table_rows(findings)]
    bad = [f for f in findings if f.status in ("missing", "error")]
    warned = sum(f.status == "warning" for f in findings)
    warnings = f" ({warned} warning(s))" if warned else ""
    lines += [
        "",
        f"{len(bad)} problem(s): the pack is not ready."
        if bad
        else f"The pack passes every check{warnings}.",
    ]
    return "\n".join(lines)


# --- entry points (the CLI's `pack` command calls these) -------------------------------------------


def run_check(path: str, train: bool = False) -> int:
    folder = resolve(path)
    findings = check_pack(folder, train=train)
    print(findings_table(folder, findings))
    return 1 if failed(findings) else 0


def run_new(path: str) -> int:
    from voicecoach.app.packnew import new_pack

    try:
        folder = new_pack(Path(path))
    except ValueError as err:
        print(f"pack new: {err}", file=sys.stderr)
        return 2
    print(
        f"wrote the pack {folder} (see its README.md); next: python -m voicecoach.bench.prior train "
        f"--pack {folder}, then voicecoach pack check {folder} and voicecoach chat --pack {folder}"
    )
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="pack_command", required=True, metavar="ACTION")
    check = sub.add_parser(
        "check", help="validate a pack folder (or installed pack id): a table of what is missing"
    )
    check.add_argument("path", help="the pack folder, or the id of an installed pack (pet_arena)")
    check.add_argument(
        "--train",
        action="store_true",
        help="also retrain the intent prior in memory (40-60 s for pet_arena on 2 cores)",
    )
    new = sub.add_parser(
        "new", help="write a small, complete pack in a new folder, to grow into a game's (never overwrites)"
    )
    new.add_argument("path", help="the folder to create; its name is the pack id (lowercase, digits, _)")


def run(args: argparse.Namespace) -> int:
    if args.pack_command == "check":
        return run_check(args.path, train=args.train)
    return run_new(args.path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog="python -m voicecoach.app.packcheck",
        description=__doc__.split("\n")[0],
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
