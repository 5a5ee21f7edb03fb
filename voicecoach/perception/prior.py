"""The intent prior: a fast classifier of (intent, sub_intent) from the transcript, for W1.

On the embedded default a 135M model cannot label the player's words (W1 pair accuracy ~11 %
on CoachBench), so W1 gets an input it can trust: when the prior is confident, W1's tag stream
begins with the prior's INTENT / SUB_INTENT (see `voicecoach.perception.prompt.w1_prefill`) and the LLM only
continues from NARRATION. Below the threshold the LLM labels as before.

The model: linked catalog names are replaced by their kind ("tell me about xcreaturex", a hero
shooter's "xherox"), then
word 1-2-grams and character 3-5-grams within words are fed to a multinomial logistic regression
(scikit-learn, training only) over the Φ pairs. Its top probability is calibrated by isotonic
regression fitted on out-of-fold predictions of the training data, and the prefill threshold is
the lowest calibrated confidence at which those held-out predictions are still right at least
`voicecoach.bench.prior.TARGET_PRECISION` of the time. Nothing here ever sees CoachBench or the
audio fixtures.

Training data is pack data written for the pack: each Φ entry's `example` plus the pack's
`paraphrases.json`. The training lives with the prior's figures in `voicecoach.bench.prior`:
`python -m voicecoach.bench.prior train --pack pet_arena` writes `voicecoach/packs/<pack>/prior.json`
(`--path FOLDER`: a pack folder's FOLDER/prior.json; sorted inputs, fixed folds, rounded floats:
the same bytes every run); `IntentPrior.load(pack)` refuses a file that is missing or trained on
other data.
Inference (this module) is numpy only: a dictionary lookup per feature and one small matrix row sum.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from voicecoach.domain.asked import ASKED_BAD, KEEP_OR_BENCH, STAY_OR_GO, WHICH_BETTER, shapes
from voicecoach.domain.catalog import Role
from voicecoach.domain.effects import effect_question
from voicecoach.domain.entities import Mention, context_attribute_asked, link_entities, set_aside
from voicecoach.domain.pack import OUT_OF_DOMAIN, AnswerStep, Pack, PhiEntry, pack_ref
from voicecoach.domain.terms import asked_term
from voicecoach.grounding.slot_rules import extract_slots
from voicecoach.perception.descriptions import faces_foe, kind_said, kinds_said, told_down
from voicecoach.perception.limits import AGAINST_THEM, data_limit

PRIOR_FILE = "prior.json"
FORMAT = "voicecoach-intent-prior/1"
WORD_NGRAMS = (1, 2)
CHAR_NGRAMS = (3, 5)
MIN_COUNT = 1  # keep every feature seen in training: rare cue words ("turtle", "blitz") are the signal
# Chosen by out-of-fold pair accuracy on the training data (docs/BENCHMARKS.md, "Intent prior").
C = 32.0  # inverse L2 strength of the logistic regression


class PriorError(ValueError):
    """A prior file that is missing, unreadable or not trained on this pack's data (names the file)."""


class Prediction(BaseModel):
    model_config = ConfigDict(frozen=True)

    intent: str
    sub_intent: str
    confidence: float  # calibrated: the estimated probability that the pair is right
    rule: str | None = None  # the session rule that chose the pair instead of the classifier


# --- features ----------------------------------------------------------------------------------


def kind_token(kind: str) -> str:
    """The word a linked mention of `kind` becomes ("xcreaturex", "xherox"): one no player says."""
    return f"x{kind}x"


def normalise(text: str) -> str:
    """Lowercase, apostrophes dropped ("what's" = "whats"), other punctuation -> space."""
    text = text.lower().replace("'", "").replace("\u2019", "")
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def abstract_entities(pack: Pack, text: str, mentions: list[Mention] | None = None) -> str:
    """Replace each linked catalog mention by its kind, so "tell me about Pyrowl" and "tell me
    about Tidefang" are one pattern; names the linker misses (misheard) stay as words.
    `mentions`: the turn's `link_entities(pack, text)` when the caller already has it (linking is
    most of the prior's cost)."""
    out, last = [], 0
    for m in link_entities(pack, text) if mentions is None else mentions:
        out += [text[last : m.span[0]], f" {kind_token(m.kind)} "]
        last = m.span[1]
    out.append(text[last:])
    return normalise("".join(out))


def features(abstracted: str) -> list[str]:
    """Word n-grams ('w:') and character n-grams inside space-padded words ('c:'), deduplicated."""
    words = abstracted.split()
    feats: list[str] = []
    for n in range(WORD_NGRAMS[0], WORD_NGRAMS[1] + 1):
        feats += ["w:" + " ".join(words[i : i + n]) for i in range(len(words) - n + 1)]
    for word in words:
        padded = f" {word} "
        for n in range(CHAR_NGRAMS[0], CHAR_NGRAMS[1] + 1):
            feats += ["c:" + padded[i : i + n] for i in range(len(padded) - n + 1)]
    return list(dict.fromkeys(feats))


# --- training data -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    text: str
    pair: str  # "intent/sub_intent"


def training_data(pack: Pack) -> list[Example]:
    """Φ examples plus paraphrases.json, deduplicated, sorted (the order never depends on files)."""
    rows = {(e.example, f"{e.intent}/{e.sub_intent}") for e in pack.phi if e.example}
    for para in pack.paraphrases:
        rows |= {(u, f"{para.intent}/{para.sub_intent}") for u in para.utterances}
    return [Example(text, pair) for text, pair in sorted(rows)]


# Spoken padding around a request. Each training utterance (but smalltalk's, where "coach" or "hey"
# is the request: a Φ entry says so with `fillers`) is also learnt with one prefix and one suffix,
# chosen by its text, so a filler carries no weight of its own. Written for the prior; raised
# out-of-fold accuracy 76.8 -> 78.4 %.
FILLER_PREFIXES = ("uh", "um", "okay so", "so like", "coach", "quick question", "alright", "hmm",
                   "wait", "yo", "hey so", "right so")  # fmt: skip
FILLER_SUFFIXES = ("please", "coach", "right now", "real quick", "any ideas", "you think")


def takes_fillers(pair: str, bare: frozenset[str] | None) -> bool:
    """Whether `pair` is learnt with filler variants: every pair but `bare`'s (None: smalltalk's)."""
    return not pair.startswith("smalltalk/") if bare is None else pair not in bare


def bare_pairs(pack: Pack) -> frozenset[str]:
    """The pairs learnt without filler variants: each Φ entry's `fillers`, by default false for the
    intent "smalltalk" only."""
    return frozenset(
        f"{e.intent}/{e.sub_intent}"
        for e in pack.phi
        if not (e.fillers if e.fillers is not None else e.intent != "smalltalk")
    )


def data_hash(pack: Pack) -> str:
    """sha256 of the training data and the feature settings: a prior trained on anything else is stale."""
    payload = {
        "data": [[ex.text, ex.pair] for ex in training_data(pack)],
        "word_ngrams": WORD_NGRAMS,
        "char_ngrams": CHAR_NGRAMS,
        "min_count": MIN_COUNT,
        "fillers": [FILLER_PREFIXES, FILLER_SUFFIXES, "crc32"],
        "c": C,
    }
    # Only a pack whose Φ flags differ from the default hashes them: pet's prior.json stays valid.
    bare = bare_pairs(pack)
    if bare != {p for p in prior_labels(pack) if not takes_fillers(p, None)}:
        payload["bare"] = sorted(bare)
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


# --- the model -----------------------------------------------------------------------------------


class LinearModel:
    """Vocabulary + weights: score = W[features].sum / sqrt(n) + b, softmax over pairs."""

    def __init__(self, vocab: list[str], weights: np.ndarray, bias: np.ndarray) -> None:
        self.index = {f: i for i, f in enumerate(vocab)}
        self.weights = weights
        self.bias = bias

    def probabilities(self, feats: list[str]) -> np.ndarray:
        idx = [self.index[f] for f in feats if f in self.index]
        z = self.bias.copy()
        if idx:
            z += self.weights[idx].sum(axis=0) / math.sqrt(len(idx))
        z -= z.max()
        p = np.exp(z)
        return p / p.sum()


def prior_labels(pack: Pack) -> list[str]:
    """Φ's pairs, and "other/other" when the pack's paraphrases teach what is outside the game."""
    taught = {f"{p.intent}/{p.sub_intent}" for p in pack.paraphrases}
    return sorted({f"{e.intent}/{e.sub_intent}" for e in pack.phi} | (taught & {"/".join(OUT_OF_DOMAIN)}))


def prior_path(pack: Pack) -> Path:
    """The prior file next to the pack's other files (a pack folder outside voicecoach/packs too)."""
    return pack.home / PRIOR_FILE


_SHARED: dict[tuple[Path, str, float | None], IntentPrior] = {}


class IntentPrior:
    """The trained prior of one pack: `predict` gives the calibrated best pair, `prefill` the pair
    W1's stream may begin with (None below the threshold: the LLM labels the turn)."""

    def __init__(self, pack: Pack, doc: dict[str, Any], threshold: float | None = None) -> None:
        self.pack = pack
        self.labels = [(a, b) for a, b in (lab.split("/", 1) for lab in doc["labels"])]
        self.model = LinearModel(doc["vocab"], np.array(doc["weights"]), np.array(doc["bias"]))
        self.calibration = (np.array(doc["calibration"]["x"]), np.array(doc["calibration"]["y"]))
        self.threshold = float(doc["threshold"]) if threshold is None else threshold
        self.heldout: dict[str, Any] = doc.get("heldout", {})
        # The Φ pairs the rules in `predict` stand for, read from Φ once.
        self.counter_pair, self.swap_pair = (
            _counter_pair(pack, self.labels),
            _step_pair(pack, self.labels, "pick_swap"),
        )
        self.strongest_pairs = _strongest_pairs(pack, self.labels)
        # The pairs whose answer picks units: a choice asked as one of them keeps it.
        # "What's a tank": a game word explained, under the pair that teaches roles.
        self._type_kinds = {k for k, spec in pack.catalog.schema.kinds.items() if spec.role == "type"}
        self.term_pair = ("teaching", "roles") if ("teaching", "roles") in self.labels else None
        self.picking_pairs = {(e.intent, e.sub_intent) for e in pack.phi if _picks_first(e)}
        # (of the strongest pairs: "fill the last slot", which opens with the strongest too, is not one)
        self.strongest_first = next(
            (p for p in _phi_pairs(pack) if p in self.strongest_pairs), None
        ) or _opening_pair(pack, self.labels, "pick_strongest")
        self.role_pair = _opening_pair(pack, self.labels, "fill_role")  # "who fills the tank slot"
        # "Should I add someone": the pair that picks one the player does not field yet.
        self.fill_pair = self.role_pair or _step_pair(
            pack, self.labels, "pick_strongest", skip="$ic.match.player_lineup"
        )
        # ... of those, the ones that rank by power, not only by level (strike's strength is its level)
        self.by_power_pairs = {
            (e.intent, e.sub_intent)
            for e in pack.phi
            if (e.intent, e.sub_intent) in self.strongest_pairs
            and e.answer
            and not e.answer[0].inputs.get("level_only")
        }
        self.fit_pair = _opening_pair(pack, self.labels, "pick_fit")  # who a context (a map) favours
        self.picks_fit_pair = self.fit_pair or _step_pair(pack, self.labels, "pick_fit")
        self.kind_context_pair = _step_pair(pack, self.labels, "kind_on_context")  # "shotguns on this map"
        self.next_unit_pair = _opening_pair(pack, self.labels, "next_unit")  # the account's next unit
        self.verdict_pair = _step_pair(
            pack, self.labels, "unit_verdict", even_key=True
        )  # "is Wendell any good"
        # The pairs that build a team of a play style, and the one that counters their whole team.
        self.style_pairs = {
            (e.intent, e.sub_intent) for e in pack.phi if any(s.inputs.get("style") for s in e.answer or [])
        }
        # The pairs about one unit in focus: with none named, never the answer to a style question.
        unit = pack.catalog.schema.kind("unit")
        unit_focus = {f"ic.focus.{unit}", "ic.focus_creature"} if unit else set()
        self._unit_pairs = {(e.intent, e.sub_intent) for e in pack.phi if unit_focus & set(e.requires)}
        # Teams built around a unit the player names ("make a team around Tamsin").
        self.around_pairs = {
            (e.intent, e.sub_intent)
            for e in pack.phi
            if any(s.recipe == "group_for_unit" for s in e.answer or [])
        }
        self.team_counter_pair = next(
            (
                (e.intent, e.sub_intent)
                for e in pack.phi
                if (e.intent, e.sub_intent) in self.labels
                and any(u.args.get("opponent") == "$ic.match.opponent_lineup" for u in e.tools)
                and any(s.recipe in ("pick_pair", "pick_best") for s in e.answer or [])
            ),
            None,
        )
        styles = "|".join(
            rf"{re.escape(w[:-1])}(?:e|es|ed|ing)" if w.endswith("e") else rf"{re.escape(w)}(?:s|ed|ing)?"
            for w in sorted(
                {w for st in pack.vocabulary.styles.values() for w in st.words}, key=len, reverse=True
            )
        )  # "poke", "poking"; "dive", "diving"
        teams = team_words(pack)
        self._they_play = re.compile(
            rf"\b(?:their|they|they're|theyre|the enemy|the other team|them)\s+(?:\w+\s+){{0,3}}?"
            rf"(?:{styles or '(?!)'})\b(?:\s+\w+)?\s+(?:us|me|my|our)\b"
            rf"|\b(?:they|they're|theyre)\s+(?:keep\s+|are\s+|just\s+)?(?:{styles or '(?!)'})\b"
            # "how do we beat a poke comp": a style to play against
            rf"|\b(?:beat|counter|deal\s+with|handle|stop|against|into|vs)\s+(?:a|an|the|their|this|that)?\s*"
            rf"(?:{styles or '(?!)'})\s+(?:{teams})\b"
        )
        self._style_word = re.compile(rf"\b(?:{styles or '(?!)'})\b")
        # "Build me the best team against these guys", "what's the best comp for this map".
        self._build_team = re.compile(
            rf"\b(?:build|make|give|put\s+together|set\s+up)\s+(?:me|us)?\s*(?:a|the|my|our)?\s*(?:\w+\s+){{0,2}}?"
            rf"(?:{teams})\b|\b(?:best|good|strongest)\s+(?:{teams})\s+(?:for|on|against|vs|into|from|with)\b"
            # "the best 5 I can field for this map": a team by its size
            # "best 3 from my box"
            rf"|\b(?:best|strongest)\s+(?:[3-6]|three|four|five|six)\s+(?:from|of|in|out\s+of)\s+(?:my|our)\b"
            rf"|\b(?:best|strongest)\s+(?:{teams}|[3-6]|three|four|five|six)\s+(?:i|we)\s+(?:(?:can|could)\s+"
            r"(?:field|run|make|put\s+out|play)|own|have|got)\b"
        )

        # The team builder that builds against the match when there is one (its Φ tools bind the
        # opponent optionally): "build me the best team against these guys from what I have".
        self.build_pair = next(
            (
                (e.intent, e.sub_intent)
                for e in pack.phi
                if (e.intent, e.sub_intent) in self.labels
                and any("$?ic.match.opponent_lineup" in map(str, u.args.values()) for u in e.tools)
            ),
            None,
        )
        context_words = [
            w
            for k in pack.catalog.schema.kinds_of("context")
            for w in (k, *pack.catalog.schema.kinds[k].nouns)
        ] + [
            e.display
            for k in pack.catalog.schema.kinds_of("context")
            for e in pack.catalog.entities.get(k, {}).values()
        ]
        self._context = re.compile(
            rf"\b(?:{'|'.join(map(re.escape, context_words)) or '(?!)'})\b", re.IGNORECASE
        )
        unit_spec = pack.catalog.schema.kinds.get(pack.catalog.schema.kind("unit") or "")
        unit_nouns = "|".join(re.escape(n.lower()) for n in (unit_spec.nouns if unit_spec else []))
        # "Which hero is best for me now": a unit asked for, none named
        self._which_unit = re.compile(
            rf"\b(?:which|what)\s+(?:{unit_nouns or '(?!)'})s?\s+(?:is|would\s+be|should|do|to|works?)\b"
        )
        # ("my strongest tank", "the best sniper I own": of a kind the pack's words name)
        kind_words = "|".join(
            sorted(
                {re.escape(w) for r in pack.vocabulary.roles.values() for w in r.words}
                | set(map(re.escape, pack.vocabulary.roles))
            )
        )
        # ... and the one that picks it by a kind ("my strongest tank")
        self.strongest_of_kind = next(
            (
                (e.intent, e.sub_intent)
                for e in pack.phi
                if (e.intent, e.sub_intent) in self.strongest_pairs
                and e.answer
                and e.answer[0].recipe == "pick_strongest"
                and e.answer[0].inputs.get("attribute")
            ),
            None,
        )
        # "Who should be my tank", "which pet should play striker": who fills that role
        self._be_role = re.compile(
            rf"\b(?:who|which(?:\s+\w+)?)\s+(?:should|could|would|will|can)\s+(?:be|play|go)(?:\s+as)?\s+"
            rf"(?:my|our|the|a)?\s*(?:{kind_words})s?\b"
        )
        self._my_best = re.compile(
            rf"{MY_BEST}(?:(?:\w+\s+)?(?:{unit_nouns or '(?!)'})s?|(?:{kind_words})s?)\b"
            rf"|\b(?:the\s+)?(?:best|strongest|top)\s+(?:\w+\s+)?(?:{unit_nouns or '(?!)'}|{kind_words})s?\s+"
            r"(?:i|we)\s+(?:own|have|got)\b"
        )
        self.versus_pair = _versus_pair(pack, self.labels)
        self.on_context_pair = _versus_pair(pack, self.labels, against="context")
        # "Whats a good map for Renzo", "which map is best for us": the places ranked for them.
        self.best_context_pair = _step_pair(pack, self.labels, "context_for_team")
        context_nouns = [
            re.escape(n.lower())
            for k in pack.catalog.schema.kinds.values()
            if k.role == "context"
            for n in k.nouns
        ]
        place = rf"(?:{'|'.join(context_nouns) or '(?!)'})s?"
        self._best_place = re.compile(
            rf"\b(?:best|good|great|worst|bad|better)\s+{place}\s+(?:for|with)\b"
            rf"|\b(?:which|what)\s+{place}\s+(?:is|are|would\s+be|suits?|fits?)\s+(?:\w+\s+)?(?:best|good|worst)\b"
            rf"|\b(?:which|what)\s+{place}\s+(?:should|do|would|could)\s+(?:i|we)\b.*\b(?:best|good|well)\b",
            re.IGNORECASE,
        )
        # "Which map would my main team be better on": the places ranked for them
        self._best_place = re.compile(
            rf"{self._best_place.pattern}"
            rf"|\b(?:which|what)\s+{place}\s+(?:would|will|does|do|is|are)\b.*\b(?:better|best|good|well)\s+(?:on|at|in)\b",
            re.IGNORECASE,
        )
        # "What even is this map", "what's this map like", "tell me about this map": the place in play.
        self._what_place = re.compile(
            rf"\bwhat(?:'s|s|\s+is|\s+even\s+is)\s+(?:even\s+)?(?:this|the)\s+{place}(?:\s+like)?\W*$"
            rf"|\btell\s+me\s+about\s+(?:this|the)\s+{place}\b",
            re.IGNORECASE,
        )
        context_kind = next(
            (k for k, spec in pack.catalog.schema.kinds.items() if spec.role == "context"), None
        )
        self.place_info_pair = (
            _fact_pair(pack, self.labels, requires=f"ic.focus.{context_kind}") if context_kind else None
        )
        # "Which of my heroes is best on this map": fit to the place, not strength.
        self._on_place = re.compile(rf"\b(?:on|for|in)\s+(?:this|the|that|our)\s+{place}\b", re.IGNORECASE)
        self.threat_pair = _opening_pair(pack, self.labels, "threat")
        self.target_pair = _step_pair(pack, self.labels, "option_target")
        self.fieldable_pair = _opening_pair(pack, self.labels, "groups_fieldable")
        # The pairs whose answer rates a team (pet's "can my team win against theirs" too).
        self._rating_pairs = {
            (e.intent, e.sub_intent) for e in pack.phi if any(s.recipe == "rating" for s in e.answer or [])
        }
        self.option_hits_pair = _step_pair(pack, self.labels, "option_hits")
        self.team_context_pair = _step_pair(pack, self.labels, "team_on_context")
        self.analysis_pair = _opening_pair(pack, self.labels, "read_side") or self.threat_pair
        token = kind_token(pack.catalog.schema.kind("unit") or "")
        # "Is Wendell pulling his weight": a verdict on one unit.
        # (also "Hexmoth, is it any use this round": the name said first, then "it")
        # (also "is Renzo just bad on this map", "is Lumifawn too low to bring", "keep Sparkwing or not",
        # "should I bench Tidefang", "Renzo on this map, yes or no")
        here = (
            r"(?:\s+(?:this|the)\s+(?:round|match|game|fight)"
            r"|\s+(?:on|in)\s+(?:this|the)\s+\w+|\s+here|\s+now)?"
        )
        self._is_it_good = re.compile(
            rf"^\W*(?:(?:so|ok|okay|and|but|hey|honestly|like)\W+)*(?:(?:my\s+)?{token}\W+(?:is|are)\s+(?:it|he|she)"
            rf"|(?:is|are)\s+(?:my\s+)?{token})\s+"
            r"(?:even\s+|actually\s+|really\s+|just\s+|kinda\s+|too\s+)?(?:any\s+good|any\s+use|useful|pulling\s+"
            r"(?:his|her|its|their)\s+weight|doing\s+(?:ok|okay|anything|well|much)|worth\s+(?:keeping|bringing|"
            rf"playing|running|using|fielding)(?:\s+in)?|{ASKED_BAD.pattern}(?:\s+to\s+(?:bring|play|run|use|field))?)"
            rf"{here}\W*$"
            rf"|{KEEP_OR_BENCH.pattern}(?:my\s+)?{token}(?:\s+(?:in|out))?{here}"
            r"(?:\W+or\s+(?:not|nah|no|(?:still\s+|just\s+)?(?:swap|bench|drop)(?:\s+(?:him|her|it|them))?(?:\s+out)?))?\W*$"
            rf"|^\W*(?:my\s+)?{token}{here}\W+(?:yes(?:\s+or\s+no)?|good\s+idea|worth\s+it)\W*$"
            # "I have a guy with a laser gun at level 4, is he any good": told, then the verdict
            rf"|\bis\s+(?:my\s+)?{token}\s+(?:even\s+|actually\s+|really\s+)?any\s+(?:good|use)\W*$"
            # "what is the orange fox thing I have out, is it any good": who it is, then the verdict
            rf"|\b(?:what|who)(?:\s+is|'s|s)\s+(?:my\s+|the\s+|this\s+)?{token}\W+(?:and\s+)?(?:is|are)\s+(?:it|he|she)"
            r"\s+(?:even\s+|actually\s+|really\s+)?(?:any\s+good|any\s+use|useful|good)\W*$"
            # "should Elowen stay or go", "does Renzo stay in or come out"
            rf"|^\W*(?:(?:so|ok|okay|and|but|hey)\W+)*(?:(?:should|does|do|can|would)\s+)?(?:my\s+)?{token}\s+"
            rf"{STAY_OR_GO.pattern}",
            re.IGNORECASE,
        )
        # "What do I have for Shellbastion": a counter to it, not whether the player owns it.
        self._have_for = re.compile(
            rf"\bwhat\s+(?:do|have|can)\s+(?:i|we)\s+(?:have|got|bring|use)\s+(?:for|against|vs|into)\s+"
            rf"(?:their\s+|the\s+)?{token}"
        )
        # "Their Quillon is killing me every time I peek": one of theirs beating the player's side.
        self._beating_me = re.compile(
            rf"{token}\s+(?:keeps?\s+|is\s+|are\s+|has\s+been\s+|just\s+)(?:\w+\s+)?(?:beating|wrecking|"
            rf"destroying|killing|crushing|smashing|bullying|stomping|farming|melting|deleting|owning)\s+"
            rf"(?:me|us|my|mine|our|everyone)\b"
        )
        # "What does Voltail beat?": the unit named is the attacker, asked of its targets.
        self._beats_what = re.compile(
            rf"\bwhat\s+(?:does|do|can|will|would|could)\s+(?:their\s+|the\s+|my\s+)?{token}\s+(?:\w+\s+)?"
            r"(?:beat|counter|hit\s+hard|destroy|wreck|do\s+well\s+against)\b"
        )
        # "can Voltail kill my Galehawk", "will Shellbastion destroy Emberfox": one attacking the other.
        attack_on = (
            rf"{token}\s+(?:\w+\s+)?(?:kill|beat|one\s+shot|wreck|destroy|hurt|handle|outdamage|dive|flank|outduel|"
            rf"punish|bully|fight|duel)s?\s+"
            rf"(?:my\s+|our\s+|the\s+|their\s+)?{token}"
        )
        self._attack_on = re.compile(attack_on)
        # "Is that like a known comp?", "are they running a meta team": the group kind's nouns.
        groups = team_words(pack)
        self._known_group = re.compile(
            rf"\b(?:known|meta|standard|popular|real|named|pro)\s+(?:{groups})s?\b"
            rf"|\bis\s+(?:that|this|it)\s+(?:like\s+)?(?:a|an)\s+(?:actual\s+)?(?:{groups})\b"
        )
        self._what_it_does = re.compile(
            rf"\bwhat(?:\s+does|\s+do|\s+will|s|'s)\s+(?:their\s+|the\s+|my\s+|our\s+|that\s+)?{token}\s+"
            r"(?:even\s+|actually\s+|really\s+)?do\b(?!\s+(?:against|vs|versus|into|to|about|on|with)\b)"
            # "how do I play Elowen", "what do I do as Ellie": that unit's job
            rf"|\b(?:how\s+(?:do|should|would)\s+(?:i|we|you)\s+play|what\s+(?:do|should)\s+(?:i|we)\s+do\s+(?:as|with))"
            rf"\s+(?:my\s+)?{token}\W*$"
        )
        self._about_unit = re.compile(
            rf"\bwhat(?:s|'s|\s+is)\s+(?:the\s+)?deal\s+with\s+(?:their\s+|the\s+|that\s+)?{token}\b"
            rf"|\bwhat(?:s|'s|\s+is|\s+does|\s+do|\s+will)\s+(?:their\s+|the\s+|my\s+|our\s+|that\s+)?{token}"
            r"\s+(?:bring|brings|bringing|add|adds|offer|offers)\s+to\s+(?:the|their|our|my|a|your)\s+"
            rf"(?:{team_words(pack)}|fight|table|match|party)\b"
        )
        self._versus = re.compile(
            rf"{token}\s+{VERSUS}\s+(?:their\s+|the\s+|my\s+)?{token}"
            rf"|{token}\s+(?:\w+\s+){{0,2}}?(?:better|worse|good|any good|any use|of any use|okay|ok|fine|"
            rf"decent|bad|weak|useful|useless|trash|terrible|awful|viable|strong)\s+"
            rf"(?:into|against|vs|versus)\s+(?:their\s+|the\s+)?{token}"  # "my Sparkwing any better into X"
            # "will my fox lose to Briarcat"
            rf"|\b(?:will|would|does|do|is|could|can)\s+(?:my\s+|our\s+)?{token}\s+(?:\w+\s+)?(?:lose|losing)\s+"
            rf"(?:to|against|vs)\s+(?:their\s+|the\s+)?{token}"
            # "their Nadira has Null Grenade, is my Elowen useless now": theirs told, mine asked about
            rf"|\btheir\s+{token}\s+(?:has|have|got|runs?|running|uses?|using|brings?|brought)\b.*"
            rf"\b(?:is|are)\s+(?:my|our)\s+{token}\s+(?:\w+\s+)?(?:useless|dead|screwed|done|bad|good|fine|ok|okay|"
            rf"countered|trash|finished|cooked|worth\s+it|still\s+good)\b"
            # "is Nadira a problem for Renzo"
            rf"|{token}\s+(?:\w+\s+)?(?:a\s+)?(?:problem|threat|trouble|issue|danger|dangerous|scary|headache)\s+(?:for|to)\s+"
            rf"(?:my\s+|our\s+)?{token}"
            rf"|{attack_on}"
            # "so Emberfox should stay away from Shellbastion": how the one does against the other
            rf"|{token}\s+(?:\w+\s+){{0,3}}?(?:stay\s+away\s+from|keep\s+away\s+from|steer\s+clear\s+of|avoid|"
            rf"stay\s+off|go\s+near)\s+(?:their\s+|the\s+)?{token}"
            rf"|{token}(?:\s+\w+){{0,4}}?\s+(?:smoked|beaten|countered|wrecked|destroyed|hard countered|"
            rf"outclassed|walled|shut down)\s+by\s+(?:their\s+|the\s+)?{token}"
            # "my Galehawk keeps losing to their Briarcat", "why does my fox keep dying to the turtle"
            rf"|{token}\s+(?:\w+\s+){{0,2}}?(?:losing|loses|lost|dying|dies|died|keeps?\s+(?:losing|dying))\s+"
            rf"(?:to|against|vs)\s+(?:their\s+|the\s+)?{token}"
            # "Sparkwing, how hard does that hit Shellbastion": the named one's hits on the other
            rf"|{token}\b.*\bhow\s+(?:hard|much)\s+(?:does|do|would|will|can|could)\s+(?:\w+\s+){{1,2}}?"
            rf"(?:hit|hurt|damage)\s+(?:their\s+|the\s+)?{token}"
            # "can Oakhorn tank Voltail", "will my fox survive their turtle": one taking the other's hits
            rf"|{token}\s+(?:\w+\s+)?(?:tank|survive|outlast|hold\s+off|hold\s+up\s+(?:against|vs|to)|stand\s+up\s+to|"
            rf"handle|deal\s+with|take\s+on|trade\s+with)\s+(?:their\s+|the\s+)?{token}"
        )
        self.opener_pair = _opening_pair(pack, self.labels, "option_best")
        # "Which of my pets can heal", "can anything I have slow him down": answered from the options'
        # descriptions whatever the pair (the realizer's effect answer); a pair on the roster that
        # needs no unit in focus, since the question need not name one.
        self.effect_pair = next(
            (
                (e.intent, e.sub_intent)
                for e in pack.phi
                if _opening(e) in ("list_owned", "equipped")
                and not any("focus" in r for r in e.requires)
                and (e.intent, e.sub_intent) in self.labels
            ),
            None,
        )
        option = pack.catalog.schema.kind("option")
        nouns = [n.lower() for n in pack.catalog.schema.kinds[option].nouns] if option else []
        # (a pair that answers it first, "what do I unlock next on Lorcan", before one that opens
        # with a verdict: "keep levelling him" is no answer to "does he have any other gun")
        self.next_option_pair = (
            next(
                (
                    (e.intent, e.sub_intent)
                    for e in pack.phi
                    if e.answer
                    and e.answer[0].recipe == "option_next"
                    and (e.intent, e.sub_intent) in self.labels
                ),
                None,
            )
            or _opening_pair(pack, self.labels, "option_next")
            or _opening_pair(pack, self.labels, "progression")
        )
        # The pairs whose answer already says what comes next: the rule leaves them be.
        self.next_pairs = {
            (e.intent, e.sub_intent)
            for e in pack.phi
            if any(s.recipe in ("option_next", "progression") for s in e.answer or [])
        }
        said_nouns = "|".join(map(re.escape, nouns))
        # "her next move", "can he get a new gun", "what does Hexmoth learn next" (English cue words)
        self._next_option = (
            re.compile(
                rf"\bnext\s+(?:new\s+)?(?:{said_nouns}|unlock|upgrade|thing)s?\b"
                rf"|\b(?:get|gets|unlock|unlocks|earn|earns)\s+(?:a\s+|an\s+|any\s+)?(?:new|better|different)\s+"
                rf"(?:{said_nouns})s?\b"
                r"|\b(?:learn|learns|get|gets|unlock|unlocks)\s+next\b"
            )
            if nouns
            else None
        )
        self._opener = (
            # "what move should it open with", "what should Hexmoth lead with" (the unit leads)
            re.compile(rf"\b(?:{'|'.join(map(re.escape, nouns))})s?\b.*\b{OPEN_WITH}|{token}\s+{OPEN_WITH}")
            if nouns
            else None
        )
        self._facing = re.compile(rf"\b{FACING}\s+(?:their\s+|the\s+)?{token}")
        # "Compare Tamsin and Stellan", "is Hexmoth better than Emberfox", "so Tamsin over Renzo
        # then", "Oakhorn or Galehawk?": two units weighed (the counter pair's answer opens with that).
        self._weighs_two = re.compile(
            rf"\bcompare\b|\b(?:better|worse|stronger|weaker)\s+(?:pick\s+)?than\b|{token}\s+over\s+(?:my\s+)?{token}"
            rf"|^\W*(?:\w+\W+){{0,2}}?{token}\s+or\s+{token}(?:\W+\w+){{0,2}}\W*$"
            rf"|\bwhich\s+(?:one\s+)?(?:is\s+)?better\b|\bdifference\s+between\b"
        )
        self._good_against = re.compile(
            rf"\bwhat(?:s|\s+is|\s+are)?\s+(?:my\s+|their\s+|the\s+)?{token}\s+(?:\w+\s+)?"
            r"(?:good|strong|great|useful|best)\s+(?:against|into|for)\b"
        )
        teams = team_words(pack)
        self._keep_same = re.compile(
            rf"\b{KEEP}\s+(?:with\s+)?(?:the\s+|my\s+|our\s+|this\s+)?(?:same\s+|current\s+)?(?:{teams})\b"
            rf"|{KEEP_OR_CHANGE.pattern}"
        )
        self.evaluate_pair = _opening_pair(pack, self.labels, *_RATES)
        self._ours = re.compile(rf"\b(?:us|we|our|ours|my\s+(?:{team_words(pack)}))\b")
        # The pairs that answer whether the player has a unit (not a fallback step of another's).
        self.ownership_pairs = {
            (e.intent, e.sub_intent)
            for e in pack.phi
            if e.answer and e.answer[0].recipe == "ownership" and not e.answer[0].inputs.get("missing_only")
        }
        # The first pair that recommends on the match in progress (it needs the round): "what now?"
        # "Good against that whole setup", "what beats their whole team" (English cue words and the
        # pack's words for a team).
        self._whole_side = re.compile(
            rf"\b(?:good|best|works?|strong|play|run|bring|beats?|counters?)\s+(?:against|into|vs|versus)?\s*"
            rf"(?:that|their|this|the)\s+whole\s+(?:setup|set\s+up|thing|line\s+up|{team_words(pack)})\b"
        )
        self.greeting_pair = ("smalltalk", "greeting") if ("smalltalk", "greeting") in self.labels else None
        # The pair that says whom to level first (it opens with the player's strongest, then progress).
        self.grow_pair = next(
            (
                (e.intent, e.sub_intent)
                for e in pack.phi
                if (e.intent, e.sub_intent) in self.labels
                and e.answer
                and e.answer[0].recipe == "pick_strongest"
                and any(s.recipe in ("progression", "option_next") for s in e.answer)
            ),
            None,
        )
        self.fact_pairs = {(e.intent, e.sub_intent) for e in pack.phi if e.branch == "knowledge-qa"}
        self.now_pair = next(
            (
                (e.intent, e.sub_intent)
                for e in pack.phi
                if e.branch == "recommend"
                and "ic.match.round" in e.requires
                and (e.intent, e.sub_intent) in self.labels
            ),
            None,
        )
        unit_plural = "|".join(re.escape(n.lower()) + "s?" for n in (unit_spec.nouns if unit_spec else []))
        self._owning = re.compile(
            rf"{OWNING.pattern}|\b(?:mine|caught|catch|access|account|lock in|pick|level|levels|far off|"
            rf"in my|among my)\b|^(?:\w+\s+)?got\b"
            + (rf"|\b(?:my|our)\s+(?:{unit_plural})\b" if unit_plural else "")
        )
        # "How many creatures can I take into a match", "can I bring like five or is three the max":
        # the team's size, a rule of the game (its basics), not a question about one unit or the
        # player's collection ("how many do I have" is not this).
        bring = r"(?:take|bring|field|use|run|play|put|pick|have\s+on|have\s+in)"
        self._team_size = re.compile(
            rf"\bhow\s+many\s+(?:{unit_plural or '(?!)'}|of\s+them)\s+(?:\w+\s+){{0,3}}?{bring}\b"
            rf"|\bhow\s+many\s+(?:{unit_plural or '(?!)'})\s+(?:per|in\s+a|on\s+a|a)\s+"
            rf"(?:{team_words(pack)}|side|match|fight)\b"
            rf"|\bcan\s+(?:i|we)\s+(?:just\s+)?{bring}\s+(?:like\s+)?(?:one|two|three|four|five|six|seven|\d)\s*"
            rf"(?:(?:{unit_plural or '(?!)'})\s*)?(?:$|or\b|instead\b|at\s+once\b)"
            # "is it worth bringing four", "what about running five": a team of that size
            rf"|\b(?:taking|bringing|fielding|running|playing)\s+(?:like\s+)?(?:one|two|three|four|five|six|seven|"
            rf"\d)\s*(?:(?:{unit_plural or '(?!)'})\s*)?(?:$|or\b|instead\b)"
            rf"|\bis\s+there\s+(?:like\s+|even\s+)?an?\s+(?:max|maximum|limit|cap|minimum)\b"
            rf"|\b(?:{team_words(pack)})\s+size\b|\bis\s+(?:one|two|three|four|five|six|\d)\s+the\s+(?:max|limit)\b"
            # "can I put five in my team instead of three"
            rf"|\bcan\s+(?:i|we)\s+(?:put|have|run|field|take)\s+(?:one|two|three|four|five|six|seven|\d)\s+"
            rf"(?:\w+\s+)?(?:in|on)\s+(?:my|our|a|the)\s+(?:{team_words(pack)})\b"
            # "can I even bring more than three", "can we field less than five"
            rf"|\bcan\s+(?:i|we)\s+(?:even\s+|just\s+)?(?:{bring}|put|have|field|take)\s+(?:more|fewer|less)\s+than\s+"
            rf"(?:one|two|three|four|five|six|seven|\d)\b"
        )
        self.basics_pair = ("teaching", "basics") if ("teaching", "basics") in self.labels else None
        self.rating_pairs = {(e.intent, e.sub_intent) for e in pack.phi if _opening(e) in _RATES}
        # "What's Steam Engine about?": the pair whose answer describes a named group (a fact step).
        group_kind = next((k for k, spec in pack.catalog.schema.kinds.items() if spec.role == "group"), None)
        self.group_info_pair = next(
            (
                (e.intent, e.sub_intent)
                for e in pack.phi
                if any(s.recipe == "fact" and s.inputs.get("kind") == group_kind for s in e.answer or [])
                and (e.intent, e.sub_intent) in self.labels
            ),
            None,
        )
        self._group_token = kind_token(group_kind or "")
        # "What level is my Lorcan": the pair whose ownership step says a unit's level (level_key).
        self.level_pair = _step_pair(pack, self.labels, "ownership", level_key=True)
        # "Who's the lowest level out of them", "rank my pets by level": the pair whose strongest pick
        # can rank by level.
        self.level_rank_pair = _step_pair(pack, self.labels, "pick_strongest", ranked_key=True)
        # "What heroes do I even have", "list my pets": the pair that lists the player's units.
        self.roster_pair = next(
            (
                (e.intent, e.sub_intent)
                for e in pack.phi
                if any(s.recipe == "list_owned" and not s.inputs.get("none_only") for s in e.answer or [])
                and (e.intent, e.sub_intent) in self.labels
            ),
            None,
        )
        kinds = rf"(?:{unit_plural}|guys|ones|units|characters)" if unit_plural else r"(?:guys|ones|units)"
        self._roster = re.compile(
            rf"^\W*(?:\w+\W+){{0,3}}?(?:what|which)\s+{kinds}\s+(?:do|have|did)\s+(?:i|we)\s+(?:even\s+|actually\s+)?"
            rf"(?:have|own|got|unlocked)\b|\blist\s+(?:all\s+)?(?:of\s+)?(?:my|our)\s+{kinds}"
            rf"|\b(?:show|tell)\s+me\s+(?:all\s+)?(?:my|our)\s+{kinds}\W*$"
            rf"|\bwho\s+(?:do|have|did)\s+(?:i|we)\s+(?:even\s+|actually\s+)?(?:got|have|own)(?:\s+again)?\W*$"
            rf"|\bhow\s+many\s+{kinds}\s+(?:do|have|did)\s+(?:i|we)\s+(?:even\s+|actually\s+)?(?:have|own|got|unlocked)\b"
        )
        self._team_word = re.compile(rf"\b(?:{teams}|teams|all|together|with)\b")
        unit_kind = pack.catalog.schema.kind("unit")
        # "Who should I lead with": the pair the model gives the plainest way to ask it.
        self.lead_pair = self._labelled("who should i lead with") if unit_kind else None
        # "Rate Emberfox, Oakhorn and Galehawk": the pair that rates the units named, as a team.
        named_three = " and ".join([kind_token(unit_kind or "")] * 3)
        rated = self._labelled(f"rate {named_three}") if unit_kind else None
        self.rate_named_pair = rated if rated in self.rating_pairs else None
        # The pairs that describe one unit (pet: creature/info), one option (skill/explain), and
        # the match's score (match/score_check).
        self.info_pair = _fact_pair(pack, self.labels, kind=unit_kind)
        self.option_info_pair = _fact_pair(pack, self.labels, kind=pack.catalog.schema.kind("option"))
        self.score_pair = _fact_pair(pack, self.labels, requires="ic.match.round")
        self.progression_pair = _opening_pair(pack, self.labels, "progression")
        # "Should I get Dunecrawler", "should I save up for Quill": whether a unit is worth having,
        # the pair that opens with its progress and then says when one they lack comes (and how it
        # would do against their side).
        self.worth_pair = next(
            (
                (e.intent, e.sub_intent)
                for e in pack.phi
                if (e.intent, e.sub_intent) in self.labels
                and e.answer
                and (first := _first_step(e)) is not None
                and first.recipe in ("progression", "option_next")
                and any(s.recipe == "matchup_status" for s in e.answer)
                and any(s.recipe == "ownership" and s.inputs.get("missing_only") for s in e.answer)
            ),
            None,
        )
        self._get_unit = re.compile(
            rf"\bshould\s+(?:i|we)\s+(?:\w+\s+)?(?:get|buy|grab|unlock|save\s+up\s+for|grind\s+for|go\s+for|"
            rf"aim\s+for|work\s+towards?)\s+(?:a\s+|an\s+|the\s+)?{token}\b"
        )
        self._tell_about = re.compile(
            rf"\b(?:tell me about|tell me more about|describe|info on|what do you know about)\s+"
            rf"(?:their\s+|the\s+|my\s+)?{token}(?:\s+\w+){{0,2}}$"
        )
        # "what does Hexmoth do to Shellbastion", "how would my fox fare against their cat": the two
        # matched up, not the first described (English cue words)
        self._does_to = re.compile(
            rf"\b(?:what|how)\s+(?:does|do|would|will|can|could|did)\s+(?:my\s+|their\s+|the\s+|our\s+)?{token}\s+"
            r"(?:\w+\s+)?(?:do|fare|hold\s+up|match\s+up|stack\s+up)\s+(?:to|against|vs|versus|into|on)\s+"
            rf"(?:my\s+|their\s+|the\s+|our\s+|his\s+|her\s+)?{token}\b"
        )
        self._unit_beats = re.compile(
            rf"\b(?:what|who|whom)\s+(?:does|do|can|could|will|would)\s+(?:my\s+|their\s+|the\s+)?{token}\s+"
            rf"(?:\w+\s+)?(?:beat|counter|hard\s+counter|do\s+well\s+against)\b"
            rf"|\bwho(?:s|'s|\s+is)?\s+(?:my\s+|their\s+|the\s+)?{token}\s+(?:\w+\s+)?(?:good|strong|great)\s+"
            rf"(?:against|into|vs)\b"
            rf"|\bwhich\s+(?:of\s+)?(?:their|them|the\s+enemy)\b.*\bcan\s+(?:my\s+)?{token}\s+(?:\w+\s+)?beat\b"
            rf"|\bwhat(?:s|'s|\s+is)?\s+(?:my\s+|their\s+|the\s+)?{token}\s+(?:\w+\s+)?(?:good|strong|great)\s+"
            rf"(?:against|into|vs)\b"
        )
        self.equipped_pair = _opening_pair(pack, self.labels, "equipped")
        self._has_on = re.compile(
            rf"\bwhat(?:s|'s)?\s+(?:does|has|did|is)\s+(?:my\s+)?(?:{token}|he|she)\s+(?:got\s+)?"
            rf"(?:have|got|run|running|carry|carrying|bring|bringing|rocking)"
            rf"(?:\s+(?:on|now|right\s+now|then|equipped|at\s+the\s+moment))?\s*\W*$"
            # "what's Tamsin got" (the contraction's "has")
            rf"|\bwhats\s+(?:my\s+)?{token}\s+got(?:\s+(?:on|now|right\s+now|equipped))?\s*\W*$"
        )
        self._worry_named = re.compile(rf"(?:{WORRY.pattern})\s+(?:their\s+|the\s+|that\s+)?{token}")
        self._use_on = re.compile(
            rf"{token}\s+(?!(?:any|no|of|much)\s+use\b)(?:\w+\s+)?(?:use|run|cast|throw)\s+(?:on|against|vs|into)\s+"
            rf"(?:their\s+|the\s+)?{token}"  # (not "is my hawk any use against the turtle")
        )
        self._weak_to = re.compile(
            rf"\b{token}\s+(?:\w+\s+)?weak\s+(?:to|against)\b"
            # "what's Quillon's weakness", "Quillon's weak spot"
            rf"|\b{token}(?:\s*'?s)?\s+(?:biggest\s+|main\s+)?(?:weakness|weaknesses|weak\s+(?:spot|point)s?|counters?)\b"
        )
        self._confront = re.compile(
            rf"\b{CONFRONT}\s+(?:their\s+|the\s+)?{token}"
            rf"|\b(?:who|which)\s+(?:\w+\s+)?(?:hits?|kills?|stops?|shuts?\s+down)\s+(?:their\s+|the\s+)?{token}"
            rf"|\b(?:pick|take|knock|shut|lock|get|pull|push|drag|flush)\s+(?:their\s+|the\s+)?{token}\s+(?:off|out|down)\b"
            # "what can Wendell do about Quillon", "is Bexley better for Quillon"
            rf"|{token}\s+do\s+(?:anything\s+|something\s+|much\s+)?(?:about|against|vs|versus)\s+"
            rf"(?:their\s+|the\s+)?{token}"
            rf"|{token}\s+(?:\w+\s+)?(?:better|good|any good)\s+for\s+(?:their\s+|the\s+)?{token}"
            # "their Brannoc blocks everything, how do I get past"
            rf"|{token}\b[\w\s,']{{0,40}}?\b(?:get|getting|go|going|walk|move|break|breaking)\s+(?:past|through|around)\b"
        )
        self._improve = re.compile(
            rf"\b(?:make|get|making|getting)\s+(?:my\s+)?{token}\s+(?:\w+\s+)?(?:strong|stronger|better|tougher|"
            rf"good|useful|viable)\b|\b(?:power|buff|beef)\s+up\s+(?:my\s+)?{token}|\b(?:improve|upgrade|"
            rf"strengthen)\s+(?:my\s+)?{token}"
        )
        # The pair that answers what beats a type ("what beats water"): its first step names the
        # counters of a type (`weak_to` over a matchup) and it is asked of no unit's branch.
        types = [k for k in pack.catalog.schema.kinds_of("type")]
        self.type_counter_pair = (
            next(
                (
                    (e.intent, e.sub_intent)
                    for e in pack.phi
                    if e.intent in types
                    and e.answer
                    and e.answer[0].recipe == "weak_to"
                    and (e.intent, e.sub_intent) in self.labels
                ),
                None,
            )
            if types
            else None
        )
        type_tokens = "|".join(kind_token(k) for k in types) or "(?!)"
        # "what are light types scared of", "what is water weak to": what beats that type, not their threat
        self._type_fears = re.compile(
            rf"\b(?:{type_tokens})(?:\s+\w+)?(?:\s+(?:are|is))?\s+(?:\w+\s+)?(?:scared|afraid|weak|bad|vulnerable|"
            r"squishy)\s+(?:of|to|against|vs)\b"
        )
        self._type_trouble = re.compile(
            rf"\b(?:losing|lose|lost|dying|die|died|struggl\w*|trouble|problems?|getting\s+(?:wrecked|crushed|rolled|"
            rf"stomped|destroyed))\s+(?:to|against|with|vs|by)\s+(?:the\s+|their\s+|all\s+(?:these|those|the)\s+)?"
            rf"(?:{type_tokens})\b"
            # "do I own anything that resists grass": who takes the least from that type
            rf"|\bresist(?:s|ant)?\s+(?:to\s+)?(?:{type_tokens})\b"
            # "how do I beat a water team (in general)": what beats that type
            rf"|\b(?:how\s+(?:do|can|should|would)\s+(?:i|we)|how|way)\s+(?:to\s+)?(?:beat|counter|deal\s+with|handle|"
            rf"stop|fight|play\s+against)\s+(?:a\s+|an\s+|the\s+|their\s+)?(?:{type_tokens})\b"
            # "if they bring in a shadow one, who do I use", "what do I use on electric types", "who do
            # I have that's good vs water": a type of theirs to answer, no unit of it named
            rf"|\bif\s+they\s+(?:bring|brought|send|sent|switch|swap|go|put)\w*\s+(?:in\s+|out\s+|to\s+|into\s+)?"
            rf"(?:a\s+|an\s+|some\s+|their\s+)?(?:{type_tokens})\b"
            rf"|\b(?:who|what|which|anything|any\w*)\b.*\b(?:good|best|strong|great)\s+(?:vs|versus|against|into|on)\s+"
            rf"(?:a\s+|an\s+|the\s+)?(?:{type_tokens})\b"
        )
        # "What else has the hawk got", "what's Renzo got": the unit's options (the pair the prior
        # gives "what <options> does <unit> have").
        option_kind = pack.catalog.schema.kind("option")
        options_said = (
            f"what {pack.catalog.schema.plural(option_kind)} does {token} have" if option_kind else ""
        )
        self.options_pair = self._labelled(options_said) if option_kind else None
        self._has_got = re.compile(
            rf"\bwhat\s+(?:else\s+)?(?:has|have|does|did|s|is)\s+(?:my\s+|the\s+|their\s+|your\s+)?{token}\s+"
            rf"(?:(?:else\s+)?got|(?:got\s+)?(?:in\s+(?:its|his|her)\s+kit))\b"
            rf"(?!\s+(?:unlocked|equipped|on|running|left|in\s+(?:his|her|its)\s+\w+\s+slot))"
        )
        # "Remind me how water against fire works", "and earth into electric": one type on another.
        self._type_on_type = re.compile(
            rf"\b(?:{type_tokens})\s+(?:\w+\s+)?(?:vs|versus|against|into|on|hitting|hits|hit|beats?|onto|attacking|"
            rf"(?:is\s+|s\s+)?(?:weak|strong|good|bad)\s+(?:to|against|vs|into))\s+"
            rf"(?:a\s+|the\s+)?(?:{type_tokens})\b"
        )
        # The pairs that answer whether an option is usable: they need one named.
        self._option_kind = pack.catalog.schema.kind("option")
        self.option_status_pairs = {
            (e.intent, e.sub_intent) for e in pack.phi if e.answer and e.answer[0].recipe == "option_status"
        }
        option_token = kind_token(self._option_kind or "")
        self._needs_for = re.compile(
            rf"\bneeds?\s+(?:to\s+(?:get|unlock|use|have)\s+|for\s+(?:the\s+)?){option_token}\b"
        )
        unit_token = kind_token(pack.catalog.schema.kind("unit") or "")
        # "So my hawk should go in?", "should Renzo come in": one of the player's brought in, a swap.
        self._goes_in = re.compile(
            rf"\b{unit_token}\s+(?:should|could|can|gonna|going\s+to)\s+(?:go|come)\s+in\b"
            rf"|\b(?:should|can|could)\s+(?:my\s+)?{unit_token}\s+(?:go|come)\s+in\b"
            rf"|^\W*(?:so\s+|ok\s+|okay\s+)?sub\s+(?:in\s+)?{unit_token}\b|\b{unit_token}\s+in\s+for\s+{unit_token}\b"
        )
        # "Does he have Dome Projector", "does my Oakhorn have Worldroot Slam yet": whether it is his now.
        self._has_option = re.compile(
            rf"\b(?:does|do|did)\s+(?:he|she|it|(?:my\s+|our\s+)?{unit_token})\s+"
            rf"(?:even\s+|already\s+|still\s+)?(?:have|get|got)\s+(?:the\s+)?{option_token}\b"
            # "and he's got Blaze Charge, right": a check of it
            rf"|\b(?:he|she|it|{unit_token})(?:'s|s|\s+s|\s+has)?\s+(?:got|has)\s+(?:the\s+)?{option_token}\W+"
            r"(?:right|yeah|yes|correct)\b"
        )
        # The pair the prior gives a match going badly ("we keep losing, what do we do"): English
        # words, labelled by the pack's own classifier, kept only if it recommends on the match.
        # The pair the prior gives "when do I get X" (X a unit), kept only if it opens with ownership:
        # "what level do I need for Bexley" asks the same of one of theirs.
        unlock = self._labelled(f"when do i get {token}")
        self.unit_unlock_pair = next(
            (
                (e.intent, e.sub_intent)
                for e in pack.phi
                if (e.intent, e.sub_intent) == unlock and e.answer and e.answer[0].recipe == "ownership"
            ),
            None,
        )
        # The pair that says when the player can use an option: its answer opens with option_status.
        self.option_unlock_pair = _opening_pair(pack, self.labels, "option_status")
        # The pair that weighs an option against their side ("will Riptide hurt their team").
        self.option_hits_pair = _opening_pair(pack, self.labels, "option_hits")
        self._level_for = re.compile(
            rf"\bwhat\s+(?:account\s+|player\s+)?level\s+(?:do\s+(?:i|we)\s+need|is\s+needed|does\s+it\s+take|"
            rf"unlocks?|gets?\s+(?:me|you))\s+(?:for\s+|to\s+(?:get|unlock)\s+)?{token}\b"
        )
        losing = self._labelled("we keep losing what do we do")
        self.losing_pair = next(
            (
                (e.intent, e.sub_intent)
                for e in pack.phi
                if (e.intent, e.sub_intent) == losing
                and e.branch == "recommend"
                and "ic.match.round" in e.requires
            ),
            None,
        )
        option_words = [
            *(pack.catalog.schema.kinds[self._option_kind].nouns if self._option_kind else []),
            "thing",  # "can Tidefang use that wave thing": one it did not place, asked back
        ]
        self._option_noun = re.compile(
            rf"\b(?:{'|'.join(map(re.escape, option_words)) or '(?!)'})s?\b", re.IGNORECASE
        )
        self._field_it = re.compile(
            rf"\b{PUT_IN}\s+(?:my\s+)?{token}\s+(?:back\s+)?(?:in|on)\b(?!\s+(?:for|over|against|vs|versus|instead))"
            rf"|\b(?:put|bring|send|sub|swap)\s+in\s+(?:my\s+|the\s+)?{token}\b(?!\s+(?:for|over|instead))"
            rf"|\b(?:add|get|put)\s+(?:my\s+)?{token}\s+(?:on|in|into)\s+(?:my|our|the)\s+(?:{teams})\b"
            rf"|\bwhy\s+(?:isnt|is\s+not|aint|not|arent|are\s+not)\s+(?:my\s+)?{token}\s+(?:on|in)\s+"
            rf"(?:my|our|the)\s+(?:{teams})\b"
            # "would Hexmoth be better there", "is Hexmoth better in that spot"
            # "should I bring Hexmoth" (one of the player's own on the bench): in for whom
            rf"|\b(?:should|can|could)\s+(?:i|we)\s+(?:bring|field|start|play|run|use|go|pick|take)\s+(?:my\s+)?{token}"
            rf"(?:\s+(?:in|on|out|now|instead|this\s+round|next\s+round))?\s*[?.!]?\s*$"
            rf"|\b(?:would|will|is|could)\s+(?:my\s+)?{token}\s+(?:be\s+)?(?:better|stronger|good)\s+"
            rf"(?:there|instead|in\s+(?:that|his|her|its|the)\s+(?:spot|slot|place))\b"
            # "my moth is level 25, why am I not even using it"
            rf"|(?=.*\b{token}\b).*\bwhy\s+(?:am|are)\s+(?:i|we)\s+not\s+(?:even\s+)?(?:using|playing|running|fielding)\b"
            rf"|\bwhy\s+(?:am|are)\s+(?:i|we)\s+not\s+(?:even\s+)?(?:using|playing|running|fielding)\s+(?:my\s+)?{token}\b"
        )
        self._swap_to = re.compile(
            rf"\b(?:swap|swapping|switch|switching)\s+(?:over\s+)?to\s+(?:my\s+)?{token}"
        )
        # "Is it maxed out", "fully evolved", "can it evolve any further" (English cue words and the
        # unit kind's own verbs).
        verbs = "|".join(
            map(re.escape, pack.catalog.schema.kinds[pack.catalog.schema.kind("unit") or ""].verbs)
        )
        self._maxed = re.compile(
            r"\b(?:max(?:ed|xed)?\s+out|maxed|maxxed|fully\s+(?:upgraded|levell?ed|maxed|unlocked|grown)|"
            r"as\s+(?:good|strong|far)\s+as\s+(?:it|he|she|they)\s+(?:gets?|goes?|can\s+go)|"
            r"(?:its|his|her|the)\s+(?:final|last|max)\s+(?:form|stage|version)"
            + (
                rf"|fully\s+(?:{verbs})|done\s+(?:{verbs})|(?:{verbs})\s+(?:any\s+)?(?:further|more|again|anymore)"
                if verbs
                else ""
            )
            + r")\b"
        )
        # "Should I play Elowen", "is it ok to run Renzo": one to field (English cue words).
        self._play_it = re.compile(
            rf"\b(?:should|can|could|do)\s+(?:i|we)\s+(?:still\s+|even\s+|keep\s+)?(?:play|playing|run|running|use|"
            rf"using|field|start|pick|go|bring)\s+(?:with\s+)?(?:my\s+)?{token}(?:\s+(?:here|now|this\s+(?:round|game|match)|"
            rf"today|again))?\s*[?.!]?\s*$"
            rf"|\bis\s+it\s+(?:ok|okay|fine|smart|good)\s+to\s+(?:play|run|use|field|keep)\s+(?:my\s+)?{token}\b"
        )
        # "Is Osmund worth playing", "should I just go Paxton, he's level 10": how it does here, now
        # (of one on the bench too: not whether to invest in it).
        self._play_now = re.compile(
            rf"\b{token}\s+(?:\w+\s+)?worth\s+(?:playing|using|running|bringing|fielding)\b"
            rf"|\bshould\s+(?:i|we)\s+(?:just\s+)?(?:go|play|run|pick|bring|switch\s+to|swap\s+to)\s+(?:my\s+)?{token}\b"
        )
        # "Should I pull Emberfox", "do I bench my fox": one of the player's fielded units taken off
        # the team (a swap), not a unit to invest in or pull for (English cue words).
        self._take_off = re.compile(
            rf"\b(?:should|shall|do|can|could|would|must)\s+(?:i|we)\s+(?:just\s+|still\s+|maybe\s+)?"
            rf"(?:pull|bench|drop|sit|cut|ditch|sub\s+out|swap\s+out|take\s+out|get\s+rid\s+of|replace)\s+"
            rf"(?:my\s+)?{token}\b"
        )
        self._bench = re.compile(
            rf"\b{BENCH}\s+(?:my\s+)?{token}\s+{BENCH_FOR}\s+(?:my\s+)?{token}"
            rf"|\b{PUT_IN}\s+(?:my\s+)?{token}\s+in\s+(?:for|over|instead\s+of)\s+(?:my\s+)?{token}"
            # "should I play Brannoc instead of Dumaka", "go Bran over Duke"
            rf"|\b(?:play|playing|go|going|run|running|use|using|pick|picking|field|take)\s+(?:my\s+)?{token}\s+"
            rf"(?:instead\s+of|over|rather\s+than|in\s+place\s+of)\s+(?:my\s+)?{token}"
        )
        # "Can I run two tanks?": a count of a role, the composition's quota.
        role_words = sorted(
            {w for r in pack.vocabulary.roles.values() for w in r.words} | set(pack.vocabulary.roles),
            key=len,
            reverse=True,
        )
        self.quota_pair = _opening_pair(pack, self.labels, "quota")
        # "Is that a legal team", "are those roles allowed": English cue words and the pack's for a team.
        teams = team_words(pack)
        self._legal_team = re.compile(
            rf"\b(?:legal|allowed|valid|legit)\b.*\b(?:{teams}|roles?)\b"
            rf"|\b(?:{teams}|roles?)\b.*\b(?:legal|allowed|valid)\b"
        )
        # "What should I play for support": a pick in that role, not what the role does.
        roles = "|".join(map(re.escape, role_words)) or "(?!)"
        self._play_as_role = re.compile(
            r"\b(?:what|who|which)\b.*\b(?:should|do|can|could|would)\s+(?:i|we)\s+(?:play|pick|run|bring|go)\s+"
            rf"(?:as|for|on|in)\s+(?:the\s+|a\s+|an\s+)?(?:{roles})s?\b"
        )
        # "Does our comp have a tank", "do we need a healer": the team's role quota.
        self._team_has_role = re.compile(
            rf"\b(?:we|our\s+(?:{teams})|my\s+(?:{teams}))\s+(?:even\s+|still\s+)?(?:have|got|has|need|needs)\s+"
            rf"(?:a|an|any|enough|another)\s+(?:{roles})s?\b"
        )
        self._role_count = re.compile(
            rf"\b(?:two|three|four|five|2|3|4|5|double|triple|no|zero|only\s+one|both)\s+"
            rf"(?:{'|'.join(map(re.escape, role_words)) or '(?!)'})s?\b"
        )

    @classmethod
    def load(cls, pack: Pack, path: Path | None = None, threshold: float | None = None) -> IntentPrior:
        """Load the pack's prior file; PriorError naming the file if it is missing, unreadable, or
        trained for another pack, pack version or training data (retrain: `python -m
        voicecoach.bench.prior train --pack ID`)."""
        path = path or prior_path(pack)
        retrain = f"retrain with: python -m voicecoach.bench.prior train --pack {pack_ref(pack)}"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise PriorError(f"{path}: intent prior file missing; {retrain}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise PriorError(f"{path}: not a valid prior file ({err}); {retrain}") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise PriorError(f"{path}: not a {FORMAT} file; {retrain}")
        for key, want in (
            ("pack_id", pack.pack_id),
            ("pack_version", pack.version),
            ("data_sha256", data_hash(pack)),
        ):
            if doc.get(key) != want:
                raise PriorError(
                    f"{path}: trained for {key} {doc.get(key)!r}, this pack has {want!r}; {retrain}"
                )
        return cls(pack, doc, threshold)

    @classmethod
    def shared(cls, pack: Pack, threshold: float | None = None) -> IntentPrior:
        """The pack's prior, loaded once per process (every session of a server shares it)."""
        key = (prior_path(pack), pack.version, threshold)
        if key not in _SHARED:
            _SHARED[key] = cls.load(pack, threshold=threshold)
        return _SHARED[key]

    def _asked_after_vent(
        self, text: str, previous: tuple[str, str] | None, exclude: frozenset[tuple[str, str]]
    ) -> tuple[str, str] | None:
        """The pair of the question said after a vent ("I'm getting destroyed, who is their best
        guy"), when the question alone is confidently another pair; else None."""
        vent = TILTED.search(text)
        asked = _ASKED_NEXT.search(text, vent.end()) if vent is not None else None
        if asked is None:
            return None
        if WHAT_NOW.match(normalise(text[asked.start() :])):
            return None  # "getting farmed, what do we do": the call for a losing match is what to do
        alone = self.predict(text[asked.start() :], None, previous, exclude)
        pair = (alone.intent, alone.sub_intent)
        return pair if pair != self.losing_pair and alone.confidence >= 0.6 else None

    def predict(
        self,
        text: str,
        mentions: list[Mention] | None = None,
        previous: tuple[str, str] | None = None,
        exclude: frozenset[tuple[str, str]] = frozenset(),
    ) -> Prediction:
        """The calibrated best pair; `mentions` as in `abstract_entities`; `previous`: the pair of
        the session's last delivered turn, which the session rules (`session_rule`) may keep;
        `exclude`: pairs the classifier may not choose (a rule still may)."""
        mentions = mentions if mentions is not None else link_entities(self.pack, text)
        abstracted = abstract_entities(self.pack, text, mentions)
        p = self.model.probabilities(features(LEADING_AND.sub("", GREETING.sub("", abstracted))))
        if self.labels[int(p.argmax())] == OUT_OF_DOMAIN:
            p = self.model.probabilities(features(abstracted))  # "hello coach, how are you doing"
        if exclude:  # not renormalised: the runner-up keeps its own confidence
            p = np.where(np.array([label in exclude for label in self.labels]), 0.0, p)
        rule = None
        unit = self.pack.catalog.schema.kind("unit")
        option = self.pack.catalog.schema.kind("option")
        said = normalise(text)
        if (
            ACKNOWLEDGED.match(said)
            or _TAKEN_IN.search(said)
            or ((_KEPT.match(abstracted) or _GOING_WITH.search(abstracted)) and "?" not in text)
            or remark(text) == "praise"
            or _thanks_after_news(text)
        ) and THANKS in self.labels:
            # "Okay, whatever you say, boss", "ok so Renzo for the bazaar, got it", "ok I'll try that":
            # taken in, nothing asked (not a request out of the game).
            p, rule = self._only(THANKS), "acknowledged"
        elif (
            self.now_pair is not None
            and WHAT_NOW.match(said)
            and (
                self.labels[int(p.argmax())][0] in ("teaching", "smalltalk", OUT_OF_DOMAIN[0])
                # (nor a fact about the roster: "what am I supposed to do" asks for a move)
                or self.labels[int(p.argmax())] in self.fact_pairs
                or self.labels[int(p.argmax())]
                == self.score_pair  # "what's the plan this round": not the score
            )
        ):
            # "What now?", "now what": the match's next step, not the game's rules.
            p, rule = self._only(self.now_pair), "what_now"
        elif (
            self.score_pair is not None
            and ASKS_STAKES.search(said)
            and not ASKS_MOVE.search(said)
            and not named_unit(self.pack, text, mentions)
        ):
            # "If I win this one, that's the match?": the score and what the round means for it.
            p, rule = self._only(self.score_pair), "stakes"
        elif (
            self.score_pair is not None
            and SCORE_CHECKED.search(said)
            and not re.search(r"\b(?:what|whats|how|should|who|whos|which|why|any)\b", said)
            and not named_unit(self.pack, text, mentions)
        ):
            # "I'm up one nothing right? just making sure": the score confirmed, not how to keep a lead
            p, rule = self._only(self.score_pair), "score_checked"
        elif self.score_pair is not None and _WHICH_ROUND.search(said):
            # "What round is this?", "which round are we in": where the match stands.
            p, rule = self._only(self.score_pair), "which_round"
        elif (
            self.quota_pair is not None
            and (legal := self._legal_team.search(said) or self._team_has_role.search(said))
            and not named_unit(self.pack, text, mentions)
        ):
            # "Is that even a legal team, roles and all", "does our comp have a tank": the team's
            # role quota.
            p, rule = (
                self._only(self.quota_pair),
                "legal_team" if legal.re is self._legal_team else "team_has_role",
            )
        elif self.now_pair is not None and _NEXT_LIFE.search(said):
            # "Just tell me what to do next life": the move for the next spawn, not an unlock.
            p, rule = self._only(self.now_pair), "next_life"
        elif (
            self.quota_pair is not None
            and self._role_count.search(said)
            and not re.search(r"\b(?:who|which|whom)\b", said)  # "no support, who do I play": a pick
            and (not named_unit(self.pack, text, mentions) or _AS_EXAMPLES.search(said))
        ):
            # "Can I run two tanks?", "is no healer ok": the team's role quota (with the units named
            # as examples of it: "two tanks, like Duke and Bran").
            p, rule = self._only(self.quota_pair), "role_count"
        elif (
            self.effect_pair is not None
            and (asked := effect_question(self.pack, text)) is not None
            and not any(m.kind == option and m.span[0] < asked.at for m in mentions)
            and len({m.id for m in mentions if m.kind == option}) < 2  # "which heals, A or B": the two
            and len({m.id for m in mentions if m.kind == unit and m.span[0] < asked.at}) < 2  # a choice
        ):
            p, rule = self._only(self.effect_pair), "asks_effect"
        elif (
            self.option_info_pair is not None
            and len({m.id for m in link_entities(self.pack, text) if m.kind == self._option_kind}) >= 2
            and _CHOOSE_OR_COMPARE.search(said)
            and (
                self.labels[int(p.argmax())][0] != self.option_info_pair[0]
                # "how's the Auto Shotgun compared to the Boomstick": the two described, not one equipped
                or self.labels[int(p.argmax())] != self.option_info_pair
                # ("... auto shotgun or stick with the boomstick": one or the other, not one equipped)
                and (_COMPARED_TO.search(said) or re.search(r"\bor\b", said))
            )
        ):
            # "Rally Cry or Overflow, which heals everyone?": the two options side by side.
            p, rule = self._only(self.option_info_pair), "options_compared"
        elif (
            self.option_info_pair is not None
            and len({m.id for m in mentions if m.kind == option}) == 1
            and not any(m.kind == unit for m in mentions)
            and WHO_HAS.search(said)
        ):
            # "Which of them has Coral Guard", "who runs the Null Grenade": whose it is (the option's
            # fact names its unit), not how it does against their side.
            p, rule = self._only(self.option_info_pair), "whose_option"
        elif (
            self.option_info_pair is not None
            and option is not None
            and re.match(rf"^(?:\w+\s+){{0,3}}?{_WHATS_THAT}\s+{kind_token(option)}\s+{_IT_DOES}", abstracted)
        ):
            # "What's that Spotter Drone their Tamsin keeps throwing up": the option, with who uses it.
            p, rule = self._only(self.option_info_pair), "what_is_option_used"
        elif (
            self.option_hits_pair is not None
            and option is not None
            and abstracted.split().count(kind_token(option)) == 1
            and (
                abstracted.split().count(kind_token(unit or "")) == 1
                or any(self.pack.catalog.schema.kinds[m.kind].role == "type" for m in mentions)
            )
            and _OPTION_AGAINST.search(said)
        ):
            # "Would Dread Whisper help against the cat", "is Worldroot Slam any good against water":
            # that move on that foe, not the foe's matchups.
            p, rule = self._only(self.option_hits_pair), "option_against"
        elif self.swap_pair is not None and re.search(
            r"\b(?:what|who)\s+(?:do|should|can)\s+(?:i|we)\s+(?:switch|swap|change)\s+to\b", said
        ):
            # "I'm on Renzo, what do I switch to on respawn": who to swap in, not the respawn rule.
            p, rule = self._only(self.swap_pair), "switch_to"
        elif (
            self.team_counter_pair is not None
            and not any(m.kind == unit for m in mentions)
            and re.search(r"\b(?:best|good|right|real)\s+answer\b", said)
        ):
            # "What's the best answer I can actually field": a team against theirs, from what they own.
            p, rule = self._only(self.team_counter_pair), "best_answer"
        elif (
            self.counter_pair is not None
            and any(m.kind == unit for m in mentions)
            and _MINE_HARDEST.search(said)
        ):
            # "Which of mine does the most damage to their water turtle": the pick against it, not
            # its strongest move.
            p, rule = self._only(self.counter_pair), "mine_hardest"
        elif (
            self.swap_pair is not None
            and _WHO_OUT.search(said)
            and all(_KEPT_BEFORE.search(text[: m.span[0]]) for m in mentions if m.kind == unit)
        ):
            # "Keep Renzo, who do I swap": the swap, with that one kept (not a counter to Renzo).
            p, rule = self._only(self.swap_pair), "who_out"
        elif self.swap_pair is not None and _IN_ITS_PLACE.search(said):
            # "Fine, what would you put in instead", "who do I drop for Hexmoth": the swap asked for,
            # not a question out of the game ("what would you ..." reads like one to the classifier).
            p, rule = self._only(self.swap_pair), "in_its_place"
        elif WHO_ARE_YOU.search(said) and self.greeting_pair is not None:
            # "Are you a bot?": the coach says what it is for, not "outside what I can help with".
            p, rule = self._only(self.greeting_pair), "who_are_you"
        elif STEPPING_AWAY.match(said) and ("smalltalk", "goodbye") in self.labels:
            p, rule = self._only(("smalltalk", "goodbye")), "stepping_away"
        elif BACK_SOON.match(said) and OUT_OF_DOMAIN in self.labels:
            p, rule = self._only(OUT_OF_DOMAIN), "back_soon"
        elif (
            TECH_TROUBLE.search(said)
            and OUT_OF_DOMAIN in self.labels
            and not named_unit(self.pack, text, mentions)
        ):
            # "This lag is killing me", "my wifi is so bad": the player's machine, not the match.
            p, rule = self._only(OUT_OF_DOMAIN), "tech_trouble"
        elif (
            self.now_pair is not None
            and VENTED.search(said)
            and not _QUESTION_WORD.search(said)
            and not ASKS_ADVICE.search(said)  # "I hate this map, any tips": the tips asked for
            and self.labels[int(p.argmax())][0] in ("teaching", "smalltalk", OUT_OF_DOMAIN[0])
            and (self.labels[int(p.argmax())] != OUT_OF_DOMAIN or _VENTED_IN_WORDS.search(said) is not None)
        ):
            # "This game is rigged": heard (the vent lead), then the match's next step, not a basics tip.
            p, rule = self._only(self.now_pair), "vented"
        elif (
            self.term_pair is not None
            and not any(self.pack.catalog.schema.kinds[m.kind].role in ("unit", "option") for m in mentions)
            and asked_term(self.pack, text) is not None
        ):
            # "What did you mean by poke", "what's an element": the word explained (a tip's pair),
            # not the team or the counter the word names.
            p, rule = self._only(self.term_pair), "term"
        elif ASKS_HELP.match(said) and GREETED in self.labels:
            # "Help", "what can you do": what the coach is for, and what the player needs now.
            p, rule = self._only(GREETED), "help"
        elif unit is not None and TOLD_GONE.search(said):
            # "Oakhorn is gone, I traded it, who do I run?": not a question about the unit let go.
            about_unit = np.array([intent == unit for intent, _ in self.labels])
            if about_unit[int(p.argmax())] and not about_unit.all():
                p, rule = np.where(about_unit, 0.0, p), "told_gone"
        named = kind_token(unit or "") in abstracted.split()
        choice = offered(self.pack, text, mentions) if named else []
        units_said = [m for m in mentions if m.kind == unit]
        if self.threat_pair is not None and SCARIER.search(said) and _AGAINST_US.search(said):
            # "Who's scarier, their Voltail or their Shellbastion": which of theirs is the threat, not a
            # choice among them to field.
            p, rule = self._only(self.threat_pair), "scarier"
        elif (
            self.target_pair is not None
            and option is not None
            and unit is not None
            and re.search(
                rf"{kind_token(option)}\s+(?:(?:on|at)\s+)?{kind_token(unit)}\s+or\s+(?:on\s+)?{kind_token(unit)}\b",
                abstracted,
            )
        ):
            # "Nightmare Hex on the turtle or the cat", "Overcharge the fox or the stag": which of
            # the two to use it on, not whether either can learn it.
            p, rule = self._only(self.target_pair), "on_either"
        elif (
            choice
            and (
                self.labels[int(p.argmax())] not in self.picking_pairs
                # "Lorcan or Renzo into their comp": said first, the choice is the question
                or (units_said and _LEADING.match(text[: units_said[0].span[0]]) is not None)
                or (self.counter_pair is not None and self._facing.search(abstracted) is not None)
                or (self.by_power_pairs and HITS_HARDER.search(text) is not None)
                or re.search(r"\b(?:better|stronger)\b", said) is not None  # "who's better for us, A or B"
                or _GOES_FIRST.search(said) is not None  # "between A and B, who goes first": who leads
            )
        ):
            # "Should I level Emberfox or Galehawk?": a pick among them, not a verdict on each.
            p, rule = self._choose(p, text, choice, mentions), "choice"
        elif (
            self.team_counter_pair is not None
            and self.labels[int(p.argmax())] in self.style_pairs
            and self._they_play.search(abstracted)
        ):
            # "Their flanker keeps diving our healer": their style, played on us, is to be countered.
            p, rule = self._only(self.team_counter_pair), "they_play"
        elif (
            self.style_pairs
            and not named
            and self._style_word.search(abstracted)
            and self.labels[int(p.argmax())] in self._unit_pairs
            and not _SOMEONE.search(abstracted)
        ):
            # "Is it worth going dive this game": a play style asked about, no unit to judge; the style's
            # own pair, the likeliest of them.
            style = max(self.style_pairs, key=lambda pair: p[self.labels.index(pair)])
            p, rule = self._only(style), "style_asked"
        elif (
            self.counter_pair is not None
            and named
            and self.labels[int(p.argmax())] != self.counter_pair
            and (self._beating_me.search(abstracted) or self._have_for.search(abstracted))
        ):
            # "Their sniper is killing me every time I peek", "what do I have for Shellbastion": a
            # counter to that one.
            p, rule = self._only(self.counter_pair), "beating_me"
        elif (
            self.counter_pair is not None
            and named
            and self.labels[int(p.argmax())] not in (self.counter_pair, self.team_counter_pair)
            and brought_in(self.pack, text, mentions)
        ):
            # "What if they swap in Galehawk?": a unit coming in on their side, to be countered in the
            # team they now field.
            p, rule = self._only(self.team_counter_pair or self.counter_pair), "they_bring"
        elif (
            self.counter_pair is not None
            and named
            and HAS_ANYONE.search(abstracted)
            # ("anything that hits water hard besides Sparkwing": the one named is left out, not the foe)
            and set_aside(text, [m for m in mentions if m.kind == unit])
        ):
            # "Do I have anyone for Nadira?": not whether they own Nadira, but what of theirs beats her.
            p, rule = self._only(self.counter_pair), "has_anyone"
        elif (
            self.swap_pair is not None
            and named
            and not brought_in(self.pack, text, mentions)  # "what if they swap to Nadira": theirs
            and (
                OUT_AND_IN.search(abstracted)
                or self._bench.search(abstracted)
                or self._swap_to.search(abstracted)
            )
        ):
            # "Should I take Renzo out and put Paxton in?": a swap, whatever else the words suggest.
            p, rule = self._only(self.swap_pair), "out_and_in"
        elif self.team_counter_pair is not None and not named and self._whole_side.search(abstracted):
            # "What's good against that whole setup": a counter to their team, no one unit of it.
            p, rule = self._only(self.team_counter_pair), "whole_side"
        elif self.now_pair is not None and not named and MATTERS_MOST.search(abstracted):
            # "What's the one thing that matters most this round": the move to make, not the score.
            p, rule = self._only(self.now_pair), "matters_most"
        elif self.grow_pair is not None and not named and LONG_TERM.search(abstracted):
            # "How do I get my team stronger long term": whom to level first, not this match's team.
            p, rule = self._only(self.grow_pair), "long_term"
        elif (
            self.place_info_pair is not None
            and not named
            and context_attribute_asked(self.pack, text) is not None
        ):
            # "Is it control or escort", "what mode is this": the map in play, described
            p, rule = self._only(self.place_info_pair), "place_attribute"
        elif (
            self.evaluate_pair is not None
            and not named
            and SCORE_MINE.search(said)
            and re.search(r"\b(?:my|our)\b", said)  # ("score that": a team the coach offered)
            # (a pair that rates the team already answers: "score my three vs theirs", the matchup)
            and self.labels[int(p.argmax())] not in self._rating_pairs
        ):
            # "Score my comp against theirs", "rate that": the team judged, not a counter to theirs
            p, rule = self._only(self.evaluate_pair), "score_mine"
        elif self.fieldable_pair is not None and not named and KNOWN_TEAMS.search(said):
            # "Any premade teams I could build outta what I have": the game's known teams, fieldable
            p, rule = self._only(self.fieldable_pair), "known_teams"
        elif self.greeting_pair is not None and not named and PREAMBLE.match(said):
            # "Yo coach, quick one": a question announced, none asked yet (not a slot to fill)
            p, rule = self._only(self.greeting_pair), "preamble"
        elif self.greeting_pair is not None and not named and SMALL_TALK.search(abstracted):
            # "How's your day going, coach": small talk, answered as such (not "outside what I do").
            p, rule = self._only(self.greeting_pair), "small_talk"
        elif (
            self.worth_pair is not None
            and abstracted.split().count(kind_token(unit or "")) == 1
            and self._get_unit.search(abstracted)
        ):
            # "Should I get Dunecrawler for this fight", "should I save up for Quill": worth having
            p, rule = self._only(self.worth_pair), "worth_getting"
        elif self.counter_pair is not None and re.search(
            rf"\bis\s+(?:their\s+)?{kind_token(unit or '')}\s+the\s+(?:one|guy)\s+(?:who'?s?\s+|thats?\s+)?"
            r"(?:keeps?\s+)?(?:[a-z]+\s+)?[a-z]+ing\s+(?:me|us|my|our)\b",
            abstracted,
        ):
            # "Is he the one one-shotting me": trouble from that one of theirs, and what beats it
            p, rule = self._only(self.counter_pair), "the_one_hurting"
        elif (
            self.worth_pair is not None
            and len({m.id for m in mentions if m.kind == unit}) == 1
            and _GOOD_TO_LEVEL.search(abstracted)
        ):
            # "Is good to level him?", "is it smart to keep training Tidefang": worth levelling
            p, rule = self._only(self.worth_pair), "good_to_level"
        elif self.swap_pair is not None and not named and WEAK_LINK.search(said):
            # "Who on my team isn't pulling their weight": the one to take off, and who comes in
            p, rule = self._only(self.swap_pair), "weak_link"
        elif self.best_context_pair is not None and self._best_place.search(said):
            # "Whats a good map for Renzo": the places ranked for them, not the one in play.
            p, rule = self._only(self.best_context_pair), "best_place"
        elif self.place_info_pair is not None and not named and self._what_place.search(said):
            # "What even is this map", "what's this map like": the place described, not its picks.
            p, rule = self._only(self.place_info_pair), "what_place"
        elif self.basics_pair is not None and self._team_size.search(said):
            # "How many creatures can I take in", "can I bring five": the team's size, a game rule.
            p, rule = self._only(self.basics_pair), "team_size"
        elif (
            self.score_pair is not None
            and not named
            and SITUATION.search(abstracted)
            and not WHY_HARD.search(abstracted)
        ):
            # "Ok so we're in round two right, what's the deal": where the match stands.
            p, rule = self._only(self.score_pair), "situation"
        elif (
            self.equipped_pair is not None
            and (TEAM_LOADOUT.search(said) if not named else UNUSED_UNLOCKS.search(said) is not None)
            # ("I don't have Brannoc unlocked, do I": whether the player has him)
            and not re.search(r"\b(?:dont|do\s+not|havent|have\s+not)\s+(?:have|got|own)\b", said)
        ):
            # "What's everyone running", "anything unlocked we aren't using": the whole side's options;
            # "anything unlocked he isn't using": that unit's.
            p, rule = self._only(self.equipped_pair), "team_loadout"
        elif self.options_pair is not None and named and _LEFT_TO_UNLOCK.search(said):
            # "Does the stag even have anything left to unlock": what it has and what is still locked.
            p, rule = self._only(self.options_pair), "left_to_unlock"
        elif self.options_pair is not None and named and self._has_got.search(abstracted):
            # "What else has the hawk got": its moves, not a team built around it.
            p, rule = self._only(self.options_pair), "has_got"
        elif (
            self.versus_pair is not None
            and not named
            and self.labels[int(p.argmax())] != self.versus_pair
            and self._type_on_type.search(abstracted)
        ):
            # "How does water do against fire": one type on another is that matchup, not a lesson.
            p, rule = self._only(self.versus_pair), "type_on_type"
        elif (
            self.versus_pair is not None
            and abstracted.split().count(kind_token(unit or "")) == 1
            and re.search(
                rf"\bif\s+(?:i|we)\s+(?:had|got|owned|unlocked)\s+(?:a\s+|an\s+)?{kind_token(unit or '')}\b",
                abstracted,
            )
        ):
            # "If I had Pyralis, would this be easier": how that one would do against what they
            # field (and whether the player has it), not a team rating.
            p, rule = self._only(self.versus_pair), "if_i_had"
        elif (
            self.versus_pair is not None
            and (set_on := _SET_ON.search(abstracted)) is not None
            and set_on["a"] == set_on["b"] == kind_token(unit or "")
        ):
            # "I'm using the fox on their turtle": how that fight goes, not whether the fox is worth it.
            p, rule = self._only(self.versus_pair), "set_on"
        elif (
            self.versus_pair is not None
            and named
            and abstracted.split().count(kind_token(unit or "")) == 1
            and _TARGET.search(abstracted)
        ):
            # "Who should my fox go after": the one of theirs it beats (and the one to keep it off).
            p, rule = self._only(self.versus_pair), "target"
        elif (
            self.target_pair is not None
            and any(m.kind == option for m in mentions)
            and ON_WHOM.search(normalise(text))
        ):
            # "Who should I use Overcharge on?": its target, not when to use it or what it does.
            p, rule = self._only(self.target_pair), "on_whom"
        elif (
            self.target_pair is not None
            and any(m.kind == option for m in mentions)
            and WHEN_TO_USE.search(normalise(text))
        ):
            # "When should I use Rally Cry": how to use what the player has, not when it unlocks
            # ("when can I use it" stays the unlock).
            p, rule = self._only(self.target_pair), "when_to_use"
        elif (
            self.threat_pair is not None
            and (target := TARGET_NAMED.search(abstracted)) is not None
            and target["name"] == kind_token(unit or "")
        ):
            # "Should I dive their Nadira": whether she is the one to go after, not her loadout
            p, rule = self._only(self.threat_pair), "target_named"
        elif self.threat_pair is not None and not named and OUR_TARGET.search(abstracted):
            # "Who do I go after first", "which of their guys can we dive": the team's target is
            # their threat, not an upgrade or a comp.
            p, rule = self._only(self.threat_pair), "our_target"
        elif (
            self.versus_pair is not None
            and self.labels[int(p.argmax())] not in (self.versus_pair, self.counter_pair, self.swap_pair)
            and self._versus.search(abstracted)
        ):
            # "What about my Sparkwing vs Shellbastion?": how one unit does against another.
            p, rule = self._only(self.versus_pair), "versus"
        elif (
            self.versus_pair is not None
            and self.labels[int(p.argmax())] == self.counter_pair
            and self._attack_on.search(abstracted)
        ):
            # "Will Shellbastion destroy Emberfox?": how the one does against the other, named both
            # (a counter pick would not say whether it does).
            p, rule = self._only(self.versus_pair), "attack_on"
        elif (
            self.versus_pair is None
            and self.counter_pair is not None
            and (
                self.labels[int(p.argmax())] == self.info_pair
                # "Elowen vs Nadira, who comes out on top": the two named, one against the other
                or abstracted.split().count(kind_token(unit or "")) == 2
                and self.labels[int(p.argmax())] != self.counter_pair
            )
            and self._versus.search(abstracted)
        ):
            # "What about Renzo vs their Brannoc?" where the pack says how one beats another only
            # as a counter: that, not a description of the first.
            p, rule = self._only(self.counter_pair), "versus"
        elif (
            self.info_pair is not None
            and abstracted.split().count(kind_token(unit or "")) == 1
            and self._about_unit.search(abstracted)
        ):
            # "What's the deal with Voltail", "what's Bex bring to their side": that unit described
            # (not "deal with" it, not the gear it carries).
            p, rule = self._only(self.info_pair), "about_unit"
        elif (
            self.counter_pair is not None
            and self.labels[int(p.argmax())] not in (self.versus_pair, self.counter_pair, self.swap_pair)
            and self._confront.search(abstracted)
        ):
            # "How do I get to Nadira?", "who can catch him": reaching a unit to fight it is
            # countering it, not unlocking it.
            p, rule = self._only(self.counter_pair), "confront"
        elif (
            self.opener_pair is not None
            and self._opener is not None
            and named
            and self._opener.search(abstracted)
        ):
            # "What move should Galehawk open with?": the best of its options, not the list of them.
            p, rule = self._only(self.opener_pair), "opener"
        elif (
            self.threat_pair is not None
            and self.labels[int(p.argmax())] in self.strongest_pairs
            and THEIR_BEST.search(abstracted)
        ):
            # "Who's the scariest thing they have?": their strongest is their threat, not mine.
            p, rule = self._only(self.threat_pair), "their_best"
        elif (
            self.picks_fit_pair is not None
            and not named
            and self._my_best.search(abstracted)
            and self._on_place.search(abstracted)
        ):
            # "What's my best pick on this map": who the place favours of the player's, not their
            # highest level.
            p, rule = self._only(self.picks_fit_pair), "my_best_here"
        elif (
            (self.role_pair or self.strongest_of_kind) is not None
            and not named
            and self._be_role.search(said)
        ):
            # "Who should be my tank": who fills that role (of the player's, the strongest of it).
            p, rule = self._only(self.role_pair or self.strongest_of_kind), "be_role"  # type: ignore[arg-type]
        elif (
            self.strongest_first is not None
            and self.labels[int(p.argmax())] not in (*self.strongest_pairs, self.counter_pair, self.swap_pair)
            and self._my_best.search(abstracted)
            and not self._facing.search(abstracted)
        ):
            # "Who is my strongest hero?": the player's strongest, not the meta's.
            p, rule = self._only(self.strongest_first), "my_best"
        elif (
            (self.by_power_pairs or self.role_pair)
            and WHICH_OF_MINE_MOST.search(abstracted)
            and not self._facing.search(abstracted)  # "... best against their Voltail": its counter
            and not self._on_place.search(abstracted)  # "... best on this map": its fit there
        ):
            # "Which of my guys is the tankiest?": the player's strongest of that kind, not a team (a
            # pack whose strength is only the level: its pick for a role).
            pairs = self.by_power_pairs or ({self.role_pair} if self.role_pair is not None else set())
            p, rule = self._within(p, pairs), "which_of_mine"
        elif (
            self.verdict_pair is not None
            # (one unit, said once or twice: "Ren got a triple, do I keep Renzo or swap")
            and len({m.id for m in mentions if m.kind == unit}) == 1
            and self._is_it_good.search(abstracted)
        ):
            # "Is Wendell pulling his weight", "is Yarrow even useful": a verdict on that one here
            p, rule = self._only(self.verdict_pair), "is_it_good"
        elif (
            self.versus_pair is not None
            and self.labels[int(p.argmax())] in self.rating_pairs
            and abstracted.split().count(kind_token(unit or "")) == 1
            and not self._team_word.search(abstracted)
            and RATED.search(abstracted)
            and not ANY_USE_NOW.search(abstracted)
        ):
            # "Is Hexmoth any good?": how that one does against what they field, not a team of one.
            p, rule = self._only(self.versus_pair), "one_rated"
        elif (
            self.option_hits_pair is not None
            and option is not None
            and abstracted.split().count(kind_token(option)) == 1
            and abstracted.split().count(kind_token(unit or "")) == 1
            and _USED_ON.search(abstracted)
            and not re.search(r"\b(?:my|our)\b", abstracted)
        ):
            # "Is Blaze Charge worth using on their turtle?": the option against that one of theirs.
            p, rule = self._only(self.option_hits_pair), "option_on"
        elif (
            self.analysis_pair is not None
            and not named
            and self._known_group.search(abstracted)
            and not re.search(r"\b(?:my|our|i|we)\b", abstracted)
        ):
            # "Is that like a known comp?", "are they running a meta team": their side read, and the
            # known one it is like.
            p, rule = self._only(self.analysis_pair), "known_group"
        elif self.analysis_pair is not None and not named and _OUTRANGED.search(said):
            # "Are we outranged", "do they outrange us": their side against ours on reach.
            p, rule = self._only(self.analysis_pair), "outranged"
        elif (
            self.threat_pair is not None
            and not named
            and _WHO_AGAINST.search(abstracted)
            and re.search(
                r"\b(?:\w{3,}iest|scariest|strongest|toughest|deadliest|biggest|most\s+dangerous|worst)\b",
                said,
            )
        ):
            # "Who on their team is scariest": the one of theirs to watch, not their side read.
            p, rule = self._only(self.threat_pair), "who_worst"
        elif self.analysis_pair is not None and not named and _WHO_AGAINST.search(abstracted):
            # "Who am I up against?": their side, read (who they are, what they play).
            p, rule = self._only(self.analysis_pair), "who_against"
        elif (
            self.info_pair is not None
            and len({m.id for m in mentions if m.kind == unit}) == 1  # ("their X, what does X do")
            and self._what_it_does.search(abstracted)
        ):
            # "What does their lightning critter do", "what does the oak guy do again": that unit
            # described, whoever's it is.
            p, rule = self._only(self.info_pair), "what_it_does"
        elif (
            self.team_context_pair is not None
            and not named
            and (MAP_FOR_SIDES.search(abstracted) or MAP_MATTERS.search(said))
        ):
            # "And the map, does it help us or them": how the place in play suits the player's team.
            p, rule = self._only(self.team_context_pair), "map_for_sides"
        elif (
            self.counter_pair is not None
            and abstracted.split().count(kind_token(unit or "")) == 1
            and _WONT_DIE.search(abstracted)
            and not re.search(r"\b(?:my|our)\b", abstracted)
        ):
            # "This turtle thing just will not die": how to beat it, not whether to level it.
            p, rule = self._only(self.counter_pair), "wont_die"
        elif (
            self.versus_pair is not None
            and abstracted.split().count(kind_token(unit or "")) == 2
            and re.search(r"\b(?:my|our)\b", abstracted)
            and _SHRUGS_OFF.search(abstracted)
        ):
            # "Their turtle ate two of my fox's fire attacks and barely flinched": how the player's
            # one does against theirs (half damage), not the attacks' list.
            p, rule = self._only(self.versus_pair), "shrugs_off"
        elif (
            self.swap_pair is not None
            and abstracted.split().count(kind_token(unit or "")) == 2
            and _WORTH_FIELDING.search(abstracted)
            and re.search(
                rf"\b(?:over|instead\s+of|in\s+place\s+of|for)\s+(?:my\s+)?{kind_token(unit or '')}",
                abstracted,
            )
        ):
            # "Is the turret dude worth bringing in over Wendell": that swap.
            p, rule = self._only(self.swap_pair), "worth_swapping"
        elif (
            self.next_unit_pair is not None
            and _NEXT_UNLOCK.search(said)
            and not named_unit(self.pack, text, mentions)
        ):
            # "What do I unlock next": the account's next unlock, no unit to ask about.
            p, rule = self._only(self.next_unit_pair), "next_unlock"
        elif (
            (self.versus_pair or self.counter_pair) is not None
            and abstracted.split().count(kind_token(unit or "")) == 1
            and _WORTH_FIELDING.search(abstracted)
        ):
            # "Is Tidefang worth bringing in?": how that one fares against what they field, not
            # whether to level it.
            p, rule = self._only(self.versus_pair or self.counter_pair), "worth_fielding"  # type: ignore[arg-type]
        elif (
            self.picks_fit_pair is not None
            and self.labels[int(p.argmax())][0] == "teaching"
            and self._context.search(abstracted)
            and re.search(r"\b(?:tips?|advice|help|suggestions?|ideas?)\b", said)
            and not named
        ):
            # "I hate this map, any tips": who the map favours, not the game's basics.
            p, rule = self._only(self.picks_fit_pair), "map_tips"
        elif (
            self.kind_context_pair is not None
            and (self._context.search(text) or re.search(r"\bhere\b", said))
            and _KIND_VERDICT.search(said)
            and kind_said(self.pack, text) is not None
        ):
            # "Are shotguns any good on this map", "is Fathom Docks good for tanks": that kind there.
            p, rule = self._only(self.kind_context_pair), "kind_on_context"
        elif (
            self.kind_context_pair is not None
            and not named
            and re.search(r"\bor\b", said)
            and (self._context.search(text) or _KIND_CHOICE.search(said))
            and len(kinds_said(self.pack, text)) >= 2
        ):
            # "Tank or support here", "should I go shotguns or snipers": those kinds there.
            p, rule = self._only(self.kind_context_pair), "kinds_on_context"
        elif self.role_pair is not None and self._play_as_role.search(said) and not named:
            # "What should I play for support": who fills that role.
            p, rule = self._only(self.role_pair), "play_as_role"
        elif self.fill_pair is not None and _ADD_ONE.search(abstracted) and not named:
            # "So should I add someone?": a unit for the team's open slot, not a swap.
            p, rule = self._only(self.fill_pair), "add_one"
        elif (
            self.on_context_pair is not None
            and self.labels[int(p.argmax())] != self.on_context_pair
            and abstracted.split().count(kind_token(unit or "")) == 1
            and (RATED.search(abstracted) or _DOES_ANYTHING.search(abstracted))
            and (self._context.search(abstracted) or _HERE.search(abstracted))
            and not AGAINST_THEM.search(abstracted)
        ):
            # "Is my shotgun guy any use here", "is Renzo good on this map": how that one does on the
            # context in play.
            p, rule = self._only(self.on_context_pair), "rated_here"
        elif (
            self.evaluate_pair is not None
            and self.labels[int(p.argmax())] == self.on_context_pair
            and not named
            and self._ours.search(said)
        ):
            # "Is Fathom Docks good for us": no one unit, the team on the map is rated.
            p, rule = self._only(self.evaluate_pair), "team_here"
        elif (
            (self.versus_pair or self.counter_pair) is not None
            and abstracted.split().count(kind_token(unit or "")) == 1
            and (RATED.search(abstracted) or _DOES_ANYTHING.search(abstracted))
            and AGAINST_THEM.search(abstracted)
        ):
            # "Does Lorcan do anything vs them", "is Wendell even useful vs them": how that one fares
            # against what they field (a pack without a unit matchup pair: its counter pair, whose
            # answer weighs the player's own unit against their side).
            p, rule = self._only(self.versus_pair or self.counter_pair), "any_use_vs_them"  # type: ignore[arg-type]
        elif self.versus_pair is not None and _BEATEN_BY.search(abstracted):
            # "My fox just went in and got deleted by the turtle, what happened": that fight, told.
            p, rule = self._only(self.versus_pair), "beaten_by"
        elif (
            (self.versus_pair or self.counter_pair) is not None
            and abstracted.split().count(kind_token(unit or "")) == 1
            and (_TROUBLE_FOR_THEM.search(abstracted) or TAKING_HITS.search(abstracted))
        ):
            # "Is my Oakhorn a problem for them?", "why is my fox taking so much damage?": how that
            # one does against what they field (what of theirs hits it hard; a pack without a unit
            # matchup pair: its counter pair, which names what threatens the player's own unit).
            p, rule = self._only(self.versus_pair or self.counter_pair), "trouble_for_them"  # type: ignore[arg-type]
        elif (
            self.versus_pair is not None
            and _WORTH.search(abstracted)
            and abstracted.split().count(kind_token(unit or "")) >= 2
            and self._facing.search(abstracted)
        ):
            # "Is Lumifawn worth putting in against Voltail?": how one fares against the other, not
            # whether the unit is worth levelling.
            p, rule = self._only(self.versus_pair), "worth_against"
        elif (
            self.option_unlock_pair is not None
            and self.labels[int(p.argmax())] == self.unit_unlock_pair
            and option is not None
            and kind_token(option) in abstracted.split()
            and _WHEN_GETS.search(abstracted)
        ):
            # "When does Dumaka get Slugger?": when the option comes, not whether they have the unit.
            p, rule = self._only(self.option_unlock_pair), "option_when"
        elif self.unit_unlock_pair is not None and self._level_for.search(abstracted):
            # "What level do I need for Bexley?": when the player gets that one, even one of theirs.
            p, rule = self._only(self.unit_unlock_pair), "level_for"
        elif (
            self.level_pair is not None
            and _UNIT_LEVEL.search(abstracted)
            # "Is Oakhorn levelled enough for Voltail": the first one's level, the other named too;
            # "Lumifawn is only level 5, isn't she": one unit, named twice
            and (len({m.id for m in mentions if m.kind == unit}) == 1 or re.search(_ENOUGH, abstracted))
            and self.labels[int(p.argmax())] != self.level_pair
            # "is Osmund worth playing, he's only level 2": the level is an aside to a judgement
            and not re.search(r"\b(?:worth|should\s+(?:i|we)|dead\s+weight|any\s+good)\b", said)
            # "what level does Lorcan need for his next item": when the next one comes
            and not (self._next_option is not None and self._next_option.search(abstracted))
        ):
            # "Hows my Emberfox doing level wise?", "what level is Galehawk": where that one stands
            # (the pair whose answer says its level), not whether it is worth levelling.
            p, rule = self._only(self.level_pair), "unit_level"
        elif self.versus_pair is not None and self._beats_what.search(abstracted):
            # "What does their Briarcat counter?": what it beats, not what counters it.
            p, rule = self._only(self.versus_pair), "beats_what"
        elif (
            self.counter_pair is not None
            and abstracted.split().count(kind_token(unit or "")) == 2
            and self._weighs_two.search(abstracted)
            and not self._facing.search(abstracted)
            and not _PROGRESS.search(abstracted)
            and not self._versus.search(abstracted)
        ):
            # "Is Tamsin better than Stellan?": the two weighed for this match (the counter pair
            # opens with the comparison; a counter pick when they are not both the player's).
            p, rule = self._only(self.counter_pair), "weighs_two"
        elif (
            (self.versus_pair or self.counter_pair) is not None
            and _WHO_WINS.search(abstracted)
            and abstracted.split().count(kind_token(unit or "")) >= 2
        ):
            # "Brannoc or Osmund, which wins?": how the one fares against the other.
            p, rule = self._only(self.versus_pair or self.counter_pair), "who_wins"  # type: ignore[arg-type]
        elif (
            self.group_info_pair is not None
            and abstracted.split().count(self._group_token) == 1
            and not named
            and GROUP_INFO.search(abstracted)
        ):
            # "What's Steam Engine about?", "tell me about the Wolfpack comp": that group described.
            p, rule = self._only(self.group_info_pair), "group_info"
        elif (
            self.build_pair is not None
            and self._build_team.search(abstracted)
            # ("build a team and drop Oakhorn": a team without the one named)
            and all(_DROPPED_BEFORE.search(text[: m.span[0]]) for m in mentions if m.kind == unit)
            and not self._style_word.search(abstracted)
        ):
            # "Build me the best team against these guys from what I have", "what's the best comp for
            # this map with what I own": a whole team, built for the match.
            p, rule = self._only(self.build_pair), "build_team"
        elif (
            self.build_pair is not None
            and _WHAT_TO_RUN.search(abstracted)
            and not named
            # a type ("... an electric one, what do I bring") or a style ("I want to play aggro, what
            # should I run") named: the question about that
            and not any(m.kind in self._type_kinds for m in mentions)
            and not self._style_word.search(abstracted)
            and self.labels[int(p.argmax())]
            not in (self.build_pair, self.team_counter_pair, self.counter_pair)
        ):
            # "Just tell me what to run", "what should I field this round": a whole team, not one pick
            # (against them when the sentence points at them).
            against = self.team_counter_pair is not None and _THEM.search(abstracted) is not None
            p, rule = self._only(self.team_counter_pair if against else self.build_pair), "what_to_run"  # type: ignore[arg-type]
        elif (
            self.team_counter_pair is not None
            and self.labels[int(p.argmax())] in self.around_pairs
            and any(
                m.kind == unit and faces_foe(text[: m.span[0]].rstrip() + " ", text[m.span[1] :])
                for m in mentions
            )
        ):
            # "Give me a team that can handle Voltail": a team against that one, not built around it.
            p, rule = self._only(self.team_counter_pair), "team_against"
        elif self.level_rank_pair is not None and LEVEL_ORDER.search(abstracted) and not named:
            # "Who's the lowest level out of them", "rank my pets by level": by the levels they have.
            p, rule = self._only(self.level_rank_pair), "level_order"
        elif self.roster_pair is not None and self._roster.search(abstracted) and not named:
            # "What heroes do I even have?": the player's units listed, not one of them.
            p, rule = self._only(self.roster_pair), "roster"
        elif (
            self.lead_pair is not None
            and not named
            and _WHO_LEADS.search(abstracted)
            and self.labels[int(p.argmax())][0] in ("teaching", "inventory", OUT_OF_DOMAIN[0])
        ):
            # "Who should lead for us", "who goes first for us": the pick to open with, not a tip on
            # positioning nor whom to train first.
            p, rule = self._only(self.lead_pair), "who_leads"
        elif (
            self.rate_named_pair is not None
            and _RATE_THEM.search(abstracted)
            and abstracted.split().count(kind_token(unit or "")) >= 2
        ):
            # "Thinking Emberfox, Oakhorn, Galehawk next round. Rate it": the team just named, rated.
            p, rule = self._only(self.rate_named_pair), "rate_named"
        elif self.evaluate_pair is not None and asks_members(self.pack, text):
            # "Who's in my team right now", "are those both in my lineup": who the player fields
            # (the evaluate pair's answer says it first), not a unit's lineup elsewhere.
            p, rule = self._only(self.evaluate_pair), "members"
        elif (
            self.evaluate_pair is not None
            and self._keep_same.search(abstracted)
            and not (named and _GEAR_CHANGE.search(said))  # "change anything on Oakhorn": its gear
        ):
            # "We took round one, keep the same team": how the team they keep stands, not a new one.
            p, rule = self._only(self.evaluate_pair), "keep_same"
        elif (
            self.opener_pair is not None
            and named
            and re.search(
                r"\b(?:anything|something|what(?:s|\s+is)?)\s+better\s+(?:\w+\s+)?(?:to\s+)?(?:run|use|equip|slot|bring)\b",
                said,
            )
        ):
            # "Does Elowen have anything better to run": her best options now, not who she is.
            p, rule = self._only(self.opener_pair), "better_options"
        elif (
            self.next_option_pair is not None
            and self._next_option is not None
            and named
            and self.labels[int(p.argmax())] not in self.next_pairs
            and self._next_option.search(abstracted)
        ):
            # "How far off is her next move?": what it unlocks next, not its best one now.
            p, rule = self._only(self.next_option_pair), "next_option"
        elif (
            self.counter_pair is not None
            and self.labels[int(p.argmax())] in (self.threat_pair, self.analysis_pair, self.info_pair)
            and self._weak_to.search(abstracted)
        ):
            # "What's their Briarcat weak to?": what beats that one, not their team's threat (nor
            # a description of it).
            p, rule = self._only(self.counter_pair), "weak_to"
        elif (
            self.info_pair is not None
            and self.labels[int(p.argmax())] in (self.threat_pair, self.analysis_pair)
            and self._tell_about.search(abstracted)
        ):
            # "Tell me about their Voltail": that unit, not their team's threat.
            p, rule = self._only(self.info_pair), "tell_about"
        elif (
            self.threat_pair is not None
            and SHOULD_WORRY.search(abstracted)
            and abstracted.split().count(kind_token(unit or "")) == 1
            and not re.search(r"\b(?:my|our)\b", abstracted)
        ):
            # "Should I worry about Bexley?": how much that one of theirs threatens (yes or no),
            # not whether the player should get it.
            p, rule = self._only(self.threat_pair), "should_worry"
        elif self.type_counter_pair is not None and self._type_fears.search(abstracted):
            p, rule = self._only(self.type_counter_pair), "type_fears"
        elif (
            self.threat_pair is not None
            and (WORRY.search(abstracted) or THREAT_TO.search(abstracted))
            and not self._worry_named.search(abstracted)
        ):
            # "Who do I worry about most?", "what should Lorcan watch out for": their threat (a
            # unit of theirs named after the cue is a counter question: "worried about their X").
            p, rule = self._only(self.threat_pair), "worry"
        elif self.type_counter_pair is not None and self._type_trouble.search(abstracted):
            # "I keep losing to water teams": what beats that type, not the match's next step.
            p, rule = self._only(self.type_counter_pair), "type_trouble"
        elif self.threat_pair is not None and AT_RISK.search(abstracted):
            # "Which of mine is most at risk?": who their threat hits hardest, not my strongest.
            p, rule = self._only(self.threat_pair), "at_risk"
        elif (
            self.threat_pair is not None
            and BIG_DEAL.search(abstracted)
            and abstracted.split().count(kind_token(unit or "")) == 1
            and not re.search(r"\b(?:my|our)\b", abstracted)
        ):
            # "Is she a big deal?", "is their Voltail a problem for us": how much that one threatens.
            p, rule = self._only(self.threat_pair), "big_deal"
        elif self.losing_pair is not None and TILTED.search(abstracted):
            # "Man, I'm so tilted", "are we just cooked": the call that turns a losing match, not
            # a goodbye or the bare score - unless a question follows the vent ("getting farmed,
            # who do I swap"), and that question alone has a clear pair of its own.
            vented = self._asked_after_vent(text, previous, exclude)
            p, rule = (
                (self._only(vented), "asked_after_vent")
                if vented
                else (self._only(self.losing_pair), "tilted")
            )
        elif self.option_status_pairs and self._needs_for.search(abstracted):
            # "What does Lorcan need for Long Barrels?": what unlocks the option, not what it does.
            p, rule = self._within(p, self.option_status_pairs), "needs_for"
        elif self.option_status_pairs and self._has_option.search(abstracted):
            p, rule = self._within(p, self.option_status_pairs), "has_option"
        elif self.analysis_pair is not None and WHY_HARD.search(abstracted):
            # "Why is this matchup so rough?": what the other side does to the player's.
            p, rule = self._only(self.analysis_pair), "why_hard"
        elif self.swap_pair is not None and not named and SWAP_TO.search(abstracted):
            # "I just died, what do I swap to?": the swap, not the respawn rules.
            p, rule = self._only(self.swap_pair), "swap_to"
        elif self.swap_pair is not None and self._goes_in.search(abstracted):
            p, rule = self._only(self.swap_pair), "goes_in"
        elif self.swap_pair is not None and FIX.search(abstracted):
            # "What's the quickest fix?": the one change that helps most is a swap.
            p, rule = self._only(self.swap_pair), "fix"
        elif self.versus_pair is not None and self._does_to.search(abstracted):
            p, rule = self._only(self.versus_pair), "does_to"
        elif (
            self.versus_pair is not None
            and named
            and self.labels[int(p.argmax())] not in (self.counter_pair, self.swap_pair)
            and ANY_USE_NOW.search(abstracted)
        ):
            # "Is Oakhorn any use here?": how it does against what they field now.
            p, rule = self._only(self.versus_pair), "any_use_now"
        elif (
            self.versus_pair is not None
            and self.labels[int(p.argmax())] not in (self.versus_pair, self.swap_pair)
            and self._good_against.search(abstracted)
        ):
            # "What's Tidefang good against?": what it beats, not what beats it.
            p, rule = self._only(self.versus_pair), "good_against"
        elif (
            self.versus_pair is None
            and self.counter_pair is not None
            and self.labels[int(p.argmax())] != self.counter_pair
            and self._unit_beats.search(abstracted)
        ):
            # "Who does Tamsin counter?" where the pack's counters are between units: the counter
            # pair, whose answer says whom she beats when she is the one asked about.
            p, rule = self._only(self.counter_pair), "unit_beats"
        elif (
            self.equipped_pair is not None
            and named
            and self.labels[int(p.argmax())] == self.info_pair
            and self._has_on.search(abstracted)
        ):
            # "What does Renzo have?": what he carries, not who he is.
            p, rule = self._only(self.equipped_pair), "has_on"
        elif self.opener_pair is not None and named and _GEAR_CHANGE.search(said):
            # "Should I swap anything on Brannoc": the best it can run, not a swap of the unit.
            p, rule = self._only(self.opener_pair), "gear_change"
        elif self.opener_pair is not None and named and self._use_on.search(abstracted):
            # "What should Oakhorn use on Briarcat?", "what should Galehawk run against the turtle": its
            # best option against that one.
            p, rule = self._only(self.opener_pair), "use_on"
        elif (
            self.opener_pair is not None
            and named
            and self.labels[int(p.argmax())] == self.info_pair
            and LOADOUT_WORDS.search(abstracted)
        ):
            # "What's Paxton's setup?": what to run on him, not who he is.
            p, rule = self._only(self.opener_pair), "setup"
        elif (
            self.next_option_pair is not None
            and named
            and self.labels[int(p.argmax())] not in self.next_pairs
            and self._improve.search(abstracted)
        ):
            # "How do I make Tidefang stronger?": what it gains next (levels, an evolution, an item),
            # not what beats it.
            p, rule = self._only(self.next_option_pair), "improve"
        elif self.swap_pair is not None and (
            (named and REPLACES.search(abstracted)) or (previous is not None and INSTEAD.search(abstracted))
        ):
            # "Who takes Renzo's spot?", "who would Bexley replace?": one unit for another on the team.
            p, rule = self._only(self.swap_pair), "replaces"
        elif (
            self.counter_pair is not None
            and self.labels[int(p.argmax())] in self.strongest_pairs
            and self._facing.search(abstracted)
        ):
            # "What's my best bet against Voltail?": the best against a unit is its counter; a
            # question about the player's strongest names no unit to face.
            p, rule = self._only(self.counter_pair), "best_against"
        if (
            rule is None
            and self.next_option_pair is not None
            and len({m.id for m in mentions if m.kind == unit}) == 1
            and not any(m.kind == option for m in mentions)
            and self._option_noun.search(said)
            and re.search(r"\b(?:other|else|another|more)\b", said)
            and re.search(r"\b(?:have|has|got|get|unlock|run|use|can)\b", said)
        ):
            # "Does he have any other gun", "what other moves can Oakhorn get": what it gains next
            p, rule = self._only(self.next_option_pair), "other_options"
        if (
            self.threat_pair is not None
            and OUR_TARGET.search(abstracted)
            and (
                re.search(rf"\bwith\s+(?:my\s+|our\s+)?{kind_token(unit or '')}\b", abstracted)
                # "who would Hexmoth curse first": the unit named is the one going after them
                or re.search(
                    rf"\b(?:would|will|could|should|do|does)\s+{kind_token(unit or '')}\s+\w+\s+first\b",
                    abstracted,
                )
            )
        ):
            # "Who should she go after with Lorcan": the one of theirs to hunt with that unit
            p, rule = self._only(self.threat_pair), "target_with"
        if (
            self.progression_pair is not None
            and self._stage_said(mentions)
            and re.search(r"\bhow\b|\b(?:get|reach|become|turn\s+into|grow\s+into)\b", said)
        ):
            # "Elderhorn how", "how do I get to Elderhorn": a later stage of a unit, how it is reached
            # (over any other reading: a stage name is no foe to reach)
            p, rule = self._only(self.progression_pair), "stage_how"
        best = int(p.argmax())
        intent, sub_intent = self.labels[best]
        confidence = float(np.interp(p[best], *self.calibration))
        pred = Prediction(intent=intent, sub_intent=sub_intent, confidence=round(confidence, 4), rule=rule)
        return session_rule(self.pack, text, pred, previous) or pred

    def _choose(
        self, p: np.ndarray, text: str, choice: list[str], mentions: list[Mention] | None
    ) -> np.ndarray:
        """A choice among the player's units: on a context (a map), the pair of who it favours; of
        whom to level, the likeliest pair answered by the strongest unit; of whom to field, the
        counter pair (against the foe named, or their side)."""
        if self.fit_pair is not None and self._context.search(text):
            return self._only(self.fit_pair)  # "who's better on this map, Renzo or Lorcan?"
        if self.counter_pair is not None and self._facing.search(
            abstract_entities(self.pack, text, mentions)
        ):
            return self._only(self.counter_pair)  # "who's stronger against Voltail, A or B": its counter
        if HITS_HARDER.search(text) and self.by_power_pairs:
            return self._within(p, self.by_power_pairs)
        if LEVELLING.search(text) and self.strongest_pairs:
            return self._within(p, self.strongest_pairs)
        return self._only(self.counter_pair) if self.counter_pair is not None else p

    def _within(self, p: np.ndarray, pairs: set[tuple[str, str]]) -> np.ndarray:
        """The probabilities kept to `pairs` and renormalised (a rule that narrows the choice)."""
        kept = np.where(np.array([label in pairs for label in self.labels]), p, 0.0)
        return kept / float(kept.sum() or 1.0)

    def _labelled(self, sentence: str) -> tuple[str, str]:
        """The pair the trained model gives a canonical sentence ("what skills does xcreaturex have"):
        how a rule finds the pack's pair for a kind of question without naming it."""
        return self.labels[int(self.model.probabilities(features(sentence)).argmax())]

    def _only(self, pair: tuple[str, str]) -> np.ndarray:
        """Probabilities that put everything on `pair` (a rule's decision)."""
        return (np.arange(len(self.labels)) == self.labels.index(pair)).astype(float)

    def prefill(
        self,
        text: str,
        mentions: list[Mention] | None = None,
        previous: tuple[str, str] | None = None,
        theirs: frozenset[str] = frozenset(),
        benched: frozenset[str] = frozenset(),
        fielded: frozenset[str] = frozenset(),
    ) -> tuple[str, str] | None:
        """(intent, sub_intent) to prefill W1 with, or None when the prior is not confident enough
        (a session rule's pair is always prefilled: it is a decision, not a guess). `theirs`: the
        units only the opponent fields, from the live state (`state_rule`)."""
        mentions = mentions if mentions is not None else link_entities(self.pack, text)  # once, for both
        pred = self.predict(text, mentions, previous)
        pred = self.state_rule(text, pred, theirs, mentions, benched, fielded) or pred
        pred = self.limit_rule(text, pred, theirs) or pred
        if (
            pred.rule is None
            and (pred.intent, pred.sub_intent) in self.option_status_pairs
            and not any(m.kind == self._option_kind for m in mentions)
            and any(m.kind == self.pack.catalog.schema.kind("unit") for m in mentions)
            and not self._option_noun.search(text)
        ):
            # "And can I get Sunmane": a unit and no option, nor a word for one, is not a question
            # about an option's status (it would only be asked back "which skill do you mean?").
            pred = self.predict(text, mentions, previous, exclude=frozenset(self.option_status_pairs))
        focused = next(
            (e for e in self.pack.phi if (e.intent, e.sub_intent) == (pred.intent, pred.sub_intent)), None
        )
        if (
            pred.rule is None
            and self.fill_pair is not None
            and not mentions
            and focused is not None
            and any(r.startswith("ic.focus") for r in focused.requires)
            and self._which_unit.search(normalise(text))
        ):
            # "Which hero is best for me now": a pick, not "which hero do you mean?"
            intent, sub_intent = self.fill_pair
            pred = pred.model_copy(update={"intent": intent, "sub_intent": sub_intent, "rule": "which_unit"})
        if (
            pred.rule is None
            and (pred.intent, pred.sub_intent) in self.ownership_pairs
            and not self._owning.search(normalise(text))
        ):
            # "My little water puppy is so weak", "could it one-shot my fox": a name and no word of
            # having is not asking whether the player has it (every training sentence of an
            # ownership pair says "have", "own", "got", "mine" ...): the best other pair.
            pred = self.predict(text, mentions, previous, exclude=frozenset(self.ownership_pairs))
        ok = pred.rule is not None or pred.confidence >= self.threshold
        return (pred.intent, pred.sub_intent) if ok else None

    def _stage_said(self, mentions: list[Mention]) -> bool:
        """Is a unit named by one of its later stages' names ("Elderhorn" of Oakhorn)?"""
        progression = self.pack.catalog.schema.progression
        if progression is None:
            return False
        for m in mentions:
            entity = self.pack.catalog.get(progression.kind, m.id)
            stages = entity.value(progression.field) if entity is not None else None
            names = [str(s.get("name") if isinstance(s, dict) else s).lower() for s in stages or []]
            named_as = m.surface.lower()
            if entity is not None and named_as != entity.display.lower() and named_as in names[1:]:
                return True
        return False

    def limit_rule(self, text: str, pred: Prediction, theirs: frozenset[str]) -> Prediction | None:
        """ "How fast is Emberfox", "what level is their Voltail": a question the data cannot answer
        (`voicecoach.perception.limits`) gets the nearest thing it holds, the profile of the unit or
        option asked about (or, asked when one evolves, its progression); the realizer says first
        what the data does not show."""
        limit = data_limit(self.pack, text, theirs)
        if (
            limit is not None
            and limit.kind in ("live", "position")
            and self.now_pair is not None
            and (ASKS_MOVE.search(text) or limit.kind == "position")
        ):
            # "Our dps is afk, what do we do", "where should I stand": the match's next step, after
            # saying it cannot see that.
            intent, sub_intent = self.now_pair
            return pred.model_copy(update={"intent": intent, "sub_intent": sub_intent, "rule": "data_limit"})
        if limit is None or limit.about is None:
            return None
        if limit.kind == "threshold":
            pair = self.progression_pair
        elif limit.about.kind == self.pack.catalog.schema.kind("option"):
            pair = self.option_info_pair
        else:
            pair = self.info_pair
        if pair is None:
            return None
        intent, sub_intent = pair  # a decision, the classifier's guess or not: it is prefilled
        return pred.model_copy(update={"intent": intent, "sub_intent": sub_intent, "rule": "data_limit"})

    def state_rule(
        self,
        text: str,
        pred: Prediction,
        theirs: frozenset[str],
        mentions: list[Mention] | None = None,
        benched: frozenset[str] = frozenset(),
        fielded: frozenset[str] = frozenset(),
    ) -> Prediction | None:
        """ "So who actually hits Shellbastion?", "voltail": an ownership pair (the classifier's guess
        for a bare name) about a unit only the opponent fields, and no word of the player's owning:
        the counter pair for it, not "you don't own Shellbastion". `benched`: the player's own units
        not fielded now; asking to field one is a swap. `fielded`: the player's units on the team now;
        asking to take one off is a swap too."""
        pair = (pred.intent, pred.sub_intent)
        unit = self.pack.catalog.schema.kind("unit")
        found = mentions if mentions is not None else link_entities(self.pack, text)
        named = [m.id for m in found if m.kind == unit]
        one = named[0] if len(set(named)) == 1 else None
        abstracted = abstract_entities(self.pack, text, found)
        fares = self.versus_pair or self.on_context_pair
        said_units = [m for m in found if m.kind == unit]
        if (
            self.versus_pair is not None
            and pair != self.versus_pair
            and pred.rule is None  # ("oakhorn on the turtle, got it": taken in, a rule's decision)
            and len(said_units) >= 2
            and said_units[0].id not in theirs
            and said_units[1].id in theirs
            and said_units[1].id not in {*fielded, *benched}
            and re.fullmatch(
                r"\s+(?:for|on|into|against|vs)\s+(?:the\s+|their\s+)?",
                text[said_units[0].span[1] : said_units[1].span[0]],
            )
        ):
            # "Granitusk for Voltail, not Briarcat": one of the player's own set on one of theirs.
            return pred.model_copy(update={"intent": self.versus_pair[0], "sub_intent": self.versus_pair[1],
                                           "rule": "one_for_theirs"})  # fmt: skip
        capped = "max_level" in self.pack.limits.model_fields_set
        # One of the player's own units named, the state's side of it, and a cue: (the pair, the
        # player's units it applies to, the cue, the rule's name).
        own_rules = (
            # "Can I put him in right now", "why isn't Hexmoth on my team": one not fielded, to be
            # fielded, is a swap (who it replaces), not a fact.
            (self.swap_pair, benched, self._field_it.search(abstracted), "field_it"),
            # "Is Hexmoth maxed out", "can Sparkwing evolve any further": where it stands on its
            # progression (a pack without a level cap: its tiers and unlocks are the ceiling).
            (
                None if capped else self.progression_pair,
                benched | fielded,
                self._maxed.search(normalise(text)),
                "maxed",
            ),
            # "Should I play Elowen" of one already fielded: how she fares against their side (or on
            # the map) here, not whether to invest in her (nor a swap).
            (None if pair == self.swap_pair else fares, fielded, self._play_it.search(abstracted), "play_it"),
            (fares, benched | fielded, self._play_now.search(abstracted), "play_now"),
            # "Why is Emberfox bad here", "why does the game say Renzo's bad here": how it fares now.
            (fares, benched | fielded, WHY_BAD_HERE.search(normalise(text)), "why_bad_here"),
            # "My Renzo does zero damage, why even": how it fares here, the reason it does nothing.
            (fares, benched | fielded, _UNDERPERFORMS.search(normalise(text)), "underperforms"),
            # "Should I pull Emberfox": off the team, and who comes in (not "keep investing in it");
            # of one not on it, the swap's answer says so.
            (self.swap_pair, benched | fielded, self._take_off.search(abstracted), "take_off"),
            # "He's only level 7 though, does that matter": whether its level holds it back.
            (self.level_pair, benched | fielded, LEVEL_CONCERN.search(normalise(text)), "level_concern"),
        )
        for target, units, cue, rule in own_rules:
            if target is not None and pair != target and one in units and cue:
                intent, sub_intent = target
                return pred.model_copy(update={"intent": intent, "sub_intent": sub_intent, "rule": rule})
        down = [u for u in told_down(self.pack, text) if u in theirs]
        if self.threat_pair is not None and pair != self.threat_pair and down and NEXT_TARGET.search(text):
            # "Briarcat is already down, who next": the one of theirs to go after among the rest
            intent, sub_intent = self.threat_pair
            return pred.model_copy(update={"intent": intent, "sub_intent": sub_intent, "rule": "down_next"})
        units_said = [m for m in found if m.kind == unit]
        if (
            self.versus_pair is not None
            and pair not in (self.versus_pair, self.counter_pair, self.swap_pair)
            and len(units_said) == 2
            and units_said[0].id not in theirs
            and units_said[1].id in theirs
            and _HITS_IT.match(text[units_said[0].span[1] : units_said[1].span[0]])
        ):
            # "So Sparkwing smacks their turtle?": how the one does against the other.
            intent, sub_intent = self.versus_pair
            return pred.model_copy(update={"intent": intent, "sub_intent": sub_intent, "rule": "hits_it"})
        if (
            self.counter_pair is not None
            and pair != self.counter_pair
            and pred.rule is None
            and named
            and named[0] in theirs
            and (len(set(named)) == 1 or _GROAN.search(normalise(text)))
            and (_MEAN_SAID.search(normalise(text)) or _GROAN.search(normalise(text)))
            and not shapes(normalise(text))
        ):
            # "The blue shell guy is mean": trouble told of one of theirs, what beats it (not its profile)
            intent, sub_intent = self.counter_pair
            return pred.model_copy(update={"intent": intent, "sub_intent": sub_intent, "rule": "theirs_mean"})
        if (
            self.versus_pair is not None
            and pred.rule == "weighs_two"
            and len(set(named)) == 2
            and named[0] not in theirs
            and named[-1] in theirs
        ):
            # "Is my Oakhorn stronger than their Voltail": the one against the other, not two weighed
            intent, sub_intent = self.versus_pair
            return pred.model_copy(
                update={"intent": intent, "sub_intent": sub_intent, "rule": "mine_than_theirs"}
            )
        fares_against = self.versus_pair or self.counter_pair
        if (
            fares_against is not None
            and pair not in (fares_against, self.counter_pair, self.swap_pair)
            and len({m.id for m in units_said}) == 2
            and units_said[0].id in theirs
            and units_said[1].id not in theirs
            and _VERDICT_AFTER.match(text[units_said[1].span[1] :])
        ):
            # "Nadira, Null Grenade. Elowen useless?": one of theirs told, then a verdict asked of
            # the player's: how that one fares against it.
            intent, sub_intent = fares_against
            return pred.model_copy(
                update={"intent": intent, "sub_intent": sub_intent, "rule": "told_then_mine"}
            )
        options = [m for m in found if m.kind == self.pack.catalog.schema.kind("option")]
        if (
            self.option_hits_pair is not None
            and pair != self.option_hits_pair
            and len({m.id for m in options}) == 1
            and named
            and all(u in theirs for u in named)
            and OPTION_HITS.search(normalise(text))
            and not WHEN_TO_USE.search(normalise(text))  # "use it right when he does his big hit"
        ):
            # "Would Inferno Roar hit Shellbastion for normal or half?": the option's damage on it.
            intent, sub_intent = self.option_hits_pair
            return pred.model_copy(update={"intent": intent, "sub_intent": sub_intent, "rule": "option_hits"})
        units_said = [m for m in found if m.kind == unit]
        if (
            self.swap_pair is not None
            and pair != self.swap_pair
            and len(units_said) == 2
            and units_said[0].id in benched
            and units_said[1].id in fielded
            and re.fullmatch(
                r"\s+(?:in\s+)?for\s+(?:my\s+)?", text[units_said[0].span[1] : units_said[1].span[0]]
            )
        ):
            # "Hexmoth for Oakhorn": one of the player's own on the bench for one on the team, a swap
            # (not how one fares against the other).
            return pred.model_copy(update={"intent": self.swap_pair[0], "sub_intent": self.swap_pair[1],
                                           "rule": "one_for_another"})  # fmt: skip
        if (
            self.target_pair is not None
            and len({m.id for m in options}) == 1
            and named
            and all(u in theirs for u in named)
            and options[0].span[0] < min(m.span[0] for m in found if m.kind == unit)
            and USE_ON_THEIRS.search(normalise(text))
        ):
            # "Bull Rush their sniper, is that a thing?", "Dread Whisper on Voltail, good idea?":
            # whether that one of theirs is the option's target.
            intent, sub_intent = self.target_pair
            return pred.model_copy(
                update={"intent": intent, "sub_intent": sub_intent, "rule": "use_on_theirs"}
            )
        if (
            self.threat_pair is not None
            and pair != self.threat_pair
            and len(set(named)) == 1
            and named[0] in theirs
            and FOCUS_OR_IGNORE.search(normalise(text))
        ):
            # "Do I focus the turtle or just ignore it": whether that one of theirs is the threat.
            intent, sub_intent = self.threat_pair
            return pred.model_copy(
                update={"intent": intent, "sub_intent": sub_intent, "rule": "focus_or_ignore"}
            )
        if (
            self.threat_pair is not None
            and pair != self.threat_pair
            and len(set(named)) >= 2
            and all(u in theirs for u in named)
            and (FIRST_OF_THEIRS.search(normalise(text)) or WORRY.search(normalise(text)))
        ):
            # "Voltail or Briarcat first?", "should I focus Voltail or Briarcat": which of theirs to
            # go after, of the ones named; "which of Quillon, Tamsin and Nadira should I worry about":
            # which of them is the threat.
            intent, sub_intent = self.threat_pair
            return pred.model_copy(
                update={"intent": intent, "sub_intent": sub_intent, "rule": "which_target"}
            )
        if (
            self.versus_pair is not None
            and pair == self.counter_pair
            and pred.rule != "choice"  # "Galehawk or Granitusk against Voltail": a pick between them
            and not re.search(
                r"\bby\b", text, re.IGNORECASE
            )  # "my fox gets destroyed by the turtle": theirs hits
            and len(set(named)) >= 2
            and named[0] not in theirs
            and any(u in theirs for u in named[1:])
            and self._versus.search(abstract_entities(self.pack, text, found))
        ):
            # "Should I bring Galehawk against Briarcat?": how the player's unit does against theirs,
            # not what beats the player's unit.
            intent, sub_intent = self.versus_pair
            return pred.model_copy(update={"intent": intent, "sub_intent": sub_intent, "rule": "mine_versus"})
        if (
            self.counter_pair is not None
            and pair != self.counter_pair
            and named
            and named[-1] not in fielded  # (theirs, or a unit both sides have: the object is the foe)
            and _ONE_THAT_BEATS.search(normalise(text))
        ):
            # "Is there a hero that just breaks the shield (Brannoc)": who counters that one of theirs.
            intent, sub_intent = self.counter_pair
            return pred.model_copy(
                update={"intent": intent, "sub_intent": sub_intent, "rule": "one_that_beats"}
            )
        if self.counter_pair is None or pair not in self.ownership_pairs or not theirs:
            return None
        fought = any(
            m.kind == unit and m.id in theirs and _FOUGHT_BEFORE.search(text[: m.span[0]]) for m in found
        )  # "can I kill Nadira from far or do I have to get on top of her": a fight, not getting one
        if (
            not named
            or named[0] not in theirs
            or (OWNING.search(normalise(text)) and not fought)
            or pred.rule == "level_for"
        ):
            return None  # "what level do I need for Bexley": the player asks to get one, theirs or not
        # "Could Briarcat one-shot my fox?": one of theirs against one of the player's is the matchup.
        versus = self.versus_pair if any(u not in theirs for u in named) else None
        intent, sub_intent = versus or self.counter_pair
        return pred.model_copy(
            update={"intent": intent, "sub_intent": sub_intent, "rule": "theirs_not_owned"}
        )


# "Their turtle is so mean", "Quillon is op": one of theirs complained about (English cue words).
_MEAN_SAID = re.compile(
    r"\b(?:is|s|are|re)\s+(?:so\s+|too\s+|really\s+|kinda\s+|just\s+|super\s+|way\s+too\s+)*(?:mean|annoying|op|"
    r"overpowered|broken|busted|cheap|nasty|brutal|scary|unfair|too\s+strong|so\s+strong|impossible)\b"
)
# "Bexley just put a wall right in front of Dumaka ugh": what one of theirs did, groaned at.
_GROAN = re.compile(r"\b(?:ugh+|argh+|ffs|come\s+on+|so\s+annoying|every\s+time|again)\W*$")
# "who next", "who now", "what now": the next target, after one is told down (English cue words).
NEXT_TARGET = re.compile(
    r"\b(?:who|whos|who's|which(?:\s+one)?|what)\s+(?:(?:is|do|should|can)\s+(?:i\s+|we\s+)?(?:\w+\s+){0,2}?)?"
    r"(?:next|now|then)\b|\bnext\s+target\b"
    r"|\bwhat\s+(?:should|do|can)\s+(?:i|we|\w+)\s+do\b",  # "Briarcat's down, what should Emberfox do"
    re.IGNORECASE,
)
# "... Elowen useless?", "is my fox still any good now" (English verdict words after the unit).
_VERDICT_AFTER = re.compile(
    r"\s*(?:(?:is|still|now|just|even|kinda|completely|totally)\s+)*(?:any\s+good|useless|dead|screwed|done|"
    r"finished|cooked|countered|trash|worthless|pointless|fine|ok|okay|good|bad|viable|worth\s+it)\b"
    r"(?:\s+(?:now|then|here|anymore|still))*\W*$",
    re.IGNORECASE,
)


# --- session rules: what the transcript alone does not say ----------------------------------------

# "Anything else?" names no pair: it asks the previous turn's recommendation again, and W3 then
# gives another direction. English cue words; which pairs recommend is the pack's Φ (branch).
ASK_AGAIN = re.compile(
    r"\b(?:(?:something|anything|anyone|anybody|someone|somebody|what|who|where) else|"
    r"(?:something|anything) different|another|"
    r"any other|plan b|alternatives?|"
    r"(?:second|other|different|next|backup|alternative) (?:option|idea|pick|choice|one|way|team|"
    r"lineup|plan|answer)s?|more (?:options|ideas|picks)|after that|then who|who'?s next|who next)\b"
)
# "And no Pyrowl either", "only fire, but keep Galehawk in": a constraint added to the previous
# request, not a new one.
_FILLERS = (
    r"(?:(?:uh|um|okay|ok|so|hey|yo|wait|listen|alright|hmm|coach|like|basically|actually|oh|well)\s+)*"
)
REFINE = re.compile(
    rf"^{_FILLERS}(?:but|and|also|plus|only)\b|\b(?:either|as well|instead)\b"
    # "drop X too, what now"; not "too low level" (a degree)
    r"|\btoo\b(?!\s+(?:low|high|weak|strong|slow|fast|squishy|much|many|early|late|far|hard|easy|big|small|"
    r"few|little|long|short|good|bad|tanky|fragile|risky|expensive|old|new)\b)"
    r"|\b(?:put|bring|add)\b.*\bback\b|\bback in\b"  # "actually put Oakhorn back in"
)
# "And what beats Voltail": after "and", a question with its own subject, not a constraint added.
_NEW_QUESTION = re.compile(
    rf"^{_FILLERS}(?:but|and|also|plus)\W+(?:what|what's|whats|who|who's|whos|which|how|when|where|"
    r"is|are|can|could|does|do|should|would|will)\b"
)
# "Why?", "why that one", "how come": the reason for the previous answer, so its pair again (the
# realizer then gives the reason, not another pick). Short on purpose: "why do I keep losing" is a
# question of its own.
ASKS_WHY = re.compile(
    rf"^{_FILLERS}(?:but\s+|and\s+)?(?:why|whys|how come|explain why|are you sure|you sure|"
    # doubt of the last answer ("that can't be right", "no way", "I don't buy it"): its reason again
    r"(?:nah\s+|no\s+|hmm+\s+|eh\s+)?(?:that|this|it)\s+(?:can'?t|cant|cannot)\s+be\s+right|no\s+way|"
    r"(?:that'?s|thats|that\s+is)\s+(?:not\s+right|wrong)|(?:that|it)\s+(?:doesn'?t|doesnt)\s+sound\s+right|"
    r"i\s+(?:don'?t|dont)\s+(?:buy|believe)\s+(?:it|that)|i\s+doubt\s+(?:it|that)|"
    r"(?:any|what'?s\s+the|is\s+there\s+a)\s+(?:note|reason|explanation)\s+(?:on\s+|for\s+)?why|"
    r"what makes (?:it|that|them|him|her) "
    r"(?:so )?(?:good|better|the pick))(?:\s+[\w']+){0,3}\W*$",
    re.IGNORECASE,
)
# "Hey coach, what am I up against?": a greeting before a question is not the request (three words or
# more after it; "hey coach" alone is a greeting).
# "And how do I dodge Voltail?": a conjunction that opens a question says nothing of what it asks.
LEADING_AND = re.compile(
    r"^(?:(?:and|so|ok|okay|also|alright)\W+)+(?=(?:how|what|whats|what's|who|whos|who's|which|"
    r"when|where|why|is|are|can|could|does|do|should|would|will)\b)"
)
GREETING = re.compile(
    r"^(?:(?:hey|hi|hello|yo|hiya|sup|morning|evening)\s+)+(?:(?:coach|there|buddy|man|mate|dude)\s+)?(?=(?:\S+\s+){2}\S)"
)
# "Do I have anyone for Nadira?", "have we got something that beats Voltail", "does their team have
# anything that hurts my Emberfox" (what of theirs beats it) (English cue words).
HAS_ANYONE = re.compile(
    r"\b(?:(?:do|have|did)\s+(?:i|we)|(?:does|do|have|has)\s+(?:they|their\s+team|the\s+enemy))\s+"
    r"(?:have|own|got)\s+(?:got\s+)?(?:anyone|anybody|anything|someone|somebody|"
    r"something)\s+(?:for|against|into|to|that|who|which)\b"
)
# "Take Renzo out and put Paxton in", "pull X out for Y", "bench X, bring in Y" (English cue words).
OUT_AND_IN = re.compile(
    r"\b(?:take|pull|swap|switch|sub|bench|sit|drop)\s+(?:\w+\s+){0,2}out\b.*\b(?:put|bring|swap|sub|get)\s+"
    r"(?:\w+\s+){0,2}in\b|\b(?:take|pull)\s+(?:\w+\s+){0,2}out\s+for\b"
    # "Renzo out, Tamsin in" (said short, of abstracted names)
    r"|\bx[a-z]+x\s+out\W+(?:and\s+|then\s+)?x[a-z]+x\s+in\b"
)
# "Bench X for Y", "benching X and using Y", "drop X, play Y" (English cue words, a unit after each).
BENCH = r"(?:bench|benching|drop|dropping|ditch|ditching|swap|swapping|sub|subbing|take|taking|pull|pulling)"
BENCH_FOR = (
    r"(?:out\s+)?(?:for|and\s+(?:\w+\s+)?(?:use|using|play|playing|bring|bringing|run|running|put|putting)"
    r"(?:\s+in)?|(?:and\s+)?(?:bring|bringing|put|putting)\s+in)"
)
# "Put X in for Y", "sub X in over Y" (English cue words).
PUT_IN = r"(?:put|putting|bring|bringing|sub|subbing|swap|swapping|slot|slotting|throw|throwing)"
# "Who takes his spot", "who would X replace", "if X sits out", "what can fill in for X", "X comes
# out" (English cue words): one unit in place of another on the player's team.
REPLACES = re.compile(
    r"\b(?:replace|replaces|replacing|(?:take|takes|taking|fill|fills|put\s+in|play\s+in)\s+"
    r"(?:\w+\s+s\s+|his\s+|her\s+|that\s+|this\s+)?(?:spot|place|slot)|fill\s+in\s+for|in\s+place\s+of|sits?\s+out|sitting\s+out|"
    r"(?:who|which)\s+(?:\w+\s+){0,2}(?:comes?|goes?)\s+out|(?:take|play|bring|run|use|go|pick|put\s+in)\s+instead\s+of)\b"
)
# "Who do I put in instead?", "which hero instead then": the unit just talked about, replaced.
INSTEAD = re.compile(r"\b(?:who|which\s+\w+)\s+(?:\w+\s+){0,4}?instead\b(?!\s+of\b)")
# "The one thing that matters most this round", "what's the key this round" (English cue words).
# A change of what a unit carries, not of the unit (English cue words): "swap anything on Brannoc".
_GEAR_CHANGE = re.compile(
    r"\b(?:swap|change|switch|tweak|replace)\s+(?:anything|something|stuff|any\s+(?:items?|gear|perks?|moves?)|"
    r"(?:the\s+|his\s+|her\s+|its\s+)?(?:items?|gear|loadout|perks?|setup|build))\s+(?:on|in|for)\b"
)
# Growing the roster over time, not this match (English cue words): "how do I get my team stronger
# long term", "what should I work on for next season".
LONG_TERM = re.compile(
    r"\b(?:long[\s-]?term|over\s+time|in\s+the\s+long\s+run|going\s+forward|for\s+the\s+future|"
    r"for\s+next\s+(?:season|week)|between\s+matches)\b"
    r"(?!.*\b(?:this\s+round|this\s+match|right\s+now)\b)"
)
MATTERS_MOST = re.compile(
    r"\b(?:one|main|biggest|most\s+important|key)\s+thing\b|\bwhat\s+matters\s+(?:most|here|now)\b"
    r"|\bwhats\s+the\s+key\s+(?:to|this|here|now)\b"
)
# "How's your day going, coach", "how are you", "you good" (English small talk).
SMALL_TALK = re.compile(
    r"^\W*(?:(?:hey|yo|hi|ok|so)\s+)*(?:coach\s+)?(?:hows|how\s+is|how\s+s)\s+(?:your|ur)\s+(?:day|night|morning|evening)"
    r"(?:\s+going)?\b|^\W*(?:(?:hey|yo|hi)\s+)*(?:coach\s+)?how\s+are\s+(?:you|u|ya)(?:\s+(?:doing|today|coach))*\s*$"
)
# "I'm up one nothing right?", "we're down 0-1, yeah?" (English cue words, normalised): a score said
# back to be confirmed.
SCORE_CHECKED = re.compile(
    r"\b(?:up|down|ahead|behind|leading|trailing)\s+(?:by\s+)?(?:one|two|1|2|zero|0|nothing)"
    r"(?:\s*(?:-|to)?\s*(?:nothing|zero|nil|0|one|1|two|2))?\b"
    r".*(?:\b(?:right|correct|yeah|yes|yea|innit|isnt\s+it|arent\s+we|am\s+i|making\s+sure|confirm)\b|\?)"
)
# "Score my comp against theirs", "rate that team", "how does my current one score" (English cue
# words, normalised): the player's team judged.
SCORE_MINE = re.compile(
    r"^(?:\W*(?:ok|okay|so|and|now|hey|coach|can\s+you|could\s+you|just)\W+)*(?:score|rate|grade|judge|evaluate)\s+"
    r"(?:my|our|that|this|the|it|them)\b(?!\s+(?:map|round|match|game)\b)"
    r"|\bhow\s+(?:does|would|do)\s+(?:that|it|this|my\s+\w+|our\s+\w+)\s+(?:score|rate)\b"
)
# "Any premade teams I could build", "preset teams I can run" (English cue words, normalised): the
# game's known teams the player could field.
KNOWN_TEAMS = re.compile(
    r"\b(?:pre-?made|preset|pre-?built|ready-?made|known|standard|official)\s+(?:teams?|comps?|builds?)\b"
    r".*\b(?:build|make|run|field|play|use|complete)\b"
)
# "Yo coach, quick one", "got a sec?", "I have a question for you" (English cue words, the whole
# normalised turn): the player announcing a question, asking none yet.
PREAMBLE = re.compile(
    r"^(?:(?:hey|hi|hello|yo|ok|okay|so|um|uh|right|alright|coach|listen|hmm)\s+)*"
    r"(?:(?:(?:a|one|another)\s+)?(?:quick|small|little)\s+(?:one|question|q|thing)|"
    r"(?:i(?:ve|\s+have)?\s+)?(?:got|have)\s+a\s+(?:(?:quick|small)\s+)?(?:question|q)|"
    r"(?:can|could|may)\s+i\s+ask\s+(?:you\s+)?(?:something|a\s+(?:quick\s+)?(?:question|thing))|"
    r"(?:you\s+)?got\s+a\s+(?:sec|second|min|minute|moment)|(?:a\s+)?question\s+for\s+(?:you|ya)|"
    r"(?:one|1)\s+(?:more\s+)?(?:thing|question)|real\s+quick|(?:are\s+)?(?:you|u)\s+there|"
    r"i\s+need\s+(?:your\s+help|some\s+(?:help|advice))|help\s+me\s+out(?:\s+here)?)"
    r"(?:\s+(?:coach|real\s+quick|quick|for\s+(?:you|ya)|here|then|ok|okay))*\s*$"
)
# "What's the deal", "where are we at", "catch me up", "what's the situation" (English cue words).
SITUATION = re.compile(
    r"\bwhats?\s+(?:the\s+|our\s+|my\s+)?(?:deal|situation|state\s+of\s+play|story|score\s+situation)\s*(?:here|now|rn|like)?\s*$"
    r"|\bwhere\s+are\s+we\s+at\b|\bcatch\s+me\s+up\b|\bwhats\s+going\s+on\s*(?:here|now|rn)?\s*$"
    r"|\bhow\s+are\s+we\s+doing\b|\bhow\s+am\s+i\s+doing\b|\bhow\s+(?:are\s+we|am\s+i)\s+looking\b"
    r"|\b(?:am\s+i|are\s+we)\s+doing\s+(?:ok|okay|alright|all\s+right|fine|well|good)\b"
    r"|\bhows\s+(?:the|this)\s+(?:match|game)\s+going\b"
)
# "What's everyone running", "remind me what the team has equipped", "anything unlocked nobody
# uses": the player's whole side's options, no one unit of it (English cue words).
TEAM_WIDE = re.compile(
    r"\b(?:every(?:one|body)s?|all\s+of\s+(?:us|them|my\s+\w+)|(?:the|my|our)\s+(?:whole\s+)?team|"
    r"nobodys?|no\s+one|any(?:one|body)s?)\b"
)
_USING = (
    r"\b(?:running|using|use|uses|equipped|equip|loadouts?|kits?|items?|gear|carrying|unlocked|slotted)\b"
)
UNUSED_UNLOCKS = re.compile(
    r"\bunlock\w*\b.*\b(?:not|nobodys?|no\s+one|never|arent|isnt|dont|doesnt|havent)\b"
    r"|\b(?:not|nobodys?|no\s+one|never|arent|isnt|dont|doesnt|havent)\b.*\bunlock\w*|\bunused\b"
    r"|\busing\s+all\s+(?:of\s+)?(?:its|their|our|the|his|her)\s+(?:gear|items|unlocks|stuff)\b"
)
TEAM_LOADOUT = re.compile(
    rf"{TEAM_WIDE.pattern}.*{_USING}|{_USING}.*{TEAM_WIDE.pattern}"
    rf"|(?=.*\b(?:we|us|my\s+guys)\b){UNUSED_UNLOCKS.pattern}"
)
# "Who should my fox go after", "which of theirs should Galehawk attack" (English cue words).
_TARGET = re.compile(
    r"\b(?:who|whom|which(?:\s+one)?(?:\s+of\s+(?:theirs|them))?)\s+(?:\w+\s+){0,6}?"
    r"(?:go\s+after|going\s+after|attack|attacking|target|targeting|focus|focusing|pick\s+on|go\s+for|"
    r"(?:hit|hitting)\s+first|take\s+on)\b"
    r"|\b(?:who|whom|which(?:\s+one)?)\s+(?:\w+\s+){1,6}?(?:hit|hitting)\W*$"  # "who should my bird hit"
)
# "I'm using the fox on their turtle", "should I keep my fox away from it" (English cue words): one
# unit set on another, the matchup between them.
_SET_ON = re.compile(
    r"\b(?:using|use|put|putting|send|sending|throw|throwing|keep|keeping|point|pointing|have)\s+(?:my\s+)?(?P<a>x\w+x)"
    r"\s+(?:on|at|onto|into|against|away\s+from|clear\s+of|off)\s+(?:their\s+|the\s+)?(?P<b>x\w+x)\b"
)
# "Sparkwing smacks the turtle?", "can my fox beat their cat": an attack between two units named.
_HITS_IT = re.compile(
    r"^\s+(?:\w+\s+)?(?:smack|smacks|hit|hits|beat|beats|wreck|wrecks|destroy|destroys|counter|counters|kill|kills|"
    r"handle|handles|outdamage|outdamages|melt|melts|bully|bullies)\s+(?:the\s+|their\s+)?$",
    re.IGNORECASE,
)
# "Bull Rush their healer or save it", "Dread Whisper on Voltail, good idea" (English cue words).
USE_ON_THEIRS = re.compile(
    r"\b(?:good|bad)\s+(?:idea|call|move)\b|\bis\s+(?:that|it)\s+a\s+thing\b|\bsave\s+it\b|\bworth\s+it\b"
    r"|\bgood\s+or\s+bad\b|\bshould\s+i\b|\bor\s+(?:on\s+)?(?:the|their)\b|^\w+(?:\s+\w+)?\s+(?:on\s+)?\w+\s+or\s+\w+$"
)
# "Hit it for normal or half", "does it do much to", "super effective" (English cue words, `normalise`d).
OPTION_HITS = re.compile(
    r"\b(?:hit|hits|hurt|hurts|damage|dmg|normal|half|double|(?:super\s+)?effective|resist\w*|do\s+much|"
    r"do\s+anything|work\s+on|works\s+on|strong\s+against|weak\s+against)\b"
)
# "Does the map help us or them", "is this map better for them" (English cue words, `normalise`d).
MAP_FOR_SIDES = re.compile(
    r"\b(?:map|place|arena|stage)\b.*\b(?:help|helps|favou?rs?|suit|suits|good\s+for|better\s+for|bad\s+for)\s+"
    r"(?:us|them|our\s+(?:team|side|five)|their\s+(?:team|side|five))\b"
)
# "Why does the map matter so much", "how does this map change things", "you're overrating the map":
# what the place in play does to the player's team (English cue words, `normalise`d).
MAP_MATTERS = re.compile(
    r"\b(?:this|the|that)\s+(?:map|place|arena|stage)\b.*\b(?:matters?|change|changes|affects?|"
    r"(?:make|makes)\s+(?:a|any|much\s+of\s+a)\s+difference|big\s+deal|overrat\w*)\b"
    # "this map is the worst": what it does to the player's five (heard first: the vent lead)
    r"|\b(?:this|the)\s+(?:map|place|arena|stage)\s+is\s+(?:so\s+|literally\s+|actually\s+)?"
    r"(?:the\s+worst|trash|awful|terrible)\b"
    r"|\b(?:overrat\w*|matters?)\s+(?:\w+\s+){0,2}?(?:this|the|that)\s+(?:map|place|arena|stage)\b"
)
# "Focus it or ignore it", "should I just leave the turtle alone" (English cue words, `normalise`d).
FOCUS_OR_IGNORE = re.compile(
    r"\b(?:focus|kill|attack|target)\b.*\bor\s+(?:just\s+)?(?:ignore|leave)\b"
    r"|\b(?:ignore|leave)\s+(?:it|him|her|them|the\s+\w+)(?:\s+alone)?\s+or\s+(?:focus|kill|attack|target)\b"
)
# "Voltail or Briarcat first", "focus the healer or the tank" (English cue words, `normalise`d).
FIRST_OF_THEIRS = re.compile(r"\b(?:first|focus|target|kill|go\s+after|attack|dive|burst|take\s+out)\b")
# "Who should I use Overcharge on", "who do I overcharge", "who should Elowen keep her beam on": an
# option's target asked for (English cue words, on `normalise`d text).
# "Which of mine does the most damage to X", "who on my team hits X hardest" (English cue words).
_MINE_HARDEST = re.compile(
    r"\b(?:which\s+(?:one\s+)?of\s+(?:mine|my\s+\w+|ours|our\s+\w+)|who\s+(?:on|in)\s+my\s+\w+)\s+"
    r"(?:does|deals|hits|would\s+(?:do|deal|hit))\s+(?:the\s+)?(?:most|hardest|best)\b"
)
# "Keep Renzo, who do I swap", "who comes out": which one of the player's to take out (English cues).
_WHO_OUT = re.compile(
    r"\b(?:who|which(?:\s+one)?)\s+(?:do|should|can|would)\s+(?:i|we)\s+(?:swap|drop|bench|take\s+out|cut|sub)"
    r"(?:\s+out)?\s*$|\bwho\s+(?:comes|goes)\s+out\s*$"
)
_KEPT_BEFORE = re.compile(r"\b(?:keep|keeping|not)\s+(?:my\s+)?$", re.IGNORECASE)
_DROPPED_BEFORE = re.compile(
    r"\b(?:drop|dropping|without|no|except|minus|bench|benching|(?:leave|leaving)\s+out|but\s+not)\s+(?:my\s+)?$",
    re.IGNORECASE,
)
ON_WHOM = re.compile(
    r"\b(?:who|whom|which\s+one)\b.*\b(?:on|at)$"
    r"|^(?:(?:so|ok|okay|and)\s+)*(?:who|whom)\s+(?:should|do|can|would)\s+(?:i|we)\s+\w+(?:\s+first)?$"
    r"|\b(?:on|at)\s+(?:whom|who|which\s+one)$"  # "then the whisper, but on whom"
    r"|^\S+(?:\s+\S+){0,4}\s+(?:who|whom)$"  # "spark wing overcharge who": terse, the move then "who"
)
# "When should I use Rally Cry", "when do I pop it": the moment to use an option (English cue words).
WHEN_TO_USE = re.compile(
    r"\bwhen(?:s|\s+is)?\s+(?:should|do|would|to|the\s+best\s+time\s+to)\s+(?:i\s+|we\s+)?(?:use|pop|throw|fire|activate|"
    r"cast|drop|press|hit|save)\b|\bbest\s+time\s+to\s+(?:use|pop|throw|fire|activate|cast|drop)\b"
    # "so I use it right when he's about to do his big hit", "save Bark Skin for their big attack"
    r"|\b(?:use|pop|save|cast|activate|throw)\s+(?:\w+\s+){0,3}?(?:right\s+|just\s+)?(?:when|before|for|as\s+soon\s+as)\s+"
    r"(?:\w+\s+){0,6}?(?:big|strongest|best|ult\w*)\s+(?:hit|attack|move|combo|one)\b"
)
# "Who do we focus first", "which of their guys can I dive": the side's target (English cue words).
OUR_TARGET = re.compile(
    r"\b(?:who|whom|which(?:\s+one)?(?:\s+of\s+(?:theirs|them|their\s+\w+))?)\s+(?:do|does|should|can|shall|must)\s+"
    r"(?:i|we|he|she)\s+(?:\w+\s+){0,2}?(?:go\s+after|attack|target|focus|kill|hit|take\s+out|dive|pick\s+off|"
    r"burst|go\s+for|shoot)\b"
    r"|\b(?:focus|kill|target)\s+(?:order|priority|first)\b"  # "k focus order", "kill order?"
    # "who would she curse first": whom a unit goes at first, whatever its verb
    r"|\b(?:who|whom|which(?:\s+one)?)\s+(?:would|will|could|should|do|does)\s+(?!(?:you|i|we)\b)[a-z]+\s+\w+\s+first\b"
)
# "Should I dive their Nadira", "can we go after Quillon first", "do I focus their healer" (English
# cue words): whether to go after the one of theirs named, a target question (its name: `name`).
TARGET_NAMED = re.compile(
    r"\b(?:should|can|do|shall|must|could)\s+(?:i|we)\s+(?:just\s+|even\s+|try\s+(?:to\s+|and\s+)?|go\s+)?"
    r"(?:(?:go\s+after|dive|kill|take\s+out|pick\s+off|target|burst|hunt|jump|collapse\s+on|rush|gank)"
    r"\s+(?:their\s+|the\s+|that\s+)?|focus\s+(?:on\s+)?their\s+)(?P<name>\w+)"
    # ("can I kill her from far", "with Renzo": how, or with whom, a question of its own)
    r"(?!\s+(?:from|with|using|at\s+range|solo|alone|1v1|one\s+on\s+one|in\s+one)\b)"
)
# "Ugh, I hate this map", "this is so frustrating": the player venting (English cue words; no
# "man" or "lol": "man that round was close lol" is not a complaint).
_VENT_WORDS = (
    r"\b(?:i\s+hate|hating|frustrat\w*|so\s+annoy\w*|tilted|tilting|this\s+sucks|"
    r"so\s+bad|brutal|we\s+are\s+cooked|were\s+cooked|getting\s+(?:farmed|stomped|rolled|destroyed)|rigged|"
    r"so\s+unfair|is\s+unfair|cheating|cheaters?|(?:the\s+)?worst\s+(?:map|game|mode|team|matchup)|so\s+dumb|"
    r"so\s+stupid|so\s+broken|is\s+broken|garbage|unplayable|(?:this|the)\s+game\s+is\s+(?:so\s+|really\s+)?hard|"
    r"(?:kind\s+of|kinda|such)\s+a\s+bummer|what\s+a\s+bummer|"
    r"(?:this|the)\s+(?:map|game|mode)\s+is\s+(?:so\s+|literally\s+|actually\s+)?(?:the\s+worst|trash|awful|terrible))\b"
)
# "oh no", "nooo", "oh come on" said alone (a bare "no" answers a question: not this)
_EXCLAIMED = (
    r"^\W*(?:(?:oh|aw+|ah+)\W+(?:no+|man|come\s+on+|god|jeez|dang|damn|crap|shoot)|no{3,}|come\s+on+|dang+|"
    r"damn+|dammit|crap)(?:\W+(?:no+|man|come\s+on+|seriously|again|why|dude|bro))*\W*$"
)
VENTED = re.compile(rf"^\W*(?:ugh+|argh+|ffs)\b|\b(?:ugh+|argh+)\W*$|{_VENT_WORDS}|{_EXCLAIMED}")
# A remark on the moment, not a question (English cue words): good news for the player ("Oakhorn
# just took out their turtle", "we won that round", "lets gooo") or a near miss ("lol that was
# close"): a reaction, not advice nobody asked for.
_CHEER = re.compile(
    r"\b(?:let'?s\s*go+|lets\s*go+|go\s+team|yes{2,}|yay+|woo+h?o*|clutch|finally|happy\s+dance|"
    r"got\s+(?:a\s+|his\s+|her\s+|my\s+|our\s+|the\s+)?(?:first\s+)?(?:kill|ko|knockout|triple|double)|"
    r"(?:took|taken|knocked|knocks|knock|takes)\s+(?:out|down)|(?:we|i)\s+(?:won|took|got\s+(?:him|her|them|em|it|one|the\s+\w+|their\s+\w+|\w+\W*$))|"
    r"won\s+(?:that|the|this)|took\s+the\s+point|gg\s+(?:we|ez|easy|wp)|"
    r"(?:just\s+)?(?:flattened|destroyed|wrecked|smoked|deleted|killed|downed|one[\s-]?shot|beat|crushed))\b"
)
_NEAR_MISS = re.compile(
    r"\b(?:(?:that|this)\s+(?:was|is)\s+(?:so\s+|super\s+|really\s+|way\s+too\s+)?close|close\s+(?:one|call)|"
    r"phew|nail\s*-?\s*biter)\b"
)
# Anything asked of the coach or told it to do turns a remark into a request.
_REQUEST = re.compile(
    r"\b(?:should|shall|can|could|would|tell|give|help|tips?|advice|swap|switch|put|load|build|rate|check|"
    r"keep|change|run|play|bring|pick|need|want|idea|thoughts|next|now|if)\b"
    # a question put inside the sentence: "so if I win this one is that the whole match"
    r"|\b(?:is|are|was|were|do|does|did|will)\s+(?:that|it|we|i|he|she|they|this)\b"
)
_AGAINST_US = re.compile(r"\b(?:they|they've|theyve|theyre|they're|their|enemy|opponents?)\b")


# "Who has Coral Guard", "which of theirs runs it", "does anyone on their team have it": whose it is.
WHO_HAS = re.compile(
    r"\b(?:who|whos|which(?:\s+\w+){0,3}?)\s+(?:has|have|got|gets|learns?|uses?|runs?|carries|brings?|"
    r"can\s+(?:learn|use|run|get))\b|\b(?:any\s*(?:one|body)|any\s+of\s+(?:them|theirs))\s+(?:\w+\s+){0,3}?"
    r"(?:have|has|got|learn|use|run)\b",
    re.IGNORECASE,
)


# The coach praised, or its advice said to have worked ("W coach", "you're goated", "good call",
# "that worked"): thanks taken, not a new question (English cue words).
PRAISED = re.compile(
    r"^\W*(?:(?:w|big\s+w)\W+)*coach(?:\W+w)+\W*$|^\W*(?:big\s+)?w\W+coach\b|"
    r"\b(?:you'?re|youre|ur|coach\s+is|coachs)\s+(?:so\s+|actually\s+|literally\s+)?(?:the\s+)?"
    r"(?:goat(?:ed)?|best|legend|a\s+legend|amazing|cracked|smart|a\s+genius|genius|the\s+man|great|good\s+at\s+this)\b|"
    r"\b(?:good|great|nice|big\s+brain|huge)\s+(?:call|read|advice|tip)\b|"
    r"\b(?:that|it|this)\s+(?:actually\s+|totally\s+|really\s+)?worked\b|\byou\s+were\s+right\b"
)


def remark(text: str) -> str | None:
    """ "good" or "close" when the turn only remarks on the moment (no question, no request),
    "praise" when it praises the coach, "down" when the player is only venting; None otherwise
    (news that went against the player is trouble told: answered as such)."""
    said = normalise(text)
    if re.match(_EXCLAIMED, said):
        return "down"  # ("oh no" is no yes-or-no question)
    if "?" in text or shapes(said) or _REQUEST.search(said):
        return None
    if PRAISED.search(said):
        return "praise"
    cheer = _CHEER.search(said)
    if (
        cheer is not None
        and not _AGAINST_US.search(said[: cheer.start()])
        and not re.match(r"\s+(?:my|our|me|us)\b", said[cheer.end() :])  # "Briarcat flattened my fox"
        # "my fox keeps getting destroyed": done to the player's own
        and not re.search(
            r"\b(?:getting|got|gets|get|was|were|been|being|is|are)\s+(?:just\s+)?$", said[: cheer.start()]
        )
        and not VENTED.search(said)
    ):
        return "good"
    if _NEAR_MISS.search(said):
        return "close"
    # (venting about something of theirs or the player's, "ugh their sniper again", is trouble told)
    # (nor is venting about the map or the team: "I hate this map" wants what to do about it)
    named = re.search(r"\b(?:my|our|their|his|her)\b|\b(?:map|mode|team|comp|matchup|meta)\b", said)
    return "down" if VENTED.search(said) and not named else None


# Venting in words about the game, not only a sigh ("ugh my roommate is vacuuming" is off the game).
_VENTED_IN_WORDS = re.compile(_VENT_WORDS)
# Trouble with the player's machine or connection, not the match (English cue words).
TECH_TROUBLE = re.compile(
    r"\b(?:lag+|laggy|lagging|lagged|ping|wi-?fi|internet|connection|disconnect\w*|dc'?d|fps|frame\s*rate|"
    r"stutter\w*|controller|headset|mic|ethernet|router)\b"
)
# Said to the coach, not asked of the game: who it is, or that the player steps away.
WHO_ARE_YOU = re.compile(
    r"\b(?:are\s+you\s+(?:a\s+)?(?:bot|robot|real|human|an?\s+ai|ai|person)|who\s+are\s+you|what\s+are\s+you)\b"
)
STEPPING_AWAY = re.compile(r"^\W*(?:gtg|g2g|got\s+to\s+go|gg|ggs|gg\s+wp|good\s+game|good\s+games)\W*$")
# "brb", "one sec": back in a moment, not leaving (a word back, not a goodbye).
_ASKS_ANYTHING = (
    r"(?!.*\b(?:what|whats|who|whos|which|how|why|should|can|could|would|will(?!\s+(?:do|try|go)\b)|is|are|was|does|did|"
    r"do\s+(?:i|we|you)|have\s+(?:i|we|you))\b)"
)
_THANKS_LAST = re.compile(
    r"\b(?:thank\s+you|thanks|thx)(?:\s+(?:so\s+much|a\s+lot|coach|man|dude|again))*\W*$"
)
# Before a closing "thanks", words of a question or a request (English cue words).
_ASKED_BEFORE = re.compile(
    r"\b(?:explain|tell|show|give|best|which|what|whats|who|whos|how|why|yet|ready|own|please|rebuild|build|"
    r"swap|switch|change|pick|different|another|help|should|can|could|would|do\s+i)\b"
)


def _thanks_after_news(text: str) -> bool:
    """ "ok he did it and the turtle is almost gone, he's so happy, thank you": news, then thanks
    (not "best heroes for the Docks, thanks": a request, thanked in advance)."""
    said = normalise(text)
    last = _THANKS_LAST.search(said)
    if last is None or "?" in text:
        return False
    before = said[: last.start()]
    return not shapes(before) and not _ASKED_BEFORE.search(before)


BACK_SOON = re.compile(
    r"^\W*(?:brb|afk|be\s+right\s+back|one\s+sec(?:ond)?|hold\s+on)\W*$"
    # "brb gotta grab water": stepping away, whatever the errand's words
    rf"|^\W*(?:brb|afk|be\s+right\s+back)\b{_ASKS_ANYTHING}"
    # "ok my friend wins this time, gonna grab a snack brb", "my dog is barking, gotta deal with that
    # one sec": said last, after a remark, nothing asked
    rf"|^{_ASKS_ANYTHING}.*\b(?:brb|afk|be\s+right\s+back|(?:one|a|1)\s+sec(?:ond)?|gotta\s+(?:deal|grab)|"
    r"got\s+to\s+deal|grab(?:bing)?\s+(?:a|some)\s+(?:snack|drink|water|food|bite))\W*$"
)


def said_back(pack: Pack, text: str) -> bool:
    """Is `text` only advice taken or a decision said back ("ok cool", "fine, Wendell stays")?"""
    said = normalise(text)
    return bool(
        ACKNOWLEDGED.match(said) or _TAKEN_IN.search(said) or _KEPT.match(abstract_entities(pack, text))
    )


def nothing_asked(text: str) -> bool:
    """Is the turn an answer taken in, a plan said back or a step away ("ok cool", "got it", "gonna
    grab a snack, brb"), asking nothing the dialogue should resolve?"""
    said = normalise(text)
    return bool(ACKNOWLEDGED.match(said) or _TAKEN_IN.search(said) or BACK_SOON.search(said))


_LEFT_TO_UNLOCK = re.compile(
    r"\b(?:anything|what|much|stuff)\s+(?:else\s+|more\s+)?(?:left|still)\s+to\s+(?:unlock|get|learn)\b"
)
_BEATEN_BY = re.compile(
    r"\bx[a-z]+x\s+(?:\w+\s+){0,5}?(?:got|was|gets|get)\s+(?:\w+\s+)?(?:deleted|destroyed|killed|wrecked|one\s*shot|"
    r"smoked|melted|shredded|flattened|bodied|knocked\s+out)\s+(?:\w+\s+){0,2}?by\s+(?:their\s+|the\s+)?x[a-z]+x\b"
)
# "Who's scarier", "which is the bigger problem" (English cue words, normalised text).
SCARIER = re.compile(
    r"\b(?:who|whos|which(?:\s+one)?(?:s|\s+is)?)\s+(?:is\s+)?(?:the\s+)?(?:scarier|more\s+dangerous|"
    r"bigger\s+(?:threat|problem|deal)|(?:more|most)\s+of\s+a\s+(?:threat|problem)|worse\s+for\s+(?:me|us))\b"
    r"|\b(?:who|whos|which(?:\s+one)?(?:s|\s+is)?|whats)\s+(?:is\s+)?their\s+(?:strongest|best|toughest|top)\b"
    # "which of their pets hits my team the hardest", "who's giving us the most trouble"
    r"|\b(?:who|whos|which)\b.*\b(?:hits?\s+(?:my\s+team|us|me)\s+(?:the\s+)?(?:hardest|most)|"
    r"(?:giving|gives|causing|causes)\s+(?:us|me)\s+(?:the\s+)?most\s+(?:trouble|problems))\b"
)
# "What would you put in instead", "who goes in for it", "who do I drop for Hexmoth", "who comes off for
# Brannoc" (English cue words): the swap, the one coming in named or not.
_IN_ITS_PLACE = re.compile(
    r"\b(?:what|who)\s+(?:would|should|do|could|can)\s+(?:you|i|we)\s+(?:even\s+)?(?:put|bring|sub|swap)\s+in\s+"
    r"(?:instead|there|for\s+(?:it|him|her|them))\b"
    r"|\b(?:what|who)\s+(?:goes|comes)\s+in\s+(?:instead|for\s+(?:it|him|her|them))\b"
    r"|\b(?:what|who)\s+(?:do|should)\s+(?:i|we)\s+(?:drop|bench|cut|take\s+(?:out|off))\s+for\b"
    r"|\bwho\s+(?:comes|goes)\s+(?:off|out)\s+for\b"
    # "ok swap them both then, to what", "actually keep Renzo, swap Lorcan instead"
    r"|\b(?:swap|switch|sub)\s+(?:\w+\s+){1,3}?(?:then\s+)?(?:to|for|into)\s+(?:what|who|whom)\b"
    r"|\b(?:swap|switch|sub|bench|drop)\s+\w+\s+(?:out\s+|off\s+)?instead\b"
)
# "My Renzo does zero damage", "my fox does nothing" (English cue words, normalised text): one of the
# player's own doing nothing here.
_UNDERPERFORMS = re.compile(
    r"\b(?:does|doing|deals|dealing|did|do)\s+(?:like\s+|basically\s+|literally\s+)?(?:zero|no|nothing|barely\s+any|0)"
    r"(?:\s+(?:damage|dmg))?\b|\bcant\s+(?:kill|hit|do)\s+anything\b"
)
# "Ok so Renzo for the bazaar, Lorcan for here, got it", "ok I'll try going after her with him": the
# advice taken in, a plan said back, nothing asked (English cue words).
# "Fine, keep Wendell", "ok Wendell stays", "sticking with him then": a decision said back (over the
# abstracted text: a name is its kind's token).
_KEPT = re.compile(
    r"^(?:(?:ok|okay|k|kk|alright|fine|cool|yeah|yep|right|lol|haha|then|so|fair|enough|sure|meh|got\s+it)\s+)*"
    r"(?:(?:(?:ill|i\s+will|well|we\s+will|gonna|im\s+gonna|i\s+guess)\s+)?(?:keep(?:ing)?|stick(?:ing)?\s+with|"
    r"stay(?:ing)?\s+with|going\s+with)\s+(?:my\s+|the\s+)?(?:x[a-z]+x|him|her|them)"
    r"|(?:my\s+|the\s+)?x[a-z]+x\s+(?:stays|is\s+staying|it\s+is|stays\s+in)"
    r"|(?:i\s+|we\s+)?(?:picked|locked(?:\s+in)?|took|chose|went\s+with|locking(?:\s+in)?)\s+(?:my\s+|the\s+)?"
    r"(?:x[a-z]+x|him|her|them|it)(?:\s+in)?"
    r"|(?:ill\s+|i\s+will\s+|gonna\s+)?(?:stick|stay)\s+with\s+(?:what|whatever)\s+i\s+(?:have|got)"
    # "meh. spotter then": a choice said back after a filler
    r"|(?:x[a-z]+x|(?!(?:what|why|how|who|which|where|when|now|and|so|yes|no|same)\b)[a-z]{4,})\s+then)"
    r"(?:\s+(?:then|in|on|for\s+now|i\s+guess|it\s+is|lol))*(?:\s+(?:and\s+)?(?:thanks|thank\s+you|thx)\b.*)?$"
)
# "... alright, going Tamsin": a pick said last, after an aside (abstracted text).
_GOING_WITH = re.compile(
    r"\b(?:alright|ok|okay|fine|so|then)\s+(?:im\s+|i\s+am\s+|ill\s+|we\s+are\s+)?(?:going|gonna\s+go|go)\s+(?:with\s+)?"
    r"x[a-z]+x(?:\s+then)?$"
)
_TAKEN_IN = re.compile(
    rf"^{_ASKS_ANYTHING}.*\b(?:got\s+it|gotcha|(?<!\bif\sthat\s)(?<!\bif\sit\s)makes\s+sense|will\s+do|"
    r"sounds\s+good|noted|understood|(?:that|this)\s+helps(?:\s+(?:a\s+lot|loads|heaps))?(?:\s+actually)?)\W*$"
    # "ha ok you've convinced me", "... got it, I'll save them for that"
    rf"|^{_ASKS_ANYTHING}.*\b(?:(?:you'?ve|youve|you)\s+(?:convinced|sold)\s+me|got\s+it\W+(?:ill|i\s+will|im\s+gonna|gonna)\b)"
    rf"|^{_ASKS_ANYTHING}\W*(?:(?:ok|okay|alright|right|cool|fine)\W+)*(?:i'?ll|i\s+will|im\s+gonna|i'?m\s+going\s+to|"
    r"gonna|lets|let'?s)\s+(?:try|do|go|give)\b(?!.*\b(?:or|if)\b)"
    # "nice ok swapping now", "switching then"
    rf"|^{_ASKS_ANYTHING}\W*(?:(?:nice|ok|okay|k|alright|cool|fine|right)\W+)*(?:swapping|switching|changing)"
    r"(?:\s+(?:now|then|over|it|him|her))?\W*$"
    # "k keep it", "ok going with the same three", "that one's on me lol"
    rf"|^{_ASKS_ANYTHING}\W*(?:(?:ok|okay|k|kk|alright|right|cool|fine|yeah|yep)\W+)*(?:keep(?:ing)?\s+it|"
    r"(?:going|sticking|staying)\s+with\s+(?:the\s+)?same(?:\s+\w+)?)\W*$"
    rf"|^{_ASKS_ANYTHING}.*\b(?:that(?:\s+one)?(?:s|\s+is|\s+was)|my\s+bad)\s+on\s+me\b"
    # "... lol ok locking it in"
    rf"|^{_ASKS_ANYTHING}.*\b(?:locking|locked)\s+(?:it|him|her|them|that)\s+in\W*$"
)
# "Any tips?", "how do I get better at this", "what should I focus on": the player asks for advice
# as such (English cue words), so a general tip is an answer, not a stock line after one.
ASKS_ADVICE = re.compile(
    r"(?<!\bgood\s)(?<!\bbad\s)\b(?:tips?|advice|advise|pointers?|improve|get\s+better|better\s+at|suggestions?|ideas?|"
    r"what\s+should\s+(?:i|we)\s+(?:know|focus|work|keep\s+in\s+mind)|how\s+do\s+(?:i|we)\s+(?:win|get\s+good|play\s+better))\b",
    re.IGNORECASE,
)
# "two tanks, like Duke and Bran", "such as": units named as examples of a count of a role.
# "two tanks, like Duke and Bran", "Bran and Duke both tanks": the units named as examples of a role.
_AS_EXAMPLES = re.compile(r"\b(?:like|such\s+as|say|eg|for\s+example|both)\b")
VERSUS = r"(?:vs|versus|against)"
# What players call a unit's options as a whole (English gamer words).
LOADOUT_WORDS = re.compile(r"\b(?:setup|set\s+\w+\s+up|build|kit|loadout)\b")
# "Open with", "lead with", "start off with" (English cue words).
OPEN_WITH = r"(?:open|opens|opening|lead|leads|leading|start|starts|starting)\s+(?:off\s+)?with\b"
# "The scariest thing they have", "strongest on their side" (English cue words).
THEIR_BEST = re.compile(
    r"\bwhich\s+(?:one\s+)?of\s+(?:theirs|them|their\s+\w+)\b.*\b(?:kill|focus|target|take\s+out|go\s+after)\b|"
    r"\b(?:scariest|strongest|best|biggest|most dangerous|deadliest|toughest|nastiest|worst)\b.*"
    r"\b(?:they\s+(?:have|got|field|run|are running)|theyve got|theyre running|on their (?:side|team)|"
    r"their (?:team|side|five)|of theirs|the enemy (?:has|have|team|side))\b"
)
# "My strongest hero", "our best creature": English superlatives before the unit kind's noun.
MY_BEST = r"\b(?:my|our)\s+(?:strongest|best|highest level|top|most levell?ed|most powerful|worst|weakest)\s+"
WHICH_OF_MINE_MOST = re.compile(
    r"\bwhich\s+(?:one\s+)?of\s+(?:my|our)\s+(?:\w+\s+)?(?:is|are|'s)\s+(?:the\s+)?"
    r"(?:\w+iest|strongest|toughest|best|hardest hitting|most powerful)\b"
)
# "Keep the same team", "stick with this comp" (English cue words; the group nouns are the pack's).
KEEP = r"(?:keep|keeping|stick|sticking|stay|staying|run|running)"
# "Do I change anything or just run it back", "keep the same?" (gamer English, `normalise`d).
KEEP_OR_CHANGE = re.compile(
    r"\brun\s+it\s+back\b|(?<!\bthey\s)(?<!\btheyll\s)(?<!\bthey\swill\s)(?<!\bgonna\s)"
    r"\b(?:change|switch)\s+(?:anything|something|it\s+up|things\s+up)\b"
    r"|\bkeep\s+(?:it\s+)?(?:the\s+)?same\b|\bstick\s+with\s+(?:it|this|that)\b"
)
# "Which of mine is most at risk", "who's our weakest link" (English cue words).
SWAP_TO = re.compile(
    r"\bwhat\s+(?:should|do|can|would)\s+(?:i|we)\s+(?:swap|switch|change)\s+(?:to|into)\b"
    # "Who would you drop?", "who do we bench": one of the team out is a swap
    r"|\b(?:who|which\s+one)\s+(?:should|would|do|could)\s+(?:i|we|you)\s+(?:drop|bench|cut|sub\s+out|take\s+out|"
    r"swap\s+out|swap\s+off|take\s+off)\b"
)
# A few words that ask about something without naming it ("worth grinding for?", "how far off?"):
# about what the last exchange was about. Not a greeting, thanks, acknowledgement or call for help.
_ELLIPTICAL_WORDS = 4
_LEAD_FILLERS = frozenset(
    {"wait", "so", "and", "ok", "okay", "um", "uh", "hmm", "but", "then", "right", "alright"}
)
_ASKS_ABOUT = re.compile(r"\b(?:worth|ready|far|long|close|levels?|unlock|unlocks|unlocked|away|soon)\b")


def elliptical(text: str) -> bool:
    said = normalise(text)
    words = said.split()
    while len(words) > 1 and words[0] in _LEAD_FILLERS:
        words = words[1:]  # "wait so how many more levels": the question after the fillers
    # "How long will that take": a word pointing back lets the question run a little longer.
    most = _ELLIPTICAL_WORDS + 2 if {"that", "it", "this"} & set(words) else _ELLIPTICAL_WORDS
    if words[:1] == ["how"] and words[1:2] in (["many"], ["far"], ["long"], ["close"], ["soon"]):
        most += 2  # "how many levels off am I": a measure of what was just said
    return (
        0 < len(words) <= most
        and _ASKS_ABOUT.search(said) is not None
        and not (ACKNOWLEDGED.match(said) or ASKS_HELP.match(said))
    )


_WORTH = re.compile(r"\bworth\b")
LEVEL_ORDER = re.compile(
    r"\b(?:is|s)\s+(?:the\s+)?(?:highest|lowest)(?:\s+(?:one|now))?\s*$|\b(?:lowest|highest|least|most)[\s-]+level(?:l?ed)?\b|\b(?:rank|sort|order|list)\w*\b(?:\s+\w+){0,3}?\s+by\s+level\b"
)
# "Should I level Emberfox or Galehawk": a choice of what to grow, not of whom to field.
_PROGRESS = re.compile(r"\b(?:level\w*|evolv\w*|upgrad\w*|unlock\w*|invest\w*|buy|get|xp|train\w*)\b")
# "Does Lorcan do anything vs them", "Fenwick vs their team any good", "is Wendell even useful vs them".
# (RATED, plus doing anything at all.)
_DOES_ANYTHING = re.compile(
    r"\b(?:do|does|doing)\s+(?:\w+\s+)?(?:anything|much|ok|okay|well)\b|\b(?:useful|useless|trash)\b"
    r"|\bcounters?\s+(?:any(?:one|body|thing)?|some(?:one|body))\b"
)
# "Is my Oakhorn a problem for them", "would Hexmoth scare them" (English cue words).
_TROUBLE_FOR_THEM = re.compile(
    r"\b(?:problem|threat|trouble|danger|dangerous|scary|nightmare|headache|pain)\s+(?:for|to)\s+"
    r"(?:them|their\s+(?:team|side|guys))\b|\b(?:scare|bother|worry|threaten|trouble)\s+them\b"
)
# "Lorcan or Tamsin, who wins?", "who beats who" (English cue words).
_WHO_WINS = re.compile(
    r"\b(?:who|which(?:\s+one)?|whos|who\s+s)\s+(?:would\s+|will\s+|gonna\s+|is\s+gonna\s+)?(?:wins?|winning)\b"
    r"|\bwho\s+beats\s+who\b|\bwhos\s+stronger\b"
)
# "What level is Galehawk", "how's my fox doing level wise" (English cue words).
_WHO_AGAINST = re.compile(
    r"\bwhat\s+(?:am\s+i|are\s+we|m\s+i|re\s+we|im|were)\s+(?:even\s+)?(?:up\s+against|against|facing|fighting|versing)\b|"
    r"\bwho\s+(?:am\s+i|are\s+we|m\s+i|re\s+we|im|were)\s+(?:even\s+)?(?:up\s+against|against|playing"
    r"(?:\s+against)?|facing|fighting|versing)\b|\bwhos?\s+(?:is\s+|are\s+)?on\s+(?:their|the\s+(?:other|enemy))\s+"
    r"(?:team|side)\b|\bwhat\s+(?:are\s+they|is\s+the\s+enemy|is\s+their\s+team|theyre|they\s+are)\s+"
    r"(?:running|fielding|bringing)\b"
    # "their team?", "the enemy side": said alone, what they field
    r"|^\W*(?:(?:and|so|ok|okay|what\s+about)\W+)?(?:their|the\s+(?:enemy|other|opposing))\s+"
    r"(?:team|side|squad|comp|five|three)\W*$"
)
# The player's unit on the receiving end: "why is my fox taking so much damage", "Galehawk keeps dying".
TAKING_HITS = re.compile(
    r"\b(?:taking|takes|took)\s+(?:so\s+much|a\s+lot\s+of|tons\s+of|too\s+much|loads\s+of|extra)\s+damage\b"
    r"|\bkeeps?\s+(?:on\s+)?(?:dying|getting\s+(?:killed|hit|wrecked|destroyed|one\s*shot|sniped|picked(?:\s+off)?|"
    r"dove|dived|focused|melted|deleted|shot))\b"
    r"|\b(?:dies|died|die|dying)\s+(?:\w+\s+)?(?:so\s+|too\s+|super\s+|really\s+)?(?:fast|quick|quickly|easily|early|first)\b"
    r"|\bwhy\s+(?:did|does|do|is)\s+(?:my\s+)?\w+\s+(?:die|dying)\b"
    r"|\bgetting\s+(?:wrecked|destroyed|smoked|melted|shredded|deleted|bullied|chunked|focused|farmed)\b"
    # "they just one shot my hawk", "Voltail keeps killing my fox": an attack on the player's unit
    r"|\b(?:one\s*shot(?:s|ting|ted)?|kill(?:s|ed|ing)?|wreck(?:s|ed|ing)?|destroy(?:s|ed|ing)?|melt(?:s|ed|ing)?|"
    r"delet(?:e|es|ed|ing)|shred(?:s|ded|ding)?|focus(?:es|ed|ing)?|chunk(?:s|ed|ing)?|farm(?:s|ed|ing)?)\s+(?:my|our)\b"
)
# One of theirs unhurt by the player's one: "ate my fox's attacks", "barely flinched", "did nothing".
_SHRUGS_OFF = re.compile(
    r"\bbarely\s+(?:even\s+)?(?:flinch\w*|scratch\w*|dent\w*|hurt\w*|tickl\w*|move\w*|touch\w*)\b"
    r"|\b(?:ate|eats|tanked|tanks|shrugged\s+off|shrugs\s+off|absorbed|soaked)\s+(?:\w+\s+){0,5}?"
    r"(?:attacks?|hits?|moves?|shots?)\b|\b(?:does|did|do|doing)\s+(?:literally\s+)?(?:nothing|no\s+damage)\b"
)
# One of theirs that outlasts the player's side: "this turtle just will not die", "can't kill him".
_WONT_DIE = re.compile(
    r"\b(?:will\s+not|won\s*t|wont|doesn\s*t|does\s+not|never)\s+(?:just\s+)?die\b|\bso\s+tanky\b"
    r"|\b(?:can\s*t|cannot|can\s+not)\s+(?:even\s+)?(?:kill|take\s+down|break|crack|hurt)\b"
)
_USED_ON = re.compile(
    r"\b(?:use|using|used|good|work|works|effective|hurt|hit|worth\s+it|throw|throwing|cast|casting|fire|firing|"
    r"spam|spamming|pop|popping|go|going|lead|open)\s+"
    r"(?:\w+\s+){0,2}?(?:on|against|vs|into|at)\b"
)
_WHEN_GETS = re.compile(
    r"\b(?:when|how\s+(?:long|soon)|what\s+level)\b.*\b(?:get|gets|unlock|unlocks|have|open)\b"
)
_WORTH_FIELDING = re.compile(
    r"\bworth\s+(?:bringing|putting|taking|playing|running|fielding|using|swapping|subbing)(?:\s+in)?\b"
    r"(?!\s+(?:time|effort|work|resources|xp|exp|levels|money|points|hours)\b)"
    r"|\bworth\s+(?:it|picking)\s+(?:in\s+|for\s+)?(?:this|these)\s+(?:game|match|round|map|guys)\b"
)
# "Who on my team isn't pulling their weight", "which of my guys is the weak link" (English cue words).
WEAK_LINK = re.compile(
    r"\b(?:who|whos|which)\b.*\b(?:(?:is\s*n'?t|is\s+not|isnt|not)\s+pulling\s+(?:\w+\s+)?weight|pulling\s+the\s+least\s+weight|"
    r"weak(?:est)?\s+link|dead\s+weight|holding\s+(?:us|me|the\s+team)\s+back|dragging\s+(?:us|me|the\s+team)\s+down)\b",
    re.IGNORECASE,
)
_NEXT_UNLOCK = re.compile(
    r"^\W*(?:(?:so|ok|okay|and|hey|um|uh|coach)\W+)*(?:what|whats|what's)\s+(?:do\s+(?:i|we)\s+(?:get|unlock)|"
    r"(?:is\s+)?(?:my|our)\s+next\s+unlock|unlocks)\s+next\b|\bwhats?\s+my\s+next\s+unlock\b"
    # "what do I unlock at level 12", "what do I get at account level 15"
    r"|\bwhat\s+(?:do|will|can)\s+(?:i|we)\s+(?:get|unlock)\s+(?:at|on|when\s+i\s+(?:hit|reach|get\s+to))\s+"
    r"(?:account\s+|player\s+)?level\s+\d+\b",
    re.IGNORECASE,
)
_ADD_ONE = re.compile(
    r"\badd\s+(?:someone|somebody|anyone|another|one\s+more|a\s+(?:fourth|fifth|4th|5th|third))\b"
    r"|\b(?:room|space|slot)\s+for\s+(?:one\s+)?more\b"
    # "which one would you add", "who do I add": one more, not one swapped for another
    r"|\b(?:which|who|whom)\s+(?:one\s+)?(?:would|should|do|can)\s+(?:you|i|we)\s+add\b(?!.*\b(?:instead|for|over)\b)"
)
_HERE = re.compile(r"\b(?:here|this\s+one)\s*$|\bhere\b(?!\s+(?:is|are|s)\b)")
_ENOUGH = r"\b(?:levell?ed|high)\s+(?:up\s+)?enough\b|\b(?:under|over)\s*levell?ed\b|\benough\s+levels?\b"
_UNIT_LEVEL = re.compile(
    r"\b(?:what|which)\s+level\b|\blevel\s*wise\b|\bhow\s+high\s+(?:a\s+)?level\b"
    # "is he levelled enough", "is my fox high enough level", "is Oakhorn underlevelled"
    rf"|{_ENOUGH}"
    r"|\bonly\s+(?:level|lvl)\s+\d+|\b(?:level|lvl)\s+\d+\s+(?:isnt|right|now|already)\b"
    # "is Sparkwing level 10 or 12", "Brannoc is level 13 yeah": a level the player wants checked
    r"|\b(?:is|s|at)\s+(?:\w+\s+)?(?:level|lvl)\s+\d+\b"
    # "Spark wing level?", "Elowen's level": the unit's level, asked in two words
    r"|^\W*(?:and\s+|so\s+|ok\s+)?(?:my\s+|the\s+)?x\w+x(?:s|\s+s)?\s+(?:level|lvl)\W*$"
)
# "Is Hexmoth any good", "is Oakhorn worth it" (English cue words).
RATED = re.compile(
    r"\b(?:any good|good|any use|worth it|decent|viable|strong|usable|bad|"
    r"pulling (?:its|his|her|their) weight)\b"
)
# Words that take an answer in and ask nothing ("ok cool", "whatever you say, boss", "lol fair").
ACKNOWLEDGED = re.compile(
    r"^(?:(?:ok|okay|k|kk|alright|all right|cool|fine|got it|gotcha|sure|nice|great|sweet|bet|"
    r"hm+|mhm|meh|ah|oh|"
    r"sounds good|will do|yeah|yep|yup|roger|understood|makes sense|fair|fair enough|lol|haha|lmao|"
    r"whatever|whatever you say|if you say so|boss|coach|man|dude|then|noted|perfect|awesome|"
    # "ok do it", "let's do that", "go ahead": the last advice taken
    r"do it|doing it|let'?s do (?:it|that|this)|go ahead|on it|done|deal|say less|"
    # "fine whatever go with yours", "your team then": the coach's suggestion taken
    r"(?:i'?ll\s+|we'?ll\s+|let'?s\s+)?(?:go|going)\s+with\s+(?:yours|your\s+(?:pick|team|one|call|idea|comp|five|three))|"
    r"(?:yours|your\s+(?:pick|team|one|call|idea|comp|five|three))(?:\s+then|\s+it\s+is)?)\W*)+$"
)
ASKS_HELP = re.compile(
    r"^(?:(?:uh|um|hey|coach|so|ok|okay)\W+)*(?:help|help me|can you help(?: me)?|i need help|"
    r"what can you do|what do you do|what can i ask(?: you)?|how does this work)\W*$"
)
THANKS, GREETED = ("smalltalk", "thanks"), ("smalltalk", "greeting")
# The player asks about having or getting a unit ("do I have", "can I play", "unlock") (English cues).
# "Why is Emberfox bad here", "why does everyone say Renzo sucks on this map" (English cue words).
WHY_BAD_HERE = re.compile(
    r"\b(?:why|how\s+come)\b.*\b(?:bad|weak|useless|trash|terrible|struggl\w*|sucks?|worse|not\s+good)\b"
    r".*\b(?:here|on\s+this\s+\w+|this\s+(?:round|match|game)|against\s+(?:them|these\s+guys|this\s+team))\b"
)
# "Only level 7", "is level 4 a problem", "too low level", "underlevelled" (English cue words): a
# unit's level put as a worry, not asked as a number.
LEVEL_CONCERN = re.compile(
    r"\b(?:only|just)\s+(?:like\s+|about\s+)?(?:level|lvl|lv)\b|\btoo\s+low(?:\s+(?:a\s+)?level)?\b|"
    r"\bunder\s?-?\s?levell?ed\b|\b(?:level|lvl|lv)\s+\d+\b.*\b(?:problem|matter|matters|issue|hold\s+\w+\s+back|"
    r"tho|though|lol|enough|behind|trash|useless|viable|weak|bad)\b|\blevel\s+(?:too\s+low|enough|a\s+problem)\b"
    # "is it levelled enough", "is Oakhorn high enough level", "strong enough yet"
    r"|\b(?:levell?ed|high(?:\s+enough)?\s+level|strong|tough|ready)\s+enough\b|\bhigh\s+enough\s+(?:level|lvl)\b"
)
# "Is there a hero that breaks the shield", "anyone who can stop Voltail" (English cue words).
_ONE_THAT_BEATS = re.compile(
    r"\b(?:is\s+there|are\s+there|do\s+i\s+have|got|anyone|anybody|someone|somebody|any\s+\w+|a\s+\w+)\s+"
    r"(?:that|who|which)\s+(?:can\s+)?(?:just\s+|actually\s+|really\s+)?(?:breaks?|beats?|counters?|kills?|stops?|"
    r"shuts?\s+down|deals?\s+with|handles?|hard\s+counters?|melts?|burns?\s+through)\b"
)
# "Kill Nadira", "take out their Voltail" (English fight verbs before a unit of theirs).
_FOUGHT_BEFORE = re.compile(
    r"\b(?:kill|beat|take\s+(?:down|out)|deal\s+with|handle|fight|shut\s+down|win\s+against|outrange|"
    r"focus|burst|pick\s+off|trade\s+with|duel)\s+(?:their\s+|the\s+)?$",
    re.IGNORECASE,
)
OWNING = re.compile(
    r"\b(?:roster|collection|inventory|playable|available|unlock\w*|own|owned|how (?:far|close|long)|when)\b"
    r"|\b(?:i|we|me|my|mine)\b.*\b(?:have|has|got|get|play|use|field|run|buy|catch)\b"
    r"|\b(?:have|got|play|field)\b.*\b(?:i|we|me)\b"
)
WHAT_NOW = re.compile(
    r"^(?:(?:so|ok|okay|and|uh|um|alright|right|coach|but|then|well)\W+)*(?:what\s+now|now\s+what|what\s+(?:do|should)\s+"
    r"(?:i|we)\s+(?:even\s+)?do|what\s+(?:am\s+i|are\s+we|was\s+i)\s+(?:supposed|meant)\s+to\s+do|what\s+can\s+(?:i|we)\s+(?:even\s+)?do|what(?:s|\s+is)\s+(?:the|our|my)\s+(?:game\s+)?(?:play|move|plan|strategy|win\s+con(?:dition)?)|any\s+tips|"
    r"how\s+do\s+(?:i|we)\s+win\s+this)(?:\s+(?:now|here|next|then|this\s+round|this\s+one|(?:for|in)\s+this\s+round))?"
    r"\W*$"
)
# Reach asked between the sides (English cue words; the pack's data says whether it has range).
# A unit referred to without its name ("is he worth going dive with"): the question is about one.
_SOMEONE = re.compile(r"\b(?:he|him|his|she|her|hers|this\s+guy|that\s+guy|that\s+one|this\s+one)\b")
_OUTRANGED = re.compile(
    r"\bout\s?rang\w*|\b(?:more|longer|better)\s+range\s+than\b|\bwho\s+has\s+(?:more|the\s+longer)\s+range\b"
)
# A move weighed against a foe ("would it help against", "any good against", "worth using on").
_OPTION_AGAINST = re.compile(
    r"\b(?:help|helps|good|any\s+good|worth|work|works|effective|use|using|do\s+anything)\b.*\b(?:against|on|vs|into)\b"
)
_QUESTION_WORD = re.compile(
    r"\?|^\W*(?:(?:so|ok|okay|and|but|um|uh|like)\W+)*(?:what|whats|who|whos|how|hows|which|why|when|where|should|can|could|is|are|"
    r"do|does)\b|\b(?:what|who|how|which|why)\s+(?:do|should|can)\b"
)
# "Who should I worry about", "what should Lorcan watch out for" (English cue words).
WORRY = re.compile(
    r"\b(?:worr(?:y|ied|ying)\s+about|scared\s+of|afraid\s+of|(?:watch|look)\s+out\s+for|"
    r"be\s+careful\s+(?:of|with|about)|keep\s+an\s+eye\s+on)"
    # "Which of theirs hurts us the most", "who's giving us the most trouble"
    r"|\b(?:hurts?|hurting|bothers?|bothering)\s+(?:us|me|my\s+\w+|our\s+\w+)\s+(?:the\s+)?most\b"
    r"|\b(?:gives?|giving)\s+(?:us|me)\s+the\s+most\s+(?:trouble|problems|grief)\b"
)
# "Which one is most dangerous for my Hexmoth", "who's the biggest threat to our tank" (English cues).
THREAT_TO = re.compile(
    r"\b(?:which|who|whos|what)\b.*\b(?:most|more|biggest|main|real|worst)\s+(?:dangerous|threat(?:ening)?|scary|"
    r"problem|danger|trouble)\s+(?:for|to)\s+(?:my|our)\b"
)
SHOULD_WORRY = re.compile(
    r"\b(?:should|do|must)\s+(?:i|we)\s+(?:be\s+)?(?:worr(?:y|ied)|scared|afraid|care)\s+(?:about|of)\b"
)
AT_RISK = re.compile(
    r"\b(?:most|more)\s+(?:at\s+risk|in\s+danger|vulnerable|exposed|threatened)\b|\bweakest\s+link\b|"
    r"\bin\s+the\s+most\s+(?:danger|trouble)\b"
    # "Which of mine do they counter the hardest"
    r"|\bwhich\s+(?:one\s+)?of\s+(?:mine|ours|my\s+\w+|our\s+\w+)\s+(?:do|does|can|will)\s+(?:they|their\s+\w+)\s+"
    r"(?:counter|beat|wreck|hit|kill|punish)\w*\b"
)
# "Why is this matchup so rough", "why are we getting stomped" (English cue words).
# A named group asked about as such (English cue words): "what's X about", "tell me about X".
GROUP_INFO = re.compile(
    r"^\W*(?:\w+\W+){0,2}?(?:what(?:s|\s+is)\s+(?:the\s+)?\w+(?:\s+\w+)?\s+(?:about|like)\b|tell\s+me\s+about\b|"
    r"what(?:s|\s+is)\s+(?:the\s+)?\w+(?:\s+\w+)?\W*$|explain\b|describe\b)"
)
# How much one unit threatens the player (English cue words).
BIG_DEAL = re.compile(
    r"\b(?:is|are)\s+(?:\w+\s+){0,3}?(?:a\s+(?:big\s+|real\s+)?(?:deal|problem|threat|issue|worry)|dangerous|scary|"
    r"a\s+pain|gonna\s+be\s+(?:a\s+)?(?:problem|issue))\b"
    # "is Nadira strong against us": how much she threatens the player's side
    r"|\b(?:is|are)\s+(?:\w+\s+){0,3}?(?:strong|good|tough|rough|bad\s+news|oppressive)\s+(?:against|vs|into|for)\s+"
    r"(?:us|me|my\s+team|our\s+team)\b"
)
# The player says the match is going badly without asking anything (English cue words).
# A question opening after something else was said ("..., who do I swap"; English cue words).
_ASKED_NEXT = re.compile(
    r"\b(?:who|what|which|how|should\s+(?:i|we)|do\s+(?:i|we))\b(?:'s|s)?(?=(?:\W+\w+){2,})",
    re.IGNORECASE,
)
TILTED = re.compile(
    r"\b(?:tilted|tilting|cooked|doomed|hopeless|cursed|so\s+done|giving\s+up|rage\s+quit|raging|"
    r"frustrated|so\s+annoyed|(?:getting|got|being)\s+(?:wrecked|destroyed|crushed|stomped|rolled|farmed|diffed))\b"
)
WHY_HARD = re.compile(
    r"\bwhy\b(?:\s+\w+){0,5}\s+(?:matchup|match|game|fight|round)\b(?:\s+\w+){0,3}\s+"
    r"(?:hard|rough|bad|tough|difficult|brutal|awful|unfair|one sided)\b|"
    r"\bwhy\s+(?:are|am|do)\s+(?:we|i)\s+(?:keep\s+)?(?:losing|struggling|getting\s+(?:rolled|stomped|crushed|wrecked))\b"
    r"|\bwhat\s+(?:are\s+we|am\s+i|we|im|were)\s+doing\s+wrong\b"
    # "we got farmed, what is even going on", "how is that fair", "we keep losing the point fight"
    r"|\bwhat(?:'?s|\s+is)\s+(?:even\s+)?(?:going\s+on|happening)\b|\bhow\s+(?:is|was)\s+(?:that|this)\s+(?:even\s+)?fair\b"
    r"|\bkeep\s+losing\s+(?:the|every|each)\s+(?:\w+\s+){0,2}(?:fights?|point|lanes?|duels?|trades?)\b"
)
# "What's the quickest fix", "how do I fix this" (English cue words).
FIX = re.compile(
    r"\b(?:quick(?:est)?|easiest|best|simplest|one)\s+fix\b|\bhow\s+(?:do|can|would|should)\s+(?:i|we)\s+fix\b|"
    r"\bfix\s+(?:this|that|my\s+team|our\s+team)\b|"
    r"^(?:(?:ok|okay|so|then|alright|right|well|go on|please)\W+)*(?:fix|improve)\s+(?:it|them)\b|"
    r"\b(?:quick(?:est)?|easiest|simplest|one)\s+(?:thing|way|change)\s+(?:to|that would|that'd)\s+"
    r"(?:improve|fix|help)\b|^(?:(?:ok|okay|so)\W+)?(?:the\s+)?fix\W*$"  # "fix?"
)
# "Is Oakhorn any use here?", "any good right now" (English cue words).
ANY_USE_NOW = re.compile(
    r"\b(?:any\s+(?:use|good)|usable|useful|viable|playable)\s+(?:at\s+all\s+)?(?:here|now|right\s+now|"
    r"in\s+this\s+(?:match|fight|one|game))\b"
    # "my Sparkwing is kinda useless isn't it": a verdict on it, here
    r"|\b(?:is|s|seems|looks|feels)\s+(?:\w+\s+)?(?:useless|worthless|trash|garbage|pointless)\b"
    # "is the little deer ready for this fight": its matchups there, and its level if it is behind
    r"|\bready\s+(?:for\s+(?:this|the)\s+(?:match|fight|round|game|one)|to\s+(?:fight|play|go\s+in))\b"
)
# Verbs of going after a unit in a fight ("get to", "catch", "take on") (English cue words).
CONFRONT = (
    r"(?:get\s+to|get\s+past|get\s+around|go\s+(?:around|past)|catch|deal\s+with|do\s+(?:\w+\s+)?about|keep\s+up\s+with|shut\s+down|break|crack|"
    r"lock\s+down|punish|outplay|hold\s+off|out(?:range|duel|trade|last|heal|snipe|speed|pace|fight)s?)"
)
# Words that put a unit in front of the player's pick: "best against", "an answer to", "into".
FACING = r"(?:against|into|vs|versus|answer\s+to|answer\s+for|counter\s+to|counter\s+for)"
# The player says a unit of theirs is gone, then asks who / what / which: the question is what to do
# without it (English cue words; the pairs about one unit are those whose intent is the unit kind).
TOLD_GONE = re.compile(
    r"(?:\b(?:is|s|its|theyre|are)\s+gone\b|\b(?:traded|sold|released|gave)\b(?:\s+\w+){0,3}\s+away\b|"
    r"\b(?:traded|sold|released|lost)\s+(?:it|him|her|them|my)\b|"
    # "I just lost Oakhorn, what now", "Emberfox fainted, who next": out of this fight
    r"\blost\s+(?!to\b|again\b|(?:the|a|that|this|one|another)?\s*round\b)(?:our\s+)?[a-z]+\b|"
    r"\b(?:died|fainted|is\s+down|went\s+down|got\s+(?:knocked\s+out|ko\s*d|killed))\b)"
    r"(?=.*\b(?:who|what|which|how)\b)"
)


# Below this the classifier's own pair yields to the rule: a confident "what else does Pyrowl
# learn?" (creature/skills) keeps its pair.
def team_words(pack: Pack) -> str:
    """A regex alternation of the words for a team: English ones and the pack's group kind's."""
    schema = pack.catalog.schema
    group_words = [w for name, k in schema.kinds.items() if k.role == "group" for w in (name, *k.nouns)]
    return "|".join(map(re.escape, ["team", "squad", "side", "five", "three", *group_words]))


_MEMBERS: dict[tuple[str, str], re.Pattern[str]] = {}
# "Is Hexmoth any good in my team": how it does there, not whether it is in it.
_JUDGED = re.compile(r"\b(?:good|worth|useful|better|best|strong|weak|fit|work|works|doing|win|rate|help)\b")


def asks_members(pack: Pack, utterance: str) -> bool:
    """ "Who's in my team right now?", "are Oakhorn and Sparkwing both in my lineup?", "what's my
    current lineup?": who the player fields (English cue words, the pack's words for a team)."""
    key = (pack.pack_id, pack.version)
    if key not in _MEMBERS:
        teams = team_words(pack)
        mine = rf"(?:my|our)\s+(?:current\s+)?(?:{teams})\b"
        _MEMBERS[key] = re.compile(
            rf"\bwho(?:'s|s|\s+is|\s+are|\s+have\s+i\s+got)\s+(?:in|on)\s+{mine}"
            # "remind me who I have out", "who am I running", "who've we got on the field"
            rf"|\bwho\s+(?:do\s+)?(?:i|we)\s+(?:have|got|ve\s+got)\s+(?:out|on\s+the\s+field|fielded|in\s+play)\b"
            rf"|\bwho\s+(?:am\s+i|are\s+we)\s+(?:running|playing|fielding|using)\s*(?:right\s+now|now|again)?\s*$"
            # "any healers on my team", "do I have a tank in my lineup": a kind asked of the team
            rf"|^\W*(?:so\s+|and\s+)?(?:any|do\s+(?:i|we)\s+have\s+(?:a|an|any))\s+(?:\w+\s+){{0,2}}?(?:in|on)\s+{mine}"
            # "do they have a tank", "is there a healer on their team": a kind asked of their side
            rf"|^\W*(?:so\s+|and\s+)?(?:do|did)\s+they\s+(?:have|run|bring|got)\s+(?:a|an|any)\s+\w+\W*$"
            rf"|\b(?:any|a|an)\s+\w+\s+(?:in|on)\s+their\s+(?:{teams})\b"
            rf"|\b(?:is|are)\s+(?:\w+\s+){{0,6}}?(?:in|on)\s+{mine}(?!\s+(?:instead|for|against))"
            rf"|\bwhat(?:'s|s|\s+is)\s+{mine}\s*(?:right\s+now|now|again|at\s+the\s+moment)?\s*\??$"
            # "my team is Emberfox, Oakhorn and Sparkwing, right?": checked back
            rf"|^\W*(?:so\s+|ok\s+|and\s+)?{mine}\s+(?:is|s|has)\s+.*\b(?:right|correct|yeah|yes)\W*$",
            re.IGNORECASE,
        )
    text = normalise(utterance)
    return _MEMBERS[key].search(text) is not None and not _JUDGED.search(text)


# What the round at stake means for the match: "if I win this one that's the match, right?", "is
# this the last round", "do we need this one", "how many rounds are left" (English cue words).
ASKS_STAKES = re.compile(
    r"\b(?:is|isn't|isnt)\s+(?:this|it|that)\s+(?:the\s+)?(?:last|final|deciding)\b"
    r"|\bif\s+(?:we|i)\s+(?:win|lose|take|drop|get)\b"
    r"|\b(?:need|have|got)\s+to\s+win\b|\bmust[\s-]win\b|\bneed\s+(?:this|that)\s+(?:one|round)\b"
    r"|\b(?:is\s+it|it'?s|is\s+the\s+match)\s+over\b|\brounds?\s+(?:left|to\s+go|remaining)\b"
    r"|\b(?:that'?s|thats|is\s+that)\s+(?:the\s+)?(?:match|game|series)\b"
    r"|\bhow\s+many\s+(?:more\s+)?rounds\b|(?<!in the )\bwhole\s+(?:match|thing|game)\b|\bwin\s+the\s+match\b"
    r"|\b(?:won|lost|took|dropped)\s+the\s+(?:first|second|opening)\s+(?:one|round|game)\b"
    # "should I just give up", "is it worth forfeiting": what is still at stake is the answer
    r"|\b(?:give\s+up|giving\s+up|forfeit\w*|surrender\w*|concede|ff)\b",
    re.IGNORECASE,
)
# "What do I do next life", "plan for when I respawn" (English cue words).
_NEXT_LIFE = re.compile(
    r"\b(?:next\s+(?:life|spawn)|when\s+i\s+(?:respawn|spawn|come\s+back))\b"
    r"(?=.*\b(?:what|who|how|do|play|plan)\b)|\b(?:what|how)\b.*\bnext\s+(?:life|spawn)\b"
)
_WHICH_ROUND = re.compile(
    r"\b(?:what|which)\s+round\s+(?:is\s+(?:this|it)|are\s+we|we\s+(?:on|in))\b|\bwhats\s+the\s+round\b"
    r"|\bhow\s+many\s+rounds\s+(?:have\s+we|did\s+we)\s+(?:won|lost|played)\b"
)
# The score a player takes for granted: "we lost round one", "we're down", "they're up 1-0" (behind);
# "we won the first", "we're ahead" (ahead). English cue words; "up against" is a foe, not a lead.
_WE = r"\b(?:we|i)(?:\s+are|\s*re|\s+am|\s*m)?\s+"
# Round one, whose result a late snapshot cannot miss ("we lost that round" may be the one just
# played: the session counts it, see `told_round`).
_A_ROUND = r"(?:round\s+(?:one|1)|the\s+(?:first|opening)\s+(?:round|one|game))\b"
# A score claim ends its clause or says the score ("we're down, what now", "they're up 2-1"); "we're
# down one" (a player?) or "ahead of them on the left" claim no score.
_N = r"(?:\d|zero|one|two|three|nil)"
_SO_FAR = (
    rf"(?=\s*(?:$|[,.!?;])|\s+(?:and|so|but|how|what|who|should|now|right|already|again)\b"
    rf"|\s+{_N}[\s-]+(?:to\s+)?{_N}\b|\s+(?:a|one|two)\s+rounds?\b|\s+on\s+rounds\b"
    rf"|\s+in\s+the\s+(?:match|series)\b)"
)
CLAIMS_BEHIND = re.compile(
    rf"{_WE}(?:down|behind|trailing){_SO_FAR}|\b(?:we|i)\s+(?:lost|dropped)\s+{_A_ROUND}"
    rf"|\bthey\s+(?:won|took)\s+{_A_ROUND}|\bthey(?:\s+are|\s*re)\s+(?:up|ahead|leading){_SO_FAR}"
    rf"|{_WE}losing\s+(?:the\s+(?:match|series)|on\s+(?:rounds|score))"
    # "are we losing this, it's like zero one": a score said with the question
    rf"|\b(?:losing|down|behind)\b.*\b(?:zero|nil|0)[\s-]+(?:to\s+)?(?:one|two|1|2)\b"
)
CLAIMS_AHEAD = re.compile(
    rf"{_WE}(?:up|ahead|leading){_SO_FAR}|\b(?:we|i)\s+(?:won|took)\s+{_A_ROUND}"
    rf"|\bthey\s+(?:lost|dropped)\s+{_A_ROUND}|\bthey(?:\s+are|\s*re)\s+(?:down|behind){_SO_FAR}"
    rf"|{_WE}winning\s+(?:the\s+(?:match|series)|on\s+(?:rounds|score))"
)
# "... so what do I do", "who should I bring": the stakes said, a move asked for.
ASKS_MOVE = re.compile(
    r"\b(?:what|who|which|how)\s+(?:do|should|would|can|could|shall)\s+(?:i|we)\b|\bwhat\s+now\b"
    r"|\b(?:pick|bring|play|run|field|swap|build)\b",
    re.IGNORECASE,
)
_COMPARED_TO = re.compile(r"\b(?:compared?\s+(?:to|with)|vs|versus|difference|better\s+than|worse\s+than)\b")
_CHOOSE_OR_COMPARE = re.compile(r"\b(?:or|vs|versus|difference|better|worse|which|compare|compared)\b")
RULE_CONFIDENCE = 0.95


def _counter_pair(pack: Pack, labels: list[tuple[str, str]]) -> tuple[str, str] | None:
    """The Φ pair that counters one named unit: a tool whose `opponent` is the focus unit."""
    focus = {"$ic.focus_creature", f"$ic.focus.{pack.catalog.schema.kind('unit')}"}
    for e in pack.phi:
        for use in e.tools:
            value = use.args.get("opponent")
            if (e.intent, e.sub_intent) in labels and focus & set(
                value if isinstance(value, list) else [value]
            ):
                return (e.intent, e.sub_intent)
    return None


# "Should I level Emberfox or Galehawk?", "who's better into Quillon, Brannoc or Lorcan": the player
# offers units to choose from (English cue words; the units come from the linker).
CHOOSING = re.compile(r"\b(?:should|which|who|whos|who's|better|best|rather|prefer|pick|choose)\b", re.I)
# "A or B", "A or like focus B", "A or should I just level B" (the verb of the choice said again).
_OR = re.compile(
    r"^\s*,?\s*or\s+(?:maybe\s+|like\s+|just\s+|instead\s+)*(?:(?:should\s+i\s+|do\s+i\s+)?(?:just\s+)?"
    r"(?:focus(?:\s+on)?|level(?:\s+up)?|go(?:\s+with)?|pick|play|use|run|bring|train|invest\s+in)\s+)?"
    r"(?:my\s+|the\s+|maybe\s+)?$",
    re.IGNORECASE,
)
_COMMA = re.compile(r"^\s*,\s*$")
_LEADING = re.compile(r"^\W*(?:(?:so|ok|okay|hmm|uh|um|and|then|like)\W+)*(?:my\s+|the\s+)?$", re.I)
# "is Granitusk better than the deer", "is Granitusk a better tank than Oakhorn"
_THAN = re.compile(
    r"^\s*(?:\w+\s+){0,2}?(?:better|stronger|worse|weaker)\s+(?:\w+\s+)?than\s+(?:my\s+|the\s+)?$", re.I
)
_AND = re.compile(r"^\s*,?\s*and\s+(?:my\s+|the\s+)?$", re.IGNORECASE)
_VERSUS = re.compile(r"^\s*,?\s*(?:vs\.?|versus)\s+(?:my\s+|the\s+)?$", re.IGNORECASE)
_WHICH_OF = re.compile(
    r"\bwhich\s+(?:one\s+)?of\b(?=.*\b(?:better|best|should|stronger|strongest|first)\b)", re.I
)
# Who opens the fight (English cue words): "who leads", "goes first", "start with".
_LEADS = (
    r"(?:leads?|lead\s+with|go(?:es)?\s+first|goes\s+out\s+first|opens?|open\s+with|starts?|start\s+with)"
)
_GOES_FIRST = re.compile(rf"\b{_LEADS}\b")
# "Just tell me what to run", "what should I field this round": the team, not one pick.
_WHAT_TO_RUN = re.compile(
    r"\bwhat\s+(?:(?:should|do|can|would)\s+(?:i|we)\s+|to\s+|(?:i|we)\s+should\s+)(?:run|field|bring)\b"
)
_THEM = re.compile(r"\b(?:them|they|theyre|their|these\s+guys|those\s+guys)\b")
_WHO_LEADS = re.compile(rf"\b(?:who|which\s+one)\s+(?:should\s+|do\s+we\s+|do\s+i\s+)?{_LEADS}\b")
_RATE_THEM = re.compile(r"\b(?:rate|grade|score)\s+(?:it|that|this|them|those|these|the\s+team|my\s+team)\b")
# "Between A and B, who goes first", "I got A and B, who leads": the two said, then the pick asked.
_BETWEEN = re.compile(r"\bbetween\s+(?:my\s+|the\s+)?$", re.I)
_THEN_PICK = re.compile(
    r"^\W*(?:\w+\W+){0,2}?(?:who|whos|which(?:\s+one)?)\s+(?:\w+\s+)?(?:leads?|goes\s+first|starts?|should|"
    r"is\s+better|better|do\s+i\s+(?:use|run|pick|play|bring|lead\s+with|start\s+with))\b",
    re.I,
)
# "Which of Yarrow and Bexley should we focus?": a choice of whom to go after, theirs.
_AIM_AT = re.compile(
    r"\b(?:focus|target|kill|go after|attack|take out|take down|burst|shoot|hunt|pressure)\b", re.IGNORECASE
)
# "Who wins, Hexmoth or Halowing?": the two against each other, not a choice of one to field.
_WHO_WINS = re.compile(r"\b(?:who|which(?: one)?)(?:'d|\s+would|\s+will)?\s+(?:wins?|beats\s+who)\b", re.I)
# "Who hits harder, Emberfox or Galehawk": the stronger of the two, not who fits the match.
HITS_HARDER = re.compile(
    r"\b(?:hits?\s+harder|hit\s+the\s+hardest|stronger|more\s+(?:damage|powerful)|strongest|"
    r"more\s+dps|better\s+damage)\b",
    re.IGNORECASE,
)
LEVELLING = re.compile(
    r"\b(?:level|levels|levell?ing|train|training|invest|investing|upgrade|upgrading|spend|"
    r"points|xp|main|maining|grind|grinding|work on|evolv\w*)\b",
    re.IGNORECASE,
)


# "What if they swap in Galehawk?", "they just brought out Pyralis" (English cue words before the unit).
_THEY_BRING = re.compile(
    r"\b(?:they|they're|theyre|the enemy|their team|the other team)\s+(?:just\s+|might\s+|could\s+|"
    r"will\s+|then\s+)?(?:swap|swaps|swapped|swapping|switch|switches|switched|bring|brings|brought|"
    r"bringing|put|puts|send|sends|sent|sub|subs|subbed|pick|picks|picked|field|fields|go|goes|run|runs)\s+"
    # ("they swap to the turtle", "they go Pyrowl")
    r"(?:in\s+|out\s+|on\s+|to\s+|into\s+|over\s+to\s+)?(?:their\s+|a\s+|the\s+)?$",
    re.IGNORECASE,
)


def brought_in(pack: Pack, text: str, mentions: list[Mention] | None = None) -> list[str]:
    """The units the player says the other side brings in ("they swap in Galehawk"), in order."""
    unit = pack.catalog.schema.kind("unit")
    found = mentions if mentions is not None else link_entities(pack, text)
    return [m.id for m in found if m.kind == unit and _THEY_BRING.search(text[: m.span[0]])]


def offered(pack: Pack, text: str, mentions: list[Mention] | None = None) -> list[str]:
    """The units the player offers as a choice ("A or B", with a word that asks to choose), in
    order; [] when there is no such choice. One question with one answer: the pick among them."""
    # ("Focus Galehawk" in a question about levelling is where to invest, not whom to shoot.)
    if _WHO_WINS.search(text) or (_AIM_AT.search(text) and not _PROGRESS.search(text)):
        return []
    unit = pack.catalog.schema.kind("unit")
    units = [m for m in (mentions if mentions is not None else link_entities(pack, text)) if m.kind == unit]
    # "Galehawk or Granitusk for the last slot": said first, the choice asks by itself.
    leads = bool(units) and _LEADING.match(text[: units[0].span[0]]) is not None
    if not CHOOSING.search(text) and not leads:
        return []
    which_of = (
        _WHICH_OF.search(text) is not None
        or (bool(units) and _BETWEEN.search(text[: units[0].span[0]]) is not None)
        or (len(units) == 2 and _THEN_PICK.match(text[units[-1].span[1] :]) is not None)
    )
    facing = re.compile(rf"\b{FACING}\s+(?:their\s+|the\s+)?$", re.IGNORECASE)
    run: list[str] = [units[0].id] if units else []
    two = len({u.id for u in units}) == 2  # ("I have Tamsin too, is Tamsin better than Lorcan": two units)
    has_or = False
    for a, b in zip(units, units[1:], strict=False):
        between = text[a.span[1] : b.span[0]]
        faced = facing.search(text[: a.span[0]]) is not None  # "against Briarcat, Emberfox or ..."
        joined = (
            _OR.match(between)
            or (which_of and _AND.match(between))  # "which of A and B is best"
            or (two and _THAN.match(between))  # "is Granitusk better than the deer"
            # "Emberfox vs Pyrowl, which is better": two weighed, not a fight ("who wins": _WHO_WINS)
            or (two and _VERSUS.match(between) and WHICH_BETTER.search(text[b.span[1] :]))
        )
        listed = _COMMA.match(between) or not between.strip()  # "A, B or C"; spoken: "duke bran or oz"
        if joined or (listed and not faced):
            has_or = has_or or bool(joined)
            run += [b.id] if b.id not in run else []
        elif has_or:
            break
        else:
            run = [b.id]
    return run if has_or and len(run) >= 2 else []


def _picks_first(entry: PhiEntry) -> bool:
    """The pair's answer is a pick: its first step past the reasons and the foe's weakness picks."""
    steps = [
        s.recipe for s in entry.answer or [] if s.recipe not in ("why", "weak_to", "threat", *_NARROW_STEPS)
    ]
    return bool(steps) and steps[0].startswith("pick_")


def _strongest_pairs(pack: Pack, labels: list[tuple[str, str]]) -> set[tuple[str, str]]:
    """The Φ pairs answered by the player's strongest unit (their answer opens with `pick_strongest`)."""
    return {
        (e.intent, e.sub_intent)
        for e in pack.phi
        if e.answer and e.answer[0].recipe == "pick_strongest" and (e.intent, e.sub_intent) in labels
    }


def _versus_pair(pack: Pack, labels: list[tuple[str, str]], against: Role = "unit") -> tuple[str, str] | None:
    """The Φ pair that says how one unit does against another: its answer opens with
    `matchup_status` on a unit-against-unit matchup (pet: element/matchup); None for a pack without.
    `against="context"`: how a unit does on the context in play (strike: hero/on_map)."""
    unit, other = pack.catalog.schema.kind("unit"), pack.catalog.schema.kind(against)
    between = {m.name for m in pack.catalog.schema.matchups if m.between == (unit, other)}
    return next(
        (
            (e.intent, e.sub_intent)
            for e in pack.phi
            if (first := _first_step(e)) is not None
            and first.recipe == "matchup_status"
            and first.inputs.get("matchup") in between
            and (e.intent, e.sub_intent) in labels
        ),
        None,
    )


def _first_step(e: PhiEntry) -> AnswerStep | None:
    """The pair's first answer step past the ones for a narrower ask (a verdict, "why")."""
    return next((s for s in e.answer or [] if s.recipe not in _NARROW_STEPS), None)


def _opening(e: PhiEntry) -> str | None:
    """The recipe a Φ pair's answer opens with, past the steps for a narrower ask."""
    # (A step with `asks` answers only the question its cue words ask: narrow too.)
    return next(
        (s.recipe for s in e.answer or [] if s.recipe not in _NARROW_STEPS and not s.inputs.get("asks")), None
    )


# "What's that Spotter Drone ...": the option asked, then who uses it.
_WHATS_THAT = r"(?:whats|what\s+is|what\s+was|wats)(?:\s+(?:the|that|this))?"
# ... then who uses it: "(that) their xherox keeps throwing up", "(that) he uses" (English cue words).
_IT_DOES = (
    r"(?:that\s+|which\s+)?(?:their|the|my|our|his|her|he|she|they|it)\s+(?:x[a-z]+x\s+)?"
    r"(?:keeps|kept|always|uses|used|throws|threw|drops|dropped|puts|put|has|had|runs|ran|does|did|"
    r"is|was)\b"
)
# "Is (it) good to level him": worth levelling (English cue words).
_GOOD_TO_LEVEL = re.compile(
    r"\b(?:good|worth\s+it|smart|wise|ok|okay|fine|a\s+good\s+idea|worth)\s+(?:to\s+|for\s+me\s+to\s+)(?:keep\s+)?"
    r"(?:level|levelling|leveling|train|training|upgrade|upgrading|invest\s+in|grind)\b"
)
# "Tank or support here", "should I go fire or water": a choice of kinds to play.
_KIND_CHOICE = re.compile(
    r"\b(?:here|this\s+(?:round|match|game)|should\s+(?:i|we)|do\s+(?:i|we)|go|play|run|pick|bring|take)\b"
)
_KIND_VERDICT = re.compile(
    r"\b(?:good|work|works|viable|decent|ok|okay|suit|suits|strong|bad|worth|favou?rs?|for)\b", re.IGNORECASE
)
# Steps that answer only a narrower ask of their pair ("what are they weak to" of the analysis
# pair, "who's in my team" and "is this map good for us" of the evaluate pair): not what the pair's
# answer opens with.
_NARROW_STEPS = (
    "weak_side",
    "members",
    "team_on_context",
    "why",
    "sides_on_attribute",
    "unit_verdict",
    "kind_on_context",
    "option_target",
)


def named_unit(pack: Pack, text: str, mentions: list[Mention] | None = None) -> bool:
    unit = pack.catalog.schema.kind("unit")
    return any(m.kind == unit for m in (mentions if mentions is not None else link_entities(pack, text)))


def _fact_pair(
    pack: Pack, labels: list[tuple[str, str]], kind: str | None = None, requires: str | None = None
) -> tuple[str, str] | None:
    """The first Φ pair whose answer opens with a `fact` step about `kind` (or that requires the
    state field `requires`)."""
    for e in pack.phi:
        step = next((s for s in e.answer or [] if s.recipe != "option_target"), None)  # (a narrower ask)
        if step is None or step.recipe != "fact" or (e.intent, e.sub_intent) not in labels:
            continue
        if (kind is not None and step.inputs.get("kind") == kind) or (requires and requires in e.requires):
            return e.intent, e.sub_intent
    return None


# The recipes that judge a whole team: its rating, or its matchups against the opponent's side.
_RATES = ("rating", "team_read")


def _phi_pairs(pack: Pack) -> list[tuple[str, str]]:
    return [(e.intent, e.sub_intent) for e in pack.phi]


def _opening_pair(pack: Pack, labels: list[tuple[str, str]], *recipes: str) -> tuple[str, str] | None:
    """The first Φ pair whose answer opens with one of `recipes` (e.g. "threat": their biggest threat)."""
    return next(
        (
            (e.intent, e.sub_intent)
            for e in pack.phi
            if _opening(e) in recipes and (e.intent, e.sub_intent) in labels
        ),
        None,
    )


def _step_pair(
    pack: Pack, labels: list[tuple[str, str]], recipe: str, **inputs: object
) -> tuple[str, str] | None:
    """The first Φ pair (of `labels`) whose answer has a `recipe` step with these inputs (True: any
    value given)."""
    return next(
        (
            (e.intent, e.sub_intent)
            for e in pack.phi
            if any(
                s.recipe == recipe
                and all(s.inputs.get(k) if v is True else s.inputs.get(k) == v for k, v in inputs.items())
                for s in e.answer or []
            )
            and (e.intent, e.sub_intent) in labels
        ),
        None,
    )


_GROUP_PATTERNS: dict[tuple[str, str], re.Pattern[str]] = {}


def _another_group(pack: Pack) -> re.Pattern[str]:
    """ "A different comp", "another team": the schema's group nouns after an English word for other
    (compiled once per pack)."""
    key = (pack.pack_id, pack.version)
    if key not in _GROUP_PATTERNS:
        schema = pack.catalog.schema
        nouns = sorted({normalise(n) for k in schema.kinds_of("group") for n in schema.kinds[k].nouns} - {""})
        words = "|".join(map(re.escape, nouns))
        _GROUP_PATTERNS[key] = re.compile(
            rf"\b(?:different|another|other|new)\s+(?:{words})s?\b" if nouns else r"(?!)"
        )
    return _GROUP_PATTERNS[key]


def _asks_again(pack: Pack, prev: PhiEntry) -> bool:
    """Whether "anything else?" after `prev` asks `prev` again: after a recommendation (W3 gives
    another direction), or after a tip the pack words itself with more than one variant (the
    realizer says the next one); not after a fact, whose second telling is the same fact."""
    tips = pack.templates.answers.get(f"{prev.intent}/{prev.sub_intent}", [])
    return prev.branch == "recommend" or (prev.branch == "teaching" and len(tips) > 1)


def session_rule(
    pack: Pack, text: str, pred: Prediction, previous: tuple[str, str] | None
) -> Prediction | None:
    """The pair the session's rules choose over the classifier's `pred`, or None:

    - *why*: a short why-question (ASKS_WHY) after a turn that used tools: the previous pair;
    - *ask again* / *refine*: the utterance asks for another option (ASK_AGAIN) or adds a
      constraint (REFINE) after a turn whose Φ pair recommends or teaches (`_asks_again`), and the
      classifier is not sure (< RULE_CONFIDENCE): the previous pair;
    - *elliptical*: a few words asking about what the last turn was about ("how far off is
      that?"), naming nothing, and the classifier not sure: the previous pair;
    - *anchor excluded*: the pair is anchored on a creature ("build around X") but the player
      excludes every creature they name ("build without X"): the Φ entry's `anchor_excluded` pair.
    """
    entries = {(e.intent, e.sub_intent): e for e in pack.phi}
    prev = entries.get(previous) if previous is not None else None
    if (
        prev is not None
        and prev.tools
        and pred.confidence < RULE_CONFIDENCE
        and ASKS_WHY.search(normalise(text))
    ):
        return pred.model_copy(update={"intent": prev.intent, "sub_intent": prev.sub_intent, "rule": "why"})
    if (
        prev is not None
        and prev.tools
        and pred.confidence < RULE_CONFIDENCE
        and elliptical(text)
        and not link_entities(pack, text)
    ):
        # "How long will that take" after "should I level Lumifawn": more of the same question.
        return pred.model_copy(
            update={"intent": prev.intent, "sub_intent": prev.sub_intent, "rule": "elliptical"}
        )
    if prev is not None and _asks_again(pack, prev) and pred.confidence < RULE_CONFIDENCE:
        words = normalise(text)
        again = ASK_AGAIN.search(words) or _another_group(pack).search(words)
        rule = "ask_again" if again else "refine" if REFINE.search(words) else None
        if rule == "refine" and _NEW_QUESTION.search(words) and link_entities(pack, text):
            rule = None  # "and what beats Shellbastion": a question of its own, about what it names
        if rule == "ask_again" and re.search(rf"\b{FACING}\s+", words) and link_entities(pack, text):
            rule = None  # "someone else who's better against Quillon": a counter asked, whatever came before
        if rule is not None:
            return pred.model_copy(
                update={"intent": prev.intent, "sub_intent": prev.sub_intent, "rule": rule}
            )
    entry = entries.get((pred.intent, pred.sub_intent))
    if entry is not None and entry.anchor_excluded is not None:
        slots = extract_slots(pack, text)
        named = {*slots.wanted_entities, *slots.excluded_entities}
        if slots.excluded_entities and named <= set(slots.excluded_entities):
            intent, sub_intent = entry.anchor_excluded.split("/", 1)
            return pred.model_copy(
                update={"intent": intent, "sub_intent": sub_intent, "rule": "anchor_excluded"}
            )
    return None
