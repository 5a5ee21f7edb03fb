"""The reply checker's speakable rules: could a voice say this to a player at all?

The rules that need no live state (`speakable_failures` for a whole text; the single-sentence
checks `check_sentence` in `voicecoach.talker.checker` composes). The prompt-echo patterns are
derived from the prompt renderers (`speakable_patterns`), built once per pack.

Speakable rules (drift None: a task failure, not a drift):
- `no_reply`: empty, whitespace, or not text at all (None, bytes);
- `prompt_echo`: the coach reads its conditioning aloud. The patterns are DERIVED, never retyped:
  the prompt renderers themselves (`talker.render_reply_prompt`, `talker_system_prompt`, the
  baselines' prompts) are run on sentinel inputs, and what they write around the sentinels becomes
  the pattern set — every "Heading:" a prompt line opens with ("You must:", "Facts from the game:",
  "Player:", "Coach:", "Player owns:" ...), every five-word run of instruction text ("and what the
  player can do instead"), instruction openers ending in "that" at a sentence start ("Explain
  that ..."), W1's tag names (`voicecoach.perception.tags.SECTIONS`, as tags or as capitalised
  words) and the pack's tool names (manifest `tools`). A prompt change therefore moves the patterns
  with it;
- `markup`: JSON, brackets / braces / angle tags, markdown emphasis, bullets, headings, code
  ticks, snake_case identifiers, URLs — nothing a voice should read out;
- `loop`: a three-word run said three times or more, a phrase said twice back to back ("I'm sorry,
  I'm sorry"; one word: three times, "no, no, no"), or the same sentence (three words or more) twice;
- `too_long`: more than MAX_WORDS words or MAX_SENTENCES sentences;
- `unknown_name`: a capitalised name that is no catalog entry, no word of the pack's own text
  (persona, rules, and every string field of every catalog entity: names, ids, aliases, attribute
  values, descriptions, unlock quests) and no ordinary English word (the
  frequency list bundled with `pyspellchecker`, MIT: a word is ordinary when it occurs at least
  ORDINARY_MIN_COUNT times there); words under four letters ("GG", "Heh") and interjections of
  at most two distinct letters ("Hmmm") are never names. Catches invented creatures ("Cyclo-Aerathos").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from voicecoach.domain.english import ORDINARY_MIN_COUNT, english_counts
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import Pack
from voicecoach.talker.claims import match_spans, normalise_quotes
from voicecoach.talker.rules import ECHO_NGRAM, MAX_SENTENCES, MAX_WORDS, Failure, fail

SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
SENTINEL = "Zqx"  # a filler no prompt, pack or reply contains: the prompts are rendered around it
MARKUP = re.compile(
    r"[{}\[\]<>`|\\]"  # JSON, brackets, tags, code, tables
    r"|\*\*|__|(?:^|\n)\s*(?:[-*•]|#+|\d+[.)])\s"  # markdown emphasis, bullets, headings, numbered lists
    r"|\"\w+\"\s*:"  # "key": a JSON field
    r"|\b[a-z]+(?:_[a-z0-9]+)+\b"  # snake_case identifiers (tool names, labels, ids)
    r"|https?://|www\.",
)
NAME = re.compile(r"(?<![A-Za-z0-9_-])[A-Z][A-Za-z]*(?:['-][A-Za-z]+)*")
HEADING_START = re.compile(r"^(?:[A-Za-z][A-Za-z' ]{0,30}?:\s*)+")
HEADING_LINE = re.compile(r"(?:^|\n|[(;]\s*)([A-Za-z][A-Za-z' ]{0,30}?):(?:\s|$)")


def split_sentences(text: str) -> list[str]:
    """Sentences as TTS would speak them: cut after . ! ? and at line breaks."""
    return [s.strip() for s in SENTENCE.split(text) if s.strip()]


def words(text: str) -> list[str]:
    return WORD.findall(normalise_quotes(text).lower())


def _echo_words(text: str) -> list[str]:
    # The prompts spell British ("apologise"), small models echo them American ("apologize").
    return [re.sub(r"iz(e|es|ed|ing)$", r"is\1", w) for w in words(text)]


@dataclass(frozen=True)
class Speakable:
    """The per-pack patterns of the speakable rules (built once per pack, see `speakable_patterns`)."""

    headings: re.Pattern[str]  # "You must:", "Player:" ... anywhere
    openers: re.Pattern[str]  # "Explain that" at a sentence start
    tags: re.Pattern[str]  # W1's tags and tool names
    echo_ngrams: frozenset[tuple[str, ...]]  # five-word runs of instruction text
    vocabulary: frozenset[str]  # lowercased words of the pack's own text
    sources: tuple[str, ...] = field(default=())  # the rendered prompts the patterns came from


def _rendered_prompts(pack: Pack) -> list[str]:
    """Every prompt whose words may reach the player, rendered on sentinel inputs.

    Each renderer is the production one, so a new heading or instruction shows up here by itself.
    """
    from voicecoach.core.state import load_state
    from voicecoach.grounding.diff import Conflict
    from voicecoach.grounding.kernel import GroundingControl
    from voicecoach.grounding.plan import Paragraph
    from voicecoach.grounding.slots import QuerySlots
    from voicecoach.interaction.kernel import Guidance, InteractionControl
    from voicecoach.talker.baselines import pe_reply_messages, planner_messages, prompting_messages
    from voicecoach.talker.conditioning import ToolOutcome, render_reply_prompt

    s = SENTINEL
    schema = pack.catalog.schema
    option = schema.kind("option")
    example = pack_example_state(pack)
    state = load_state(example) if example is not None else None
    paragraphs = tuple(Paragraph(type=t, detail=s) for t in ("praise", "apology", "constraint_account",
                                                              "guidance", "scene_flavor"))  # fmt: skip
    # An option conflict's id is "<option kind>:<option>@<unit>" (pet: skill:inferno_roar@emberfox).
    option_conflict = (
        [Conflict(constraint=f"{option}:{s}@{s}", kind=option, tier="hard", satisfied=False, detail=s)]
        if option
        else []
    )
    conflicts = (
        Conflict(constraint="state", kind="state", tier="hard", satisfied=False, detail=s),
        *option_conflict,
        Conflict(constraint=f"has:{s}", kind="has", tier="hard", satisfied=False, entity=s, detail=s),
        Conflict(constraint=f"has:{s}", kind="has", tier="hard", satisfied=True, entity=s, detail=s),
        Conflict(constraint=f"unknown_entity:{s}", kind="unknown_entity", tier="hint", satisfied=False,
                 entity=s, detail=s),
    )  # fmt: skip
    c2 = GroundingControl(slots=QuerySlots(), conflicts=conflicts, plan=paragraphs, inventory_empty=False)
    group = schema.kind("group")
    lineup = sorted(pack.catalog.entities.get(group, {}) if group else ())[:1]
    tools = [
        ToolOutcome(tool=pack.tools[0], ok=True, result={s: s}),
        ToolOutcome(tool=pack.tools[0], ok=False, error=s),
    ]
    texts: list[str] = []
    for guidance in (Guidance(guidance_type=s, candidate_id=s, text=s), None):
        c3 = InteractionControl(branch=s, turn_index=0, guidance=guidance, cooling=[], cooling_lineups=lineup)
        messages, _ = render_reply_prompt(pack, s, s, c2, c3, tools, [s])
        texts += [m["content"] for m in messages]
    if state is not None:  # the baselines paste the state: their headings need one to render
        for messages in (
            prompting_messages(pack, state, s),
            pe_reply_messages(pack, state, s, tools),
            planner_messages(pack, state, s),
        ):
            texts += [m["content"] for m in messages]
    return texts


def pack_example_state(pack: Pack) -> dict[str, Any] | None:
    """The pack's example state (example_state.json), to render the state-dependent prompts."""
    import json

    from voicecoach.domain.pack import example_state_path

    path = example_state_path(pack)
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (lists and objects walked; keys are field names, not text)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _pack_words(pack: Pack) -> set[str]:
    """Every word of the pack's own text: persona, rules, and every string field of every catalog
    entity of every kind (names, ids, aliases, attribute values, descriptions, unlock quests ...)."""
    texts = [pack.title, pack.persona, *pack.domain_rules]
    for entities in pack.catalog.entities.values():
        for e in entities.values():
            texts += _strings(e.model_dump())
    return {w.lower() for t in texts for w in re.findall(r"[A-Za-z]+", t)}


def _known_words(pack: Pack, prompts: Sequence[str]) -> set[str]:
    """Words a name may be made of without being invented: the catalog's, the pack's, the prompts'."""
    return _pack_words(pack) | {w.lower() for t in prompts for w in re.findall(r"[A-Za-z]+", t)}


def _instruction_fragments(pack: Pack, texts: Sequence[str]) -> list[str]:
    """The prompts' own wording: the text between sentinels and pack data, line by line."""
    rules = set(pack.domain_rules)  # facts the coach may teach, not instructions
    sentinel = re.compile(re.escape(SENTINEL))
    fragments: list[str] = []
    for text in texts:
        for line in text.split("\n"):
            line = line.lstrip("- ").strip()
            if not line or line in rules:
                continue
            for body in split_sentences(HEADING_START.sub("", line)):
                # Catalog names and the sentinel inputs are not instruction text: cut the line there.
                cuts = [m.span for m in link_entities(pack, body)]
                for a, b in match_spans(sentinel, body, 0, len(body)):
                    piece = body[a:b]
                    inner = [(x - a, y - a) for x, y in cuts if a <= x < b]
                    fragments += [piece[x:y] for x, y in _complement(inner, len(piece))]
    return fragments


def _complement(spans: list[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    out, at = [], 0
    for a, b in sorted(spans):
        if a > at:
            out.append((at, a))
        at = max(at, b)
    if at < length:
        out.append((at, length))
    return out


_PATTERNS: dict[int, tuple[Pack, Speakable]] = {}


def speakable_patterns(pack: Pack) -> Speakable:
    """The speakable rules' patterns for `pack`, derived from the prompts (cached per pack object)."""
    hit = _PATTERNS.get(id(pack))
    if hit is not None and hit[0] is pack:
        return hit[1]
    from voicecoach.perception.tags import SECTIONS

    texts = _rendered_prompts(pack)
    headings = sorted(
        {m.group(1).strip() for t in texts for m in HEADING_LINE.finditer(t) if SENTINEL not in m.group(1)},
        key=len,
        reverse=True,
    )
    heading_re = re.compile(
        r"(?<![\w'])(?:" + "|".join(re.escape(h).replace(r"\ ", r"\s+") for h in headings) + r")\s*:",
        re.IGNORECASE,
    )
    fragments = _instruction_fragments(pack, texts)
    ngrams: set[tuple[str, ...]] = set()
    openers: set[str] = set()
    for frag in fragments:
        ws = _echo_words(frag)
        for i in range(len(ws) - ECHO_NGRAM + 1):
            ngrams.add(tuple(ws[i : i + ECHO_NGRAM]))
        # "Explain that ...", "Say plainly that ...": an imperative opening a clause about "that".
        if "that" in ws[1:6] and ws[0] not in ("that", "and", "the"):
            opener = ws[: ws.index("that", 1) + 1]
            if len(opener) >= 2:
                openers.add(r"\W*".join(map(re.escape, opener)))
    tag_names = [re.escape(s) for s in SECTIONS]
    tags = re.compile(
        r"</?\s*(?:" + "|".join(tag_names) + r")\s*>"
        r"|(?<![\w])(?:" + "|".join(tag_names) + r")(?![\w])"  # case-sensitive: "PLAN", not "plan"
        r"|(?i:(?<![\w])(?:" + "|".join(re.escape(t) for t in pack.tools) + r")(?![\w]))"
    )
    opener_re = re.compile(r"(?:^|[.!?:]\s*)(?:" + "|".join(sorted(openers)) + r")(?![\w])", re.IGNORECASE)
    patterns = Speakable(
        headings=heading_re,
        openers=opener_re,
        tags=tags,
        echo_ngrams=frozenset(ngrams),
        vocabulary=frozenset(_known_words(pack, texts)),
        sources=tuple(texts),
    )
    _PATTERNS[id(pack)] = (pack, patterns)
    return patterns


def echo_failure(p: Speakable, text: str) -> Failure | None:
    for pattern in (p.headings, p.tags, p.openers):
        m = pattern.search(text)
        if m:
            return fail("prompt_echo", None, f"reads its prompt aloud: {m.group(0).strip()!r}")
    ws = _echo_words(text)
    for i in range(len(ws) - ECHO_NGRAM + 1):
        gram = tuple(ws[i : i + ECHO_NGRAM])
        if gram in p.echo_ngrams:
            return fail("prompt_echo", None, f"reads its instructions aloud: {' '.join(gram)!r}")
    return None


def markup_failure(text: str) -> Failure | None:
    m = MARKUP.search(text)
    return fail("markup", None, f"not speech: {m.group(0).strip()!r}") if m else None


def loop_in(ws: Sequence[str]) -> str | None:
    """A loop inside one run of words: a trigram three times, or a phrase repeated back to back."""
    trigrams = Counter(tuple(ws[i : i + 3]) for i in range(len(ws) - 2))
    if trigrams:
        gram, n = trigrams.most_common(1)[0]
        if n >= 3:
            return f"{' '.join(gram)!r} said {n} times"
    for size in (1, 2, 3, 4):
        times = 3 if size == 1 else 2
        for i in range(len(ws) - size * times + 1):
            unit = ws[i : i + size]
            if all(ws[i + k * size : i + (k + 1) * size] == unit for k in range(1, times)):
                return f"{' '.join(unit)!r} repeated back to back"
    return None


def same_sentence(sentence: str, earlier: Iterable[str]) -> bool:
    ws = words(sentence)
    return len(ws) >= 3 and any(words(e) == ws for e in earlier)


def _loop(text: str) -> Failure | None:
    """A loop in a whole turn. A phrase repeated back to back counts inside a sentence, or as a whole
    sentence said again at once ("I'm sorry. I'm sorry."); across a boundary it is how people speak
    ("Let me find your strongest pet. Your strongest pet is Skylancer.")."""
    ws, sentences = words(text), split_sentences(text)
    trigrams = Counter(tuple(ws[i : i + 3]) for i in range(len(ws) - 2))
    gram, n = trigrams.most_common(1)[0] if trigrams else ((), 0)
    why = f"{' '.join(gram)!r} said {n} times" if n >= 3 else None
    for i, s in enumerate(sentences):
        if why is not None:
            break
        why = loop_in(words(s))
        if why is None and i > 0 and words(s) and words(s) == words(sentences[i - 1]):
            why = f"the sentence {s!r} said twice in a row"
        elif why is None and same_sentence(s, sentences[:i]):
            why = f"the sentence {s!r} said twice"
    return fail("loop", None, f"loops: {why}") if why else None


def too_long_failure(n_words: int, n_sentences: int) -> Failure | None:
    if n_words > MAX_WORDS or n_sentences > MAX_SENTENCES:
        return fail(
            "too_long",
            None,
            f"{n_words} words in {n_sentences} sentences (a spoken turn: <= {MAX_WORDS} words, "
            f"<= {MAX_SENTENCES} sentences)",
        )
    return None


def unknown_name_failures(pack: Pack, p: Speakable, text: str) -> list[Failure]:
    known = [(m.span[0], m.span[1]) for m in link_entities(pack, text)]
    english = english_counts()
    out: list[Failure] = []
    for m in NAME.finditer(text):
        if any(a <= m.start() < b for a, b in known):
            continue
        # "You've", "Emberfox's": a contraction or possessive ending is no part of a name.
        parts = [
            re.sub(r"'(?:s|ve|ll|re|d|t|m)$", "", w, flags=re.IGNORECASE).lower()
            for w in m.group(0).split("-")
        ]
        parts = [w for part in parts for w in part.split("'") if w]
        if all(w in p.vocabulary or english.get(w, 0) >= ORDINARY_MIN_COUNT or _not_a_name(w) for w in parts):
            continue
        out.append(fail("unknown_name", None, f"{m.group(0)!r} is no catalog name", m.group(0)))
    return out


def unknown_names(pack: Pack, text: str) -> list[str]:
    """The capitalised words of `text` that are neither catalog names nor ordinary words ("Useworld")."""
    return [f.entity for f in unknown_name_failures(pack, speakable_patterns(pack), text) if f.entity]


def _not_a_name(word: str) -> bool:
    """Too short to be an invented name ("GG", "Heh", "Hmm"), or an interjection ("Hmmm", "Ooooh")."""
    return len(word) < 4 or len(set(word)) <= 2


def speakable_failures(pack: Pack, text: str) -> list[Failure]:
    """The speakable rules on a whole turn's text (narration + reply)."""
    p = speakable_patterns(pack)
    found = [echo_failure(p, text), markup_failure(text), _loop(text)]
    found.append(too_long_failure(len(words(text)), len(split_sentences(text))))
    out = [f for f in found if f is not None]
    return out + unknown_name_failures(pack, p, text)


_LEAD = re.compile(r"^(?:yes|no|yeah|nope|sure|right)\b[,.!]?\s*", re.IGNORECASE)


def _gist(sentence: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", _LEAD.sub("", sentence.strip()).lower()))


_LEAD_NOT_YET = re.compile(r"^(?:not yet|yes|no)\b[,:]?\s*", re.IGNORECASE)


def _content_words(text: str) -> set[str]:
    """The words that carry a sentence's facts: names, numbers, verbs of four letters or more."""
    words = re.findall(r"[a-z0-9']+", _LEAD_NOT_YET.sub("", text.strip()).lower())
    return {w.rstrip("s") for w in words if len(w) >= 4 or w.isdigit()} - _FUNCTION_WORDS


_FUNCTION_WORDS = frozenset("that this with from your their they them then than what when which into "
                            "also only just still it's isn't you're".split())  # fmt: skip


_REASON = re.compile(r"^(?P<said>[^:]+): (?P<why>[^:]+?)\.$")
_REASON_LEAD = re.compile(r"^(?:its|it's|it|their|his|her|the|because)\s+", re.IGNORECASE)


def _reason(sentence: str) -> str | None:
    found = _REASON.match(sentence.strip())
    return _REASON_LEAD.sub("", found["why"]).lower() if found is not None else None


def reasons_once(spoken: Sequence[str], said: Sequence[str] = ()) -> list[str]:
    """A reason said once: "Shellbastion is their biggest threat: water beats your Emberfox's fire.
    Go after Shellbastion first: its water beats ..." keeps the second sentence's advice without
    its reason again (two answers in one reply often share it)."""
    seen = {why for s in said if (why := _reason(s)) is not None}
    out = []
    for text in spoken:
        why = _reason(text)
        if why is not None and why in seen:
            text = f"{text.strip().partition(': ')[0]}."
        out.append(text)
        if why is not None:
            seen.add(why)
    return out


_RANK_WORDS = frozenset({"best", "worst", "first", "better", "worse", "last"})


def without_asking_back(pack: Pack, text: str) -> str:
    """`text` without the pack's asking-back sentences ("Which skill do you mean? I didn't catch its
    name."): the second of two questions, when the first was answered, asks nothing back (the
    player heard an answer; a question after it reads as the coach lost the thread)."""
    templates = pack.templates.paragraphs["constraint_account"].templates
    asks = {
        sentence
        for key, variants in templates.items()
        if key.startswith("which_")
        for variant in variants
        for sentence in split_sentences(variant)
    }
    return " ".join(s for s in split_sentences(text) if s not in asks)


def unsaid(text: str, said: str) -> str:
    """The sentences of `text` that `said` does not already say (by their words, a leading "Yes,"
    or "No," aside; or three in five of their content words said already): two answers in one
    reply never say one thing twice."""
    before, known = _gist(said), _content_words(said)
    names_said = set(re.findall(r"\b(?:[A-Z][\w']+|\d+)", said))

    def new(sentence: str) -> bool:
        content = _content_words(sentence)
        # A name or a number the first answer did not say is news ("..., and Granitusk against it").
        names = set(re.findall(r"\b(?:[A-Z][\w']+|\d+)", _LEAD_NOT_YET.sub("", sentence.strip())))
        # Only a number new ("..., so 3 more levels to go") in a sentence said almost word for word:
        # the same fact again.
        fresh, overlap = names - names_said, len(content & known) / max(len(content), 1)
        # A ranking the first answer did not make is news ("Nightmare Hex is the strongest ...").
        ranks = {w for w in content - known if (w.endswith("est") and len(w) >= 6) or w in _RANK_WORDS}
        restated = (
            len(content) >= 3
            and not ranks
            and ((not fresh and overlap >= 0.6) or (all(n.isdigit() for n in fresh) and overlap >= 0.8))
        )
        return bool(_gist(sentence)) and _gist(sentence) not in before and not restated

    kept = [s for s in split_sentences(text) if new(s)]
    return " ".join(reasons_once(kept, split_sentences(said)))
